#!/usr/bin/env python3
"""Writes Spec/corpus/wire/open_enums.json: enum values a reader does not know (WIRE-7).

glow.proto is proto3, whose enums are open: a value the reader names no case for stays in its
field, and writing the record again puts it back in the field's place (field order), as every
stock protobuf runtime does; the model sees the field's default. The bytes are encoded by hand
with Tools/corpus/bundle_writer.py; each expected canonical form is the input's fields in
ascending number order with defaults left out (WIRE-1, WIRE-2). Run from the repository root:

    python3 Tools/corpus/open_enums.py
"""
import json
import os
import sys
from corpus_file import command_line

command_line(__doc__)

sys.path.insert(0, os.path.dirname(__file__))
from bundle_writer import field_bytes, field_sint, field_varint, tag, uuid_bytes, varint  # noqa: E402

GOAL = "01938a6e-7c00-7abc-8def-0123456789ab"
DAY = 20089  # 2025-01-01
CREATED = 1735718400000  # 2025-01-01T08:00:00.000Z


def goal(*middle, kind=field_varint(11, 1), visibility=b"", forgiveness=b""):
    """A streak goal, daily from 2025-01-01, with fields 13...21 around `visibility` (17)."""
    schedule = field_bytes(12, field_sint(1, DAY) + field_varint(2, 1))
    return (field_bytes(1, uuid_bytes(GOAL)) + field_bytes(2, b"Drink water") + kind + schedule
            + field_sint(13, DAY) + forgiveness + visibility + b"".join(middle) + field_sint(19, CREATED)
            + field_sint(20, CREATED))


def case(id_, comment, message, data, canonical=None, json_=None, code=None, offset=None):
    result = {"id": id_, "comment": comment, "rules": ["WIRE-7"], "flags": [],
              "input": {"message": message, "hex": data.hex()}}
    if code:
        result["rules"].append("WIRE-16")
        result.update({"result": "invalid", "error": {"code": code, "offset": offset}})
    else:
        expected = {"canonicalHex": canonical.hex()}
        if json_ is not None:
            expected["json"] = json_
        result.update({"result": "valid", "expected": expected})
    return result


def goal_json(visibility="private", **extra):
    value = {"id": GOAL, "title": "Drink water", "kind": {"type": "streak"},
             "schedule": [{"effective": "2025-01-01", "rule": {"type": "daily"}}], "startDay": "2025-01-01",
             "archiveHistory": [], "visibility": visibility, "createdAt": "2025-01-01T08:00:00.000Z",
             "modifiedAt": "2025-01-01T08:00:00.000Z", "deleted": False}
    value.update(extra)
    return value


def main():
    seven = field_varint(17, 7)
    cases = [
        # The unknown visibility 7 arrives last; written again it takes field 17's place.
        case("open-enums-001", "an unknown visibility given after every other field is written back in field order",
             "Goal", goal() + seven, canonical=goal(visibility=seven), json_=goal_json()),
        # Given twice, the last value wins (WIRE-6), known or not.
        case("open-enums-002", "friends, then an unknown value: the unknown value wins and stays",
             "Goal", goal(visibility=field_varint(17, 1) + seven), canonical=goal(visibility=seven),
             json_=goal_json()),
        case("open-enums-003", "an unknown value, then public: public wins and nothing unknown is kept",
             "Goal", goal(visibility=seven + field_varint(17, 2)), canonical=goal(visibility=field_varint(17, 2)),
             json_=goal_json("public")),
        # -1 is an int32: a ten-byte varint, kept and written back as it came.
        case("open-enums-004", "a negative enum value (-1, ten bytes) is an int32 and is kept",
             "Goal", goal(visibility=tag(17, 0) + varint(2**64 - 1)),
             canonical=goal(visibility=tag(17, 0) + varint(2**64 - 1)), json_=goal_json()),
        # 2^40 is no int32: refused at the field's tag, which follows the fields before it.
        case("open-enums-005", "an enum value beyond 32 bits is refused at its field",
             "Goal", goal(visibility=tag(17, 0) + varint(2**40)), code="invalid_value",
             offset=len(goal()) - len(field_sint(19, CREATED) + field_sint(20, CREATED))),
    ]
    # A forgiveness whose period (field 2) is unknown: kept inside the nested message.
    forgiveness = field_bytes(16, field_varint(1, 1) + field_varint(2, 5))
    cases.append(case("open-enums-006", "an unknown forgiveness period stays in the nested message; the model sees week",
                      "Goal", goal(forgiveness=forgiveness), canonical=goal(forgiveness=forgiveness),
                      json_=goal_json(forgiveness={"allowance": 1, "period": "week"})))
    # A value target whose comparison (field 1 of ValueTarget) is unknown: the model sees atLeast.
    target = field_bytes(2, field_varint(1, 4) + field_sint(2, 8000))
    value_kind = field_bytes(8, field_bytes(1, b"glasses") + target)
    cases.append(case("open-enums-007", "an unknown comparison stays in the value target; the model sees atLeast",
                      "Goal", goal(kind=value_kind), canonical=goal(kind=value_kind)))
    # A day boundary whose week start is 9: kept; the model sees Monday.
    boundary = field_bytes(1, b"UTC") + field_varint(3, 9)
    cases.append(case("open-enums-008", "an unknown week start stays in the boundary; the model sees monday",
                      "DayBoundary", field_varint(3, 9) + field_bytes(1, b"UTC"), canonical=boundary,
                      json_={"timeZone": "UTC", "dayStartMinutes": 0, "weekStart": "monday"}))
    with open("Spec/corpus/wire/open_enums.json", "w") as out:
        json.dump({"area": "wire", "operation": "wire.decode",
                   "description": "Enum values the reader does not know, kept in their field as proto3's open enums are.",
                   "cases": cases}, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
