"""Check-ins as the record of their taps (Spec/model.md 1.6: MODEL-33 ... MODEL-36, MODEL-52 ... MODEL-55).

A check-in is held, like every model value here, as its canonical JSON dict (MODEL-40): the
members that describe what its taps add up to (`log`, `firstRecordedAt`, `lastRecordedAt`,
`timeZone`, `deviceID`, `deleted`) always, and `taps` and `noteAt` only when it is not compact
(MODEL-55). Nothing is lost by that: a compact check-in's taps are exactly those its members stand
for, so `stored_taps` and `stored_note_at` read every check-in's taps and note instant back from
its dict, and `make` builds the dict from taps, deciding compactness by comparing the taps with
those of the compact form.

A tap, inside this module, is a dict with `deviceID` (text), `sequence`, `at` and `firstAt`
(milliseconds), `timeZone` and `action` (`{"type": ...}` with `amount` or `value` in thousandths,
`count`, or `items` in identifier order). Unknown fields of a wire `Tap` ride along as `_unknown`
(MODEL-49), as they do on every record.
"""
import functools

from . import model as m
from .errors import Failure

ACTIONS = ['done', 'skip', 'add', 'count', 'check', 'uncheck', 'value', 'undo']   # MODEL-52, TapType's order
MAX_TAPS = 10_000                                                                  # MODEL-52
MAX_SEQUENCE = 0xFFFFFFFF                                                          # MODEL-52: 0 ... 2^32 − 1


# ---- Taps in JSON (MODEL-52)

def action_json(a, path):
    """A tap's action: `add` and `value` carry `amount` and `value` (amounts as text), `count`
    carries `count`, `check` and `uncheck` carry `items` (read as a log's items are, MODEL-34)."""
    m.typed(a, 'dict', path)
    kind = m.enum(m.need(a, 'type', 'str', path), ACTIONS, path + '.type')
    if kind in ('add', 'value'):
        key = 'amount' if kind == 'add' else 'value'
        return {'type': kind, key: m.scalar(m.parse_amount, m.need(a, key, 'str', path), f'{path}.{key}')}
    if kind == 'count':
        return {'type': kind, 'count': m.need(a, 'count', 'int', path)}
    if kind in ('check', 'uncheck'):
        return {'type': kind, 'items': items_json(m.need(a, 'items', 'list', path), path + '.items')}
    return {'type': kind}


def items_json(values, path):
    ids = [m.scalar(m.parse_uuid, v, f'{path}[{i}]') for i, v in enumerate(values)]
    if len(set(ids)) != len(ids):
        raise Failure('invalid_json', path=path)
    return sorted(ids)


def tap_json(t, path):
    """MODEL-52: a tap; `firstAt` is `at` when absent and is never after it; a sequence is 0 ... 2^32 − 1."""
    m.typed(t, 'dict', path)
    device = m.scalar(m.parse_uuid, m.need(t, 'deviceID', 'str', path), path + '.deviceID')
    sequence = m.need(t, 'sequence', 'int', path)
    at = m.scalar(m.parse_instant, m.need(t, 'at', 'str', path), path + '.at')
    first = m.maybe(t, 'firstAt', 'str', path)
    first = at if first is None else m.scalar(m.parse_instant, first, path + '.firstAt')
    zone = m.scalar(m.check_zone, m.need(t, 'timeZone', 'str', path), path + '.timeZone')
    action = action_json(m.need(t, 'action', 'dict', path), path + '.action')
    if not 0 <= sequence <= MAX_SEQUENCE:
        raise Failure('invalid_check_in', path=path + '.sequence')
    if first > at:
        raise Failure('invalid_check_in', 'a tap\'s firstAt is after its at', path=path + '.firstAt')
    tap = {'deviceID': device, 'sequence': sequence, 'at': at, 'firstAt': first, 'timeZone': zone, 'action': action}
    if isinstance(t.get('_unknown'), bytes) and t['_unknown']:      # a wire Tap's unknown fields (MODEL-49)
        tap['_unknown'] = t['_unknown']
    return tap


def tap_text(tap):
    """The JSON form of a tap (MODEL-52): `firstAt` only when it differs from `at`."""
    action = dict(tap['action'])
    for key in ('amount', 'value'):
        if key in action:
            action[key] = m.amount_text(action[key])
    out = {'deviceID': tap['deviceID'], 'sequence': tap['sequence'], 'at': m.instant_text(tap['at']),
           'timeZone': tap['timeZone'], 'action': action}
    if tap['firstAt'] != tap['at']:
        out['firstAt'] = m.instant_text(tap['firstAt'])
    if tap.get('_unknown'):
        out['_unknown'] = tap['_unknown']
    return out


# ---- What taps add up to (MODEL-35, MODEL-53)

def order(tap):
    """MODEL-53: by `at`; at one instant an undo after the other taps; then by device (MODEL-15's
    byte order) and sequence."""
    return tap['at'], tap['action']['type'] == 'undo', m.uuid_bytes(tap['deviceID']), tap['sequence']


def fold(taps, strict):
    """MODEL-35: taps applied in order to no log. A tap of the log's sort combines with it (amounts
    and counts add, checked items join and unchecked ones leave, a value replaces, done stays
    done); one of another sort replaces it. A tally stops at 0 and 2^32 − 1. An amount sum beyond
    MODEL-17's limit is `invalid_amount` when a person taps (`strict`), and stops at the limit when
    taps from several devices meet in a merge, where nobody is there to refuse it."""
    log = None
    for tap in taps:
        action = tap['action']
        kind, same = action['type'], log['type'] if log else None
        if kind in ('done', 'skip'):
            log = {'type': kind}
        elif kind == 'add':
            total = (log['amount'] if same == 'amount' else 0) + action['amount']
            if abs(total) > m.MAX_AMOUNT:
                if strict:
                    raise Failure('invalid_amount', 'the Day\'s amount would pass the limit of MODEL-17')
                total = max(-m.MAX_AMOUNT, min(m.MAX_AMOUNT, total))
            log = {'type': 'amount', 'amount': total}
        elif kind == 'count':
            total = (log['count'] if same == 'tally' else 0) + action['count']
            log = {'type': 'tally', 'count': min(max(0, total), m.MAX_TALLY)}
        elif kind in ('check', 'uncheck'):
            items = set(log['items']) if same == 'items' else set()
            items = items | set(action['items']) if kind == 'check' else items - set(action['items'])
            log = {'type': 'items', 'items': sorted(items)}
        else:
            log = {'type': 'value', 'value': action['value']}
    if log['type'] in ('amount', 'value'):
        log[log['type']] = m.amount_text(log[log['type']])
    return log


def describe(taps, strict=False, path='$'):
    """MODEL-53: the taps in order and what they add up to. The visible taps are those after the last
    undo; when there are none the check-in is undone, and the members describe what the last undo
    hid: the taps after the undo before it. When two undos follow each other with nothing between
    them, MODEL-53 does not say what the last one describes; this goes back to the taps the earlier
    undo hid, so an undone check-in always describes some taps. MODEL-52: a check-in holds at least
    one tap that is not an undo."""
    ordered = sorted(taps, key=order)
    undos = [i for i, t in enumerate(ordered) if t['action']['type'] == 'undo']
    shown = ordered[undos[-1] + 1:] if undos else ordered
    deleted = not shown
    bounds = [-1] + undos
    k = len(undos)
    while not shown and k > 0:
        k -= 1
        shown = ordered[bounds[k] + 1:undos[k]]
    if not shown:
        raise Failure('invalid_check_in', 'a check-in of undos alone', path=path + '.taps')
    last = shown[-1]
    return ordered, {'log': fold(shown, strict), 'firstRecordedAt': min(t['firstAt'] for t in shown),
                     'lastRecordedAt': max(t['at'] for t in shown), 'timeZone': last['timeZone'],
                     'deviceID': last['deviceID'], 'deleted': deleted}


# ---- The compact form (MODEL-55)

def action_of(log):
    """MODEL-55: the one action that stands for a whole log."""
    kind = log['type']
    if kind == 'amount':
        return {'type': 'add', 'amount': m.parse_amount(log['amount'])}
    if kind == 'value':
        return {'type': 'value', 'value': m.parse_amount(log['value'])}
    if kind == 'tally':
        return {'type': 'count', 'count': log['count']}
    if kind == 'items':
        return {'type': 'check', 'items': sorted(log['items'])}
    return {'type': kind}


def compact_taps(device, zone, log, first, last, modified, deleted):
    """MODEL-55: the taps a compact check-in stands for: its device's tap 0 at `lastRecordedAt`
    (first at `firstRecordedAt`) whose action is the whole log, and when deleted that device's
    undo, sequence 1, at the later of `modifiedAt` and `lastRecordedAt`. MODEL-55 names no zone
    for the undo; it is taken to be the check-in's, the zone of its device's tap."""
    taps = [{'deviceID': device, 'sequence': 0, 'at': last, 'firstAt': first, 'timeZone': zone, 'action': action_of(log)}]
    if deleted:
        undo_at = max(modified, last)
        taps.append({'deviceID': device, 'sequence': 1, 'at': undo_at, 'firstAt': undo_at, 'timeZone': zone,
                     'action': {'type': 'undo'}})
    return taps


def make(goal, day, taps, note, note_at, modified, unknown=b'', strict=False, path='$'):
    """The canonical check-in of a (goal, Day) holding these taps and this note (MODEL-52 ... MODEL-55).

    MODEL-52: at most 10,000 taps, each identity (device, sequence) once. MODEL-53: `modifiedAt` is
    raised to the latest tap and the note's instant. MODEL-54, MODEL-55: the note instant is the
    instant the note was set or removed, and None when the check-in never had a note; left out, it
    is `modifiedAt` for a check-in with a note and None for one without. MODEL-55: a check-in whose taps and note are
    exactly those of its compact form is written without `taps` and `noteAt`; a tap that carries
    unknown fields of a wire Tap (MODEL-49) is not the compact form's, so they are not dropped."""
    if len(taps) > MAX_TAPS:
        raise Failure('invalid_check_in', f'{len(taps)} taps, above {MAX_TAPS}', path=path + '.taps')
    seen = set()
    for i, tap in enumerate(taps):
        identity = (tap['deviceID'], tap['sequence'])
        if identity in seen:
            raise Failure('invalid_check_in', 'a tap identity (device, sequence) twice', path=f'{path}.taps[{i}]')
        seen.add(identity)
    ordered, described = describe(taps, strict, path)
    modified = max([modified] + [t['at'] for t in taps] + ([note_at] if note_at is not None else []))
    if note_at is None and note is not None:
        note_at = modified
    implied = modified if note is not None else None     # what leaving `noteAt` out means
    out = {'goalID': goal, 'day': day, 'log': described['log'],
           'firstRecordedAt': m.instant_text(described['firstRecordedAt']),
           'lastRecordedAt': m.instant_text(described['lastRecordedAt']),
           'timeZone': described['timeZone'], 'deviceID': described['deviceID'],
           'modifiedAt': m.instant_text(modified), 'deleted': described['deleted']}
    if note is not None:
        out['note'] = note
    compact = compact_taps(described['deviceID'], described['timeZone'], described['log'], described['firstRecordedAt'],
                           described['lastRecordedAt'], modified, described['deleted'])
    if ordered != compact or note_at != implied:
        out['taps'] = [tap_text(t) for t in ordered]
        if note_at != implied:
            out['noteAt'] = m.instant_text(note_at)
    if unknown:
        out['_unknown'] = unknown
    return out


def stored_taps(c):
    """Every tap of a canonical check-in: those it lists, or those its compact form stands for."""
    if 'taps' in c:
        return [tap_json(t, '$') for t in c['taps']]
    return compact_taps(c['deviceID'], c['timeZone'], c['log'], m.parse_instant(c['firstRecordedAt']),
                        m.parse_instant(c['lastRecordedAt']), m.parse_instant(c['modifiedAt']), c['deleted'])


def stored_note_at(c):
    """The instant the note was set or removed; None when the check-in never had a note (MODEL-55)."""
    if 'noteAt' in c:
        return m.parse_instant(c['noteAt'])
    return m.parse_instant(c['modifiedAt']) if 'note' in c else None


# ---- Check-ins in JSON (MODEL-33, MODEL-36, MODEL-43)

def checkin_json(c, path='$'):
    """A check-in read from JSON, in its canonical form.

    Without `taps` it is compact (MODEL-55) and its members are required, as they always were.
    With `taps`, the taps decide (MODEL-55: readers that know taps recompute the members that
    describe them), so those members may be absent; when present they are read and checked for
    their form, and then replaced by what the taps add up to. MODEL-36: a tally outside
    0 ... 2^32 − 1, a `lastRecordedAt` before `firstRecordedAt` or a note over 500 characters is
    `invalid_check_in`."""
    m.typed(c, 'dict', path)
    listed = m.maybe(c, 'taps', 'list', path)
    member = m.need if listed is None else m.maybe

    def read(key, kind, parse):
        value = member(c, key, kind, path)
        return None if value is None else parse(value, f'{path}.{key}')

    goal = m.scalar(m.parse_uuid, m.need(c, 'goalID', 'str', path), path + '.goalID')
    day = m.day_text(m.scalar(m.parse_day, m.need(c, 'day', 'str', path), path + '.day'))
    log = read('log', 'dict', m.log_json)
    first = read('firstRecordedAt', 'str', lambda v, p: m.scalar(m.parse_instant, v, p))
    last = read('lastRecordedAt', 'str', lambda v, p: m.scalar(m.parse_instant, v, p))
    zone = read('timeZone', 'str', lambda v, p: m.scalar(m.check_zone, v, p))
    device = read('deviceID', 'str', lambda v, p: m.scalar(m.parse_uuid, v, p))
    note = m.maybe(c, 'note', 'str', path)
    modified = m.scalar(m.parse_instant, m.need(c, 'modifiedAt', 'str', path), path + '.modifiedAt')
    deleted = m.maybe(c, 'deleted', 'bool', path, False)
    note_at = m.maybe(c, 'noteAt', 'str', path)
    note_at = None if note_at is None else m.scalar(m.parse_instant, note_at, path + '.noteAt')
    if first is not None and last is not None and last < first:
        raise Failure('invalid_check_in', path=path + '.lastRecordedAt')
    if log is not None and log['type'] == 'tally' and not 0 <= log['count'] <= m.MAX_TALLY:
        raise Failure('invalid_check_in', path=path + '.log.count')
    if note is not None and m.longer_than(note, 500):
        raise Failure('invalid_check_in', path=path + '.note')
    if listed is None:
        taps = compact_taps(device, zone, log, first, last, modified, deleted)
    else:
        taps = [tap_json(t, f'{path}.taps[{i}]') for i, t in enumerate(listed)]
    unknown = c['_unknown'] if isinstance(c.get('_unknown'), bytes) else b''      # a wire record's (MODEL-49)
    return make(goal, day, taps, note, note_at, modified, unknown, path=path)


# ---- Merge (MODEL-54)

def tap_version(tap):
    """MODEL-54: of two versions of one tap, the later `at`, then the later `firstAt`, then the greater
    canonical JSON; then (a tie the rule leaves open) the greater unknown-field bytes of a wire Tap."""
    text = tap_text(tap)
    return tap['at'], tap['firstAt'], m.canonical_json({k: v for k, v in text.items() if k != '_unknown'}), tap.get('_unknown', b'')


def note_version(c):
    """MODEL-54: the note set last; at one instant the greater text, a removal before any text."""
    note = c.get('note')
    at = stored_note_at(c)
    # A record that never had a note loses to any that did (MODEL-54).
    return at is not None, at if at is not None else 0, note is not None, (note or '').encode('utf-8')


def merge(a, b, path='$'):
    """MODEL-54: two records of one (goal, Day) merge into the check-in holding every tap of both, a
    tap both hold kept once in its newer version; the note set last; the later `modifiedAt`; the
    unknown fields of the record with the later `modifiedAt`, then the greater unknown-field bytes.
    A union with a total order on each choice, so the merge is idempotent, commutative and
    associative."""
    if (a['goalID'], a['day']) != (b['goalID'], b['day']):
        raise Failure('invalid_check_in', 'check-ins of different goals or Days do not merge', path=path)
    taps = {}
    for tap in stored_taps(a) + stored_taps(b):
        identity = (tap['deviceID'], tap['sequence'])
        if identity not in taps or tap_version(tap) > tap_version(taps[identity]):
            taps[identity] = tap
    noted = max(a, b, key=note_version)
    modified = max(m.parse_instant(a['modifiedAt']), m.parse_instant(b['modifiedAt']))
    unknown = max(a, b, key=lambda c: (m.parse_instant(c['modifiedAt']), c.get('_unknown', b''))).get('_unknown', b'')
    return make(a['goalID'], a['day'], list(taps.values()), noted.get('note'), stored_note_at(noted), modified, unknown, path=path)


def merge_all(records, path='$'):
    return functools.reduce(lambda a, b: merge(a, b, path), records)


# ---- The operations (Spec/README.md)

TAPPED = {'done': 'done', 'skip': 'skip', 'add': 'add', 'count': 'count', 'check': 'check', 'uncheck': 'uncheck',
          'value': 'value', 'delete': 'undo'}


def recorded_action(tap):
    """A `checkin.record` tap's action; `delete` is the undo of MODEL-36."""
    kind = TAPPED[tap['tap']]
    if kind == 'add':
        return {'type': kind, 'amount': m.parse_amount(tap['amount'])}
    if kind == 'value':
        return {'type': kind, 'value': m.parse_amount(tap['value'])}
    if kind == 'count':
        return {'type': kind, 'count': tap['delta']}
    if kind in ('check', 'uncheck'):
        return {'type': kind, 'items': sorted({m.parse_uuid(i) for i in tap['items']})}
    return {'type': kind}


def checkin_record(inp):
    """MODEL-35 / MODEL-52: each tap joins the Day's taps as its device's next one (the request's
    device unless the tap names its own), its instant kept to the whole second; the log follows
    (MODEL-53). A result that does not fit the goal's kind is `invalid_check_in` at `log`
    (MODEL-34); an amount sum beyond the limit is `invalid_amount`."""
    goal = m.goal_json(inp['goal'])
    kind = m.parsed_kind(goal['kind'])
    day = m.day_text(m.parse_day(inp['day']))
    device = m.parse_uuid(inp['deviceID'])
    taps, entry = [], None
    for tap in inp['taps']:
        who = m.parse_uuid(tap.get('deviceID', device))
        at = m.parse_instant(tap['at']) // 1000 * 1000
        sequence = 1 + max((t['sequence'] for t in taps if t['deviceID'] == who), default=-1)
        taps.append({'deviceID': who, 'sequence': sequence, 'at': at, 'firstAt': at,
                     'timeZone': m.check_zone(tap['timeZone']), 'action': recorded_action(tap)})
        entry = make(goal['id'], day, taps, None, None, max(t['at'] for t in taps), strict=True)
        if not entry['deleted'] and not m.fits(kind, entry['log']):
            raise Failure('invalid_check_in', path='log')
    return entry


def checkin_merge(inp):
    """MODEL-54: the check-ins of one goal and Day, merged in order."""
    records = [checkin_json(c, f'$.checkIns[{i}]') for i, c in enumerate(inp['checkIns'])]
    return merge_all(records)


OPERATIONS = {
    'checkin.record': checkin_record,
    'checkin.merge': checkin_merge,
}
