#!/usr/bin/env python3
"""Writes Spec/corpus/feed/clock.json and script.json (FEED-1 ... FEED-21).

Every expected answer is worked out by hand from the rule the case names, and written beside
its step; the generator only lays the pairs out (and builds the one hand-made cursor of FEED-18
with Python's own base64). People are ana, bob, cat, dan and eve; stamps are [wall, counter,
device].
"""
import base64
import datetime
import struct

from corpus_file import write_cases, command_line

command_line(__doc__)

OK = {'ok': True}


def st(wall, device='d', counter=0):
    return [wall, counter, device]


def write(name, operation, description, cases, prefix):
    write_cases('feed', name, operation, description, cases, prefix)


# FEED-1, FEED-2: the clock.
clock_cases = []


def clock(comment, rules, device, pairs):
    clock_cases.append({'comment': comment, 'rules': rules, 'flags': ['Required'],
                        'input': {'device': device, 'steps': [s for s, _ in pairs]}, 'result': 'valid',
                        'expected': {'steps': [e for _, e in pairs]}})


def tick(now):
    return {'now': now}


def recv(stamp, now):
    return {'receive': stamp, 'now': now}


clock('local changes: a new millisecond resets the counter, a repeated or earlier one raises it', ['FEED-2'], 'd', [
    (tick(1000), {'stamp': [1000, 0, 'd']}), (tick(1000), {'stamp': [1000, 1, 'd']}),
    (tick(999), {'stamp': [1000, 2, 'd']}), (tick(1001), {'stamp': [1001, 0, 'd']})])
clock("a remote stamp ahead of the device's clock carries it forward", ['FEED-2'], 'd', [
    (tick(1000), {'stamp': [1000, 0, 'd']}), (recv([5000, 3, 'x'], 1000), {'clock': [5000, 4]}),
    (tick(1001), {'stamp': [5000, 5, 'd']})])
clock('equal wall times: the greater counter plus one', ['FEED-2'], 'd', [
    (tick(1000), {'stamp': [1000, 0, 'd']}), (recv([1000, 7, 'x'], 900), {'clock': [1000, 8]}),
    (tick(1000), {'stamp': [1000, 9, 'd']})])
clock('physical time ahead of both: a new millisecond', ['FEED-2'], 'd', [
    (recv([500, 2, 'x'], 2000), {'clock': [2000, 0]}), (tick(2000), {'stamp': [2000, 1, 'd']})])
clock('a remote stamp behind the clock only raises the counter', ['FEED-2'], 'd', [
    (tick(3000), {'stamp': [3000, 0, 'd']}), (recv([1000, 9, 'x'], 100), {'clock': [3000, 1]}),
    (tick(100), {'stamp': [3000, 2, 'd']})])
clock('physical times and stamps outside their ranges', ['FEED-1'], 'd', [
    (tick(-1), {'error': 'invalid_stamp'}), (tick(2 ** 53), {'error': 'invalid_stamp'}),
    (tick(2 ** 53 - 1), {'stamp': [2 ** 53 - 1, 0, 'd']}),
    (recv([10, 2 ** 32, 'x'], 0), {'error': 'invalid_stamp'}), (recv([10, 0, ''], 0), {'error': 'invalid_stamp'})])
# A remote counter above 2^16 is a forger's (no honest clock reaches it), and is not taken in: the
# clock stays at (0, 0), and (0, 1) after a tick at 0. One of exactly 2^16 is: its wall time 1000 is
# ahead of the clock and of now, so the clock becomes (1000, 2^16 + 1), and the next tick at 0 is
# (1000, 2^16 + 2); a tick at 1001 is a new millisecond. (Issue 59 item 2: the counter 2^32 − 2,
# taken in, used to leave every device one change from clock_exhausted for an hour.)
clock('a remote stamp whose counter is more than 2^16 is not taken in, so no stamp can bring a clock near the '
      'end of its counter; one of 2^16 is', ['FEED-2'], 'd', [
    (recv([1000, 2 ** 32 - 1, 'x'], 0), {'clock': [0, 0]}), (tick(0), {'stamp': [0, 1, 'd']}),
    (recv([1000, 2 ** 32 - 2, 'x'], 0), {'clock': [0, 1]}), (recv([1000, 2 ** 16 + 1, 'x'], 0), {'clock': [0, 1]}),
    (recv([1000, 2 ** 16, 'x'], 0), {'clock': [1000, 2 ** 16 + 1]}), (tick(0), {'stamp': [1000, 2 ** 16 + 2, 'd']}),
    (tick(1001), {'stamp': [1001, 0, 'd']})])
clock('a remote stamp more than an hour ahead of the device is not taken in, so no stamp can run the clock '
      'to the end of its range; one exactly an hour ahead is', ['FEED-2'], 'd', [
    (tick(1000), {'stamp': [1000, 0, 'd']}),
    (recv([2 ** 53 - 1, 2 ** 32 - 2, 'x'], 1000), {'clock': [1000, 0]}),
    (tick(1000), {'stamp': [1000, 1, 'd']}),
    (recv([3_601_000, 5, 'x'], 1000), {'clock': [3_601_000, 6]}),
    (recv([3_601_002, 0, 'x'], 1001), {'clock': [3_601_000, 6]}),
    (tick(1002), {'stamp': [3_601_000, 7, 'd']})])
write('clock.json', 'feed.clock',
      'One device\'s hybrid logical clock: each step ticks at physical time `now` (giving the stamp) or takes in a '
      'remote stamp `receive` at `now` (giving the clock\'s wall time and counter).', clock_cases, 'clock')

# Scripts over named replicas.
cases = []


def script(comment, rules, pairs):
    cases.append({'comment': comment, 'rules': rules, 'flags': ['Required'], 'input': {'steps': [s for s, _ in pairs]},
                  'result': 'valid', 'expected': {'steps': [e for _, e in pairs]}})


def do(name, replica='r', **args):
    s = {'do': name, 'replica': replica}
    s.update(args)
    return s


def act(action, a, b, stamp, replica='r', expect=OK):
    return (do('act', replica, action=action, **{'from': a, 'to': b, 'stamp': stamp}), expect)


def stance(value, a, b, stamp, replica='r'):
    return (do('stance', replica, stance=value, **{'from': a, 'to': b, 'stamp': stamp}), OK)


def state(a, b, expected, replica='r'):
    return (do('state', replica, a=a, b=b), {'state': expected})


def merge(into, source):
    return (do('merge', into, **{'from': source}), OK)


def equal(*names):
    return (do('equal', names[0], replicas=list(names)), {'equal': True})


def bad(code):
    return {'error': code}


# FEED-3 ... FEED-5: friends.
script('a request, then an accept', ['FEED-4', 'FEED-5'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), state('ana', 'bob', 'requested'), state('bob', 'ana', 'incoming'),
    act('accept', 'bob', 'ana', st(200, 'bob1')), state('ana', 'bob', 'friends'), state('bob', 'ana', 'friends')])
script('a declined request is gone; asking again asks anew', ['FEED-4', 'FEED-5'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), act('decline', 'bob', 'ana', st(200, 'bob1')),
    state('ana', 'bob', 'none'), state('bob', 'ana', 'none'),
    act('request', 'ana', 'bob', st(300, 'ana1')), state('bob', 'ana', 'incoming')])
script('after declining, asking oneself does not make friends: the other must accept', ['FEED-4'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), act('decline', 'bob', 'ana', st(200, 'bob1')),
    act('request', 'bob', 'ana', st(300, 'bob1')), state('bob', 'ana', 'requested'), state('ana', 'bob', 'incoming'),
    act('accept', 'ana', 'bob', st(400, 'ana1')), state('bob', 'ana', 'friends')])
script('a cancelled request cannot be accepted', ['FEED-4', 'FEED-5'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), act('cancel', 'ana', 'bob', st(200, 'ana1')),
    state('bob', 'ana', 'none'), act('accept', 'bob', 'ana', st(300, 'bob1'), expect=bad('invalid_friend_action'))])
script('a request toward someone who asked first accepts', ['FEED-5'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), act('request', 'bob', 'ana', st(200, 'bob1')),
    state('ana', 'bob', 'friends')])
script('two crossing requests made on separate devices make friends once merged', ['FEED-4', 'FEED-21'], [
    act('request', 'ana', 'bob', st(100, 'ana1'), replica='r1'), act('request', 'bob', 'ana', st(100, 'bob1'), replica='r2'),
    state('ana', 'bob', 'requested', 'r1'), merge('r1', 'r2'), merge('r2', 'r1'),
    state('ana', 'bob', 'friends', 'r1'), state('bob', 'ana', 'friends', 'r2'), equal('r1', 'r2')])
script('unfriending ends it for both, and leaves no request behind', ['FEED-4', 'FEED-5'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), act('accept', 'bob', 'ana', st(200, 'bob1')),
    act('unfriend', 'bob', 'ana', st(300, 'bob1')), state('ana', 'bob', 'none'), state('bob', 'ana', 'none'),
    act('unfriend', 'ana', 'bob', st(400, 'ana1'), expect=bad('invalid_friend_action'))])
script('a block wins over a concurrent accept', ['FEED-4', 'FEED-21'], [
    act('request', 'ana', 'bob', st(100, 'ana1'), replica='r1'), merge('r2', 'r1'),
    act('accept', 'bob', 'ana', st(200, 'bob1'), replica='r2'), act('block', 'ana', 'bob', st(150, 'ana1'), replica='r1'),
    merge('r1', 'r2'), merge('r2', 'r1'), state('ana', 'bob', 'blocking', 'r1'), state('bob', 'ana', 'blocked', 'r2'),
    equal('r1', 'r2')])
script('blocked: every action but block is not_found; unblocking ends older requests', ['FEED-4', 'FEED-5'], [
    act('request', 'ana', 'bob', st(100, 'ana1')), act('block', 'bob', 'ana', st(200, 'bob1')),
    state('ana', 'bob', 'blocked'), state('bob', 'ana', 'blocking'),
    act('request', 'ana', 'bob', st(300, 'ana1'), expect=bad('not_found')),
    act('cancel', 'ana', 'bob', st(310, 'ana1'), expect=bad('not_found')),
    act('unblock', 'bob', 'ana', st(400, 'bob1')), state('ana', 'bob', 'none'), state('bob', 'ana', 'none')])
script('both may block; each then sees blocking', ['FEED-4', 'FEED-5'], [
    act('block', 'bob', 'ana', st(100, 'bob1')), act('block', 'ana', 'bob', st(200, 'ana1')),
    state('ana', 'bob', 'blocking'), state('bob', 'ana', 'blocking'),
    act('unblock', 'bob', 'ana', st(300, 'bob1')), state('bob', 'ana', 'blocked'),
    act('block', 'ana', 'bob', st(400, 'ana1'), expect=bad('invalid_friend_action'))])
script('moves the table does not have', ['FEED-5'], [
    act('accept', 'ana', 'bob', st(100, 'ana1'), expect=bad('invalid_friend_action')),
    act('decline', 'ana', 'bob', st(110, 'ana1'), expect=bad('invalid_friend_action')),
    act('cancel', 'ana', 'bob', st(120, 'ana1'), expect=bad('invalid_friend_action')),
    act('unfriend', 'ana', 'bob', st(130, 'ana1'), expect=bad('invalid_friend_action')),
    act('unblock', 'ana', 'bob', st(140, 'ana1'), expect=bad('invalid_friend_action')),
    act('request', 'ana', 'ana', st(150, 'ana1'), expect=bad('invalid_friend_action')),
    act('request', 'ana', 'bob', st(160, 'ana1')),
    act('request', 'ana', 'bob', st(170, 'ana1'), expect=bad('invalid_friend_action')),
    act('cancel', 'bob', 'ana', st(180, 'bob1'), expect=bad('invalid_friend_action')),
    state('ana', 'bob', 'requested')])
script("one person's writes from two devices with equal wall time and counter: the greater device id wins",
       ['FEED-1', 'FEED-3'], [
    stance('want', 'ana', 'bob', [100, 0, 'ana-phone'], 'r1'), stance('none', 'ana', 'bob', [100, 0, 'ana-tablet'], 'r2'),
    merge('r1', 'r2'), merge('r2', 'r1'), state('ana', 'bob', 'none', 'r1'), state('ana', 'bob', 'none', 'r2'),
    equal('r1', 'r2')])
script('an older write arriving late changes nothing', ['FEED-3'], [
    stance('want', 'ana', 'bob', st(200, 'ana1')), stance('block', 'ana', 'bob', st(100, 'ana2')),
    state('ana', 'bob', 'requested')])
script('a late "no" older than the want does not end it', ['FEED-3', 'FEED-4'], [
    stance('want', 'ana', 'bob', st(300, 'ana1')), stance('none', 'bob', 'ana', st(200, 'bob1')),
    state('ana', 'bob', 'requested'), stance('none', 'bob', 'ana', st(400, 'bob1')), state('ana', 'bob', 'none')])
script('every merge order and grouping of three replicas agrees', ['FEED-21'], [
    act('request', 'ana', 'bob', st(100, 'ana1'), 'r1'), act('block', 'cat', 'dan', st(150, 'cat1'), 'r1'),
    act('request', 'bob', 'cat', st(120, 'bob1'), 'r2'), stance('want', 'ana', 'bob', st(90, 'ana2'), 'r2'),
    act('request', 'dan', 'cat', st(130, 'dan1'), 'r3'), stance('none', 'ana', 'bob', st(110, 'ana3'), 'r3'),
    merge('m1', 'r1'), merge('m1', 'r2'), merge('m1', 'r3'),
    merge('m2', 'r3'), merge('m2', 'r2'), merge('m2', 'r1'),
    merge('m3', 'r2'), merge('m3', 'r3'), merge('m3', 'r1'),
    merge('m4', 'r2'), merge('m4', 'r1'), merge('m5', 'r3'), merge('m5', 'm4'),
    merge('m6', 'r1'), merge('m6', 'r3'), merge('m6', 'r1'), merge('m6', 'r2'), merge('m6', 'm6'),
    equal('m1', 'm2', 'm3', 'm5', 'm6'),
    state('ana', 'bob', 'none', 'm1'), state('bob', 'cat', 'requested', 'm1'), state('dan', 'cat', 'blocked', 'm1')])

# FEED-6 ... FEED-9: items and who sees them.
DAY = '2026-11-30'


def item(owner, goal, time, kind='checkIn', title='Meditate', day=DAY, **extra):
    body = {'owner': owner, 'kind': kind, 'goal': goal, 'time': time, 'title': title, 'emoji': '🧘',
            'goalKind': 'single'}
    if kind in ('checkIn', 'milestone') and day is not None:
        body['day'] = day
    body.update(extra)
    return {k: v for k, v in body.items() if v is not None}


def iid(owner, goal, kind='checkIn', day=DAY, milestone=None, start=None):
    base = '%s/%s/%s' % (owner, kind, goal)
    if kind == 'checkIn':
        return base + '/' + day
    if kind == 'milestone':
        return base + '/%d/%s' % (milestone, start)
    return base


names = {'bob': 'Bob', 'cat': 'Cat', 'dan': 'Dan', 'eve': 'Eve'}


def notices(owner, zone, expected, replica='r'):
    return (do('notices', replica, owner=owner, zone=zone, names=names), {'notices': expected})


def summary(viewer, item_id, heart=0, fire=0, clap=0, mine=(), replica='r'):
    return (do('reactions', replica, item=item_id, viewer=viewer),
            {'counts': {'heart': heart, 'fire': fire, 'clap': clap}, 'mine': list(mine)})


def react(reactor, item_id, kind, stamp, on=True, replica='r', expect=OK):
    return (do('react', replica, item=item_id, reactor=reactor, kind=kind, on=on, stamp=stamp), expect)


def put(it, stamp, replica='r'):
    return (do('item', replica, item=it, stamp=stamp), {'ok': True, 'id': iid(it['owner'], it['goal'], it['kind'],
                                                                             it.get('day'), it.get('milestone'),
                                                                             it.get('streakStart'))})


def withdraw(id_, stamp, replica='r'):
    return (do('item', replica, withdraw=id_, stamp=stamp), {'ok': True, 'id': id_})


def vis(owner, goal, value, stamp, replica='r'):
    return (do('visibility', replica, owner=owner, goal=goal, visibility=value, stamp=stamp), OK)


def page(viewer, ids, nxt=False, limit=20, cursor=None, replica='r'):
    s = do('page', replica, viewer=viewer, limit=limit)
    if cursor is not None:
        s['cursor'] = cursor
    return (s, {'items': ids, 'next': nxt})


def friends(a, b, t):
    return [act('request', a, b, st(t, a + '1')), act('accept', b, a, st(t + 1, b + '1'))]


PUB, FRI, PRI = iid('ana', 'g-pub'), iid('ana', 'g-fri'), iid('ana', 'g-pri')
world = friends('ana', 'bob', 10) + [act('block', 'ana', 'dan', st(20, 'ana1')), act('block', 'eve', 'ana', st(21, 'eve1')),
                                     vis('ana', 'g-pub', 'public', st(30, 'ana1')), vis('ana', 'g-fri', 'friends', st(31, 'ana1')),
                                     vis('ana', 'g-pri', 'private', st(32, 'ana1')),
                                     put(item('ana', 'g-pub', 3000), st(40, 'ana1')),
                                     put(item('ana', 'g-fri', 2000), st(41, 'ana1')),
                                     put(item('ana', 'g-pri', 1000), st(42, 'ana1'))]
script('visibility × viewer: owner, friend, stranger, blocked, blocking', ['FEED-8', 'FEED-9'], world + [
    page('ana', [PUB, FRI, PRI]), page('bob', [PUB, FRI]), page('cat', [PUB]), page('dan', []), page('eve', [])])
script('a goal made private takes its past items out of friends\' feeds', ['FEED-8', 'FEED-9'], world + [
    vis('ana', 'g-fri', 'private', st(50, 'ana2')), page('bob', [PUB]), vis('ana', 'g-pub', 'friends', st(51, 'ana2')),
    page('bob', [PUB]), page('cat', []), vis('ana', 'g-fri', 'public', st(52, 'ana2')), page('cat', [FRI])])
script('an older visibility write arriving late changes nothing', ['FEED-8'], world + [
    vis('ana', 'g-fri', 'public', st(25, 'ana2')), page('cat', [PUB])])
script('unfriending hides friends-only items; public ones stay', ['FEED-9'], world + [
    act('unfriend', 'bob', 'ana', st(60, 'bob1')), page('bob', [PUB])])
script('blocking hides everything of the person, public items too', ['FEED-9'], world + [
    act('block', 'ana', 'cat', st(60, 'ana1')), page('cat', []), act('unblock', 'ana', 'cat', st(61, 'ana1')),
    page('cat', [PUB])])
script('a goal without a visibility register is private', ['FEED-8', 'FEED-9'], friends('ana', 'bob', 10) + [
    put(item('ana', 'g-new', 500), st(40, 'ana1')), page('bob', []), page('ana', [iid('ana', 'g-new')])])
script('a withdrawn item is gone; a later write brings it back; an older one does not', ['FEED-7'], world + [
    withdraw(PUB, st(70, 'ana1')), page('cat', []), page('ana', [FRI, PRI]),
    put(item('ana', 'g-pub', 3000), st(60, 'ana2')), page('cat', []),
    put(item('ana', 'g-pub', 3000), st(80, 'ana2')), page('cat', [PUB])])
script('the same item delivered twice is one item', ['FEED-6', 'FEED-7'], world + [
    put(item('ana', 'g-pub', 3000), st(40, 'ana1')), put(item('ana', 'g-pub', 3000, streak=2), st(45, 'ana2')),
    page('cat', [PUB])])
MS = iid('ana', 'g-pub', 'milestone', milestone=7, start='2026-11-24')
MS2 = iid('ana', 'g-pub', 'milestone', milestone=7, start='2026-12-05')
script('a milestone is announced once per streak across re-syncs, again for a new streak', ['FEED-6'], world + [
    put(item('ana', 'g-pub', 4000, 'milestone', milestone=7, streakStart='2026-11-24', streak=7), st(50, 'ana1'), 'r1'),
    put(item('ana', 'g-pub', 4000, 'milestone', milestone=7, streakStart='2026-11-24', streak=7), st(51, 'ana2'), 'r2'),
    merge('r', 'r1'), merge('r', 'r2'), merge('r', 'r1'), page('cat', [MS, PUB]),
    put(item('ana', 'g-pub', 9000, 'milestone', milestone=7, day='2026-12-11', streakStart='2026-12-05', streak=7),
        st(90, 'ana1')),
    page('cat', [MS2, MS, PUB])])
script('item ids of each kind', ['FEED-6'], [
    put(item('ana', 'g1', 1, 'checkIn', day='2026-01-02'), st(1)),
    put(item('ana', 'g1', 2, 'milestone', day='2026-01-31', milestone=30, streakStart='2026-01-02', streak=30), st(2)),
    put(item('ana', 'g1', 3, 'goalStarted'), st(3)), put(item('ana', 'g1', 4, 'goalCompleted'), st(4))])
script('items missing what their kind needs', ['FEED-6'], [
    (do('item', item=item('ana', 'g1', 1, day=None), stamp=st(1)), bad('invalid_item')),
    (do('item', item=item('ana', 'g1', 1, 'milestone', milestone=7), stamp=st(2)), bad('invalid_item')),
    (do('item', item=item('ana', 'g1', 1, 'milestone', milestone=0, streakStart=DAY), stamp=st(3)), bad('invalid_item')),
    (do('item', item=item('ana', 'g1', 1, title=''), stamp=st(4)), bad('invalid_item')),
    (do('item', item=item('ana', 'g1', 1, title='x' * 201), stamp=st(5)), bad('invalid_item')),
    (do('item', item=item('ana', 'g1', -1), stamp=st(6)), bad('invalid_item')),
    (do('item', item=item('', 'g1', 1), stamp=st(7)), bad('invalid_item')),
    (do('item', item=item('ana', 'g1', 1, title='x' * 200), stamp=st(8)), {'ok': True, 'id': iid('ana', 'g1')})])

script('two writes of one stamp resolve by value, in either order (a faulty device)', ['FEED-3', 'FEED-21'], world + [
    merge('r1', 'r'), merge('r2', 'r'),
    stance('want', 'bob', 'cat', [500, 0, 'bob-x'], 'r1'), stance('block', 'bob', 'cat', [500, 0, 'bob-x'], 'r2'),
    vis('ana', 'g-pub', 'friends', [500, 0, 'ana-x'], 'r1'), vis('ana', 'g-pub', 'private', [500, 0, 'ana-x'], 'r2'),
    put(item('ana', 'g-fri', 2000, title='Meditate'), [500, 0, 'ana-x'], 'r1'),
    put(item('ana', 'g-fri', 2000, title='Meditate daily'), [500, 0, 'ana-x'], 'r2'),
    merge('m1', 'r1'), merge('m1', 'r2'), merge('m2', 'r2'), merge('m2', 'r1'), equal('m1', 'm2'),
    state('bob', 'cat', 'blocking', 'm1'), page('cat', [], replica='m1'), page('bob', [FRI], replica='m2'),
    notices('ana', 'UTC', [], 'm1')])
script('an item withdrawn and rewritten with one stamp stays withdrawn; a reaction on and off with one stamp is off',
       ['FEED-3', 'FEED-7', 'FEED-11'], world + [
    merge('r1', 'r'), merge('r2', 'r'),
    withdraw(PUB, [600, 0, 'ana-x'], 'r1'), put(item('ana', 'g-pub', 3000, streak=9), [600, 0, 'ana-x'], 'r2'),
    react('bob', FRI, 'heart', [600, 0, 'bob-x'], True, 'r1'), react('bob', FRI, 'heart', [600, 0, 'bob-x'], False, 'r2'),
    merge('r2', 'r1'), merge('r1', 'r2'), equal('r1', 'r2'), page('cat', [], replica='r1'),
    summary('ana', FRI, replica='r2')])

# FEED-10 ... FEED-12: reactions.


world2 = world + friends('ana', 'cat', 12)
script('a heart from two devices of one person counts once', ['FEED-11', 'FEED-12'], world + [
    react('bob', FRI, 'heart', st(100, 'bob-phone')), react('bob', FRI, 'heart', st(110, 'bob-tablet')),
    summary('bob', FRI, heart=1, mine=['heart']), summary('ana', FRI, heart=1)])
script('a concurrent on and off with equal wall time and counter: the greater device id wins', ['FEED-11', 'FEED-1'],
       world + [
    merge('r1', 'r'), merge('r2', 'r'),
    react('bob', FRI, 'fire', [200, 0, 'bob-a'], True, 'r1'), react('bob', FRI, 'fire', [200, 0, 'bob-b'], False, 'r2'),
    merge('r1', 'r2'), merge('r2', 'r1'), summary('ana', FRI, fire=0, replica='r1'), equal('r1', 'r2'),
    react('bob', FRI, 'fire', [200, 1, 'bob-a'], True, 'r1'), summary('ana', FRI, fire=1, replica='r1')])
script('one of each kind per person, from several people', ['FEED-11', 'FEED-12'], world2 + [
    react('bob', PUB, 'heart', st(100, 'bob1')), react('bob', PUB, 'fire', st(101, 'bob1')),
    react('cat', PUB, 'heart', st(102, 'cat1')), react('cat', PUB, 'clap', st(103, 'cat1')),
    summary('ana', PUB, heart=2, fire=1, clap=1), summary('cat', PUB, heart=2, fire=1, clap=1, mine=['heart', 'clap']),
    summary('bob', PUB, heart=2, fire=1, clap=1, mine=['heart', 'fire'])])
script('on, off, on again', ['FEED-11'], world + [
    react('bob', FRI, 'clap', st(100, 'bob1')), react('bob', FRI, 'clap', st(200, 'bob1'), False),
    summary('ana', FRI, clap=0), react('bob', FRI, 'clap', st(300, 'bob1')), summary('ana', FRI, clap=1)])
script("reacting to one's own item, to an item one cannot see, to none, or with an unknown kind", ['FEED-10', 'FEED-11'],
       world + [
    react('ana', PUB, 'heart', st(100, 'ana1'), expect=bad('own_item')),
    react('cat', FRI, 'heart', st(101, 'cat1'), expect=bad('not_found')),
    react('dan', PUB, 'heart', st(102, 'dan1'), expect=bad('not_found')),
    react('bob', 'ana/checkIn/nothing/2026-11-30', 'heart', st(103, 'bob1'), expect=bad('not_found')),
    react('bob', PUB, 'thumbsup', st(104, 'bob1'), expect=bad('unknown_reaction')),
    react('bob', PUB, 'Heart', st(105, 'bob1'), expect=bad('unknown_reaction')),
    summary('ana', PUB), summary('ana', FRI)])
script("counts leave out reactors who can no longer see the item", ['FEED-12', 'FEED-9'], world2 + [
    react('bob', FRI, 'heart', st(100, 'bob1')), react('cat', FRI, 'heart', st(101, 'cat1')),
    summary('ana', FRI, heart=2), act('unfriend', 'bob', 'ana', st(110, 'bob1')), summary('ana', FRI, heart=1),
    summary('cat', FRI, heart=1, mine=['heart'])])
script('asking about reactions on an item one cannot see', ['FEED-12'], world + [
    (do('reactions', item=FRI, viewer='cat'), bad('not_found')),
    (do('reactions', item=PRI, viewer='bob'), bad('not_found')),
    (do('reactions', item='nothing', viewer='ana'), bad('not_found'))])
script('a withdrawn item leaves pages, counts and reactions', ['FEED-7', 'FEED-12'], world + [
    react('bob', PUB, 'heart', st(100, 'bob1')), withdraw(PUB, st(200, 'ana1')),
    (do('reactions', item=PUB, viewer='ana'), bad('not_found')), page('bob', [FRI]),
    react('bob', PUB, 'fire', st(201, 'bob1'), expect=bad('not_found'))])

# FEED-13 ... FEED-15: the badge.


def receive(item_id, at, replica='r'):
    return (do('receive', replica, item=item_id, at=at), OK)


def seen(person, upto, replica='r'):
    return (do('seen', replica, person=person, upTo=upto), OK)


def badge(viewer, n, replica='r'):
    return (do('badge', replica, viewer=viewer), {'badge': n})


received = world2 + [receive(PUB, 1000), receive(FRI, 2000), receive(PRI, 3000)]
script("the badge counts others' received items the viewer may see", ['FEED-15'], received + [
    badge('bob', 2), badge('cat', 2), badge('dan', 0), badge('ana', 0)])
script("seen exactly at an item's receipt time reads it; a millisecond earlier does not", ['FEED-14', 'FEED-15'],
       received + [
    seen('bob', 1999), badge('bob', 1), seen('bob', 2000), badge('bob', 0)])
script("a device whose clock is behind cannot make read items unread", ['FEED-14'], received + [
    seen('bob', 2000, 'r'), merge('phone', 'r'), seen('bob', 1000, 'phone'), badge('bob', 0, 'phone'),
    merge('r', 'phone'), badge('bob', 0)])
script('an item without a receipt time is not counted', ['FEED-15'], world + [
    receive(PUB, 1000), badge('bob', 1), badge('cat', 1)])
script('the first receipt time stays', ['FEED-13'], world + [
    receive(PUB, 5000), receive(PUB, 3000), receive(PUB, 9000), seen('cat', 4000), badge('cat', 0)])
script('a goal made private or an item withdrawn leaves the badge', ['FEED-15', 'FEED-9'], received + [
    badge('bob', 2), vis('ana', 'g-fri', 'private', st(60, 'ana1')), badge('bob', 1), withdraw(PUB, st(61, 'ana1')),
    badge('bob', 0)])

# FEED-16 ... FEED-19: pages.
many = [put(item('ana', 'g%d' % n, 100 * n, 'goalStarted'), st(40 + n, 'ana1')) for n in range(1, 6)] + \
       [vis('ana', 'g%d' % n, 'public', st(30 + n, 'ana1')) for n in range(1, 6)]
G = lambda n: iid('ana', 'g%d' % n, 'goalStarted')  # noqa: E731
script('newest first, in pages that neither repeat nor skip', ['FEED-16', 'FEED-18'], many + [
    page('cat', [G(5), G(4)], True, 2), page('cat', [G(3), G(2)], True, 2, '$next'),
    page('cat', [G(1)], False, 2, '$next')])
same = [vis('ana', g, 'public', st(30, 'ana1')) for g in ('ga', 'gb', 'gc')] + \
       [put(item('ana', g, 500, 'goalStarted'), st(40 + i, 'ana1')) for i, g in enumerate(('ga', 'gb', 'gc'))]
script('three items with equal times across a page boundary: by id, greater first', ['FEED-16', 'FEED-18'], same + [
    page('cat', [iid('ana', 'gc', 'goalStarted'), iid('ana', 'gb', 'goalStarted')], True, 2),
    page('cat', [iid('ana', 'ga', 'goalStarted')], False, 2, '$next')])
script('items that arrive while paging: older ones on later pages, newer ones only on a new first page',
       ['FEED-18'], many + [
    page('cat', [G(5), G(4)], True, 2),
    put(item('ana', 'g45', 450, 'goalStarted'), st(60, 'ana1')), vis('ana', 'g45', 'public', st(61, 'ana1')),
    put(item('ana', 'g35', 350, 'goalStarted'), st(62, 'ana1')), vis('ana', 'g35', 'public', st(63, 'ana1')),
    page('cat', [iid('ana', 'g35', 'goalStarted'), G(3)], True, 2, '$next'),
    page('cat', [G(2), G(1)], False, 2, '$next'),
    page('cat', [G(5), iid('ana', 'g45', 'goalStarted')], True, 2)])
script('limits: 0 and below are errors, above 100 is 100', ['FEED-17'], many + [
    (do('page', viewer='cat', limit=0), bad('invalid_limit')), (do('page', viewer='cat', limit=-5), bad('invalid_limit')),
    page('cat', [G(5), G(4), G(3), G(2), G(1)], False, 1000), page('cat', [G(5)], True, 1)])
first_day = datetime.date(2026, 1, 1)
hundred_days = [(first_day + datetime.timedelta(days=n)).isoformat() for n in range(1, 102)]
hundred = [vis('ana', 'g', 'public', st(1, 'ana1'))] + \
          [put(item('ana', 'g', 10 * n, day=hundred_days[n - 1]), st(10 + n, 'ana1')) for n in range(1, 102)]
ids_desc = [iid('ana', 'g', day=d) for d in reversed(hundred_days)]
script('a limit of 1,000 gives 100 items and a cursor', ['FEED-17'], hundred + [
    page('cat', ids_desc[:100], True, 1000), page('cat', ids_desc[100:], False, 1000, '$next')])


def cursor(time, id_, version=1):
    return base64.urlsafe_b64encode(bytes([version]) + struct.pack('>q', time) + id_.encode()).decode().rstrip('=')


script("a cursor written by hand from FEED-18's form", ['FEED-18'], many + [
    page('cat', [G(2), G(1)], False, 20, cursor(300, G(3))),
    page('cat', [G(3), G(2), G(1)], False, 20, cursor(300, G(3) + '~')),
    page('cat', [G(5), G(4), G(3), G(2), G(1)], False, 20, cursor(600, 'x'))])
garbage = ['', '!!!', 'AQ', cursor(300, G(3), 2), cursor(300, G(3)) + '=', 'A' * 1100, cursor(-1, 'x'),
           base64.urlsafe_b64encode(b'\x01' + struct.pack('>q', 5) + b'\xff\xfe').decode().rstrip('='),
           base64.urlsafe_b64encode(b'\x01' + struct.pack('>q', 5)).decode().rstrip('='),
           cursor(300, G(3)).replace('-', '+').replace('_', '/') + 'AB+/' ]
script('garbage cursors', ['FEED-19'], many + [
    (do('page', viewer='cat', limit=2, cursor=text), bad('invalid_cursor')) for text in garbage])
script('a withdrawn item leaves later pages', ['FEED-16', 'FEED-7'], many + [
    page('cat', [G(5), G(4)], True, 2), withdraw(G(3), st(90, 'ana1')), page('cat', [G(2), G(1)], False, 2, '$next')])

# FEED-20: notices.
MEDITATE30 = item('ana', 'g-pub', 3000, 'milestone', milestone=30, streakStart='2026-11-01', streak=30)
MS30 = iid('ana', 'g-pub', 'milestone', milestone=30, start='2026-11-01')
T = 1796083200000  # 2026-12-01T00:00:00Z
noticed = world2 + [put(MEDITATE30, st(50, 'ana1'))]


script("reactions grouped per item, Day and kind, latest reactor first", ['FEED-20'], noticed + [
    react('bob', MS30, 'fire', [T + 1000, 0, 'bob1']), react('cat', MS30, 'fire', [T + 2000, 0, 'cat1']),
    react('bob', MS30, 'heart', [T + 1500, 0, 'bob1']),
    notices('ana', 'UTC', [
        {'item': MS30, 'day': '2026-12-01', 'kind': 'fire', 'reactors': ['cat', 'bob'],
         'text': 'Cat and 1 other cheered 🔥 your 30-day Meditate streak'},
        {'item': MS30, 'day': '2026-12-01', 'kind': 'heart', 'reactors': ['bob'],
         'text': 'Bob cheered ♥ your 30-day Meditate streak'}])])
script("the owner's local Day splits groups", ['FEED-20'], noticed + [
    react('bob', PUB, 'clap', [T - 3 * 3600000, 0, 'bob1']), react('cat', PUB, 'clap', [T + 6 * 3600000, 0, 'cat1']),
    notices('ana', 'America/New_York', [
        {'item': PUB, 'day': '2026-12-01', 'kind': 'clap', 'reactors': ['cat'], 'text': 'Cat cheered 👏 your Meditate check-in'},
        {'item': PUB, 'day': '2026-11-30', 'kind': 'clap', 'reactors': ['bob'], 'text': 'Bob cheered 👏 your Meditate check-in'}]),
    notices('ana', 'UTC', [
        {'item': PUB, 'day': '2026-12-01', 'kind': 'clap', 'reactors': ['cat'], 'text': 'Cat cheered 👏 your Meditate check-in'},
        {'item': PUB, 'day': '2026-11-30', 'kind': 'clap', 'reactors': ['bob'], 'text': 'Bob cheered 👏 your Meditate check-in'}])])
script("three reactors; a reactor who can no longer see the item, or who took it back, is left out", ['FEED-20'],
       noticed + [
    act('unblock', 'ana', 'dan', st(60, 'ana1')), act('request', 'dan', 'ana', st(61, 'dan1')),
    act('accept', 'ana', 'dan', st(62, 'ana1')),
    react('bob', FRI, 'heart', [T + 1, 0, 'bob1']), react('cat', FRI, 'heart', [T + 2, 0, 'cat1']),
    react('dan', FRI, 'heart', [T + 3, 0, 'dan1']),
    notices('ana', 'UTC', [{'item': FRI, 'day': '2026-12-01', 'kind': 'heart', 'reactors': ['dan', 'cat', 'bob'],
                             'text': 'Dan and 2 others cheered ♥ your Meditate check-in'}]),
    act('unfriend', 'ana', 'cat', st(70, 'ana1')), react('dan', FRI, 'heart', [T + 4, 0, 'dan1'], False),
    notices('ana', 'UTC', [{'item': FRI, 'day': '2026-12-01', 'kind': 'heart', 'reactors': ['bob'],
                             'text': 'Bob cheered ♥ your Meditate check-in'}]),
    notices('bob', 'UTC', [])])
script('goal started and completed in notices', ['FEED-20'], friends('ana', 'bob', 10) + [
    vis('ana', 'g9', 'friends', st(30, 'ana1')), put(item('ana', 'g9', 100, 'goalStarted', title='Read'), st(31, 'ana1')),
    put(item('ana', 'g9', 200, 'goalCompleted', title='Read'), st(32, 'ana1')),
    react('bob', iid('ana', 'g9', 'goalStarted'), 'clap', [T, 0, 'bob1']),
    react('bob', iid('ana', 'g9', 'goalCompleted'), 'clap', [T + 5, 0, 'bob1']),
    notices('ana', 'UTC', [
        {'item': iid('ana', 'g9', 'goalCompleted'), 'day': '2026-12-01', 'kind': 'clap', 'reactors': ['bob'],
         'text': 'Bob cheered 👏 your finished Read'},
        {'item': iid('ana', 'g9', 'goalStarted'), 'day': '2026-12-01', 'kind': 'clap', 'reactors': ['bob'],
         'text': 'Bob cheered 👏 your new goal Read'}])])

# FEED-24: deltas.


def changes(source, into, since):
    return (do('changes', source, into=into, since=since), OK)


script('a device that has everything up to a stamp catches up with the changes since it', ['FEED-24'], [
    act('request', 'ana', 'bob', st(100, 'ana1'), 'a'), vis('ana', 'g1', 'public', st(110, 'ana1'), 'a'),
    put(item('ana', 'g1', 1000), st(120, 'ana1'), 'a'), merge('b', 'a'),
    put(item('ana', 'g2', 2000), st(130, 'ana1'), 'a'), vis('ana', 'g2', 'public', st(140, 'ana1'), 'a'),
    act('cancel', 'ana', 'bob', st(150, 'ana1'), 'a'), withdraw(iid('ana', 'g1'), st(160, 'ana1'), 'a'),
    changes('a', 'b', st(120, 'ana1')), equal('a', 'b'), page('cat', [iid('ana', 'g2')], replica='b'),
    state('bob', 'ana', 'none', 'b')])
script('changes since a stamp leave out what is not newer; none since the latest; all with no watermark', ['FEED-24'], [
    put(item('ana', 'g1', 1000), st(120, 'ana1'), 'a'), vis('ana', 'g1', 'public', st(130, 'ana1'), 'a'),
    changes('a', 'b', st(130, 'ana1')), page('cat', [], replica='b'),
    changes('a', 'c', st(125, 'ana1')), page('cat', [], replica='c'), page('ana', [], replica='c'),
    changes('a', 'd', None), equal('a', 'd'), page('cat', [iid('ana', 'g1')], replica='d')])
write('script.json', 'feed.script',
      'A script over named feed replicas (`replica`, "r" when absent; each starts empty). Writes: `stance`, `item` '
      '(an item, or `withdraw` ID), `visibility`, `receive` (an item\'s receipt time `at`), `seen` (`person`, '
      '`upTo`); actions: `act` (`action` from `from` to `to`), `react` (`reactor`, `item`, `kind`, `on`); `merge` '
      '(`from` into `replica`); reads: `state` (`a` toward `b`), `page` (`viewer`, `limit`, `cursor`, where "$next" '
      'is the last page\'s next cursor), `reactions`, `badge`, `notices` (`owner`, `zone`, `names`), `equal` (whether '
      'the named `replicas` hold the same state), `changes` (the changes of `replica` since the stamp `since`, or '
      'all of it when null, applied to `into`). Stamps are [wall, counter, device]. Each step answers `{"ok": true}`, '
      'its reading, or `{"error": CODE}`.', cases, 'script')
print(len(clock_cases), 'clock cases,', len(cases), 'script cases')
