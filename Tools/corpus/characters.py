#!/usr/bin/env python3
"""Writes Spec/corpus/model/characters.json: lengths counted in extended grapheme clusters
(MODEL-50) at each limit, with emoji ZWJ sequences, flags, skin tones, combining marks and CJK;
trimming by the White_Space property; one emoji.

Every expected value follows from the character counts written beside each case; nothing here
runs the SDK. Run from the repository root:

    python3 Tools/corpus/characters.py
"""
import json
from corpus_file import command_line

command_line(__doc__)

TODAY = "2025-06-10"
KIND = {"type": "tally", "dailyTarget": 8, "unit": "glasses"}

# One character (extended grapheme cluster) each, however many code points and UTF-16 units.
FAMILY = "\U0001F469\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466"  # ZWJ sequence: 7 code points, 11 UTF-16 units
FLAG = "\U0001F1F5\U0001F1F9"  # Portugal: two regional indicators
THUMB = "\U0001F44D\U0001F3FD"  # thumbs up with a medium skin tone
ACCENTED = "e\u0301"  # e with a combining acute accent
STACKED = "a\u0301\u0302\u0323"  # a with three combining marks
CJK = "\u7FD2"  # 習 (practice)
HANGUL = "\u1112\u1161\u11AB"  # 한 as three conjoining jamo


def draft(title, **extra):
    value = {"title": title, "kind": dict(KIND), "schedule": {"type": "daily"}}
    value.update(extra)
    return value


def valid(id_, comment, rules, title, expected_title=None, **extra):
    return {"id": id_, "comment": comment, "rules": rules, "flags": [],
            "input": {"today": TODAY, "draft": draft(title, **extra)}, "result": "valid",
            "expected": {"startDay": TODAY, "title": expected_title if expected_title is not None else title}}


def invalid(id_, comment, rules, title, field, code, **extra):
    return {"id": id_, "comment": comment, "rules": rules, "flags": [],
            "input": {"today": TODAY, "draft": draft(title, **extra)}, "result": "invalid",
            "error": {"code": "draft_invalid", "path": field, "issues": [{"field": field, "code": code}]}}


def main():
    cases = []
    number = 0

    def next_id():
        nonlocal number
        number += 1
        return "characters-%03d" % number

    # Titles: 1...80 characters (MODEL-19, MODEL-45). 80 of each is valid, 81 is too long.
    for name, character in [("emoji ZWJ sequences", FAMILY), ("flags", FLAG), ("emoji with skin tones", THUMB),
                            ("letters with a combining mark", ACCENTED), ("letters with three combining marks", STACKED),
                            ("CJK ideographs", CJK), ("Hangul syllables of conjoining jamo", HANGUL)]:
        cases.append(valid(next_id(), "a title of 80 %s is 80 characters" % name, ["MODEL-50", "MODEL-45"],
                           character * 80))
        cases.append(invalid(next_id(), "a title of 81 %s is too long" % name, ["MODEL-50", "MODEL-45"],
                             character * 81, "title", "title_too_long"))
    # Notes: up to 500 characters; 500 flags are 1,000 code points and 2,000 UTF-16 units.
    cases.append(valid(next_id(), "a note of 500 flags is 500 characters", ["MODEL-50", "MODEL-19"], "Read",
                       note=FLAG * 500))
    cases.append(invalid(next_id(), "a note of 501 family emoji is too long", ["MODEL-50", "MODEL-19"], "Read",
                         "note", "note_too_long", note=FAMILY * 501))
    # Units: up to 24 characters.
    unit_kind = {"type": "tally", "dailyTarget": 8, "unit": CJK * 24}
    cases.append({"id": next_id(), "comment": "a unit of 24 CJK ideographs is 24 characters", "rules": ["MODEL-50"],
                  "flags": [], "input": {"today": TODAY, "draft": {"title": "Read", "kind": unit_kind,
                                                                    "schedule": {"type": "daily"}}},
                  "result": "valid", "expected": {"startDay": TODAY, "title": "Read"}})
    long_unit = {"type": "tally", "dailyTarget": 8, "unit": ACCENTED * 25}
    cases.append({"id": next_id(), "comment": "a unit of 25 accented letters is too long", "rules": ["MODEL-50"],
                  "flags": [], "input": {"today": TODAY, "draft": {"title": "Read", "kind": long_unit,
                                                                    "schedule": {"type": "daily"}}},
                  "result": "invalid", "error": {"code": "draft_invalid", "path": "kind.unit",
                                                 "issues": [{"field": "kind.unit", "code": "unit_too_long"}]}})
    # Trimming removes characters with the White_Space property at either end: U+3000 and U+0085
    # are white space; U+200B (zero width space) is not, so it stays and counts.
    cases.append(valid(next_id(), "ideographic and next-line spaces are trimmed", ["MODEL-50", "MODEL-19"],
                       "\u3000\u0085Read\u3000", expected_title="Read"))
    cases.append(valid(next_id(), "a zero width space is not white space and is kept", ["MODEL-50", "MODEL-19"],
                       "\u200BRead", expected_title="\u200BRead"))
    cases.append(invalid(next_id(), "a title of only white space is empty", ["MODEL-50", "MODEL-45"],
                         "\u3000\u2003\t", "title", "title_empty"))
    # One emoji (MODEL-21): exactly one character that presents as emoji.
    for emoji, comment in [(FAMILY, "a ZWJ family is one emoji"), (FLAG, "a flag is one emoji"),
                           (THUMB, "a thumb with a skin tone is one emoji"),
                           ("\u2764\uFE0F", "a heart with the emoji variation selector is one emoji")]:
        cases.append(valid(next_id(), comment, ["MODEL-50", "MODEL-19"], "Read", emoji=emoji))
    for emoji, comment in [(FLAG + FLAG, "two flags are two characters"), ("\u2764", "a heart without the variation selector presents as text"),
                           ("A", "a letter is not an emoji")]:
        cases.append(invalid(next_id(), comment, ["MODEL-50", "MODEL-19"], "Read", "emoji", "emoji_invalid",
                             emoji=emoji))
    # MODEL-63: a character holds at most 32 code points. A letter with 31 combining marks is 32
    # code points, one character; with 32 marks it is 33, and its text is too long, whatever its
    # length in characters; so is a letter with 9,999 marks (Zalgo text).
    marks31 = "e" + "\u0301" * 31
    marks32 = "e" + "\u0301" * 32
    cases.append(valid(next_id(), "a letter with 31 combining marks (32 code points) is one character",
                       ["MODEL-63", "MODEL-50"], "Read " + marks31))
    cases.append(invalid(next_id(), "a letter with 32 combining marks (33 code points) makes the title too long",
                         ["MODEL-63", "MODEL-45"], "Read " + marks32, "title", "title_too_long"))
    cases.append(invalid(next_id(), "a letter with 9,999 combining marks makes the title too long",
                         ["MODEL-63", "MODEL-45"], "Z" + "\u0336" * 9999, "title", "title_too_long"))
    cases.append(invalid(next_id(), "an over-marked letter in a note makes the note too long",
                         ["MODEL-63", "MODEL-19"], "Read", "note", "note_too_long", note="ok " + marks32))
    cases.append(invalid(next_id(), "an emoji heart with 31 combining marks (33 code points) is not one emoji", ["MODEL-63", "MODEL-19"],
                         "Read", "emoji", "emoji_invalid", emoji="\u2764\uFE0F" + "\u0301" * 31))
    with open("Spec/corpus/model/characters.json", "w") as out:
        json.dump({"area": "model", "operation": "draft.validate",
                   "description": "Lengths in extended grapheme clusters at each limit; trimming; one emoji.",
                   "cases": cases}, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
