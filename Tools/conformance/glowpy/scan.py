"""Hand-written wire reading, only where the spec asks for what a stock protobuf runtime cannot do.

A stock runtime (`ParseFromString`) reads the records; this module walks the same bytes first to
give what it cannot: the stable error codes and byte offsets of WIRE-9 ... WIRE-16, the depth and
size limits (WIRE-13, WIRE-14), refusing a `uint32`, `sint32` or enum value beyond its width where a
runtime silently truncates (WIRE-7, WIRE-16), the per-block limits (WIRE-25), where every field and
nested message is (for the offsets of `invalid_value`), the unknown fields of every message (WIRE-7),
and the schema-less text of `protoc --decode_raw` (WIRE-8).

The wire's primitives (varints, tags, the bounds of a field's payload) are `protowire`'s, which the
feed's messages share.

Enum values this version does not name are none of its business: proto3 enums are open (WIRE-7),
so the runtime keeps such a value in its field, exactly as the format asks.
"""
from collections import defaultdict

from google.protobuf.descriptor import FieldDescriptor as FD

from .errors import Failure
from .protowire import MAX_MESSAGE, Malformed, Truncated, read_field, read_varint, zigzag_decode

DEFAULT_DEPTH = 64                          # WIRE-13
DEFAULT_SIZE = MAX_MESSAGE                  # WIRE-14
DEFAULT_BLOCK = 100_000                     # WIRE-25: check-ins per block
DEFAULT_RAW_NODES = 1_000_000               # WIRE-26: fields of a schema-less tree
TAPS_PER_CHECK_IN = 10                      # WIRE-28: a block's taps, per check-in it may hold
PER_TAP = ('tap_device_refs', 'tap_sequences', 'tap_seconds', 'tap_millis', 'tap_spans', 'tap_zone_refs',
           'tap_types', 'tap_numbers', 'tap_item_refs')
BLOCK = 'glow.v1.CheckInBlock'
VARINT_TYPES = {FD.TYPE_BOOL, FD.TYPE_INT32, FD.TYPE_INT64, FD.TYPE_UINT32, FD.TYPE_UINT64,
                FD.TYPE_SINT32, FD.TYPE_SINT64, FD.TYPE_ENUM}
FIXED64_TYPES = {FD.TYPE_FIXED64, FD.TYPE_SFIXED64, FD.TYPE_DOUBLE}
FIXED32_TYPES = {FD.TYPE_FIXED32, FD.TYPE_SFIXED32, FD.TYPE_FLOAT}


def column_cap(name, limit):
    """WIRE-25 / WIRE-28: how many values a block's repeated field may hold, for a block of at most
    `limit` check-ins: `item_refs` 51 per check-in (a count and at most 50 items); the tap columns
    ten per check-in (WIRE-28 says "its tap columns at most that many values", which this reads
    literally, `tap_item_refs` included); every other column, sparse column and table `limit`."""
    if name == 'item_refs':
        return 51 * limit
    if name in PER_TAP:
        return TAPS_PER_CHECK_IN * limit
    return limit


def allowed_wire_types(field):
    """WIRE-12: the wire types a declaration allows (repeated scalars: also length-delimited)."""
    if field.type in (FD.TYPE_STRING, FD.TYPE_BYTES, FD.TYPE_MESSAGE):
        return {2}
    scalar = 0 if field.type in VARINT_TYPES else 1 if field.type in FIXED64_TYPES else 5
    return {scalar, 2} if field.label == FD.LABEL_REPEATED else {scalar}


class Scan:
    """Checks a message's bytes against its descriptor and records what the reader needs later.

    A path is a tuple of (field number, element index or None) from the top message.
    `offsets[path]` is the offset of the tag of the last occurrence of a field and `bodies[path]`,
    for a message field, the offset of its body (the byte after its length); `unknown[path]` holds
    the message's unknown fields, byte for byte and in the order read (WIRE-7). Offsets count from
    `base`, the position of the message in a larger stream."""

    def __init__(self, data, descriptor, max_depth=DEFAULT_DEPTH, base=0, block_limit=DEFAULT_BLOCK):
        self.data, self.base, self.max_depth, self.block_limit = data, base, max_depth, block_limit
        self.offsets, self.bodies, self.unknown = {}, {}, defaultdict(bytearray)
        self.counts = defaultdict(int)
        self.walk(0, len(data), descriptor, 0, ())

    def fail(self, code, message, offset):
        return Failure(code, message, offset=offset + self.base)

    def walk(self, pos, end, descriptor, depth, path):
        buf = self.data
        while pos < end:
            tag_at = pos
            try:
                number, wire_type, start, stop, pos, length_at = read_field(buf, pos, end)
            except Failure as f:
                raise f.shifted(self.base)
            field = descriptor.fields_by_number.get(number)
            if field is None:
                self.unknown[path] += buf[tag_at:pos]
                continue
            if wire_type not in allowed_wire_types(field):
                raise self.fail('invalid_wire_type', f'wire type {wire_type} for {field.full_name}', tag_at)
            index = None
            if field.type == FD.TYPE_MESSAGE and field.label == FD.LABEL_REPEATED:
                index = self.counts[path, number]
                self.counts[path, number] += 1
            here = path + ((number, index),)
            self.offsets[here] = tag_at
            if descriptor.full_name == BLOCK:
                self.block_field(field, wire_type, start, stop, path, tag_at)
            if field.type == FD.TYPE_MESSAGE:
                if depth + 1 > self.max_depth:
                    raise self.fail('depth_limit', 'messages nested deeper than the limit', length_at)
                self.bodies[here] = start
                self.walk(start, stop, field.message_type, depth + 1, here)
            elif field.type == FD.TYPE_STRING:
                try:
                    bytes(buf[start:stop]).decode('utf-8')     # refuses overlong forms and surrogates
                except UnicodeDecodeError:
                    raise self.fail('invalid_utf8', f'{field.full_name} is not UTF-8', start)
            elif wire_type == 2 and field.type != FD.TYPE_BYTES:
                self.packed(start, stop, field, tag_at)
            elif wire_type == 0:
                self.check_width(field, read_varint(buf, start, stop)[0], tag_at)

    def block_field(self, field, wire_type, start, stop, path, tag_at):
        """WIRE-25 / WIRE-28: a block's count, columns and tables, and its number of taps, are held to
        the per-block limits as they are read, before anything is built for the entries."""
        limit = self.block_limit
        if field.name == 'count':
            if read_varint(self.data, start, stop)[0] > limit:
                raise self.fail('limit_exceeded', f'a block of more than {limit} check-ins', tag_at)
            return
        if field.label != FD.LABEL_REPEATED:
            return
        if wire_type == 2 and field.type not in (FD.TYPE_STRING, FD.TYPE_BYTES):
            values = self.varints(start, stop)          # a packed chunk
        elif wire_type == 0:
            values = iter([read_varint(self.data, start, stop)[0]])
        else:
            values = iter([0])                          # one table entry
        count = total = 0
        for value in values:
            count, total = count + 1, total + value
        key = (path, field.number, 'values')
        self.counts[key] += count
        cap = column_cap(field.name, limit)
        if self.counts[key] > cap:
            raise self.fail('limit_exceeded', f'{field.name} has more than {cap} values', tag_at)
        if field.name == 'tap_counts':                  # WIRE-28: ten taps per check-in the block may hold
            taps = (path, 'taps')
            self.counts[taps] += total
            if self.counts[taps] > TAPS_PER_CHECK_IN * limit:
                raise self.fail('limit_exceeded', f'more than {TAPS_PER_CHECK_IN * limit} taps in a block', tag_at)

    def varints(self, pos, stop):
        """The values of a packed varint chunk, one at a time, as far as they are well formed
        (`packed` reports the rest)."""
        while pos < stop:
            try:
                value, pos = read_varint(self.data, pos, stop)
            except (Truncated, Malformed):
                return
            yield value

    def packed(self, pos, end, field, tag_at):
        """WIRE-4 / WIRE-6: the elements of a packed column, each checked like a single value."""
        size = 8 if field.type in FIXED64_TYPES else 4 if field.type in FIXED32_TYPES else 0
        while pos < end:
            if size:
                if end - pos < size:
                    raise self.fail('truncated', 'a packed fixed-size value is cut short', pos)
                pos += size
                continue
            try:
                value, pos = read_varint(self.data, pos, end)
            except Truncated:
                raise self.fail('truncated', 'a packed varint is cut short', pos)
            except Malformed:
                raise self.fail('malformed_varint', 'a packed varint longer than 10 bytes', pos)
            self.check_width(field, value, tag_at)

    def check_width(self, field, value, tag_at):
        """WIRE-16: refuse, not truncate, a value beyond its field's width, at the field's tag.

        An enum value must be an int32 (WIRE-7): at most 2^31 − 1, or a negative number
        sign-extended to 64 bits. Whether this version names it is the reader's question."""
        if field.type == FD.TYPE_UINT32 and value > 0xFFFFFFFF:
            raise self.fail('invalid_value', f'{field.full_name} is above 2^32 - 1', tag_at)
        if field.type == FD.TYPE_SINT32 and not -(1 << 31) <= zigzag_decode(value) < (1 << 31):
            raise self.fail('invalid_value', f'{field.full_name} is beyond 32 bits', tag_at)
        if field.type in (FD.TYPE_INT32, FD.TYPE_ENUM):
            signed = value - (1 << 64) if value >> 63 else value
            if not -(1 << 31) <= signed < (1 << 31):
                raise self.fail('invalid_value', f'{field.full_name} is not an int32', tag_at)

    def field_offset(self, path):
        """WIRE-16: where a value that breaks a convention or a width is refused: its field's tag.
        A field that is absent is a required member missing, refused at its message's body."""
        if path in self.offsets:
            return self.offsets[path] + self.base
        return self.body_offset(path[:-1])

    def body_offset(self, path):
        """WIRE-16: where a record that breaks a model rule is refused: the first byte of its body
        (0 for the message decoded, the byte after its length for a nested one). A message that is
        absent altogether (read as its defaults) is refused where its parent's body starts."""
        while path and path not in self.bodies:
            path = path[:-1]
        return (self.bodies[path] if path else 0) + self.base

    def unknown_fields(self, path):
        return bytes(self.unknown.get(path, b''))


def check_flat(buf):
    """Whether bytes are a well-formed sequence of fields at one level (no schema, no nesting)."""
    pos = 0
    try:
        while pos < len(buf):
            pos = read_field(buf, pos, len(buf))[4]
    except Failure:
        return False
    return True


# ---- WIRE-8: schema-less reading, laid out as `protoc --decode_raw` prints it

def escape(raw):
    """protoc's C escaping of a string: \\n \\r \\t \\" \\' \\\\ and other non-printables in octal."""
    named = {0x0A: '\\n', 0x0D: '\\r', 0x09: '\\t', 0x22: '\\"', 0x27: "\\'", 0x5C: '\\\\'}
    return ''.join(named.get(b) or (chr(b) if 0x20 <= b < 0x7F else '\\%03o' % b) for b in raw)


def decode_raw(data, max_depth=DEFAULT_DEPTH, max_nodes=DEFAULT_RAW_NODES):
    """The text of `protoc --decode_raw` for a top-level message; errors as WIRE-9 ... WIRE-13, WIRE-26."""
    return ''.join(RawTree(data, max_depth, max_nodes).lines(0, len(data), 0, ''))


class RawTree:
    """A schema-less field tree. WIRE-26: it holds at most `max_nodes` fields; the fields of a payload
    tried as a message and then shown as bytes do not count."""

    def __init__(self, data, max_depth, max_nodes):
        self.data, self.max_depth, self.max_nodes, self.nodes = data, max_depth, max_nodes, 0

    def lines(self, pos, end, depth, indent):
        buf, lines = self.data, []
        while pos < end:
            tag_at = pos
            number, wire_type, start, stop, pos, length_at = read_field(buf, pos, end)
            self.nodes += 1
            if self.nodes > self.max_nodes:
                raise Failure('limit_exceeded', f'more than {self.max_nodes} fields', offset=tag_at)
            if wire_type == 0:
                lines.append(f'{indent}{number}: {read_varint(buf, start, stop)[0]}\n')
            elif wire_type == 1:
                lines.append(f'{indent}{number}: 0x{int.from_bytes(buf[start:stop], "little"):016x}\n')
            elif wire_type == 5:
                lines.append(f'{indent}{number}: 0x{int.from_bytes(buf[start:stop], "little"):08x}\n')
            else:
                nested = self.nested(start, stop, depth + 1, indent + '  ', length_at)
                if nested is None:
                    lines.append(f'{indent}{number}: "{escape(buf[start:stop])}"\n')
                else:
                    lines.append(f'{indent}{number} {{\n' + ''.join(nested) + f'{indent}}}\n')
        return lines

    def nested(self, start, stop, depth, indent, length_at):
        """A payload's lines when it parses completely as a message, else None (shown as a string).

        A payload that would be a message nested deeper than the limit is refused (WIRE-13); whether
        it would be one is decided at that level alone, so no input is walked deeper than the limit."""
        if start == stop:
            return None
        if depth > self.max_depth:
            if check_flat(bytes(self.data[start:stop])):
                raise Failure('depth_limit', 'messages nested deeper than the limit', offset=length_at)
            return None
        counted = self.nodes
        try:
            return self.lines(start, stop, depth, indent)
        except Failure as failure:
            if failure.code in ('depth_limit', 'limit_exceeded'):
                raise
            self.nodes = counted                        # shown as bytes: its fields do not count
            return None
