"""The feed's messages of Spec/glow.proto (FEED-28, FEED-30), encoded by hand from the spec for
the corpus generators: field by field, in FEED-28's canonical order, knowing nothing of the SDK.
"""

import os
import subprocess

from bundle_writer import tag, varint, zigzag

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'Spec')
DAY = '2026-11-30'
DAY_NUMBER = 20787  # 2026-11-30 as days since 1970-01-01


# ---- Fields (WIRE-1 ... WIRE-4): defaults omitted unless present

def uint(field, n, present=False):
    return tag(field, 0) + varint(n) if n or present else b''


def sint(field, n, present=False):
    return tag(field, 0) + varint(zigzag(n)) if n or present else b''


def text(field, s):
    data = s.encode('utf-8')
    return tag(field, 2) + varint(len(data)) + data if data else b''


def message(field, body):
    return tag(field, 2) + varint(len(body)) + body


def stamp(s):
    wall, counter, device = s
    return sint(1, wall) + uint(2, counter) + text(3, device)


# ---- The registers (FEED-28) ----

STANCES = {'none': 0, 'want': 1, 'block': 2}
KINDS = {'checkIn': 0, 'milestone': 1, 'goalStarted': 2, 'goalCompleted': 3}
VISIBILITY = {'private': 0, 'friends': 1, 'public': 2}
REACTIONS = {'heart': 0, 'fire': 1, 'clap': 2}


def day_number(day):
    if day == DAY:
        return DAY_NUMBER
    raise ValueError(day)


def item_id(it):
    base = '%s/%s/%s' % (it['owner'], it['kind'], it['goal'])
    if it['kind'] == 'checkIn':
        return base + '/' + it['day']
    if it['kind'] == 'milestone':
        return base + '/%d/%s' % (it['milestone'], it['streakStart'])
    return base


def item_body(it):
    out = text(1, it['owner']) + uint(2, KINDS[it['kind']]) + text(3, it['goal']) + sint(4, it['time'])
    out += text(5, it['title']) + text(6, it.get('emoji', '')) + text(7, it.get('goalKind', ''))
    if 'day' in it:
        out += sint(8, day_number(it['day']), present=True)
    if 'streak' in it:
        out += uint(9, it['streak'], present=True)
    if 'milestone' in it:
        out += uint(10, it['milestone'], present=True)
    if 'streakStart' in it:
        out += sint(11, day_number(it['streakStart']), present=True)
    return out


def u8(s):
    return s.encode('utf-8')


def delta(stances=(), items=(), visibility=(), reactions=(), seen=(), receipts=()):
    """The canonical FeedDelta of registers, one per key (FEED-28's order)."""
    out = b''
    for (a, b, value, st, last_no) in sorted(stances, key=lambda r: (u8(r[0]), u8(r[1]))):
        body = text(1, a) + text(2, b) + uint(3, STANCES[value]) + message(4, stamp(st))
        if last_no is not None:
            body += message(5, stamp(last_no))
        out += message(1, body)
    for (id_, st, it) in sorted(items, key=lambda r: u8(r[0])):
        body = text(1, id_) + message(2, stamp(st))
        if it is not None:
            body += message(3, item_body(it))
        out += message(2, body)
    for (owner, goal, value, st) in sorted(visibility, key=lambda r: (u8(r[0]), u8(r[1]))):
        out += message(3, text(1, owner) + text(2, goal) + uint(3, VISIBILITY[value]) + message(4, stamp(st)))
    for (item, reactor, kind, on, st) in sorted(reactions, key=lambda r: (u8(r[0]), u8(r[1]), u8(r[2]))):
        out += message(4, text(1, item) + text(2, reactor) + uint(3, REACTIONS[kind]) + uint(4, 1 if on else 0)
                       + message(5, stamp(st)))
    for (person, time) in sorted(seen, key=lambda r: u8(r[0])):
        out += message(5, text(1, person) + sint(2, time))
    for (id_, time) in sorted(receipts, key=lambda r: u8(r[0])):
        out += message(6, text(1, id_) + sint(2, time))
    return out


def protoc_text(name, data):
    result = subprocess.run(['protoc', '--proto_path=' + SPEC, '--decode=glow.v1.' + name, 'glow.proto'],
                            input=data, capture_output=True, cwd=SPEC, check=True)
    return result.stdout.decode('utf-8')


# ---- Writes as feed.script steps (Spec/corpus/feed): what the generators build deltas from

def w_stance(a, b, value, stamp):
    return {'do': 'stance', 'from': a, 'to': b, 'stance': value, 'stamp': stamp}


def w_item(it, stamp):
    return {'do': 'item', 'item': it, 'stamp': stamp}


def w_withdraw(id_, stamp):
    return {'do': 'item', 'withdraw': id_, 'stamp': stamp}


def w_vis(owner, goal, value, stamp):
    return {'do': 'visibility', 'owner': owner, 'goal': goal, 'visibility': value, 'stamp': stamp}


def w_reaction(item_id, reactor, kind, stamp, on=True):
    return {'do': 'reaction', 'item': item_id, 'reactor': reactor, 'kind': kind, 'on': on, 'stamp': stamp}


def w_seen(person, up_to):
    return {'do': 'seen', 'person': person, 'upTo': up_to}


def w_receive(item, at):
    return {'do': 'receive', 'item': item, 'at': at}
