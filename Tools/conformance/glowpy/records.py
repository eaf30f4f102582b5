"""Model values to and from the messages of glow.proto (wire.md 3.5, WIRE-17), with the stock runtime.

`Reader` turns a message parsed by the runtime into its model value (the canonical JSON of
section 1), checking the value conventions of WIRE-17 and the model's rules (WIRE-16) and
reporting `invalid_value` where WIRE-16 says, from what the scan of the same bytes recorded: a
broken convention at its field's tag, a record that breaks a model rule or lacks a required
member at the first byte of its message body.
`Writer` builds messages from model values for the runtime to serialise.

Unknown fields (WIRE-7, MODEL-49) travel with the model value as a private `_unknown` member of
the dict of the message they appeared in, and enum values this version does not name as a private
`_enums` member (the model sees the field's default); neither reaches the JSON form (MODEL-44).
A profile's standard reminder settings have no model value (REMIND-13), so the unknown fields of
a PersonReminders holding only those ride on the profile as `_standardReminders`.
`serialize` is the one place bytes are assembled by hand: to write a message's unknown fields after
its known ones, also inside nested messages. An unknown enum value needs nothing of the kind: the
message is given the number itself, and the runtime writes it in its field's place, as proto3's
open enums ask (WIRE-7).
"""
from google.protobuf.descriptor import FieldDescriptor as FD

from . import checkins
from . import model as m
from .errors import Failure
from .model import strip                                  # noqa: F401  (used here and re-exported)
from .protowire import varint

COMPARISONS = ['atLeast', 'atMost']
PERIODS = ['week', 'month']
KIND_FIELDS = ['single', 'subgoals', 'progress', 'value', 'tally', 'countdown', 'streak']
RULE_FIELDS = {'daily': 'daily', 'weekdays': 'weekdays', 'times_per_week': 'timesPerWeek',
               'times_per_month': 'timesPerMonth', 'every_n_days': 'everyNDays'}
LOG_FIELDS = ['done', 'skip', 'amount', 'tally', 'items', 'value']


def graft(canonical, raw):
    """Copies the private members of `raw` onto `canonical`, a validated copy of the same shape."""
    if isinstance(canonical, dict) and isinstance(raw, dict):
        for key, value in raw.items():
            if key.startswith('_'):
                canonical[key] = value
            elif key in canonical:
                graft(canonical[key], value)
    elif isinstance(canonical, list) and isinstance(raw, list):
        for c, r in zip(canonical, raw):
            graft(c, r)
    return canonical


def number(message, name):
    return message.DESCRIPTOR.fields_by_name[name].number


def enum_number(value, key, names):
    """WIRE-7: the number an enum field is written with: the one read when this version does not
    name it and the model still sees it as the default, otherwise that of the model's name."""
    kept = value.get('_enums', {}).get(key)
    if kept is not None and value[key] == names[0]:
        return kept
    return names.index(value[key])


class Reader:
    """Reads model values out of parsed messages; `scan` knows where each field was."""

    def __init__(self, scan):
        self.scan = scan

    def refuse(self, why, path):
        """WIRE-16: a value that breaks a convention of WIRE-17 or a width, refused at its field's tag."""
        raise Failure('invalid_value', why, offset=self.scan.field_offset(path))

    def refuse_record(self, why, path):
        """WIRE-16: a record that breaks a model rule or lacks a required member (WIRE-24: a block
        whose columns disagree), refused at the first byte of its message body."""
        raise Failure('invalid_value', why, offset=self.scan.body_offset(path))

    def validated(self, check, raw, path, keep_private=False):
        """The model's own reader judges the value (WIRE-16); its refusal is `invalid_value`. The
        value's private members (unknown fields) are copied onto the result, or, `keep_private`,
        handed to a reader that carries them itself (a check-in reorders its taps)."""
        try:
            canonical = check(raw if keep_private else strip(raw))
        except Failure as failure:
            self.refuse_record(f'{failure.code} at {failure.path}: {failure}', path)
        return canonical if keep_private else graft(canonical, raw)

    def keep_unknown(self, value, path):
        unknown = self.scan.unknown_fields(path)
        if unknown:
            value['_unknown'] = unknown
        return value

    # -- WIRE-17: value conventions

    def uuid(self, raw, path, what='an identifier'):
        if len(raw) != 16:
            self.refuse(f'{what} of {len(raw)} bytes, not 16', path)
        return m.uuid_text(raw)

    def day(self, n, path):
        if not m.MIN_DAY <= n <= m.MAX_DAY:
            self.refuse(f'Day {n} is outside 0001-01-01 ... 9999-12-31', path)
        return m.day_text(n)

    def instant(self, ms, path):
        if not m.MIN_MS <= ms <= m.MAX_MS:
            self.refuse(f'instant {ms} is outside the years 1 ... 9999', path)
        return m.instant_text(ms)

    def amount(self, thousandths, path):
        if abs(thousandths) > m.MAX_AMOUNT:
            self.refuse(f'amount {thousandths} is beyond ±999,999,999,999,999 thousandths', path)
        return m.amount_text(thousandths)

    @staticmethod
    def enum(message, field, names, out, key):
        """WIRE-7: proto3 enums are open. The runtime holds the last value given, known or not; the
        model sees a value this version does not name as the default (the first name), and the
        number itself is kept in `out['_enums']` to be written back in the field's place."""
        number = getattr(message, field)
        if 0 <= number < len(names):
            out[key] = names[number]
        else:
            out[key] = names[0]
            out.setdefault('_enums', {})[key] = number
        return out

    # -- Goals (MODEL-19 ... MODEL-27)

    def goal(self, g, path=()):
        at = lambda name: path + ((number(g, name), None),)
        out = {'id': self.uuid(g.id, at('id')), 'title': g.title}
        for name in ('emoji', 'note'):
            if g.HasField(name):
                out[name] = getattr(g, name)
        out['kind'] = self.kind(g, path)
        if len(g.schedule):
            out['schedule'] = [self.schedule_entry(e, path + ((number(g, 'schedule'), i),)) for i, e in enumerate(g.schedule)]
        out['startDay'] = self.day(g.start_day, at('start_day'))
        if g.HasField('end_day'):
            out['endDay'] = self.day(g.end_day, at('end_day'))
        out['archiveHistory'] = [self.archive(a, path + ((number(g, 'archive_history'), i),)) for i, a in enumerate(g.archive_history)]
        if g.HasField('forgiveness'):
            out['forgiveness'] = self.forgiveness(g.forgiveness, at('forgiveness'))
        self.enum(g, 'visibility', m.VISIBILITIES, out, 'visibility')
        if g.template_id:
            out['templateID'] = self.uuid(g.template_id, at('template_id'), 'a template id')
        out['createdAt'] = self.instant(g.created_at, at('created_at'))
        out['modifiedAt'] = self.instant(g.modified_at, at('modified_at'))
        out['deleted'] = g.deleted
        if g.HasField('reminders'):
            out['reminders'] = self.goal_reminders(g.reminders, at('reminders'))
        return self.validated(m.goal_json, self.keep_unknown(out, path), path)

    def kind(self, message, path):
        """The `kind` oneof of a Goal or GoalDraft; a kind this version does not know is refused."""
        which = message.WhichOneof('kind')
        if which is None:
            self.refuse_record('no kind this version knows', path)
        here = path + ((number(message, which), None),)
        if which in ('single', 'streak'):              # the member's presence is the kind
            return {'type': which}
        k = getattr(message, which)
        if which == 'subgoals':
            items = [self.keep_unknown({'id': self.uuid(item.id, here + ((1, i), (1, None))), 'title': item.title}, here + ((1, i),))
                     for i, item in enumerate(k.items)]
            out = {'type': which, 'items': items, 'recurring': k.recurring}
        elif which == 'progress':
            out = {'type': which, 'target': self.amount(k.target, here + ((1, None),)), 'unit': k.unit}
        elif which == 'value':
            out = {'type': which, 'unit': k.unit}
            if k.HasField('target'):
                t = here + ((2, None),)
                target = self.enum(k.target, 'comparison', COMPARISONS, {}, 'comparison')
                target['amount'] = self.amount(k.target.amount, t + ((2, None),))
                out['target'] = self.keep_unknown(target, t)
        elif which == 'tally':
            out = {'type': which, 'dailyTarget': k.daily_target, 'unit': k.unit}
        else:
            out = {'type': which, 'targetDay': self.day(k.target_day, here + ((1, None),))}
        return self.keep_unknown(out, here)

    def rule(self, message, path):
        """A schedule rule from a `rule` or `schedule` oneof; weekdays are a bit set, Monday bit 0."""
        which = message.WhichOneof('rule' if 'rule' in message.DESCRIPTOR.oneofs_by_name else 'schedule')
        if which is None:
            return None
        value = getattr(message, which)
        if which == 'daily':
            return {'type': 'daily'}
        if which == 'weekdays':
            if value >> 7:
                self.refuse(f'weekday bits {value:#x} above Sunday', path + ((number(message, which), None),))
            return {'type': 'weekdays', 'weekdays': [d for i, d in enumerate(m.WEEKDAYS) if value >> i & 1]}
        if which == 'every_n_days':
            return {'type': 'everyNDays', 'interval': value}
        return {'type': RULE_FIELDS[which], 'times': value}

    def schedule_entry(self, e, path):
        rule = self.rule(e, path)
        if rule is None:
            self.refuse_record('a schedule entry without a rule', path)
        return self.keep_unknown({'effective': self.day(e.effective, path + ((1, None),)), 'rule': rule}, path)

    def archive(self, a, path):
        out = {'from': self.day(a.from_day, path + ((1, None),))}
        if a.HasField('until_day'):
            out['until'] = self.day(a.until_day, path + ((2, None),))
        return self.keep_unknown(out, path)

    def forgiveness(self, f, path):
        return self.keep_unknown(self.enum(f, 'period', PERIODS, {'allowance': f.allowance}, 'period'), path)

    # -- Reminder settings (REMIND-1, REMIND-13)

    def goal_reminders(self, r, path):
        """A goal's GoalReminders: times in increasing order, the weekdays as the bit set of WIRE-17
        (a higher bit refused at its tag; 0 is every due Day), `enabled`. Settings outside REMIND-1 are
        refused at the first byte of the message's body (WIRE-16)."""
        if r.weekdays >> 7:
            self.refuse(f'weekday bits {r.weekdays:#x} above Sunday', path + ((number(r, 'weekdays'), None),))
        out = {'times': sorted(r.times)}
        if r.weekdays:
            out['weekdays'] = [d for i, d in enumerate(m.WEEKDAYS) if r.weekdays >> i & 1]
        out['enabled'] = r.enabled
        return self.validated(lambda v: m.goal_reminders_json(v, '$'), self.keep_unknown(out, path), path)

    def person_reminders(self, r, path):
        """A person's PersonReminders: the nudge present when its minute is, quiet hours when both
        their minutes are (one without the other is refused), a snooze of 0 read as 10. Settings
        outside REMIND-1 are refused at the first byte of the message's body (WIRE-16)."""
        out = {}
        if r.HasField('streak_at_risk_minute'):
            out['streakAtRisk'] = {'minute': r.streak_at_risk_minute, 'minimumStreak': r.streak_at_risk_minimum}
        if r.HasField('quiet_start') != r.HasField('quiet_end'):
            self.refuse_record('a quiet hour given without the other', path)
        if r.HasField('quiet_start'):
            out['quietHours'] = {'start': r.quiet_start, 'end': r.quiet_end}
        out['snoozeMinutes'] = r.snooze_minutes or 10
        return self.validated(lambda v: m.person_reminders_json(v, '$'), self.keep_unknown(out, path), path)

    # -- Check-ins (MODEL-33 ... MODEL-36, MODEL-52 ... MODEL-55; WIRE-28)

    def checkin(self, c, path=()):
        """A single CheckIn. Without taps it is compact (MODEL-55): fields 1 ... 15 are the check-in.
        With taps (field 16) the taps decide (WIRE-28): the fields that describe them (the log, the
        instants, zone, device and `deleted`) are recomputed, not read; the note, `modified_at` and
        `note_at` (17) are the check-in's own."""
        at = lambda name: path + ((number(c, name), None),)
        out = {'goalID': self.uuid(c.goal_id, at('goal_id')), 'day': self.day(c.day, at('day'))}
        if len(c.taps):
            out['taps'] = [self.tap(t, path + ((number(c, 'taps'), i),)) for i, t in enumerate(c.taps)]
        else:
            out['log'] = self.log(c, path)
            out['firstRecordedAt'] = self.instant(c.first_recorded_at, at('first_recorded_at'))
            out['lastRecordedAt'] = self.instant(c.last_recorded_at, at('last_recorded_at'))
            out['timeZone'] = c.time_zone
            out['deviceID'] = self.uuid(c.device_id, at('device_id'), 'a device id')
            out['deleted'] = c.deleted
        if c.HasField('note'):
            out['note'] = c.note
        out['modifiedAt'] = self.instant(c.modified_at, at('modified_at'))
        if c.HasField('note_at'):
            out['noteAt'] = self.instant(c.note_at, at('note_at'))
        # The taps keep their own unknown fields (`_unknown`), which `checkin_json` carries along.
        return self.validated(checkins.checkin_json, self.keep_unknown(out, path), path, keep_private=True)

    def tap(self, t, path):
        """A Tap (WIRE-28): its action is required; `at` and `at − span` are instants (WIRE-17); its
        items follow the convention of a check-in's items. A `bool` action member (`done`, `skip`,
        `undo`) selects its case whatever its value, as WIRE-27 reads a check-in's `done` and `skip`."""
        at = lambda name: path + ((number(t, name), None),)
        which = t.WhichOneof('action')
        if which is None:
            self.refuse_record('a tap without an action', path)
        out = {'deviceID': self.uuid(t.device_id, at('device_id'), 'a device id'), 'sequence': t.sequence,
               'at': self.instant(t.at, at('at')), 'timeZone': t.time_zone}
        if t.span:
            out['firstAt'] = self.instant(t.at - t.span, at('span'))
        value, here = getattr(t, which), at(which)
        if which in ('add', 'value'):
            out['action'] = {'type': which, 'amount' if which == 'add' else 'value': self.amount(value, here)}
        elif which == 'count':
            out['action'] = {'type': which, 'count': value}
        elif which in ('check', 'uncheck'):
            out['action'] = {'type': which, 'items': self.items(value, here)}
        else:
            out['action'] = {'type': which}
        return self.keep_unknown(out, path)

    def log(self, c, path):
        which = c.WhichOneof('log')
        if which is None:
            self.refuse_record('a check-in without a log', path)
        here = path + ((number(c, which), None),)
        value = getattr(c, which)
        if which in ('done', 'skip'):
            return {'type': which}
        if which in ('amount', 'value'):
            return {'type': which, which: self.amount(value, here)}
        if which == 'tally':
            return {'type': 'tally', 'count': value}
        return {'type': 'items', 'items': self.items(value, here)}

    def items(self, raw, path):
        """WIRE-17: checked items are a whole number of 16-byte identifiers, none twice."""
        if len(raw) % 16:
            self.refuse(f'{len(raw)} bytes of items is not a whole number of identifiers', path)
        ids = [m.uuid_text(raw[i:i + 16]) for i in range(0, len(raw), 16)]
        if len(set(ids)) != len(ids):
            self.refuse('an item checked twice', path)
        return sorted(ids)

    # -- Profiles and day boundaries (MODEL-37, MODEL-9)

    def profile(self, p, path=()):
        at = lambda name: path + ((number(p, name), None),)
        out = {'userID': self.uuid(p.user_id, at('user_id'), 'a user id'), 'displayName': p.display_name}
        if p.HasField('photo_reference'):
            out['photoReference'] = p.photo_reference
        out['interests'] = list(p.interests)
        out['themeID'] = p.theme_id or 'default'          # proto3 cannot tell absent from empty (MODEL-43)
        out['boundary'] = self.boundary_value(p.boundary, at('boundary'))
        out['createdAt'] = self.instant(p.created_at, at('created_at'))
        out['modifiedAt'] = self.instant(p.modified_at, at('modified_at'))
        if p.HasField('reminders'):
            reminders = self.person_reminders(p.reminders, at('reminders'))
            if strip(reminders) != m.STANDARD_REMINDERS:
                out['reminders'] = reminders
            elif reminders.get('_unknown'):                # REMIND-13 writes no standard settings, but
                out['_standardReminders'] = reminders['_unknown']    # MODEL-49 keeps their unknown fields
        return self.validated(m.profile_json, self.keep_unknown(out, path), path)

    def boundary_value(self, b, path):
        out = {'timeZone': b.time_zone, 'dayStartMinutes': b.day_start_minutes}
        return self.keep_unknown(self.enum(b, 'week_start', m.WEEKDAYS, out, 'weekStart'), path)

    def boundary(self, b, path=()):
        return self.validated(lambda v: m.boundary_json(v, '$'), self.boundary_value(b, path), path)

    # -- Drafts, templates and interests (MODEL-39, MODEL-45)

    def draft_value(self, d, path):
        at = lambda name: path + ((number(d, name), None),)
        out = {'title': d.title}
        for name in ('emoji', 'note'):
            if d.HasField(name):
                out[name] = getattr(d, name)
        out['kind'] = self.kind(d, path)
        rule = self.rule(d, path)
        if rule is not None:
            out['schedule'] = rule
        for name, key in (('start_day', 'startDay'), ('end_day', 'endDay')):
            if d.HasField(name):
                out[key] = self.day(getattr(d, name), at(name))
        if d.HasField('forgiveness'):
            out['forgiveness'] = self.forgiveness(d.forgiveness, at('forgiveness'))
        self.enum(d, 'visibility', m.VISIBILITIES, out, 'visibility')
        if d.template_id:
            out['templateID'] = self.uuid(d.template_id, at('template_id'), 'a template id')
        return self.keep_unknown(out, path)

    def draft(self, d, path=()):
        return self.validated(m.canonical_draft, self.draft_value(d, path), path)

    def template_value(self, t, path):
        return self.keep_unknown({'id': self.uuid(t.id, path + ((1, None),), 'a template id'), 'interestID': t.interest_id,
                                  'draft': self.draft_value(t.draft, path + ((3, None),))}, path)

    def template(self, t, path=()):
        return self.validated(m.template_json, self.template_value(t, path), path)

    def interest(self, i, path=()):
        out = {'id': i.id, 'name': i.name, 'emoji': i.emoji,
               'templates': [self.template_value(t, path + ((4, n),)) for n, t in enumerate(i.templates)]}
        return self.validated(m.interest_json, self.keep_unknown(out, path), path)

    # -- Bundle records (bundle.md 4.2)

    def counts(self, c, path=()):
        return self.keep_unknown({'profiles': c.profiles, 'goals': c.goals, 'checkInBlocks': c.check_in_blocks,
                                  'checkIns': c.check_ins, 'other': c.other}, path)

    def manifest(self, mf, path=()):
        out = {'schemaVersion': mf.schema_version, 'minReaderVersion': mf.min_reader_version,
               'exporterName': mf.exporter_name, 'exporterVersion': mf.exporter_version,
               'createdAt': self.instant(mf.created_at, path + ((5, None),))}
        if mf.device_id:
            out['deviceID'] = self.uuid(mf.device_id, path + ((6, None),), 'a device id')
        out['counts'] = self.counts(mf.counts, path + ((7, None),))
        return self.keep_unknown(out, path)

    def end(self, e, path=()):
        return self.keep_unknown({'counts': self.counts(e.counts, path + ((1, None),))}, path)


class Writer:
    """Builds messages from model values. `tails` collects each message's unknown fields by path,
    for `serialize` to write after its known fields."""

    def __init__(self):
        self.tails = {}

    def keep(self, value, path):
        if value.get('_unknown'):
            self.tails[path] = value['_unknown']

    def goal(self, d, g, path=()):
        g.id = m.uuid_bytes(d['id'])
        g.title = d['title']
        for name in ('emoji', 'note'):
            if name in d:
                setattr(g, name, d[name])
        self.kind(d['kind'], g, path)
        for i, e in enumerate(d.get('schedule', [])):
            entry = g.schedule.add()
            entry.effective = m.parse_day(e['effective'])
            self.rule(e['rule'], entry)
            self.keep(e, path + ((number(g, 'schedule'), i),))
        g.start_day = m.parse_day(d['startDay'])
        if 'endDay' in d:
            g.end_day = m.parse_day(d['endDay'])
        for i, a in enumerate(d['archiveHistory']):
            span = g.archive_history.add()
            span.from_day = m.parse_day(a['from'])
            if 'until' in a:
                span.until_day = m.parse_day(a['until'])
            self.keep(a, path + ((number(g, 'archive_history'), i),))
        if 'forgiveness' in d:
            self.forgiveness(d['forgiveness'], g.forgiveness, path + ((number(g, 'forgiveness'), None),))
        g.visibility = enum_number(d, 'visibility', m.VISIBILITIES)
        if 'templateID' in d:
            g.template_id = m.uuid_bytes(d['templateID'])
        g.created_at = m.parse_instant(d['createdAt'])
        g.modified_at = m.parse_instant(d['modifiedAt'])
        g.deleted = d['deleted']
        if 'reminders' in d:
            self.goal_reminders(d['reminders'], g.reminders, path + ((number(g, 'reminders'), None),))
        self.keep(d, path)
        return g

    def kind(self, kind, message, path):
        which = kind['type']
        here = path + ((number(message, which), None),)
        if which in ('single', 'streak'):
            setattr(message, which, True)
            return
        k = getattr(message, which)
        k.SetInParent()                                    # WIRE-2: a present kind is written, even empty
        if which == 'subgoals':
            for i, item in enumerate(kind['items']):
                added = k.items.add()
                added.id, added.title = m.uuid_bytes(item['id']), item['title']
                self.keep(item, here + ((1, i),))
            k.recurring = kind['recurring']
        elif which == 'progress':
            k.target, k.unit = m.parse_amount(kind['target']), kind['unit']
        elif which == 'value':
            k.unit = kind['unit']
            if 'target' in kind:
                k.target.SetInParent()                     # WIRE-2: a present target is written, even empty
                k.target.comparison = enum_number(kind['target'], 'comparison', COMPARISONS)
                k.target.amount = m.parse_amount(kind['target']['amount'])
                self.keep(kind['target'], here + ((2, None),))
        elif which == 'tally':
            k.daily_target, k.unit = kind['dailyTarget'], kind['unit']
        else:
            k.target_day = m.parse_day(kind['targetDay'])
        self.keep(kind, here)

    @staticmethod
    def rule(rule, message):
        """A rule into a `rule` (ScheduleEntry) or `schedule` (GoalDraft) oneof."""
        t = rule['type']
        if t == 'daily':
            message.daily = True
        elif t == 'weekdays':
            message.weekdays = sum(1 << m.WEEKDAYS.index(d) for d in rule['weekdays'])
        elif t == 'everyNDays':
            message.every_n_days = rule['interval']
        else:
            setattr(message, 'times_per_week' if t == 'timesPerWeek' else 'times_per_month', rule['times'])

    def forgiveness(self, f, message, path):
        message.SetInParent()
        message.allowance = f['allowance']
        message.period = enum_number(f, 'period', PERIODS)
        self.keep(f, path)

    def goal_reminders(self, d, r, path):
        """REMIND-13: times packed in increasing order, weekdays a bit set (0: every due Day), `enabled`."""
        r.SetInParent()
        r.times.extend(sorted(d['times']))
        r.weekdays = sum(1 << m.WEEKDAYS.index(w) for w in d.get('weekdays', []))
        r.enabled = d['enabled']
        self.keep(d, path)

    def person_reminders(self, d, r, path):
        """REMIND-13: each minute with presence (WIRE-19), the snooze always written. A profile with
        the standard settings writes no PersonReminders (`profile`), unless one read carried unknown
        fields, which are then its only content."""
        r.SetInParent()
        if 'streakAtRisk' in d:
            r.streak_at_risk_minute = d['streakAtRisk']['minute']
            r.streak_at_risk_minimum = d['streakAtRisk']['minimumStreak']
        if 'quietHours' in d:
            r.quiet_start, r.quiet_end = d['quietHours']['start'], d['quietHours']['end']
        r.snooze_minutes = d['snoozeMinutes']
        self.keep(d, path)

    def checkin(self, d, c, path=()):
        """A single CheckIn: fields 1 ... 15 describe what the taps add up to (MODEL-53); a check-in
        that is not compact also lists its taps (16) in their order, and `note_at` (17) when its note
        was set at another instant than `modified_at` (WIRE-28)."""
        c.goal_id = m.uuid_bytes(d['goalID'])
        c.day = m.parse_day(d['day'])
        log = d['log']
        if log['type'] in ('done', 'skip'):
            setattr(c, log['type'], True)
        elif log['type'] in ('amount', 'value'):
            setattr(c, log['type'], m.parse_amount(log[log['type']]))
        elif log['type'] == 'tally':
            c.tally = log['count']
        else:
            c.items = b''.join(m.uuid_bytes(i) for i in sorted(log['items']))
        c.first_recorded_at = m.parse_instant(d['firstRecordedAt'])
        c.last_recorded_at = m.parse_instant(d['lastRecordedAt'])
        c.time_zone = d['timeZone']
        c.device_id = m.uuid_bytes(d['deviceID'])
        if 'note' in d:
            c.note = d['note']
        c.modified_at = m.parse_instant(d['modifiedAt'])
        c.deleted = d['deleted']
        for i, tap in enumerate(d.get('taps', [])):
            self.tap(checkins.tap_json(tap, '$'), c.taps.add(), path + ((number(c, 'taps'), i),))
        if 'noteAt' in d:
            c.note_at = m.parse_instant(d['noteAt'])
        self.keep(d, path)
        return c

    def tap(self, tap, t, path):
        """A Tap: `span` is `at` minus the first instant it stands for; the action is its oneof member."""
        t.device_id = m.uuid_bytes(tap['deviceID'])
        t.sequence = tap['sequence']
        t.at = tap['at']
        t.span = tap['at'] - tap['firstAt']
        t.time_zone = tap['timeZone']
        action = tap['action']
        kind = action['type']
        if kind in ('add', 'value'):
            setattr(t, kind, action['amount' if kind == 'add' else 'value'])
        elif kind == 'count':
            t.count = action['count']
        elif kind in ('check', 'uncheck'):
            setattr(t, kind, b''.join(m.uuid_bytes(i) for i in action['items']))
        else:
            setattr(t, kind, True)
        self.keep(tap, path)

    def profile(self, d, p, path=()):
        p.user_id = m.uuid_bytes(d['userID'])
        p.display_name = d['displayName']
        if 'photoReference' in d:
            p.photo_reference = d['photoReference']
        p.interests.extend(d['interests'])
        p.theme_id = d['themeID']
        self.boundary(d['boundary'], p.boundary, path + ((number(p, 'boundary'), None),))
        p.created_at = m.parse_instant(d['createdAt'])
        p.modified_at = m.parse_instant(d['modifiedAt'])
        here = path + ((number(p, 'reminders'), None),)
        if 'reminders' in d:
            self.person_reminders(d['reminders'], p.reminders, here)
        elif d.get('_standardReminders'):                  # only the unknown fields (WIRE-7)
            p.reminders.SetInParent()
            self.tails[here] = d['_standardReminders']
        self.keep(d, path)
        return p

    def boundary(self, d, b, path=()):
        b.SetInParent()
        b.time_zone = d['timeZone']
        b.day_start_minutes = d['dayStartMinutes']
        b.week_start = enum_number(d, 'weekStart', m.WEEKDAYS)
        self.keep(d, path)
        return b

    def draft(self, d, message, path=()):
        message.SetInParent()
        message.title = d['title']
        for name in ('emoji', 'note'):
            if name in d:
                setattr(message, name, d[name])
        self.kind(d['kind'], message, path)
        if 'schedule' in d:
            self.rule(d['schedule'], message)
        if 'startDay' in d:
            message.start_day = m.parse_day(d['startDay'])
        if 'endDay' in d:
            message.end_day = m.parse_day(d['endDay'])
        if 'forgiveness' in d:
            self.forgiveness(d['forgiveness'], message.forgiveness, path + ((number(message, 'forgiveness'), None),))
        message.visibility = enum_number(d, 'visibility', m.VISIBILITIES)
        if 'templateID' in d:
            message.template_id = m.uuid_bytes(d['templateID'])
        self.keep(d, path)
        return message

    def template(self, d, t, path=()):
        t.id = m.uuid_bytes(d['id'])
        t.interest_id = d['interestID']
        self.draft(d['draft'], t.draft, path + ((3, None),))
        self.keep(d, path)
        return t

    def interest(self, d, i, path=()):
        i.id, i.name, i.emoji = d['id'], d['name'], d['emoji']
        for n, t in enumerate(d['templates']):
            self.template(t, i.templates.add(), path + ((4, n),))
        self.keep(d, path)
        return i

    def counts(self, d, c, path=()):
        c.SetInParent()
        c.profiles, c.goals, c.check_in_blocks = d['profiles'], d['goals'], d['checkInBlocks']
        c.check_ins, c.other = d['checkIns'], d['other']
        self.keep(d, path)
        return c

    def manifest(self, d, mf, path=()):
        mf.schema_version, mf.min_reader_version = d['schemaVersion'], d['minReaderVersion']
        mf.exporter_name, mf.exporter_version = d['exporterName'], d['exporterVersion']
        mf.created_at = m.parse_instant(d['createdAt'])
        if 'deviceID' in d:
            mf.device_id = m.uuid_bytes(d['deviceID'])
        self.counts(d['counts'], mf.counts, path + ((7, None),))
        self.keep(d, path)
        return mf

    def end(self, d, e, path=()):
        e.SetInParent()
        self.counts(d['counts'], e.counts, path + ((1, None),))
        self.keep(d, path)
        return e


def serialize(message, tails, path=()):
    """WIRE-1: the canonical bytes of a message, by the stock serialiser.

    Where a message (or one nested in it) carries unknown fields, its known fields are still
    written by the runtime, field by field in number order, and the unknown fields follow them,
    byte for byte and in the order read (WIRE-7)."""
    if not any(p[:len(path)] == path for p in tails):
        return message.SerializeToString(deterministic=True)
    out = bytearray()
    for field, value in message.ListFields():            # in field-number order
        repeated = field.label == FD.LABEL_REPEATED
        if field.type == FD.TYPE_MESSAGE:
            for i, sub in enumerate(value if repeated else [value]):
                body = serialize(sub, tails, path + ((field.number, i if repeated else None),))
                out += varint(field.number << 3 | 2) + varint(len(body)) + body
        else:
            single = type(message)()
            if repeated:
                getattr(single, field.name).extend(value)
            else:
                setattr(single, field.name, value)
            out += single.SerializeToString(deterministic=True)
    return bytes(out + tails.get(path, b''))
