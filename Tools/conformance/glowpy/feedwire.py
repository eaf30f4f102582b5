"""Section 8.12 of the spec (Spec/feed.md): the feed on the wire. Replicas and deltas as `FeedDelta`
messages (FEED-28), the relay's `RelayRequest` and `RelayResponse` (FEED-29), and a person's social
data as a `FeedSocial` (FEED-30, which `bundle` reads from a bundle's social frame, BUNDLE-27), with
the `encode` and `decode` steps of `feed.script` (Spec/corpus/feed/wire.json) and the `request`
step of `feed.relay` (Spec/corpus/feed/wire_relay.json).

The messages are read and written by this testee itself (`protowire`, the standard library only),
not by the stock runtime: a replica is written canonically, its registers sorted as FEED-28 says,
so equal replicas have equal bytes; reading accepts any valid encoding, merges the registers it
reads as FEED-21 merges them, skips fields it does not know, and refuses what FEED-28 lists with
`invalid_value`, leaving nothing behind.

An item field its kind does not carry (a goal start's `day` or `streak`) is dropped when read, as
`feed.parse_item` drops it from JSON (FEED-6).

Choices where the text leaves room (none of them is exercised by the corpus):

- a `day` that is dropped is still a Day, held to WIRE-17 (FEED-28 refuses any Day outside years
  1 to 9999), and read before it is dropped;
- registers are read in the order of their bytes when their places are known (a social frame), so
  the refusal reported is the first in the bytes (BUNDLE-13); FEED-28's refusals come before
  FEED-30's, which judge what the registers read hold;
- seen markers and receipt times are taken at any value the wire allows (FEED-28 lists no
  refusal for them);
- an `invalid_value` that the wire itself finds (a `uint32` or `sint32` beyond its width) names
  WIRE-16 in the relay's error, an enum that is not an int32 WIRE-7, and everything FEED-28 lists
  FEED-28;
- a closed person's `submit` (after FEED-25's count, length and authorship checks), `changes_since`
  or `changes_page` is answered `error` `person_erased` naming FEED-31, the rule that refuses it
  (FEED-29 names FEED-25's codes only).
"""
from . import feed
from . import model
from . import protowire
from .errors import Failure
from .protowire import Field

SCHEMA = {                                                  # Spec/glow.proto, the feed's messages
    'FeedStamp': [
        Field(1, 'wall', 'sint64'), Field(2, 'counter', 'uint32'), Field(3, 'device', 'string')],
    'FeedItem': [
        Field(1, 'owner', 'string'), Field(2, 'kind', 'enum'), Field(3, 'goal', 'string'),
        Field(4, 'time', 'sint64'), Field(5, 'title', 'string'), Field(6, 'emoji', 'string'),
        Field(7, 'goal_kind', 'string'), Field(8, 'day', 'sint32', 'optional'),
        Field(9, 'streak', 'uint32', 'optional'), Field(10, 'milestone', 'uint32', 'optional'),
        Field(11, 'streak_start', 'sint32', 'optional')],
    'FeedStanceRegister': [
        Field(1, 'from', 'string'), Field(2, 'to', 'string'), Field(3, 'stance', 'enum'),
        Field(4, 'stamp', 'FeedStamp'), Field(5, 'last_no', 'FeedStamp')],
    'FeedItemRegister': [
        Field(1, 'id', 'string'), Field(2, 'stamp', 'FeedStamp'), Field(3, 'item', 'FeedItem')],
    'FeedVisibilityRegister': [
        Field(1, 'owner', 'string'), Field(2, 'goal', 'string'), Field(3, 'visibility', 'enum'),
        Field(4, 'stamp', 'FeedStamp')],
    'FeedReactionRegister': [
        Field(1, 'item', 'string'), Field(2, 'reactor', 'string'), Field(3, 'kind', 'enum'),
        Field(4, 'on', 'bool'), Field(5, 'stamp', 'FeedStamp')],
    'FeedTime': [Field(1, 'key', 'string'), Field(2, 'time', 'sint64')],
    'FeedDelta': [
        Field(1, 'stances', 'FeedStanceRegister', 'repeated'),
        Field(2, 'items', 'FeedItemRegister', 'repeated'),
        Field(3, 'visibility', 'FeedVisibilityRegister', 'repeated'),
        Field(4, 'reactions', 'FeedReactionRegister', 'repeated'),
        Field(5, 'seen', 'FeedTime', 'repeated'),
        Field(6, 'receipts', 'FeedTime', 'repeated')],
    'FeedSocial': [Field(1, 'person', 'string'), Field(2, 'registers', 'FeedDelta')],
    'RelayRequest': [
        Field(1, 'submit', 'FeedDelta', 'oneof', 'request'),
        Field(2, 'changes_since', 'uint64', 'oneof', 'request'),
        Field(3, 'changes_page', 'RelayPage', 'oneof', 'request')],
    'RelayPage': [Field(1, 'since', 'uint64'), Field(2, 'after', 'uint64'), Field(3, 'until', 'uint64')],
    'RelayChanges': [
        Field(1, 'delta', 'FeedDelta'), Field(2, 'cursor', 'uint64'), Field(3, 'more', 'bool'),
        Field(4, 'next', 'RelayPage', 'optional')],
    'RelayError': [Field(1, 'code', 'string'), Field(2, 'message', 'string'), Field(3, 'rule', 'string')],
    'RelayResponse': [
        Field(1, 'submitted', 'uint64', 'oneof', 'response'),
        Field(2, 'changes', 'RelayChanges', 'oneof', 'response'),
        Field(3, 'error', 'RelayError', 'oneof', 'response')],
}
# FEED-28: the numbers of the enums are the positions in feed's tuples: stances none 0, want 1,
# block 2; kinds checkIn 0, milestone 1, goalStarted 2, goalCompleted 3; visibility private 0,
# friends 1, public 2; reactions heart 0, fire 1, clap 2.
ENUMS = {'stance': feed.STANCES, 'kind': feed.KINDS, 'visibility': feed.VISIBILITIES,
         'reaction': feed.REACTIONS}


# ---- Writing (FEED-28)

def encode_delta(replica):
    """FEED-28: the canonical bytes of a replica or a delta, as a `FeedDelta`."""
    return protowire.encode(SCHEMA, 'FeedDelta', delta_message(replica))


def delta_message(replica):
    """A replica as a `FeedDelta`: each kind of register sorted by its key's UTF-8 bytes."""
    def by(key):
        return lambda entry: feed.utf8(*key(entry))
    stances = sorted(replica.stance.items(), key=by(lambda e: e[0]))
    items = sorted(replica.items.items(), key=by(lambda e: (e[0],)))
    visibility = sorted(replica.visibility.items(), key=by(lambda e: e[0]))
    reactions = sorted(replica.reactions.items(), key=by(lambda e: e[0]))
    return {
        'stances': [stance_message(key, write, replica.last_no.get(key)) for key, write in stances],
        'items': [item_register(item_id, stamp, item) for item_id, (stamp, item) in items],
        'visibility': [{'owner': owner, 'goal': goal, 'visibility': feed.VISIBILITIES.index(value),
                        'stamp': stamp_message(stamp)} for (owner, goal), (stamp, value) in visibility],
        'reactions': [{'item': item_id, 'reactor': reactor, 'kind': feed.REACTIONS.index(kind), 'on': on,
                       'stamp': stamp_message(stamp)} for (item_id, reactor, kind), (stamp, on) in reactions],
        'seen': times(replica.seen),
        'receipts': times(replica.receipts),
    }


def stamp_message(stamp):
    wall, counter, device = stamp
    return {'wall': wall, 'counter': counter, 'device': device}


def stance_message(key, write, last_no):
    """A stance register with its last "no" when it has one."""
    (a, b), (stamp, stance) = key, write
    out = {'from': a, 'to': b, 'stance': feed.STANCES.index(stance), 'stamp': stamp_message(stamp)}
    if last_no is not None:
        out['last_no'] = stamp_message(last_no)
    return out


def item_register(item_id, stamp, item):
    """An item id's register: with its item, or without one when it is withdrawn."""
    out = {'id': item_id, 'stamp': stamp_message(stamp)}
    if item is not None:
        out['item'] = item_message(item)
    return out


def item_message(item):
    """FEED-28: an item, its Days as days since 1970-01-01, `day`, `streak`, `milestone` and
    `streak_start` written when it has them."""
    out = {'owner': item['owner'], 'kind': feed.KINDS.index(item['kind']), 'goal': item['goal'],
           'time': item['time'], 'title': item['title'], 'emoji': item['emoji'], 'goal_kind': item['goalKind']}
    for key, field in (('day', 'day'), ('streakStart', 'streak_start')):
        if key in item:
            out[field] = model.parse_day(item[key])
    for key in ('streak', 'milestone'):
        if key in item:
            out[key] = item[key]
    return out


def times(registers):
    """Seen markers or receipt times as `FeedTime`s, sorted by key."""
    return [{'key': key, 'time': registers[key]} for key in sorted(registers, key=lambda k: feed.utf8(k))]


# ---- Reading (FEED-28)

def refuse(why):
    return Failure('invalid_value', why, rule='FEED-28')


def decode_delta(data):
    """FEED-28: a replica read from any valid encoding of a `FeedDelta`, or the error."""
    return read_delta(protowire.decode(SCHEMA, 'FeedDelta', data))


def read_delta(message, locate=None):
    """FEED-28: the replica a decoded `FeedDelta` stands for: its registers written into an empty
    replica, so that registers given in any order or more than once merge as FEED-21 merges.

    `locate(member, index)`, for a reader that knows where the message's bytes lie (a bundle's
    social frame, BUNDLE-27), answers where the index-th register of a member begins: registers
    are then read in the order of their bytes, and a refusal is reported where its register begins."""
    replica = feed.Replica()
    registers = [(member, index, register) for member in READERS
                 for index, register in enumerate(message.get(member, []))]
    if locate is not None:
        registers.sort(key=lambda entry: locate(entry[0], entry[1]))
    for member, index, register in registers:
        try:
            READERS[member](replica, register)
        except Failure as failure:
            if locate is not None:
                failure.offset = locate(member, index)
            raise
    return replica


def key_text(message, name, what):
    """A text a register is keyed by (a person, an item id, a goal): never empty."""
    value = message.get(name, '')
    if not value:
        raise refuse(f'{what} without its {name}')
    return value


def enum_name(message, field, enum, what):
    """The name of an enum's number; a number this version does not name is refused."""
    number = message.get(field, 0)
    names = ENUMS[enum]
    if not 0 <= number < len(names):
        raise refuse(f'{number} is not a {what} this version names')
    return names[number]


def read_stamp(message):
    """FEED-1: a register's stamp; none, or one that breaks FEED-1, is refused."""
    if message is None:
        raise refuse('a register without a stamp')
    try:
        return feed.parse_stamp([message.get('wall', 0), message.get('counter', 0), message.get('device', '')])
    except Failure as failure:
        raise refuse(f'a stamp that breaks FEED-1: {failure}')


def read_stance(replica, register):
    """A stance register reads as writing `none` at its last "no" (when it has one) and then its
    stance at its stamp (FEED-3)."""
    a, b = key_text(register, 'from', 'a stance register'), key_text(register, 'to', 'a stance register')
    if a == b:
        raise refuse('a stance of a person toward themself')
    stance = enum_name(register, 'stance', 'stance', 'stance')
    stamp = read_stamp(register.get('stamp'))
    if 'last_no' in register:
        last_no = read_stamp(register['last_no'])
        if feed.stamp_key(last_no) > feed.stamp_key(stamp):
            raise refuse('a last "no" newer than the stance\'s stamp')
        replica.write_stance(a, b, 'none', last_no)
    replica.write_stance(a, b, stance, stamp)


def read_item_register(replica, register):
    """An item id's register: its item (which must have that id), or its withdrawal."""
    item_id = key_text(register, 'id', 'an item register')
    stamp = read_stamp(register.get('stamp'))
    item = None
    if 'item' in register:
        given_id, item = read_item(register['item'])
        if given_id != item_id:
            raise refuse(f'the item of register {item_id!r} has the id {given_id!r}')
    replica.write_item(item_id, item, stamp)


def read_item(message):
    """FEED-6, through the item's JSON form: (id, item), or refused."""
    value = {'owner': message.get('owner', ''), 'kind': enum_name(message, 'kind', 'kind', 'item kind'),
             'goal': message.get('goal', ''), 'time': message.get('time', 0), 'title': message.get('title', ''),
             'emoji': message.get('emoji', ''), 'goalKind': message.get('goal_kind', '')}
    for field, key in (('day', 'day'), ('streak_start', 'streakStart')):
        if field in message:
            value[key] = read_day(message[field])
    for key in ('streak', 'milestone'):
        if key in message:
            value[key] = message[key]
    try:
        return feed.parse_item(value)
    except Failure as failure:
        if failure.code == 'invalid_item':
            raise refuse(f'an item that breaks FEED-6: {failure}')
        raise


def read_visibility(replica, register):
    """A goal's visibility register, keyed by its owner and goal."""
    owner = key_text(register, 'owner', 'a visibility register')
    goal = key_text(register, 'goal', 'a visibility register')
    value = enum_name(register, 'visibility', 'visibility', 'visibility')
    replica.write_visibility(owner, goal, value, read_stamp(register.get('stamp')))


def read_reaction(replica, register):
    """A reaction register, keyed by its item, reactor and kind."""
    item_id = key_text(register, 'item', 'a reaction register')
    reactor = key_text(register, 'reactor', 'a reaction register')
    kind = enum_name(register, 'kind', 'reaction', 'reaction kind')
    replica.write_reaction(item_id, reactor, kind, register.get('on', False), read_stamp(register.get('stamp')))


def read_seen(replica, time):
    """A seen marker, keyed by its person."""
    replica.mark_seen(key_text(time, 'key', 'a seen marker'), time.get('time', 0))


def read_receipt(replica, time):
    """A receipt time, keyed by its item id."""
    replica.receive(key_text(time, 'key', 'a receipt time'), time.get('time', 0))


READERS = {'stances': read_stance, 'items': read_item_register, 'visibility': read_visibility,   # FeedDelta's members
           'reactions': read_reaction, 'seen': read_seen, 'receipts': read_receipt}


def read_day(number):
    """WIRE-17: a Day, days since 1970-01-01, within 0001-01-01 ... 9999-12-31."""
    if not model.MIN_DAY <= number <= model.MAX_DAY:
        raise refuse(f'Day {number} is outside the years 1 ... 9999')
    return model.day_text(number)


# ---- Social data (FEED-30)

def read_social(message, start=None, locate=None):
    """FEED-30: (person, replica) of a decoded `FeedSocial`: its registers read as FEED-28 reads a
    `FeedDelta` (`locate` as `read_delta` takes it), then held to what social data may hold, else
    `invalid_value` at `start`, where the message's fields begin."""
    replica = read_delta(message.get('registers', {}), locate)
    person = message.get('person', '')
    why = not_social(person, replica)
    if why is not None:
        raise Failure('invalid_value', f'social data {why}', offset=start, rule='FEED-30')
    return person, replica


def not_social(person, replica):
    """FEED-30: why registers are not `person`'s social data (every stance between them and
    anyone, the reactions they gave, their seen marker, nothing else), or None."""
    if not person:
        return 'without a person'
    if replica.items:
        return 'with an item register: items follow from the data set'
    if replica.visibility:
        return 'with a visibility register: visibility follows from the goals'
    if replica.receipts:
        return 'with a receipt time: those are the relay\'s'
    if any(person not in pair for pair in replica.stance):
        return 'with a stance between two other people'
    if any(reactor != person for _, reactor, _ in replica.reactions):
        return 'with a reaction someone else gave'
    if any(who != person for who in replica.seen):
        return 'with another person\'s seen marker'
    return None


# ---- The relay's messages (FEED-29)

def respond(relay, person, data, now):
    """FEED-29: the `RelayResponse` (as a message) to the bytes of a `RelayRequest` from `person`,
    whom the transport authenticated, at the relay's time `now`."""
    try:
        request = protowire.decode(SCHEMA, 'RelayRequest', data)
        if 'submit' in request:
            delta = read_delta(request['submit'])
        elif 'changes_since' not in request and 'changes_page' not in request:
            raise Failure('invalid_value', 'a request with no member', rule='FEED-29')
    except Failure as failure:                     # bytes that are not a request, or a bad delta
        return error_response(failure, failure.rule)
    if 'submit' in request:
        try:
            return {'submitted': relay.submit(person, delta, now)}
        except Failure as failure:                 # FEED-25's (and FEED-31's) refusals change nothing
            return error_response(failure, failure.rule or 'FEED-25')
    try:
        if 'changes_page' in request:
            page = request['changes_page']
            delta, cursor, following = relay.changes_page(
                person, page.get('since', 0), page.get('after', 0), page.get('until', 0))
        else:
            delta, cursor, following = relay.changes(person, request['changes_since'])
    except Failure as failure:                     # a closed person's request (FEED-31)
        return error_response(failure, failure.rule)
    return changes_response(delta, cursor, following)


def changes_response(delta, cursor, following):
    """FEED-29: the `RelayResponse` of FEED-27's answer (as a message): `changes` with its delta
    (always written), its cursor, and on a page with more after it `more` and `next`, the page to
    ask for, (since, after, until) as a `RelayPage` (canonical: `more` written only when true,
    proto3's default omitted, and `next` only on such a page)."""
    changes = {'delta': delta_message(delta), 'cursor': cursor, 'more': following is not None}
    if following is not None:
        changes['next'] = dict(zip(('since', 'after', 'until'), following))
    return {'changes': changes}


def page_length(delta_length, cursor, following):
    """FEED-27: the length of an answer's `RelayResponse` (this module's canonical encoding, which
    the relay holds to its bound) whose `FeedDelta` is `delta_length` bytes long: the answer with an
    empty delta, whose delta field is its tag and a length of 0, with that field grown to hold
    `delta_length` bytes (the tags of `changes` and `delta` are one byte each)."""
    empty = len(protowire.encode(SCHEMA, 'RelayChanges', changes_response(feed.Replica(), cursor, following)['changes']))
    body = empty - 2 + 1 + len(protowire.varint(delta_length)) + delta_length
    return 1 + len(protowire.varint(body)) + body


def register_lengths(replica):
    """FEED-25, FEED-27: the length of each register of a replica written alone as a `FeedDelta`
    (FEED-28), keyed by (table, key) as `feed.Relay` numbers them: a stance with its last "no", an
    item (its receipt time apart, as `('receipts', id)`), a visibility, a reaction, a seen marker
    (`('seen', person)`). A `FeedDelta` is its registers' fields one after another, so the length
    of a delta is the sum of its registers' lengths."""
    lengths = {}
    for table in ('stance', 'items', 'visibility', 'reactions', 'seen', 'receipts'):
        for key, value in getattr(replica, table).items():
            alone = feed.Replica()
            getattr(alone, table)[key] = value
            if table == 'stance' and key in replica.last_no:
                alone.last_no[key] = replica.last_no[key]
            lengths[(table, key)] = len(encode_delta(alone))
    return lengths


def error_response(failure, rule):
    return {'error': {'code': failure.code, 'message': str(failure), 'rule': rule}}


# ---- The operations

class WireScript(feed.Script):
    """feed.script with the steps of Spec/corpus/feed/wire.json: `encode` answers the canonical
    bytes of the step's replica as hex; `decode` reads hex into the replica `into` and answers ok,
    or the error, leaving `into` as it was."""

    def run(self, step):
        do = step.get('do')
        if do == 'encode':
            return {'hex': encode_delta(self.replica(step.get('replica', 'r'))).hex()}
        if do == 'decode':
            read = decode_delta(hex_bytes(step))
            self.replica(step.get('into')).merge(read)
            return {'ok': True}
        return super().run(step)


class WireRelayScript(feed.RelayScript):
    """feed.relay with the step of Spec/corpus/feed/wire_relay.json: `request` hands the relay the
    hex bytes of a RelayRequest from `person` at time `now` and answers the hex bytes of its
    RelayResponse, or, for an error response, its code and rule."""

    def run(self, step):
        if step.get('do') != 'request':
            return super().run(step)
        person, now = feed.text(step, 'person'), feed.relay_time(step)
        response = respond(self.relay, person, hex_bytes(step), now)
        if 'error' in response:
            return {'error': response['error']['code'], 'rule': response['error']['rule']}
        return {'hex': protowire.encode(SCHEMA, 'RelayResponse', response).hex()}


def hex_bytes(step):
    try:
        return bytes.fromhex(feed.text(step, 'hex'))
    except ValueError:
        raise feed.bad_input('hex is bytes in hexadecimal')


OPERATIONS = {                  # they extend feed's own operations of these names with the wire steps
    'feed.script': lambda input: feed.run_steps(WireScript(), input),
    'feed.relay': lambda input: feed.run_steps(
        WireRelayScript(feed.relay_limit(input), feed.relay_answer_bound(input)), input),
}
