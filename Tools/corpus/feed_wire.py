#!/usr/bin/env python3
"""Writes Spec/corpus/feed/wire.json and wire_relay.json (FEED-28, FEED-29): the feed's
messages on the wire.

The expected bytes are built here, field by field, from Spec/glow.proto and FEED-28's order,
by a small encoder of the Protocol Buffers wire format that knows nothing of the SDK. Each
encoding case also carries what `protoc --decode` prints for its bytes (run here, when the
generator runs), so the tests can show that standard tools read the same message.
"""

from corpus_file import write_cases, command_line
from feed_messages import (DAY, DAY_NUMBER, delta, item_body, item_id, message, protoc_text, sint, stamp, text,
                           uint, w_item, w_reaction, w_receive, w_seen, w_stance, w_vis, w_withdraw)

command_line(__doc__)


# ---- Script steps (feed.script) ----

OK = {'ok': True}


def check_in(owner='ana', goal='g1', time=1_000, **extra):
    it = {'owner': owner, 'kind': 'checkIn', 'goal': goal, 'time': time, 'title': 'Meditate', 'emoji': '🧘',
          'goalKind': 'single', 'day': DAY}
    it.update(extra)
    return it


CHECK_IN = check_in()
CHECK_IN_ID = item_id(CHECK_IN)
MILESTONE = {'owner': 'ana', 'kind': 'milestone', 'goal': 'g1', 'time': 5_000, 'title': 'Meditate', 'emoji': '🧘',
             'goalKind': 'streak', 'day': DAY, 'streak': 30, 'milestone': 30, 'streakStart': DAY}
STARTED = {'owner': 'ana', 'kind': 'goalStarted', 'goal': 'g2', 'time': 0, 'title': 'Read', 'emoji': '',
           'goalKind': 'tally'}
COMPLETED = {'owner': 'ana', 'kind': 'goalCompleted', 'goal': 'g3', 'time': 7_000, 'title': 'Run a 10k',
             'emoji': '🏃', 'goalKind': 'single', 'day': DAY}

cases = []


def encoding(comment, writes, hex_bytes, rules=('FEED-28',)):
    """Writes made on replica r, its encoding, and that the bytes read back into an equal replica
    whose encoding is the same bytes."""
    steps = [dict(w) for w in writes]
    answers = [OK if w['do'] != 'item' else {'ok': True, 'id': w.get('withdraw') or item_id(w['item'])}
               for w in writes]
    steps += [{'do': 'encode'}, {'do': 'decode', 'hex': hex_bytes.hex(), 'into': 'back'},
              {'do': 'equal', 'replicas': ['r', 'back']}, {'do': 'encode', 'replica': 'back'}]
    answers += [{'hex': hex_bytes.hex()}, OK, {'equal': True}, {'hex': hex_bytes.hex()}]
    cases.append({'comment': comment, 'rules': list(rules), 'flags': ['Required'], 'input': {'steps': steps}, 'result': 'valid',
                  'expected': {'steps': answers},
                  'protoc': {'message': 'glow.v1.FeedDelta', 'hex': hex_bytes.hex(),
                             'text': protoc_text('FeedDelta', hex_bytes)}})


def reading(comment, hex_bytes, writes, canonical, rules=('FEED-28',)):
    """Bytes that are not canonical (or not only) read as the replica `writes` make, and
    re-encode as `canonical`."""
    steps = [dict(w) for w in writes]
    answers = [OK if w['do'] != 'item' else {'ok': True, 'id': w.get('withdraw') or item_id(w['item'])}
               for w in writes]
    steps += [{'do': 'decode', 'hex': hex_bytes.hex(), 'into': 'back'}, {'do': 'equal', 'replicas': ['r', 'back']},
              {'do': 'encode', 'replica': 'back'}]
    answers += [OK, {'equal': True}, {'hex': canonical.hex()}]
    cases.append({'comment': comment, 'rules': list(rules), 'flags': ['Required'], 'input': {'steps': steps}, 'result': 'valid',
                  'expected': {'steps': answers}})


def refusing(comment, hex_bytes, code='invalid_value', rules=('FEED-28',)):
    """Bytes refused with `code`; the replica they were read into keeps what it had."""
    before = [w_seen('ana', 5)]
    steps = before + [{'do': 'decode', 'hex': delta(seen=[('ana', 5)]).hex(), 'into': 'back'},
                      {'do': 'decode', 'hex': hex_bytes.hex(), 'into': 'back'},
                      {'do': 'equal', 'replicas': ['r', 'back']}]
    answers = [OK, OK, {'error': code}, {'equal': True}]
    cases.append({'comment': comment, 'rules': list(rules), 'flags': ['Required'], 'input': {'steps': steps}, 'result': 'valid',
                  'expected': {'steps': answers}})


S1 = [5, 0, 'ana1']
S2 = [6, 2, 'ana2']
S3 = [7, 0, 'bob1']

# -- Canonical encodings
encoding('an empty replica is no bytes', [], b'')
encoding('a request to befriend: a stance register with its stamp and no last "no"',
         [w_stance('ana', 'bob', 'want', S1)], delta(stances=[('ana', 'bob', 'want', S1, None)]))
encoding('a stance of "none" carries its last "no", the same stamp (FEED-3)',
         [w_stance('ana', 'bob', 'none', S1)], delta(stances=[('ana', 'bob', 'none', S1, S1)]))
encoding('a want after a "no": the register keeps both stamps',
         [w_stance('ana', 'bob', 'none', S1), w_stance('ana', 'bob', 'want', S2)],
         delta(stances=[('ana', 'bob', 'want', S2, S1)]))
encoding('a block', [w_stance('bob', 'ana', 'block', S3)], delta(stances=[('bob', 'ana', 'block', S3, None)]))
encoding('a check-in item with its Day, and an emoji of four UTF-8 bytes',
         [w_item(CHECK_IN, S1)], delta(items=[(CHECK_IN_ID, S1, CHECK_IN)]))
encoding('a check-in item with a streak', [w_item(check_in(streak=12), S1)],
         delta(items=[(CHECK_IN_ID, S1, check_in(streak=12))]))
encoding('a streak of 0 is present, so written', [w_item(check_in(streak=0), S1)],
         delta(items=[(CHECK_IN_ID, S1, check_in(streak=0))]))
encoding('a milestone item: Day, streak, milestone and streak start',
         [w_item(MILESTONE, S1)], delta(items=[(item_id(MILESTONE), S1, MILESTONE)]))
encoding('a goal started at time 0 without emoji or Day: those fields are left out',
         [w_item(STARTED, S1)], delta(items=[(item_id(STARTED), S1, STARTED)]))
encoding('a goal completed, with the Day it was done',
         [w_item(COMPLETED, S1)], delta(items=[(item_id(COMPLETED), S1, COMPLETED)]))
encoding('a withdrawn item: the register without an item',
         [w_withdraw(CHECK_IN_ID, S2)], delta(items=[(CHECK_IN_ID, S2, None)]))
encoding('visibility registers of each value; private is the default 0 and is left out',
         [w_vis('ana', 'g1', 'friends', S1), w_vis('ana', 'g2', 'public', S1), w_vis('ana', 'g3', 'private', S1)],
         delta(visibility=[('ana', 'g1', 'friends', S1), ('ana', 'g2', 'public', S1),
                           ('ana', 'g3', 'private', S1)]))
encoding('reactions on and off: off is the default and is left out',
         [w_reaction(CHECK_IN_ID, 'bob', 'fire', S3, True), w_reaction(CHECK_IN_ID, 'bob', 'heart', S3, False)],
         delta(reactions=[(CHECK_IN_ID, 'bob', 'fire', True, S3), (CHECK_IN_ID, 'bob', 'heart', False, S3)]))
encoding('a seen marker and a receipt time', [w_seen('bob', 4_000), w_receive(CHECK_IN_ID, 3_000)],
         delta(seen=[('bob', 4_000)], receipts=[(CHECK_IN_ID, 3_000)]))
encoding('every kind of register at once, in FEED-28\'s order whatever order they were written in',
         [w_seen('bob', 9), w_reaction(CHECK_IN_ID, 'bob', 'clap', S3, True), w_vis('ana', 'g1', 'friends', S1),
          w_item(CHECK_IN, S2), w_stance('bob', 'ana', 'want', S3), w_stance('ana', 'bob', 'want', S1),
          w_receive(CHECK_IN_ID, 8)],
         delta(stances=[('ana', 'bob', 'want', S1, None), ('bob', 'ana', 'want', S3, None)],
               items=[(CHECK_IN_ID, S2, CHECK_IN)], visibility=[('ana', 'g1', 'friends', S1)],
               reactions=[(CHECK_IN_ID, 'bob', 'clap', True, S3)], seen=[('bob', 9)],
               receipts=[(CHECK_IN_ID, 8)]))
encoding('texts sort by UTF-8 bytes: "Zoe" < "ana" < "émile"',
         [w_stance('émile', 'ana', 'want', S1), w_stance('ana', 'bob', 'want', S1), w_stance('Zoe', 'ana', 'want', S1)],
         delta(stances=[('Zoe', 'ana', 'want', S1, None), ('ana', 'bob', 'want', S1, None),
                        ('émile', 'ana', 'want', S1, None)]))
encoding('reactions sort by item, then reactor, then kind name: clap < fire < heart',
         [w_reaction(CHECK_IN_ID, 'bob', 'heart', S3, True), w_reaction(CHECK_IN_ID, 'bob', 'clap', S3, True),
          w_reaction(CHECK_IN_ID, 'ann', 'fire', S3, True)],
         delta(reactions=[(CHECK_IN_ID, 'ann', 'fire', True, S3), (CHECK_IN_ID, 'bob', 'clap', True, S3),
                          (CHECK_IN_ID, 'bob', 'heart', True, S3)]))
encoding('two check-ins sort by id',
         [w_item(check_in(day='2026-11-30'), S1), w_item(check_in(goal='g0'), S1)],
         delta(items=[(item_id(check_in(goal='g0')), S1, check_in(goal='g0')), (CHECK_IN_ID, S1, CHECK_IN)]))
encoding('the largest wall time and counter a stamp may have',
         [w_stance('ana', 'bob', 'want', [2 ** 53 - 1, 2 ** 32 - 1, 'd'])],
         delta(stances=[('ana', 'bob', 'want', [2 ** 53 - 1, 2 ** 32 - 1, 'd'], None)]))

# -- Reading any valid encoding
stance_body = text(1, 'ana') + text(2, 'bob') + uint(3, 1) + message(4, stamp(S1))
reading('fields of a register in reverse order read the same register',
        message(1, message(4, stamp(S1)) + uint(3, 1) + text(2, 'bob') + text(1, 'ana')),
        [w_stance('ana', 'bob', 'want', S1)], message(1, stance_body))
reading('the same register twice is one register',
        message(1, stance_body) + message(1, stance_body), [w_stance('ana', 'bob', 'want', S1)],
        message(1, stance_body))
reading('an item\'s register twice with two stamps: the later write wins, as a merge would (FEED-21)',
        delta(items=[(CHECK_IN_ID, S2, None)]) + delta(items=[(CHECK_IN_ID, S1, CHECK_IN)]),
        [w_withdraw(CHECK_IN_ID, S2)], delta(items=[(CHECK_IN_ID, S2, None)]), rules=('FEED-28', 'FEED-21'))
reading('a seen marker twice keeps the greater time (FEED-14)',
        delta(seen=[('bob', 9)]) + delta(seen=[('bob', 4)]), [w_seen('bob', 9)], delta(seen=[('bob', 9)]))
reading('a receipt time twice keeps the earlier time (FEED-13)',
        delta(receipts=[(CHECK_IN_ID, 4)]) + delta(receipts=[(CHECK_IN_ID, 9)]), [w_receive(CHECK_IN_ID, 4)],
        delta(receipts=[(CHECK_IN_ID, 4)]))
reading('a stamp given in two parts merges field by field (WIRE-6)',
        message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 1) + message(4, sint(1, 5)) + message(4, text(3, 'ana1'))),
        [w_stance('ana', 'bob', 'want', S1)], message(1, stance_body))
reading('fields this version does not know are skipped, in the delta and in a register',
        uint(9, 7) + message(1, stance_body + text(15, 'later')) + message(12, b'\x08\x01'),
        [w_stance('ana', 'bob', 'want', S1)], message(1, stance_body))
reading('a stance of "none" without its last "no" reads with the stance\'s stamp as its last "no"',
        message(1, text(1, 'ana') + text(2, 'bob') + message(4, stamp(S1))),
        [w_stance('ana', 'bob', 'none', S1)], delta(stances=[('ana', 'bob', 'none', S1, S1)]))
reading('a "want" and a last "no" with equal stamps: the want outranks (FEED-3)',
        message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 1) + message(4, stamp(S1)) + message(5, stamp(S1))),
        [w_stance('ana', 'bob', 'none', S1), w_stance('ana', 'bob', 'want', S1)],
        delta(stances=[('ana', 'bob', 'want', S1, S1)]))
reading('a check-in item carrying a milestone and a streak start reads without them: an item has the fields '
        'of its kind (FEED-6)',
        message(2, text(1, CHECK_IN_ID) + message(2, stamp(S1))
                + message(3, item_body(CHECK_IN) + uint(10, 30, True) + sint(11, DAY_NUMBER, True))),
        [w_item(CHECK_IN, S1)], delta(items=[(CHECK_IN_ID, S1, CHECK_IN)]), rules=('FEED-28', 'FEED-6'))
reading('a goal started carrying a Day and a streak reads without them (FEED-6)',
        message(2, text(1, item_id(STARTED)) + message(2, stamp(S1))
                + message(3, item_body(STARTED) + sint(8, DAY_NUMBER, True) + uint(9, 4, True))),
        [w_item(STARTED, S1)], delta(items=[(item_id(STARTED), S1, STARTED)]), rules=('FEED-28', 'FEED-6'))
reading('a default written out (a time of 0) reads as the default and is left out again',
        message(2, text(1, item_id(STARTED)) + message(2, stamp(S1)) + message(3, item_body(STARTED) + sint(4, 0, True))),
        [w_item(STARTED, S1)], delta(items=[(item_id(STARTED), S1, STARTED)]))

# -- What is read is a replica like any other: its pages, reactions and badge (FEED-9, FEED-12)
PUBLIC_ITEM = check_in(goal='g-pub', time=3_000)
FRIENDS_ITEM = check_in(goal='g-fri', time=2_000)
shared = delta(stances=[('ana', 'bob', 'want', S1, None), ('bob', 'ana', 'want', S3, None)],
               items=[(item_id(PUBLIC_ITEM), S2, PUBLIC_ITEM), (item_id(FRIENDS_ITEM), S2, FRIENDS_ITEM)],
               visibility=[('ana', 'g-pub', 'public', S1), ('ana', 'g-fri', 'friends', S1)],
               reactions=[(item_id(FRIENDS_ITEM), 'bob', 'heart', True, S3)],
               receipts=[(item_id(PUBLIC_ITEM), 30), (item_id(FRIENDS_ITEM), 20)], seen=[('bob', 25)])
cases.append({
    'comment': 'a replica read from bytes pages, counts and badges like the one that wrote them: bob (a friend) '
               'sees both items, the newer unread, and his heart; cat (a stranger) the public one only',
    'rules': ['FEED-28', 'FEED-9', 'FEED-12', 'FEED-15', 'FEED-16'], 'flags': ['Required'], 'result': 'valid',
    'input': {'steps': [
        {'do': 'decode', 'hex': shared.hex(), 'into': 'r'},
        {'do': 'page', 'viewer': 'bob', 'limit': 10},
        {'do': 'page', 'viewer': 'cat', 'limit': 10},
        {'do': 'reactions', 'item': item_id(FRIENDS_ITEM), 'viewer': 'bob'},
        {'do': 'badge', 'viewer': 'bob'},
        {'do': 'encode'}]},
    'expected': {'steps': [
        OK,
        {'items': [item_id(PUBLIC_ITEM), item_id(FRIENDS_ITEM)], 'next': False},
        {'items': [item_id(PUBLIC_ITEM)], 'next': False},
        {'counts': {'heart': 1, 'fire': 0, 'clap': 0}, 'mine': ['heart']},
        {'badge': 1},
        {'hex': shared.hex()}]}})

# -- Refusals
good_stamp = message(4, stamp(S1))
refusing('a stance without a stamp', message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 1)))
refusing('an item register without a stamp', message(2, text(1, CHECK_IN_ID) + message(3, item_body(CHECK_IN))))
refusing('a stamp without a device (FEED-1)',
         message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 1) + message(4, sint(1, 5))))
refusing('a stamp whose wall time is past 2^53 − 1 (FEED-1)',
         message(1, text(1, 'ana') + text(2, 'bob') + message(4, stamp([2 ** 53, 0, 'd']))))
refusing('a stamp whose wall time is negative (FEED-1)',
         message(1, text(1, 'ana') + text(2, 'bob') + message(4, stamp([-1, 0, 'd']))))
refusing('a counter past 2^32 − 1 (WIRE-16)',
         message(1, text(1, 'ana') + text(2, 'bob') + message(4, sint(1, 5) + uint(2, 2 ** 32) + text(3, 'd'))),
         rules=('FEED-28', 'WIRE-16'))
refusing('an item register whose id is not its item\'s',
         message(2, text(1, 'ana/checkIn/g9/' + DAY) + message(2, stamp(S1)) + message(3, item_body(CHECK_IN))))
refusing('an item register with an empty id', message(2, message(2, stamp(S1))))
refusing('an item without a title (FEED-6)',
         message(2, text(1, CHECK_IN_ID) + message(2, stamp(S1)) + message(3, item_body(dict(CHECK_IN, title='')))),
         rules=('FEED-28', 'FEED-6'))
refusing('a check-in item without its Day (FEED-6)',
         message(2, text(1, 'ana/checkIn/g1/') + message(2, stamp(S1))
                 + message(3, item_body({k: v for k, v in CHECK_IN.items() if k != 'day'}))), rules=('FEED-28', 'FEED-6'))
refusing('an item kind this version does not name',
         message(2, text(1, 'ana/x/g1') + message(2, stamp(S1))
                 + message(3, text(1, 'ana') + uint(2, 4) + text(3, 'g1') + text(5, 'T'))))
refusing('a stance number this version does not name', message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 3)
                                                               + good_stamp))
refusing('a visibility number this version does not name',
         message(3, text(1, 'ana') + text(2, 'g1') + uint(3, 3) + good_stamp))
refusing('a reaction kind this version does not name',
         message(4, text(1, CHECK_IN_ID) + text(2, 'bob') + uint(3, 3) + uint(4, 1) + message(5, stamp(S3))))
refusing('a stance of a person toward themself', message(1, text(1, 'ana') + text(2, 'ana') + uint(3, 1) + good_stamp))
refusing('a stance without its "to"', message(1, text(1, 'ana') + uint(3, 1) + good_stamp))
refusing('a last "no" newer than the stance\'s stamp',
         message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 1) + good_stamp + message(5, stamp(S2))))
refusing('a visibility register without its goal', message(3, text(1, 'ana') + uint(3, 1) + good_stamp))
refusing('a reaction without its reactor', message(4, text(1, CHECK_IN_ID) + uint(4, 1) + message(5, stamp(S3))))
refusing('a seen marker without its person', message(5, sint(2, 9)))
refusing('a receipt time without its item', message(6, sint(2, 9)))
refusing('a Day outside years 1 to 9999 (WIRE-17)',
         message(2, text(1, CHECK_IN_ID) + message(2, stamp(S1))
                 + message(3, item_body({k: v for k, v in CHECK_IN.items() if k != 'day'}) + sint(8, 3_000_000, True))),
         rules=('FEED-28', 'WIRE-17'))
refusing('a streak past 2^32 − 1 (WIRE-16)',
         message(2, text(1, CHECK_IN_ID) + message(2, stamp(S1)) + message(3, item_body(CHECK_IN) + uint(9, 2 ** 32))),
         rules=('FEED-28', 'WIRE-16'))
refusing('a register cut short (WIRE-9)', message(1, stance_body)[:-3], code='truncated', rules=('FEED-28', 'WIRE-9'))
refusing('a register given as a varint (WIRE-12)', uint(2, 5), code='invalid_wire_type', rules=('FEED-28', 'WIRE-12'))

write_cases('feed', 'wire.json', 'feed.script',
            'The feed\'s messages (FEED-28), as feed.script steps: `encode` answers the canonical bytes of '
            'the step\'s replica as hex; `decode` reads hex into the replica `into` and answers ok, or the wire '
            'error\'s code and leaves `into` as it was. Encoding cases also give what protoc prints for their '
            'bytes.', cases, 'wire')

# ---- The relay's messages (FEED-29), as feed.relay steps ----

relay_cases = []


def request_submit(body):
    return message(1, body)


def request_changes(since):
    return uint(2, since, present=True)


def response_submitted(sequence):
    return uint(1, sequence, present=True)


def response_changes(body, cursor):
    return message(2, message(1, body) + uint(2, cursor))


PUB = check_in(goal='g-pub', time=3_000)
PUB_ID = item_id(PUB)
A1 = [10, 0, 'ana1']
A2 = [11, 0, 'ana1']
B1 = [12, 0, 'bob1']


def relay_case(comment, steps, answers, rules=('FEED-29',)):
    relay_cases.append({'comment': comment, 'rules': list(rules), 'flags': ['Required'], 'result': 'valid',
                        'input': {'steps': steps}, 'expected': {'steps': answers}})


submit_pub = request_submit(delta(items=[(PUB_ID, A2, PUB)], visibility=[('ana', 'g-pub', 'public', A1)]))
# FEED-25: the item (1) before the visibility (2); FEED-26: the item's receipt time is max(1000, 0 + 1).
relay_case('a submit in bytes is answered with the last sequence number; a stranger\'s changes in bytes hold '
           'the public item, its receipt time and its goal\'s visibility (FEED-25, FEED-26, FEED-27)',
           [{'do': 'request', 'person': 'ana', 'now': 1_000, 'hex': submit_pub.hex()},
            {'do': 'request', 'person': 'bob', 'now': 1_001, 'hex': request_changes(0).hex()},
            {'do': 'request', 'person': 'bob', 'now': 1_002, 'hex': request_changes(2).hex()}],
           [{'hex': response_submitted(2).hex()},
            {'hex': response_changes(delta(items=[(PUB_ID, A2, PUB)], visibility=[('ana', 'g-pub', 'public', A1)],
                                           receipts=[(PUB_ID, 1_000)]), 2).hex()},
            {'hex': response_changes(b'', 2).hex()}],
           rules=('FEED-29', 'FEED-25', 'FEED-26', 'FEED-27'))
relay_case('an empty submit changes nothing: it is answered with sequence number 0, written out',
           [{'do': 'request', 'person': 'ana', 'now': 1_000, 'hex': request_submit(b'').hex()}],
           [{'hex': response_submitted(0).hex()}])
relay_case('a submit of someone else\'s writes is refused with FEED-25\'s code and rule, and changes nothing',
           [{'do': 'request', 'person': 'bob', 'now': 1_000, 'hex': submit_pub.hex()},
            {'do': 'request', 'person': 'cat', 'now': 1_001, 'hex': request_changes(0).hex()}],
           [{'error': 'not_author', 'rule': 'FEED-25'}, {'hex': response_changes(b'', 0).hex()}],
           rules=('FEED-29', 'FEED-25'))
relay_case('a reaction to one\'s own item in bytes is own_item',
           [{'do': 'request', 'person': 'ana', 'now': 1_000,
             'hex': request_submit(delta(reactions=[(PUB_ID, 'ana', 'heart', True, A1)])).hex()}],
           [{'error': 'own_item', 'rule': 'FEED-25'}], rules=('FEED-29', 'FEED-25'))
relay_case('a request with neither member is invalid_value under FEED-29',
           [{'do': 'request', 'person': 'ana', 'now': 1_000, 'hex': ''}],
           [{'error': 'invalid_value', 'rule': 'FEED-29'}])
relay_case('a request cut short is the wire error, truncated (WIRE-9)',
           [{'do': 'request', 'person': 'ana', 'now': 1_000, 'hex': submit_pub[:-2].hex()}],
           [{'error': 'truncated', 'rule': 'WIRE-9'}], rules=('FEED-29', 'WIRE-9'))
relay_case('a delta that breaks FEED-28 is refused before the relay looks at it',
           [{'do': 'request', 'person': 'ana', 'now': 1_000,
             'hex': request_submit(message(1, text(1, 'ana') + text(2, 'bob') + uint(3, 1))).hex()},
            {'do': 'request', 'person': 'bob', 'now': 1_001, 'hex': request_changes(0).hex()}],
           [{'error': 'invalid_value', 'rule': 'FEED-28'}, {'hex': response_changes(b'', 0).hex()}],
           rules=('FEED-29', 'FEED-28'))
relay_case('a field of a request this version does not know is skipped',
           [{'do': 'request', 'person': 'ana', 'now': 1_000, 'hex': submit_pub.hex()},
            {'do': 'request', 'person': 'ana', 'now': 1_001, 'hex': (request_changes(2) + uint(9, 1)).hex()}],
           [{'hex': response_submitted(2).hex()}, {'hex': response_changes(b'', 2).hex()}])

relay_case('a cursor ahead of the relay (one from a relay whose state was lost) is answered from the start: '
           'everything the viewer may see, and the relay\'s own cursor',
           [{'do': 'request', 'person': 'ana', 'now': 1_000, 'hex': submit_pub.hex()},
            {'do': 'request', 'person': 'bob', 'now': 1_001, 'hex': request_changes(99).hex()}],
           [{'hex': response_submitted(2).hex()},
            {'hex': response_changes(delta(items=[(PUB_ID, A2, PUB)], visibility=[('ana', 'g-pub', 'public', A1)],
                                           receipts=[(PUB_ID, 1_000)]), 2).hex()}],
           rules=('FEED-29', 'FEED-27'))
relay_case('a submit whose delta carries another person\'s stance toward the asker is not_author',
           [{'do': 'request', 'person': 'ana', 'now': 1_000,
             'hex': request_submit(delta(stances=[('bob', 'ana', 'want', B1, None)])).hex()}],
           [{'error': 'not_author', 'rule': 'FEED-25'}], rules=('FEED-29', 'FEED-25'))

write_cases('feed', 'wire_relay.json', 'feed.relay',
            'The relay\'s messages (FEED-29), as feed.relay steps: `request` hands the relay the hex bytes of a '
            'RelayRequest from `person` at time `now`, and answers the hex bytes of its RelayResponse, or, for an '
            'error response, its code and rule (its message is for people and is not compared).',
            relay_cases, 'wire-relay')
