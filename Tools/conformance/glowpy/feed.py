"""Section 8 of the spec (Spec/feed.md): the Glow feed (FEED-1 ... FEED-21, FEED-24 ... FEED-27,
FEED-31),
and the corpus operations `feed.clock` (Spec/corpus/feed/clock.json), `feed.script`
(Spec/corpus/feed/script.json) and `feed.relay` (Spec/corpus/feed/relay.json). The feed on the
wire (8.12: FEED-28 ... FEED-30) is `feedwire`'s, which adds its steps to the last two.

Written from the spec text alone, with the standard library only:

- stamps and hybrid logical clocks (FEED-1, FEED-2): a stamp is (wall, counter, device), ordered
  by wall time, counter and the device id's UTF-8 bytes; a clock does not take in a remote stamp
  more than an hour ahead or whose counter is past 2^16;
- a replica (FEED-21) is a set of registers: per ordered pair of people the stance (last writer
  wins) and the last "no" (max), per item id the item or its withdrawal (last writer wins), per
  (owner, goal) the visibility (last writer wins), per (item, reactor, kind) the reaction (last
  writer wins), per item its receipt time (min) and per person the seen marker (max). Merging
  takes each register's rule, so it is idempotent, commutative and associative;
- everything a viewer reads is derived when it is read: friendship states (FEED-4), who may see
  an item (FEED-9), reaction counts (FEED-12), the badge (FEED-15), pages and cursors
  (FEED-16 ... FEED-19) and notices (FEED-20), the latter on the owner's local Days through
  `model.day_of` (MODEL-10);
- the relay (FEED-25 ... FEED-27): a replica whose registers carry the sequence number of their
  last change; it refuses a delta of more registers than it takes (1,000 unless set to fewer)
  before anything else (`too_many_writes`), then one holding a register longer than 4,096 bytes
  written alone as a `FeedDelta` (`register_too_large`), and accepts a person's own writes only (`not_author`,
  `own_item`; a refused delta leaves nothing) stamped neither more than an hour ahead nor with a
  counter past 2^24 (`stamp_ahead`), judges its reactions after its other writes are merged (one
  turned on whose reactor may not see the item, or on an item id it holds nothing of, taken in
  turned off; one turned off taken as it is), gives items their receipt time from a clock that
  never goes back, and answers a viewer what changed after a cursor, or belongs to an affected
  owner, and that they may see (withdrawals and goal visibility: whose goal they may see), and the
  goal visibility of goals whose items their device may hold (each visibility register keeps the
  sequence numbers at which it last stopped being `public`, and `friends` or `public`, compared
  with the cursor, or with 0 for an affected owner), in
  pages when the whole answer, as a `RelayResponse`, is longer than the relay's bound (1 MiB
  unless set otherwise): the answer as if the log ended at L, the relay's last sequence number
  when it began, paged by the registers' own numbers, each register once, each page but the last
  naming the next (since, after, until; FEED-29's `changes_page`) and the last giving the cursor L;
- erasure (FEED-31): a person's items withdrawn, stances set to `none` and reactions turned off
  in one change, as a delta accepted from them stamped (max(now, w + 1), 0, `glow-server`), and the
  person closed: their submits (after the count and authorship checks) and fetches are
  `person_erased`. The erasure is the relay's own change, not a delta, so FEED-25's bound does not
  apply to it.

Two writes of one stamp (a faulty device, FEED-3) resolve by value: `block` over `want` over
`none`, `private` over `friends` over `public`, off over on, a withdrawal over content, and between
two contents the greater time, streak (an absent one below any), title, emoji and goal kind. Two
contents equal in all of those (they can differ only in a milestone's or a completion's Day) fall back to their
canonical JSON, so that merging stays commutative whatever a script writes.
"""
import base64
import binascii
import json

from . import model
from .errors import Failure

MAX_WALL = 2 ** 53 - 1                                     # FEED-1
MAX_COUNTER = 2 ** 32 - 1
MAX_AHEAD = 3_600_000                   # FEED-2, FEED-25: an hour of clock skew, in ms
MAX_TAKEN_COUNTER = 2 ** 16             # FEED-2: the greatest remote counter a clock takes in
MAX_ACCEPTED_COUNTER = 2 ** 24          # FEED-25: the greatest counter the relay accepts
MAX_COUNT = 2 ** 32 - 1                                    # FEED-6: a streak or milestone in Days
MAX_LABEL = 64                                             # FEED-6: the most bytes of an emoji or a goal kind
KINDS = ('checkIn', 'milestone', 'goalStarted', 'goalCompleted')     # FEED-6
STREAK_KINDS = ('checkIn', 'milestone')                             # FEED-6: the kinds that carry a streak
STANCES = ('none', 'want', 'block')                                  # FEED-3
VISIBILITIES = ('private', 'friends', 'public')                      # FEED-8
REACTIONS = ('heart', 'fire', 'clap')                                # FEED-10
SYMBOLS = {'heart': '\u2665', 'fire': '\U0001F525', 'clap': '\U0001F44F'}
ACTIONS = {                                                          # FEED-5: allowed states, stance
    'request': (('none', 'incoming'), 'want'),
    'accept': (('incoming',), 'want'),
    'decline': (('incoming',), 'none'),
    'cancel': (('requested',), 'none'),
    'unfriend': (('friends',), 'none'),
    'block': (('none', 'requested', 'incoming', 'friends', 'blocked'), 'block'),
    'unblock': (('blocking',), 'none'),
}
DEFAULT_LIMIT, MAX_LIMIT = 20, 100                                   # FEED-17
MAX_CURSOR = 1024                                                    # FEED-19
MAX_DELTA_WRITES = 1000                 # FEED-25: the most registers a delta may hold (a relay may take fewer)
MAX_REGISTER_BYTES = 4096               # FEED-25: the longest register a delta may hold, written alone as a FeedDelta
MAX_ANSWER_BYTES = 1 << 20              # FEED-27: the bound on an answer's RelayResponse (a relay may be set otherwise)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def bad_input(message):
    return Failure('invalid_input', message)


# ---- Stamps and clocks (FEED-1, FEED-2)

def parse_stamp(value):
    """FEED-1: [wall, counter, device] with the wall time and counter in range and a device id."""
    if not isinstance(value, list) or len(value) != 3:
        raise Failure('invalid_stamp', 'a stamp is [wall, counter, device]')
    wall, counter, device = value
    if not is_int(wall) or not 0 <= wall <= MAX_WALL:
        raise Failure('invalid_stamp', 'the wall time is outside 0 ... 2^53 - 1')
    if not is_int(counter) or not 0 <= counter <= MAX_COUNTER:
        raise Failure('invalid_stamp', 'the counter is outside 0 ... 2^32 - 1')
    if not isinstance(device, str) or not device:
        raise Failure('invalid_stamp', 'a stamp names its device')
    return (wall, counter, device)


def stamp_key(stamp):
    """FEED-1: wall time, then counter, then the device id as UTF-8 bytes."""
    return (stamp[0], stamp[1], stamp[2].encode('utf-8'))


def physical(value):
    if not is_int(value) or not 0 <= value <= MAX_WALL:
        raise Failure('invalid_stamp', 'a physical time is outside 0 ... 2^53 - 1')
    return value


class Clock:
    """FEED-2: a device's hybrid logical clock, holding its last (wall, counter)."""

    def __init__(self, device):
        self.device, self.wall, self.counter = device, 0, 0

    def _set(self, wall, counter):
        if counter > MAX_COUNTER:
            raise Failure('clock_exhausted', 'the counter would pass 2^32 - 1')
        self.wall, self.counter = wall, counter

    def tick(self, now):
        """A local change at physical time `now`: its stamp."""
        p = physical(now)
        if p > self.wall:
            self._set(p, 0)
        else:
            self._set(self.wall, self.counter + 1)
        return (self.wall, self.counter, self.device)

    def receive(self, stamp, now):
        """A remote stamp taken in at physical time `now`."""
        lr, cr, _ = parse_stamp(stamp)
        p, l, c = physical(now), self.wall, self.counter
        if lr - p > MAX_AHEAD or cr > MAX_TAKEN_COUNTER:
            return                          # FEED-2: beyond the skew or past 2^16, not taken in
        if p > max(l, lr):
            self._set(p, 0)
        elif l == lr:
            self._set(l, max(c, cr) + 1)
        elif l > lr:
            self._set(l, c + 1)
        else:
            self._set(lr, cr + 1)


def clock_operation(input):
    """feed.clock: each step's `{"stamp": [...]}`, `{"clock": [wall, counter]}` or `{"error": CODE}`."""
    device = input.get('device')
    if not isinstance(device, str):
        raise bad_input('a clock names its device')
    clock, outputs = Clock(device), []
    for step in input.get('steps') or []:
        if not isinstance(step, dict):
            raise bad_input('a step is a JSON object')
        try:
            if not device:
                raise Failure('invalid_stamp', 'a stamp names its device')
            if 'receive' in step:
                clock.receive(step['receive'], step.get('now'))
                outputs.append({'clock': [clock.wall, clock.counter]})
            else:
                outputs.append({'stamp': list(clock.tick(step.get('now')))})
        except Failure as failure:
            outputs.append({'error': failure.code})
    return {'steps': outputs}


# ---- Registers (FEED-3, FEED-7, FEED-8, FEED-11, FEED-13, FEED-14, FEED-21)

def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(',', ':')).encode('utf-8')


def item_rank(item):
    """FEED-3: a withdrawal over content; then the greater time, streak (absent below any), title,
    emoji and goal kind as UTF-8 bytes."""
    if item is None:
        return (1,)
    streak = (1, item['streak']) if 'streak' in item else (0,)
    return (0, item['time'], streak, item['title'].encode('utf-8'), item['emoji'].encode('utf-8'),
            item['goalKind'].encode('utf-8'), canonical(item))


RANKS = {                                                  # FEED-3: the tie-break of one stamp
    'stance': {'none': 0, 'want': 1, 'block': 2}.__getitem__,
    'visibility': {'public': 0, 'friends': 1, 'private': 2}.__getitem__,
    'reactions': lambda on: 0 if on else 1,                # off over on
    'items': item_rank,
}


def lww_newer(table, new, old):
    """Whether the write `new` = (stamp, value) wins over the register's `old` (or none)."""
    if old is None:
        return True
    a, b = stamp_key(new[0]), stamp_key(old[0])
    return a > b or (a == b and RANKS[table](new[1]) > RANKS[table](old[1]))


class Replica:
    """One replica of the feed's state (FEED-21): registers only, everything else derived."""

    LWW = ('stance', 'items', 'visibility', 'reactions')

    def __init__(self):
        self.stance = {}        # (a, b) -> (stamp, 'none' | 'want' | 'block'), written by a
        self.last_no = {}       # (a, b) -> stamp of a's greatest `none` toward b
        self.items = {}         # id -> (stamp, item dict | None when withdrawn)
        self.visibility = {}    # (owner, goal) -> (stamp, visibility)
        self.reactions = {}     # (item, reactor, kind) -> (stamp, on)
        self.receipts = {}      # id -> first receipt time (min)
        self.seen = {}          # person -> seen marker (max)

    # writes

    def _lww(self, name, key, stamp, value):
        table = getattr(self, name)
        if lww_newer(name, (stamp, value), table.get(key)):
            table[key] = (stamp, value)

    def write_stance(self, a, b, value, stamp):
        """FEED-3, FEED-5: a's stance toward b; a `none` also raises a's last "no"."""
        self._lww('stance', (a, b), stamp, value)
        if value == 'none':
            self._raise_no((a, b), stamp)

    def _raise_no(self, key, stamp):
        old = self.last_no.get(key)
        if old is None or stamp_key(stamp) > stamp_key(old):
            self.last_no[key] = stamp

    def write_item(self, item_id, item, stamp):
        self._lww('items', item_id, stamp, item)

    def write_visibility(self, owner, goal, value, stamp):
        self._lww('visibility', (owner, goal), stamp, value)

    def write_reaction(self, item_id, reactor, kind, on, stamp):
        self._lww('reactions', (item_id, reactor, kind), stamp, on)

    def receive(self, item_id, at):
        """FEED-13: the first receipt time heard of stays (a min-register)."""
        if item_id not in self.receipts or at < self.receipts[item_id]:
            self.receipts[item_id] = at

    def mark_seen(self, person, up_to):
        """FEED-14: a max-register; a lower mark changes nothing."""
        if person not in self.seen or up_to > self.seen[person]:
            self.seen[person] = up_to

    def merge(self, other):
        """FEED-21: every register by its own rule."""
        for name in self.LWW:
            table = getattr(self, name)
            for key, write in getattr(other, name).items():
                if lww_newer(name, write, table.get(key)):
                    table[key] = write
        for key, stamp in other.last_no.items():
            self._raise_no(key, stamp)
        for key, at in other.receipts.items():
            self.receive(key, at)
        for key, up_to in other.seen.items():
            self.mark_seen(key, up_to)

    def changes(self, since):
        """FEED-24: the registers written after the watermark `since` (everything when None), and
        all seen markers and receipt times."""
        delta = Replica()
        if since is None:
            delta.merge(self)
            return delta
        after = lambda stamp: stamp_key(stamp) > stamp_key(since)  # noqa: E731
        for name in self.LWW:
            setattr(delta, name, {k: w for k, w in getattr(self, name).items() if after(w[0])})
        delta.last_no = {k: s for k, s in self.last_no.items() if after(s)}
        delta.receipts = dict(self.receipts)
        delta.seen = dict(self.seen)
        return delta

    def state(self):
        return (self.stance, self.last_no, self.items, self.visibility, self.reactions,
                self.receipts, self.seen)

    # friends (FEED-4)

    def live(self, a, b):
        """a's want toward b is live when it is newer than b's last "no" toward a."""
        write = self.stance.get((a, b))
        if write is None or write[1] != 'want':
            return False
        no = self.last_no.get((b, a))
        return no is None or stamp_key(write[0]) > stamp_key(no)

    def stance_of(self, a, b):
        write = self.stance.get((a, b))
        return write[1] if write else 'none'

    def friend_state(self, a, b):
        if self.stance_of(a, b) == 'block':
            return 'blocking'
        if self.stance_of(b, a) == 'block':
            return 'blocked'
        mine, theirs = self.live(a, b), self.live(b, a)
        if mine and theirs:
            return 'friends'
        if mine:
            return 'requested'
        if theirs:
            return 'incoming'
        return 'none'

    def act(self, action, a, b, stamp):
        """FEED-5: an action of a toward b, written as a's stance when the table allows it."""
        if not isinstance(action, str) or action not in ACTIONS or a == b:
            raise Failure('invalid_friend_action', f'{action!r} is not an action toward someone else')
        allowed, stance = ACTIONS[action]
        state = self.friend_state(a, b)
        if state == 'blocked' and action != 'block':
            # Only a's view `blocked` reveals b's block: when a blocks b too, a sees `blocking`,
            # and a's own unblock goes ahead (so b's block stays hidden).
            raise Failure('not_found', 'no such person')
        if state not in allowed:
            raise Failure('invalid_friend_action', f'{action} is not allowed when {state}')
        self.write_stance(a, b, stance, stamp)

    # visibility (FEED-8, FEED-9)

    def item(self, item_id):
        """The item of `item_id` when it exists and is not withdrawn (FEED-7)."""
        write = self.items.get(item_id) if isinstance(item_id, str) else None
        return write[1] if write else None

    def either_blocks(self, a, b):
        """FEED-4: whether one of a and b blocks the other."""
        return self.friend_state(a, b) in ('blocking', 'blocked')

    def may_see(self, viewer, item):
        """FEED-9: whether the viewer may see an item (not withdrawn) now: whether they may see its
        goal."""
        return self.may_see_goal(viewer, item['owner'], item['goal'])

    def may_see_goal(self, viewer, owner, goal):
        """FEED-9, FEED-27: whether the viewer may see the owner's goal now: they are its owner, or
        neither blocks the other and its visibility is `public`, or `friends` and they are friends."""
        if viewer == owner:
            return True
        if self.either_blocks(viewer, owner):
            return False
        write = self.visibility.get((owner, goal))
        visibility = write[1] if write else 'private'
        if visibility == 'public':
            return True
        return visibility == 'friends' and self.friend_state(viewer, owner) == 'friends'

    def visible(self, viewer, item_id):
        """FEED-9: the item, or `not_found` alike for an item the viewer may not see and none."""
        item = self.item(item_id)
        if item is None or not self.may_see(viewer, item):
            raise Failure('not_found', 'no such item')
        return item

    # reactions (FEED-11, FEED-12)

    def react(self, reactor, item_id, kind, on, stamp):
        if kind not in REACTIONS:
            raise Failure('unknown_reaction', f'{kind!r} is not heart, fire or clap')
        item = self.visible(reactor, item_id)
        if item['owner'] == reactor:
            raise Failure('own_item', 'one does not react to one\'s own item')
        self.write_reaction(item_id, reactor, kind, on, stamp)

    def reactors(self, item_id, item):
        """(reactor, kind, stamp) of every reaction that is on, by a reactor who may see the item."""
        out = []
        for (iid, reactor, kind), (stamp, on) in self.reactions.items():
            if iid == item_id and on and self.may_see(reactor, item):
                out.append((reactor, kind, stamp))
        return out

    def counts(self, viewer, item_id):
        item = self.visible(viewer, item_id)
        counts = {kind: 0 for kind in REACTIONS}
        for _, kind, _ in self.reactors(item_id, item):
            counts[kind] += 1
        mine = [kind for kind in REACTIONS
                if (self.reactions.get((item_id, viewer, kind)) or (None, False))[1]]
        return {'counts': counts, 'mine': mine}

    # the badge (FEED-15)

    def badge(self, viewer):
        seen = self.seen.get(viewer)
        count = 0
        for item_id, (_, item) in self.items.items():
            if item is None or item['owner'] == viewer or item_id not in self.receipts:
                continue
            if (seen is None or self.receipts[item_id] > seen) and self.may_see(viewer, item):
                count += 1
        return count

    # pages (FEED-16 ... FEED-19)

    def feed(self, viewer):
        """FEED-16: what the viewer may see, newest first: by time, then id's UTF-8, greater first."""
        out = [(item['time'], item_id.encode('utf-8'), item_id)
               for item_id, (_, item) in self.items.items()
               if item is not None and self.may_see(viewer, item)]
        out.sort(reverse=True)
        return out

    def page(self, viewer, limit, cursor):
        entries = self.feed(viewer)
        if cursor is not None:
            entries = [e for e in entries if (e[0], e[1]) < cursor]
        chosen = entries[:limit]
        more = len(entries) > limit
        return [e[2] for e in chosen], (write_cursor(chosen[-1][0], chosen[-1][2]) if more else None)

    # notices (FEED-20)

    def notices(self, owner, zone, day_start, names):
        groups = {}
        for item_id, (_, item) in self.items.items():
            if item is None or item['owner'] != owner:
                continue
            for reactor, kind, stamp in self.reactors(item_id, item):
                day = model.day_text(model.day_of(zone, day_start, stamp[0]))
                groups.setdefault((item_id, day, kind), []).append((stamp_key(stamp), reactor))
        notices = []
        for (item_id, day, kind), reactions in groups.items():
            reactions.sort(reverse=True)
            reactors = [r for _, r in reactions]
            notices.append((reactions[0][0], item_id, day, kind, reactors))
        notices.sort(key=lambda n: (n[0], n[1].encode('utf-8'), n[2], n[3]), reverse=True)
        return [{'item': item_id, 'day': day, 'kind': kind, 'reactors': reactors,
                 'text': sentence(self.items[item_id][1], kind, reactors, names)}
                for _, item_id, day, kind, reactors in notices]


def sentence(item, kind, reactors, names):
    """FEED-20: `WHO cheered SYMBOL your SUBJECT`."""
    who = names.get(reactors[0], reactors[0])
    others = len(reactors) - 1
    if others == 1:
        who += ' and 1 other'
    elif others > 1:
        who += f' and {others} others'
    title = item['title']
    subject = {
        'milestone': lambda: f"{item.get('milestone')}-day {title} streak",
        'checkIn': lambda: f'{title} check-in',
        'goalStarted': lambda: f'new goal {title}',
        'goalCompleted': lambda: f'finished {title}',
    }[item['kind']]()
    return f'{who} cheered {SYMBOLS[kind]} your {subject}'


# ---- Items (FEED-6)

def text_field(obj, key, lo=1, hi=200):
    value = obj.get(key)
    if not isinstance(value, str) or not lo <= len(value.encode('utf-8')) <= hi:
        raise Failure('invalid_item', f'{key} is 1 to 200 bytes')
    return value


def day_field(obj, key):
    try:
        return model.day_text(model.parse_day(obj.get(key)))
    except Failure:
        raise Failure('invalid_item', f'{key} is a Day, YYYY-MM-DD')


def parse_item(value):
    """FEED-6: an item as its kind needs it, without a note; answers (id, item). A field its kind
    does not carry is dropped, unread: a Day on `goalStarted`, a streak on either goal item, a
    milestone or streak start on anything but a milestone."""
    if not isinstance(value, dict):
        raise Failure('invalid_item', 'an item is a JSON object')
    owner, goal, title = text_field(value, 'owner'), text_field(value, 'goal'), text_field(value, 'title')
    kind = value.get('kind')
    if kind not in KINDS:
        raise Failure('invalid_item', f'{kind!r} is not an item kind')
    time = value.get('time')
    if not is_int(time) or not 0 <= time <= MAX_WALL:
        raise Failure('invalid_item', 'the time is outside 0 ... 2^53 - 1')
    item = {'owner': owner, 'kind': kind, 'goal': goal, 'title': title, 'time': time}
    for key in ('emoji', 'goalKind'):                  # empty when it has none (FEED-22, FEED-28)
        item[key] = value.get(key, '')
        if not isinstance(item[key], str):
            raise Failure('invalid_item', f'{key} is text')
        if len(item[key].encode('utf-8')) > MAX_LABEL:
            raise Failure('invalid_item', f'{key} is at most 64 bytes')
    if 'streak' in value and kind in STREAK_KINDS:
        if not is_int(value['streak']) or not 0 <= value['streak'] <= MAX_COUNT:
            raise Failure('invalid_item', 'a streak is a length in Days, 0 ... 2^32 - 1')
        item['streak'] = value['streak']
    item_id = f'{owner}/{kind}/{goal}'
    if kind in ('checkIn', 'milestone') or (kind == 'goalCompleted' and 'day' in value):
        item['day'] = day_field(value, 'day')              # a completion may carry its Day
    if kind == 'checkIn':
        item_id += '/' + item['day']
    if kind == 'milestone':
        milestone = value.get('milestone')
        if not is_int(milestone) or not 0 < milestone <= MAX_COUNT:
            raise Failure('invalid_item', 'a milestone is a positive number of Days, at most 2^32 - 1')
        item['milestone'] = milestone
        item['streakStart'] = day_field(value, 'streakStart')
        item_id += f"/{milestone}/{item['streakStart']}"
    return item_id, item


# ---- Cursors (FEED-18, FEED-19)

B64URL = set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')


def write_cursor(time, item_id):
    raw = b'\x01' + time.to_bytes(8, 'big') + item_id.encode('utf-8')
    return base64.urlsafe_b64encode(raw).rstrip(b'=').decode('ascii')


def read_cursor(text):
    """FEED-19: the (time, id's UTF-8) a cursor stands for, or `invalid_cursor`."""
    def bad(why):
        return Failure('invalid_cursor', why)
    if not isinstance(text, str) or len(text.encode('utf-8')) > MAX_CURSOR:
        raise bad('a cursor is at most 1,024 bytes of text')
    if not set(text) <= B64URL or len(text) % 4 == 1:
        raise bad('a cursor is base64url without padding')
    try:
        raw = base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise bad('a cursor is base64url without padding')
    if write_b64(raw) != text:
        raise bad('a cursor is canonical base64url')
    if len(raw) < 10:
        raise bad('a cursor has at least 10 bytes')
    if raw[0] != 1:
        raise bad('unknown cursor version')
    time = int.from_bytes(raw[1:9], 'big')
    if time > MAX_WALL:
        raise bad('the time is outside 0 ... 2^53 - 1')
    try:
        raw[9:].decode('utf-8')
    except UnicodeDecodeError:
        raise bad('the id is not UTF-8')
    return (time, raw[9:])


def write_b64(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b'=').decode('ascii')


# ---- The script (feed.script)

def text(step, key):
    value = step.get(key)
    if not isinstance(value, str):
        raise bad_input(f'{key} is text')
    return value


class Script:
    """Named replicas, each empty when first named, and the last page's cursor (`$next`)."""

    def __init__(self):
        self.replicas = {}
        self.next_cursor = None

    def replica(self, name):
        if not isinstance(name, str):
            raise bad_input('a replica is named by text')
        return self.replicas.setdefault(name, Replica())

    def run(self, step):
        do = step.get('do')
        r = self.replica(step.get('replica', 'r'))
        if do == 'stance':
            stamp = parse_stamp(step.get('stamp'))
            value = step.get('stance')
            if value not in STANCES:
                raise bad_input(f'{value!r} is not a stance')
            r.write_stance(text(step, 'from'), text(step, 'to'), value, stamp)
            return {'ok': True}
        if do == 'act':
            stamp = parse_stamp(step.get('stamp'))
            r.act(step.get('action'), text(step, 'from'), text(step, 'to'), stamp)
            return {'ok': True}
        if do == 'state':
            return {'state': r.friend_state(text(step, 'a'), text(step, 'b'))}
        if do == 'item':
            stamp = parse_stamp(step.get('stamp'))
            if 'withdraw' in step:
                item_id, item = text(step, 'withdraw'), None
            else:
                item_id, item = parse_item(step.get('item'))
            r.write_item(item_id, item, stamp)
            return {'ok': True, 'id': item_id}
        if do == 'visibility':
            stamp = parse_stamp(step.get('stamp'))
            value = step.get('visibility')
            if value not in VISIBILITIES:
                raise bad_input(f'{value!r} is not a visibility')
            r.write_visibility(text(step, 'owner'), text(step, 'goal'), value, stamp)
            return {'ok': True}
        if do == 'receive':
            at = step.get('at')
            if not is_int(at) or not 0 <= at <= MAX_WALL:
                raise bad_input('a receipt time is milliseconds since 1970')
            r.receive(text(step, 'item'), at)
            return {'ok': True}
        if do == 'seen':
            up_to = step.get('upTo')
            if not is_int(up_to) or not 0 <= up_to <= MAX_WALL:
                raise bad_input('a seen marker is a receipt time')
            r.mark_seen(text(step, 'person'), up_to)
            return {'ok': True}
        if do == 'react':
            stamp = parse_stamp(step.get('stamp'))
            on = step.get('on', True)
            if not isinstance(on, bool):
                raise bad_input('on is true or false')
            r.react(text(step, 'reactor'), step.get('item'), step.get('kind'), on, stamp)
            return {'ok': True}
        if do == 'reaction':
            # A raw reaction write (the relay's corpus): no visibility or own-item check.
            stamp = parse_stamp(step.get('stamp'))
            on = step.get('on', True)
            if not isinstance(on, bool):
                raise bad_input('on is true or false')
            kind = step.get('kind')
            if kind not in REACTIONS:
                raise Failure('unknown_reaction', f'{kind!r} is not heart, fire or clap')
            r.write_reaction(text(step, 'item'), text(step, 'reactor'), kind, on, stamp)
            return {'ok': True}
        if do == 'reactions':
            return r.counts(text(step, 'viewer'), step.get('item'))
        if do == 'badge':
            return {'badge': r.badge(text(step, 'viewer'))}
        if do == 'page':
            return self.page(r, step)
        if do == 'notices':
            zone = model.check_zone(step.get('zone', 'UTC'))
            day_start = step.get('dayStartMinutes', 0)
            if not is_int(day_start) or not 0 <= day_start < 1440:
                raise Failure('invalid_day_start')
            names = step.get('names') or {}
            if not isinstance(names, dict):
                raise bad_input('names maps people to names')
            return {'notices': r.notices(text(step, 'owner'), zone, day_start, names)}
        if do == 'merge':
            r.merge(self.replica(step.get('from')))
            return {'ok': True}
        if do == 'changes':
            since = step.get('since')
            delta = r.changes(None if since is None else parse_stamp(since))
            self.replica(step.get('into')).merge(delta)
            return {'ok': True}
        if do == 'equal':
            names = step.get('replicas')
            if not isinstance(names, list):
                raise bad_input('replicas is a list of names')
            states = [self.replica(name).state() for name in names]
            return {'equal': all(s == states[0] for s in states)}
        raise bad_input(f'no step {do!r}')

    def page(self, r, step):
        viewer = text(step, 'viewer')
        limit = step.get('limit', DEFAULT_LIMIT)
        if not is_int(limit) or limit <= 0:
            raise Failure('invalid_limit', 'a limit is 1 or more')
        limit = min(limit, MAX_LIMIT)
        cursor = step.get('cursor')
        if cursor == '$next':
            if self.next_cursor is None:
                raise bad_input('no page before gave a cursor')
            cursor = self.next_cursor
        position = read_cursor(cursor) if cursor is not None else None
        items, following = r.page(viewer, limit, position)
        self.next_cursor = following
        return {'items': items, 'next': following is not None}


def run_steps(script, input):
    """Each step's answer, or `{"error": CODE}` for a step the feed refuses."""
    outputs = []
    for step in input.get('steps') or []:
        if not isinstance(step, dict):
            raise bad_input('a step is a JSON object')
        try:
            outputs.append(script.run(step))
        except Failure as failure:
            if failure.code == 'invalid_input':
                raise
            outputs.append({'error': failure.code})
    return {'steps': outputs}


def script_operation(input):
    """feed.script: each step's `{"ok": true}`, its reading, or `{"error": CODE}`."""
    return run_steps(Script(), input)


# ---- The relay (FEED-25 ... FEED-27, FEED-31, feed.relay)

def utf8(*parts):
    return tuple(part.encode('utf-8') for part in parts)


def owner_of(item_id):
    """FEED-27: an item's owner as its id names it, the part before the first `/`."""
    return item_id.split('/', 1)[0]


def goal_of(item_id):
    """FEED-27: an item's goal as its id names it, the part between its second and third `/`, or
    its end; None for an id without a second `/` (no goal's register has it: private, FEED-8)."""
    parts = item_id.split('/', 3)
    return parts[2] if len(parts) > 2 else None


PAGED = ('stance', 'items', 'visibility', 'reactions')    # FEED-27: the tables of the registers paged (1 to 5)


class Relay:
    """The server's logic over one replica: every register it holds has the sequence number of its
    last change (FEED-25), and each item id the receipt time of its first write (FEED-26)."""

    def __init__(self, max_writes=MAX_DELTA_WRITES, max_answer=MAX_ANSWER_BYTES):
        self.replica = Replica()
        self.max_writes = max_writes    # FEED-25: the relay's bound on a delta's registers
        self.max_answer = max_answer    # FEED-27: the relay's bound on an answer's bytes
        self.sequence = 0
        self.numbers = {}           # (table, key) -> sequence number of the register's last change
        self.stopped = {}           # (owner, goal) -> sequence numbers at which the visibility
                                    # register last stopped being `public`, and `friends` or
                                    # `public` (FEED-25; 0 at first)
        self.last_receipt = None    # the receipt clock (FEED-26)
        self.closed = set()         # the people erased (FEED-31)

    # accepting (FEED-25, FEED-26)

    def check_count(self, delta):
        """FEED-25: a delta of more registers than the relay takes (stances, items, visibility,
        reactions, seen markers and receipt times, each one) is `too_many_writes`, before anything
        else. A stance register is one register, its last "no" included."""
        count = len(set(delta.stance) | set(delta.last_no)) + len(delta.items) + len(delta.visibility)
        count += len(delta.reactions) + len(delta.seen) + len(delta.receipts)
        if count > self.max_writes:
            raise Failure('too_many_writes', f'a delta of {count} registers, more than '
                          f'{self.max_writes}', rule='FEED-25')

    @staticmethod
    def check_lengths(delta):
        """FEED-25: a delta holding a register longer than 4,096 bytes written alone as a `FeedDelta`
        (FEED-28) is refused whole, `register_too_large`, after the count and before authorship, so
        that no one register is past a page of FEED-27. Every register counts: stances (with their
        last "no"), items, visibility, reactions, seen markers and receipt times."""
        from . import feedwire          # feedwire builds on this module
        for (table, key), length in feedwire.register_lengths(delta).items():
            if length > MAX_REGISTER_BYTES:
                raise Failure('register_too_large', f'a {table} register of {length} bytes, more than '
                              f'{MAX_REGISTER_BYTES}', rule='FEED-25')

    def check_author(self, person, delta):
        """FEED-25: every write is the person's own, else `not_author`; a reaction by the person on
        their own item is `own_item`. A delta that is not the person's own is `not_author` first."""
        def refuse(why):
            return Failure('not_author', why)
        for a, _ in list(delta.stance) + list(delta.last_no):
            if a != person:
                raise refuse('a stance of someone else')
        for item_id, (_, item) in delta.items.items():
            if not item_id.startswith(person + '/'):
                raise refuse('an item of someone else')
            if item is not None and item['owner'] != person:
                raise refuse('an item of someone else')
        for owner, _ in delta.visibility:
            if owner != person:
                raise refuse('a visibility of someone else\'s goal')
        for _, reactor, _ in delta.reactions:
            if reactor != person:
                raise refuse('a reaction of someone else')
        if any(who != person for who in delta.seen):
            raise refuse('a seen marker of someone else')
        if delta.receipts:
            raise refuse('receipt times are the relay\'s')
        for item_id, _, _ in delta.reactions:
            if item_id.startswith(person + '/'):
                raise Failure('own_item', 'one does not react to one\'s own item')

    def check_open(self, person):
        """FEED-31: a closed person is refused with `person_erased`, and nothing changes."""
        if person in self.closed:
            raise Failure('person_erased', 'this person\'s account was deleted', rule='FEED-31')

    def submit(self, person, delta, now):
        """FEED-25: a delta of at most the relay's bound of registers (checked first), none of them
        longer than 4,096 bytes alone, of the person's own writes, from a person not closed
        (FEED-31), merged; the answer is the last sequence number given. Erasure (FEED-31) is the
        relay's own change and not bounded."""
        self.check_count(delta)
        self.check_lengths(delta)
        self.check_author(person, delta)
        self.check_open(person)
        self.check_stamps(delta, now)
        return self.accept(delta, now)

    def check_stamps(self, delta, now):
        """FEED-25: a stamp (of a stance or its last "no", an item, a visibility or a reaction
        register) whose wall time is more than MAX_AHEAD ms after the relay's `now`, or whose counter
        is more than 2^24, is refused `stamp_ahead`, after authorship and erasure."""
        stamps = [stamp for stamp, _ in delta.stance.values()] + list(delta.last_no.values())
        stamps += [stamp for stamp, _ in delta.items.values()]
        stamps += [stamp for stamp, _ in delta.visibility.values()]
        stamps += [stamp for stamp, _ in delta.reactions.values()]
        for wall, counter, _ in stamps:
            if wall - now > MAX_AHEAD:
                raise Failure('stamp_ahead', 'a write stamped beyond the skew', rule='FEED-25')
            if counter > MAX_ACCEPTED_COUNTER:
                raise Failure('stamp_ahead', 'a write whose counter no clock reaches', rule='FEED-25')

    def accept(self, delta, now):
        """FEED-25, FEED-26: a delta merged in one change of the relay's state, its reactions as
        `judge_reactions` takes them in; each register it changed gets the next sequence number in
        FEED-25's order, and each item id changed without a receipt time gets one. A visibility
        register that stops being `public`, or `friends` or `public` (made `private`), keeps that
        number as the one at which it last did (FEED-25, read by FEED-27 (5))."""
        r = self.replica
        # Every register the delta touches, in FEED-25's order, with its value before the merge.
        touched = []
        for key in sorted(set(delta.stance) | set(delta.last_no), key=lambda k: utf8(*k)):
            touched.append(('stance', key, lambda k=key: (r.stance.get(k), r.last_no.get(k))))
        for key in sorted(delta.items, key=lambda k: utf8(k)):
            touched.append(('items', key, lambda k=key: r.items.get(k)))
        for key in sorted(delta.visibility, key=lambda k: utf8(*k)):
            touched.append(('visibility', key, lambda k=key: r.visibility.get(k)))
        for key in sorted(delta.reactions, key=lambda k: utf8(*k)):
            touched.append(('reactions', key, lambda k=key: r.reactions.get(k)))
        for key in delta.seen:
            touched.append(('seen', key, lambda k=key: r.seen.get(k)))
        before = [read() for _, _, read in touched]
        # FEED-25: the reaction registers are judged after the delta's other writes are merged, so
        # a stance sent with a cheer counts for it.
        others = Replica()
        others.merge(delta)
        others.reactions = {}
        r.merge(others)
        judged = Replica()
        judged.reactions = self.judge_reactions(delta.reactions)
        r.merge(judged)
        for (table, key, read), old in zip(touched, before):
            if read() == old:
                continue
            self.sequence += 1
            self.numbers[(table, key)] = self.sequence
            if table == 'visibility':
                self.note_stop(key, old, r.visibility[key])
            if table == 'items' and key not in r.receipts:
                at = now if self.last_receipt is None else max(now, self.last_receipt + 1)
                self.last_receipt = at
                r.receipts[key] = at
        return self.sequence

    def note_stop(self, key, old, new):
        """FEED-25: the sequence number just given to the visibility register `key`, changed from
        the write `old` (none: `private`, FEED-8) to `new`, as the one at which it last stopped
        being `public`, and `friends` or `public`, when it did."""
        was = old[1] if old else 'private'
        public, shared = self.stopped.get(key, (0, 0))
        if was == 'public' and new[1] != 'public':
            public = self.sequence
        if was != 'private' and new[1] == 'private':
            shared = self.sequence
        self.stopped[key] = (public, shared)

    def judge_reactions(self, reactions):
        """FEED-25: the reaction registers of a delta as the relay takes them in. One turned on
        whose reactor may not see the item (FEED-9, FEED-11: a withdrawn item included), or on an
        item id the relay holds no register of, is taken in turned off, with its stamp, so it
        counts nowhere, now or after the item shows, and off outranks an honest on of the same
        stamp (FEED-3); one turned off is taken as it is. A missing item and a hidden one are
        judged alike, so neither the answer nor the sequence numbers tell a guesser whether an item
        exists; a register on a missing item is numbered like any other and sent to no one, since
        no one may see the item (FEED-27)."""
        r, kept = self.replica, {}
        for key, (stamp, on) in reactions.items():
            item_id, reactor, _ = key
            if on:
                item = r.item(item_id)          # None for a withdrawal and for an id held nowhere
                if item is None or not r.may_see(reactor, item):
                    on = False
            kept[key] = (stamp, on)
        return kept

    # erasure (FEED-31)

    def erasure_stamp(self, person, now):
        """FEED-31: (max(now, w + 1), 0, `glow-server`), w the greatest wall time among the stamps of
        the person's registers (stances from them with their last "no", items whose id begins with
        `person/`, their visibility registers, reactions by them; 0 when none), capped at FEED-1's
        greatest wall time."""
        r, prefix = self.replica, person + '/'
        walls = [0]
        walls += [stamp[0] for (a, _), (stamp, _) in r.stance.items() if a == person]
        walls += [stamp[0] for (a, _), stamp in r.last_no.items() if a == person]
        walls += [stamp[0] for item_id, (stamp, _) in r.items.items() if item_id.startswith(prefix)]
        walls += [stamp[0] for (owner, _), (stamp, _) in r.visibility.items() if owner == person]
        walls += [stamp[0] for (_, reactor, _), (stamp, _) in r.reactions.items() if reactor == person]
        return (min(max(now, max(walls) + 1), MAX_WALL), 0, 'glow-server')

    def erase(self, person, now):
        """FEED-31: the person erased in one change, as if one delta had been accepted from them:
        their items with content withdrawn, their stances that are not `none` set to `none` (which
        raises their last "no", FEED-5), their reactions that are on turned off; then they are
        closed. Erasing a closed person again changes nothing. Answers the last sequence number."""
        physical(now)
        if person in self.closed:
            return self.sequence
        r, prefix = self.replica, person + '/'
        stamp = self.erasure_stamp(person, now)
        delta = Replica()
        for item_id, (_, item) in r.items.items():
            if item_id.startswith(prefix) and item is not None:
                delta.write_item(item_id, None, stamp)
        for (a, b), (_, value) in r.stance.items():
            if a == person and value != 'none':
                delta.write_stance(a, b, 'none', stamp)
        for (item_id, reactor, kind), (_, on) in r.reactions.items():
            if reactor == person and on:
                delta.write_reaction(item_id, reactor, kind, False, stamp)
        sequence = self.accept(delta, now)
        self.closed.add(person)
        return sequence

    # fan-out (FEED-27)

    def changes(self, viewer, since):
        """FEED-27: what the viewer learns of the changes after the cursor `since`, as its state is
        now: (delta, cursor, next), the delta a replica of the registers sent and `next` the page to
        ask for at once as (since, after, until) on a page with more after it (FEED-29's `more` and
        `next`), else None. A cursor greater than the relay's last sequence number is not one the
        relay gave (FEED-27): it is answered as the cursor 0 is, so the device catches up. The
        relay fixes L, its last sequence number now, and answers the first page of the answer from
        the cursor as if its log ended at L: the whole answer with the cursor L when it fits the
        bound or holds one sequence number only."""
        self.check_open(viewer)
        if since > self.sequence:
            since = 0
        return self.page(viewer, since, 0, self.sequence)

    def changes_page(self, viewer, since, after, until):
        """FEED-27, FEED-29's `changes_page`: the page after `after` of the answer from `since` as if
        the relay's log ended at `until`, as `changes` answers. One whose numbers are not since <=
        until, after <= until and until <= the relay's last sequence number is not one the relay
        gave (its state was restored from an older copy): it is answered as the cursor 0 is."""
        self.check_open(viewer)
        if not since <= until or not after <= until or not until <= self.sequence:
            return self.changes(viewer, 0)
        return self.page(viewer, since, after, until)

    def page(self, viewer, since, after, until):
        """FEED-27's pages, by the registers' own sequence numbers: of the answer from `since` as if
        the log ended at `until` (L), the registers (1 to 5) numbered after `after`, each item with
        its receipt time, and the viewer's seen marker on every page. The page holds those
        numbered up to s, the greatest of their numbers whose page, as a `RelayResponse`, fits the
        relay's bound, or the least when none does. A page with more after it is answered with the
        cursor `since` and `next` = (since, s, until); the page that holds the answer's greatest
        number with the cursor `until` and no `next`. Each register has one number (its current
        one), so each is sent once, old ones (numbered at or before `since`, sent because their
        owner is affected) paged like new ones.

        The lengths are exact without writing every page: a `FeedDelta` is its registers' fields one
        after another, so its length is the sum of each register's length written alone
        (`feedwire.register_lengths`), and the page's `RelayResponse` around it follows
        (`feedwire.page_length`)."""
        from . import feedwire          # feedwire builds on this module
        whole = self.answer(viewer, since, until)
        lengths = feedwire.register_lengths(whole)
        entries = sorted((self.numbers[(table, key)], table, key) for table, key in lengths
                         if table in PAGED and self.numbers[(table, key)] > after)
        fixed = sum(lengths[('seen', who)] for who in whole.seen)
        chosen, total = 0, fixed
        for index, (number, table, key) in enumerate(entries):
            total += lengths[(table, key)]
            if table == 'items' and key in whole.receipts:
                total += lengths[('receipts', key)]
            last = index == len(entries) - 1
            following = None if last else (since, number, until)
            if feedwire.page_length(total, until if last else since, following) <= self.max_answer:
                chosen = index + 1
        chosen = max(chosen, min(1, len(entries)))      # the least after `after` when none fits
        page = Replica()
        for _, table, key in entries[:chosen]:
            getattr(page, table)[key] = getattr(whole, table)[key]
            if table == 'stance' and key in whole.last_no:
                page.last_no[key] = whole.last_no[key]
            if table == 'items' and key in whole.receipts:
                page.receipts[key] = whole.receipts[key]
        page.seen = dict(whole.seen)
        if chosen == len(entries):
            return page, until, None
        return page, since, (since, entries[chosen - 1][0], until)

    def answer(self, viewer, since, upto):
        """FEED-27's answer to the viewer, as a delta, as if the relay's log ended at `upto` (L):
        the registers as they are now, only those numbered after `since` and up to `upto` counting
        as changed, and only they making owners affected; one numbered after `upto` is in no page,
        whatever else would send it (an affected owner, a reaction's stance)."""
        def changed(table, key):
            return since < self.numbers.get((table, key), 0) <= upto

        def counted(table, key):
            return self.numbers.get((table, key), 0) <= upto
        r, delta = self.replica, Replica()
        affected = set()
        for (a, b) in r.stance:
            if viewer in (a, b) and changed('stance', (a, b)):
                affected.add(b if a == viewer else a)
        for (owner, goal) in r.visibility:
            if changed('visibility', (owner, goal)):
                affected.add(owner)

        # 1, 2: the items the viewer may see, with their receipt times, and withdrawals.
        visible = {}
        for item_id, (_, item) in r.items.items():
            if item is not None:
                if not r.may_see(viewer, item):
                    continue
                visible[item_id] = item
                if counted('items', item_id) and (changed('items', item_id) or item['owner'] in affected):
                    delta.items[item_id] = r.items[item_id]
                    if item_id in r.receipts:
                        delta.receipts[item_id] = r.receipts[item_id]
            else:
                owner = owner_of(item_id)
                if (counted('items', item_id) and (changed('items', item_id) or owner in affected)
                        and r.may_see_goal(viewer, owner, goal_of(item_id))):
                    delta.items[item_id] = r.items[item_id]

        # 3, 4: reactions on what the viewer may see, and the stances that count them.
        stances = set()
        for key, write in r.reactions.items():
            item_id, reactor, _ = key
            item = visible.get(item_id)
            if item is None:
                continue
            sent = counted('reactions', key) and (
                changed('reactions', key) or changed('items', item_id) or item['owner'] in affected)
            if sent:
                delta.reactions[key] = write
            for pair in ((item['owner'], reactor), (reactor, item['owner'])):
                if pair in r.stance and counted('stance', pair) and (sent or changed('stance', pair)):
                    stances.add(pair)
        for pair in r.stance:
            if viewer in pair and changed('stance', pair):
                stances.add(pair)
        for pair in stances:
            delta.stance[pair] = r.stance[pair]
            if pair in r.last_no:
                delta.last_no[pair] = r.last_no[pair]

        # 5, 6: goal visibility (of the goals the viewer may see, and of those whose items their
        # device may hold), and the viewer's seen marker.
        for (owner, goal), write in r.visibility.items():
            if not counted('visibility', (owner, goal)):
                continue
            if not (changed('visibility', (owner, goal)) or owner in affected):
                continue
            if (r.may_see_goal(viewer, owner, goal)
                    or self.may_hold(viewer, owner, goal, since, owner in affected)):
                delta.visibility[(owner, goal)] = write
        if viewer in r.seen:
            delta.seen[viewer] = r.seen[viewer]
        return delta

    def may_hold(self, viewer, owner, goal, since, affected):
        """FEED-27 (5): whether the viewer's device may hold items of the owner's goal, so that it
        hides them: the cursor `since` is not 0, neither blocks the other, and the register stopped
        being `public` after c', or they are friends and it stopped being `friends` or `public`
        (was made `private`) after c' (FEED-25's sequence numbers). c' is 0 when the owner is
        `affected` (a device that could not see the owner's goals for a while still holds what it
        had before) and the cursor otherwise."""
        r = self.replica
        if since == 0 or r.either_blocks(viewer, owner):
            return False
        floor = 0 if affected else since
        public, shared = self.stopped.get((owner, goal), (0, 0))
        if public > floor:
            return True
        return r.friend_state(viewer, owner) == 'friends' and shared > floor


def fetch_json(delta, cursor, viewer, following=None):
    """feed.relay's `fetch` answer: a summary of what the relay sends (FEED-27), in UTF-8 order,
    with `"more": true` and `"next"`, the page to ask for as `since`, `after` and `until`, on a page
    with more after it (FEED-27, FEED-29) only."""
    items = sorted(delta.items, key=lambda i: utf8(i))
    out = {
        'cursor': cursor,
        'items': [item_id for item_id in items if delta.items[item_id][1] is not None],
        'withdrawn': [item_id for item_id in items if delta.items[item_id][1] is None],
        'receipts': dict(delta.receipts),
        'stances': [[a, b, delta.stance[(a, b)][1]] for a, b in sorted(delta.stance, key=lambda k: utf8(*k))],
        'visibility': [[owner, goal, value] for (owner, goal), (_, value)
                       in sorted(delta.visibility.items(), key=lambda v: utf8(*v[0]))],
        'reactions': [[item_id, reactor, kind, on] for (item_id, reactor, kind), (_, on)
                      in sorted(delta.reactions.items(), key=lambda x: utf8(*x[0]))],
        'seen': delta.seen.get(viewer),
    }
    if following is not None:
        out['more'] = True
        out['next'] = dict(zip(('since', 'after', 'until'), following))
    return out


class OneReplica(Script):
    """A submit's writes: script steps made on one empty replica, whatever replica they name."""

    def __init__(self):
        super().__init__()
        self.only = Replica()

    def replica(self, name):
        return self.only


def relay_time(step):
    now = step.get('now')
    if not is_int(now) or not 0 <= now <= MAX_WALL:
        raise bad_input('the relay\'s time is milliseconds since 1970')
    return now


def relay_limit(input):
    """feed.relay's `maxDeltaWrites`: the relay's bound on a delta (FEED-25), 1,000 when absent;
    a relay may be set to fewer, not to more."""
    limit = input.get('maxDeltaWrites')
    if limit is None:
        return MAX_DELTA_WRITES
    if not is_int(limit) or not 0 <= limit <= MAX_DELTA_WRITES:
        raise bad_input('maxDeltaWrites is a number of registers, 0 ... 1,000')
    return limit


def relay_answer_bound(input):
    """feed.relay's `maxAnswerBytes`: the relay's bound on an answer as a `RelayResponse`
    (FEED-27), 1 MiB when absent; a relay may be set otherwise."""
    bound = input.get('maxAnswerBytes')
    if bound is None:
        return MAX_ANSWER_BYTES
    if not is_int(bound) or bound < 0:
        raise bad_input('maxAnswerBytes is a number of bytes')
    return bound


def relay_page(value):
    """feed.relay's `page`: a page of FEED-27 as `{"since", "after", "until"}`, sequence numbers."""
    if not isinstance(value, dict):
        raise bad_input('a page is {"since", "after", "until"}')
    numbers = tuple(value.get(key) for key in ('since', 'after', 'until'))
    if not all(is_int(n) and n >= 0 for n in numbers):
        raise bad_input('a page\'s since, after and until are sequence numbers')
    return numbers


class RelayScript:
    """feed.relay's steps over one relay: `submit` answers `{"sequence": N}`, `fetch` what the
    viewer learns (since `since`, or on the page `page`; with neither, on the `next` page of the
    viewer's last fetch when it had one, else since its cursor), `erase` (FEED-31) the relay's last
    sequence number after the erasure."""

    def __init__(self, max_writes=MAX_DELTA_WRITES, max_answer=MAX_ANSWER_BYTES):
        self.relay, self.cursors = Relay(max_writes, max_answer), {}
        self.pages = {}                 # viewer -> the `next` page of their last fetch, when it had one

    def run(self, step):
        do = step.get('do')
        if do == 'submit':
            person, now = text(step, 'person'), relay_time(step)
            writes = step.get('writes') or []
            if not isinstance(writes, list):
                raise bad_input('writes is a list of script steps')
            script = OneReplica()
            for write in writes:
                if not isinstance(write, dict):
                    raise bad_input('a write is a JSON object')
                script.run(write)
            return {'sequence': self.relay.submit(person, script.only, now)}
        if do == 'fetch':
            viewer = text(step, 'viewer')
            if 'since' in step and 'page' in step:
                raise bad_input('a fetch is since a cursor or on a page, not both')
            page = relay_page(step['page']) if 'page' in step else None
            if page is None and 'since' not in step:
                page = self.pages.get(viewer)
            if page is not None:
                delta, cursor, following = self.relay.changes_page(viewer, *page)
            else:
                since = step.get('since', self.cursors.get(viewer, 0))
                if not is_int(since) or since < 0:
                    raise bad_input('a cursor is a sequence number')
                delta, cursor, following = self.relay.changes(viewer, since)
            self.cursors[viewer] = cursor
            self.pages[viewer] = following
            return fetch_json(delta, cursor, viewer, following)
        if do == 'erase':
            return {'sequence': self.relay.erase(text(step, 'person'), relay_time(step))}
        raise bad_input(f'no step {do!r}')


def relay_operation(input):
    """feed.relay: `submit` answers `{"sequence": N}`, `fetch` what the viewer learns; errors as
    `{"error": CODE}`."""
    return run_steps(RelayScript(relay_limit(input), relay_answer_bound(input)), input)


OPERATIONS = {
    'feed.clock': clock_operation,
    'feed.script': script_operation,
    'feed.relay': relay_operation,
}
