#!/usr/bin/env python3
"""Writes Spec/corpus/reminders/push.json: friends' activity as pushes (REMIND-14 ... REMIND-18),
and background pushes that wake a person's devices (REMIND-19 ... REMIND-21).

Each case is a relay script (`reminders.push`, Spec/reminders.md 10.6): people make friends and
publish or react through `submit` steps, devices register, and `send` steps ask for the pushes due.
Every expected push is worked from the rules in the comment beside its case: who gets an event
(REMIND-15), when its group is sent (REMIND-16, REMIND-17) and what it says (REMIND-18). The
collapse id is computed here with Python's hashlib from the topic, as REMIND-18 defines it. Run
from the repository root:

    python3 Tools/corpus/reminders_push.py
"""
import hashlib
from corpus_file import command_line, write_cases

command_line(__doc__)

NAMES = {"ana": "Ana", "bob": "Bob", "cat": "Cat"}
DAY = "2026-01-15"
MIN = 60_000
WINDOW = 15 * MIN
# 2026-01-15T12:00:00Z: London is on UTC in January.
NOON = 1768478400000


def stamp(n, device):
    return [n, 0, device]


def want(a, b, n=1):
    """a wants b; with b's want of a they are friends (FEED-4)."""
    return {"do": "stance", "from": a, "to": b, "stance": "want", "stamp": stamp(n, a + "1")}


def friends(a, b, now, writes_of_a=()):
    """Two submits, each person's own stance (FEED-25): a's (with a's other writes), then b's."""
    return [submit(a, now, [want(a, b)] + list(writes_of_a)), submit(b, now, [want(b, a)])]


def submit(person, now, writes):
    return {"do": "submit", "person": person, "now": now, "writes": writes}


def visibility(owner, goal, value, n):
    return {"do": "visibility", "owner": owner, "goal": goal, "visibility": value, "stamp": stamp(n, owner + "1")}


def item(owner, goal, n, title="Meditate", emoji="🧘", day=DAY, kind="checkIn", **extra):
    value = {"owner": owner, "kind": kind, "goal": goal, "time": NOON, "title": title, "emoji": emoji,
             "goalKind": "streak", "day": day}
    value.update(extra)
    return {"do": "item", "item": value, "stamp": stamp(n, owner + "1")}


def item_id(owner, goal, day=DAY):
    return "%s/checkIn/%s/%s" % (owner, goal, day)


def reaction(item_, reactor, kind, n, on=True):
    return {"do": "reaction", "item": item_, "reactor": reactor, "kind": kind, "on": on,
            "stamp": stamp(n, reactor + "1")}


def device(token, person, zone="Europe/London", quiet=None, now=None, proof=None, session=None):
    step = {"do": "device", "token": token, "person": person, "timeZone": zone}
    if session is not None:
        step["session"] = session
    if quiet:
        step["quietHours"] = {"start": quiet[0], "end": quiet[1]}
    if now is not None:
        step["now"] = now
    if proof is not None:
        step["proof"] = proof
    return step


def proof_push(token, caller, queued):
    """The proof push REMIND-14 queues for `caller` at `queued` (ms), as REMIND-18 states it; the
    operation writes its random code as the text `code`."""
    return {"token": token, "person": caller, "topic": "proof", "collapseId": "glow-proof", "pushType": "background",
            "priority": 5, "expiration": queued // 1000 + 600,
            "payload": {"aps": {"content-available": 1}, "glow-proof": "code"}}


def sync(person, session, now, records):
    """The sync log kept a push of `records` records from `person` in `session` (REMIND-19)."""
    return {"do": "sync", "person": person, "session": session, "now": now, "records": records}


def wake(token, person, at):
    """A background push as REMIND-21 states it, sent at `at` (ms): nothing but content-available."""
    return {"token": token, "person": person, "topic": "sync", "collapseId": "glow-sync", "pushType": "background",
            "priority": 5, "expiration": at // 1000 + 3600, "payload": {"aps": {"content-available": 1}}}


def send(now, pushes=()):
    """A send step; the pushes it must give are kept beside it for the expectation."""
    return {"do": "send", "now": now, "_pushes": list(pushes)}


def collapse(topic):
    return "glow-" + hashlib.sha256(topic.encode()).hexdigest()[:32]


def push(token, person, topic, key, args, badge, at):
    """A push as REMIND-18 states it, sent at `at` (ms)."""
    return {"token": token, "person": person, "topic": topic, "collapseId": collapse(topic), "pushType": "alert",
            "priority": 10, "expiration": at // 1000 + 86400,
            "payload": {"aps": {"alert": {"loc-key": key, "loc-args": args}, "badge": badge, "sound": "default",
                                "thread-id": collapse(topic)}}}


def expected_of(steps, errors):
    """Each step's answer: a submit the relay's sequence after it, each write being a register
    that changes and so takes the next number (FEED-25); a device or removal {} (or the error
    `errors` names for that step's index); a send its pushes."""
    sequence = 0
    answers = []
    for index, step in enumerate(steps):
        if step["do"] == "submit":
            sequence += len(step["writes"])
            answers.append({"sequence": sequence})
        elif step["do"] == "erase":
            # FEED-31: the registers the erasure changes, each taking the next number.
            sequence += step.pop("_changes")
            answers.append({"sequence": sequence})
        elif step["do"] == "send":
            answers.append({"pushes": step.pop("_pushes")})
        else:
            answers.append({"error": errors[index]} if index in errors else {})
    return answers


def case(comment, rules, steps, window=None, names=NAMES, errors=None, background=False):
    steps = [s for part in steps for s in (part if isinstance(part, list) else [part])]
    expected = expected_of(steps, errors or {})
    input_ = {"names": names, "steps": steps}
    if window is not None:
        input_["window"] = window
    if background:
        input_["background"] = True
    return {"comment": comment, "rules": rules, "flags": [], "input": input_, "result": "valid",
            "expected": {"steps": expected}}


cases = []
CHECK_IN = ["Ana", "Meditate", "🧘", ""]
bob_item = item_id("bob", "b1")
night = NOON + 11 * 60 * MIN          # 2026-01-15T23:00Z
morning = NOON + 19 * 60 * MIN        # 2026-01-16T07:00Z


def ana_bob(*goals, visibility_="friends"):
    """Ana and Bob become friends; Ana's goals have the given visibility."""
    return friends("ana", "bob", NOON - MIN, [visibility("ana", g, visibility_, 2) for g in goals])


# Bob's device is told at once (no earlier push of the topic): one item, so push.item.checkIn
# with Ana's name, the title, the emoji and no number; Bob's badge is 1 (FEED-15).
cases.append(case(
    "a friend's check-in reaches the friend's device at once", ["REMIND-15", "REMIND-17", "REMIND-18"],
    [device("tok-bob", "bob"), ana_bob("g1"), submit("ana", NOON, [item("ana", "g1", 3)]),
     send(NOON, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON)])]))

# A public item: Cat, not a friend, may see it (FEED-9) but REMIND-15 pushes to friends only;
# Ana's own device gets nothing of her own item.
cases.append(case(
    "a public item is pushed to friends, not to strangers nor to its owner", ["REMIND-15"],
    [device("tok-ana", "ana"), device("tok-bob", "bob"), device("tok-cat", "cat"), ana_bob("g1", visibility_="public"),
     submit("ana", NOON, [item("ana", "g1", 3)]),
     send(NOON, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON)])]))

# A goal without a visibility register is private (FEED-8): Bob may not see it, so no event.
cases.append(case(
    "an item of a private goal is pushed to nobody", ["REMIND-15"],
    [device("tok-bob", "bob"), ana_bob(), submit("ana", NOON, [item("ana", "g1", 3)]), send(NOON)]))

# The window: the first item is pushed at NOON. The second (NOON + 1 min) opens a group whose
# send time is NOON + 15 min (REMIND-16); a third joins it. Before then nothing is due; at
# NOON + 15 min the group of two: push.items with Ana's name and 2; the badge counts all 3.
cases.append(case(
    "a friend's items within the window make one push, after it", ["REMIND-16", "REMIND-17", "REMIND-18"],
    [device("tok-bob", "bob"), ana_bob("g1", "g2", "g3"),
     submit("ana", NOON, [item("ana", "g1", 3)]),
     send(NOON, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON)]),
     submit("ana", NOON + MIN, [item("ana", "g2", 4, title="Run", emoji="🏃")]), send(NOON + 5 * MIN),
     submit("ana", NOON + 2 * MIN, [item("ana", "g3", 5, title="Read", emoji="📚")]), send(NOON + WINDOW - 1),
     send(NOON + WINDOW, [push("tok-bob", "bob", "friend/ana", "push.items", ["Ana", "2"], 3, NOON + WINDOW)])]))

# Reactions to one item collapse: Ana then Cat cheer Bob's item before a send. The reactors in
# arrival order are Ana, Cat; the latest is Cat with a fire: push.reaction with Cat's name, 🔥,
# the title and 1 other. Bob sees no item of others, so his badge is 0.
cases.append(case(
    "reactions to one item from two friends make one push naming the latest",
    ["REMIND-15", "REMIND-16", "REMIND-18"],
    [device("tok-bob", "bob"),
     friends("bob", "ana", NOON - MIN, [visibility("bob", "b1", "friends", 3), item("bob", "b1", 4)]),
     friends("cat", "bob", NOON - MIN),
     submit("ana", NOON, [reaction(bob_item, "ana", "heart", 5)]),
     submit("cat", NOON + 1000, [reaction(bob_item, "cat", "fire", 6)]),
     send(NOON + 2000, [push("tok-bob", "bob", "item/" + bob_item, "push.reaction", ["Cat", "🔥", "Meditate", "1"], 0,
                             NOON + 2000)])]))

# A reaction turned off before the send leaves nothing: no push, and the topic's last push is
# unchanged, so the next reaction (NOON + 1 min) is sent at once.
cases.append(case(
    "a reaction turned off before the send is not pushed, and does not use the window", ["REMIND-17"],
    [device("tok-bob", "bob"),
     friends("bob", "ana", NOON - MIN, [visibility("bob", "b1", "friends", 3), item("bob", "b1", 4)]),
     submit("ana", NOON, [reaction(bob_item, "ana", "heart", 5)]),
     submit("ana", NOON + 1000, [reaction(bob_item, "ana", "heart", 6, on=False)]), send(NOON + 2000),
     submit("ana", NOON + MIN, [reaction(bob_item, "ana", "clap", 7)]),
     send(NOON + MIN, [push("tok-bob", "bob", "item/" + bob_item, "push.reaction", ["Ana", "👏", "Meditate", "0"], 0,
                            NOON + MIN)])]))

# A block between the event and the send: Bob blocks Ana, so Ana's item is no longer one Bob may
# see (FEED-9) and the group sends nothing.
cases.append(case(
    "a block before the send takes the item out", ["REMIND-15", "REMIND-17"],
    [device("tok-bob", "bob"), ana_bob("g1"), submit("ana", NOON, [item("ana", "g1", 3)]),
     submit("bob", NOON + 1000, [{"do": "stance", "from": "bob", "to": "ana", "stance": "block",
                                  "stamp": stamp(9, "bob1")}]), send(NOON + 2000)]))

# Bob blocks Ana before she cheers his public item: she may not see it (FEED-9), so no event.
cases.append(case(
    "a blocked person's reaction gives the owner no push", ["REMIND-15"],
    [device("tok-bob", "bob"),
     submit("bob", NOON - MIN, [visibility("bob", "b1", "public", 3), item("bob", "b1", 4),
                                {"do": "stance", "from": "bob", "to": "ana", "stance": "block",
                                 "stamp": stamp(5, "bob1")}]),
     submit("ana", NOON, [reaction(bob_item, "ana", "heart", 6)]), send(NOON)]))

# Quiet hours 22:00 ... 07:00 in London (UTC in January): an item at 23:00 opens a group whose
# send time reads 23:00, quiet, so it moves to 07:00 the next morning (REMIND-16).
cases.append(case(
    "an item during the device's quiet hours waits for their end", ["REMIND-16", "REMIND-7"],
    [device("tok-bob", "bob", quiet=(1320, 420)), ana_bob("g1"), submit("ana", night, [item("ana", "g1", 3)]),
     send(night), send(morning - 1),
     send(morning, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, morning)])]))

# In New York (UTC−5 in January) the same instant reads 18:00, not quiet.
cases.append(case(
    "quiet hours are read on the device's own clock", ["REMIND-16"],
    [device("tok-bob", "bob", zone="America/New_York", quiet=(1320, 420)), ana_bob("g1"),
     submit("ana", night, [item("ana", "g1", 3)]),
     send(night, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, night)])]))

# A milestone names its number; a person the relay has no name for is named by identifier.
cases.append(case(
    "a milestone carries its number; an unnamed friend is named by identifier", ["REMIND-18"],
    [device("tok-bob", "bob"), friends("dan", "bob", NOON - MIN, [visibility("dan", "g1", "friends", 2)]),
     submit("dan", NOON, [item("dan", "g1", 3, kind="milestone", milestone=30, streakStart="2025-12-17",
                               streak=30)]),
     send(NOON, [push("tok-bob", "bob", "friend/dan", "push.item.milestone", ["dan", "Meditate", "🧘", "30"], 1,
                      NOON)])]))

# Two devices of one person each get the push, in token order; a removed device gets nothing.
cases.append(case(
    "each registered device gets its push; a removed one none", ["REMIND-14", "REMIND-15", "REMIND-17"],
    [device("tok-b2", "bob"), device("tok-b1", "bob"), device("tok-b3", "bob"), {"do": "remove", "token": "tok-b3"},
     ana_bob("g1"), submit("ana", NOON, [item("ana", "g1", 3)]),
     send(NOON, [push(t, "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON) for t in ("tok-b1", "tok-b2")])]))

# A token passed to another person (REMIND-14): Cat's first registration is refused and queues a
# proof push for her (step 4), which the next send gives at once, quiet hours or not, with nothing
# of Bob's in it. With its code she moves the token: the group waiting for Bob until morning is
# gone, and Cat, not Ana's friend, gets nothing.
cases.append(case(
    "a token passed to another person moves with the code of its proof push, and drops what waited",
    ["REMIND-14", "REMIND-18"],
    [device("tok-x", "bob", quiet=(1320, 420)), ana_bob("g1"), submit("ana", night, [item("ana", "g1", 3)]),
     device("tok-x", "cat", now=night + MIN), send(night + 2 * MIN, [proof_push("tok-x", "cat", night + MIN)]),
     device("tok-x", "cat", now=night + 3 * MIN, proof="sent"), send(morning)],
    errors={4: "token_held"}))

# A window of 0: every group is sent when asked.
cases.append(case(
    "with no window each item is its own push", ["REMIND-16"],
    [device("tok-bob", "bob"), ana_bob("g1", "g2"),
     submit("ana", NOON, [item("ana", "g1", 3)]),
     send(NOON, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON)]),
     submit("ana", NOON + 1000, [item("ana", "g2", 4, title="Run", emoji="🏃")]),
     send(NOON + 1000, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", ["Ana", "Run", "🏃", ""], 2,
                             NOON + 1000)])],
    window=0))

# Long names and titles are cut to 64 scalars (REMIND-18).
cases.append(case(
    "names and titles are cut to 64 Unicode scalars", ["REMIND-18"],
    [device("tok-bob", "bob"), ana_bob("g1"), submit("ana", NOON, [item("ana", "g1", 3, title="T" * 80)]),
     send(NOON, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", ["Å" * 64, "T" * 64, "🧘", ""], 1, NOON)])],
    names={"ana": "Å" * 70}))

# REMIND-14: a token with a space, an empty one and one of 513 characters are refused; 512 is not.
cases.append(case(
    "tokens outside REMIND-14 are refused", ["REMIND-14"],
    [device("a b", "bob"), device("", "bob"), device("x" * 513, "bob"), device("x" * 512, "bob")],
    errors={0: "invalid_reminder", 1: "invalid_reminder", 2: "invalid_reminder"}))

# FEED-31 (4): Bob's item is an event for Ana's device, due at once; Ana's account is deleted
# before the send. The erasure changes one register (her stance toward Bob, want -> none: she
# wrote no item or reaction) and removes her device with the group waiting for it, so the send
# gives nothing; a device of hers is then refused, and Bob's next item is for nobody (they are no
# longer friends).
cases.append(case(
    "an erased person's devices go with what waited for them, and none of theirs registers again",
    ["FEED-31", "REMIND-14"],
    [device("tok-ana", "ana"), device("tok-bob", "bob"), ana_bob("g1"),
     submit("bob", NOON, [visibility("bob", "b1", "friends", 2), item("bob", "b1", 3)]),
     {"do": "erase", "person": "ana", "now": NOON, "_changes": 1},
     device("tok-ana2", "ana"), send(NOON),
     submit("bob", NOON + MIN, [item("bob", "b1", 4, day="2026-01-16")]), send(NOON + 2 * MIN)],
    errors={6: "person_erased"}))

# The attacker's flow of issue 44 item 9: Eve knows Bob's token and registers it as hers. Without
# the code that only Bob's phone receives, she is refused (`token_held`) and Bob keeps his token:
# one proof push goes to it for her, not one per try; a wrong code moves nothing and queues
# nothing while hers waits. Ten minutes on, the code is old: her try queues a new push, and with
# that code (had she the phone) the token would move. Bob's friend's item still reaches Bob.
cases.append(case(
    "a token another person holds does not move without the code its proof push carried",
    ["REMIND-14", "REMIND-18"],
    [device("tok-bob", "bob"), ana_bob("g1"),
     device("tok-bob", "eve", now=NOON), device("tok-bob", "eve", now=NOON + MIN),
     device("tok-bob", "eve", now=NOON + MIN, proof="0123456789abcdef0123456789abcdef"),
     submit("ana", NOON + 2 * MIN, [item("ana", "g1", 3)]),
     send(NOON + 2 * MIN, [proof_push("tok-bob", "eve", NOON),
                           push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON + 2 * MIN)]),
     device("tok-bob", "eve", now=NOON + 3 * MIN, proof="wrong"), send(NOON + 4 * MIN),
     device("tok-bob", "eve", now=NOON + 11 * MIN, proof="sent"),
     send(NOON + 12 * MIN, [proof_push("tok-bob", "eve", NOON + 11 * MIN)]),
     device("tok-bob", "eve", now=NOON + 13 * MIN, proof="sent")],
    errors={3: "token_held", 4: "token_held", 5: "token_held", 8: "token_held", 10: "token_held"}))

# Issue 59 item 7, the attacker's flow: an account registered 300 tokens, and one friend's check-in
# went out as 300 pushes. A person holds at most 10 devices (REMIND-14): Bob registers ten tokens a
# minute apart, registers tok-01 again (which renews it), then an eleventh, which takes the place of
# the one registered longest ago: tok-02. Ana's check-in then reaches ten devices, in order of
# token (REMIND-17: one send time), tok-02 not among them.
TOKENS = ["tok-%02d" % n for n in range(1, 12)]
cases.append(case(
    "a person's eleventh device takes the place of the one registered longest ago",
    ["REMIND-14", "REMIND-17"],
    [ana_bob("g1")] + [device(t, "bob", now=NOON + (n + 1) * MIN) for n, t in enumerate(TOKENS[:10])]
    + [device("tok-01", "bob", now=NOON + 11 * MIN), device("tok-11", "bob", now=NOON + 12 * MIN),
       submit("ana", NOON + 13 * MIN, [item("ana", "g1", 3)]),
       send(NOON + 13 * MIN, [push(t, "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON + 13 * MIN)
                              for t in TOKENS if t != "tok-02"])]))

# Issue 59 item 7, the second flow: six accounts each naming a victim's token made six silent proof
# pushes to her phone every ten minutes. A token has at most three proof codes waiting (REMIND-14):
# eve, mal and oz each queue one (NOON, +1, +2 minutes), zed's try queues none; the send gives three,
# in order of caller. At +11 minutes eve's code is past its ten minutes and forgotten, mal's (queued
# at +1, aged exactly 600,000 ms) is still taken, so zed's try queues a third again, and the next send
# gives it.
cases.append(case(
    "a token has at most three proof codes waiting at once, whoever asks",
    ["REMIND-14", "REMIND-18"],
    [device("tok-bob", "bob"),
     device("tok-bob", "eve", now=NOON), device("tok-bob", "mal", now=NOON + MIN),
     device("tok-bob", "oz", now=NOON + 2 * MIN), device("tok-bob", "zed", now=NOON + 3 * MIN),
     send(NOON + 4 * MIN, [proof_push("tok-bob", "eve", NOON), proof_push("tok-bob", "mal", NOON + MIN),
                           proof_push("tok-bob", "oz", NOON + 2 * MIN)]),
     device("tok-bob", "zed", now=NOON + 11 * MIN),
     send(NOON + 12 * MIN, [proof_push("tok-bob", "zed", NOON + 11 * MIN)])],
    errors={1: "token_held", 2: "token_held", 3: "token_held", 4: "token_held", 6: "token_held"}))

# REMIND-19: Bob's phone pushed three records in its session s1: his tablet (session s2) and his
# watch (registered in no session) are woken at once, in token order; the phone is not.
cases.append(case(
    "a sync push wakes the person's other devices, not the one that pushed", ["REMIND-19", "REMIND-21"],
    [device("tok-phone", "bob", session="s1"), device("tok-tablet", "bob", session="s2"),
     device("tok-watch", "bob"), sync("bob", "s1", NOON, 3),
     send(NOON, [wake("tok-tablet", "bob", NOON), wake("tok-watch", "bob", NOON)])],
    background=True))

# REMIND-19: a push the log kept with no record in it is no event.
cases.append(case(
    "a sync push of no records wakes nobody", ["REMIND-19"],
    [device("tok-phone", "bob", session="s1"), device("tok-tablet", "bob", session="s2"), sync("bob", "s1", NOON, 0),
     send(NOON)],
    background=True))

# A relay not set to send background pushes (10.6) queues none.
cases.append(case(
    "a relay not set to send background pushes wakes nobody", ["REMIND-19"],
    [device("tok-phone", "bob", session="s1"), device("tok-tablet", "bob", session="s2"), sync("bob", "s1", NOON, 2),
     send(NOON)]))

# REMIND-20: the tablet's quiet hours (22:00 ... 07:00 in London) do not hold a background push
# back: the first sync at 23:00 wakes it at once. The next two, a minute and two minutes on, wait
# in one group until the window has passed since that push, and are one push then.
cases.append(case(
    "background events coalesce per device within the window, quiet hours or not", ["REMIND-20", "REMIND-21"],
    [device("tok-phone", "bob", session="s1"), device("tok-tablet", "bob", session="s2", quiet=(1320, 420)),
     sync("bob", "s1", night, 1), send(night, [wake("tok-tablet", "bob", night)]),
     sync("bob", "s1", night + MIN, 1), sync("bob", "s1", night + 2 * MIN, 4), send(night + WINDOW - 1),
     send(night + WINDOW, [wake("tok-tablet", "bob", night + WINDOW)])],
    background=True))

# REMIND-19: Ana's item is an item event for Bob's device, so it also wakes it; its alert and its
# background push share a send time and go in topic order (REMIND-17). Ana's own device, whose
# person submitted, gets nothing.
cases.append(case(
    "a friend's item wakes the friend's devices beside its alert", ["REMIND-19", "REMIND-20", "REMIND-21"],
    [device("tok-ana", "ana", session="a1"), device("tok-bob", "bob", session="b1"), ana_bob("g1"),
     submit("ana", NOON, [item("ana", "g1", 3)]),
     send(NOON, [push("tok-bob", "bob", "friend/ana", "push.item.checkIn", CHECK_IN, 1, NOON),
                 wake("tok-bob", "bob", NOON)])],
    background=True))

# REMIND-19: a cheer on Bob's item wakes Bob's device too; a sync of Bob's a minute on joins the
# background group that the window holds back, which then goes once.
cases.append(case(
    "a reaction wakes the owner's devices, and a sync after it joins the waiting group",
    ["REMIND-19", "REMIND-20"],
    [device("tok-bob", "bob", session="b1"),
     friends("bob", "ana", NOON - MIN, [visibility("bob", "b1", "friends", 3), item("bob", "b1", 4)]),
     submit("ana", NOON, [reaction(bob_item, "ana", "heart", 5)]),
     send(NOON, [push("tok-bob", "bob", "item/" + bob_item, "push.reaction", ["Ana", "\u2665", "Meditate", "0"], 0, NOON),
                 wake("tok-bob", "bob", NOON)]),
     sync("bob", "b2", NOON + MIN, 2), send(NOON + 2 * MIN),
     send(NOON + WINDOW, [wake("tok-bob", "bob", NOON + WINDOW)])],
    background=True))

# REMIND-21 with REMIND-14: a removed device's waiting background group goes with it.
cases.append(case(
    "a removed device's waiting background push goes with it", ["REMIND-21", "REMIND-14"],
    [device("tok-phone", "bob", session="s1"), device("tok-tablet", "bob", session="s2"),
     sync("bob", "s1", NOON, 1), send(NOON, [wake("tok-tablet", "bob", NOON)]),
     sync("bob", "s1", NOON + MIN, 1), {"do": "remove", "token": "tok-tablet"}, send(NOON + WINDOW)],
    background=True))

write_cases("reminders", "push.json", "reminders.push",
            "Friends' activity as pushes (REMIND-14 ... REMIND-18) and background pushes (REMIND-19 ... REMIND-21): "
            "relay scripts with devices, syncs and sends; `background: true` sets the relay to send background "
            "pushes, and a `sync` step says the sync log kept a push of `records` records from the person's "
            "`session` (answered `{}`); "
            "`erase` deletes a person's account at the relay (FEED-31) and answers the relay's sequence. A `device` "
            "step registers at the relay's time `now` (0 when absent) with `proof` when given: `sent` stands for "
            "the code of the last proof push a send gave to that token for that person, any other text for "
            "itself; a refused one answers `{\"error\": \"token_held\"}`. A proof push's random code is written "
            "as the text `code`.",
            cases, "push")
