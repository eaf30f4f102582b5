#!/usr/bin/env python3
"""Writes Spec/corpus/wire/limits.json: check-in blocks at the edges of WIRE-22 (arithmetic
width), WIRE-25 (check-ins per block) and WIRE-26 (fields per raw tree), and zone names that
round-trip though this system may not know them (MODEL-8).

The bytes are encoded by hand with Tools/corpus/bundle_writer.py; each expected offset is the
position of the field named in the comment, computed from those bytes. Run from the repository
root:

    python3 Tools/corpus/wire_limits.py
"""
import json
import os
import sys
from corpus_file import command_line

command_line(__doc__)

sys.path.insert(0, os.path.dirname(__file__))
from bundle_writer import (DAY_2025_01_01, field_bytes, field_packed, field_sint, field_varint,  # noqa: E402
                           tag, uuid_bytes, varint, zigzag)

GOAL = "01938a6e-7c00-7abc-8def-0123456789ab"
DEVICE = "01938a6e-7c00-7abc-8def-00000000d001"
INT64_MAX = 2**63 - 1


def block(*fields):
    return b"".join(fields)


def head(count, first_day=DAY_2025_01_01):
    return field_bytes(1, uuid_bytes(GOAL)) + field_varint(2, count) + field_sint(3, first_day)


def tables(zone=b"UTC"):
    return field_bytes(13, zone) + field_bytes(15, uuid_bytes(DEVICE))


def packed_sint(number, values):
    return field_packed(number, [zigzag(v) & (2**64 - 1) for v in values])


def case(id_, comment, rules, payload, *, code=None, offset=None, limits=None, message="CheckInBlock",
         canonical=None, operation="decode"):
    input_ = {"message": message, "hex": payload.hex()} if operation == "decode" else {"hex": payload.hex()}
    if limits:
        input_["limits"] = limits
    result = {"id": id_, "comment": comment, "rules": rules, "flags": [], "input": input_}
    if code is None:
        result.update({"result": "valid", "expected": {"canonicalHex": canonical.hex()}})
    else:
        result.update({"result": "invalid", "error": {"code": code, "offset": offset}})
    return result


def main():
    cases = []
    # WIRE-25: the count field follows the 18 bytes of the goal id field.
    cases.append(case("limits-001", "a count above the per-block limit fails at the count, before any column",
                      ["WIRE-25"], block(head(3), field_packed(4, [1, 1]), tables()),
                      code="limit_exceeded", offset=18, limits={"maxCheckInsPerBlock": 2}))
    # WIRE-25: a Day-gap column of five values under a limit of 2 fails at the column's tag.
    prefix = head(2)
    cases.append(case("limits-002", "a column longer than the per-block limit fails at the column, whatever the count says",
                      ["WIRE-25", "WIRE-18"], block(prefix, field_packed(4, [1, 1, 1, 1, 1]), tables()),
                      code="limit_exceeded", offset=len(prefix), limits={"maxCheckInsPerBlock": 2}))
    # WIRE-25: a third entry in the zone table under a limit of 2 fails at that entry's tag.
    prefix = head(2) + field_packed(4, [1]) + field_bytes(13, b"UTC") + field_bytes(13, b"Europe/London")
    cases.append(case("limits-003", "a table with more entries than the per-block limit fails at the entry that passes it",
                      ["WIRE-25"], block(prefix, field_bytes(13, b"Europe/Paris"), field_bytes(15, uuid_bytes(DEVICE))),
                      code="limit_exceeded", offset=len(prefix), limits={"maxCheckInsPerBlock": 2}))
    # WIRE-22: one entry whose first_seconds is 2^63 - 1: 1000 x s overflows 64 bits, and the
    # exact instant is far past 9999-12-31, so the block is invalid at its start.
    cases.append(case("limits-004", "first_seconds of 2^63 - 1: the instant leaves the supported years, no overflow trap",
                      ["WIRE-22", "WIRE-24"], block(head(1), packed_sint(9, [INT64_MAX]), tables()),
                      code="invalid_value", offset=0))
    # WIRE-22: two entries of 2^62 seconds each: the running sum passes 2^63 - 1 at the second.
    cases.append(case("limits-005", "first_seconds whose running sum passes 64 bits: invalid at the first entry out of range, never wrapped",
                      ["WIRE-22", "WIRE-24"],
                      block(head(2), field_packed(4, [1]), packed_sint(9, [2**62, 2**62]), tables()),
                      code="invalid_value", offset=0))
    # WIRE-22: modified_after_last of -2^63 puts modified_at before year 1.
    cases.append(case("limits-006", "modified_after_last of -2^63: modified_at before year 1 is invalid",
                      ["WIRE-22", "WIRE-24"], block(head(1), tables(), packed_sint(12, [-(2**63)])),
                      code="invalid_value", offset=0))
    # WIRE-22: last_after_first of 2^64 - 1 does not fit a signed 64-bit instant.
    cases.append(case("limits-007", "last_after_first of 2^64 - 1 is invalid, not wrapped",
                      ["WIRE-22", "WIRE-24"], block(head(1), field_packed(11, [2**64 - 1]), tables()),
                      code="invalid_value", offset=0))
    # MODEL-8: a zone name of the right form that tzdata does not know round-trips unchanged.
    canonical = block(head(1), tables(b"Mars/Olympus_Mons"))
    cases.append(case("limits-008", "a check-in's zone unknown to this tz database round-trips unchanged",
                      ["MODEL-8", "WIRE-22"], canonical, canonical=canonical))
    # MODEL-8: a zone name of the wrong form is refused.
    cases.append(case("limits-009", "a zone name of the wrong form in a block is invalid",
                      ["MODEL-8", "WIRE-24"], block(head(1), tables(b"GMT+5")), code="invalid_value", offset=0))
    # WIRE-26: three fields with at most two: the third field's tag (offset 4) fails.
    raw = field_varint(1, 1) + field_varint(2, 2) + field_varint(3, 3)
    cases.append(case("limits-010", "a raw tree with more fields than the limit fails at the first one past it",
                      ["WIRE-26"], raw, code="limit_exceeded", offset=4, limits={"maxRawNodes": 2},
                      operation="raw"))
    # WIRE-26: a nested message counts its own fields: field 1 holding two fields is 3 nodes.
    inner = field_varint(1, 1) + field_varint(2, 2)
    nested = field_bytes(1, inner)
    cases.append(case("limits-011", "nested fields count toward the tree's limit: the inner second field fails",
                      ["WIRE-26"], nested, code="limit_exceeded", offset=2 + len(field_varint(1, 1)),
                      limits={"maxRawNodes": 2}, operation="raw"))
    # WIRE-27: mappings the schema leaves open.
    single_false = (field_bytes(1, uuid_bytes(GOAL)) + field_bytes(2, b"Read a book") + field_varint(5, 0)
                    + field_sint(13, DAY_2025_01_01))
    single_true = (field_bytes(1, uuid_bytes(GOAL)) + field_bytes(2, b"Read a book") + field_varint(5, 1)
                   + field_sint(13, DAY_2025_01_01))
    cases.append(case("limits-012", "a bool kind member present as false still selects its kind, written true",
                      ["WIRE-27"], single_false, message="Goal", canonical=single_true))
    empty_block = field_bytes(1, uuid_bytes(GOAL)) + field_sint(3, DAY_2025_01_01)
    cases.append(case("limits-013", "an empty block's first_day is ignored and not written again",
                      ["WIRE-27", "WIRE-20"], empty_block, canonical=field_bytes(1, uuid_bytes(GOAL))))
    for entry in cases:
        if entry["input"].get("message") is None:
            entry["operation"] = "wire.decodeRaw"
    decode = [c for c in cases if "operation" not in c]
    raw_cases = [c for c in cases if c.pop("operation", None)]
    with open("Spec/corpus/wire/limits.json", "w") as out:
        json.dump({"area": "wire", "operation": "wire.decode",
                   "description": "Check-in blocks at the edges of arithmetic width and per-block limits; zone names by form.",
                   "cases": decode}, out, indent=1, ensure_ascii=False)
        out.write("\n")
    with open("Spec/corpus/wire/raw_limits.json", "w") as out:
        json.dump({"area": "wire", "operation": "wire.decodeRaw",
                   "description": "The limit on fields in a schema-less field tree.",
                   "cases": raw_cases}, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
