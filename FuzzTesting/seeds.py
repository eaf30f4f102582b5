#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target from Spec/corpus and Spec/examples into
FuzzTesting/.corpus/<target>/ (generated, not committed). Run from the repository root or from
FuzzTesting/:

    python3 FuzzTesting/seeds.py
"""
import glob
import hashlib
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPEC = os.path.join(ROOT, "Spec")
# The records harness picks its decoder with the first byte (GlowFuzzing/Harness.swift).
RECORDS = {"Goal": 0, "Profile": 1, "CheckIn": 2, "CheckInBlock": 3, "GoalDraft": 4, "GoalTemplate": 5,
           "Interest": 6, "DayBoundary": 7}


def write(target, data):
    folder = os.path.join(HERE, ".corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as out:
        out.write(data)


def cases(area):
    for path in sorted(glob.glob(os.path.join(SPEC, "corpus", area, "*.json"))):
        document = json.load(open(path))
        for case in document["cases"]:
            yield document["operation"], case


def main():
    for operation, case in cases("wire"):
        data = bytes.fromhex(case["input"].get("hex", "")) if "hex" in case["input"] else b""
        if operation == "wire.decode" and case["input"]["message"] in RECORDS:
            write("records", bytes([RECORDS[case["input"]["message"]]]) + data)
            write("hostile-block", data)
        write("raw", data)
    for path in glob.glob(os.path.join(SPEC, "corpus", "bundle", "files", "*.glow")):
        write("bundle", open(path, "rb").read())
    write("bundle", open(os.path.join(SPEC, "examples", "sample.glow"), "rb").read())
    # glow-server's handler (GlowFuzzing/ServiceHarness.swift): method, call and headers in the
    # first three bytes, then the body; every call, signed in and with a token of the body's bytes.
    for call in range(20):
        for method, headers in ((0, 0), (0, 6), (1, 5), (3, 0)):
            write("service", bytes([method, call, headers]) + b"\x0a\x05hello\x12\x00")
    # Hostile pulls (GlowFuzzing/SyncHarness.swift): two bytes a step, a step's first byte mod 6
    # picks it (0 a record as written, 1 a bit flipped, 2 cut short, 3 input bytes, 4 `more`, 5 a
    # head); a whole log in order, swapped, repeated and cut.
    for steps in ([0, 0, 0, 1, 0, 2, 0, 3, 0, 4], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 2, 40], [4, 0, 0, 0]):
        write("sync", bytes(steps))
    # Encrypted bundles (BUNDLE-29 ...): every sealed file of the corpus, good and tampered.
    for path in glob.glob(os.path.join(SPEC, "corpus", "bundle", "files", "sealed-*.glow")):
        write("envelope", open(path, "rb").read())
    for operation, case in cases("bundle"):
        for data_set in case["input"].get("sets", []) + [case["input"].get("destination")]:
            if data_set:
                write("dataset-json", json.dumps(data_set).encode())
    for operation, case in cases("model"):
        if operation == "json.decode":
            write("dataset-json", json.dumps({"goals": [], "checkIns": []}).encode())
    for operation, case in cases("themes"):
        for key in ("text", "foreground", "background", "color"):
            if isinstance(case["input"].get(key), str):
                write("color", case["input"][key].encode())
    # The auth harness picks its reader with the first byte (GlowFuzzing/AuthHarness.swift).
    for operation, case in cases("auth"):
        data = case["input"]
        if operation == "auth.verifyIdToken":
            write("auth", b"\x00" + data["token"].encode())
            if "keySet" in data:
                write("auth", b"\x01" + json.dumps(data["keySet"]).encode())
        elif operation == "auth.parseHash":
            write("auth", b"\x02" + data["hash"].encode())
        elif operation == "auth.checkPassword" and "password" in data:
            write("auth", b"\x03" + data["password"].encode())
    # The feed harness picks its decoder with the first byte (GlowFuzzing/FeedHarness.swift):
    # 0 FeedDelta, 1 RelayRequest, 2 RelayResponse, 3 FeedSocial, 4 a request to a relay.
    for operation, case in cases("feed"):
        for step, answer in zip(case["input"].get("steps", []), case.get("expected", {}).get("steps", [])):
            if step.get("do") == "decode":
                write("feed", b"\x00" + bytes.fromhex(step["hex"]))
            elif step.get("do") == "request":
                write("feed", b"\x01" + bytes.fromhex(step["hex"]))
                write("feed", b"\x04" + bytes.fromhex(step["hex"]))
                if "hex" in answer:
                    write("feed", b"\x02" + bytes.fromhex(answer["hex"]))
            elif step.get("do") == "encode" and "hex" in answer:
                write("feed", b"\x00" + bytes.fromhex(answer["hex"]))
    # The crypto harness picks its primitive with the first byte (GlowFuzzing/CryptoHarness.swift):
    # 0 digest and HMAC, 1 seal, 2 open a changed seal, 3 Argon2id; lengths around the blocks.
    for length in (0, 1, 15, 16, 17, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 300):
        body = bytes((i * 7 + length) % 256 for i in range(length + 64))
        for selector in range(4):
            write("crypto", bytes([selector]) + body)
    for operation, case in list(cases("streaks"))[:40]:
        body = json.dumps({"id": "streaks/" + case["id"], "area": "streaks", "operation": operation,
                           "input": case["input"]}).encode()
        write("framing", struct.pack("<I", len(body)) + body)


if __name__ == "__main__":
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        print("\nUsage: python3 FuzzTesting/seeds.py  (no arguments)")
        sys.exit(0)
    if sys.argv[1:]:
        sys.stderr.write("error: seeds.py takes no arguments (got %r); -h for help\n" % sys.argv[1:])
        sys.exit(64)
    main()
