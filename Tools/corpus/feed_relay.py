#!/usr/bin/env python3
"""Writes Spec/corpus/feed/relay.json (FEED-25 ... FEED-27): scripts against one relay.

Each answer is worked out by hand beside its step: the sequence numbers in FEED-25's order, the
receipt times of FEED-26, and what FEED-27 lets each viewer learn. ana and bob are friends; cat
and dan are strangers to ana; ana's g-pub is public and g-fri friends-only.
"""

from corpus_file import write_cases, command_line
from feed_messages import w_item, w_reaction, w_seen, w_stance, w_vis, w_withdraw

command_line(__doc__)

DAY = '2026-11-30'


def st(wall, device):
    return [wall, 0, device]


def item(owner, goal, time):
    return {'owner': owner, 'kind': 'checkIn', 'goal': goal, 'time': time, 'title': 'Meditate', 'emoji': '🧘',
            'goalKind': 'single', 'day': DAY}


def iid(owner, goal):
    return '%s/checkIn/%s/%s' % (owner, goal, DAY)


def submit(person, now, writes, answer):
    return ({'do': 'submit', 'person': person, 'now': now, 'writes': writes}, answer)


def fetch(viewer, answer, since=None):
    s = {'do': 'fetch', 'viewer': viewer}
    if since is not None:
        s['since'] = since
    return (s, answer)


def delta(cursor, items=(), withdrawn=(), receipts=None, stances=(), visibility=(), reactions=(), seen=None):
    return {'cursor': cursor, 'items': list(items), 'withdrawn': list(withdrawn), 'receipts': receipts or {},
            'stances': sorted(list(s) for s in stances), 'visibility': sorted(list(v) for v in visibility),
            'reactions': sorted(list(r) for r in reactions), 'seen': seen}


FRI, PUB = iid('ana', 'g-fri'), iid('ana', 'g-pub')
# ana's first delta: her stance toward bob (seq 1), the two items by id, g-fri before g-pub (seq 2
# and 3, receipts 1000 and 1001, the second one past the wall clock), the two visibility registers
# (seq 4 and 5). bob's stance is seq 6.
SETUP = [
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(10, 'ana1')), w_vis('ana', 'g-pub', 'public', st(11, 'ana1')),
                         w_vis('ana', 'g-fri', 'friends', st(12, 'ana1')), w_item(item('ana', 'g-pub', 3000), st(13, 'ana1')),
                         w_item(item('ana', 'g-fri', 2000), st(14, 'ana1'))], {'sequence': 5}),
    submit('bob', 1000, [w_stance('bob', 'ana', 'want', st(20, 'bob1'))], {'sequence': 6}),
]
FRIENDS = [['ana', 'bob', 'want'], ['bob', 'ana', 'want']]
VIS = [['ana', 'g-fri', 'friends'], ['ana', 'g-pub', 'public']]
# What a stranger to ana learns of her goals: only the one whose items they may see (FEED-27 (5)).
PUBVIS = [['ana', 'g-pub', 'public']]
RECEIPTS = {FRI: 1000, PUB: 1001}

cases = []


def script(comment, rules, pairs):
    cases.append({'comment': comment, 'rules': rules, 'flags': ['Required'], 'input': {'steps': [s for s, _ in pairs]},
                  'result': 'valid', 'expected': {'steps': [e for _, e in pairs]}})


script('a friend learns both items, a stranger the public one; receipt times never repeat', ['FEED-25', 'FEED-26', 'FEED-27'],
       SETUP + [
    fetch('bob', delta(6, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS)),
    fetch('cat', delta(6, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    fetch('cat', delta(6)), fetch('bob', delta(6))])
script('a goal made public reaches a stranger with its old items', ['FEED-27'], SETUP + [
    fetch('cat', delta(6, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    submit('ana', 2000, [w_vis('ana', 'g-fri', 'public', st(30, 'ana1'))], {'sequence': 7}),
    fetch('cat', delta(7, [FRI, PUB], receipts=RECEIPTS, visibility=[['ana', 'g-fri', 'public'], ['ana', 'g-pub', 'public']]))])
script("only a person's own writes are accepted; a refused delta leaves nothing", ['FEED-25'], [
    submit('bob', 1000, [w_stance('ana', 'bob', 'want', st(10, 'bob1'))], {'error': 'not_author'}),
    submit('bob', 1000, [w_item(item('ana', 'g1', 5), st(11, 'bob1'))], {'error': 'not_author'}),
    submit('bob', 1000, [w_withdraw(iid('ana', 'g1'), st(12, 'bob1'))], {'error': 'not_author'}),
    submit('bob', 1000, [w_vis('ana', 'g1', 'public', st(13, 'bob1'))], {'error': 'not_author'}),
    submit('bob', 1000, [w_reaction(iid('cat', 'g1'), 'ana', 'heart', st(14, 'bob1'))], {'error': 'not_author'}),
    submit('ana', 1000, [w_seen('bob', 5)], {'error': 'not_author'}),
    submit('bob', 1000, [w_stance('bob', 'cat', 'want', st(15, 'bob1')), w_reaction(iid('bob', 'g1'), 'bob', 'fire',
                                                                                       st(16, 'bob1'))], {'error': 'own_item'}),
    submit('bob', 1000, [w_stance('bob', 'ana', 'want', st(17, 'bob1'))], {'sequence': 1}),
    fetch('cat', delta(1)), fetch('ana', delta(1, stances=[['bob', 'ana', 'want']]))])
# After the unfriending ana is affected: bob gets what he may see of hers, the public goal's register
# and item; g-fri's register did not change, and the stance tells his device to hide its item.
script('unfriending: the former friend learns the stance and keeps only the public item', ['FEED-27'], SETUP + [
    fetch('bob', delta(6, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS)),
    submit('bob', 3000, [w_stance('bob', 'ana', 'none', st(40, 'bob1'))], {'sequence': 7}),
    fetch('bob', delta(7, [PUB], receipts={PUB: 1001}, stances=[['bob', 'ana', 'none']], visibility=PUBVIS))])
script('a blocked person learns the block and nothing of the blocker, not even a withdrawal', ['FEED-27'], SETUP + [
    submit('ana', 3000, [w_stance('ana', 'cat', 'block', st(50, 'ana1'))], {'sequence': 7}),
    submit('ana', 3000, [w_withdraw(PUB, st(51, 'ana1'))], {'sequence': 8}),
    fetch('cat', delta(8, stances=[['ana', 'cat', 'block']])),
    fetch('bob', delta(8, [FRI], [PUB], receipts={FRI: 1000}, stances=FRIENDS, visibility=VIS))])
script("reactions travel with the items they are on, and with the stances that decide whether they count",
       ['FEED-27', 'FEED-25'], SETUP + [
    submit('cat', 4000, [w_reaction(PUB, 'cat', 'heart', st(60, 'cat1'))], {'sequence': 7}),
    submit('bob', 4000, [w_reaction(FRI, 'bob', 'fire', st(61, 'bob1'))], {'sequence': 8}),
    fetch('dan', delta(8, [PUB], receipts={PUB: 1001}, visibility=PUBVIS, reactions=[[PUB, 'cat', 'heart', True]])),
    fetch('bob', delta(8, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS,
                       reactions=[[FRI, 'bob', 'fire', True], [PUB, 'cat', 'heart', True]])),
    submit('bob', 4000, [w_reaction(FRI, 'bob', 'fire', st(59, 'bob2'), False)], {'sequence': 8}),
    fetch('bob', delta(8))])
script("a person's seen marker goes to that person only", ['FEED-27', 'FEED-14'], SETUP + [
    submit('ana', 5000, [w_seen('ana', 1001)], {'sequence': 7}),
    submit('ana', 5000, [w_seen('ana', 900)], {'sequence': 7}),
    fetch('ana', delta(7, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS, seen=1001)),
    fetch('bob', delta(7, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS))])
script('the receipt clock goes on when the wall clock goes back', ['FEED-26'], [
    submit('ana', 5000, [w_item(item('ana', 'g1', 1), st(1, 'ana1'))], {'sequence': 1}),
    submit('ana', 4000, [w_item(item('ana', 'g2', 2), st(2, 'ana1'))], {'sequence': 2}),
    submit('ana', 9000, [w_item(item('ana', 'g1', 1), st(3, 'ana2'))], {'sequence': 3}),
    fetch('ana', delta(3, [iid('ana', 'g1'), iid('ana', 'g2')], receipts={iid('ana', 'g1'): 5000, iid('ana', 'g2'): 5001}))])
# Since 4, ana's g-pub visibility (seq 5) changed: ana is affected, so cat gets her visible item and
# the register of the goal he may see again. Since 5 only bob's stance (seq 6) changed, which is not
# cat's.
script('asking from an older cursor answers from there', ['FEED-27'], SETUP + [
    fetch('cat', delta(6, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    fetch('cat', delta(6, [PUB], receipts={PUB: 1001}, visibility=PUBVIS), since=4),
    fetch('cat', delta(6), since=5)])

# cat's block of ana (seq 8) is a stance between the owner of an item dan may see (PUB) and a
# reactor on it (cat), in the direction from the reactor: FEED-27 (4) sends it, so dan's device stops
# counting cat's heart (FEED-12 counts reactors who may see the item). Nothing else changed for dan.
script("a reactor's block of the owner reaches a stranger who was sent the reaction", ['FEED-27', 'FEED-12'],
       SETUP + [
    submit('cat', 4000, [w_reaction(PUB, 'cat', 'heart', st(60, 'cat1'))], {'sequence': 7}),
    fetch('dan', delta(7, [PUB], receipts={PUB: 1001}, visibility=PUBVIS, reactions=[[PUB, 'cat', 'heart', True]])),
    submit('cat', 4000, [w_stance('cat', 'ana', 'block', st(70, 'cat1'))], {'sequence': 8}),
    fetch('dan', delta(8, stances=[['cat', 'ana', 'block']]))])

# FEED-31. bob publishes B1 (item seq 7, receipt max(1500, 1001 + 1) = 1500; his visibility seq 8)
# and ana hearts it (seq 9). ana's greatest wall time is her reaction's 30, so the erasure is
# stamped (max(2000, 31), 0, glow-server) = 2000, later than each of her registers, and changes in
# FEED-25's order: her stance toward bob want -> none (10), her items by id, g-fri (11) and g-pub
# (12), then her reaction, turned off (13). Her visibility registers stay as they were.
B1 = iid('bob', 'g-b')
ERASED_SETUP = SETUP + [
    submit('bob', 1500, [w_vis('bob', 'g-b', 'public', st(21, 'bob1')), w_item(item('bob', 'g-b', 3000), st(22, 'bob1'))],
           {'sequence': 8}),
    submit('ana', 1600, [w_reaction(B1, 'ana', 'heart', st(30, 'ana1'))], {'sequence': 9}),
]
ERASE_ANA = ({'do': 'erase', 'person': 'ana', 'now': 2000}, {'sequence': 13})
script("an erased person's items are withdrawn, stances set to none and cheers turned off; they are "
       "refused from then on, and erasing again changes nothing", ['FEED-31'], ERASED_SETUP + [
    ERASE_ANA,
    submit('ana', 2500, [w_item(item('ana', 'g-new', 4000), st(40, 'ana1'))], {'error': 'person_erased'}),
    fetch('ana', {'error': 'person_erased'}),
    # bob, syncing for the first time, learns ana's stance of none and her cheer off on his own
    # item, his own item with its receipt, and of ana's goals only the public one (no longer
    # friends, he may not see g-fri): its register and its item's withdrawal.
    fetch('bob', delta(13, [B1], [PUB], receipts={B1: 1500},
                       stances=[['ana', 'bob', 'none'], ['bob', 'ana', 'want']],
                       visibility=PUBVIS + [['bob', 'g-b', 'public']], reactions=[[B1, 'ana', 'heart', False]])),
    ({'do': 'erase', 'person': 'ana', 'now': 3000}, {'sequence': 13}),
    fetch('bob', delta(13))])
# The attacker's flow FEED-31 closes: a write the service authenticated before the deletion. One
# that reached the relay first (g-new, seq 7, receipt max(1500, 1002) = 1500) is withdrawn with
# the rest; the erasure's changes: the stance (8), then g-fri (9), g-new (10), g-pub (11). One that
# reaches it after, stamped far ahead to beat the withdrawals, is refused and changes nothing.
NEW = iid('ana', 'g-new')
script('a write from before the deletion is withdrawn with the rest; one arriving after it is refused, '
       'however late its stamp', ['FEED-31', 'FEED-25'], SETUP + [
    submit('ana', 1500, [w_item(item('ana', 'g-new', 4000), st(15, 'ana1'))], {'sequence': 7}),
    ({'do': 'erase', 'person': 'ana', 'now': 2000}, {'sequence': 11}),
    submit('ana', 2100, [w_item(item('ana', 'g-fri', 2000), st(9_000_000_000_000, 'ana1'))], {'error': 'person_erased'}),
    submit('ana', 2100, [w_stance('ana', 'bob', 'want', st(9_000_000_000_000, 'ana1'))], {'error': 'person_erased'}),
    # bob's first sync: of ana's goals he may see only g-pub now (g-new has no register: private).
    fetch('bob', delta(11, [], [PUB], stances=[['ana', 'bob', 'none'], ['bob', 'ana', 'want']],
                       visibility=PUBVIS))])

script('a write stamped more than an hour ahead of the relay is refused with its whole delta, after '
       'authorship and erasure; one exactly an hour ahead is accepted', ['FEED-25'], [
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(3_601_001, 'ana1'))], {'error': 'stamp_ahead'}),
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(10, 'ana1')),
                         w_item(item('ana', 'g1', 5), st(2 ** 53 - 1, 'ana1'))], {'error': 'stamp_ahead'}),
    submit('bob', 1000, [w_stance('ana', 'bob', 'want', st(2 ** 53 - 1, 'bob1'))], {'error': 'not_author'}),
    fetch('bob', delta(0)),
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(3_601_000, 'ana1'))], {'sequence': 1}),
    fetch('bob', delta(1, stances=[['ana', 'bob', 'want']]))])

# Issue 59 item 2, the attacker's flow: a public item stamped within the skew (now + 59:59) but with
# the counter 2^32 − 2 used to be accepted, and every device that took it in refused its own next
# change, clock_exhausted, for an hour. A counter above 2^24 is refused with its whole delta,
# stamp_ahead, whatever its wall time; one of 2^24 is accepted (FEED-2's clocks take in at most
# 2^16, and need sixteen million changes in one millisecond more to reach 2^24).
script('a write whose stamp has a counter no device reaches is refused, stamp_ahead; one of 2^24 is '
       'accepted', ['FEED-25', 'FEED-2'], [
    submit('ana', 1000, [w_item(item('ana', 'g1', 5), [1000 + 3_599_000, 2 ** 32 - 2, 'ana1'])],
           {'error': 'stamp_ahead'}),
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(10, 'ana1')),
                         w_vis('ana', 'g1', 'public', [20, 2 ** 24 + 1, 'ana1'])], {'error': 'stamp_ahead'}),
    fetch('bob', delta(0)),
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', [20, 2 ** 24, 'ana1'])], {'sequence': 1}),
    fetch('bob', delta(1, stances=[['ana', 'bob', 'want']]))])

# The attacker's flow of issue 44 item 7: cheers on items the cheerer may not see, or that do not
# exist, reaching their owner; and of issue 59 item 5: whether the relay's answer tells a missing
# item from a hidden one. cat is a stranger to ana: her g-fri item is hidden from him, and g-none has
# no item register at all. His delta's stance toward ana takes seq 7; his heart on g-fri and his fire
# on g-none are both taken in turned off, with their stamps, judged alike (FEED-25): by item id,
# ana/checkIn/g-fri/... (seq 8) before ana/checkIn/g-none/... (seq 9), so the answer is 9 whether
# g-none exists or not. His heart on the public item is kept (seq 10). ana, asked since 6, learns the
# stance and both hearts as the relay holds them; nothing of g-none, which names no item she may
# see (FEED-27 (3)). After ana makes g-pub private (seq 11) cat may still take his heart back
# (seq 12), and a new heart from him there is taken in turned off: its stamp is later, so the
# register changes; his fire on g-none, off at a later stamp, changes its register too: g-none
# (seq 13) before g-pub (seq 14).
NONE = iid('ana', 'g-none')
script('a cheer on an item the cheerer may not see and one on an item that does not exist are both taken in '
       'turned off, alike, and the rest of the delta is kept', ['FEED-25', 'FEED-11', 'FEED-27'], SETUP + [
    submit('cat', 2000, [w_stance('cat', 'ana', 'want', st(40, 'cat1')), w_reaction(FRI, 'cat', 'heart', st(40, 'cat1')),
                         w_reaction(NONE, 'cat', 'fire', st(40, 'cat1'))], {'sequence': 9}),
    submit('cat', 2000, [w_reaction(PUB, 'cat', 'heart', st(41, 'cat1'))], {'sequence': 10}),
    fetch('ana', delta(10, reactions=[[FRI, 'cat', 'heart', False], [PUB, 'cat', 'heart', True]],
                       stances=[['cat', 'ana', 'want']]), since=6),
    submit('ana', 2000, [w_vis('ana', 'g-pub', 'private', st(42, 'ana1'))], {'sequence': 11}),
    submit('cat', 2000, [w_reaction(PUB, 'cat', 'heart', st(43, 'cat1'), False)], {'sequence': 12}),
    submit('cat', 2000, [w_reaction(PUB, 'cat', 'heart', st(44, 'cat1')), w_reaction(NONE, 'cat', 'fire', st(44, 'cat1'), False)],
           {'sequence': 14}),
    fetch('ana', delta(14, reactions=[[PUB, 'cat', 'heart', False]], stances=[['cat', 'ana', 'want']]), since=11)])

# Issue 59 item 5, the guesser's own view: cat guesses the days of ana's hidden check-ins by
# cheering ids. A guess at a hidden check-in that exists (g-fri's) and one at a day with none
# (g-fri on another day) move the relay's numbers alike: each delta is one register changed, so
# each answer is the last number plus one (7, then 8), and cat's own sync since 6 tells him of
# neither item (FEED-9: he may see neither) nor of either cheer (FEED-27 (3)): only its cursor.
OTHER_DAY = '%s/checkIn/%s/%s' % ('ana', 'g-fri', '2024-01-02')
script("a guess at a hidden check-in's id is answered alike whether the check-in exists or not",
       ['FEED-25', 'FEED-9', 'FEED-27'], SETUP + [
    submit('cat', 2000, [w_reaction(FRI, 'cat', 'heart', st(40, 'cat1'))], {'sequence': 7}),
    submit('cat', 2000, [w_reaction(OTHER_DAY, 'cat', 'heart', st(41, 'cat1'))], {'sequence': 8}),
    fetch('cat', delta(8), since=6)])

# FEED-25's bound on a delta, on a relay set to take 3 registers: four (ana's stance, two
# visibility registers and an item) are refused before their authorship is looked at, even with a
# foreign write among them; three are accepted, numbered 1 to 3 (stance, item, visibility).
cases.append({'comment': 'a delta of more registers than the relay takes is refused first, too_many_writes; '
                         'one at the limit is accepted', 'rules': ['FEED-25'], 'flags': ['Required'],
              'input': {'maxDeltaWrites': 3, 'steps': [s for s, _ in [
                  submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(10, 'ana1')), w_vis('ana', 'g1', 'public', st(11, 'ana1')),
                                       w_vis('ana', 'g2', 'public', st(12, 'ana1')), w_item(item('cat', 'g1', 5), st(13, 'ana1'))],
                         None),
                  submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(10, 'ana1')), w_vis('ana', 'g1', 'public', st(11, 'ana1')),
                                       w_item(item('ana', 'g1', 5), st(13, 'ana1'))], None)]]},
              'result': 'valid', 'expected': {'steps': [{'error': 'too_many_writes'}, {'sequence': 3}]}})

# FEED-27's pages, on a relay whose answers may hold 1 byte: none fits, so each page is one entry
# of the log, the last one whole. bob asks from 0 after the setup's six entries. Entry 1 is ana's
# stance toward him: it makes ana affected, so her items he may see now come (with receipts) and
# her visibility registers, and the stance itself; entry 6, his own stance, is not yet counted as
# changed. Entries 2 and 3 are the items, each sent alone as changed. Entries 4 and 5, her
# visibility registers, each make her affected again. Entry 6 is the last: answered whole, with
# bob's stance, and no `more`.
def page(cursor, **members):
    answer = delta(cursor, **members)
    answer['more'] = True
    return answer


BOTH = dict(items=[FRI, PUB], receipts=RECEIPTS, visibility=VIS)
cases.append({'comment': 'an answer past the relay\'s bound comes in pages, each as if the log ended at its '
                         'cursor, the last one without more', 'rules': ['FEED-27', 'FEED-29'], 'flags': ['Required'],
              'input': {'maxAnswerBytes': 1, 'steps': [s for s, _ in SETUP] + [
                  {'do': 'fetch', 'viewer': 'bob'}, {'do': 'fetch', 'viewer': 'bob'}, {'do': 'fetch', 'viewer': 'bob'},
                  {'do': 'fetch', 'viewer': 'bob'}, {'do': 'fetch', 'viewer': 'bob'}, {'do': 'fetch', 'viewer': 'bob'}]},
              'result': 'valid', 'expected': {'steps': [e for _, e in SETUP] + [
                  page(1, stances=[['ana', 'bob', 'want']], **BOTH),
                  page(2, items=[FRI], receipts={FRI: 1000}),
                  page(3, items=[PUB], receipts={PUB: 1001}),
                  page(4, **BOTH), page(5, **BOTH),
                  delta(6, stances=[['bob', 'ana', 'want']], **BOTH)]}})

# Issue 44 item 6, the attacker's flow: a stranger's first sync showed another person's goal ids
# (private ones included), their visibility settings and undone check-ins with their Day. ana
# withdraws her friends-only item (seq 7) and makes a new goal g-priv, private (seq 8). cat, a
# stranger, learns only the public goal and its item; bob, her friend, also the friends-only goal and
# the withdrawal of its item. Neither learns g-priv, which nobody but ana may see.
script("a first sync brings no goal id, setting or withdrawn check-in of a goal the viewer may not see",
       ['FEED-27', 'FEED-9'], SETUP + [
    submit('ana', 2000, [w_withdraw(FRI, st(30, 'ana1')), w_vis('ana', 'g-priv', 'private', st(30, 'ana1'))],
           {'sequence': 8}),
    fetch('cat', delta(8, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    fetch('bob', delta(8, [PUB], [FRI], receipts={PUB: 1001}, stances=FRIENDS, visibility=VIS))])

# cat syncs (cursor 6) while g-pub is public, so his device holds its item. ana makes g-pub private
# (seq 7: it stops being public and shared there) and then friends-only (seq 8). cat, from 6, may not
# see g-pub now, but it was public at his cursor (it stopped being public at 7 > 6): he gets its
# register, friends, and his device hides the item. dan never synced (cursor 0): his device holds
# nothing, so he learns nothing of ana. bob, her friend, may see both goals now.
script('a goal that stops being public reaches the strangers whose devices may hold its items, '
       'through two changes; a first sync learns nothing of it', ['FEED-27', 'FEED-25'], SETUP + [
    fetch('cat', delta(6, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    submit('ana', 2000, [w_vis('ana', 'g-pub', 'private', st(30, 'ana1'))], {'sequence': 7}),
    submit('ana', 2000, [w_vis('ana', 'g-pub', 'friends', st(31, 'ana1'))], {'sequence': 8}),
    fetch('cat', delta(8, visibility=[['ana', 'g-pub', 'friends']])),
    fetch('dan', delta(8)),
    fetch('bob', delta(8, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS,
                       visibility=[['ana', 'g-fri', 'friends'], ['ana', 'g-pub', 'friends']]))])

# Both sync at 6. ana makes g-fri private (seq 7: it stops being shared there). bob, her friend, held
# its item: he gets the register, and, ana being affected, her public goal and its item again. cat,
# a stranger, never could see g-fri: he gets only what he may see of ana's.
script('a friend learns that a shared goal went private; a stranger does not learn of it', ['FEED-27', 'FEED-25'],
       SETUP + [
    fetch('bob', delta(6, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS)),
    fetch('cat', delta(6, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    submit('ana', 2000, [w_vis('ana', 'g-fri', 'private', st(30, 'ana1'))], {'sequence': 7}),
    fetch('bob', delta(7, [PUB], receipts={PUB: 1001}, visibility=[['ana', 'g-fri', 'private'], ['ana', 'g-pub', 'public']])),
    fetch('cat', delta(7, [PUB], receipts={PUB: 1001}, visibility=PUBVIS))])

# The flow the device simulation found: bob holds ana's friends-only item (cursor 6), unfriends her
# (seq 7) and syncs; ana makes g-fri private while they are not friends (seq 8), which bob's next
# sync does not tell him (he may not see it, and may not hold it as a friend). He asks again (seq 9)
# and she accepts (seq 10: her want is after his "no", FEED-4). Asked since 8, ana is affected: his
# device may hold g-fri's item from before, and g-fri stopped being shared at 8 > 0 while they are
# friends now, so he gets its register, private, and his device keeps the item hidden.
script('a friend back after a break learns of a shared goal made private meanwhile', ['FEED-27', 'FEED-25'],
       SETUP + [
    fetch('bob', delta(6, [FRI, PUB], receipts=RECEIPTS, stances=FRIENDS, visibility=VIS)),
    submit('bob', 3000, [w_stance('bob', 'ana', 'none', st(40, 'bob1'))], {'sequence': 7}),
    fetch('bob', delta(7, [PUB], receipts={PUB: 1001}, stances=[['bob', 'ana', 'none']], visibility=PUBVIS)),
    submit('ana', 3000, [w_vis('ana', 'g-fri', 'private', st(41, 'ana1'))], {'sequence': 8}),
    fetch('bob', delta(8, [PUB], receipts={PUB: 1001}, visibility=PUBVIS)),
    submit('bob', 3000, [w_stance('bob', 'ana', 'want', st(42, 'bob1'))], {'sequence': 9}),
    submit('ana', 3000, [w_stance('ana', 'bob', 'want', st(43, 'ana1'))], {'sequence': 10}),
    fetch('bob', delta(10, [PUB], receipts={PUB: 1001}, stances=FRIENDS,
                       visibility=[['ana', 'g-fri', 'private'], ['ana', 'g-pub', 'public']]))])

# FEED-27's pages count each register at its current number only. ana's stance toward bob is
# numbered 1, her g-pub visibility 2, and the stance again 3 (want, then none): the current numbers
# are 2 and 3. On a 1-byte relay bob's first page ends at 2 and holds only what 2 makes changed:
# g-pub's register (ana is affected by it), not the stance, whose number 1 is none now. The last
# page, from 2, holds the stance (and, ana affected again, g-pub's register), whole, without more.
RESTANCE = [
    submit('ana', 1000, [w_stance('ana', 'bob', 'want', st(10, 'ana1'))], {'sequence': 1}),
    submit('ana', 1000, [w_vis('ana', 'g-pub', 'public', st(11, 'ana1'))], {'sequence': 2}),
    submit('ana', 1000, [w_stance('ana', 'bob', 'none', st(12, 'ana1'))], {'sequence': 3}),
]
cases.append({'comment': "a page counts a register at its current number only, not at one it had before it changed again",
              'rules': ['FEED-27'], 'flags': ['Required'],
              'input': {'maxAnswerBytes': 1, 'steps': [s for s, _ in RESTANCE] + [
                  {'do': 'fetch', 'viewer': 'bob'}, {'do': 'fetch', 'viewer': 'bob'}]},
              'result': 'valid', 'expected': {'steps': [e for _, e in RESTANCE] + [
                  page(2, visibility=PUBVIS),
                  delta(3, stances=[['ana', 'bob', 'none']], visibility=PUBVIS)]}})

write_cases('feed', 'relay.json', 'feed.relay',
            'A script against one relay (taking deltas of at most `maxDeltaWrites` registers when the input '
                      'gives it, else 1,000, and answering in pages of at most `maxAnswerBytes` bytes when given, '
                      'else 1 MiB; a page with more after it has `"more": true`). `submit`: the `writes` (feed.script steps, `reaction` being a raw '
                      'reaction write) are made on an empty replica and sent by `person` at the relay\'s time `now`; '
                      'the answer is `{"sequence": N}` or `{"error": CODE}`. `fetch`: what `viewer` learns since '
                      '`since` (the cursor of their last fetch when absent, 0 at first), as the cursor and the delta\'s '
                      'items, withdrawn ids, receipts, stance registers [from, to, stance], visibility registers '
                      '[owner, goal, visibility] and reactions [item, reactor, kind, on], each sorted, and the seen '
                      'marker. `erase`: `person`\'s account deleted at the relay\'s time `now` (FEED-31), answered '
                      '`{"sequence": N}`.',
            cases, 'relay')
print(len(cases), 'relay cases')
