"""Section 3 of the spec (Spec/wire.md): reading and writing the records of glow.proto.

Reading a record is three steps: `Scan` checks the bytes and notes where every field is (the
errors and offsets of 3.3), the stock runtime parses them (`ParseFromString`, which does the
liberal reading of 3.2), and `Reader` turns the message into its model value. Writing builds the
message with `Writer` and lets the runtime serialise it (`records.serialize`), which gives the
canonical form of 3.1.
"""
from collections import namedtuple

from google.protobuf.message import DecodeError

from . import checkins
from . import model as m
from .columns import block_json, read_block, write_block
from .errors import Failure
from .protos import message_class
from .records import Reader, Writer, serialize, strip
from .scan import DEFAULT_BLOCK, DEFAULT_DEPTH, DEFAULT_RAW_NODES, DEFAULT_SIZE, Scan, decode_raw

# A message with a model value: how to read it from a parsed message, how to write it into one,
# and how to read its JSON form (None: the corpus never gives it as JSON).
Record = namedtuple('Record', 'read write from_json')

RECORDS = {
    'Goal': Record(Reader.goal, Writer.goal, m.goal_json),
    'CheckIn': Record(Reader.checkin, Writer.checkin, checkins.checkin_json),
    'Profile': Record(Reader.profile, Writer.profile, m.profile_json),
    'DayBoundary': Record(Reader.boundary, Writer.boundary, lambda v: m.boundary_json(v, '$')),
    'GoalDraft': Record(Reader.draft, Writer.draft, m.canonical_draft),
    'GoalTemplate': Record(Reader.template, Writer.template, m.template_json),
    'Interest': Record(Reader.interest, Writer.interest, m.interest_json),
    'CheckInBlock': Record(read_block, write_block, block_json),
    'RecordCounts': Record(Reader.counts, Writer.counts, None),
    'BundleManifest': Record(Reader.manifest, Writer.manifest, None),
    'BundleEnd': Record(Reader.end, Writer.end, None),
}


class Limits:
    """WIRE-13, WIRE-14, WIRE-25, WIRE-26: the limits a reader enforces, with their defaults."""

    def __init__(self, given=None):
        given = given or {}
        self.size = given.get('maxMessageSize', DEFAULT_SIZE)
        self.depth = given.get('maxDepth', DEFAULT_DEPTH)
        self.block = given.get('maxCheckInsPerBlock', DEFAULT_BLOCK)
        self.raw_nodes = given.get('maxRawNodes', DEFAULT_RAW_NODES)


def parse(name, data, limits=None, base=0):
    """Checks and parses one message: (the runtime's message, the scan of its bytes)."""
    limits = limits or Limits()
    if len(data) > limits.size:                              # WIRE-14
        raise Failure('limit_exceeded', f'{len(data)} bytes is above the limit of {limits.size}', offset=base)
    cls = message_class(name)
    scan = Scan(data, cls.DESCRIPTOR, limits.depth, base, limits.block)
    message = cls()
    try:
        message.ParseFromString(data)
    except DecodeError as error:                             # the scan should have caught it first
        raise Failure('invalid_value', f'the protobuf runtime refused the bytes: {error}', offset=base)
    return message, scan


def read(name, message, scan, path=()):
    """The model value of a parsed message (with its unknown fields as `_unknown` members)."""
    return RECORDS[name].read(Reader(scan), message, path)


def write(name, value, message=None, path=(), writer=None):
    """Fills a message from a model value; returns (message, writer holding its unknown-field tails)."""
    writer = writer or Writer()
    message = message if message is not None else message_class(name)()
    RECORDS[name].write(writer, value, message, path)
    return message, writer


def encode(name, value):
    """WIRE-1: the canonical bytes of a model value."""
    message, writer = write(name, value)
    return serialize(message, writer.tails)


def record_name(name):
    if name not in RECORDS:
        raise NotImplementedError(f'the message {name} has no model value in the corpus')
    return name


# ---- The operations (wire.md 3.6)

def decode(inp):
    """3.6: check and read a record, then write it again in the canonical form."""
    name = record_name(inp['message'])
    message, scan = parse(name, bytes.fromhex(inp['hex']), Limits(inp.get('limits')))
    value = read(name, message, scan)
    return {'canonicalHex': encode(name, value).hex(), 'json': strip(value)}


def encode_op(inp):
    """3.6: the canonical bytes of a value given in its model JSON."""
    name = record_name(inp['message'])
    if RECORDS[name].from_json is None:
        raise NotImplementedError(f'wire.encode of {name} from JSON')
    return {'hex': encode(name, RECORDS[name].from_json(inp['json'])).hex()}


def decode_raw_op(inp):
    """3.6 / WIRE-8: the schema-less text of `protoc --decode_raw`."""
    data = bytes.fromhex(inp['hex'])
    limits = Limits(inp.get('limits'))
    if len(data) > limits.size:
        raise Failure('limit_exceeded', f'{len(data)} bytes is above the limit of {limits.size}', offset=0)
    return {'text': decode_raw(data, limits.depth, limits.raw_nodes)}


OPERATIONS = {
    'wire.decode': decode,
    'wire.encode': encode_op,
    'wire.decodeRaw': decode_raw_op,
}
