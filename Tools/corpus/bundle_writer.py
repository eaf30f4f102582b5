#!/usr/bin/env python3
"""A small, independent writer of Glow export bundles, written from Spec/bundle.md and
Spec/glow.proto with the Python standard library only (no protobuf library, no SDK).

It writes the bundle files of the corpus cases that Tools/corpus/bundle_limits.py describes, and
any other case can use it: `frame(...)` builds one frame from hand-encoded fields, `bundle(...)`
wraps frames in the header, one zlib stream and the trailer (BUNDLE-1 ... BUNDLE-9).
"""
import struct
import zlib

MAGIC = b"\x89GLW\r\n\x1a\n"  # BUNDLE-1


# ---- Protocol Buffers wire format (WIRE-1 ... WIRE-4), by hand

def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag(value):
    return (value << 1) ^ (value >> 63)


def tag(number, wire_type):
    return varint(number << 3 | wire_type)


def field_varint(number, value):
    return tag(number, 0) + varint(value)


def field_sint(number, value):
    return field_varint(number, zigzag(value))


def field_bytes(number, payload):
    return tag(number, 2) + varint(len(payload)) + payload


def field_packed(number, values):
    return field_bytes(number, b"".join(varint(v) for v in values)) if values else b""


def uuid_bytes(text):
    return bytes.fromhex(text.replace("-", ""))


# ---- Records (glow.proto)

DAY_2025_01_01 = 20089  # days since 1970-01-01 (MODEL-2)
MS_2025_01_01_08 = 1735718400000  # 2025-01-01T08:00:00.000Z


def counts(profiles=0, goals=0, blocks=0, check_ins=0, other=0):
    """RecordCounts, defaults omitted (WIRE-2)."""
    out = b""
    for number, value in ((1, profiles), (2, goals), (3, blocks), (4, check_ins), (5, other)):
        if value:
            out += field_varint(number, value)
    return out


def manifest(declared, created=MS_2025_01_01_08):
    return (field_varint(1, 1) + field_varint(2, 1) + field_bytes(3, b"Python corpus writer")
            + field_bytes(4, b"1.0") + field_sint(5, created) + field_bytes(7, declared))


def single_goal(goal_id, title):
    """A one-off `single` goal starting 2025-01-01 (MODEL-19)."""
    return (field_bytes(1, uuid_bytes(goal_id)) + field_bytes(2, title.encode()) + field_varint(5, 1)
            + field_sint(13, DAY_2025_01_01) + field_sint(19, MS_2025_01_01_08) + field_sint(20, MS_2025_01_01_08))


def done_block(goal_id, days, device="01938a6e-7c00-7abc-8def-00000000d001"):
    """A CheckInBlock of `done` entries on `days` (WIRE-20 ... WIRE-23): all columns default but
    the Day gaps, one zone and one device."""
    gaps = [b - a for a, b in zip(days, days[1:])]
    return (field_bytes(1, uuid_bytes(goal_id)) + field_varint(2, len(days)) + field_sint(3, days[0])
            + field_packed(4, gaps) + field_bytes(13, b"UTC") + field_bytes(15, uuid_bytes(device)))


def frame(number, payload):
    """One frame: a varint length and a BundleFrame holding one record (BUNDLE-5)."""
    message = field_bytes(number, payload)
    return varint(len(message)) + message


def manifest_frame(declared):
    return frame(1, manifest(declared))


def end_frame(declared):
    return frame(15, field_bytes(1, declared))


def bundle(frames, level=6):
    """Header, one zlib stream of the frames, trailer (BUNDLE-2, BUNDLE-5, BUNDLE-8)."""
    head = MAGIC + struct.pack("<HHII", 1, 0, 0, 0)
    head += struct.pack("<I", zlib.crc32(head))
    stream = zlib.compress(frames, level)
    trailer = struct.pack("<QQI", len(frames), len(stream), zlib.crc32(frames)) + b"GLWE"
    return head + stream + trailer
