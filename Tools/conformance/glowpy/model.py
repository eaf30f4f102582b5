"""Section 1 of the spec (Spec/model.md): Days, instants, day boundaries, identifiers, amounts,
goals, schedules, check-ins, profiles, the reminder settings goals and profiles keep, drafts and
their JSON forms.

Model values are held in their canonical JSON form (MODEL-40): a goal is the dict its JSON
decodes to, with Days, instants and amounts as their canonical texts. The readers below
(`goal_json`, `profile_json`, ...) validate a JSON value and return that canonical dict; the
other areas (streaks, wire, bundle) build on them. Check-ins, the record of their taps, are the
module `checkins` (1.6), which builds on this one.
"""
import datetime as dt
import json
import re
from zoneinfo import ZoneInfo, available_timezones

from .characters import is_one_emoji, longer_than, trim
from .errors import Failure

EPOCH = dt.date(1970, 1, 1)
MIN_DAY, MAX_DAY = -719162, 2932896                        # MODEL-2
WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
VISIBILITIES = ['private', 'friends', 'public']
KINDS = ['single', 'subgoals', 'progress', 'value', 'tally', 'countdown', 'streak']
RULES = ['daily', 'weekdays', 'timesPerWeek', 'timesPerMonth', 'everyNDays']
LOGS = ['done', 'skip', 'amount', 'tally', 'items', 'value']
MAX_AMOUNT = 999_999_999_999_999                           # MODEL-17, in thousandths
ZONES = available_timezones()


# ---- Days (MODEL-2 ... MODEL-6, MODEL-13, MODEL-14)

def day_from(year, month, day):
    """MODEL-3: a Day from its components, validated, never normalised."""
    if not 1 <= year <= 9999 or not 1 <= month <= 12:
        raise Failure('invalid_day')
    try:
        return (dt.date(year, month, day) - EPOCH).days
    except ValueError:
        raise Failure('invalid_day')


def parse_day(text):
    """MODEL-6: exactly YYYY-MM-DD in ASCII digits."""
    if not isinstance(text, str) or not re.fullmatch(r'[0-9]{4}-[0-9]{2}-[0-9]{2}', text, re.ASCII):
        raise Failure('invalid_day')
    return day_from(int(text[:4]), int(text[5:7]), int(text[8:]))


def day_text(n):
    d = EPOCH + dt.timedelta(days=n)
    return '%04d-%02d-%02d' % (d.year, d.month, d.day)


def check_day(n):
    """MODEL-2 / MODEL-5: a Day number outside 0001-01-01 ... 9999-12-31 is out of range."""
    if not MIN_DAY <= n <= MAX_DAY:
        raise Failure('day_out_of_range')
    return n


def weekday_index(n):
    """MODEL-4: 0 for Monday ... 6 for Sunday ((n + 3) mod 7, non-negative)."""
    return (n + 3) % 7


def weekday(n):
    return WEEKDAYS[weekday_index(n)]


def describe(n):
    d = EPOCH + dt.timedelta(days=n)
    return {'canonical': day_text(n), 'daysSince1970': n, 'weekday': weekday(n), 'dayOfYear': d.timetuple().tm_yday}


def week_start_of(n, week_start):
    """MODEL-13: the latest Day on or before n whose weekday is `week_start` (a name)."""
    return n - (weekday_index(n) - WEEKDAYS.index(week_start)) % 7


def month_of(n):
    """MODEL-13: the first and last Day of n's calendar month."""
    d = EPOCH + dt.timedelta(days=n)
    first = d.replace(day=1)
    following = first.replace(year=first.year + 1, month=1) if first.month == 12 else first.replace(month=first.month + 1)
    return (first - EPOCH).days, (following - EPOCH).days - 1


# ---- Instants (MODEL-7)

INSTANT = re.compile(r'([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,3}))?(Z|[+-][0-9]{2}:[0-9]{2})', re.ASCII)
MIN_MS, MAX_MS = MIN_DAY * 86400000, (MAX_DAY + 1) * 86400000 - 1


def parse_instant(text):
    """MODEL-7: RFC 3339 with at most three fraction digits, `Z` or a numeric offset."""
    m = INSTANT.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise Failure('invalid_instant')
    try:
        day = day_from(int(m[1]), int(m[2]), int(m[3]))
    except Failure:
        raise Failure('invalid_instant')
    h, mi, s = int(m[4]), int(m[5]), int(m[6])
    if h > 23 or mi > 59 or s > 59:
        raise Failure('invalid_instant')
    ms = int((m[7] or '').ljust(3, '0') or 0)
    offset = 0
    if m[8] != 'Z':
        zh, zm = int(m[8][1:3]), int(m[8][4:6])
        if zh > 23 or zm > 59:
            raise Failure('invalid_instant')
        offset = (zh * 3600 + zm * 60) * (-1 if m[8][0] == '-' else 1)
    value = (day * 86400 + h * 3600 + mi * 60 + s - offset) * 1000 + ms
    if not MIN_MS <= value <= MAX_MS:
        raise Failure('invalid_instant')
    return value


def instant_text(ms):
    days, rest = divmod(ms, 86400000)
    return '%sT%02d:%02d:%02d.%03dZ' % (day_text(days), rest // 3600000, rest // 60000 % 60, rest // 1000 % 60, rest % 1000)


# ---- Time zones and day boundaries (MODEL-8 ... MODEL-12)

ZONE_COMPONENT = re.compile(r'[A-Za-z0-9_+.][A-Za-z0-9_+.\-]{0,31}', re.ASCII)
MAX_TALLY = 0xFFFFFFFF                                     # MODEL-18: a uint32 on the wire


def check_zone(name):
    """MODEL-8: UTC, GMT, or two or more `/`-separated components of 1...32 ASCII letters, digits,
    `_`, `-`, `+` and `.`, none starting with `-` nor `.` or `..`, at most 64 bytes. The form is what
    makes a zone valid; whether the tz database knows it is `zone_known`."""
    if name in ('UTC', 'GMT'):
        return name
    if not isinstance(name, str) or len(name.encode()) > 64:
        raise Failure('invalid_time_zone')
    parts = name.split('/')
    if len(parts) < 2 or any(not ZONE_COMPONENT.fullmatch(p) or p in ('.', '..') for p in parts):
        raise Failure('invalid_time_zone')
    return name


def zone_known(name):
    return name in ('UTC', 'GMT') or name in ZONES


def zone_warning(zone):
    """MODEL-8: a day boundary whose zone the tz database does not know computes in UTC, with a warning."""
    return None if zone_known(zone) else 'unknown_time_zone'


def utc_offset(zone, seconds):
    """The zone's UTC offset in force at an instant (whole seconds since 1970); UTC for a zone the
    tz database does not know (MODEL-8)."""
    if not zone_known(zone) or zone in ('UTC', 'GMT'):
        return 0
    seconds = min(max(seconds, (MIN_DAY + 2) * 86400), (MAX_DAY - 1) * 86400)    # datetime's own range
    moment = dt.datetime.fromtimestamp(seconds, dt.timezone.utc).astimezone(ZoneInfo(zone))
    return int(moment.utcoffset().total_seconds())


def pieces(zone, lo, hi):
    """The window [lo, hi] of seconds cut into pieces of constant offset: (start, end, offset)."""
    out, start, current, t = [], lo, utc_offset(zone, lo), lo
    while t < hi:
        n = min(t + 1800, hi)
        o = utc_offset(zone, n)
        if o != current:
            a, b = t, n
            while b - a > 1:
                mid = (a + b) // 2
                if utc_offset(zone, mid) == current:
                    a = mid
                else:
                    b = mid
            out.append((start, b - 1, current))
            start, current = b, o
        t = n
    out.append((start, hi, current))
    return out


def day_of(zone, day_start, ms):
    """MODEL-10: the largest d whose start reading the wall clock has reached by the instant.

    Only the last 27 hours can hold the maximum wall reading, since no offset changes by more.
    """
    s = ms // 1000
    latest = max(end + o for _, end, o in pieces(zone, s - 27 * 3600, s))
    return (latest - day_start * 60) // 86400


def start_of(zone, local):
    """MODEL-12: the earliest instant whose wall reading is at least `local`."""
    for a, b, o in pieces(zone, local - 15 * 3600, local + 13 * 3600):
        c = max(a, local - o)
        if c <= b:
            return c


def boundary_input(inp):
    zone = check_zone(inp['timeZone'])
    start = inp.get('dayStartMinutes', 0)
    if not 0 <= start < 1440:
        raise Failure('invalid_day_start')
    return zone, start


# ---- Identifiers and amounts (MODEL-15 ... MODEL-18)

def parse_uuid(text):
    """MODEL-15: the 8-4-4-4-12 form in either case; written in lower case."""
    if not isinstance(text, str) or not re.fullmatch(r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', text, re.ASCII):
        raise Failure('invalid_uuid')
    return text.lower()


def uuid_bytes(text):
    return bytes.fromhex(text.replace('-', ''))


def uuid_text(raw):
    h = raw.hex()
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


def parse_amount(text):
    """MODEL-17: `-?[0-9]{1,12}(.[0-9]{1,3})?`, held as thousandths."""
    m = re.fullmatch(r'(-?)([0-9]{1,12})(?:\.([0-9]{1,3}))?', text, re.ASCII) if isinstance(text, str) else None
    if not m:
        raise Failure('invalid_amount')
    value = int(m[2]) * 1000 + int((m[3] or '').ljust(3, '0') or 0)
    return -value if m[1] else value


def amount_text(value):
    """MODEL-17: the shortest form."""
    sign = '-' if value < 0 else ''
    whole, frac = divmod(abs(value), 1000)
    return sign + str(whole) + (('.%03d' % frac).rstrip('0') if frac else '')


def add_amounts(a, b):
    """MODEL-18: exact sums; beyond the limit is an error, never wrapped."""
    total = a + b
    if abs(total) > MAX_AMOUNT:
        raise Failure('invalid_amount')
    return total


# ---- JSON reading helpers (MODEL-40 ... MODEL-44)

def need(obj, key, kind, path):
    """A required member of the given JSON type (MODEL-40: missing or mistyped is invalid_json)."""
    if not isinstance(obj, dict):
        raise Failure('invalid_json', path=path)
    if key not in obj:
        raise Failure('invalid_json', path=f'{path}.{key}')
    return typed(obj[key], kind, f'{path}.{key}')


def maybe(obj, key, kind, path, default=None):
    """An optional member (MODEL-43); `null` counts as absent."""
    if key not in obj or obj[key] is None:
        return default
    return typed(obj[key], kind, f'{path}.{key}')


def typed(value, kind, path):
    ok = {'str': isinstance(value, str), 'int': isinstance(value, int) and not isinstance(value, bool),
          'bool': isinstance(value, bool), 'list': isinstance(value, list), 'dict': isinstance(value, dict)}[kind]
    if not ok:
        raise Failure('invalid_json', path=path)
    return value


def scalar(parse, value, path):
    """A text value read by `parse`, its error located at `path`."""
    typed(value, 'str', path)
    try:
        return parse(value)
    except Failure as f:
        raise f.at(path)


def enum(value, names, path):
    """MODEL-41: exact, case-sensitive names; anything else is unknown_enum_case."""
    typed(value, 'str', path)
    if value not in names:
        raise Failure('unknown_enum_case', path=path)
    return value


def slug(value, path):
    """MODEL-38: 1...40 of a-z, 0-9 and '-', not starting or ending with '-'."""
    typed(value, 'str', path)
    if not re.fullmatch(r'[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?', value, re.ASCII):
        raise Failure('invalid_profile', path=path)
    return value


def canonical_json(value):
    """MODEL-51: a value's JSON form serialised as RFC 8785 does, as UTF-8 bytes, for merge's last
    tie-break (MODEL-54, BUNDLE-21). Model JSON holds only strings, integers, booleans, arrays and
    objects: Python's encoder without ASCII escaping escapes exactly `"`, `\\` and the control
    characters (`\\b \\t \\n \\f \\r` by name, others as lower-case `\\u00xx`), and every key
    is ASCII, so sorting by code point is RFC 8785's sort by UTF-16 units."""
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'), sort_keys=True).encode('utf-8')


def strip(value):
    """The JSON form of a model value: without its private members (unknown fields, MODEL-44, MODEL-49)."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if not k.startswith('_')}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


# ---- Schedules (MODEL-28 ... MODEL-31)

def rule_json(value, path):
    """MODEL-28: a schedule rule; weekdays are written Monday first and may not repeat."""
    typed(value, 'dict', path)
    kind = enum(need(value, 'type', 'str', path), RULES, path + '.type')
    if kind == 'daily':
        return {'type': 'daily'}
    if kind == 'weekdays':
        days = need(value, 'weekdays', 'list', path)
        names = [enum(d, WEEKDAYS, f'{path}.weekdays[{i}]') for i, d in enumerate(days)]
        if len(set(names)) != len(names):
            raise Failure('invalid_json', path=f'{path}.weekdays')
        return {'type': 'weekdays', 'weekdays': [d for d in WEEKDAYS if d in names]}
    if kind == 'everyNDays':
        return {'type': 'everyNDays', 'interval': need(value, 'interval', 'int', path)}
    return {'type': kind, 'times': need(value, 'times', 'int', path)}


def rule_issues(rule, field):
    """MODEL-29: the ranges of a rule, as draft issues at `field`."""
    t = rule['type']
    if t == 'weekdays' and not rule['weekdays']:
        return [(field, 'weekdays_empty')]
    if t == 'timesPerWeek' and not 1 <= rule['times'] <= 7 or t == 'timesPerMonth' and not 1 <= rule['times'] <= 31:
        return [(field, 'times_out_of_range')]
    if t == 'everyNDays' and not 1 <= rule['interval'] <= 366:
        return [(field, 'interval_out_of_range')]
    return []


def schedule_json(value, path):
    """MODEL-30: a non-empty history in strictly increasing effective order."""
    typed(value, 'list', path)
    entries = []
    for i, e in enumerate(value):
        p = f'{path}[{i}]'
        typed(e, 'dict', p)
        effective = scalar(parse_day, need(e, 'effective', 'str', p), p + '.effective')
        entries.append({'effective': day_text(effective), 'rule': rule_json(need(e, 'rule', 'dict', p), p + '.rule'), '_day': effective})
    if not entries:
        raise Failure('invalid_schedule', path=path)
    for i, e in enumerate(entries):
        if i and e['_day'] <= entries[i - 1]['_day']:
            raise Failure('invalid_schedule', path=f'{path}[{i}].effective')
        if rule_issues(e['rule'], ''):
            raise Failure('invalid_schedule', path=f'{path}[{i}].rule')
    return entries


def entry_on(entries, day):
    """MODEL-30: the entry of the last rule effective on or before the Day (before the first: the first)."""
    chosen = entries[0]
    for e in entries:
        if parse_day(e['effective']) <= day:
            chosen = e
    return chosen


# ---- Reminder settings kept in goals and profiles (REMIND-1, REMIND-13)

STANDARD_REMINDERS = {'snoozeMinutes': 10}                 # REMIND-13: no nudge, no quiet hours, ten minutes
MAX_MINIMUM_STREAK = 100_000                               # REMIND-1: a nudge's minimumStreak is 1 ... 100,000


def reminder_minute(value, path):
    """REMIND-1: a minute of the day, 0 ... 1439; outside them `invalid_reminder`."""
    typed(value, 'int', path)
    if not 0 <= value <= 1439:
        raise Failure('invalid_reminder', path=path)
    return value


def goal_reminders_json(r, path):
    """REMIND-1 / REMIND-13: a goal's settings: one to eight distinct `times` (written in increasing
    order), `weekdays` absent (every due Day) or a non-empty set (written Monday first), `enabled`
    (true when absent, always written). A setting outside REMIND-1 is `invalid_reminder` at its
    path; a missing or mistyped member `invalid_json` and an unknown weekday `unknown_enum_case`
    (MODEL-40, MODEL-41)."""
    typed(r, 'dict', path)
    times = need(r, 'times', 'list', path)
    if not 1 <= len(times) <= 8:
        raise Failure('invalid_reminder', 'one to eight times', path=path + '.times')
    times = [reminder_minute(t, f'{path}.times[{i}]') for i, t in enumerate(times)]
    if len(set(times)) != len(times):
        raise Failure('invalid_reminder', 'a time given twice', path=path + '.times')
    out = {'times': sorted(times)}
    weekdays = maybe(r, 'weekdays', 'list', path)
    if weekdays is not None:
        names = [enum(d, WEEKDAYS, f'{path}.weekdays[{i}]') for i, d in enumerate(weekdays)]
        if not names or len(set(names)) != len(names):
            raise Failure('invalid_reminder', 'weekdays are a non-empty set', path=path + '.weekdays')
        out['weekdays'] = [d for d in WEEKDAYS if d in names]
    out['enabled'] = maybe(r, 'enabled', 'bool', path, True)
    return out


def person_reminders_json(r, path):
    """REMIND-1 / REMIND-13: a person's settings: `streakAtRisk` absent or {minute, minimumStreak
    1 ... 100,000}, `quietHours` absent or {start, end} (two different minutes), `snoozeMinutes`
    1 ... 1440 (10 when absent, always written). The standard settings are `STANDARD_REMINDERS`."""
    typed(r, 'dict', path)
    out = {}
    risk = maybe(r, 'streakAtRisk', 'dict', path)
    if risk is not None:
        p = path + '.streakAtRisk'
        minute = reminder_minute(need(risk, 'minute', 'int', p), p + '.minute')
        least = need(risk, 'minimumStreak', 'int', p)
        if not 1 <= least <= MAX_MINIMUM_STREAK:
            raise Failure('invalid_reminder', 'a streak of 1 ... 100,000', path=p + '.minimumStreak')
        out['streakAtRisk'] = {'minute': minute, 'minimumStreak': least}
    quiet = maybe(r, 'quietHours', 'dict', path)
    if quiet is not None:
        p = path + '.quietHours'
        start = reminder_minute(need(quiet, 'start', 'int', p), p + '.start')
        end = reminder_minute(need(quiet, 'end', 'int', p), p + '.end')
        if start == end:
            raise Failure('invalid_reminder', 'quiet hours that start where they end', path=p)
        out['quietHours'] = {'start': start, 'end': end}
    snooze = maybe(r, 'snoozeMinutes', 'int', path, 10)
    if not 1 <= snooze <= 1440:
        raise Failure('invalid_reminder', 'a snooze of 1 ... 1440 minutes', path=path + '.snoozeMinutes')
    out['snoozeMinutes'] = snooze
    return out


# ---- Goals (MODEL-19 ... MODEL-27, MODEL-45 ... MODEL-48)

def kind_json(value, path):
    """MODEL-20 ... MODEL-26 in JSON (MODEL-42); amounts and Days are parsed."""
    typed(value, 'dict', path)
    t = enum(need(value, 'type', 'str', path), KINDS, path + '.type')
    if t in ('single', 'streak'):
        return {'type': t}
    if t == 'subgoals':
        items = []
        for i, item in enumerate(need(value, 'items', 'list', path)):
            p = f'{path}.items[{i}]'
            typed(item, 'dict', p)
            items.append({'id': scalar(parse_uuid, need(item, 'id', 'str', p), p + '.id'), 'title': need(item, 'title', 'str', p)})
        return {'type': t, 'items': items, 'recurring': need(value, 'recurring', 'bool', path)}
    if t == 'progress':
        return {'type': t, 'target': scalar(parse_amount, need(value, 'target', 'str', path), path + '.target'), 'unit': need(value, 'unit', 'str', path)}
    if t == 'value':
        out = {'type': t, 'unit': need(value, 'unit', 'str', path)}
        target = maybe(value, 'target', 'dict', path)
        if target is not None:
            p = path + '.target'
            out['target'] = {'comparison': enum(need(target, 'comparison', 'str', p), ['atLeast', 'atMost'], p + '.comparison'),
                             'amount': scalar(parse_amount, need(target, 'amount', 'str', p), p + '.amount')}
        return out
    if t == 'tally':
        return {'type': t, 'dailyTarget': need(value, 'dailyTarget', 'int', path), 'unit': need(value, 'unit', 'str', path)}
    return {'type': t, 'targetDay': scalar(parse_day, need(value, 'targetDay', 'str', path), path + '.targetDay')}


def recurring(kind):
    """MODEL-27: which kinds repeat on a schedule."""
    return kind['type'] in ('value', 'tally', 'streak') or kind['type'] == 'subgoals' and kind['recurring']


def kind_issues(kind, start, today):
    """MODEL-45: the kind's issues, in table order."""
    t, out = kind['type'], []

    def unit():
        return [('kind.unit', 'unit_too_long')] if longer_than(kind['unit'], 24) else []
    if t == 'subgoals':
        if not 1 <= len(kind['items']) <= 50:
            out.append(('kind.items', 'item_count_out_of_range'))
        seen = set()
        for i, item in enumerate(kind['items']):
            title = trim(item['title'])
            if not title or longer_than(title, 80):
                out.append((f'kind.items[{i}].title', 'item_title_invalid'))
            if item['id'] in seen:
                out.append((f'kind.items[{i}].id', 'item_duplicate'))
            seen.add(item['id'])
    elif t == 'progress':
        out += [('kind.target', 'target_not_positive')] if kind['target'] <= 0 else []
        out += unit()
    elif t == 'value':
        out += [('kind.target.amount', 'target_negative')] if kind.get('target') and kind['target']['amount'] < 0 else []
        out += unit()
    elif t == 'tally':
        if kind['dailyTarget'] < 1:
            out.append(('kind.dailyTarget', 'target_not_positive'))
        elif kind['dailyTarget'] > 10000:
            out.append(('kind.dailyTarget', 'target_too_large'))
        out += unit()
    elif t == 'countdown':
        if today is not None and kind['targetDay'] < today:
            out.append(('kind.targetDay', 'countdown_in_past'))
        elif kind['targetDay'] < start:
            out.append(('kind.targetDay', 'countdown_before_start'))
    return out


def field_issues(title, emoji, note, kind, rule, start, end, today):
    """MODEL-45: every problem of the fields shared by goals and drafts, in field order. Lengths
    count characters and white space is trimmed as MODEL-50 defines them (characters.py); a text
    holding a character of more than 32 code points is too long, an emoji not one (MODEL-63)."""
    out = []
    title = trim(title)
    if not title:
        out.append(('title', 'title_empty'))
    elif longer_than(title, 80):
        out.append(('title', 'title_too_long'))
    if emoji is not None and not is_one_emoji(emoji):
        out.append(('emoji', 'emoji_invalid'))
    if note is not None and longer_than(note, 500):
        out.append(('note', 'note_too_long'))
    out += kind_issues(kind, start, today)
    if rule is not None:
        out += rule_issues(rule, 'schedule')
    if end is not None and end < start:
        out.append(('endDay', 'end_before_start'))
    return out


def forgiveness_json(obj, path):
    f = maybe(obj, 'forgiveness', 'dict', path)
    if f is None:
        return None
    p = path + '.forgiveness'
    return {'allowance': need(f, 'allowance', 'int', p), 'period': enum(need(f, 'period', 'str', p), ['week', 'month'], p + '.period')}


def forgiveness_issues(f):
    """MODEL-48: 1...3 per week, 1...10 per month."""
    if f and not 1 <= f['allowance'] <= (3 if f['period'] == 'week' else 10):
        return [('forgiveness.allowance', 'forgiveness_out_of_range')]
    return []


def archive_issues(archive):
    """MODEL-47: spans end after they start, do not overlap, and only the last may be open."""
    out = []
    for i, (frm, until) in enumerate(archive):
        if (until is not None and until <= frm or until is None and i != len(archive) - 1
                or i and archive[i - 1][1] is not None and frm < archive[i - 1][1]):
            out.append((f'archiveHistory[{i}]', 'archive_invalid'))
    return out


def goal_json(g, path='$'):
    """MODEL-19: a goal, every rule checked; the first problem is reported as invalid_goal."""
    typed(g, 'dict', path)
    gid = scalar(parse_uuid, need(g, 'id', 'str', path), path + '.id')
    title = need(g, 'title', 'str', path)
    emoji = maybe(g, 'emoji', 'str', path)
    note = maybe(g, 'note', 'str', path)
    kind = kind_json(need(g, 'kind', 'dict', path), path + '.kind')
    schedule = maybe(g, 'schedule', 'list', path)
    if schedule is not None:
        schedule = schedule_json(schedule, path + '.schedule')
    start = scalar(parse_day, need(g, 'startDay', 'str', path), path + '.startDay')
    end = maybe(g, 'endDay', 'str', path)
    end = scalar(parse_day, end, path + '.endDay') if end is not None else None
    archive = []
    for i, a in enumerate(maybe(g, 'archiveHistory', 'list', path, [])):
        p = f'{path}.archiveHistory[{i}]'
        typed(a, 'dict', p)
        frm = scalar(parse_day, need(a, 'from', 'str', p), p + '.from')
        until = maybe(a, 'until', 'str', p)
        archive.append((frm, scalar(parse_day, until, p + '.until') if until is not None else None))
    forgiveness = forgiveness_json(g, path)
    visibility = enum(g['visibility'], VISIBILITIES, path + '.visibility') if g.get('visibility') is not None else 'private'
    template = maybe(g, 'templateID', 'str', path)
    template = scalar(parse_uuid, template, path + '.templateID') if template is not None else None
    created = scalar(parse_instant, need(g, 'createdAt', 'str', path), path + '.createdAt')
    modified = scalar(parse_instant, need(g, 'modifiedAt', 'str', path), path + '.modifiedAt')
    deleted = maybe(g, 'deleted', 'bool', path, False)
    reminders = maybe(g, 'reminders', 'dict', path)
    if reminders is not None:                              # REMIND-13: the goal's reminder settings
        reminders = goal_reminders_json(reminders, path + '.reminders')
    issues = field_issues(title, emoji, note, kind, None, start, end, None)
    if schedule is not None:
        if not recurring(kind):
            issues.append(('schedule', 'schedule_not_allowed'))
        elif schedule[0]['_day'] != start:
            issues.append(('schedule', 'schedule_start_mismatch'))
    elif recurring(kind):
        issues.append(('schedule', 'schedule_missing'))
    issues += archive_issues(archive)
    issues += forgiveness_issues(forgiveness)
    if modified < created:
        issues.append(('modifiedAt', 'modified_before_created'))
    if issues:
        raise Failure('invalid_goal', issues[0][1], path=f'{path}.{issues[0][0]}')
    out = {'id': gid, 'title': trim(title), 'kind': canonical_kind(kind), 'startDay': day_text(start),
           'archiveHistory': [dict({'from': day_text(f)}, **({'until': day_text(u)} if u is not None else {})) for f, u in archive],
           'visibility': visibility, 'createdAt': instant_text(created), 'modifiedAt': instant_text(modified), 'deleted': deleted}
    for key, value in [('emoji', emoji), ('note', note), ('templateID', template), ('forgiveness', forgiveness),
                       ('reminders', reminders)]:
        if value is not None:
            out[key] = value
    if schedule is not None:
        out['schedule'] = [{'effective': e['effective'], 'rule': e['rule']} for e in schedule]
    if end is not None:
        out['endDay'] = day_text(end)
    return out


def canonical_kind(kind):
    """The kind with its amounts and Days written back as their texts."""
    kind = dict(kind)
    if kind['type'] == 'progress':
        kind['target'] = amount_text(kind['target'])
    if kind['type'] == 'value' and 'target' in kind:
        kind['target'] = dict(kind['target'], amount=amount_text(kind['target']['amount']))
    if kind['type'] == 'countdown':
        kind['targetDay'] = day_text(kind['targetDay'])
    return kind


def parsed_kind(kind):
    """The inverse of canonical_kind: amounts as thousandths and Days as numbers."""
    return kind_json(kind, '$.kind')


# ---- Check-in logs (MODEL-34); check-ins themselves, the record of their taps, are checkins.py

def log_json(log, path):
    """MODEL-34: a check-in log; checked items are written in identifier order, never repeated."""
    typed(log, 'dict', path)
    t = enum(need(log, 'type', 'str', path), LOGS, path + '.type')
    if t in ('done', 'skip'):
        return {'type': t}
    if t in ('amount', 'value'):
        return {'type': t, t: amount_text(scalar(parse_amount, need(log, t, 'str', path), f'{path}.{t}'))}
    if t == 'tally':
        return {'type': t, 'count': need(log, 'count', 'int', path)}
    ids = [scalar(parse_uuid, v, f'{path}.items[{i}]') for i, v in enumerate(need(log, 'items', 'list', path))]
    if len(set(ids)) != len(ids):
        raise Failure('invalid_json', path=path + '.items')
    return {'type': t, 'items': sorted(ids)}


def fits(kind, log):
    """MODEL-34: whether a log fits a goal's kind (checked items must be the goal's own)."""
    t, l = kind['type'], log['type']
    if l == 'items':
        return t == 'subgoals' and set(log['items']) <= {i['id'] for i in kind['items']}
    if l == 'skip':
        return t in ('streak', 'tally', 'value') or t == 'subgoals' and kind['recurring']
    return (t, l) in {('single', 'done'), ('streak', 'done'), ('progress', 'amount'), ('tally', 'tally'), ('value', 'value')}


# ---- Profiles (MODEL-37, MODEL-38) and day boundaries (MODEL-9)

def boundary_json(b, path):
    typed(b, 'dict', path)
    zone = scalar(check_zone, need(b, 'timeZone', 'str', path), path + '.timeZone')
    start = need(b, 'dayStartMinutes', 'int', path)
    week = enum(need(b, 'weekStart', 'str', path), WEEKDAYS, path + '.weekStart')
    if not 0 <= start < 1440:
        raise Failure('invalid_day_start', path=path + '.dayStartMinutes')
    return {'timeZone': zone, 'dayStartMinutes': start, 'weekStart': week}


def profile_json(p, path='$'):
    typed(p, 'dict', path)
    out = {'userID': scalar(parse_uuid, need(p, 'userID', 'str', path), path + '.userID'), 'displayName': need(p, 'displayName', 'str', path)}
    photo = maybe(p, 'photoReference', 'str', path)
    out['interests'] = [slug(v, f'{path}.interests[{i}]') for i, v in enumerate(maybe(p, 'interests', 'list', path, []))]
    out['themeID'] = slug(p['themeID'], path + '.themeID') if p.get('themeID') is not None else 'default'
    out['boundary'] = boundary_json(need(p, 'boundary', 'dict', path), path + '.boundary')
    reminders = maybe(p, 'reminders', 'dict', path)
    if reminders is not None:                              # REMIND-13: the standard settings are not written
        reminders = person_reminders_json(reminders, path + '.reminders')
        if reminders != STANDARD_REMINDERS:
            out['reminders'] = reminders
    created = scalar(parse_instant, need(p, 'createdAt', 'str', path), path + '.createdAt')
    modified = scalar(parse_instant, need(p, 'modifiedAt', 'str', path), path + '.modifiedAt')
    name = trim(out['displayName'])
    if not name or longer_than(name, 50):
        raise Failure('invalid_profile', path=path + '.displayName')
    if len(set(out['interests'])) != len(out['interests']):
        raise Failure('invalid_profile', path=path + '.interests')
    if modified < created:
        raise Failure('invalid_profile', path=path + '.modifiedAt')
    out.update({'displayName': name, 'createdAt': instant_text(created), 'modifiedAt': instant_text(modified)})
    if photo is not None:
        out['photoReference'] = photo
    return out


# ---- Goal drafts (MODEL-45, MODEL-46)

def draft_json(d, path='$'):
    """A draft's fields, read but not yet judged (MODEL-45 judges them on a given today)."""
    typed(d, 'dict', path)
    out = {'title': need(d, 'title', 'str', path), 'kind': kind_json(need(d, 'kind', 'dict', path), path + '.kind')}
    for key in ('emoji', 'note'):
        value = maybe(d, key, 'str', path)
        if value is not None:
            out[key] = value
    schedule = maybe(d, 'schedule', 'dict', path)
    if schedule is not None:
        out['schedule'] = rule_json(schedule, path + '.schedule')
    for key in ('startDay', 'endDay'):
        value = maybe(d, key, 'str', path)
        if value is not None:
            out[key] = scalar(parse_day, value, f'{path}.{key}')
    forgiveness = forgiveness_json(d, path)
    if forgiveness is not None:
        out['forgiveness'] = forgiveness
    out['visibility'] = enum(d['visibility'], VISIBILITIES, path + '.visibility') if d.get('visibility') is not None else 'private'
    template = maybe(d, 'templateID', 'str', path)
    if template is not None:
        out['templateID'] = scalar(parse_uuid, template, path + '.templateID')
    reminders = maybe(d, 'reminders', 'dict', path)
    if reminders is not None:                              # MODEL-45 / REMIND-13: the goal's reminder settings
        out['reminders'] = goal_reminders_json(reminders, path + '.reminders')
    return out


def canonical_draft(d, path='$'):
    """A draft in its canonical JSON form: Days and amounts as texts, absent members omitted."""
    out = draft_json(d, path)
    out['kind'] = canonical_kind(out['kind'])
    for key in ('startDay', 'endDay'):
        if key in out:
            out[key] = day_text(out[key])
    return out


def draft_validate(inp):
    """MODEL-45 / MODEL-46: every issue of a draft on a given today, in table order."""
    today = parse_day(inp['today'])
    draft = draft_json(inp['draft'])
    start = draft.get('startDay', today)
    rule = draft.get('schedule')
    issues = field_issues(draft['title'], draft.get('emoji'), draft.get('note'), draft['kind'], rule, start, draft.get('endDay'), today)
    issues += forgiveness_issues(draft.get('forgiveness'))
    if recurring(draft['kind']) and rule is None:
        issues.append(('schedule', 'schedule_missing'))
    elif not recurring(draft['kind']) and rule is not None:
        issues.append(('schedule', 'schedule_not_allowed'))
    if issues:
        raise Failure('draft_invalid', path=issues[0][0], issues=[{'field': f, 'code': c} for f, c in issues])
    out = {'startDay': day_text(start), 'title': trim(draft['title'])}
    if 'reminders' in draft:
        out['reminders'] = draft['reminders']
    return out


# ---- Templates and interests (MODEL-39): their JSON form as the wire corpus uses it

def template_json(t, path='$'):
    typed(t, 'dict', path)
    return {'id': scalar(parse_uuid, need(t, 'id', 'str', path), path + '.id'),
            'interestID': need(t, 'interestID', 'str', path),
            'draft': canonical_draft(need(t, 'draft', 'dict', path), path + '.draft')}


def interest_json(i, path='$'):
    typed(i, 'dict', path)
    return {'id': need(i, 'id', 'str', path), 'name': need(i, 'name', 'str', path), 'emoji': need(i, 'emoji', 'str', path),
            'templates': [template_json(t, f'{path}.templates[{n}]') for n, t in enumerate(maybe(i, 'templates', 'list', path, []))]}


# ---- The operations of the model area (Spec/README.md)

def json_decode(inp):
    """MODEL-40: decode a value of the named type and return its canonical JSON."""
    from . import checkins                                 # check-ins build on this module (1.6)
    t = inp['type']
    if 'text' in inp:
        try:
            value = json.loads(inp['text'])
        except ValueError:
            raise Failure('invalid_json', path='$')
    else:
        value = inp['json']
    readers = {
        'Day': lambda v: day_text(scalar(parse_day, v, '$')),
        'Instant': lambda v: instant_text(scalar(parse_instant, v, '$')),
        'Amount': lambda v: amount_text(scalar(parse_amount, v, '$')),
        'Weekday': lambda v: enum(v, WEEKDAYS, '$'),
        'Visibility': lambda v: enum(v, VISIBILITIES, '$'),
        'CheckInLog': lambda v: log_json(v, '$'),
        'DayBoundary': lambda v: boundary_json(v, '$'),
        'Goal': goal_json, 'CheckIn': checkins.checkin_json, 'Profile': profile_json,
    }
    if t not in readers:
        raise NotImplementedError(f'json.decode of {t}')
    return {'canonical': readers[t](value)}


def schedule_entry_on(inp):
    entries = schedule_json(inp['schedule'], '$')
    chosen = entry_on(entries, parse_day(inp['day']))
    return {'effective': chosen['effective'], 'rule': chosen['rule']}


def period(inp):
    """MODEL-13 / MODEL-14: the week, month or ISO week containing a Day."""
    n = parse_day(inp['day'])
    if inp['period'] == 'week':
        first = week_start_of(n, inp['weekStart'])
        return {'first': day_text(max(first, MIN_DAY)), 'last': day_text(min(first + 6, MAX_DAY))}
    if inp['period'] == 'month':
        first, last = month_of(n)
        return {'first': day_text(first), 'last': day_text(last)}
    year, week, _ = (EPOCH + dt.timedelta(days=n)).isocalendar()
    return {'year': year, 'week': week}


def day_instants(inp):
    """MODEL-12: the first and last instant of a Day, both null for a Day the zone skipped."""
    zone, start = boundary_input(inp)
    n = parse_day(inp['day'])
    a, b = start_of(zone, n * 86400 + start * 60), start_of(zone, (n + 1) * 86400 + start * 60)
    if b <= a:
        return {'first': None, 'last': None, 'warning': zone_warning(zone)}
    return {'first': instant_text(a * 1000), 'last': instant_text(b * 1000 - 1), 'warning': zone_warning(zone)}


def uuid_v7(inp):
    """MODEL-16: the exact UUIDv7 layout."""
    high = (inp['unixMillis'] & 0xFFFFFFFFFFFF) << 16 | 0x7000 | inp['randA'] & 0xFFF
    low = 0x8000000000000000 | int(inp['randB'], 16) & 0x3FFFFFFFFFFFFFFF
    return {'uuid': uuid_text(bytes.fromhex('%016x%016x' % (high, low)))}


def instant_parse(inp):
    ms = parse_instant(inp['text'])
    return {'canonical': instant_text(ms), 'millisecondsSince1970': ms}


def uuid_parse(inp):
    text = parse_uuid(inp['text'])
    return {'canonical': text, 'version': int(text[14], 16)}


def amount_parse(inp):
    value = parse_amount(inp['text'])
    return {'canonical': amount_text(value), 'thousandths': value}


OPERATIONS = {
    'day.parse': lambda i: describe(parse_day(i['text'])),
    'day.fromComponents': lambda i: describe(day_from(i['year'], i['month'], i['day'])),
    'day.fromDaysSince1970': lambda i: {'day': day_text(check_day(i['daysSince1970']))},
    'day.add': lambda i: {'day': day_text(check_day(parse_day(i['day']) + i['days']))},
    'day.between': lambda i: {'days': parse_day(i['to']) - parse_day(i['from'])},
    'day.period': period,
    'instant.parse': instant_parse,
    'timezone.validate': lambda i: {'identifier': check_zone(i['timeZone']), 'known': zone_known(i['timeZone'])},
    'boundary.dayOf': lambda i: {'day': day_text(day_of(*boundary_input(i), parse_instant(i['instant']))),
                                 'warning': zone_warning(i['timeZone'])},
    'boundary.instants': day_instants,
    'uuid.parse': uuid_parse,
    'uuid.v7': uuid_v7,
    'amount.parse': amount_parse,
    'schedule.entryOn': schedule_entry_on,
    'json.decode': json_decode,
    'draft.validate': draft_validate,
}
