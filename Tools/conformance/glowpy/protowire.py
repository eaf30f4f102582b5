"""The Protocol Buffers wire format written by hand (Spec/wire.md), with the standard library only.

Two layers:

- the primitives every reader of this testee shares: varints (WIRE-3, WIRE-10), tags and the
  bounds of one field's payload (WIRE-9 ... WIRE-12). `scan.py` builds its checks of the records
  on them, beside the stock runtime;
- a small schema-driven codec for messages that this testee reads and writes itself, without the
  stock runtime: the feed's messages (feed.md 8.12, `feedwire.py`). A schema maps a message's name
  to its `Field`s; a message is a dict from field names to values (a nested message is a dict, a
  repeated field a list), in which a field that is not set has no key. `decode` accepts any valid
  encoding (WIRE-5, WIRE-6) and skips the fields it does not know; `encode` writes the canonical
  form (WIRE-1 ... WIRE-4, WIRE-19).

The codec covers what the feed's messages use: scalars, strings, open enums, singular, `optional`,
`oneof` and repeated message fields. They have no repeated scalars, so packed columns (WIRE-4) and
the block limits are `scan.py`'s alone, and they nest at most five deep with unknown fields
skipped, never parsed, so the depth limit of WIRE-13 cannot be reached here.

Every error is an `errors.Failure` with its wire code, its byte offset and the rule that names it.
"""
from collections import namedtuple

from .errors import Failure

MAX_FIELD = (1 << 29) - 1                   # WIRE-11
MAX_MESSAGE = 64 << 20                      # WIRE-14: the default message-size limit
RULES = {                                   # 3.3: the rule of each wire error's code
    'truncated': 'WIRE-9',
    'malformed_varint': 'WIRE-10',
    'invalid_field_number': 'WIRE-11',
    'invalid_wire_type': 'WIRE-12',
    'depth_limit': 'WIRE-13',
    'limit_exceeded': 'WIRE-14',
    'invalid_utf8': 'WIRE-15',
    'invalid_value': 'WIRE-16',
}
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


def wire_error(code, message, offset):
    return Failure(code, message, offset=offset, rule=RULES[code])


# ---- Primitives (WIRE-3, WIRE-9 ... WIRE-12)

class Truncated(Exception):
    pass


class Malformed(Exception):
    pass


def read_varint(buf, pos, end):
    """A varint at pos: (value, next position). WIRE-10: at most 10 bytes, the 10th at most 1.

    Raises Truncated when the bytes end inside it and Malformed when it is too long."""
    value = shift = 0
    for i in range(10):
        if pos + i >= end:
            raise Truncated()
        byte = buf[pos + i]
        if i == 9 and byte > 1:
            raise Malformed()
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos + i + 1
    raise Malformed()


def varint(value):
    """The minimal varint of a non-negative value (WIRE-3)."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag_decode(v):
    return (v >> 1) ^ -(v & 1)


def zigzag_encode(n):
    """WIRE-3: `(n << 1) ^ (n >> 63)`, so −1 is 1 and 1 is 2."""
    return n << 1 if n >= 0 else (-n << 1) - 1


def read_field(buf, pos, end):
    """One field's tag and payload bounds, checking WIRE-9 ... WIRE-12 (without the schema).

    Returns (number, wire type, payload start, payload end, next position, offset of the length)."""
    tag_at = pos
    try:
        tag, pos = read_varint(buf, pos, end)
    except Truncated:
        raise wire_error('truncated', 'the input ends inside a tag', tag_at)
    except Malformed:
        raise wire_error('malformed_varint', 'a tag longer than 10 bytes', tag_at)
    number, wire_type = tag >> 3, tag & 7
    if number == 0 or number > MAX_FIELD:
        raise wire_error('invalid_field_number', f'field number {number}', tag_at)
    if wire_type in (3, 4, 6, 7):
        raise wire_error('invalid_wire_type', f'wire type {wire_type}', tag_at)
    length_at = None
    if wire_type == VARINT:
        try:
            _, after = read_varint(buf, pos, end)
        except Truncated:                        # WIRE-9 / WIRE-10: the offset of the value
            raise wire_error('truncated', 'the input ends inside a varint', pos)
        except Malformed:
            raise wire_error('malformed_varint', 'a varint longer than 10 bytes or above 64 bits', pos)
        return number, wire_type, pos, after, after, length_at
    if wire_type in (FIXED64, FIXED32):
        size = 8 if wire_type == FIXED64 else 4
        if end - pos < size:
            raise wire_error('truncated', f'a fixed {size * 8}-bit value is cut short', pos)
        return number, wire_type, pos, pos + size, pos + size, length_at
    length_at = pos
    try:
        length, pos = read_varint(buf, pos, end)
    except Truncated:
        raise wire_error('truncated', 'the input ends inside a length', length_at)
    except Malformed:
        raise wire_error('malformed_varint', 'a length longer than 10 bytes', length_at)
    if length > end - pos:                       # WIRE-18: checked before anything is allocated
        raise wire_error('truncated', 'a length points past the end of its message', length_at)
    return number, wire_type, pos, pos + length, pos + length, length_at


# ---- Messages by schema

class Field(namedtuple('Field', 'number name type label oneof')):
    """One field of a message. `type` is a scalar type (`string`, `bool`, `uint32`, `uint64`,
    `sint32`, `sint64`, `enum`) or the name of a message of the schema; `label` is `singular`
    (proto3's implicit presence: written unless it holds its default), `optional`, `oneof` (then
    `oneof` names its group) or `repeated`."""

    def __new__(cls, number, name, type, label='singular', oneof=None):
        return super().__new__(cls, number, name, type, label, oneof)

    @property
    def has_presence(self):
        """WIRE-19: `optional` fields and `oneof` members are written whenever they are set."""
        return self.label in ('optional', 'oneof')


SCALARS = {'string', 'bool', 'uint32', 'uint64', 'sint32', 'sint64', 'enum'}
DEFAULTS = {'string': '', 'bool': False, 'uint32': 0, 'uint64': 0, 'sint32': 0, 'sint64': 0, 'enum': 0}


def wire_type_of(field):
    """The wire type a field is written with (WIRE-12: the only one this codec's fields allow)."""
    return LENGTH if field.type == 'string' or field.type not in SCALARS else VARINT


def decode(schema, name, data, max_size=MAX_MESSAGE):
    """WIRE-5, WIRE-6: a message of `schema` read from any valid encoding, as a dict; fields it does
    not know are skipped. Errors as WIRE-9 ... WIRE-16, at their byte offsets."""
    if len(data) > max_size:
        raise wire_error('limit_exceeded', f'{len(data)} bytes is above the limit of {max_size}', 0)
    return Decoder(schema, bytes(data)).message(name, 0, len(data))


class Decoder:
    def __init__(self, schema, data):
        self.schema, self.data = schema, data

    def message(self, name, pos, end):
        fields = {field.number: field for field in self.schema[name]}
        out = {}
        while pos < end:
            tag_at = pos
            number, wire_type, start, stop, pos, _ = read_field(self.data, pos, end)
            field = fields.get(number)
            if field is None:
                continue                                   # 8.12: skipped, not kept
            if wire_type != wire_type_of(field):
                raise wire_error('invalid_wire_type', f'wire type {wire_type} for {name}.{field.name}', tag_at)
            value = self.value(field, start, stop, tag_at, f'{name}.{field.name}')
            self.set(out, field, value, fields.values())
        return out

    def value(self, field, start, stop, tag_at, what):
        if field.type not in SCALARS:
            return self.message(field.type, start, stop)
        if field.type == 'string':
            try:
                return self.data[start:stop].decode('utf-8')      # refuses overlong forms and surrogates
            except UnicodeDecodeError:
                raise wire_error('invalid_utf8', f'{what} is not UTF-8', start)
        raw = read_varint(self.data, start, stop)[0]
        return scalar(field.type, raw, tag_at, what)

    @staticmethod
    def set(out, field, value, siblings):
        """WIRE-6: a repeated field appends; a singular scalar given twice keeps the last value; a
        message given twice merges; a `oneof` member given after another member replaces it."""
        if field.label == 'repeated':
            out.setdefault(field.name, []).append(value)
            return
        if field.label == 'oneof':
            for other in siblings:
                if other.oneof == field.oneof and other.name != field.name:
                    out.pop(other.name, None)
        if field.type not in SCALARS and field.name in out:
            value = merged(out[field.name], value)
        out[field.name] = value


def scalar(type, raw, tag_at, what):
    """A varint's value for its field's type. WIRE-16: a `uint32` above 2^32 − 1 or a `sint32`
    outside 32 bits is refused, not truncated; WIRE-7: so is an enum value that is not an int32."""
    if type == 'bool':
        return raw != 0                                        # WIRE-5: any non-zero varint
    if type in ('sint32', 'sint64'):
        value = zigzag_decode(raw)
        if type == 'sint32' and not -(1 << 31) <= value < (1 << 31):
            raise wire_error('invalid_value', f'{what} is beyond 32 bits', tag_at)
        return value
    if type == 'uint32' and raw > 0xFFFFFFFF:
        raise wire_error('invalid_value', f'{what} is above 2^32 - 1', tag_at)
    if type == 'enum':
        value = raw - (1 << 64) if raw >> 63 else raw
        if not -(1 << 31) <= value < (1 << 31):
            raise Failure('invalid_value', f'{what} is not an int32', offset=tag_at, rule='WIRE-7')
        return value
    return raw


def merged(first, second):
    """WIRE-6: the second message's fields applied onto the first (repeated fields concatenate,
    nested messages merge)."""
    out = dict(first)
    for key, value in second.items():
        if isinstance(value, list):
            out[key] = out.get(key, []) + value
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def encode(schema, name, message):
    """WIRE-1 ... WIRE-4, WIRE-19: the canonical bytes of a message given as a dict."""
    out = bytearray()
    for field in sorted(schema[name], key=lambda f: f.number):
        if field.name not in message:
            continue
        values = message[field.name] if field.label == 'repeated' else [message[field.name]]
        for value in values:
            if field.label == 'singular' and field.type in SCALARS and value == DEFAULTS[field.type]:
                continue                                       # WIRE-2: defaults are omitted
            out += varint(field.number << 3 | wire_type_of(field))
            out += payload(schema, field, value)
    return bytes(out)


def payload(schema, field, value):
    if field.type not in SCALARS:
        body = encode(schema, field.type, value)
        return varint(len(body)) + body                        # WIRE-1: a minimal length
    if field.type == 'string':
        body = value.encode('utf-8')
        return varint(len(body)) + body
    if field.type == 'bool':
        return varint(1 if value else 0)
    if field.type in ('sint32', 'sint64'):
        return varint(zigzag_encode(value))
    return varint(value & 0xFFFFFFFFFFFFFFFF)                 # a negative enum: sign-extended to 64 bits
