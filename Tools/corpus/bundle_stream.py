#!/usr/bin/env python3
"""Writes Spec/corpus/bundle/import_stream.json: bundles imported as streams of chunks, with
progress, cancellation and a failing source (BUNDLE-26).

The expected values follow from the rule and the files alone: one progress report per chunk, so
ceil(size / chunkSize) of them; the last reports the whole file, and the records and check-ins that
`bundle/read.json` counts for the same file (a profile, two goals, one block of five check-ins:
four records); a cancel on the n-th report, or a source that fails after n chunks, stops at
n × chunkSize bytes in section `stream`. Nothing here runs the SDK. Run from the repository root:

    python3 Tools/corpus/bundle_stream.py
"""
import json
import os
from corpus_file import command_line

command_line(__doc__)

READ = json.load(open("Spec/corpus/bundle/read.json"))
EMPTY = {"goals": [], "checkIns": []}


def size(name):
    return os.path.getsize(os.path.join("Spec/corpus/bundle", name))


def imported(name):
    """The data `bundle/read.json` expects the file to hold: what importing it into an empty device
    gives (BUNDLE-20)."""
    for case in READ["cases"]:
        if case["input"].get("file") == name and case["result"] == "valid" and "limits" not in case["input"]:
            return case["expected"]["data"]
    raise SystemExit("read.json has no reading of %s" % name)


def error_of(name):
    for case in READ["cases"]:
        if case["input"].get("file") == name and "limits" not in case["input"]:
            return case["error"]
    raise SystemExit("read.json has no case of %s" % name)


def case(id, comment, name, chunk, expected=None, error=None, **extra):
    value = {"id": id, "comment": comment, "rules": ["BUNDLE-26", "BUNDLE-19"], "flags": [],
             "input": dict({"destination": EMPTY, "file": name, "chunkSize": chunk}, **extra)}
    if error:
        value.update(result="invalid", error=error)
    else:
        value.update(result="valid", expected=expected)
    return value


def whole(name, chunk):
    total = size(name)
    return {"reports": -(-total // chunk),
            "progress": {"bytesRead": total, "totalBytes": total, "records": 4, "checkIns": 5},
            "data": imported(name)}


LEVEL6 = "files/level-6.glow"
LEVEL0 = "files/level-0.glow"
CASES = [
    case("stream-001", "64-byte chunks: a report per chunk, the last one the whole file and every record",
         LEVEL6, 64, whole(LEVEL6, 64)),
    case("stream-002", "one byte at a time reads the same data", LEVEL6, 1, whole(LEVEL6, 1)),
    case("stream-003", "a stored (level 0) bundle in chunks larger than the file: one report", LEVEL0, 65536,
         whole(LEVEL0, 65536)),
    case("stream-004", "the caller cancels on the second report: nothing is imported", LEVEL6, 64,
         error={"code": "cancelled", "section": "stream", "offset": 128}, cancelAfter=2),
    case("stream-005", "the source fails after three chunks: nothing is imported", LEVEL6, 64,
         error={"code": "read_failed", "section": "stream", "offset": 192}, failAfter=3),
    case("stream-006", "a bundle cut short fails as it does in one piece", "files/cut-in-stream.glow", 50,
         error=error_of("files/cut-in-stream.glow")),
]
if size(LEVEL6) <= 192:
    raise SystemExit("the cancellation cases need a file longer than three chunks")

with open("Spec/corpus/bundle/import_stream.json", "w", encoding="utf-8") as file:
    json.dump({"area": "bundle", "operation": "bundle.importStream",
               "description": "Imports read chunk by chunk, with progress, cancellation and a failing source.",
               "cases": CASES}, file, indent=1, ensure_ascii=False)
    file.write("\n")
