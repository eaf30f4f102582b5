#!/usr/bin/env python3
"""Splits every wire error case that names an `offset` into a Required case that checks only the
error `code` and a Recommended twin (`<id>-offset`) that checks the offset too (WIRE-16): an
implementation on a stock protobuf runtime learns only that a message does not parse, not where.
Idempotent: a case with a twin already is left alone. Run from the repository root:

    python3 Tools/corpus/offset_twins.py
"""
import collections
import glob
import json
from corpus_file import command_line

command_line(__doc__)


def main():
    for path in sorted(glob.glob("Spec/corpus/wire/*.json")):
        document = json.load(open(path), object_pairs_hook=collections.OrderedDict)
        ids = {case["id"] for case in document["cases"]}
        cases = []
        for case in document["cases"]:
            error = case.get("error")
            if (case["result"] != "invalid" or "offset" not in error or "Recommended" in case["flags"]
                    or case["id"].endswith("-offset") or case["id"] + "-offset" in ids):
                cases.append(case)
                continue
            twin = json.loads(json.dumps(case), object_pairs_hook=collections.OrderedDict)
            twin["id"] = case["id"] + "-offset"
            twin["comment"] = case["comment"] + " (the offset)"
            twin["flags"] = case["flags"] + ["Recommended"]
            del case["error"]["offset"]
            cases += [case, twin]
        document["cases"] = cases
        with open(path, "w") as out:
            json.dump(document, out, indent=1, ensure_ascii=False)
            out.write("\n")


if __name__ == "__main__":
    main()
