#!/usr/bin/env python3
"""Writes the inputs that broke the SDK before the hardening of issue 11 into Regressions/, where
`swift test` replays them through their harness (Tests/GlowWireTests/FuzzRegressionTests.swift).
Each comes from the issue's list of traps, hangs and blow-ups; crashes the fuzzer finds later are
copied in beside them by hand (run.sh keeps them in .artifacts/). Run from FuzzTesting/:

    python3 regressions.py
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tools", "corpus"))
from bundle_writer import (DAY_2025_01_01, bundle, counts, end_frame, field_bytes, field_packed,  # noqa: E402
                           field_sint, field_varint, frame, manifest_frame, single_goal, uuid_bytes, zigzag)

GOAL = "01938a6e-7c00-7abc-8def-0000000000a1"
INT64_MAX = 2**63 - 1


def write(target, name, data):
    os.makedirs(os.path.join("Regressions", target), exist_ok=True)
    with open(os.path.join("Regressions", target, name), "wb") as out:
        out.write(data)


def block(*fields):
    return (field_bytes(1, uuid_bytes(GOAL)) + b"".join(fields) + field_bytes(13, b"UTC")
            + field_bytes(15, uuid_bytes("01938a6e-7c00-7abc-8def-00000000d001")))


def main():
    # A 40-byte block whose modified_after_last (or first_seconds) is near 2^63 trapped in
    # instant arithmetic (the records harness: first byte 3 selects CheckInBlock).
    near_max = block(field_varint(2, 1), field_sint(3, DAY_2025_01_01), field_packed(12, [zigzag(INT64_MAX)]))
    write("records", "block-modified-after-last-overflow", bytes([3]) + near_max)
    seconds = block(field_varint(2, 1), field_sint(3, DAY_2025_01_01), field_packed(9, [zigzag(INT64_MAX)]))
    write("records", "block-first-seconds-overflow", bytes([3]) + seconds)
    write("hostile-block", "block-modified-after-last-overflow", near_max)
    # A full 3.65-million-Day block declared in a few kilobytes: 740 MB to verify.
    gaps = field_packed(4, [1] * 3_652_058)
    huge = block(field_varint(2, 3_652_059), field_sint(3, -719162), gaps)
    declared = counts(goals=1, blocks=1, check_ins=3_652_059)
    goal = frame(3, single_goal(GOAL, "Goal"))
    write("bundle", "full-range-block.glow",
          bundle(manifest_frame(declared) + goal + frame(4, huge) + end_frame(declared), level=9))
    # A manifest followed by zero bytes: empty frames, once read at 5 MB/s to the 4 GiB limit.
    write("bundle", "zero-frames.glow", bundle(manifest_frame(counts()) + bytes(1 << 20), level=9))
    # A goal whose title is a million characters: counting them was the slowest part of a read.
    title = frame(3, field_bytes(1, uuid_bytes(GOAL)) + field_bytes(2, b"a" * 1_000_000) + field_varint(5, 1))
    write("bundle", "million-character-title.glow", bundle(manifest_frame(counts(goals=1)) + title, level=9))
    # A JSON data set whose check-in names a goal it does not hold: accepted, and exported to a
    # bundle that verify refused (BUNDLE-5).
    orphan = {"goals": [], "checkIns": [{
        "goalID": GOAL, "day": "2025-03-09", "log": {"type": "done"},
        "firstRecordedAt": "2025-03-09T12:00:00.000Z", "lastRecordedAt": "2025-03-09T12:00:00.000Z",
        "timeZone": "UTC", "deviceID": "01938a6e-7c00-7abc-8def-00000000d001",
        "modifiedAt": "2025-03-09T12:00:00.000Z"}]}
    write("dataset-json", "orphan-check-in.json", json.dumps(orphan).encode())
    # 10,000 nested messages: the raw tree must stop at its depth limit, fast.
    nested = b""
    for _ in range(10_000):
        nested = b"\x0a" + bytes(varint_bytes(len(nested))) + nested
    write("raw", "ten-thousand-deep", nested)
    # Two-byte fields: 64 MiB of them made 2.1 GB of tree; the node limit stops a smaller copy.
    write("raw", "many-small-fields", b"\x08\x01" * 600_000)
    # A frame whose length says 4 GiB: refused without waiting for it.
    write("framing", "four-gigabyte-length", struct.pack("<I", 0xFFFFFFFF) + b"{}")
    # Colour text that is all sign and spaces.
    write("color", "signs", b"#+1+2+3")


def varint_bytes(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return out


if __name__ == "__main__":
    main()
