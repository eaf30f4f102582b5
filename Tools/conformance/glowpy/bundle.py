"""Section 4 of the spec (Spec/bundle.md): export bundles, their verification, import and merge.

A bundle is a 24-byte header, one zlib stream of length-delimited BundleFrame messages, and a
24-byte trailer. Reading inflates the stream piece by piece with the standard library's zlib and
checks each frame as it completes (BUNDLE-13), so the first problem in stream order is reported;
the records inside the frames are read like any wire record (`wire.py`), at their uncompressed
offsets (BUNDLE-18). A person's social data (BUNDLE-27) is read as the feed reads it (`feedwire`:
FEED-28, FEED-30), from the message the stock runtime parsed, and counted among `other` records.
"""
import base64
import struct
import zlib

from . import envelope
from . import feedwire
from . import model as m
from . import wire
from .dataset import DataSet, read_data
from .errors import Failure
from .protos import pb
from .protowire import Malformed, Truncated, read_varint, varint
from .records import Writer, number, serialize, strip

MAGIC = b'\x89GLW\r\n\x1a\n'                                 # BUNDLE-1
TRAILER_SIGNATURE = b'GLWE'                                    # BUNDLE-8
HEADER_SIZE = TRAILER_SIZE = 24
LIMITS = {'maxBundleSize': 1 << 30, 'maxUncompressedSize': 4 << 30, 'maxFrameSize': 64 << 20,   # BUNDLE-10
          'maxFrames': 1_000_000, 'maxCheckIns': 4_000_000, 'maxCheckInsPerBlock': 100_000,       # BUNDLE-25
          'maxUnknownRecords': 500_000, 'maxUnknownBytes': 16 << 20}                              # BUNDLE-28
PIECE = 64 << 10                   # BUNDLE-10: the uncompressed size is checked after every piece
STEP = 16                          # compressed bytes fed at a time, so frames are checked as they complete
RECORDS = {'manifest': 'BundleManifest', 'profile': 'Profile', 'goal': 'Goal', 'check_ins': 'CheckInBlock', 'end': 'BundleEnd'}


def fail(code, section, offset, message):
    return Failure(code, message, section=section, offset=offset)


# ---- 4.1 The header

def read_header(data):
    """BUNDLE-1 ... BUNDLE-4: the signature, the header's CRC, the version and the feature flags."""
    if not data or data[:len(MAGIC)] != MAGIC[:len(data)]:
        raise fail('bad_magic', 'header', 0, 'not a Glow bundle: ' + magic_hint(data))
    if len(data) < HEADER_SIZE:
        raise fail('truncated', 'header', len(data), 'the file ends inside the header')
    major, minor, required, optional, crc = struct.unpack('<HHIII', data[8:HEADER_SIZE])
    if zlib.crc32(data[:20]) != crc:
        raise fail('checksum_mismatch', 'header', 20, 'the header\'s CRC-32 does not match')
    if major != 1:
        raise fail('unsupported_version', 'header', 8, f'format {major}.{minor}; this reader reads 1.x')
    if required:
        raise fail('unsupported_feature', 'header', 12, f'required feature flags {required:#x} this reader does not know')
    return {'major': major, 'minor': minor, 'requiredFlags': required, 'optionalFlags': optional}


def magic_hint(data):
    """BUNDLE-1: what the bytes look like instead, where that is recognisable."""
    if not data:
        return 'the file is empty'
    if envelope.MAGIC.startswith(data[:len(envelope.MAGIC)]):
        return 'it is an encrypted bundle (BUNDLE-29); open it with its passphrase or recovery key'
    if data.startswith(b'PK\x03\x04'):
        return 'it is a zip archive; unpack it first'
    if data.startswith(b'\x1f\x8b'):
        return 'it is gzip-compressed; decompress it first'
    if data.lstrip(b' \t\r\n')[:1] in (b'{', b'['):
        return 'it is JSON: a data set to convert, not a bundle'
    if data.startswith(b'\x89GLW\n') or data.startswith(b'\x89GLW\r\r\n'):
        return 'its signature was damaged by newline translation (transfer it in binary mode)'
    if data.startswith(bytes([MAGIC[0] & 0x7F]) + MAGIC[1:4]):
        return 'a 7-bit channel stripped the high bit of its first byte'
    if all(32 <= b < 127 or b in b'\t\r\n' for b in data[:64]):
        return 'it is plain text'
    return 'unrecognised signature'


# ---- 4.2 The frames

class Frames:
    """The frames of the uncompressed stream, checked as each completes (BUNDLE-5, -6, -9, -14)."""

    def __init__(self, limits):
        self.limits = limits
        self.max_frame = limits['maxFrameSize']
        self.record_limits = wire.Limits({'maxMessageSize': self.max_frame, 'maxCheckInsPerBlock': limits['maxCheckInsPerBlock']})
        self.buffer, self.offset = bytearray(), 0           # offset: of buffer[0], from the first frame
        self.manifest = self.profile = self.social = None
        self.goals, self.blocks, self.others = {}, {}, []
        self.unknown_bytes = 0                                 # BUNDLE-28: the lengths of the unknown records' frames
        self.frames, self.ended = 0, False

    def feed(self, chunk):
        self.buffer += chunk
        while self.buffer:
            try:
                length, start = read_varint(self.buffer, 0, len(self.buffer))
            except Truncated:
                return                                         # the length is not all here yet
            except Malformed:
                raise fail('malformed_frame', 'frames', self.offset, 'a frame length that is not a varint')
            if length > self.max_frame:                        # checked before the frame is buffered
                raise fail('limit_exceeded', 'frames', self.offset, f'a frame of {length} bytes is above the limit')
            if len(self.buffer) - start < length:
                return
            body = bytes(self.buffer[start:start + length])
            self.frame(body, self.offset, self.offset + start)
            del self.buffer[:start + length]
            self.offset += start + length

    def frame(self, body, at, body_at):
        """One complete frame, checked in BUNDLE-14's order; the record goes to its `add_` method."""
        if self.ended:
            raise fail('malformed_frame', 'frames', at, 'a frame after the end frame')
        if not body:                                           # BUNDLE-5: an empty frame holds no record
            raise fail('malformed_frame', 'frames', at, 'an empty frame')
        self.frames += 1
        if self.frames > self.limits['maxFrames']:             # BUNDLE-25
            raise fail('limit_exceeded', 'frames', at, f'more than {self.limits["maxFrames"]} frames')
        try:
            message, scan = wire.parse('BundleFrame', body, self.record_limits, base=body_at)
        except Failure as failure:
            raise failure.shifted(0, 'frames')
        which = message.WhichOneof('record')
        if self.manifest is None and which != 'manifest':
            raise fail('malformed_frame', 'frames', at, 'the first frame is not the manifest')
        if which is None:                                      # BUNDLE-24: a record type this reader does not know
            self.add_other(body, at)
            return
        path = ((number(message, which), None),)
        try:
            value = read_record(which, getattr(message, which), scan, path)
        except Failure as failure:                             # BUNDLE-18: the wire code, at its offset
            raise failure.shifted(0, 'frames')
        getattr(self, 'add_' + which)(value, at)

    def declared(self, name, count, at):
        """BUNDLE-9: a record beyond the manifest's count for its type is refused at its frame."""
        if count > self.manifest['counts'][name]:
            raise fail('malformed_frame', 'frames', at, f'more {name} than the manifest declares')

    def add_manifest(self, value, at):
        """BUNDLE-6; BUNDLE-25: the declared counts are held to the limits before any record is read."""
        if self.manifest is not None:
            raise fail('malformed_frame', 'frames', at, 'a second manifest')
        if value['minReaderVersion'] > 1:
            raise fail('unsupported_version', 'frames', at, f'the bundle needs reader version {value["minReaderVersion"]}')
        counts, limits = value['counts'], self.limits
        frames = 2 + counts['profiles'] + counts['goals'] + counts['checkInBlocks'] + counts['other']
        for declared, limit in ((frames, 'maxFrames'), (counts['checkIns'], 'maxCheckIns'), (counts['other'], 'maxUnknownRecords')):
            if declared > limits[limit]:
                raise fail('limit_exceeded', 'frames', at, f'the manifest declares {declared}, above {limit} {limits[limit]}')
        self.manifest = value

    # BUNDLE-14 orders the checks on one frame: the frame limit (BUNDLE-25, in `frame`), the record
    # itself (section 3, in `frame`), then here `duplicate_id`, then the counts the manifest declared
    # (BUNDLE-9). A block's goal must come first (BUNDLE-5): a block of a goal not yet read cannot be
    # a duplicate, so that check may come anywhere before the manifest's counts. The limit on all
    # check-ins (BUNDLE-25) needs the block read; BUNDLE-14 does not place it, and it runs here after
    # `duplicate_id` and before the manifest's counts, as the limit on unknown records does. The limit
    # on unknown records' bytes (BUNDLE-28) comes last, after the manifest's counts and BUNDLE-25.

    def add_profile(self, value, at):
        if self.profile is not None:
            raise fail('duplicate_id', 'frames', at, 'a second profile')
        self.declared('profiles', 1, at)
        self.profile = value

    def add_goal(self, value, at):
        if value['id'] in self.goals:
            raise fail('duplicate_id', 'frames', at, f'goal {value["id"]} twice')
        self.declared('goals', len(self.goals) + 1, at)
        self.goals[value['id']] = value

    def add_check_ins(self, value, at):
        goal = value['goalID']
        if goal not in self.goals:
            raise fail('malformed_frame', 'frames', at, f'check-ins of goal {goal}, which no earlier frame held')
        if goal in self.blocks:
            raise fail('duplicate_id', 'frames', at, f'a second block of check-ins for goal {goal}')
        total = self.counts()['checkIns'] + len(value['checkIns'])
        if total > self.limits['maxCheckIns']:
            raise fail('limit_exceeded', 'frames', at, f'more than {self.limits["maxCheckIns"]} check-ins')
        self.declared('checkInBlocks', len(self.blocks) + 1, at)
        self.declared('checkIns', total, at)
        self.blocks[goal] = value

    def add_social(self, value, at):
        """BUNDLE-27: the person's social data, once, counted among `other` records (BUNDLE-9)."""
        if self.social is not None:
            raise fail('duplicate_id', 'frames', at, 'a second social frame')
        self.declared('other', self.other_records() + 1, at)
        self.social = value

    def add_other(self, body, at):
        """BUNDLE-24 / BUNDLE-25 / BUNDLE-28: a record of a type this reader does not know, kept whole,
        once; the unknown records are bounded in number (BUNDLE-25) and in bytes (BUNDLE-28)."""
        if len(self.others) + 1 > self.limits['maxUnknownRecords']:
            raise fail('limit_exceeded', 'frames', at, f'more than {self.limits["maxUnknownRecords"]} unknown records')
        self.declared('other', self.other_records() + 1, at)
        self.unknown_bytes += len(body)                        # BUNDLE-28: the frame's length, after its varint
        if self.unknown_bytes > self.limits['maxUnknownBytes']:
            raise fail('limit_exceeded', 'frames', at, f'unknown records of more than {self.limits["maxUnknownBytes"]} bytes')
        self.others.append(body)

    def other_records(self):
        """BUNDLE-9 / BUNDLE-27: the records counted as `other`: the social data and unknown records."""
        return int(self.social is not None) + len(self.others)

    def add_end(self, value, at):
        """BUNDLE-9: the end frame repeats the counts, which must be those of the records read."""
        counts = self.counts()
        for name, claimed in (('end frame', value['counts']), ('manifest', self.manifest['counts'])):
            if strip(claimed) != counts:
                raise fail('malformed_frame', 'frames', at, f'the counts of the {name} differ from the records read')
        self.ended = True

    def counts(self):
        return {'profiles': int(self.profile is not None), 'goals': len(self.goals), 'checkInBlocks': len(self.blocks),
                'checkIns': sum(len(b['checkIns']) for b in self.blocks.values()), 'other': self.other_records()}

    def finish(self):
        """At the end of the stream: no frame cut short, and an end frame (BUNDLE-5, BUNDLE-9)."""
        if self.buffer:
            raise fail('truncated', 'frames', self.offset, 'the stream ends inside a frame')
        if not self.ended:
            raise fail('malformed_frame', 'frames', self.offset, 'the stream has no end frame')

    def data(self):
        """BUNDLE-17: the data set, goals by identifier and check-ins by goal and Day."""
        out = {}
        if self.profile is not None:
            out['profile'] = self.profile
        out['goals'] = [self.goals[g] for g in sorted(self.goals)]
        out['checkIns'] = [c for g in sorted(self.blocks) for c in sorted(self.blocks[g]['checkIns'], key=lambda c: c['day'])]
        return out

    def social_json(self):
        """bundle.md 4.8: the social data, its registers as the hex of their canonical `FeedDelta`
        (FEED-28), or None when the bundle carries none."""
        if self.social is None:
            return None
        person, replica = self.social
        return {'person': person, 'registers': feedwire.encode_delta(replica).hex()}


def read_record(which, message, scan, path):
    """A frame's record as its value: section 3's records by `wire`, the social data by `feedwire`."""
    if which == 'social':
        return read_social(message, scan, path)
    return wire.read(RECORDS[which], message, scan, path)


def read_social(message, scan, path):
    """BUNDLE-27 / BUNDLE-18: a frame's `FeedSocial` as (person, replica). Social data that FEED-30
    refuses is `invalid_value` where the `FeedSocial`'s fields begin (FEED-30); a register that
    FEED-28 refuses, where that register begins (its tag in the `FeedDelta`)."""
    registers = path + ((number(message, 'registers'), None),)

    def locate(member, index):
        return scan.field_offset(registers + ((number(message.registers, member), index),))
    return feedwire.read_social(fields_of(message), scan.body_offset(path), locate)


def fields_of(message):
    """A message of the stock runtime as `protowire.decode` gives it, for `feedwire`'s readers: a
    dict of the fields that are set, nested messages as dicts and repeated fields as lists."""
    out = {}
    for field, value in message.ListFields():
        if field.message_type is not None:
            value = [fields_of(v) for v in value] if field.label == field.LABEL_REPEATED else fields_of(value)
        elif field.label == field.LABEL_REPEATED:
            value = list(value)
        out[field.name] = value
    return out


# ---- 4.2 / 4.3 The stream and the trailer

class Stream:
    """BUNDLE-7 / BUNDLE-10: the zlib stream after the header, inflated piece by piece into the
    frames, its uncompressed size counted as it grows and never taken from the file."""

    def __init__(self, limits, frames):
        self.limit, self.frames = limits['maxUncompressedSize'], frames
        self.inflater = zlib.decompressobj()
        self.size = self.crc = 0

    def inflate(self, data):
        """Inflates the stream; returns the offset where it ends."""
        pos, pending = HEADER_SIZE, b''
        while not self.inflater.eof:
            if not pending:
                if pos >= len(data):
                    raise fail('truncated', 'stream', len(data), 'the file ends inside the compressed stream')
                pending = data[pos:pos + STEP]
                pos += len(pending)
            before = self.inflater.copy()
            try:
                out = self.inflater.decompress(pending, PIECE)
            except zlib.error as error:
                self.replay(before, pending)            # BUNDLE-13: frames before the fault come first
                raise fail('checksum_mismatch', 'stream', HEADER_SIZE, f'zlib refused the stream: {error}')
            pending = self.inflater.unconsumed_tail
            self.output(out)
        return pos - len(self.inflater.unused_data)

    def replay(self, inflater, pending):
        """Feeds the bytes zlib refused one at a time, so the output it made before the fault is checked."""
        try:
            for i in range(len(pending)):
                self.output(inflater.decompress(pending[i:i + 1]))
        except zlib.error:
            pass

    def output(self, out):
        self.size += len(out)
        if self.size > self.limit:
            raise fail('limit_exceeded', 'frames', self.limit, 'the uncompressed size is above the limit')
        self.crc = zlib.crc32(out, self.crc)
        self.frames.feed(out)


def check_trailer(data, start, size, crc):
    """BUNDLE-8: the lengths, the CRC-32 and the signature; nothing may follow."""
    trailer = data[start:start + TRAILER_SIZE]
    if len(trailer) < TRAILER_SIZE:
        raise fail('truncated', 'trailer', len(data), 'the file ends inside the trailer')
    length, compressed, checksum, signature = struct.unpack('<QQI4s', trailer)
    if (signature, length, compressed, checksum) != (TRAILER_SIGNATURE, size, start - HEADER_SIZE, crc):
        if starts_zlib_stream(data[start:]):
            raise fail('trailing_data', 'trailer', start, 'a second zlib stream where the trailer belongs')
        raise fail('checksum_mismatch', 'trailer', start, 'the trailer does not match the stream')
    if len(data) > start + TRAILER_SIZE:
        raise fail('trailing_data', 'trailer', start + TRAILER_SIZE, 'bytes after the trailer')


def starts_zlib_stream(rest):
    if len(rest) < 2 or rest[0] & 0x0F != 8 or rest[0] >> 4 > 7 or (rest[0] << 8 | rest[1]) % 31:
        return False
    try:
        zlib.decompressobj().decompress(rest, 1)
    except zlib.error:
        return False
    return True


def read_bundle(data, limits=None):
    """BUNDLE-19: the whole bundle, verified to the trailer's last byte. Returns (header, frames)."""
    limits = dict(LIMITS, **(limits or {}))
    if len(data) > limits['maxBundleSize']:
        raise fail('limit_exceeded', 'stream', limits['maxBundleSize'], 'the file is larger than the limit')
    header = read_header(data)
    frames = Frames(limits)
    stream = Stream(limits, frames)
    end = stream.inflate(data)
    frames.finish()
    check_trailer(data, end, stream.size, stream.crc)
    return header, frames


# ---- 4.4 Writing (BUNDLE-15)

def frame(field, value):
    """One frame: a varint length and a BundleFrame holding one record."""
    message, writer = pb.BundleFrame(), Writer()
    path = ((message.DESCRIPTOR.fields_by_name[field].number, None),)
    wire.write(RECORDS[field], value, getattr(message, field), path, writer)
    body = serialize(message, writer.tails)
    return varint(len(body)) + body


def write_frames(data, exporter_name, exporter_version, created_at):
    """BUNDLE-15: manifest, profile, goals by id, one block per goal with check-ins, the end."""
    by_goal = {}
    for c in data['checkIns']:                      # read_data made sure their goals are all there
        by_goal.setdefault(c['goalID'], []).append(c)
    counts = {'profiles': int('profile' in data), 'goals': len(data['goals']), 'checkInBlocks': len(by_goal),
              'checkIns': len(data['checkIns']), 'other': 0}
    manifest = {'schemaVersion': 1, 'minReaderVersion': 1, 'exporterName': exporter_name,
                'exporterVersion': exporter_version, 'createdAt': created_at, 'counts': counts}
    out = [frame('manifest', manifest)]
    if 'profile' in data:
        out.append(frame('profile', data['profile']))
    out += [frame('goal', g) for g in data['goals']]
    out += [frame('check_ins', {'goalID': g, 'checkIns': by_goal[g]}) for g in sorted(by_goal)]
    out.append(frame('end', {'counts': counts}))
    return b''.join(out)


# ---- 4.5 Merging (BUNDLE-21 ... BUNDLE-23)

def merge(sets):
    """BUNDLE-21 / BUNDLE-22: the profile and each goal keep their greatest version; the check-ins of
    one (goal, Day) merge with the taps of both (MODEL-54). The data set and its merge are
    `dataset.py`'s, which the mutations of model.md 1.13 share."""
    merged = DataSet()
    for data in sets:
        merged.merge(data)
    return merged.json()


# ---- The operations (bundle.md 4.8)

def file_of(inp):
    """CONF-3: the runner sends the corpus file's bytes in base64."""
    return base64.b64decode(inp['fileBase64'])


def read_op(inp):
    header, frames = read_bundle(file_of(inp), inp.get('limits'))
    manifest = {k: v for k, v in strip(frames.manifest).items() if k != 'counts'}     # the counts are reported apart
    out = {'header': header, 'manifest': manifest, 'counts': frames.counts(), 'data': strip(frames.data())}
    return with_social(out, frames)


def with_social(out, frames):
    """bundle.md 4.8 / BUNDLE-27: `social` beside the data set when the bundle carries it."""
    social = frames.social_json()
    if social is not None:
        out['social'] = social
    return out


def frames_op(inp):
    data = read_data(inp['data'])
    created = m.instant_text(m.scalar(m.parse_instant, inp['createdAt'], '$.createdAt'))
    return {'hex': write_frames(data, inp['exporterName'], inp['exporterVersion'], created).hex()}


def merge_op(inp):
    # Each set's errors are located in that set, as the corpus has them (`$.checkIns[i].goalID`).
    return {'data': strip(merge([read_data(s) for s in inp['sets']]))}


def import_op(inp):
    """BUNDLE-19 / BUNDLE-20: verified whole first, refused for another person, then merged. The
    social data comes back beside the data set (BUNDLE-27), for the device's feed replica."""
    destination = read_data(inp['destination'])
    _, frames = read_bundle(file_of(inp), inp.get('limits'))
    incoming = frames.data()
    if 'profile' in destination and 'profile' in incoming and destination['profile']['userID'] != incoming['profile']['userID']:
        raise fail('user_mismatch', 'frames', 0, 'the bundle belongs to another person')
    return with_social({'data': strip(merge([destination, incoming]))}, frames)


def import_stream_op(inp):
    """BUNDLE-26: the file fed `chunkSize` bytes at a time, a progress report after each chunk.
    A cancel on the n-th report, or a source that fails when asked for chunk n + 1, stops the
    import at n chunks' bytes, unless the bytes read by then already hold a problem: the reader
    reports problems in stream order as it reads (BUNDLE-13), so a prefix that fails for any reason
    but being cut short fails with that reason first."""
    data, size = file_of(inp), inp['chunkSize']
    reports = -(-len(data) // size)
    stops = [(n, 'cancelled') for n in [inp.get('cancelAfter')] if n is not None and n <= reports]
    stops += [(n, 'read_failed') for n in [inp.get('failAfter')] if n is not None and n < reports]
    if stops:
        n, code = min(stops)
        read = min(len(data), n * size)
        if read < len(data):
            try:
                read_bundle(data[:read], inp.get('limits'))
            except Failure as error:
                if not (error.code == 'truncated' and error.offset == read):
                    raise
        else:
            read_bundle(data, inp.get('limits'))
        raise fail(code, 'stream', read, 'the import stopped; nothing was imported')
    result = import_op(inp)
    _, frames = read_bundle(data, inp.get('limits'))
    counts = frames.counts()
    records = counts['profiles'] + counts['goals'] + counts['checkInBlocks'] + counts['other']
    return dict(result, reports=reports, progress={'bytesRead': len(data), 'totalBytes': len(data),
                                                   'records': records, 'checkIns': counts['checkIns']})


OPERATIONS = {
    'bundle.importStream': import_stream_op,
    'bundle.read': read_op,
    'bundle.frames': frames_op,
    'bundle.merge': merge_op,
    'bundle.import': import_op,
}
