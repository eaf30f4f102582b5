#!/usr/bin/env python3
"""Writes the record-limit bundle cases (BUNDLE-5, BUNDLE-9, BUNDLE-25, WIRE-25) and their files.

Each file is built frame by frame with Tools/corpus/bundle_writer.py; each expected error and
offset is worked out below from Spec/bundle.md, beside the bytes it points at. Run from the
repository root:

    python3 Tools/corpus/bundle_limits.py
"""
import json
import os
import sys
from corpus_file import command_line

command_line(__doc__)

sys.path.insert(0, os.path.dirname(__file__))
from bundle_writer import (DAY_2025_01_01, bundle, counts, done_block, end_frame, frame,  # noqa: E402
                           manifest_frame, single_goal)

FILES = "Spec/corpus/bundle/files"
GOALS = ["01938a6e-7c00-7abc-8def-0000000000a%d" % i for i in range(1, 4)]


def goal_frames(n):
    return [frame(3, single_goal(GOALS[i], "Goal %d" % (i + 1))) for i in range(n)]


def write(name, frames):
    with open(os.path.join(FILES, name), "wb") as out:
        out.write(bundle(b"".join(frames)))


def case(id_, comment, rules, name, limits, code=None, offset=None, expected=None):
    """An invalid case with its error, or a valid one with `expected` when `code` is None."""
    input_ = {"file": "files/" + name}
    if limits:
        input_["limits"] = limits
    result = {"id": id_, "comment": comment, "rules": rules, "flags": [], "input": input_}
    if code is None:
        result.update({"result": "valid", "expected": expected})
    else:
        result.update({"result": "invalid", "error": {"code": code, "section": "frames", "offset": offset}})
    return result


def main():
    cases = []

    # BUNDLE-5: an empty frame (a zero byte) holds no record. Frames offsets count uncompressed
    # bytes from the first frame: the empty frame starts right after the manifest frame.
    declared = counts(goals=1)
    first = manifest_frame(declared)
    write("empty-frame.glow", [first, b"\x00", *goal_frames(1), end_frame(declared)])
    cases.append(case("limits-001", "an empty frame (a zero byte) holds no record: malformed at once",
                      ["BUNDLE-5"], "empty-frame.glow", None, "malformed_frame", len(first)))

    # BUNDLE-25: three goals make 2 + 3 = 5 frames; with at most 4 the manifest (offset 0) fails.
    declared = counts(goals=3)
    write("three-goals.glow", [manifest_frame(declared), *goal_frames(3), end_frame(declared)])
    cases.append(case("limits-002", "the manifest declares more frames than the limit: refused before any record",
                      ["BUNDLE-25"], "three-goals.glow", {"maxFrames": 4}, "limit_exceeded", 0))
    cases.append(case("limits-003", "exactly at the frame limit is accepted", ["BUNDLE-25"], "three-goals.glow",
                      {"maxFrames": 5}, expected={"counts": {"profiles": 0, "goals": 3, "checkInBlocks": 0,
                                                             "checkIns": 0, "other": 0}}))

    # BUNDLE-25: a block of five check-ins with at most four in the bundle: the manifest fails.
    days = [DAY_2025_01_01 + d for d in (0, 1, 2, 4, 7)]
    declared = counts(goals=1, blocks=1, check_ins=5)
    goal = goal_frames(1)[0]
    first = manifest_frame(declared)
    block = frame(4, done_block(GOALS[0], days))
    write("five-check-ins.glow", [first, goal, block, end_frame(declared)])
    cases.append(case("limits-004", "the manifest declares more check-ins than the bundle limit",
                      ["BUNDLE-25"], "five-check-ins.glow", {"maxCheckIns": 4}, "limit_exceeded", 0))

    # WIRE-25 inside a frame (BUNDLE-18): the block's count field fails at its own offset. The
    # block frame starts after the manifest and goal frames; then its length varint (1 byte), the
    # BundleFrame tag (1 byte) and the block's length varint (1 byte); inside the block the count
    # follows the 18 bytes of the goal id field.
    block_start = len(first) + len(goal)
    assert len(block) < 128 + 2
    cases.append(case("limits-005", "a block with more check-ins than the per-block limit fails at its count",
                      ["WIRE-25", "BUNDLE-18", "BUNDLE-25"], "five-check-ins.glow", {"maxCheckInsPerBlock": 4},
                      "limit_exceeded", block_start + 1 + 1 + 1 + 18))

    # BUNDLE-9: the manifest declares one goal, the bundle holds three: the second goal's frame
    # is refused when it is read, not at the end.
    declared = counts(goals=1)
    first = manifest_frame(declared)
    frames = goal_frames(3)
    write("lying-manifest.glow", [first, *frames, end_frame(declared)])
    cases.append(case("limits-006", "a record beyond the manifest's count is refused at its frame",
                      ["BUNDLE-9"], "lying-manifest.glow", None, "malformed_frame", len(first) + len(frames[0])))

    # BUNDLE-25: two records of an unknown type (field 9 of BundleFrame) with at most one.
    declared = counts(other=2)
    unknown = [frame(9, b"\x08\x01"), frame(9, b"\x08\x02")]
    write("two-unknown.glow", [manifest_frame(declared), *unknown, end_frame(declared)])
    cases.append(case("limits-007", "more records of unknown types than the limit: refused at the manifest",
                      ["BUNDLE-25"], "two-unknown.glow", {"maxUnknownRecords": 1}, "limit_exceeded", 0))

    # BUNDLE-28: three records of an unknown type, each a BundleFrame of 42 bytes (field 9's tag,
    # its length 40, then 40 bytes), 126 bytes together. With at most 100 the third frame takes
    # the sum past the limit (84 + 42): refused at its offset, the manifest's and two 43-byte
    # frames (length varint and message) after the start. With at most 126 all three are kept.
    declared = counts(other=3)
    first = manifest_frame(declared)
    unknown = [frame(9, bytes([0x0A, 38]) + bytes([0x41 + n]) * 38) for n in range(3)]
    assert all(len(f) == 1 + 42 for f in unknown)
    write("three-unknown-42.glow", [first, *unknown, end_frame(declared)])
    cases.append(case("limits-008", "unknown records past the byte limit: refused at the frame that passes it",
                      ["BUNDLE-28"], "three-unknown-42.glow", {"maxUnknownBytes": 100}, "limit_exceeded",
                      len(first) + 2 * 43))
    cases.append(case("limits-009", "unknown records exactly at the byte limit are kept", ["BUNDLE-28"],
                      "three-unknown-42.glow", {"maxUnknownBytes": 126},
                      expected={"counts": {"profiles": 0, "goals": 0, "checkInBlocks": 0, "checkIns": 0, "other": 3}}))

    document = {"area": "bundle", "operation": "bundle.read",
                "description": "Limits on records, not only bytes: frames, check-ins, unknown records, empty frames.",
                "cases": cases}
    with open("Spec/corpus/bundle/limits.json", "w") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
