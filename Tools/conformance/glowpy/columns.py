"""A goal's check-ins as the columns of one CheckInBlock (wire.md 3.4, WIRE-20 ... WIRE-24).

The stock runtime parses and serialises the block message itself (packed or not, in chunks or
not, WIRE-6); rebuilding the entries from its columns, and the columns from the entries, is the
format's own convention, which no protobuf library knows (wire.md 3.5, step 3).

The model value of a block is `{"goalID": ..., "checkIns": [...]}`, each check-in in its model
JSON; a check-in's `_unknown` member holds the unknown fields of the single CheckIn message, which
travel in the block's `extras` column (WIRE-23).
"""
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

    def table(self, name, refs_name, count, check=None):
        table = list(getattr(self.block, name))
        for entry in table:
            if check:
                check(entry)
        refs = self.per_entry(refs_name, count)
        for ref in refs:
            if ref >= len(table):
                self.refuse(f'{refs_name} names entry {ref} of a table of {len(table)}')
        return [table[ref] for ref in refs]

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
    zones = c.table('zone_table', 'zone_refs', count)
    devices = c.table('device_table', 'device_refs', count, c.uuid16)
    deleted = set(c.sparse('deleted_gaps', count))
    notes = dict(zip_sparse(c, 'note_gaps', 'notes', count))
    extras = dict(zip_sparse(c, 'extra_gaps', 'extras', count))
    checkins = []
    for i in range(count):
        first = days[i] * DAY_MS + 1000 * seconds[i] + millis[i]        # WIRE-22
        last = first + after_first[i]
        modified = last + after_last[i]
        if not all(m.MIN_MS <= t <= m.MAX_MS for t in (first, last, modified)):
            c.refuse(f'entry {i} has an instant out of range')
        entry = {'goalID': goal, 'day': m.day_text(days[i]), 'log': logs[i], 'firstRecordedAt': m.instant_text(first),
                 'lastRecordedAt': m.instant_text(last), 'timeZone': zones[i], 'deviceID': m.uuid_text(devices[i]),
                 'modifiedAt': m.instant_text(modified), 'deleted': i in deleted}
        if i in notes:
            entry['note'] = notes[i]
        if extras.get(i):
            if not check_flat(extras[i]):
                c.refuse(f'the extras of entry {i} are not fields')
            entry['_unknown'] = extras[i]
        checkins.append(reader.validated(m.checkin_json, entry, path))     # WIRE-24: the check-in rules
    return reader.keep_unknown({'goalID': goal, 'checkIns': checkins}, path)


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


def checked_items(c, refs, table):
    """An ITEMS entry: its number of items, then that many indexes into the table (each grows the
    entry only as the column is consumed, WIRE-18)."""
    n = next(refs, None)
    if n is None:
        c.refuse('too few item_refs')
    items = []
    for _ in range(n):
        ref = next(refs, None)
        if ref is None:
            c.refuse('too few item_refs')
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
    checkins = [m.checkin_json(c, f'{path}.checkIns[{i}]') for i, c in enumerate(m.need(value, 'checkIns', 'list', path))]
    return {'goalID': goal, 'checkIns': checkins}


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
    return block


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
