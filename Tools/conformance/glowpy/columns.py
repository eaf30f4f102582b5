"""A goal's check-ins as the columns of one CheckInBlock (wire.md 3.4, WIRE-20 ... WIRE-24).

The stock runtime parses and serialises the block message itself (packed or not, in chunks or
not, WIRE-6); rebuilding the entries from its columns, and the columns from the entries, is the
format's own convention, which no protobuf library knows (wire.md 3.5, step 3).

The model value of a block is `{"goalID": ..., "checkIns": [...]}`, each check-in in its model
JSON; a check-in's `_unknown` member holds the unknown fields of the single CheckIn message, which
travel in the block's `extras` column (WIRE-23). A check-in that is not compact (MODEL-55) also
has its taps as columns, and its note's instant when that is not `modifiedAt` (WIRE-28).
"""
from collections import defaultdict

from . import checkins
from . import model as m
from .scan import check_flat

LOG_TYPES = m.LOGS                   # LogType: DONE, SKIP, AMOUNT, TALLY, ITEMS, VALUE
NUMBERED = ('amount', 'tally', 'value')
DAY_MS = 86_400_000


class Columns:
    """Reads the columns of one block in order; every problem is `invalid_value` at the block (WIRE-24)."""

    def __init__(self, reader, block, path):
        self.reader, self.block, self.path = reader, block, path

    def refuse(self, why):
        self.reader.refuse_record(f'the block\'s columns disagree: {why}', self.path)

    def per_entry(self, name, count, default=0):
        """WIRE-21: empty (every entry has the default) or exactly `count` values."""
        values = list(getattr(self.block, name))
        if not values:
            return [default] * count
        if len(values) != count:
            self.refuse(f'{name} has {len(values)} values for {count} entries')
        return values

    def sparse(self, name, count):
        """WIRE-23: the first entry's index, then the gaps (each at least 1) to the next ones."""
        indexes, index = [], None
        for value in getattr(self.block, name):
            if index is not None and value < 1:
                self.refuse(f'{name} has a gap of 0')
            index = value if index is None else index + value
            if index >= count:
                self.refuse(f'{name} names entry {index} of {count}')
            indexes.append(index)
        return indexes

    def table(self, name, check=None):
        table = list(getattr(self.block, name))
        for entry in table:
            if check:
                check(entry)
        return table

    def refs(self, refs_name, values, table):
        """Indexes into a table (zone_refs, device_refs, and the taps' refs): each within it."""
        for ref in values:
            if ref >= len(table):
                self.refuse(f'{refs_name} names entry {ref} of a table of {len(table)}')
        return [table[ref] for ref in values]

    def uuid16(self, raw):
        if len(raw) != 16:
            self.refuse(f'a table identifier of {len(raw)} bytes')


def read_block(reader, block, path=()):
    """WIRE-20 ... WIRE-24: the check-ins of a block, each checked by the model's rules."""
    c = Columns(reader, block, path)
    goal = reader.uuid(block.goal_id, path + ((1, None),), 'a goal id')
    count = block.count
    gaps = list(block.day_gaps)                              # WIRE-18: lengths first, nothing allocated
    if len(gaps) != max(count - 1, 0):
        c.refuse(f'{len(gaps)} Day gaps for {count} entries')
    if count == 0:
        empty = all(len(getattr(block, f.name)) == 0 for f in block.DESCRIPTOR.fields if f.label == f.LABEL_REPEATED)
        if not empty:
            c.refuse('an empty block with columns')
        return reader.keep_unknown({'goalID': goal, 'checkIns': []}, path)
    days = [block.first_day]
    for gap in gaps:
        if gap < 1:
            c.refuse('a Day gap of 0')
        days.append(days[-1] + gap)
    for day in (days[0], days[-1]):                         # the Days ascend: the ends bound them all
        if not m.MIN_DAY <= day <= m.MAX_DAY:
            c.refuse(f'Day {day} is out of range')
    logs = entry_logs(c, block, count)
    seconds = running_sums(c.per_entry('first_seconds', count))
    millis = c.per_entry('first_millis', count)
    if any(ms >= 1000 for ms in millis):
        c.refuse('first_millis of 1000 or more')
    after_first = c.per_entry('last_after_first', count)
    after_last = c.per_entry('modified_after_last', count)
    zone_table, device_table = c.table('zone_table'), c.table('device_table', c.uuid16)
    zones = c.refs('zone_refs', c.per_entry('zone_refs', count), zone_table)
    devices = c.refs('device_refs', c.per_entry('device_refs', count), device_table)
    deleted = set(c.sparse('deleted_gaps', count))
    notes = dict(zip_sparse(c, 'note_gaps', 'notes', count))
    extras = dict(zip_sparse(c, 'extra_gaps', 'extras', count))
    taps = entry_taps(c, block, count, days, zone_table, device_table)
    notes_before = dict(zip_sparse(c, 'note_at_gaps', 'note_at_before', count))
    entries = []
    for i in range(count):
        first = days[i] * DAY_MS + 1000 * seconds[i] + millis[i]        # WIRE-22
        last = first + after_first[i]
        modified = last + after_last[i]
        noted = modified - notes_before.get(i, 0)                       # WIRE-28: modified_at minus the note's instant
        if not all(m.MIN_MS <= t <= m.MAX_MS for t in (first, last, modified, noted)):
            c.refuse(f'entry {i} has an instant out of range')
        entry = {'goalID': goal, 'day': m.day_text(days[i]), 'log': logs[i], 'firstRecordedAt': m.instant_text(first),
                 'lastRecordedAt': m.instant_text(last), 'timeZone': zones[i], 'deviceID': m.uuid_text(devices[i]),
                 'modifiedAt': m.instant_text(modified), 'deleted': i in deleted}
        if i in notes:
            entry['note'] = notes[i]
        if i in taps:                                                   # WIRE-28: the taps decide
            entry['taps'] = taps[i]
        if i in notes_before:
            entry['noteAt'] = m.instant_text(noted)
        if extras.get(i):
            if not check_flat(extras[i]):
                c.refuse(f'the extras of entry {i} are not fields')
            entry['_unknown'] = extras[i]
        entries.append(reader.validated(checkins.checkin_json, entry, path))   # WIRE-24 / WIRE-28: the check-in rules
    return reader.keep_unknown({'goalID': goal, 'checkIns': entries}, path)


def entry_taps(c, block, count, days, zone_table, device_table):
    """WIRE-28: the taps of the entries that list them, as tap JSON by entry index.

    `tap_gaps` names the entries (sparse, WIRE-23) and `tap_counts` how many taps each has
    (1 ... 10,000); each per-tap column is empty (every tap has its default) or holds one value per
    tap, in entry order and each entry's taps in their order. Seconds are delta-coded within each
    entry from its Day's UTC midnight; a device's taps in an entry are numbered 0, 1, 2 ... when
    `tap_sequences` is empty. ADD, COUNT and VALUE taps take the next `tap_numbers` value; CHECK
    and UNCHECK taps a count and that many `item_table` indexes from `tap_item_refs`. Anything that
    does not add up is `invalid_value` at the block's start."""
    indexes = c.sparse('tap_gaps', count)
    counts = list(block.tap_counts)
    if len(counts) != len(indexes):
        c.refuse(f'{len(counts)} tap_counts for {len(indexes)} entries with taps')
    if any(not 1 <= n <= checkins.MAX_TAPS for n in counts):
        c.refuse('an entry with no taps or more than 10,000')
    total = sum(counts)              # the scan held it to ten taps per check-in a block may hold

    def per_tap(name):
        values = list(getattr(block, name))
        if values and len(values) != total:
            c.refuse(f'{name} has {len(values)} values for {total} taps')
        return values or [0] * total
    sequences = list(block.tap_sequences)
    if sequences and len(sequences) != total:
        c.refuse(f'tap_sequences has {len(sequences)} values for {total} taps')
    devices = c.refs('tap_device_refs', per_tap('tap_device_refs'), device_table)
    zones = c.refs('tap_zone_refs', per_tap('tap_zone_refs'), zone_table)
    seconds, millis, spans, types = (per_tap(name) for name in ('tap_seconds', 'tap_millis', 'tap_spans', 'tap_types'))
    numbers, refs, table = iter(block.tap_numbers), iter(block.tap_item_refs), list(block.item_table)
    out, k = {}, 0
    for entry, n in zip(indexes, counts):
        running, numbered, taps = 0, defaultdict(int), []
        for _ in range(n):
            if millis[k] >= 1000:
                c.refuse('a tap_millis of 1000 or more')
            if not 0 <= types[k] < len(checkins.ACTIONS):
                c.refuse(f'tap type {types[k]} is not one this version knows')
            running += seconds[k]
            at = days[entry] * DAY_MS + 1000 * running + millis[k]
            first = at - spans[k]
            if not (m.MIN_MS <= first and at <= m.MAX_MS):
                c.refuse(f'a tap of entry {entry} has an instant out of range')
            device = m.uuid_text(devices[k])
            sequence = sequences[k] if sequences else numbered[device]
            numbered[device] += 1
            tap = {'deviceID': device, 'sequence': sequence, 'at': m.instant_text(at), 'timeZone': zones[k],
                   'action': tap_action(c, checkins.ACTIONS[types[k]], numbers, refs, table)}
            if first != at:
                tap['firstAt'] = m.instant_text(first)
            taps.append(tap)
            k += 1
        out[entry] = taps
    if next(numbers, None) is not None:
        c.refuse('too many tap_numbers')
    if next(refs, None) is not None:
        c.refuse('too many tap_item_refs')
    return out


def tap_action(c, kind, numbers, refs, table):
    """A tap's action from its type and, for ADD, COUNT and VALUE, the next tap number (amounts
    within MODEL-17's limit), for CHECK and UNCHECK its items."""
    if kind in ('add', 'count', 'value'):
        value = next(numbers, None)
        if value is None:
            c.refuse('too few tap_numbers')
        if kind == 'count':
            return {'type': kind, 'count': value}
        if abs(value) > m.MAX_AMOUNT:
            c.refuse(f'a tap amount of {value} thousandths')
        return {'type': kind, 'amount' if kind == 'add' else 'value': m.amount_text(value)}
    if kind in ('check', 'uncheck'):
        return {'type': kind, 'items': checked_items(c, refs, table, 'tap_item_refs')}
    return {'type': kind}


def entry_logs(c, block, count):
    """WIRE-21: each entry's log from log_types, log_numbers, item_refs and item_table."""
    types = c.per_entry('log_types', count)
    numbers, refs = iter(block.log_numbers), iter(block.item_refs)
    table = list(block.item_table)
    for raw in table:
        c.uuid16(raw)
    logs = []
    for t in types:
        if not 0 <= t < len(LOG_TYPES):                     # WIRE-7: an open enum, but an entry needs
            c.refuse(f'log type {t} is not one this version knows')     # a log this version can judge
        kind = LOG_TYPES[t]
        if kind in NUMBERED:
            value = next(numbers, None)
            if value is None:
                c.refuse('too few log_numbers')
            logs.append(numbered_log(c, kind, value))
        elif kind == 'items':
            logs.append({'type': 'items', 'items': checked_items(c, refs, table)})
        else:
            logs.append({'type': kind})
    if next(numbers, None) is not None:
        c.refuse('too many log_numbers')
    if next(refs, None) is not None:
        c.refuse('too many item_refs')
    return logs


def numbered_log(c, kind, value):
    if kind == 'tally':
        if not 0 <= value <= m.MAX_TALLY:
            c.refuse(f'a tally of {value}')
        return {'type': 'tally', 'count': value}
    if abs(value) > m.MAX_AMOUNT:
        c.refuse(f'an amount of {value} thousandths')
    return {'type': kind, kind: m.amount_text(value)}


def checked_items(c, refs, table, name='item_refs'):
    """An ITEMS entry (or a CHECK or UNCHECK tap): its number of items, then that many indexes into
    the table (each grows the entry only as the column is consumed, WIRE-18)."""
    n = next(refs, None)
    if n is None:
        c.refuse(f'too few {name}')
    items = []
    for _ in range(n):
        ref = next(refs, None)
        if ref is None:
            c.refuse(f'too few {name}')
        if ref >= len(table):
            c.refuse(f'item index {ref} of a table of {len(table)}')
        items.append(m.uuid_text(table[ref]))
    if len(set(items)) != len(items):
        c.refuse('an item checked twice')
    return sorted(items)


def running_sums(deltas):
    total, out = 0, []
    for delta in deltas:
        total += delta
        out.append(total)
    return out


def zip_sparse(c, gaps_name, values_name, count):
    indexes = c.sparse(gaps_name, count)
    values = list(getattr(c.block, values_name))
    if len(values) != len(indexes):
        c.refuse(f'{len(values)} {values_name} for {len(indexes)} entries')
    return zip(indexes, values)


def block_json(value, path='$'):
    """The JSON form of a block's model value: the goal and its check-ins in their model JSON."""
    m.typed(value, 'dict', path)
    goal = m.scalar(m.parse_uuid, m.need(value, 'goalID', 'str', path), path + '.goalID')
    entries = [checkins.checkin_json(c, f'{path}.checkIns[{i}]') for i, c in enumerate(m.need(value, 'checkIns', 'list', path))]
    return {'goalID': goal, 'checkIns': entries}


# ---- Writing: one canonical block (WIRE-20 ... WIRE-23)

def write_block(writer, value, block, path=()):
    """The columns of a goal's check-ins, in ascending Day order; a per-entry column is written only
    when some entry differs from its default, tables list their entries in order of first use."""
    entries = sorted(value['checkIns'], key=lambda e: m.parse_day(e['day']))
    block.goal_id = m.uuid_bytes(value['goalID'])
    writer.keep(value, path)
    if not entries:
        return block
    days = [m.parse_day(e['day']) for e in entries]
    if any(e['goalID'] != value['goalID'] for e in entries) or len(set(days)) != len(days):
        raise m.Failure('invalid_value', 'a block holds one check-in per Day of one goal (WIRE-20)')
    block.count = len(entries)
    block.first_day = days[0]
    block.day_gaps.extend(b - a for a, b in zip(days, days[1:]))
    types = [LOG_TYPES.index(e['log']['type']) for e in entries]
    put(block.log_types, types)
    for e in entries:
        log = e['log']
        if log['type'] in NUMBERED:
            block.log_numbers.append(log['count'] if log['type'] == 'tally' else m.parse_amount(log[log['type']]))
        elif log['type'] == 'items':
            items = sorted(log['items'])
            block.item_refs.append(len(items))
            block.item_refs.extend(first_use(block.item_table, m.uuid_bytes(i)) for i in items)
    firsts = [m.parse_instant(e['firstRecordedAt']) for e in entries]
    lasts = [m.parse_instant(e['lastRecordedAt']) for e in entries]
    seconds = [(f - d * DAY_MS) // 1000 for f, d in zip(firsts, days)]
    put(block.first_seconds, [s - p for s, p in zip(seconds, [0] + seconds)])
    put(block.first_millis, [(f - d * DAY_MS) % 1000 for f, d in zip(firsts, days)])
    put(block.last_after_first, [l - f for f, l in zip(firsts, lasts)])
    put(block.modified_after_last, [m.parse_instant(e['modifiedAt']) - l for e, l in zip(entries, lasts)])
    put(block.zone_refs, [first_use(block.zone_table, e['timeZone']) for e in entries])
    put(block.device_refs, [first_use(block.device_table, m.uuid_bytes(e['deviceID'])) for e in entries])
    block.deleted_gaps.extend(gaps_of([i for i, e in enumerate(entries) if e['deleted']]))
    noted = [i for i, e in enumerate(entries) if 'note' in e]
    block.note_gaps.extend(gaps_of(noted))
    block.notes.extend(entries[i]['note'] for i in noted)
    extra = [i for i, e in enumerate(entries) if e.get('_unknown')]
    block.extra_gaps.extend(gaps_of(extra))
    block.extras.extend(entries[i]['_unknown'] for i in extra)
    write_taps(block, entries, days)
    return block


def write_taps(block, entries, days):
    """WIRE-28: the taps of the entries that are not compact, as columns; each per-tap column is
    written only when some tap differs from its default, and the taps' devices, zones and items
    extend the tables after the entries' own (which `write_block` has listed already)."""
    tapped = [i for i, e in enumerate(entries) if 'taps' in e]
    columns = defaultdict(list)
    for i in tapped:
        taps = [checkins.tap_json(t, '$') for t in entries[i]['taps']]
        block.tap_counts.append(len(taps))
        previous, numbered = 0, defaultdict(int)
        for tap in taps:
            seconds, millis = divmod(tap['at'] - days[i] * DAY_MS, 1000)
            columns['tap_device_refs'].append(first_use(block.device_table, m.uuid_bytes(tap['deviceID'])))
            columns['tap_sequences'].append(tap['sequence'])
            columns['default_sequences'].append(numbered[tap['deviceID']])
            numbered[tap['deviceID']] += 1
            columns['tap_seconds'].append(seconds - previous)
            previous = seconds
            columns['tap_millis'].append(millis)
            columns['tap_spans'].append(tap['at'] - tap['firstAt'])
            columns['tap_zone_refs'].append(first_use(block.zone_table, tap['timeZone']))
            action = tap['action']
            columns['tap_types'].append(checkins.ACTIONS.index(action['type']))
            if action['type'] in ('add', 'value'):
                block.tap_numbers.append(action['amount' if action['type'] == 'add' else 'value'])
            elif action['type'] == 'count':
                block.tap_numbers.append(action['count'])
            elif action['type'] in ('check', 'uncheck'):
                block.tap_item_refs.append(len(action['items']))
                block.tap_item_refs.extend(first_use(block.item_table, m.uuid_bytes(item)) for item in action['items'])
    block.tap_gaps.extend(gaps_of(tapped))
    for name in ('tap_device_refs', 'tap_seconds', 'tap_millis', 'tap_spans', 'tap_zone_refs', 'tap_types'):
        put(getattr(block, name), columns[name])
    if columns['tap_sequences'] != columns['default_sequences']:
        block.tap_sequences.extend(columns['tap_sequences'])
    noted = [i for i, e in enumerate(entries) if 'noteAt' in e]
    block.note_at_gaps.extend(gaps_of(noted))
    block.note_at_before.extend(m.parse_instant(entries[i]['modifiedAt']) - m.parse_instant(entries[i]['noteAt']) for i in noted)


def put(column, values):
    """WIRE-21: a per-entry column is empty when every value is the default (0)."""
    if any(values):
        column.extend(values)


def first_use(table, value):
    """The index of a value in a table listed in order of first use, adding it when new."""
    for i, existing in enumerate(table):
        if existing == value:
            return i
    table.append(value)
    return len(table) - 1


def gaps_of(indexes):
    """WIRE-23: a sparse column's values: the first index, then the gaps."""
    return [b - a for a, b in zip([0] + indexes, indexes)] if indexes else []
