#!/usr/bin/env python3
"""Writes Spec/corpus/feed/derive.json (FEED-22): the items a person's data gives.

Each data set is small and its items are listed by hand from FEED-22 and the streak rules:
which Days are done, how long the streak is as of each, which milestones (3, 7, ...) it reached
and when, all in UTC with the day starting at midnight. The generator only lays them out.
"""

from corpus_file import write_cases, command_line

command_line(__doc__)

DEVICE = '01938a6e-7c00-7abc-8def-00000000d001'
OWNER = 'mia'
PROFILE = {'boundary': {'dayStartMinutes': 0, 'timeZone': 'UTC', 'weekStart': 'monday'},
           'createdAt': '2026-01-01T00:00:00.000Z', 'displayName': 'Mia', 'interests': [],
           'modifiedAt': '2026-01-01T00:00:00.000Z', 'themeID': 'default',
           'userID': '01938a6e-7c00-7abc-8def-0000000000aa'}
G1 = '019376ef-1400-75d7-844c-3cd7f43c661c'
G2 = '019376ef-1400-75d8-a698-4080bab12a02'


def goal(gid, title, visibility='friends', start='2026-11-20', kind=None, deleted=False, emoji='🧘', schedule=True):
    g = {'archiveHistory': [], 'createdAt': start + 'T08:00:00.000Z', 'deleted': deleted, 'id': gid,
         'kind': kind or {'type': 'streak'}, 'modifiedAt': start + 'T08:00:00.000Z', 'startDay': start,
         'title': title, 'visibility': visibility}
    if emoji:
        g['emoji'] = emoji
    if schedule:
        g['schedule'] = [{'effective': start, 'rule': {'type': 'daily'}}]
    return g


def check(gid, day, deleted=False, hour='07'):
    at = '%sT%s:00:00.000Z' % (day, hour)
    return {'day': day, 'deleted': deleted, 'deviceID': DEVICE, 'firstRecordedAt': at, 'goalID': gid,
            'lastRecordedAt': at, 'log': {'type': 'done'}, 'modifiedAt': at, 'timeZone': 'UTC'}


def ms(day, hour):
    import datetime
    d = datetime.datetime.fromisoformat(day + 'T%02d:00:00+00:00' % hour)
    return int(d.timestamp() * 1000)


def started(gid, title, start='2026-11-20', emoji='🧘', kind='streak'):
    return {'id': '%s/goalStarted/%s' % (OWNER, gid), 'kind': 'goalStarted', 'time': ms(start, 8), 'title': title,
            'emoji': emoji, 'goalKind': kind}


def checkin(gid, title, day, streak=None, emoji='🧘', kind='streak'):
    item = {'id': '%s/checkIn/%s/%s' % (OWNER, gid, day), 'kind': 'checkIn', 'time': ms(day, 7), 'title': title,
            'emoji': emoji, 'goalKind': kind, 'day': day}
    if streak is not None:
        item['streak'] = streak
    return item


def milestone(gid, title, day, n, start):
    return {'id': '%s/milestone/%s/%d/%s' % (OWNER, gid, n, start), 'kind': 'milestone', 'time': ms(day, 7),
            'title': title, 'emoji': '🧘', 'goalKind': 'streak', 'day': day, 'streak': n, 'milestone': n,
            'streakStart': start}


def days(first, last):
    import datetime
    d = datetime.date.fromisoformat(first)
    out = []
    while d <= datetime.date.fromisoformat(last):
        out.append(d.isoformat())
        d += datetime.timedelta(days=1)
    return out


cases = []


def case(comment, rules, goals, checkins, today, items):
    cases.append({'comment': comment, 'rules': rules, 'flags': ['Required'],
                  'input': {'dataSet': {'profile': PROFILE, 'goals': goals, 'checkIns': checkins}, 'owner': OWNER,
                            'today': today},
                  'result': 'valid', 'expected': {'items': items}})


M = 'Meditate'
eight = days('2026-11-20', '2026-11-27')
# Done 20 ... 27, today the 28th (pending). Streak as of D is D − 20 + 1. Milestones 3 (reached the
# 22nd) and 7 (the 26th), streak starting the 20th. Newest first by time, then id: on the 26th and
# 22nd the milestone ("mia/milestone/...") sorts above the check-in ("mia/checkIn/...") at 07:00;
# the goal started at 08:00 on the 20th, after that Day's check-in.
expected = []
for d in reversed(eight):
    n = int(d[-2:]) - 19
    if d == '2026-11-26':
        expected.append(milestone(G1, M, d, 7, '2026-11-20'))
    if d == '2026-11-22':
        expected.append(milestone(G1, M, d, 3, '2026-11-20'))
    if d == '2026-11-20':
        expected.append(started(G1, M))
    expected.append(checkin(G1, M, d, n))
case('eight done Days: a check-in item each with its streak, milestones 3 and 7, the start', ['FEED-22'],
     [goal(G1, M)], [check(G1, d) for d in eight], '2026-11-28', expected)
case('a private goal and a deleted goal give nothing', ['FEED-22'],
     [goal(G1, M, visibility='private'), goal(G2, 'Run', deleted=True)],
     [check(G1, d) for d in eight] + [check(G2, d) for d in eight], '2026-11-28', [])
# Undone on the 25th: 20 ... 24 done (streaks 1 ... 5, milestone 3 on the 22nd), the 25th missed,
# 26 and 27 done (streaks 1 and 2).
broken = []
for d in reversed(eight):
    if d == '2026-11-25':
        continue
    n = int(d[-2:]) - 19 if d <= '2026-11-24' else int(d[-2:]) - 25
    if d == '2026-11-22':
        broken.append(milestone(G1, M, d, 3, '2026-11-20'))
    if d == '2026-11-20':
        broken.append(started(G1, M))
    broken.append(checkin(G1, M, d, n))
case('an undone check-in gives no item and breaks the streak', ['FEED-22'],
     [goal(G1, M, visibility='public')], [check(G1, d, deleted=(d == '2026-11-25')) for d in eight], '2026-11-28', broken)
# As of 2026-12-31 the window is 12-02 ... 12-31: no check-in items; the milestones stay reached.
case('check-ins before the 30-Day window give no items; milestones reached stay', ['FEED-22'],
     [goal(G1, M)], [check(G1, d) for d in eight], '2026-12-31',
     [milestone(G1, M, '2026-11-26', 7, '2026-11-20'), milestone(G1, M, '2026-11-22', 3, '2026-11-20'), started(G1, M)])
# The window's first Day is T − 29: as of 12-19 that is the 20th itself, as of 12-20 the 21st.
case('the window is T − 29 ... T', ['FEED-22'], [goal(G1, M)], [check(G1, '2026-11-20')], '2026-12-19',
     [started(G1, M), checkin(G1, M, '2026-11-20', 1)])
case('a Day one past the window gives no item', ['FEED-22'], [goal(G1, M)], [check(G1, '2026-11-20')], '2026-12-20',
     [started(G1, M)])
case('a goal without an emoji', ['FEED-22'], [goal(G1, M, emoji=None)], [check(G1, '2026-11-20')], '2026-11-20',
     [started(G1, M, emoji=''), checkin(G1, M, '2026-11-20', 1, emoji='')])
case('a goal with nothing done yet gives its start only', ['FEED-22'], [goal(G1, M)], [], '2026-11-28', [started(G1, M)])

# FEED-23: publishing.
publications = []


def publish(comment, rules, sets, results):
    publications.append({'comment': comment, 'rules': rules, 'flags': ['Required'],
                         'input': {'owner': OWNER, 'today': '2026-11-28', 'device': 'mia-phone', 'now': 1796083200000,
                                   'sets': [{'profile': PROFILE, 'goals': g, 'checkIns': c} for g, c in sets]},
                         'result': 'valid', 'expected': {'publications': results}})


EIGHT = ([goal(G1, M)], [check(G1, d) for d in eight])
UNDONE = ([goal(G1, M, visibility='public')], [check(G1, d, deleted=(d == '2026-11-25')) for d in eight])
ids = [i['id'] for i in expected]
broken_ids = [i['id'] for i in broken]
MS7 = milestone(G1, M, '2026-11-26', 7, '2026-11-20')['id']
C25 = checkin(G1, M, '2026-11-25')['id']
# First: the goal's visibility and eleven items (eight check-ins, two milestones, the start).
publish('publishing twice from the same data writes nothing the second time', ['FEED-23'], [EIGHT, EIGHT],
        [{'writes': 12, 'items': ids, 'withdrawn': []}, {'writes': 0, 'items': ids, 'withdrawn': []}])
# Then the 25th undone and the goal made public: its visibility (1); the 26th and 27th with streaks
# 1 and 2 instead of 7 and 8 (2); the 25th's check-in and milestone 7 withdrawn (2).
publish('an undone check-in and a revoked milestone are withdrawn; changed items rewritten', ['FEED-23'],
        [EIGHT, UNDONE],
        [{'writes': 12, 'items': ids, 'withdrawn': []}, {'writes': 5, 'items': broken_ids, 'withdrawn': sorted([MS7, C25])}])
# A goal made private: its visibility (1), and its eleven items withdrawn, since the derivation no longer gives them.
PRIVATE = ([goal(G1, M, visibility='private')], [check(G1, d) for d in eight])
publish('a goal made private writes its visibility and withdraws its items', ['FEED-23', 'FEED-22'], [EIGHT, PRIVATE],
        [{'writes': 12, 'items': ids, 'withdrawn': []}, {'writes': 12, 'items': [], 'withdrawn': sorted(ids)}])
write_cases('feed', 'publish.json', 'feed.publish',
            'The data sets `sets` published in turn by `owner`\'s device `device` into one replica '
            'as of `today` (FEED-23), the clock at physical time `now` (plus the set\'s index); for '
            'each, how many writes it made, the owner\'s items not withdrawn in FEED-16\'s order, and '
            'the ids of withdrawn items, sorted.', publications, 'publish')
write_cases('feed', 'derive.json', 'feed.derive',
            'The items of the data set `dataSet` (with a profile, whose day boundary applies) for the '
            'person `owner` as of their Day `today` (FEED-22), in FEED-16\'s order; each item\'s id, '
            'kind, time, title, emoji, goalKind, and its day, streak, milestone and streakStart when it has '
            'them.', cases, 'derive')
print(len(cases), 'derive cases')
