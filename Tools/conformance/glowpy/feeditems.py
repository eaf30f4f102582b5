"""Section 8.10 of the spec (Spec/feed.md): items from a person's data. A person's items as of
their Day T are derived from their data set and the streak rules (FEED-22), and a device publishes
them into its replica of the feed (FEED-23). The corpus operations `feed.derive`
(Spec/corpus/feed/derive.json) and `feed.publish` (Spec/corpus/feed/publish.json).

Written from the spec text alone, on the modules that already implement what it builds on: the
data set's JSON form (`dataset.read_data`, BUNDLE-17), the streak rules (`streaks.Evaluation`:
statuses, current streaks, milestones, completion), Days and instants (`model`: MODEL-10,
MODEL-12), and items, replicas and clocks (`feed`: FEED-2, FEED-6, FEED-7, FEED-8, FEED-16).

Choices where the text leaves room (none of them is exercised by the corpus):

- a goal with no visibility register reads as `private` (FEED-8), so publishing a private goal
  that was never published writes nothing for it (FEED-23's "whose register differs");
- a `goalCompleted` item carries the Day it was done as its `day` (FEED-22: "with the Day it was
  done"); it is not part of its id (FEED-6);
- a Day's first instant is MODEL-12's earliest instant whose wall reading reaches the Day's start,
  under the profile's day boundary, also for a Day the zone skipped;
- the check-in that times an item is the Day's stored record (its `lastRecordedAt`); an item with
  a time before 1970 (a goal created then, say) breaks FEED-6 and is not derived.
"""
from . import dataset
from . import feed
from . import model as m
from . import streaks
from .errors import Failure

WINDOW = 29                 # FEED-22: check-in items for the Days T − 29 ... T


def order_key(entry):
    """FEED-16: newest first, by time, then by id as UTF-8 bytes (used with reverse=True)."""
    item_id, item = entry
    return (item['time'], item_id.encode('utf-8'))


def first_instant(boundary, day):
    """MODEL-12: the first instant of a Day under the day boundary, in milliseconds."""
    return m.start_of(boundary['timeZone'], day * 86400 + boundary['dayStartMinutes'] * 60) * 1000


def checked(candidate):
    """FEED-6: the candidate as an item and its id, or None when it would break FEED-6 (a title
    longer than 200 bytes, a time before 1970, an owner that is empty or too long ...)."""
    try:
        return feed.parse_item(candidate)
    except Failure as failure:
        if failure.code == 'invalid_item':
            return None
        raise


def derive(data, owner, today):
    """FEED-22: the owner's items as of their Day `today`, as (id, item) in FEED-16's order. `data`
    is a dataset.DataSet with a profile, whose day boundary and week start apply."""
    boundary = data.profile['boundary']
    week_start = boundary['weekStart']
    records = [{'goalID': c['goalID'], 'day': m.parse_day(c['day']), 'log': c['log'], 'deleted': c['deleted']}
               for c in data.entries.values()]
    derived = {}

    for raw in data.goals.values():
        if raw['deleted'] or raw['visibility'] == 'private':
            continue
        goal = streaks.Goal(raw)
        base = {'owner': owner, 'goal': goal.id, 'title': raw['title'], 'emoji': raw.get('emoji', ''),
                'goalKind': raw['kind']['type']}
        as_of_today = streaks.Evaluation(goal, records, week_start, today)

        def record(day):
            return data.entries.get((goal.id, m.day_text(day)))

        def timed(day):
            """The last recorded instant of the Day's check-in, or the Day's first instant."""
            entry = record(day)
            return m.parse_instant(entry['lastRecordedAt']) if entry is not None else first_instant(boundary, day)

        candidates = [dict(base, kind='goalStarted', time=goal.created)]

        # Check-ins of the last 30 Days whose status as of T is done, with the current streak as of
        # their Day (STREAK-15), or none when no streak runs.
        days = sorted(m.parse_day(day) for gid, day in data.entries if gid == goal.id)
        for day in days:
            entry = record(day)
            if not today - WINDOW <= day <= today or entry['deleted']:
                continue
            if as_of_today.status_on(day) != 'done':
                continue
            item = dict(base, kind='checkIn', day=m.day_text(day), time=m.parse_instant(entry['lastRecordedAt']))
            current = streaks.Evaluation(goal, records, week_start, day).streaks()[1]
            if current:
                item['streak'] = len(current)
            candidates.append(item)

        # Every milestone the goal's streaks have reached as of T (STREAK-20), on the Day reached.
        for reached in as_of_today.milestones():
            day = m.parse_day(reached['reachedOn'])
            candidates.append(dict(base, kind='milestone', day=reached['reachedOn'], time=timed(day),
                                   streak=reached['milestone'], milestone=reached['milestone'],
                                   streakStart=reached['streakStart']))

        # A one-off goal done as of T (STREAK-13, STREAK-22): completed on the Day it was done.
        completion = as_of_today.completion()
        if completion is not None and completion['done']:
            day = m.parse_day(completion['doneOn'])
            candidates.append(dict(base, kind='goalCompleted', day=completion['doneOn'], time=timed(day)))

        for candidate in candidates:
            result = checked(candidate)
            if result is not None:
                derived[result[0]] = result[1]

    return sorted(derived.items(), key=order_key, reverse=True)


def publish(replica, clock, owner, data, today, now):
    """FEED-23: the owner's derivation written into the replica, each write stamped by the device's
    clock at physical time `now` (FEED-2); answers the number of writes."""
    writes = 0

    def stamp():
        nonlocal writes
        writes += 1
        return clock.tick(now)

    # The visibility of each goal that is not deleted, where the register differs (FEED-8: a goal
    # with no register is private).
    for gid in sorted(data.goals):
        goal = data.goals[gid]
        if goal['deleted']:
            continue
        held = replica.visibility.get((owner, gid))
        if (held[1] if held else 'private') != goal['visibility']:
            replica.write_visibility(owner, gid, goal['visibility'], stamp())

    # Each derived item its register does not already hold, equal in every field (FEED-7).
    derived = derive(data, owner, today)
    for item_id, item in derived:
        held = replica.items.get(item_id)
        if held is None or held[1] != item:
            replica.write_item(item_id, item, stamp())

    # The withdrawal of each of the owner's items the derivation no longer gives, but for check-ins
    # whose Day lies before T − 29, which the derivation no longer looks at.
    given = {item_id for item_id, _ in derived}
    for item_id in sorted(replica.items):
        item = replica.items[item_id][1]
        if item is None or item['owner'] != owner or item_id in given:
            continue
        if item['kind'] == 'checkIn' and m.parse_day(item['day']) < today - WINDOW:
            continue
        replica.write_item(item_id, None, stamp())
    return writes


# ---- The operations

def read_set(value, path):
    """A data set in the spec's JSON form (BUNDLE-17), with the profile whose boundary applies."""
    data = dataset.DataSet(dataset.read_data(value, path))
    if data.profile is None:
        raise feed.bad_input('the data set has no profile, whose day boundary applies')
    return data


def read_common(inp):
    owner = inp.get('owner')
    if not isinstance(owner, str):
        raise feed.bad_input('owner is an account id')
    today = m.scalar(m.parse_day, m.need(inp, 'today', 'str', '$'), '$.today')
    return owner, today


def item_json(item_id, item):
    """An item as the corpus writes it: id, kind, time, title, emoji, goalKind, and its day, streak,
    milestone and streakStart when it has them."""
    out = {'id': item_id}
    for key in ('kind', 'time', 'title', 'emoji', 'goalKind', 'day', 'streak', 'milestone', 'streakStart'):
        if key in item:
            out[key] = item[key]
    return out


def derive_operation(inp):
    """feed.derive: the items of `dataSet` for `owner` as of `today` (FEED-22), in FEED-16's order."""
    owner, today = read_common(inp)
    data = read_set(m.need(inp, 'dataSet', 'dict', '$'), '$.dataSet')
    return {'items': [item_json(item_id, item) for item_id, item in derive(data, owner, today)]}


def publish_operation(inp):
    """feed.publish: each set published in turn by the owner's device into one replica, the clock at
    physical time `now` plus the set's index; per set the writes, the owner's items not withdrawn
    (FEED-16's order) and the ids of withdrawn items, sorted."""
    owner, today = read_common(inp)
    device = inp.get('device')
    if not isinstance(device, str):
        raise feed.bad_input('device is a device id')
    if not device:
        raise Failure('invalid_stamp', 'a stamp names its device')          # FEED-1
    now = inp.get('now')
    sets = m.need(inp, 'sets', 'list', '$')
    replica, clock, publications = feed.Replica(), feed.Clock(device), []
    for index, value in enumerate(sets):
        data = read_set(value, f'$.sets[{index}]')
        at = feed.physical(now + index if feed.is_int(now) else now)
        writes = publish(replica, clock, owner, data, today, at)
        mine = [(item_id, item) for item_id, (_, item) in replica.items.items()
                if item is not None and item['owner'] == owner]
        withdrawn = [item_id for item_id, (_, item) in replica.items.items() if item is None]
        publications.append({'writes': writes,
                             'items': [item_id for item_id, _ in sorted(mine, key=order_key, reverse=True)],
                             'withdrawn': sorted(withdrawn, key=lambda i: i.encode('utf-8'))})
    return {'publications': publications}


OPERATIONS = {
    'feed.derive': derive_operation,
    'feed.publish': publish_operation,
}
