"""Section 10.5 of the spec (Spec/reminders.md): friends' activity as pushes (REMIND-14 ... REMIND-18),
and the corpus operation `reminders.push` (Spec/corpus/reminders/push.json).

The relay is `feed.Relay` (FEED-25 ... FEED-27), its `submit` steps those of `feed.relay`; this module
watches what each accepted delta changed (items given their first receipt time, reactions changed
and now on) and turns it into events (REMIND-15) for the devices registered at that moment
(REMIND-14), coalesced in an outbox of groups per (token, topic) with a window and the device's
quiet hours (REMIND-16, REMIND-7's test from `reminders.py`), and sent at a time t as the relay's
state is then (REMIND-17), with REMIND-18's payload and collapse id (SHA-256 from `hashlib`).
A token another person holds moves only with the code of a proof push (REMIND-14): a registration
without it is refused with `token_held` and queues one (its code from `secrets`, compared with
`secrets.compare_digest`), which the next send gives first (REMIND-18); a token has at most three
codes taken at once, so a refused registration that would queue a fourth queues none. A person holds
at most ten devices: each registration notes the relay's time, and an eleventh device takes the place
of the one whose last registration is the oldest (the token first as UTF-8 bytes on a tie), with what
waited for it.
An `erase` step (FEED-31) erases a person in the relay, removes their devices with what waited for
them, and refuses their devices from then on with `person_erased` (after the device's own checks).

Section 10.6, background pushes (REMIND-19 ... REMIND-21), when the operation's `background` is true:
a registration notes its `session` (none when absent; the last registration of a token counts); a
`sync` step of at least one record from p in session s gives each device p holds then whose session
is not s a background event, and each item and reaction event gives its device one too. They wait in
one group per device of the topic `sync`, coalesced with REMIND-16's window after the device's last
background push but never moved by quiet hours, never judged empty, and sent in REMIND-17's order as
a content-free background push. A removed or moved token's group goes with it (`forget`).
"""
import hashlib
import secrets

from . import feed
from . import model as m
from .errors import Failure
from .reminders import invalid, minute, quiet_minute

WINDOW = 15 * 60 * 1000                 # REMIND-16: 15 minutes unless the relay is set otherwise
EXPIRY = 86400                          # REMIND-18: seconds after t
SYNC = 'sync'                           # REMIND-20: the topic of a device's background group
SYNC_EXPIRY = 3600                      # REMIND-21: a background push's expiry, seconds after t
MAX_TOKEN = 512                         # REMIND-14
CUT = 64                                # REMIND-18: every loc-arg cut to 64 Unicode scalars
PROOF_AGE = 10 * 60 * 1000              # REMIND-14: a code is taken for 10 minutes, this age included
PROOF_EXPIRY = 600                      # REMIND-18: a proof push's expiry, seconds after it was queued
MAX_PROOFS = 3                          # REMIND-14: codes taken at once for one token, for different callers
MAX_DEVICES = 10                        # REMIND-14: devices one person holds
CODE = 'code'                           # push.json: a proof push's random code as the operation writes it


def check_token(token):
    """REMIND-14: 1 … 512 characters, each printable ASCII other than space."""
    if not isinstance(token, str) or not 1 <= len(token) <= MAX_TOKEN or any(not 0x21 <= ord(c) <= 0x7E for c in token):
        raise invalid('token')
    return token


def read_quiet(raw):
    """REMIND-1: quiet hours {start, end}, two different minutes of the day."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise invalid('quietHours')
    start, end = minute(raw.get('start'), 'quietHours.start'), minute(raw.get('end'), 'quietHours.end')
    if start == end:
        raise invalid('quietHours')
    return (start, end)


def collapse_id(topic):
    """REMIND-18: `glow-` and the first 16 bytes of SHA-256(topic) in lower-case hex."""
    return 'glow-' + hashlib.sha256(topic.encode('utf-8')).hexdigest()[:32]


def cut(value):
    return str(value)[:CUT]


class PushScript(feed.RelayScript):
    """feed.relay's `submit` and `erase` steps, plus `device`, `remove`, `sync` and `send` (reminders.md 10.7)."""

    def __init__(self, window, names, background=False):
        super().__init__()
        self.window, self.names = window, names
        self.background = background    # 10.6: whether the relay sends background pushes
        self.devices = {}       # token -> {'person', 'zone', 'quiet', 'at': time of its last registration,
                                #           'session': the session it was made in, or None (REMIND-19)}
        self.outbox = {}        # (token, topic) -> {'send': ms, 'events': [...]}
        self.last = {}          # (token, topic) -> time of the device's last push of the topic
        self.arrivals = 0       # the order in which events arrive
        self.proofs = {}        # (token, caller) -> {'code', 'queued': ms, 'sent': bool} (REMIND-14)
        self.given = {}         # (token, person) -> the code of the last proof push a send gave (`sent`)

    def name(self, person):
        return self.names.get(person, person)

    def forget(self, token):
        """What waits for a token, and its last pushes, dropped; its proof pushes and codes too."""
        for table in (self.outbox, self.last, self.proofs):
            for key in [k for k in table if k[0] == token]:
                del table[key]

    def waiting(self, key, now):
        """REMIND-14: the proof a caller waits for on a token, taken for 10 minutes from when it was
        queued (the age 600,000 ms included) and then forgotten."""
        proof = self.proofs.get(key)
        if proof is not None and now - proof['queued'] > PROOF_AGE:
            del self.proofs[key]
            proof = None
        return proof

    def taken(self, token, now):
        """REMIND-14: how many codes of the token are taken at `now` (one per caller), sent or not."""
        return sum(1 for key in list(self.proofs) if key[0] == token and self.waiting(key, now) is not None)

    def make_room(self, person, token):
        """REMIND-14: a person's eleventh device takes the place of the one whose last registration is
        the oldest (the token first as UTF-8 bytes on a tie), with what waited for it."""
        held = [t for t, device in self.devices.items() if device['person'] == person and t != token]
        if len(held) < MAX_DEVICES:
            return
        oldest = min(held, key=lambda t: (self.devices[t]['at'], t.encode('utf-8')))
        del self.devices[oldest]
        self.forget(oldest)

    # REMIND-14: devices

    def device(self, step):
        token = check_token(step.get('token'))
        person = feed.text(step, 'person')
        zone = m.check_zone(step.get('timeZone'))
        quiet = read_quiet(step.get('quietHours'))
        now = 0 if step.get('now') is None else feed.relay_time(step)   # push.json: 0 when absent
        session = step.get('session')                         # REMIND-19: none when absent
        if session is not None and not isinstance(session, str):
            raise feed.bad_input('session is text')
        proof = step.get('proof')
        if proof is not None and not isinstance(proof, str):
            raise feed.bad_input('proof is text')
        if proof == 'sent':                                   # push.json: the code a send gave
            proof = self.given.get((token, person))
        self.relay.check_open(person)                         # FEED-31: an erased person's device
        old = self.devices.get(token)
        if old is not None and old['person'] != person:
            # REMIND-14: another person's token moves only with the waiting code (constant time);
            # a wrong code is refused as none is, and a proof push is queued unless one waits or
            # three codes of the token are taken already (a fourth is queued for nobody).
            key = (token, person)
            waiting = self.waiting(key, now)
            if waiting is None or proof is None or \
                    not secrets.compare_digest(proof.encode('utf-8'), waiting['code'].encode('utf-8')):
                if waiting is None and self.taken(token, now) < MAX_PROOFS:
                    self.proofs[key] = {'code': secrets.token_hex(16), 'queued': now, 'sent': False}
                raise Failure('token_held', 'another person holds this token', rule='REMIND-14')
            self.forget(token)                                # what waited dropped, the code used up
        self.make_room(person, token)                         # at most ten devices a person
        self.devices[token] = {'person': person, 'zone': zone, 'quiet': quiet, 'at': now, 'session': session}
        return {}

    def remove(self, step):
        token = feed.text(step, 'token')
        self.devices.pop(token, None)
        self.forget(token)
        return {}

    # FEED-31: erasure

    def erase(self, step):
        """The person erased in the relay (withdrawals, `none` stances, reactions off: no events,
        REMIND-15), then their devices removed with what waited for them (REMIND-14)."""
        person, now = feed.text(step, 'person'), feed.relay_time(step)
        sequence = self.relay.erase(person, now)
        for token in [t for t, device in self.devices.items() if device['person'] == person]:
            del self.devices[token]
            self.forget(token)
        for key in [k for k in self.proofs if k[1] == person]:   # the proofs the person waited for
            del self.proofs[key]
        return {'sequence': sequence}

    # REMIND-15: events

    def submit(self, step):
        person, now = feed.text(step, 'person'), feed.relay_time(step)
        writes = step.get('writes') or []
        if not isinstance(writes, list):
            raise feed.bad_input('writes is a list of script steps')
        script = feed.OneReplica()
        for write in writes:
            if not isinstance(write, dict):
                raise feed.bad_input('a write is a JSON object')
            script.run(write)
        delta, r = script.only, self.relay.replica
        received = set(r.receipts)
        reactions = {key: r.reactions.get(key) for key in delta.reactions}
        sequence = self.relay.submit(person, delta, now)      # a refused delta raises: no events
        # Items first received from this delta, in FEED-25's order.
        for item_id in sorted(delta.items, key=lambda k: k.encode('utf-8')):
            item = r.item(item_id)
            if item_id in received or item_id not in r.receipts or item is None:
                continue
            people = {b for a, b in r.stance if a == person} | {a for a, b in r.stance if b == person}
            for viewer in sorted(people - {person}, key=lambda v: v.encode('utf-8')):
                if r.friend_state(viewer, person) == 'friends' and r.may_see(viewer, item):
                    self.event(viewer, 'friend/' + person, ('item', item_id), now)
        # Reaction registers of the person changed and now on.
        for key in sorted(delta.reactions, key=lambda k: feed.utf8(*k)):
            write = r.reactions.get(key)
            if write == reactions[key] or not write[1]:
                continue
            item_id, reactor, kind = key
            item = r.item(item_id)
            if item is None or item['owner'] == reactor or not r.may_see(reactor, item):
                continue
            self.event(item['owner'], 'item/' + item_id, ('reaction', item_id, reactor, kind), now)
        return {'sequence': sequence}

    # REMIND-19: background events of a sync push

    def sync(self, step):
        """The sync log kept a `sync-push` of `records` records from `person` made in `session`
        (SYNC-9): with at least one record, each device the person has registered now whose session
        is not that one (one registered in no session included) gets a background event."""
        person, session, now = feed.text(step, 'person'), feed.text(step, 'session'), feed.relay_time(step)
        records = step.get('records')
        if not feed.is_int(records) or records < 0:
            raise feed.bad_input('records is a count, 0 or more')
        if records >= 1:
            for token in sorted(self.devices, key=lambda t: t.encode('utf-8')):
                device = self.devices[token]
                if device['person'] == person and device['session'] != session:
                    self.wake(token, now)
        return {}

    def wake(self, token, at):
        """REMIND-20: a background event joins the device's waiting `sync` group without moving its
        send time; else the group's send time is the later of the event's time and the device's last
        background push plus the window. Quiet hours do not move it."""
        if not self.background:
            return
        key = (token, SYNC)
        if key in self.outbox:
            return
        send = at
        if key in self.last:
            send = max(send, self.last[key] + self.window)
        self.outbox[key] = {'send': send, 'events': []}

    # REMIND-16: coalescing

    def event(self, person, topic, event, at):
        self.arrivals += 1
        for token in sorted(self.devices, key=lambda t: t.encode('utf-8')):
            device = self.devices[token]
            if device['person'] != person:
                continue
            self.wake(token, at)                              # REMIND-19: each event wakes its device too
            key = (token, topic)
            group = self.outbox.get(key)
            if group is None:
                send = at
                if key in self.last:
                    send = max(send, self.last[key] + self.window)
                group = self.outbox[key] = {'send': self.defer(device, send), 'events': []}
            group['events'].append(event + (self.arrivals,))

    @staticmethod
    def defer(device, t):
        """A send time whose wall-clock minute in the device's zone is quiet moves to the first
        instant after it whose reading is the quiet hours' end (REMIND-4, REMIND-7's test)."""
        quiet, zone = device['quiet'], device['zone']
        if quiet is None:
            return t
        seconds = t // 1000
        wall = seconds + m.utc_offset(zone, seconds)
        if not quiet_minute(quiet, wall % 86400 // 60):
            return t
        date = wall // 86400
        moved = m.start_of(zone, date * 86400 + quiet[1] * 60) * 1000
        while moved <= t:
            date += 1
            moved = m.start_of(zone, date * 86400 + quiet[1] * 60) * 1000
        return moved

    # REMIND-17, REMIND-18: sending

    def send(self, step):
        t = feed.relay_time(step)
        pushes = self.proof_pushes(t)
        due = sorted((group['send'], key[0].encode('utf-8'), key[1].encode('utf-8'), key)
                     for key, group in self.outbox.items() if group['send'] <= t)
        for _, _, _, key in due:
            group = self.outbox.pop(key)
            token, topic = key
            person = self.devices[token]['person']
            if topic == SYNC:                                 # REMIND-21: never judged empty
                self.last[key] = t
                pushes.append({
                    'token': token, 'person': person, 'topic': SYNC, 'collapseId': 'glow-sync',
                    'pushType': 'background', 'priority': 5, 'expiration': t // 1000 + SYNC_EXPIRY,
                    'payload': {'aps': {'content-available': 1}},
                })
                continue
            alert = self.alert(person, topic, group['events'])
            if alert is None:
                continue
            self.last[key] = t
            cid = collapse_id(topic)
            pushes.append({
                'token': token, 'person': person, 'topic': topic, 'collapseId': cid,
                'pushType': 'alert', 'priority': 10, 'expiration': t // 1000 + EXPIRY,
                'payload': {'aps': {'alert': alert, 'badge': self.relay.replica.badge(person),
                                    'sound': 'default', 'thread-id': cid}},
            })
        return {'pushes': pushes}

    def proof_pushes(self, t):
        """REMIND-18: each proof push queued at or before t, not yet sent and whose code is still
        taken (REMIND-14), goes once, ahead of the groups and quiet hours or not, in order of token,
        then caller (as UTF-8 bytes); its code is written as the text `code` (push.json)."""
        pushes = []
        for key in sorted(self.proofs, key=lambda k: feed.utf8(*k)):
            proof = self.waiting(key, t)
            if proof is None or proof['sent'] or proof['queued'] > t:
                continue
            proof['sent'] = True
            token, caller = key
            self.given[key] = proof['code']
            pushes.append({
                'token': token, 'person': caller, 'topic': 'proof', 'collapseId': 'glow-proof',
                'pushType': 'background', 'priority': 5, 'expiration': proof['queued'] // 1000 + PROOF_EXPIRY,
                'payload': {'aps': {'content-available': 1}, 'glow-proof': CODE},
            })
        return pushes

    def alert(self, viewer, topic, events):
        """REMIND-17's judgement of a group's events at t, and REMIND-18's loc-key and loc-args;
        None when nothing is left."""
        r = self.relay.replica
        if topic.startswith('friend/'):
            friend = topic[len('friend/'):]
            items, seen = [], set()
            for event in events:
                item_id = event[1]
                item = r.item(item_id)
                if item_id in seen or item is None or not r.may_see(viewer, item):
                    continue
                seen.add(item_id)
                items.append(item)
            if not items:
                return None
            if len(items) > 1:
                return {'loc-key': 'push.items', 'loc-args': [cut(self.name(friend)), cut(len(items))]}
            item = items[0]
            number = item.get('milestone', item.get('streak', ''))
            return {'loc-key': 'push.item.' + item['kind'],
                    'loc-args': [cut(self.name(friend)), cut(item['title']), cut(item['emoji']), cut(number)]}
        item_id = topic[len('item/'):]
        item = r.item(item_id)
        if item is None or not r.may_see(viewer, item):
            return None
        latest = {}                                            # reactor -> (arrival, kind)
        for _, iid, reactor, kind, arrival in events:
            write = r.reactions.get((iid, reactor, kind))
            if write is None or not write[1] or not r.may_see(reactor, item):
                continue
            if reactor not in latest or arrival > latest[reactor][0]:
                latest[reactor] = (arrival, kind)
        if not latest:
            return None
        reactor = max(latest, key=lambda who: latest[who][0])
        return {'loc-key': 'push.reaction',
                'loc-args': [cut(self.name(reactor)), cut(feed.SYMBOLS[latest[reactor][1]]), cut(item['title']),
                             cut(len(latest) - 1)]}

    def run(self, step):
        do = step.get('do')
        if do == 'submit':
            return self.submit(step)
        if do == 'device':
            return self.device(step)
        if do == 'remove':
            return self.remove(step)
        if do == 'erase':
            return self.erase(step)
        if do == 'send':
            return self.send(step)
        if do == 'sync':
            return self.sync(step)
        raise feed.bad_input(f'no step {do!r}')


def push_operation(input):
    """reminders.push: `submit` and `erase` answer `{"sequence": N}`, `device`, `remove` and `sync` `{}`,
    `send` the pushes; errors as `{"error": CODE}` (a token another person holds `token_held`)."""
    window = input.get('window', WINDOW)
    if window is None:
        window = WINDOW
    if not feed.is_int(window) or window < 0:
        raise feed.bad_input('the window is milliseconds, 0 or more')
    names = input.get('names') or {}
    if not isinstance(names, dict):
        raise feed.bad_input('names maps people to names')
    background = input.get('background', False)
    if background is None:
        background = False
    if not isinstance(background, bool):
        raise feed.bad_input('background is true or false')
    return feed.run_steps(PushScript(window, names, background), input)


OPERATIONS = {
    'reminders.push': push_operation,
}
