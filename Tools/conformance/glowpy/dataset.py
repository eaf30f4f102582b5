"""A person's data set and how it changes (Spec/model.md 1.13: MODEL-56 ... MODEL-62), and the
tracker that follows it (Spec/streaks.md 2.7: STREAK-26).

A data set is the profile (at most one), the goals (tombstones included) and the check-ins, each
held as its canonical JSON dict (MODEL-40), keyed as BUNDLE-17 says: goals by identifier, check-ins
by (goal, Day). Its JSON form and its merge (BUNDLE-17, BUNDLE-21, MODEL-54) live here, so the
bundle area builds on them; merging reports what it changed (MODEL-62).

Every mutation of 1.13 builds the new version of one record and merges it in as an import would
(MODEL-56). A mutation works on the records it reads and commits only at its end, so one that fails
changes nothing. The step language of `dataset.apply` and `streaks.track` (Spec/README.md) names
the mutations: `{"do": "tap", ...}` and so on.

The tracker (STREAK-26) answers by full re-evaluation with `streaks.py` after every change: the
specification defines only its observable answers, which are those of a full evaluation.
"""
from . import checkins
from . import model as m
from . import streaks
from .errors import Failure


# ---- The JSON form (BUNDLE-17) and merge (BUNDLE-21, MODEL-54)

def read_data(value, path='$'):
    """BUNDLE-17: a data set in its JSON form; one goal per id and one check-in per goal and Day, and
    the goal of every check-in held."""
    m.typed(value, 'dict', path)
    out = {}
    if value.get('profile') is not None:
        out['profile'] = m.profile_json(value['profile'], path + '.profile')
    goals = [m.goal_json(g, f'{path}.goals[{i}]') for i, g in enumerate(m.maybe(value, 'goals', 'list', path, []))]
    entries = [checkins.checkin_json(c, f'{path}.checkIns[{i}]') for i, c in enumerate(m.maybe(value, 'checkIns', 'list', path, []))]
    if len({g['id'] for g in goals}) != len(goals):
        raise Failure('duplicate_id', 'two goals with one id')
    if len({(c['goalID'], c['day']) for c in entries}) != len(entries):
        raise Failure('duplicate_id', 'two check-ins with one goal and Day')
    ids = {g['id'] for g in goals}
    for i, c in enumerate(entries):
        if c['goalID'] not in ids:
            raise Failure('invalid_check_in', 'a check-in whose goal the data set does not hold', path=f'{path}.checkIns[{i}].goalID')
    out['goals'] = sorted(goals, key=lambda g: g['id'])
    out['checkIns'] = sorted(entries, key=lambda c: (c['goalID'], c['day']))
    return out


def greater(a, b):
    """BUNDLE-21: of two versions of the profile or of a goal, the later `modifiedAt`; at equal
    instants a tombstone; then the greater canonical JSON (MODEL-51); then the greater unknown-field
    bytes (of the record itself, MODEL-49)."""
    def key(value):
        return (m.parse_instant(value['modifiedAt']), value.get('deleted', False), m.canonical_json(m.strip(value)),
                value.get('_unknown', b''))
    return a if key(a) >= key(b) else b


class Changes:
    """MODEL-62: what a mutation or a merge changed: whether the profile's version changed, the goals
    whose version changed, the (goal, Day) keys whose check-in changed, and the number of records of
    unknown types that were new (JSON data sets carry none)."""

    def __init__(self):
        self.profile, self.goals, self.keys, self.others = False, set(), set(), 0

    def json(self):
        """Goals in identifier order (MODEL-15: lower-case text sorts as the bytes), keys by goal, then Day."""
        return {'profile': self.profile, 'goals': sorted(self.goals),
                'checkIns': [{'goalID': g, 'day': d} for g, d in sorted(self.keys)], 'otherRecords': self.others}


class DataSet:
    """A person's data set (model.md 1.13): the profile or None, goals by id, check-ins by (goal, Day)."""

    def __init__(self, data=None):
        data = data or {'goals': [], 'checkIns': []}
        self.profile = data.get('profile')
        self.goals = {g['id']: g for g in data['goals']}
        self.entries = {(c['goalID'], c['day']): c for c in data['checkIns']}

    def json(self):
        """BUNDLE-17: goals by identifier, check-ins by goal and Day (private members kept)."""
        out = {} if self.profile is None else {'profile': self.profile}
        out['goals'] = [self.goals[k] for k in sorted(self.goals)]
        out['checkIns'] = [self.entries[k] for k in sorted(self.entries)]
        return out

    # -- Merging (BUNDLE-21, BUNDLE-22, MODEL-54), reporting the changes (MODEL-62)

    def merge(self, data):
        """Merges a data set (BUNDLE-17's dict) in: the profile and each goal keep their greatest
        version, the check-ins of one (goal, Day) merge with the taps of both. A record that arrives
        again unchanged is no change (MODEL-62). Nothing is committed until every record merged."""
        changes, profile, goals, entries = Changes(), self.profile, {}, {}
        if data.get('profile') is not None:
            profile = data['profile'] if self.profile is None else greater(self.profile, data['profile'])
            changes.profile = profile != self.profile
        for g in data['goals']:
            old = self.goals.get(g['id'])
            new = g if old is None else greater(old, g)
            if new != old:
                goals[g['id']] = new
        for c in data['checkIns']:
            key = (c['goalID'], c['day'])
            old = self.entries.get(key)
            new = c if old is None else checkins.merge(old, c)
            if new != old:
                entries[key] = new
        self.profile = profile
        self.goals.update(goals)
        self.entries.update(entries)
        changes.goals, changes.keys = set(goals), set(entries)
        return changes

    def put_goal(self, goal):
        """MODEL-56: a goal's new version merged in as an import would (BUNDLE-21)."""
        return self.merge({'goals': [goal], 'checkIns': []})

    def put_entry(self, entry):
        """MODEL-56: a check-in's new version merged in as an import would (MODEL-54)."""
        return self.merge({'goals': [], 'checkIns': [entry]})

    # -- What the mutations name (MODEL-56)

    def live_goal(self, step):
        """MODEL-56: a goal the data set does not hold is `not_found`; a tombstone `goal_deleted`."""
        gid = m.scalar(m.parse_uuid, m.need(step, 'goalID', 'str', '$'), '$.goalID')
        goal = self.goals.get(gid)
        if goal is None:
            raise Failure('not_found', f'no goal {gid}', path='goalID')
        if goal['deleted']:
            raise Failure('goal_deleted', f'goal {gid} is deleted', path='goalID')
        return goal

    def open_entry(self, goal, step):
        """MODEL-59: the Day's entry, which must be there and not undone (else `not_found` at `day`)."""
        day = m.day_text(m.scalar(m.parse_day, m.need(step, 'day', 'str', '$'), '$.day'))
        entry = self.entries.get((goal['id'], day))
        if entry is None or entry['deleted']:
            raise Failure('not_found', f'no entry on {day} to change', path='day')
        return day, entry

    # -- The mutations (MODEL-57 ... MODEL-61)

    def apply(self, step, boundary):
        """One step of the step language; returns its Changes, or raises the Failure that refused it."""
        m.typed(step, 'dict', '$')
        do = m.need(step, 'do', 'str', '$')
        mutation = {'tap': self.tap, 'undo': self.undo, 'note': self.note, 'addGoal': self.add_goal,
                    'editGoal': self.edit_goal, 'archive': self.archive, 'unarchive': self.unarchive,
                    'deleteGoal': self.delete_goal, 'setProfile': self.set_profile, 'editProfile': self.edit_profile,
                    'merge': self.merge_step}.get(do)
        if mutation is None:
            raise Failure('invalid_json', f'no mutation {do!r}', path='$.do')
        return mutation(step, boundary)

    def tap(self, step, boundary):
        """MODEL-57 / MODEL-58: a tap joins the entry of the Day of its instant under the boundary, or of
        the Day a backfill names (not after the Day of the instant), as its device's next one, in the
        boundary's zone, its instant kept to the whole second (MODEL-35). A Day outside the goal's Days
        (before its start, after its end, archived) is `invalid_check_in` at `day`; a result that does
        not fit the kind `invalid_check_in` at `log` (MODEL-34); an amount past its limit
        `invalid_amount`. A tap into an entry holding an undo at or after the tap's whole second is
        stamped the first whole second after the latest such undo, which would otherwise hide it
        (MODEL-53)."""
        goal = self.live_goal(step)
        made = instant(step)
        device = m.scalar(m.parse_uuid, m.need(step, 'deviceID', 'str', '$'), '$.deviceID')
        day = m.day_of(boundary['timeZone'], boundary['dayStartMinutes'], made)
        if step.get('day') is not None:                       # MODEL-58: a backfill
            named = m.scalar(m.parse_day, m.need(step, 'day', 'str', '$'), '$.day')
            if named > day:
                raise Failure('invalid_check_in', 'a Day after the Day of the instant cannot be filled in', path='day')
            day = named
        if not takes_taps(goal, day):
            raise Failure('invalid_check_in', f'{m.day_text(day)} is not one of the goal\'s Days', path='day')
        action = tap_action(step)
        key = (goal['id'], m.day_text(day))
        old = self.entries.get(key)
        taps = checkins.stored_taps(old) if old is not None else []
        at = made // 1000 * 1000                               # MODEL-35: kept to the whole second
        hiding = [t['at'] for t in taps if t['action']['type'] == 'undo' and t['at'] >= at]
        if hiding:                                             # MODEL-57: not hidden by an undo of its second
            at = max(hiding) // 1000 * 1000 + 1000
            if at > m.MAX_MS:
                raise Failure('invalid_instant', 'the tap would be stamped past 9999-12-31T23:59:59.999Z')
        tap = {'deviceID': device, 'sequence': next_sequence(taps, device), 'at': at, 'firstAt': at,
               'timeZone': boundary['timeZone'], 'action': action}
        entry = rebuild(key, old, taps + [tap], strict=True)
        if not entry['deleted'] and not m.fits(m.parsed_kind(goal['kind']), entry['log']):
            raise Failure('invalid_check_in', 'the tap\'s result does not fit the goal\'s kind', path='log')
        return self.put_entry(entry)

    def undo(self, step, boundary):
        """MODEL-59 / MODEL-36: an undo tap from the device at the later of the instant (to the whole
        second, MODEL-35) and the entry's `lastRecordedAt`, so it hides every tap of the entry."""
        goal = self.live_goal(step)
        day, old = self.open_entry(goal, step)
        made = instant(step)
        device = m.scalar(m.parse_uuid, m.need(step, 'deviceID', 'str', '$'), '$.deviceID')
        taps = checkins.stored_taps(old)
        at = max(made // 1000 * 1000, m.parse_instant(old['lastRecordedAt']))
        undo = {'deviceID': device, 'sequence': next_sequence(taps, device), 'at': at, 'firstAt': at,
                'timeZone': boundary['timeZone'], 'action': {'type': 'undo'}}
        return self.put_entry(rebuild((goal['id'], day), old, taps + [undo]))

    def note(self, step, boundary):
        """MODEL-59: the note of a Day's entry replaced (absent or null text removes it), `noteAt`
        stamped (MODEL-56: a millisecond after the note it replaces when the clock is not later); the
        same text again is no change. MODEL-36: a note over 500 characters is `invalid_check_in`."""
        goal = self.live_goal(step)
        day, old = self.open_entry(goal, step)
        made = instant(step)
        text = m.maybe(step, 'note', 'str', '$')
        if text is not None and m.longer_than(text, 500):
            raise Failure('invalid_check_in', 'a note over 500 characters', path='note')
        if text == old.get('note'):
            return Changes()
        note_at = stamp(made, checkins.stored_note_at(old))
        return self.put_entry(rebuild((goal['id'], day), old, checkins.stored_taps(old), note=text, note_at=note_at))

    def add_goal(self, step, boundary):
        """MODEL-60: a goal that is not a tombstone (else `invalid_goal`) whose identifier the data set
        does not hold, a tombstone's included (else `duplicate_id`)."""
        goal = m.goal_json(m.need(step, 'goal', 'dict', '$'), '$.goal')
        if goal['deleted']:
            raise Failure('invalid_goal', 'a goal is added live, not as a tombstone', path='$.goal.deleted')
        if goal['id'] in self.goals:
            raise Failure('duplicate_id', f'the data set holds a goal {goal["id"]}', path='$.goal.id')
        return self.put_goal(goal)

    def changed_goal(self, goal, step, change):
        """MODEL-60 / MODEL-56: a live goal changed by `change` (on its JSON form) and read again under
        MODEL-19, MODEL-45 and MODEL-47 (a result that breaks a rule is `invalid_goal`), then stamped;
        an edit that leaves every field as it was changes nothing, `modifiedAt` included."""
        made = instant(step)
        raw = m.strip(goal)
        change(raw)
        new = m.goal_json(raw, '$.goal')
        if new == m.strip(goal):
            return Changes()
        new['modifiedAt'] = m.instant_text(stamp(made, m.parse_instant(goal['modifiedAt'])))
        if goal.get('_unknown'):                              # MODEL-49: its unknown fields stay with it
            new['_unknown'] = goal['_unknown']
        return self.put_goal(new)

    def edit_goal(self, step, boundary):
        """MODEL-60: `set` any of `title`, `emoji`, `note`, `endDay` (null removes the last three) and
        `visibility`."""
        goal = self.live_goal(step)
        fields = m.need(step, 'set', 'dict', '$')

        def change(raw):
            for key in ('title', 'emoji', 'note', 'endDay', 'visibility'):
                if key not in fields:
                    continue
                if fields[key] is None and key in ('emoji', 'note', 'endDay'):
                    raw.pop(key, None)
                else:
                    raw[key] = m.typed(fields[key], 'str', f'$.set.{key}')
        return self.changed_goal(goal, step, change)

    def archive(self, step, boundary):
        """MODEL-60 / MODEL-47: archiving from a Day opens a span from it; one that would start before
        the previous span ended, or a goal already archived, is `invalid_goal`."""
        goal = self.live_goal(step)
        day = m.day_text(m.scalar(m.parse_day, m.need(step, 'day', 'str', '$'), '$.day'))
        return self.changed_goal(goal, step, lambda raw: raw['archiveHistory'].append({'from': day}))

    def unarchive(self, step, boundary):
        """MODEL-60 / MODEL-47: unarchiving from a Day closes the open span there, keeping the history;
        a goal that is not archived, or a Day not after the span's start, is `invalid_goal`."""
        goal = self.live_goal(step)
        day = m.day_text(m.scalar(m.parse_day, m.need(step, 'day', 'str', '$'), '$.day'))
        history = goal['archiveHistory']
        if not history or 'until' in history[-1]:
            raise Failure('invalid_goal', 'the goal is not archived', path='$.goal.archiveHistory')
        return self.changed_goal(goal, step, lambda raw: raw['archiveHistory'][-1].update(until=day))

    def delete_goal(self, step, boundary):
        """MODEL-60 / MODEL-19: a tombstone with every field, stamped with the deletion; its check-ins
        are kept."""
        goal = self.live_goal(step)
        return self.changed_goal(goal, step, lambda raw: raw.update(deleted=True))

    def set_profile(self, step, boundary):
        """MODEL-61: a profile merged in (BUNDLE-21); another person's is `invalid_profile` at `userID`."""
        profile = m.profile_json(m.need(step, 'profile', 'dict', '$'), '$.profile')
        self.same_person(profile, '$.profile.userID')
        return self.merge({'profile': profile, 'goals': [], 'checkIns': []})

    def edit_profile(self, step, boundary):
        """MODEL-61: `set` any of `displayName`, `timeZone`, `dayStartMinutes`, `weekStart` of the profile
        (else `not_found` at `profile`), read again under MODEL-37 and stamped (MODEL-56); an edit that
        leaves every field as it was changes nothing."""
        if self.profile is None:
            raise Failure('not_found', 'the data set has no profile', path='profile')
        made = instant(step)
        fields = m.need(step, 'set', 'dict', '$')
        raw = m.strip(self.profile)
        if 'displayName' in fields:
            raw['displayName'] = fields['displayName']
        for key in ('timeZone', 'dayStartMinutes', 'weekStart'):
            if key in fields:
                raw['boundary'][key] = fields[key]
        new = m.profile_json(raw, '$.profile')
        if new == m.strip(self.profile):
            return Changes()
        new['modifiedAt'] = m.instant_text(stamp(made, m.parse_instant(self.profile['modifiedAt'])))
        if self.profile.get('_unknown'):
            new['_unknown'] = self.profile['_unknown']
        return self.merge({'profile': new, 'goals': [], 'checkIns': []})

    def merge_step(self, step, boundary):
        """BUNDLE-21 / MODEL-54: a data set merged in; one whose profile belongs to another person is
        refused with `invalid_profile` (MODEL-61)."""
        data = read_data(m.need(step, 'dataSet', 'dict', '$'), '$.dataSet')
        if 'profile' in data:
            self.same_person(data['profile'], '$.dataSet.profile.userID')
        return self.merge(data)

    def same_person(self, profile, path):
        if self.profile is not None and self.profile['userID'] != profile['userID']:
            raise Failure('invalid_profile', 'the profile belongs to another person', path=path)


# ---- Helpers of the mutations

def instant(step):
    """The instant a step was made."""
    return m.scalar(m.parse_instant, m.need(step, 'at', 'str', '$'), '$.at')


def stamp(at, replaced):
    """MODEL-56: the instant of the change, or one millisecond after the version it replaces when that
    is not earlier; past 9999-12-31T23:59:59.999Z that is `invalid_instant`."""
    if replaced is not None and replaced >= at:
        at = replaced + 1
    if at > m.MAX_MS:
        raise Failure('invalid_instant', 'the change would be stamped past 9999-12-31T23:59:59.999Z')
    return at


def takes_taps(goal, day):
    """MODEL-57: not before `startDay`, not after `endDay`, not inside an archive span (MODEL-47: from
    its `from` up to, not including, its `until`)."""
    if day < m.parse_day(goal['startDay']) or 'endDay' in goal and day > m.parse_day(goal['endDay']):
        return False
    for span in goal['archiveHistory']:
        if m.parse_day(span['from']) <= day and ('until' not in span or day < m.parse_day(span['until'])):
            return False
    return True


def tap_action(step):
    """A step's tap as in `checkin.record` (MODEL-52's actions but `undo`, which is its own step)."""
    kind = m.need(step, 'tap', 'str', '$')
    if kind not in checkins.TAPPED or checkins.TAPPED[kind] == 'undo':
        raise Failure('unknown_enum_case', f'no tap {kind!r}', path='$.tap')
    return checkins.recorded_action(step)


def next_sequence(taps, device):
    """MODEL-52: a device numbers its taps of one (goal, Day) 0, 1, 2, ... (a compact check-in reads
    as its device's tap 0, MODEL-55)."""
    sequence = 1 + max((t['sequence'] for t in taps if t['deviceID'] == device), default=-1)
    if sequence > checkins.MAX_SEQUENCE:
        raise Failure('invalid_check_in', 'the device has numbered every tap it can on this Day', path='taps')
    return sequence


KEEP = object()


def rebuild(key, old, taps, strict=False, note=KEEP, note_at=KEEP):
    """The entry of `key` holding these taps, with the old entry's note (or a new one), `modifiedAt`
    (raised to its taps and note, MODEL-53) and unknown fields."""
    if note is KEEP:
        note = old.get('note') if old is not None else None
        note_at = checkins.stored_note_at(old) if old is not None else None
    modified = max([t['at'] for t in taps] + ([m.parse_instant(old['modifiedAt'])] if old is not None else []))
    unknown = old.get('_unknown', b'') if old is not None else b''
    return checkins.make(key[0], key[1], taps, note, note_at, modified, unknown, strict=strict)


# ---- dataset.apply (Spec/README.md)

def apply_op(inp):
    """Steps applied in order to a data set, each answering its changes (MODEL-62) or the code of the
    error that refused it; a step that fails changes nothing and the steps after it go on. Taps use
    the request's boundary."""
    boundary = m.boundary_json(inp['boundary'], '$.boundary')
    data = DataSet(read_data(inp['dataSet'], '$.dataSet'))
    answers = []
    for step in inp['steps']:
        try:
            answers.append({'changes': data.apply(step, boundary).json()})
        except Failure as failure:
            answers.append({'error': failure.code})
    final = m.strip(data.json())
    return {'steps': answers, 'profile': final.get('profile'), 'goals': final['goals'], 'checkIns': final['checkIns']}


# ---- The tracker (STREAK-26)

class Tracker:
    """A data set, the latest instant the tracker was told of (never going back) and the day boundary
    in force: the profile's, or the one given for data without a profile. Its answers are those of a
    full evaluation as of the Day of that instant under that boundary (STREAK-26)."""

    def __init__(self, data, boundary, now):
        self.data, self.given, self.now = data, boundary, now

    def boundary(self):
        return self.data.profile['boundary'] if self.data.profile is not None else self.given

    def today(self):
        """STREAK-24: the Day of the instant under the boundary in force."""
        b = self.boundary()
        return m.day_of(b['timeZone'], b['dayStartMinutes'], self.now)

    def evaluations(self):
        """The live goals in Today order (createdAt, then identifier), each judged on today."""
        today, week_start = self.today(), self.boundary()['weekStart']
        records = [{'goalID': c['goalID'], 'day': m.parse_day(c['day']), 'log': c['log'], 'deleted': c['deleted']}
                   for c in self.data.entries.values()]
        goals = [streaks.Goal(g) for g in self.data.goals.values() if not g['deleted']]    # STREAK-25
        goals.sort(key=lambda g: (g.created, m.uuid_bytes(g.id)))
        return [streaks.Evaluation(g, records, week_start, today) for g in goals]

    def milestones(self):
        """STREAK-20: every milestone of every live goal, by identity (goal, milestone, streak start)."""
        out = {}
        for e in self.evaluations():
            for reached in e.milestones():
                out[(e.goal.id, reached['milestone'], reached['streakStart'])] = reached
        return out

    def step(self, step):
        """STREAK-26 / STREAK-21: one change; the milestones it made new and revoked (the milestones
        before it as the announced ones), whether the Day moved, and the Day. A step that carries an
        instant moves the tracker to it when it is later; `advance` does nothing else."""
        before, day = self.milestones(), self.today()
        m.typed(step, 'dict', '$')
        if step.get('do') != 'advance':
            self.data.apply(step, self.boundary())
        if 'at' in step:
            self.now = max(self.now, instant(step))
        after, today = self.milestones(), self.today()
        new = [dict(after[k], goalID=k[0]) for k in sorted(set(after) - set(before), key=lambda k: (k[0], k[2], k[1]))]
        revoked = sorted(set(before) - set(after), key=lambda k: (k[0], k[2], k[1]))
        return {'new': new, 'revoked': [{'goalID': g, 'milestone': ms, 'streakStart': start} for g, ms, start in revoked],
                'newDay': today != day, 'today': m.day_text(today)}


def tracked_data(inp, boundary):
    """The compact input of 2.9 as a data set without a profile: goals in their canonical form, the
    check-ins of one (goal, Day) merged into one (MODEL-54)."""
    goals = [streaks.full_goal(g, f'$.goals[{i}]') for i, g in enumerate(inp['goals'])]
    if len({g['id'] for g in goals}) != len(goals):
        raise Failure('duplicate_id', 'two goals with one id')
    entries = {}
    for c in streaks.read_checkins(inp.get('checkIns', []), boundary):
        record = streaks.record_of(c)
        key = (record['goalID'], record['day'])
        entries[key] = checkins.merge(entries[key], record) if key in entries else record
    ids = {g['id'] for g in goals}
    if any(goal not in ids for goal, _ in entries):          # BUNDLE-17: a data set holds its check-ins' goals
        raise Failure('invalid_check_in', 'a check-in whose goal the data set does not hold')
    return DataSet({'goals': goals, 'checkIns': list(entries.values())})


def track_op(inp):
    """STREAK-26: the tracker's answer to each step, then the Today list (STREAK-22)."""
    boundary = streaks.read_profile(inp)
    now = m.scalar(m.parse_instant, inp['now'], '$.now')
    tracker = Tracker(tracked_data(inp, boundary), boundary, now)
    answers = []
    for step in inp['steps']:
        try:
            answers.append(tracker.step(step))
        except Failure as failure:
            answers.append({'error': failure.code})
    evaluated = tracker.evaluations()
    return {'steps': answers, 'items': streaks.today_items(evaluated),
            'strengths': streaks.today_strengths(evaluated)}


OPERATIONS = {
    'dataset.apply': apply_op,
    'streaks.track': track_op,
}
