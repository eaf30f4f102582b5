#!/usr/bin/env python3
"""Writes Spec/corpus/reminders/plan.json, change.json and settings.json (REMIND-1 ... REMIND-12):
reminder plans and the changes between them.

Every expectation is worked out beside its case from Spec/reminders.md: which Days a goal waits
for (its schedule and check-ins, read with Spec/streaks.md), the wall-clock date of each time
(REMIND-3), and its instant. Ordinary local times are turned into UTC with Python's zoneinfo (the
system's tz database, not the SDK's code); the instants inside daylight-saving gaps and overlaps
are written out by hand from the zone's published rules, with the rule that decides them.
"""

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from corpus_file import write_cases, command_line

command_line(__doc__)

G1 = '01938a6e-7c00-7abc-8def-00000000000a'
G2 = '01938a6e-7c00-7abc-8def-00000000000b'
G3 = '01938a6e-7c00-7abc-8def-00000000000c'

LONDON = {'timeZone': 'Europe/London', 'dayStartMinutes': 0, 'weekStart': 'monday'}


def utc(zone, day, hhmm, fold=0):
    """The UTC instant of wall-clock `hhmm` on `day` in `zone`, for a time that exists there
    (fold=0 is the first of a repeated hour); asserts it is not in a gap."""
    local = datetime.fromisoformat('%sT%s' % (day, hhmm))
    instant = local.replace(tzinfo=ZoneInfo(zone), fold=fold).astimezone(timezone.utc)
    assert instant.astimezone(ZoneInfo(zone)).replace(tzinfo=None) == local, 'in a gap: %s %s %s' % (zone, day, hhmm)
    return instant.strftime('%Y-%m-%dT%H:%M:%S.000Z')


def days_from(first, count):
    start = date.fromisoformat(first)
    return [(start + timedelta(days=n)).isoformat() for n in range(count)]


def plus(day, n):
    return (date.fromisoformat(day) + timedelta(days=n)).isoformat()


def note(goal, kind, ident, at, day, args):
    return {'id': ident, 'at': at, 'goal': goal, 'kind': kind, 'day': day, 'thread': 'goal/' + goal,
            'key': 'reminder.' + kind, 'arguments': args}


def due(goal, day, hhmm, at, title='Goal', emoji=''):
    return note(goal, 'due', 'due/%s/%s/%s' % (goal, day, hhmm), at, day, [title, emoji])


def risk(goal, day, at, length, title='Goal', emoji=''):
    return note(goal, 'streakAtRisk', 'risk/%s/%s' % (goal, day), at, day, [title, emoji, str(length)])


def snooze(goal, asked_ms, at, day, title='Goal', emoji=''):
    return note(goal, 'snooze', 'snooze/%s/%d' % (goal, asked_ms), at, day, [title, emoji])


def goal(ident=G1, schedule=None, start='2026-06-01', kind=None, **more):
    g = {'id': ident, 'kind': kind or {'type': 'streak'}, 'startDay': start}
    if schedule is not None or (kind or {}).get('type', 'streak') in ('streak', 'tally', 'value'):
        g['schedule'] = schedule or {'type': 'daily'}
    g.update(more)
    return g


def done(day, ident=G1):
    return {'goalID': ident, 'day': day, 'log': {'type': 'done'}}


def plan_input(now, goals, settings, check_ins=(), profile=LONDON, person=None, days=None, snoozes=None):
    data = {'profile': profile, 'now': now, 'goals': goals, 'checkIns': list(check_ins), 'settings': settings}
    if person is not None:
        data['person'] = person
    if days is not None:
        data['days'] = days
    if snoozes is not None:
        data['snoozes'] = snoozes
    return data


PLAN = []
CHANGE = []
SETTINGS = []


def plan(comment, rules, data, notifications, left_out=()):
    PLAN.append({'comment': comment, 'rules': rules, 'flags': [], 'input': data, 'result': 'valid',
                 'expected': {'notifications': notifications, 'leftOut': list(left_out)}})


def change(comment, rules, before, after, cancel, add):
    CHANGE.append({'comment': comment, 'rules': rules, 'flags': [], 'input': {'before': before, 'after': after},
                   'result': 'valid', 'expected': {'cancel': cancel, 'add': add}})


def refused(comment, data, path):
    SETTINGS.append({'comment': comment, 'rules': ['REMIND-1'], 'flags': [], 'input': data, 'result': 'invalid',
                     'error': {'code': 'invalid_reminder', 'path': path}})


def accepted(comment, data, notifications):
    SETTINGS.append({'comment': comment, 'rules': ['REMIND-1'], 'flags': [], 'input': data, 'result': 'valid',
                     'expected': {'notifications': notifications, 'leftOut': []}})


# ---------------------------------------------------------------------------------------------
# REMIND-2, REMIND-5: a daily goal, 08:00 in London (BST, +1 in June). Today is Wednesday
# 2026-06-10; now 07:00 local (06:00Z), before the time.
NOW = '2026-06-10T06:00:00.000Z'
WEEK = days_from('2026-06-10', 7)
EIGHT = {G1: {'times': [480]}}


def daily_at(hhmm, days, ident=G1, title='Goal', emoji='', zone='Europe/London'):
    return [due(ident, d, hhmm, utc(zone, d, hhmm), title, emoji) for d in days]


plan('a daily goal at 08:00: today and the six Days after, at 08:00 BST (07:00Z) each', ['REMIND-2', 'REMIND-5'],
     plan_input(NOW, [goal()], EIGHT), daily_at('08:00', WEEK))
plan('now after today\'s time: today\'s reminder is past and left out, the next six stay', ['REMIND-5'],
     plan_input('2026-06-10T07:30:00.000Z', [goal()], EIGHT), daily_at('08:00', WEEK[1:]))
plan('now exactly at the time: a reminder fires only after now', ['REMIND-5'],
     plan_input('2026-06-10T07:00:00.000Z', [goal()], EIGHT), daily_at('08:00', WEEK[1:]))
plan('one millisecond before the time: today\'s reminder is still planned', ['REMIND-5'],
     plan_input('2026-06-10T06:59:59.999Z', [goal()], EIGHT), daily_at('08:00', WEEK))
plan('a plan of one Day', ['REMIND-2'], plan_input(NOW, [goal()], EIGHT, days=1), daily_at('08:00', WEEK[:1]))
plan('a plan of three Days', ['REMIND-2'], plan_input(NOW, [goal()], EIGHT, days=3), daily_at('08:00', WEEK[:3]))
plan('a plan of 31 Days: the limit of 64 is not reached', ['REMIND-2'],
     plan_input(NOW, [goal()], EIGHT, days=31), daily_at('08:00', days_from('2026-06-10', 31)))
plan('two times a Day, in instant order across the Days', ['REMIND-5', 'REMIND-10'],
     plan_input(NOW, [goal()], {G1: {'times': [1200, 480]}}, days=2),
     [due(G1, '2026-06-10', '08:00', utc('Europe/London', '2026-06-10', '08:00')),
      due(G1, '2026-06-10', '20:00', utc('Europe/London', '2026-06-10', '20:00')),
      due(G1, '2026-06-11', '08:00', utc('Europe/London', '2026-06-11', '08:00')),
      due(G1, '2026-06-11', '20:00', utc('Europe/London', '2026-06-11', '20:00'))])
plan('midnight and the last minute of the Day', ['REMIND-3', 'REMIND-9'],
     plan_input(NOW, [goal()], {G1: {'times': [0, 1439]}}, days=2),
     [due(G1, '2026-06-10', '23:59', utc('Europe/London', '2026-06-10', '23:59')),
      due(G1, '2026-06-11', '00:00', utc('Europe/London', '2026-06-11', '00:00')),
      due(G1, '2026-06-11', '23:59', utc('Europe/London', '2026-06-11', '23:59'))])
plan('the title and emoji are the text\'s arguments', ['REMIND-9'],
     plan_input(NOW, [goal(title='Stretch', emoji='🧘')], EIGHT, days=1),
     daily_at('08:00', WEEK[:1], title='Stretch', emoji='🧘'))
plan('a goal without settings has no reminders', ['REMIND-1', 'REMIND-5'], plan_input(NOW, [goal()], {}), [])
plan('settings that are off give none', ['REMIND-1', 'REMIND-5'],
     plan_input(NOW, [goal()], {G1: {'times': [480], 'enabled': False}}), [])
plan('settings for a goal that is not in the data give none', ['REMIND-5'],
     plan_input(NOW, [goal()], {G2: {'times': [480]}}), [])

# REMIND-5: what the goal's Days say.
plan('done today: no reminder today; the other Days keep theirs', ['REMIND-5'],
     plan_input(NOW, [goal()], EIGHT, [done('2026-06-10')]), daily_at('08:00', WEEK[1:]))
plan('skipped today: none today', ['REMIND-5'],
     plan_input(NOW, [goal()], EIGHT, [{'goalID': G1, 'day': '2026-06-10', 'log': {'type': 'skip'}}]),
     daily_at('08:00', WEEK[1:]))
plan('a tally at 3 of 8 today is partly done: reminded', ['REMIND-5'],
     plan_input(NOW, [goal(kind={'type': 'tally', 'dailyTarget': 8, 'unit': 'glasses'})], EIGHT,
                [{'goalID': G1, 'day': '2026-06-10', 'log': {'type': 'tally', 'count': 3}}], days=2),
     daily_at('08:00', WEEK[:2]))
plan('a tally at 8 of 8 today is done: not reminded today', ['REMIND-5'],
     plan_input(NOW, [goal(kind={'type': 'tally', 'dailyTarget': 8, 'unit': 'glasses'})], EIGHT,
                [{'goalID': G1, 'day': '2026-06-10', 'log': {'type': 'tally', 'count': 8}}], days=2),
     daily_at('08:00', WEEK[1:2]))
plan('a check-in on a later Day (recorded ahead) does not silence today', ['REMIND-5'],
     plan_input(NOW, [goal()], EIGHT, [done('2026-06-09')], days=2), daily_at('08:00', WEEK[:2]))
plan('a deleted goal has none', ['REMIND-5'], plan_input(NOW, [goal(deleted=True)], EIGHT), [])
plan('a goal that starts in three Days: reminders from its start', ['REMIND-5'],
     plan_input(NOW, [goal(start='2026-06-13')], EIGHT), daily_at('08:00', WEEK[3:]))
plan('a goal that ends on Friday: none after its end Day', ['REMIND-5'],
     plan_input(NOW, [goal(endDay='2026-06-12')], EIGHT), daily_at('08:00', WEEK[:3]))
plan('a goal archived from Friday to the Monday after: none while archived', ['REMIND-5'],
     plan_input(NOW, [goal(archiveHistory=[{'from': '2026-06-12', 'until': '2026-06-15'}])], EIGHT),
     daily_at('08:00', ['2026-06-10', '2026-06-11', '2026-06-15', '2026-06-16']))

# Schedules: which Days are due (STREAK-9 ... STREAK-12). 2026-06-10 is a Wednesday.
plan('Mondays, Wednesdays and Fridays: Wednesday, Friday and Monday of the seven Days', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'weekdays', 'weekdays': ['monday', 'wednesday', 'friday']})], EIGHT),
     daily_at('08:00', ['2026-06-10', '2026-06-12', '2026-06-15']))
plan('every second Day from the start on Monday 2026-06-01: the even distances', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'everyNDays', 'interval': 2})], EIGHT),
     daily_at('08:00', ['2026-06-11', '2026-06-13', '2026-06-15']))
plan('every third Day from 2026-06-01: 06-10, 06-13, 06-16', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'everyNDays', 'interval': 3})], EIGHT),
     daily_at('08:00', ['2026-06-10', '2026-06-13', '2026-06-16']))
plan('three times a week, none done yet: every Day of the week is still open', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'timesPerWeek', 'times': 3})], EIGHT), daily_at('08:00', WEEK))
plan('three times a week, met on Monday, Tuesday and today: none for the rest of the week, then Monday on',
     ['REMIND-5'],
     plan_input('2026-06-10T05:00:00.000Z', [goal(schedule={'type': 'timesPerWeek', 'times': 3})], EIGHT,
                [done('2026-06-08'), done('2026-06-09'), done('2026-06-10')]),
     daily_at('08:00', ['2026-06-15', '2026-06-16']))
plan('three times a week with two done: today and the rest of the week wait for the third', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'timesPerWeek', 'times': 3})], EIGHT,
                [done('2026-06-08'), done('2026-06-09')]),
     daily_at('08:00', WEEK))
plan('once a week, done on Monday: nothing until next Monday', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'timesPerWeek', 'times': 1})], EIGHT, [done('2026-06-08')]),
     daily_at('08:00', ['2026-06-15', '2026-06-16']))
plan('twice a month, met on June 2 and 3: nothing for the rest of June', ['REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'timesPerMonth', 'times': 2})], EIGHT,
                [done('2026-06-02'), done('2026-06-03')]), [])
plan('twice a month, met in June, on June 28: July 1 opens a new period', ['REMIND-5'],
     plan_input('2026-06-28T06:00:00.000Z', [goal(schedule={'type': 'timesPerMonth', 'times': 2})], EIGHT,
                [done('2026-06-02'), done('2026-06-03')]),
     daily_at('08:00', ['2026-07-01', '2026-07-02', '2026-07-03', '2026-07-04']))
plan('a one-off goal not done yet waits every Day', ['REMIND-5'],
     plan_input(NOW, [goal(kind={'type': 'single'})], EIGHT, days=3), daily_at('08:00', WEEK[:3]))
plan('a one-off goal done is not reminded again', ['REMIND-5'],
     plan_input(NOW, [goal(kind={'type': 'single'})], EIGHT, [done('2026-06-09')]), [])
plan('a countdown is reminded of today before its target, and on the target Day', ['REMIND-5'],
     plan_input(NOW, [goal(kind={'type': 'countdown', 'targetDay': '2026-06-13'})], EIGHT),
     daily_at('08:00', ['2026-06-10', '2026-06-13']))

# REMIND-1: weekdays limit the Days.
plan('limited to Mondays: only Monday of the seven Days', ['REMIND-1', 'REMIND-5'],
     plan_input(NOW, [goal()], {G1: {'times': [480], 'weekdays': ['monday']}}), daily_at('08:00', ['2026-06-15']))
plan('limited to the weekend: Saturday and Sunday', ['REMIND-1', 'REMIND-5'],
     plan_input(NOW, [goal()], {G1: {'times': [480], 'weekdays': ['saturday', 'sunday']}}),
     daily_at('08:00', ['2026-06-13', '2026-06-14']))
plan('weekdays limit what is due, never add to it: Fridays on a Mon/Wed goal give none', ['REMIND-1', 'REMIND-5'],
     plan_input(NOW, [goal(schedule={'type': 'weekdays', 'weekdays': ['monday', 'wednesday']})],
                {G1: {'times': [480], 'weekdays': ['friday']}}), [])

# REMIND-3: the day start decides the Day a time serves.
DS3 = {'timeZone': 'Europe/London', 'dayStartMinutes': 180, 'weekStart': 'monday'}
plan('day start 03:00, a time at 01:30: it falls on the next calendar date and serves the Day before',
     ['REMIND-3'],
     plan_input('2026-06-10T06:00:00.000Z', [goal()], {G1: {'times': [90]}}, profile=DS3, days=2),
     [due(G1, '2026-06-10', '01:30', utc('Europe/London', '2026-06-11', '01:30')),
      due(G1, '2026-06-11', '01:30', utc('Europe/London', '2026-06-12', '01:30'))])
plan('at 01:00 local with a 03:00 day start it is still the Day before: its 01:30 is in half an hour',
     ['REMIND-3'],
     plan_input(utc('Europe/London', '2026-06-11', '01:00'), [goal()], {G1: {'times': [90]}}, profile=DS3, days=1),
     [due(G1, '2026-06-10', '01:30', utc('Europe/London', '2026-06-11', '01:30'))])
plan('the Day before done at 00:40 (before the day start): its 01:30 reminder is dropped', ['REMIND-3', 'REMIND-5'],
     plan_input(utc('Europe/London', '2026-06-11', '01:00'), [goal()], {G1: {'times': [90]}},
                [{'goalID': G1, 'at': utc('Europe/London', '2026-06-11', '00:40'), 'timeZone': 'Europe/London',
                  'log': {'type': 'done'}}], profile=DS3, days=2),
     [due(G1, '2026-06-11', '01:30', utc('Europe/London', '2026-06-12', '01:30'))])
plan('day start 03:00: 02:59 serves the Day before, 03:00 the Day it starts', ['REMIND-3'],
     plan_input('2026-06-10T06:00:00.000Z', [goal()], {G1: {'times': [179, 180]}}, profile=DS3, days=1),
     [due(G1, '2026-06-10', '02:59', utc('Europe/London', '2026-06-11', '02:59'))])
# Now 02:00 BST on 06-10 is before the 03:00 day start: today is Day 06-09, whose 03:00 (on 06-09)
# has passed and whose 02:59 is on 06-10; Day 06-10's 03:00 follows a minute later.
plan('day start 03:00: the Day before\'s 02:59 fires a minute before the next Day\'s 03:00', ['REMIND-3', 'REMIND-10'],
     plan_input('2026-06-10T01:00:00.000Z', [goal()], {G1: {'times': [179, 180]}}, profile=DS3, days=2),
     [due(G1, '2026-06-09', '02:59', utc('Europe/London', '2026-06-10', '02:59')),
      due(G1, '2026-06-10', '03:00', utc('Europe/London', '2026-06-10', '03:00')),
      due(G1, '2026-06-10', '02:59', utc('Europe/London', '2026-06-11', '02:59'))])

# REMIND-4: daylight saving. Each zone's change is the published rule of 2026.
# Australia/Sydney, Sunday 2026-10-04: 02:00 AEST (+10) becomes 03:00 AEDT (+11) (Loop's issue 341).
SYD = {'timeZone': 'Australia/Sydney', 'dayStartMinutes': 0, 'weekStart': 'monday'}
plan('Sydney\'s gap: 02:30 does not exist on 2026-10-04; it fires once, at 03:00 AEDT (16:00Z the day before)',
     ['REMIND-4'],
     # Now is 22:00 AEST on 10-03 (today); 10-03's 02:30 has passed.
     plan_input('2026-10-03T12:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [150]}}, profile=SYD, days=3),
     [due(G1, '2026-10-04', '02:30', '2026-10-03T16:00:00.000Z'),
      due(G1, '2026-10-05', '02:30', utc('Australia/Sydney', '2026-10-05', '02:30'))])
plan('Sydney\'s gap: 02:00, 02:30 and 02:59 all fire once at 03:00, three notifications at one instant',
     ['REMIND-4', 'REMIND-10'],
     plan_input('2026-10-03T12:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [120, 150, 179]}},
                profile=SYD, days=2),
     [due(G1, '2026-10-04', '02:00', '2026-10-03T16:00:00.000Z'),
      due(G1, '2026-10-04', '02:30', '2026-10-03T16:00:00.000Z'),
      due(G1, '2026-10-04', '02:59', '2026-10-03T16:00:00.000Z')])
plan('Sydney: 01:59 before the gap and 03:00 after it are ordinary', ['REMIND-4'],
     plan_input('2026-10-03T12:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [119, 180]}},
                profile=SYD, days=2),
     [due(G1, '2026-10-04', '01:59', '2026-10-03T15:59:00.000Z'),
      due(G1, '2026-10-04', '03:00', '2026-10-03T16:00:00.000Z')])
# Now 22:00 AEST on 10-01: its 07:00 has passed; the plan's other six Days cross the change.
plan('Sydney: the six Days after today cross the change, one reminder each at 07:00, the offset from +10 to +11',
     ['REMIND-4'],
     plan_input('2026-10-01T12:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [420]}}, profile=SYD),
     daily_at('07:00', days_from('2026-10-02', 6), zone='Australia/Sydney'))
# America/New_York, Sunday 2026-03-08: 02:00 EST (-5) becomes 03:00 EDT (-4).
NY = {'timeZone': 'America/New_York', 'dayStartMinutes': 0, 'weekStart': 'sunday'}
plan('New York\'s spring gap: 02:30 fires at 03:00 EDT (07:00Z)', ['REMIND-4'],
     # Now is 23:00 EST on 03-07 (today), whose 02:30 has passed.
     plan_input('2026-03-08T04:00:00.000Z', [goal(start='2026-03-01')], {G1: {'times': [150]}}, profile=NY, days=2),
     [due(G1, '2026-03-08', '02:30', '2026-03-08T07:00:00.000Z')])
# America/New_York, Sunday 2026-11-01: 02:00 EDT becomes 01:00 EST; 01:00 ... 01:59 happen twice.
plan('New York\'s autumn overlap: 01:30 fires once, at its first occurrence (EDT, 05:30Z), not again at 06:30Z',
     ['REMIND-4'],
     # Now is 23:00 EDT on 10-31 (today), whose 01:30 has passed.
     plan_input('2026-11-01T03:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [90]}}, profile=NY, days=2),
     [due(G1, '2026-11-01', '01:30', '2026-11-01T05:30:00.000Z')])
plan('New York\'s overlap: now between the two 01:30s, after the first: today\'s is past, none repeats',
     ['REMIND-4', 'REMIND-5'],
     plan_input('2026-11-01T06:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [90]}}, profile=NY, days=2),
     [due(G1, '2026-11-02', '01:30', utc('America/New_York', '2026-11-02', '01:30'))])
# Europe/London: 2026-03-29 01:00 GMT becomes 02:00 BST; 2026-10-25 02:00 BST becomes 01:00 GMT.
plan('London\'s spring gap: 01:30 fires at 02:00 BST (01:00Z)', ['REMIND-4'],
     # Now is 12:00 GMT on 03-28 (today), whose 01:30 has passed.
     plan_input('2026-03-28T12:00:00.000Z', [goal(start='2026-03-01')], {G1: {'times': [90]}}, days=3),
     [due(G1, '2026-03-29', '01:30', '2026-03-29T01:00:00.000Z'),
      due(G1, '2026-03-30', '01:30', utc('Europe/London', '2026-03-30', '01:30'))])
plan('London\'s autumn overlap: 01:30 fires once at its first occurrence (BST, 00:30Z)', ['REMIND-4'],
     plan_input('2026-10-24T12:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [90]}}, days=3),
     [due(G1, '2026-10-25', '01:30', '2026-10-25T00:30:00.000Z'),
      due(G1, '2026-10-26', '01:30', utc('Europe/London', '2026-10-26', '01:30'))])
# Habitica's issue 6879: the Day rolled over twice on a daylight-saving night. With a 01:30 day start
# in New York on 2026-11-01, the Day 2026-11-01 begins at the first 01:30 (05:30Z) and only then.
NY130 = {'timeZone': 'America/New_York', 'dayStartMinutes': 90, 'weekStart': 'sunday'}
plan('a 01:30 day start on New York\'s overlap night: the Day begins once; 01:45 fires once for it (05:45Z)',
     ['REMIND-3', 'REMIND-4'],
     # Now is 01:00 EDT on 11-01, before the day start: today is Day 10-31, whose 01:45 (on 10-31) has passed.
     plan_input('2026-11-01T05:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [105]}}, profile=NY130,
                days=3),
     [due(G1, '2026-11-01', '01:45', '2026-11-01T05:45:00.000Z'),
      due(G1, '2026-11-02', '01:45', utc('America/New_York', '2026-11-02', '01:45'))])
plan('at the second 01:40 (06:40Z) it is still Day 2026-11-01, whose 01:45 was at 05:45Z: past, not repeated',
     ['REMIND-3', 'REMIND-4'],
     plan_input('2026-11-01T06:40:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [105]}}, profile=NY130,
                days=2),
     [due(G1, '2026-11-02', '01:45', utc('America/New_York', '2026-11-02', '01:45'))])
# Habitica-android's issue 1678: a 22:00 reminder is 22:00 where the person is.
for zone, name, expected in (('America/New_York', 'New York (EST)', '2026-01-16T03:00:00.000Z'),
                             ('America/Los_Angeles', 'Los Angeles (PST)', '2026-01-16T06:00:00.000Z'),
                             ('Asia/Kolkata', 'Kolkata (+05:30)', '2026-01-15T16:30:00.000Z'),
                             ('Asia/Kathmandu', 'Kathmandu (+05:45)', '2026-01-15T16:15:00.000Z'),
                             ('Pacific/Chatham', 'Chatham (+13:45 in its summer)', '2026-01-15T08:15:00.000Z'),
                             ('UTC', 'UTC', '2026-01-15T22:00:00.000Z')):
    plan('22:00 in %s is 22:00 on the person\'s own clock: %s' % (name, expected), ['REMIND-2', 'REMIND-4'],
         plan_input(utc(zone, '2026-01-15', '12:00'),   # noon of 01-15 where the person is
                    [goal(start='2026-01-01')], {G1: {'times': [1320]}},
                    profile={'timeZone': zone, 'dayStartMinutes': 0, 'weekStart': 'monday'}, days=1),
         [due(G1, '2026-01-15', '22:00', expected)])

# REMIND-7: quiet hours.
QUIET = {'quietHours': {'start': 1320, 'end': 420}}   # 22:00 ... 07:00
plan('06:30 in quiet hours 22:00-07:00 moves to 07:00 the same date, keeping its identifier', ['REMIND-7'],
     plan_input('2026-06-10T04:00:00.000Z', [goal()], {G1: {'times': [390]}}, person=QUIET, days=1),
     [due(G1, '2026-06-10', '06:30', utc('Europe/London', '2026-06-10', '07:00'))])
plan('07:00, the end of quiet hours, is not quiet; 21:59 neither', ['REMIND-7'],
     plan_input('2026-06-10T04:00:00.000Z', [goal()], {G1: {'times': [420, 1319]}}, person=QUIET, days=1),
     [due(G1, '2026-06-10', '07:00', utc('Europe/London', '2026-06-10', '07:00')),
      due(G1, '2026-06-10', '21:59', utc('Europe/London', '2026-06-10', '21:59'))])
plan('22:00, the start of quiet hours, is quiet: moved to 07:00 the next date, past the Day\'s end: dropped',
     ['REMIND-7'],
     plan_input('2026-06-10T04:00:00.000Z', [goal()], {G1: {'times': [1320]}}, person=QUIET, days=1), [])
plan('23:00 with an 08:00 day start: moved to 07:00 the next date, still the same Day: kept', ['REMIND-7'],
     plan_input('2026-06-10T08:00:00.000Z', [goal()], {G1: {'times': [1380]}}, person=QUIET,
                profile={'timeZone': 'Europe/London', 'dayStartMinutes': 480, 'weekStart': 'monday'}, days=1),
     [due(G1, '2026-06-10', '23:00', utc('Europe/London', '2026-06-11', '07:00'))])
plan('quiet hours that do not cross midnight, 12:00-14:00: 13:00 moves to 14:00, 14:00 stays', ['REMIND-7'],
     plan_input('2026-06-10T04:00:00.000Z', [goal()], {G1: {'times': [780, 840]}},
                person={'quietHours': {'start': 720, 'end': 840}}, days=1),
     [due(G1, '2026-06-10', '13:00', utc('Europe/London', '2026-06-10', '14:00')),
      due(G1, '2026-06-10', '14:00', utc('Europe/London', '2026-06-10', '14:00'))])
plan('an 06:30 moved to 07:00 is after now at 06:45 and so is planned, though 06:30 has passed', ['REMIND-5', 'REMIND-7'],
     plan_input(utc('Europe/London', '2026-06-10', '06:45'), [goal()], {G1: {'times': [390]}}, person=QUIET, days=1),
     [due(G1, '2026-06-10', '06:30', utc('Europe/London', '2026-06-10', '07:00'))])
plan('quiet hours 01:00-03:00 on Sydney\'s gap night: 01:30 moves to 03:00, which the zone reads at the gap\'s end',
     ['REMIND-4', 'REMIND-7'],
     plan_input('2026-10-03T12:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [90]}}, profile=SYD,
                person={'quietHours': {'start': 60, 'end': 180}}, days=2),
     [due(G1, '2026-10-04', '01:30', '2026-10-03T16:00:00.000Z')])

# REMIND-6: the evening nudge. A daily streak goal done on Days 06-05 ... 06-09 (five), pending today.
RISK = {'streakAtRisk': {'minute': 1260, 'minimumStreak': 3}}   # 21:00
FIVE = [done(d) for d in days_from('2026-06-05', 5)]
AT21 = utc('Europe/London', '2026-06-10', '21:00')
plan('a streak of five with today pending: one nudge at 21:00, with the length', ['REMIND-6', 'REMIND-9'],
     plan_input(NOW, [goal()], {}, FIVE, person=RISK), [risk(G1, '2026-06-10', AT21, 5)])
plan('the nudge beside the goal\'s own reminders, in instant order', ['REMIND-6', 'REMIND-10'],
     plan_input(NOW, [goal()], {G1: {'times': [480, 1260]}}, FIVE, person=RISK, days=2),
     [due(G1, '2026-06-10', '08:00', utc('Europe/London', '2026-06-10', '08:00')),
      risk(G1, '2026-06-10', AT21, 5),
      due(G1, '2026-06-10', '21:00', AT21),
      due(G1, '2026-06-11', '08:00', utc('Europe/London', '2026-06-11', '08:00')),
      due(G1, '2026-06-11', '21:00', utc('Europe/London', '2026-06-11', '21:00'))])
plan('a streak of two, below the minimum of three: no nudge', ['REMIND-6'],
     plan_input(NOW, [goal()], {}, [done('2026-06-08'), done('2026-06-09')], person=RISK), [])
plan('a streak of exactly the minimum, three: a nudge', ['REMIND-6'],
     plan_input(NOW, [goal()], {}, [done(d) for d in days_from('2026-06-07', 3)], person=RISK),
     [risk(G1, '2026-06-10', AT21, 3)])
plan('done today: no nudge', ['REMIND-6'],
     plan_input(NOW, [goal()], {}, FIVE + [done('2026-06-10')], person=RISK), [])
plan('skipped today: no nudge (a skip keeps the streak)', ['REMIND-6'],
     plan_input(NOW, [goal()], {}, FIVE + [{'goalID': G1, 'day': '2026-06-10', 'log': {'type': 'skip'}}],
                person=RISK), [])
plan('no streak at all: no nudge', ['REMIND-6'], plan_input(NOW, [goal()], {}, [], person=RISK), [])
plan('a forgiveness allowance of one a week, unused: missing today would be forgiven, so no nudge',
     ['REMIND-6'],
     plan_input(NOW, [goal(forgiveness={'allowance': 1, 'period': 'week'})], {}, FIVE, person=RISK), [])
plan('the week\'s allowance already spent on Monday: today would break the streak, so a nudge',
     ['REMIND-6'],
     plan_input(NOW, [goal(forgiveness={'allowance': 1, 'period': 'week'})], {},
                [done(d) for d in ['2026-06-04', '2026-06-05', '2026-06-06', '2026-06-07', '2026-06-09']],
                person=RISK),
     # The streak runs 06-04 ... 06-09, 06-08 forgiven (neutral): five units.
     [risk(G1, '2026-06-10', AT21, 5)])
plan('now after 21:00: tonight\'s nudge has passed', ['REMIND-6'],
     plan_input('2026-06-10T20:30:00.000Z', [goal()], {}, FIVE, person=RISK), [])
plan('settings off for the goal: no nudge either', ['REMIND-6'],
     plan_input(NOW, [goal()], {G1: {'times': [480], 'enabled': False}}, FIVE, person=RISK), [])
plan('a deleted goal gets no nudge', ['REMIND-6'], plan_input(NOW, [goal(deleted=True)], {}, FIVE, person=RISK), [])
plan('no streakAtRisk setting: no nudge', ['REMIND-6'], plan_input(NOW, [goal()], {}, FIVE), [])
plan('the nudge is for today only, whatever the plan\'s length', ['REMIND-6'],
     plan_input(NOW, [goal()], {}, FIVE, person=RISK, days=31), [risk(G1, '2026-06-10', AT21, 5)])
plan('a not-due today (Mondays and Fridays, today Wednesday) cannot break a streak: no nudge', ['REMIND-6'],
     plan_input(NOW, [goal(schedule={'type': 'weekdays', 'weekdays': ['monday', 'friday']})], {},
                [done('2026-06-01'), done('2026-06-05'), done('2026-06-08')], person=RISK), [])
plan('three a week, the week open until Sunday: missing Wednesday breaks nothing, no nudge', ['REMIND-6'],
     plan_input(NOW, [goal(schedule={'type': 'timesPerWeek', 'times': 3})], {},
                [done(d) for d in ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-08']], person=RISK,
                ), [])
plan('three a week on Sunday with two done: the week would be missed tonight; the streak of weeks is at risk',
     ['REMIND-6'],
     plan_input('2026-06-14T06:00:00.000Z', [goal(start='2026-05-18', schedule={'type': 'timesPerWeek', 'times': 3})],
                {},
                [done(d) for d in ['2026-05-18', '2026-05-19', '2026-05-20', '2026-05-25', '2026-05-26',
                                   '2026-05-27', '2026-06-01', '2026-06-02', '2026-06-03', '2026-06-08',
                                   '2026-06-09']],
                person={'streakAtRisk': {'minute': 1260, 'minimumStreak': 3}}),
     # Three met weeks (05-18, 05-25, 06-01): a current streak of 3 periods.
     [risk(G1, '2026-06-14', utc('Europe/London', '2026-06-14', '21:00'), 3)])
plan('a nudge at 01:00 with a 03:00 day start falls on the next date, still tonight for the Day', ['REMIND-3', 'REMIND-6'],
     plan_input('2026-06-10T06:00:00.000Z', [goal()], {}, FIVE, profile=DS3,
                person={'streakAtRisk': {'minute': 60, 'minimumStreak': 3}}),
     [risk(G1, '2026-06-10', utc('Europe/London', '2026-06-11', '01:00'), 5)])
plan('a nudge in quiet hours that run past the Day\'s end is dropped', ['REMIND-6', 'REMIND-7'],
     plan_input(NOW, [goal()], {}, FIVE,
                person={'streakAtRisk': {'minute': 1260, 'minimumStreak': 3}, 'quietHours': {'start': 1200,
                                                                                              'end': 420}}), [])
plan('a nudge in quiet hours 20:00-21:30 moves to 21:30', ['REMIND-6', 'REMIND-7'],
     plan_input(NOW, [goal()], {}, FIVE,
                person={'streakAtRisk': {'minute': 1260, 'minimumStreak': 3}, 'quietHours': {'start': 1200,
                                                                                              'end': 1290}}),
     [risk(G1, '2026-06-10', utc('Europe/London', '2026-06-10', '21:30'), 5)])
plan('a partly done tally today with a streak: a nudge (partly done breaks the streak tonight)', ['REMIND-6'],
     plan_input(NOW, [goal(kind={'type': 'tally', 'dailyTarget': 8, 'unit': 'glasses'})], {},
                [{'goalID': G1, 'day': d, 'log': {'type': 'tally', 'count': 8}} for d in days_from('2026-06-06', 4)]
                + [{'goalID': G1, 'day': '2026-06-10', 'log': {'type': 'tally', 'count': 5}}], person=RISK),
     [risk(G1, '2026-06-10', AT21, 4)])

# REMIND-8: snoozes. Now 12:00 BST (11:00Z); the snooze is 10 minutes unless set.
NOON = '2026-06-10T11:00:00.000Z'
ASKED = '2026-06-10T10:58:00.000Z'
ASKED_MS = 1781089080000
assert datetime.fromisoformat(ASKED.replace('Z', '+00:00')).timestamp() * 1000 == ASKED_MS
plan('a snooze asked two minutes ago fires ten minutes after it was asked', ['REMIND-8', 'REMIND-9'],
     plan_input(NOON, [goal()], {}, snoozes=[{'goal': G1, 'at': ASKED}]),
     [snooze(G1, ASKED_MS, '2026-06-10T11:08:00.000Z', '2026-06-10')])
plan('a snooze of 45 minutes', ['REMIND-8'],
     plan_input(NOON, [goal()], {}, person={'snoozeMinutes': 45}, snoozes=[{'goal': G1, 'at': ASKED}]),
     [snooze(G1, ASKED_MS, '2026-06-10T11:43:00.000Z', '2026-06-10')])
plan('a snooze whose time has passed is gone', ['REMIND-8'],
     plan_input(NOON, [goal()], {}, snoozes=[{'goal': G1, 'at': '2026-06-10T10:45:00.000Z'}]), [])
plan('a snooze ending exactly now is gone', ['REMIND-8'],
     plan_input(NOON, [goal()], {}, snoozes=[{'goal': G1, 'at': '2026-06-10T10:50:00.000Z'}]), [])
plan('a snooze of a goal done since: dropped', ['REMIND-8'],
     plan_input(NOON, [goal()], {}, [done('2026-06-10')], snoozes=[{'goal': G1, 'at': ASKED}]), [])
plan('a snooze in quiet hours is not moved: the person asked for it', ['REMIND-7', 'REMIND-8'],
     plan_input('2026-06-10T21:30:00.000Z', [goal()], {}, person=QUIET,
                snoozes=[{'goal': G1, 'at': '2026-06-10T21:25:00.000Z'}]),
     [snooze(G1, 1781126700000, '2026-06-10T21:35:00.000Z', '2026-06-10')])
plan('a snooze of a deleted goal: none', ['REMIND-8'],
     plan_input(NOON, [goal(deleted=True)], {}, snoozes=[{'goal': G1, 'at': ASKED}]), [])
plan('two snoozes of one goal are two notifications', ['REMIND-8', 'REMIND-10'],
     plan_input(NOON, [goal()], {}, snoozes=[{'goal': G1, 'at': ASKED}, {'goal': G1, 'at': '2026-06-10T10:55:00.000Z'}]),
     [snooze(G1, 1781088900000, '2026-06-10T11:05:00.000Z', '2026-06-10'),
      snooze(G1, ASKED_MS, '2026-06-10T11:08:00.000Z', '2026-06-10')])
plan('a snooze asked twice at one instant is one snooze', ['REMIND-8'],
     plan_input(NOON, [goal()], {}, snoozes=[{'goal': G1, 'at': ASKED}, {'goal': G1, 'at': ASKED}]),
     [snooze(G1, ASKED_MS, '2026-06-10T11:08:00.000Z', '2026-06-10')])
plan('a snooze at the same instant as a reminder comes after it', ['REMIND-10'],
     plan_input(NOON, [goal()], {G1: {'times': [728]}}, days=1, snoozes=[{'goal': G1, 'at': ASKED}]),
     [due(G1, '2026-06-10', '12:08', '2026-06-10T11:08:00.000Z'),
      snooze(G1, ASKED_MS, '2026-06-10T11:08:00.000Z', '2026-06-10')])

# REMIND-10: at most 64, by instant, kind and identifier.
TEN = ['01938a6e-7c00-7abc-8def-0000000001%02d' % n for n in range(10)]
many = [due(g, d, hhmm, utc('Europe/London', d, hhmm)) for d in WEEK for hhmm in ('08:00', '20:00') for g in TEN]
plan('ten goals twice a Day for a week: 140 reminders, the 64 soonest planned, the rest left out in order',
     ['REMIND-10'],
     plan_input(NOW, [goal(g) for g in TEN], {g: {'times': [480, 1200]} for g in TEN}),
     many[:64], many[64:])
plan('ten goals at one instant: by identifier', ['REMIND-10'],
     plan_input(NOW, [goal(g) for g in reversed(TEN)], {g: {'times': [480]} for g in TEN}, days=1),
     [due(g, '2026-06-10', '08:00', utc('Europe/London', '2026-06-10', '08:00')) for g in TEN])
thirty_two = [due(G1, d, hhmm, utc('Europe/London', d, hhmm)) for d in WEEK for hhmm in ('08:00', '20:00')]
plan('one goal at two times for seven Days is 14, under the limit', ['REMIND-10'],
     plan_input(NOW, [goal()], {G1: {'times': [480, 1200]}}), thirty_two)
sixty_four = [due(G1, d, '08:00', utc('Europe/London', d, '08:00')) for d in days_from('2026-06-10', 31)] + \
    [due(G2, d, '08:00', utc('Europe/London', d, '08:00')) for d in days_from('2026-06-10', 31)]
sixty_four.sort(key=lambda n: (n['at'], n['id']))
plan('two goals for 31 Days is 62, under 64: nothing left out', ['REMIND-10'],
     plan_input(NOW, [goal(), goal(G2)], {G1: {'times': [480]}, G2: {'times': [480]}}, days=31), sixty_four)
three = [due(g, d, '08:00', utc('Europe/London', d, '08:00')) for d in days_from('2026-06-10', 31) for g in (G1, G2, G3)]
plan('three goals for 31 Days is 93: 64 planned, 29 left out', ['REMIND-10'],
     plan_input(NOW, [goal(), goal(G2), goal(G3)], {g: {'times': [480]} for g in (G1, G2, G3)}, days=31),
     three[:64], three[64:])

# More of the same rules, case by case.
# REMIND-7 minute by minute: quiet 22:00-07:00, day start 00:00, now 00:00Z (01:00 BST, Day 06-10)
# except where said. A quiet minute moves to 07:00 of its own date when that is later, else of the
# next date, and is dropped when that is past the Day's end (midnight).
for minute, hhmm, moved in ((419, '06:59', '07:00'), (420, '07:00', '07:00'), (1319, '21:59', '21:59'),
                            (1320, '22:00', None), (1410, '23:30', None), (60, '01:00', '07:00'),
                            (180, '03:00', '07:00'), (1439, '23:59', None)):
    expected = [] if moved is None else [due(G1, '2026-06-10', hhmm, utc('Europe/London', '2026-06-10', moved))]
    plan('quiet hours 22:00-07:00 and a time of %s: %s' % (hhmm, 'dropped' if moved is None else 'at ' + moved),
         ['REMIND-7'],
         plan_input('2026-06-10T00:00:00.000Z', [goal()], {G1: {'times': [minute]}}, person=QUIET, days=1), expected)
# REMIND-1: each weekday alone. Today is Wednesday 2026-06-10; the plan runs to Tuesday 06-16.
for name, day in (('monday', '2026-06-15'), ('tuesday', '2026-06-16'), ('wednesday', '2026-06-10'),
                  ('thursday', '2026-06-11'), ('friday', '2026-06-12'), ('saturday', '2026-06-13'),
                  ('sunday', '2026-06-14')):
    plan('limited to %s: the one %s of the plan, %s' % (name.capitalize(), name.capitalize(), day),
         ['REMIND-1', 'REMIND-5'],
         plan_input(NOW, [goal()], {G1: {'times': [480], 'weekdays': [name]}}), daily_at('08:00', [day]))
# STREAK-11's every N Days from the start Day 2026-06-01: Days whose distance from it divides by N.
for interval, expected_days in ((4, ['2026-06-13']), (5, ['2026-06-11', '2026-06-16']),
                                (6, ['2026-06-13']), (7, ['2026-06-15'])):
    plan('every %d Days from 2026-06-01: %s' % (interval, ', '.join(expected_days)), ['REMIND-5'],
         plan_input(NOW, [goal(schedule={'type': 'everyNDays', 'interval': interval})], EIGHT),
         daily_at('08:00', expected_days))
# Australia/Lord_Howe moves by half an hour: 2026-10-04 02:00 (+10:30) becomes 02:30 (+11), and
# 2026-04-05 02:00 (+11) becomes 01:30 (+10:30), so 01:30 ... 01:59 happen twice.
LHI = {'timeZone': 'Australia/Lord_Howe', 'dayStartMinutes': 0, 'weekStart': 'monday'}
plan('Lord Howe\'s half-hour gap: 02:15 fires at 02:30 (+11), 15:30Z the day before', ['REMIND-4'],
     plan_input('2026-10-03T14:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [135]}}, profile=LHI, days=1),
     [due(G1, '2026-10-04', '02:15', '2026-10-03T15:30:00.000Z')])
plan('Lord Howe: 01:59, just before the gap, is ordinary (+10:30, 15:29Z)', ['REMIND-4'],
     plan_input('2026-10-03T14:00:00.000Z', [goal(start='2026-10-01')], {G1: {'times': [119]}}, profile=LHI, days=1),
     [due(G1, '2026-10-04', '01:59', '2026-10-03T15:29:00.000Z')])
plan('Lord Howe\'s half-hour overlap: 01:45 fires once, at the first (+11), 14:45Z', ['REMIND-4'],
     plan_input('2026-04-04T13:00:00.000Z', [goal(start='2026-04-01')], {G1: {'times': [105]}}, profile=LHI, days=1),
     [due(G1, '2026-04-05', '01:45', '2026-04-04T14:45:00.000Z')])
plan('Lord Howe: 02:00, after the overlap, happens once (+10:30), 15:30Z', ['REMIND-4'],
     plan_input('2026-04-04T13:00:00.000Z', [goal(start='2026-04-01')], {G1: {'times': [120]}}, profile=LHI, days=1),
     [due(G1, '2026-04-05', '02:00', '2026-04-04T15:30:00.000Z')])
# REMIND-8 across midnight: asked at 23:55 BST on 06-10 (22:55Z), a 10-minute snooze fires at 00:05
# on 06-11 and still serves Day 06-10, where it was asked.
plan('a snooze asked at 23:55 fires after midnight and serves the Day it was asked in', ['REMIND-8'],
     plan_input('2026-06-10T22:56:00.000Z', [goal()], {}, snoozes=[{'goal': G1, 'at': '2026-06-10T22:55:00.000Z'}]),
     [snooze(G1, 1781132100000, '2026-06-10T23:05:00.000Z', '2026-06-10')])
assert datetime.fromisoformat('2026-06-10T22:55:00+00:00').timestamp() * 1000 == 1781132100000
assert datetime.fromisoformat('2026-06-10T21:25:00+00:00').timestamp() * 1000 == 1781126700000
assert datetime.fromisoformat('2026-06-10T10:55:00+00:00').timestamp() * 1000 == 1781088900000
# A plan in Tokyo (+9, no daylight saving): 07:30 is 22:30Z the date before.
plan('Tokyo: 07:30 every Day is 22:30Z the day before', ['REMIND-2', 'REMIND-4'],
     plan_input('2026-06-09T20:00:00.000Z', [goal()], {G1: {'times': [450]}},
                profile={'timeZone': 'Asia/Tokyo', 'dayStartMinutes': 0, 'weekStart': 'monday'}, days=3),
     [due(G1, d, '07:30', utc('Asia/Tokyo', d, '07:30')) for d in ['2026-06-10', '2026-06-11', '2026-06-12']])

# ---------------------------------------------------------------------------------------------
# REMIND-1: settings that are refused, and the edges that are taken.
refused('no times', plan_input(NOW, [goal()], {G1: {'times': []}}), 'settings.%s.times' % G1)
refused('nine times', plan_input(NOW, [goal()], {G1: {'times': list(range(0, 900, 100))}}), 'settings.%s.times' % G1)
refused('minute 1440', plan_input(NOW, [goal()], {G1: {'times': [1440]}}), 'settings.%s.times[0]' % G1)
refused('a negative minute, second in the list', plan_input(NOW, [goal()], {G1: {'times': [480, -1]}}),
        'settings.%s.times[1]' % G1)
refused('one time twice', plan_input(NOW, [goal()], {G1: {'times': [480, 480]}}), 'settings.%s.times' % G1)
refused('an empty set of weekdays', plan_input(NOW, [goal()], {G1: {'times': [480], 'weekdays': []}}),
        'settings.%s.weekdays' % G1)
refused('quiet hours that start where they end', plan_input(NOW, [goal()], EIGHT, person={'quietHours': {
    'start': 600, 'end': 600}}), 'person.quietHours')
refused('quiet hours ending at minute 1440', plan_input(NOW, [goal()], EIGHT, person={'quietHours': {
    'start': 600, 'end': 1440}}), 'person.quietHours.end')
refused('a snooze of 0 minutes', plan_input(NOW, [goal()], EIGHT, person={'snoozeMinutes': 0}), 'person.snoozeMinutes')
refused('a snooze of 1441 minutes', plan_input(NOW, [goal()], EIGHT, person={'snoozeMinutes': 1441}),
        'person.snoozeMinutes')
refused('a nudge for streaks of 0', plan_input(NOW, [goal()], EIGHT, person={'streakAtRisk': {
    'minute': 1260, 'minimumStreak': 0}}), 'person.streakAtRisk.minimumStreak')
refused('a nudge at minute 1440', plan_input(NOW, [goal()], EIGHT, person={'streakAtRisk': {
    'minute': 1440, 'minimumStreak': 3}}), 'person.streakAtRisk.minute')
refused('a plan of 0 Days', plan_input(NOW, [goal()], EIGHT, days=0), 'days')
refused('a plan of 32 Days', plan_input(NOW, [goal()], EIGHT, days=32), 'days')
accepted('eight times are the most', plan_input(NOW, [goal()], {G1: {'times': [0, 60, 120, 180, 240, 300, 360, 1439]}},
                                                days=1),
         [due(G1, '2026-06-10', '23:59', utc('Europe/London', '2026-06-10', '23:59'))])
accepted('a snooze of 1440 minutes and quiet hours from 00:00 to 23:59 are within the bounds',
         plan_input(NOW, [goal()], {}, person={'snoozeMinutes': 1440, 'quietHours': {'start': 0, 'end': 1439}}), [])
accepted('a nudge for streaks of 1 at minute 0 is within the bounds',
         plan_input(NOW, [goal()], {}, person={'streakAtRisk': {'minute': 0, 'minimumStreak': 1}}), [])

# ---------------------------------------------------------------------------------------------
# REMIND-11, REMIND-12: changes.
TWO = [goal(), goal(G2, title='Read', emoji='📚')]
TWO_SET = {G1: {'times': [480]}, G2: {'times': [1200]}}


def two_plan(d, check_ins=()):
    return plan_input(NOW, TWO, TWO_SET, check_ins, days=d)


g1_today = due(G1, '2026-06-10', '08:00', utc('Europe/London', '2026-06-10', '08:00'))
g2_today = due(G2, '2026-06-10', '20:00', utc('Europe/London', '2026-06-10', '20:00'), 'Read', '📚')
change('the same plan twice: nothing to cancel or add', ['REMIND-11'], two_plan(3), two_plan(3), [], [])
change('a tap on one goal cancels only that goal\'s reminder of today', ['REMIND-11'],
       two_plan(3), two_plan(3, [done('2026-06-10')]), [g1_today['id']], [])
change('undoing the tap adds it back', ['REMIND-11'],
       two_plan(3, [done('2026-06-10')]), two_plan(3), [], [g1_today])
change('a tap on the other goal touches only it', ['REMIND-11'],
       two_plan(2), two_plan(2, [done('2026-06-10', G2)]), [g2_today['id']], [])
# A Day after today is `upcoming` whatever is recorded for it (STREAK-9): only today and the past
# are judged, so yesterday's check-in arriving by sync leaves every reminder as it was.
change('a sync bringing another device\'s check-in for yesterday changes no reminder', ['REMIND-11'],
       two_plan(3), two_plan(3, [done('2026-06-09')]), [], [])
change('a new time in the settings adds only the new reminders', ['REMIND-11'],
       plan_input(NOW, [goal()], {G1: {'times': [480]}}, days=2),
       plan_input(NOW, [goal()], {G1: {'times': [480, 720]}}, days=2), [],
       [due(G1, d, '12:00', utc('Europe/London', d, '12:00')) for d in WEEK[:2]])
change('a time moved from 08:00 to 08:30: cancel the old, add the new', ['REMIND-11'],
       plan_input(NOW, [goal()], {G1: {'times': [480]}}, days=2),
       plan_input(NOW, [goal()], {G1: {'times': [510]}}, days=2),
       ['due/%s/%s/08:00' % (G1, d) for d in WEEK[:2]],
       [due(G1, d, '08:30', utc('Europe/London', d, '08:30')) for d in WEEK[:2]])
change('a renamed goal: same identifiers, new text, so each is cancelled and added again', ['REMIND-11'],
       plan_input(NOW, [goal()], EIGHT, days=2), plan_input(NOW, [goal(title='Walk')], EIGHT, days=2),
       ['due/%s/%s/08:00' % (G1, d) for d in WEEK[:2]], daily_at('08:00', WEEK[:2], title='Walk'))
change('settings turned off: everything of the goal is cancelled', ['REMIND-11'],
       plan_input(NOW, [goal()], EIGHT, days=2), plan_input(NOW, [goal()], {G1: {'times': [480], 'enabled': False}},
                                                            days=2),
       ['due/%s/%s/08:00' % (G1, d) for d in WEEK[:2]], [])
change('a new Day: yesterday\'s fired reminder leaves the plan, the new last Day comes in', ['REMIND-11'],
       plan_input('2026-06-10T06:00:00.000Z', [goal()], EIGHT, days=2),
       plan_input('2026-06-11T06:00:00.000Z', [goal()], EIGHT, days=2),
       ['due/%s/2026-06-10/08:00' % G1], daily_at('08:00', ['2026-06-12']))
change('travel from London to New York (Loop\'s issue 525): the same wall-clock times, every instant moved',
       ['REMIND-11', 'REMIND-12'],
       plan_input(NOW, [goal()], EIGHT, days=2),
       plan_input(NOW, [goal()], EIGHT, days=2, profile={'timeZone': 'America/New_York', 'dayStartMinutes': 0,
                                                         'weekStart': 'monday'}),
       ['due/%s/%s/08:00' % (G1, d) for d in WEEK[:2]],
       # Now, 02:00 in New York on 06-10: today there is 06-10, 08:00 EDT (12:00Z).
       daily_at('08:00', WEEK[:2], zone='America/New_York'))
change('travel east to Tokyo: now is already evening there, today\'s 08:00 has passed', ['REMIND-12'],
       plan_input(NOW, [goal()], EIGHT, days=2),
       plan_input(NOW, [goal()], EIGHT, days=2, profile={'timeZone': 'Asia/Tokyo', 'dayStartMinutes': 0,
                                                         'weekStart': 'monday'}),
       ['due/%s/%s/08:00' % (G1, d) for d in WEEK[:2]],
       # 06:00Z is 15:00 on 06-10 in Tokyo: of the plan's two Days, 06-10's 08:00 is past; 06-11 remains.
       daily_at('08:00', ['2026-06-11'], zone='Asia/Tokyo'))
change('a change of day start moves the reminders that fall before it to the next date', ['REMIND-3', 'REMIND-12'],
       plan_input('2026-06-10T06:00:00.000Z', [goal()], {G1: {'times': [90]}}, days=1),
       plan_input('2026-06-10T06:00:00.000Z', [goal()], {G1: {'times': [90]}}, days=1, profile=DS3),
       [],
       # Before: 01:30 on 06-10 is past at 07:00 local; after, Day 06-10's 01:30 is on 06-11.
       [due(G1, '2026-06-10', '01:30', utc('Europe/London', '2026-06-11', '01:30'))])
limit_before = plan_input(NOW, [goal(), goal(G2), goal(G3)], {g: {'times': [480]} for g in (G1, G2, G3)}, days=31)
limit_after = plan_input(NOW, [goal(), goal(G2), goal(G3)], {g: {'times': [480]} for g in (G1, G2, G3)}, [done('2026-06-10')],
                         days=31)
# Before: 93 reminders; the first 64 are the 21 Days 06-10 ... 06-30 for all three goals (63) and
# G1 of 07-01. After the tap on G1 today: 92, and the first 64 now reach G2 of 07-01.
change('a tap that frees a place lets the first left-out reminder in', ['REMIND-10', 'REMIND-11'],
       limit_before, limit_after, [g1_today['id']],
       [due(G2, '2026-07-01', '08:00', utc('Europe/London', '2026-07-01', '08:00'))])
change('a nudge that a tap removes', ['REMIND-6', 'REMIND-11'],
       plan_input(NOW, [goal()], {}, FIVE, person=RISK), plan_input(NOW, [goal()], {}, FIVE + [done('2026-06-10')],
                                                                     person=RISK),
       ['risk/%s/2026-06-10' % G1], [])

write_cases('reminders', 'plan.json', 'reminders.plan',
            'Reminder plans (REMIND-2 ... REMIND-10). Written by Tools/corpus/reminders_cases.py.', PLAN, 'plan')
write_cases('reminders', 'settings.json', 'reminders.plan',
            'Reminder settings refused and taken (REMIND-1). Written by Tools/corpus/reminders_cases.py.', SETTINGS,
            'settings')
write_cases('reminders', 'change.json', 'reminders.change',
            'Plans as changes (REMIND-11, REMIND-12). Written by Tools/corpus/reminders_cases.py.', CHANGE, 'change')
