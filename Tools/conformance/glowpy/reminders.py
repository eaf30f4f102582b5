"""Section 10 of the spec (Spec/reminders.md): the plan of local notifications for the coming Days
(REMIND-1 ... REMIND-10) and a new plan as a change to the previous one (REMIND-11, REMIND-12).

The inputs are the streaks area's compact ones (streaks.md 2.10): a profile (the day boundary),
goals, check-ins and `now`, read by `streaks.py`, which also judges each Day's status and the
current streak. Instants come from the day boundary of `model.py`: `model.start_of` is the earliest
instant whose wall reading is at least a given one (MODEL-12), which is exactly the instant of a
time on a date (REMIND-4), through gaps, overlaps and skipped dates alike.
"""
from . import model as m
from . import streaks
from .errors import Failure

LIMIT = 64                                                     # REMIND-10: iOS keeps no more pending
KIND_ORDER = {'streakAtRisk': 0, 'due': 1, 'snooze': 2}        # REMIND-10: the order at one instant
KEYS = {'due': 'reminder.due', 'streakAtRisk': 'reminder.streakAtRisk', 'snooze': 'reminder.snooze'}


# ---- REMIND-1: settings

def invalid(path):
    return Failure('invalid_reminder', path=path)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def minute(value, path):
    """A minute of the day, 0 … 1439."""
    if not is_int(value) or not 0 <= value <= 1439:
        raise invalid(path)
    return value


def bounded(value, lo, hi, path):
    if not is_int(value) or not lo <= value <= hi:
        raise invalid(path)
    return value


def goal_settings(raw, path):
    """A goal's settings: one to eight distinct times, weekdays absent or a non-empty set, enabled."""
    if not isinstance(raw, dict):
        raise invalid(path)
    times = raw.get('times')
    if not isinstance(times, list) or not 1 <= len(times) <= 8:
        raise invalid(path + '.times')
    times = [minute(t, f'{path}.times[{i}]') for i, t in enumerate(times)]
    if len(set(times)) != len(times):
        raise invalid(path + '.times')
    weekdays = raw.get('weekdays')
    if weekdays is not None:
        if not isinstance(weekdays, list) or not weekdays:
            raise invalid(path + '.weekdays')
        for i, w in enumerate(weekdays):
            if w not in m.WEEKDAYS:
                raise invalid(f'{path}.weekdays[{i}]')
        if len(set(weekdays)) != len(weekdays):
            raise invalid(path + '.weekdays')
        weekdays = set(weekdays)
    enabled = raw.get('enabled', True)
    if enabled is None:
        enabled = True
    if not isinstance(enabled, bool):
        raise invalid(path + '.enabled')
    return {'times': times, 'weekdays': weekdays, 'enabled': enabled}


def person_settings(raw, path):
    """The person's settings: streakAtRisk {minute, minimumStreak 1 … 100,000}, quietHours {start, end}
    (two different minutes), snoozeMinutes 1 … 1440 (10 unless given)."""
    raw = raw or {}
    if not isinstance(raw, dict):
        raise invalid(path)
    risk = raw.get('streakAtRisk')
    if risk is not None:
        p = path + '.streakAtRisk'
        if not isinstance(risk, dict):
            raise invalid(p)
        risk_minute = minute(risk.get('minute'), p + '.minute')
        least = bounded(risk.get('minimumStreak'), 1, m.MAX_MINIMUM_STREAK, p + '.minimumStreak')
        risk = {'minute': risk_minute, 'minimumStreak': least}
    quiet = raw.get('quietHours')
    if quiet is not None:
        p = path + '.quietHours'
        if not isinstance(quiet, dict):
            raise invalid(p)
        start, end = minute(quiet.get('start'), p + '.start'), minute(quiet.get('end'), p + '.end')
        if start == end:
            raise invalid(p)
        quiet = (start, end)
    snooze = raw.get('snoozeMinutes')
    snooze = 10 if snooze is None else bounded(snooze, 1, 1440, path + '.snoozeMinutes')
    return {'streakAtRisk': risk, 'quietHours': quiet, 'snoozeMinutes': snooze}


# ---- REMIND-3, REMIND-4, REMIND-7: when a notification fires

class Clock:
    """The zone in force and the day start (REMIND-2), in whole seconds."""

    def __init__(self, profile):
        self.zone, self.day_start = profile['timeZone'], profile['dayStartMinutes']

    def instant(self, date, minute_of_day):
        """REMIND-4: the earliest instant whose wall reading is at or after the minute on the date."""
        return m.start_of(self.zone, date * 86400 + minute_of_day * 60)

    def date_of(self, day, minute_of_day):
        """REMIND-3: a time serves Day d on d's date when it is at or after the day start, else on the next date."""
        return day if minute_of_day >= self.day_start else day + 1

    def served_instant(self, day, minute_of_day):
        return self.instant(self.date_of(day, minute_of_day), minute_of_day)

    def wall(self, t):
        return t + m.utc_offset(self.zone, t)

    def day_end(self, day):
        """MODEL-12: the end of Day d is the first instant of d + 1."""
        return m.start_of(self.zone, (day + 1) * 86400 + self.day_start * 60)


def quiet_minute(q, mm):
    """REMIND-7: start ≤ m < end, or across midnight m ≥ start or m < end."""
    start, end = q
    return start <= mm < end if start < end else (mm >= start or mm < end)


def settle(clock, quiet, day, t):
    """REMIND-7: an instant that reads a quiet minute moves to the instant of `end` on the first
    date, from its own date on, where that is later; None when that is not before the Day's end."""
    if quiet is None:
        return t
    wall = clock.wall(t)
    if not quiet_minute(quiet, wall % 86400 // 60):
        return t
    date = wall // 86400
    moved = clock.instant(date, quiet[1])
    while moved <= t:
        date += 1
        moved = clock.instant(date, quiet[1])
    return moved if moved < clock.day_end(day) else None


# ---- REMIND-5 ... REMIND-10: the plan

def notification(goal, kind, ident, at_ms, day, extra=()):
    """REMIND-9: identifier, instant, goal, kind, Day, thread, key and arguments."""
    return {'id': ident, 'at': m.instant_text(at_ms), 'goal': goal['id'], 'kind': kind, 'day': m.day_text(day),
            'thread': 'goal/' + goal['id'], 'key': KEYS[kind],
            'arguments': [goal['title'], goal.get('emoji', '')] + list(extra), '_ms': at_ms}


def hhmm(mm):
    return '%02d:%02d' % (mm // 60, mm % 60)


def read_plan(inp, base):
    """A `reminders.plan` input, its settings checked (REMIND-1); error paths are relative to `base`."""
    prefix = base + '.' if base else ''
    if not isinstance(inp, dict):
        raise Failure('invalid_json', path=base or '$')
    days = inp.get('days')
    days = 7 if days is None else bounded(days, 1, 31, prefix + 'days')
    settings = {}
    raw_settings = inp.get('settings') or {}
    if not isinstance(raw_settings, dict):
        raise invalid(prefix + 'settings')
    for key, value in raw_settings.items():
        settings[key.lower()] = goal_settings(value, f'{prefix}settings.{key}')
    person = person_settings(inp.get('person'), prefix + 'person')
    snoozes = inp.get('snoozes') or []
    if not isinstance(snoozes, list):
        raise invalid(prefix + 'snoozes')
    read_snoozes = []
    for i, s in enumerate(snoozes):
        p = f'{prefix}snoozes[{i}]'
        if not isinstance(s, dict):
            raise invalid(p)
        goal = m.scalar(m.parse_uuid, s.get('goal'), p + '.goal')
        read_snoozes.append((goal, m.scalar(m.parse_instant, s.get('at'), p + '.at')))
    profile = streaks.read_profile(inp)
    now = m.scalar(m.parse_instant, inp['now'], '$.now')
    today = m.day_of(profile['timeZone'], profile['dayStartMinutes'], now)
    raws = inp.get('goals') or []
    goals = [(streaks.full_goal(g, f'$.goals[{i}]'), streaks.Goal(g, f'$.goals[{i}]')) for i, g in enumerate(raws)]
    checkins = streaks.read_checkins(inp.get('checkIns') or [], profile)
    return profile, now, today, days, settings, person, read_snoozes, goals, checkins


def plan_of(inp, base=''):
    """REMIND-2 ... REMIND-10: every notification, ordered; the first 64 and the rest."""
    profile, now, today, days, settings, person, snoozes, goals, checkins = read_plan(inp, base)
    clock, quiet = Clock(profile), person['quietHours']
    week_start = profile['weekStart']
    out = []
    evaluations = {}
    for full, goal in goals:
        if goal.deleted or goal.id in evaluations:
            continue
        evaluation = streaks.Evaluation(goal, checkins, week_start, today)
        evaluations[goal.id] = (full, evaluation)
        setting = settings.get(goal.id)
        # REMIND-5: goal reminders
        if setting is not None and setting['enabled']:
            for d in range(today, today + days):
                if setting['weekdays'] is not None and m.weekday(d) not in setting['weekdays']:
                    continue
                status = evaluation.status_on(d)
                wanted = status == 'pending' or status.startswith('partial') if d == today else status == 'upcoming'
                if not wanted:
                    continue
                for t_minute in setting['times']:
                    t = settle(clock, quiet, d, clock.served_instant(d, t_minute))
                    if t is not None and t * 1000 > now:
                        out.append(notification(full, 'due', f"due/{goal.id}/{m.day_text(d)}/{hhmm(t_minute)}", t * 1000, d))
        # REMIND-6: the streak at risk, today only
        risk = person['streakAtRisk']
        if risk is not None and (setting is None or setting['enabled']):
            nudge = at_risk(evaluation, goal, checkins, week_start, today, risk['minimumStreak'])
            if nudge is not None:
                t = settle(clock, quiet, today, clock.served_instant(today, risk['minute']))
                if t is not None and t * 1000 > now:
                    out.append(notification(full, 'streakAtRisk', f'risk/{goal.id}/{m.day_text(today)}', t * 1000, today,
                                            [str(nudge)]))
    # REMIND-8: snoozes, not moved by quiet hours; one goal's snoozes at one instant are one
    seen = set()
    for goal_id, at in snoozes:
        if goal_id not in evaluations or (goal_id, at) in seen:
            continue
        seen.add((goal_id, at))
        full, evaluation = evaluations[goal_id]
        fires = at + person['snoozeMinutes'] * 60000
        served = m.day_of(profile['timeZone'], profile['dayStartMinutes'], at)
        if fires <= now or evaluation.status_on(served) in ('done', 'skipped'):
            continue
        out.append(notification(full, 'snooze', f'snooze/{goal_id}/{at}', fires, served))
    # REMIND-10: by instant, kind, then identifier as UTF-8 bytes
    out.sort(key=lambda n: (n['_ms'], KIND_ORDER[n['kind']], n['id'].encode()))
    for n in out:
        del n['_ms']
    return {'notifications': out[:LIMIT], 'leftOut': out[LIMIT:]}


def at_risk(evaluation, goal, checkins, week_start, today, least):
    """REMIND-6: the current streak's length when today is pending or partial, the streak is at
    least `least` long, and as of the next Day with nothing more recorded no current streak starts
    on its start Day; None otherwise."""
    status = evaluation.status_on(today)
    if status != 'pending' and not status.startswith('partial'):
        return None
    current = evaluation.streaks()[1]
    if not current or len(current) < least:
        return None
    kept = [c for c in checkins if c['day'] <= today]          # nothing more recorded
    tomorrow = streaks.Evaluation(goal, kept, week_start, today + 1).streaks()[1]
    if tomorrow and tomorrow[0].first == current[0].first:
        return None
    return len(current)


# ---- REMIND-11, REMIND-12: changes

def change(inp):
    """The previous plan's notifications that the new one does not hold with the same content are
    cancelled (their identifiers, in the previous order); the new plan's that the previous plan does
    not hold are added (in the new order)."""
    before = plan_of(inp['before'], 'before')['notifications']
    after = plan_of(inp['after'], 'after')['notifications']
    key = lambda n: m.canonical_json(n)                         # noqa: E731
    old, new = {key(n) for n in before}, {key(n) for n in after}
    return {'cancel': [n['id'] for n in before if key(n) not in new],
            'add': [n for n in after if key(n) not in old]}


OPERATIONS = {
    'reminders.plan': plan_of,
    'reminders.change': change,
}
