#!/usr/bin/env python3
"""Writes Spec/corpus/wire/taps.json: check-ins with taps on the wire (WIRE-28).

The canonical bytes are encoded by hand, field by field in ascending order with defaults left
out (WIRE-1, WIRE-2, WIRE-21), with the value of every field worked out beside it. The case is the
phone's three glasses at 08:00 and the watch's two at 10:00 on 2025-03-09 (MODEL-53: five
glasses, first 08:00, last 10:00, last by the watch). Run from the repository root:

    python3 Tools/corpus/wire_taps.py
"""
import json
import os
import sys
from corpus_file import command_line

command_line(__doc__)

sys.path.insert(0, os.path.dirname(__file__))
from bundle_writer import field_bytes, field_packed, field_sint, field_varint, uuid_bytes, zigzag  # noqa: E402

GOAL = uuid_bytes("01938a6e-7c00-7abc-8def-0000000000a1")
P = uuid_bytes("01938a6e-7c00-7abc-8def-00000000d001")
W = uuid_bytes("01938a6e-7c00-7abc-8def-00000000d002")
ZONE = b"Europe/London"
DAY8, DAY9 = 20155, 20156  # 2025-03-08 and 2025-03-09: 2025-01-01 is day 20089, plus 31 + 28 + 7 and + 8
HOUR = 3_600_000


def ms(day, hours):
    return day * 86_400_000 + hours * HOUR


def tap_message(device, sequence, at, action_field, value):
    """A Tap: device (1), sequence (2, omitted when 0), at (3), zone (5), the action's member."""
    body = field_bytes(1, device)
    if sequence:
        body += field_varint(2, sequence)
    body += field_sint(3, at) + field_bytes(5, ZONE) + field_sint(action_field, value)
    return field_bytes(16, body)


def sint_column(number, values):
    return field_packed(number, [zigzag(v) & (2**64 - 1) for v in values])


def main():
    cases = []
    # A single CheckIn of the two taps: fields 1, 2, the tally (6) of 5, first (9) 08:00, last (10)
    # 10:00, the zone (11), the last tap's device (12) the watch, modified (14) 10:00; then the taps
    # in their order (16), each a count (field 9 of Tap) of 3 and 2.
    described = (field_bytes(1, GOAL) + field_sint(2, DAY9) + field_varint(6, 5) + field_sint(9, ms(DAY9, 8))
                 + field_sint(10, ms(DAY9, 10)) + field_bytes(11, ZONE) + field_bytes(12, W)
                 + field_sint(14, ms(DAY9, 10)))
    taps = tap_message(P, 0, ms(DAY9, 8), 9, 3) + tap_message(W, 0, ms(DAY9, 10), 9, 2)
    canonical = described + taps
    cases.append({"id": "taps-001", "comment": "a check-in of two devices' taps: the compact fields describe them, the taps follow",
                  "rules": ["WIRE-28", "MODEL-55"], "flags": [], "input": {"message": "CheckIn", "hex": canonical.hex()},
                  "result": "valid", "expected": {"canonicalHex": canonical.hex()}})
    # The taps alone, in the other order, with nothing describing them: the reader recomputes the
    # description and writes the canonical bytes above.
    bare = field_bytes(1, GOAL) + field_sint(2, DAY9) + field_sint(14, ms(DAY9, 10)) + tap_message(W, 0, ms(DAY9, 10), 9, 2) + tap_message(P, 0, ms(DAY9, 8), 9, 3)
    cases.append({"id": "taps-002", "comment": "taps in any order with no description: the reader works out the description",
                  "rules": ["WIRE-28", "MODEL-53"], "flags": [], "input": {"message": "CheckIn", "hex": bare.hex()},
                  "result": "valid", "expected": {"canonicalHex": canonical.hex()}})
    # One tap listed is the compact form, written without taps.
    one = field_bytes(1, GOAL) + field_sint(2, DAY9) + field_sint(14, ms(DAY9, 8)) + tap_message(P, 0, ms(DAY9, 8), 9, 3)
    compact = (field_bytes(1, GOAL) + field_sint(2, DAY9) + field_varint(6, 3) + field_sint(9, ms(DAY9, 8))
               + field_sint(10, ms(DAY9, 8)) + field_bytes(11, ZONE) + field_bytes(12, P) + field_sint(14, ms(DAY9, 8)))
    cases.append({"id": "taps-003", "comment": "a check-in that lists one tap is compact and is written without it",
                  "rules": ["WIRE-28", "MODEL-55"], "flags": [], "input": {"message": "CheckIn", "hex": one.hex()},
                  "result": "valid", "expected": {"canonicalHex": compact.hex()}})
    # A block: 03-08 compact (the phone, 3 at 08:00); 03-09 the two devices' taps.
    block = (field_bytes(1, GOAL) + field_varint(2, 2) + field_sint(3, DAY8) + field_packed(4, [1])
             + field_packed(5, [3, 3])                      # log_types: both tallies
             + sint_column(6, [3, 5])                       # log_numbers: the counts
             + sint_column(9, [8 * 3600, 0])                # first_seconds: 08:00, then the same again
             + field_packed(11, [0, 2 * HOUR])              # last_after_first: 0 and two hours
             + field_bytes(13, ZONE)                        # one zone, refs all 0: no zone_refs
             + field_bytes(15, P) + field_bytes(15, W)      # the entries' devices in order of first use
             + field_packed(16, [0, 1])                     # device_refs
             + field_packed(22, [1])                        # tap_gaps: entry 1
             + field_packed(23, [2])                        # tap_counts: two taps
             + field_packed(24, [0, 1])                     # tap_device_refs: the phone, the watch
             + sint_column(26, [8 * 3600, 2 * 3600])        # tap_seconds: 08:00, then two hours later
             + field_packed(30, [3, 3])                     # tap_types: counts
             + sint_column(31, [3, 2]))                     # tap_numbers
    cases.append({"id": "taps-004", "comment": "a block whose second entry lists two devices' taps as columns",
                  "rules": ["WIRE-28", "WIRE-21"], "flags": [], "input": {"message": "CheckInBlock", "hex": block.hex()},
                  "result": "valid", "expected": {"canonicalHex": block.hex()}})
    # A tap column of another length than the taps is invalid at the block's start.
    broken = block.replace(field_packed(24, [0, 1]), field_packed(24, [0]))
    cases.append({"id": "taps-005", "comment": "a tap column with fewer values than taps is invalid",
                  "rules": ["WIRE-28"], "flags": [], "input": {"message": "CheckInBlock", "hex": broken.hex()},
                  "result": "invalid", "error": {"code": "invalid_value", "offset": 0}})
    # A tap's device beyond the device table is invalid.
    outside = block.replace(field_packed(24, [0, 1]), field_packed(24, [0, 2]))
    cases.append({"id": "taps-006", "comment": "a tap that refers to a device the table does not have is invalid",
                  "rules": ["WIRE-28"], "flags": [], "input": {"message": "CheckInBlock", "hex": outside.hex()},
                  "result": "invalid", "error": {"code": "invalid_value", "offset": 0}})
    with open("Spec/corpus/wire/taps.json", "w") as out:
        json.dump({"area": "wire", "operation": "wire.decode", "description": "Check-ins with taps, single and in blocks.",
                   "cases": cases}, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
