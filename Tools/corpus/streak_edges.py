#!/usr/bin/env python3
"""Writes Spec/corpus/streaks/edges.json: the streak rules at their edges (issues 11 and 13).

Every expected value below is worked out by hand from Spec/streaks.md, with the reasoning beside
it; nothing here runs the SDK. Run it from the repository root after changing a case:

    python3 Tools/corpus/streak_edges.py
"""
import json
from corpus_file import command_line

command_line(__doc__)

PROFILE = {"timeZone": "Europe/London", "dayStartMinutes": 0, "weekStart": "monday"}
NO_CONSISTENCY = {"last7": None, "last30": None, "last365": None, "sinceStart": None}
A, B, X = ("01938a6e-7c00-7abc-8def-00000000000" + c for c in "abf")
ITEMS = [{"id": A, "title": "a"}, {"id": B, "title": "b"}]

# Day numbers: 0001-01-01 is day -719162 and 9999-12-31 is day 2932896 (MODEL-2), so the supported
# range holds 2932896 - (-719162) + 1 = 3,652,059 Days; 9999 years of 12 months are 119,988 months.
ALL_DAYS = 3_652_059
ALL_MONTHS = 9999 * 12
INT64_MAX = 2**63 - 1


def case(id_, comment, rules, goal, check_ins, today, range_, expected):
    # Cases that span the supported years are flagged "Extreme": an implementation that visits
    # every Day takes seconds on them (the spec asks for work that follows the entries).
    flags = ["Extreme"] if "0001-01-01" in json.dumps(goal) else []
    return {"id": id_, "comment": comment, "rules": rules, "flags": flags,
            "input": {"profile": PROFILE, "today": today, "goal": goal, "checkIns": check_ins,
                      "range": {"from": range_[0], "to": range_[1]}},
            "result": "valid", "expected": expected}


def consistency(last7, last30, last365, since):
    return {"last7": last7, "last30": last30, "last365": last365, "sinceStart": since}


def c(done, due):
    return {"done": done, "due": due}


CASES = [
    # STREAK-10, STREAK-18: every Day from 0001-01-01 to 9999-12-30 is due and missed; today
    # (9999-12-31) is pending and not judged. Judged: ALL_DAYS - 1; the last 7 Days hold 6 judged.
    case("edges-001", "a daily goal started in year 1, asked about 9999-12-31: every past Day is missed, counted without visiting each",
         ["STREAK-10", "STREAK-18"],
         {"kind": {"type": "streak"}, "schedule": {"type": "daily"}, "startDay": "0001-01-01"}, [],
         "9999-12-31", ("9999-12-29", "9999-12-31"),
         {"today": "9999-12-31", "current": None, "longest": None, "milestones": [],
          "consistency": consistency(c(0, 6), c(0, 29), c(0, 364), c(0, ALL_DAYS - 1)),
          "completion": None, "onToday": True, "statuses": ["missed", "missed", "pending"]}),
    # STREAK-17: 3 of each week's 7 missed Days are forgiven, the rest break; forgiven Days are
    # still judged (STREAK-18). 9999-12-31 is a Friday (day 2932896: (2932896 + 3) mod 7 = 4,
    # Monday = 0), so its week began Monday 9999-12-27: Mon, Tue, Wed are forgiven, Thu missed.
    case("edges-002", "forgiveness over a gap of millennia: each week forgives its allowance, the rest still break",
         ["STREAK-17", "STREAK-18"],
         {"kind": {"type": "streak"}, "schedule": {"type": "daily"}, "startDay": "0001-01-01",
          "forgiveness": {"allowance": 3, "period": "week"}}, [],
         "9999-12-31", ("9999-12-27", "9999-12-31"),
         {"today": "9999-12-31", "current": None, "longest": None, "milestones": [],
          "consistency": consistency(c(0, 6), c(0, 29), c(0, 364), c(0, ALL_DAYS - 1)),
          "completion": None, "onToday": True,
          "statuses": ["forgiven", "forgiven", "forgiven", "missed", "pending"]}),
    # STREAK-12: once a month from year 1; every closed month is missed (ALL_MONTHS - 1 of them),
    # December 9999 is met today. A met period is judged on the Day its target was reached, a
    # missed one on its last Day: the last 365 Days (9999-01-01 ... 12-31) hold January ...
    # November missed and December met.
    case("edges-003", "once a month since year 1, met on 9999-12-31: 119,987 missed months counted, one met",
         ["STREAK-12", "STREAK-18"],
         {"kind": {"type": "streak"}, "schedule": {"type": "timesPerMonth", "times": 1}, "startDay": "0001-01-01"},
         [{"day": "9999-12-31", "log": {"type": "done"}}],
         "9999-12-31", ("9999-12-30", "9999-12-31"),
         {"today": "9999-12-31", "current": {"length": 1, "start": "9999-12-31", "end": "9999-12-31"},
          "longest": {"length": 1, "start": "9999-12-31", "end": "9999-12-31"}, "milestones": [],
          "consistency": consistency(c(1, 1), c(1, 1), c(1, 12), c(1, ALL_MONTHS)),
          "completion": None, "onToday": True, "statuses": ["notDue", "done"]}),
    # STREAK-6 and STREAK-13: ten contributions of the largest amount toward a target of 0.001.
    # The exact sum (9,999,999,999,999,990 thousandths) passes 2^63 - 1, so the progress saturates
    # at 2^63 - 1 and the fraction 1000 x (2^63 - 1) / 1 saturates at 2^63 - 1 too.
    case("edges-004", "ten of the largest amounts on a progress goal: the sum and the fraction saturate, nothing overflows",
         ["STREAK-6", "STREAK-13"],
         {"kind": {"type": "progress", "target": "0.001", "unit": "g"}, "startDay": "2025-01-01"},
         [{"day": "2025-01-%02d" % d, "log": {"type": "amount", "amount": "999999999999.999"}} for d in range(1, 11)],
         "2025-01-10", ("2025-01-01", "2025-01-02"),
         {"today": "2025-01-10", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": True, "doneOn": "2025-01-01", "thousandths": INT64_MAX, "daysLeft": None},
          "onToday": False, "statuses": ["done", "notDue"]}),
    # STREAK-6: floor(1000 x 1 / 10,000,000,000) = 0, but a positive amount is at least 1.
    case("edges-005", "a tiny share of a large target is at least 1 thousandth, in the status and the completion",
         ["STREAK-6", "STREAK-13"],
         {"kind": {"type": "progress", "target": "10000000", "unit": "m"}, "startDay": "2025-01-01"},
         [{"day": "2025-01-02", "log": {"type": "amount", "amount": "0.001"}}],
         "2025-01-03", ("2025-01-01", "2025-01-04"),
         {"today": "2025-01-03", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": False, "doneOn": None, "thousandths": 1, "daysLeft": None},
          "onToday": True, "statuses": ["notDue", "partial:1", "pending", "upcoming"]}),
    # STREAK-13: only Days with an entry have a status of their own; the Days between entries stay
    # notDue although progress stands; today is pending while not complete and not partial.
    case("edges-006", "a one-off goal Day by Day: Days without an entry are notDue, today pending",
         ["STREAK-13"],
         {"kind": {"type": "progress", "target": "10", "unit": "km"}, "startDay": "2025-03-01"},
         [{"day": "2025-03-02", "log": {"type": "amount", "amount": "3"}},
          {"day": "2025-03-04", "log": {"type": "amount", "amount": "4"}}],
         "2025-03-06", ("2025-03-01", "2025-03-07"),
         {"today": "2025-03-06", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": False, "doneOn": None, "thousandths": 700, "daysLeft": None},
          "onToday": True,
          "statuses": ["notDue", "partial:300", "notDue", "partial:700", "notDue", "pending", "upcoming"]}),
    # STREAK-13: a negative correction on today leaves progress 0: today has an entry but no
    # positive progress, so it is not partial, and pending.
    case("edges-007", "an entry that leaves no progress is not partial: today stays pending",
         ["STREAK-13"],
         {"kind": {"type": "progress", "target": "10", "unit": "km"}, "startDay": "2025-03-01"},
         [{"day": "2025-03-02", "log": {"type": "amount", "amount": "3"}},
          {"day": "2025-03-03", "log": {"type": "amount", "amount": "-3"}}],
         "2025-03-03", ("2025-03-02", "2025-03-03"),
         {"today": "2025-03-03", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": False, "doneOn": None, "thousandths": 0, "daysLeft": None},
          "onToday": True, "statuses": ["partial:300", "pending"]}),
    # STREAK-13: completion reached on 03-02 (12 >= 10), undone on 03-03 (12 - 5 = 7), reached
    # again on 03-05 (7 + 4 = 11): done on 03-05; 03-02's progress 12 shows as partial:999.
    case("edges-008", "completion undone by a correction and reached again: done on the later Day",
         ["STREAK-13"],
         {"kind": {"type": "progress", "target": "10", "unit": "km"}, "startDay": "2025-03-01"},
         [{"day": "2025-03-02", "log": {"type": "amount", "amount": "12"}},
          {"day": "2025-03-03", "log": {"type": "amount", "amount": "-5"}},
          {"day": "2025-03-05", "log": {"type": "amount", "amount": "4"}}],
         "2025-03-06", ("2025-03-01", "2025-03-06"),
         {"today": "2025-03-06", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": True, "doneOn": "2025-03-05", "thousandths": 1100, "daysLeft": None},
          "onToday": False,
          "statuses": ["notDue", "partial:999", "partial:700", "notDue", "done", "notDue"]}),
    # STREAK-13: after its target Day a countdown's elapsed share stays at 1000 (clamped).
    case("edges-009", "a countdown after its target Day: the elapsed share is clamped at 1000, Days left negative",
         ["STREAK-13"],
         {"kind": {"type": "countdown", "targetDay": "2025-01-11"}, "startDay": "2025-01-01"}, [],
         "2025-01-20", ("2025-01-10", "2025-01-12"),
         {"today": "2025-01-20", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": True, "doneOn": "2025-01-11", "thousandths": 1000, "daysLeft": -9},
          "onToday": False, "statuses": ["notDue", "done", "notDue"]}),
    # STREAK-13: before its start Day the elapsed share is clamped at 0; nothing is pending yet.
    case("edges-010", "a countdown asked about before its start Day: the elapsed share is 0",
         ["STREAK-13"],
         {"kind": {"type": "countdown", "targetDay": "2025-01-11"}, "startDay": "2025-01-05"}, [],
         "2025-01-01", ("2025-01-01", "2025-01-05"),
         {"today": "2025-01-01", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": False, "doneOn": None, "thousandths": 0, "daysLeft": 10},
          "onToday": False, "statuses": ["notDue", "notDue", "notDue", "notDue", "notDue"]}),
    # STREAK-5: an item removed from the checklist is ignored; the current items a and b are both
    # checked on 06-02 (done) and only the removed x on 06-03 (none: missed).
    case("edges-011", "a removed checklist item is ignored: the current items decide the Day",
         ["STREAK-5", "STREAK-8"],
         {"kind": {"type": "subgoals", "items": ITEMS, "recurring": True}, "schedule": {"type": "daily"},
          "startDay": "2025-06-02"},
         [{"day": "2025-06-02", "log": {"type": "items", "items": [A, B, X]}},
          {"day": "2025-06-03", "log": {"type": "items", "items": [X]}},
          {"day": "2025-06-04", "log": {"type": "items", "items": [A, X]}}],
         "2025-06-05", ("2025-06-02", "2025-06-05"),
         {"today": "2025-06-05", "current": None,
          "longest": {"length": 1, "start": "2025-06-02", "end": "2025-06-02"}, "milestones": [],
          "consistency": consistency(c(1, 3), c(1, 3), c(1, 3), c(1, 3)),
          "completion": None, "onToday": True, "statuses": ["done", "missed", "partial:500", "pending"]}),
    # STREAK-13 with STREAK-5: a one-off checklist counts the union of current items only.
    case("edges-012", "a one-off checklist completes with its current items; a removed one adds nothing",
         ["STREAK-5", "STREAK-13"],
         {"kind": {"type": "subgoals", "items": ITEMS, "recurring": False}, "startDay": "2025-06-02"},
         [{"day": "2025-06-02", "log": {"type": "items", "items": [X]}},
          {"day": "2025-06-03", "log": {"type": "items", "items": [A, X]}},
          {"day": "2025-06-04", "log": {"type": "items", "items": [B]}}],
         "2025-06-05", ("2025-06-02", "2025-06-05"),
         {"today": "2025-06-05", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": True, "doneOn": "2025-06-04", "thousandths": 1000, "daysLeft": None},
          "onToday": False, "statuses": ["notDue", "partial:500", "done", "notDue"]}),
    # STREAK-8: a log of a type that does not fit the kind (a tally on a streak goal) is none.
    case("edges-013", "a log that does not fit the kind counts as no entry",
         ["STREAK-8"],
         {"kind": {"type": "streak"}, "schedule": {"type": "daily"}, "startDay": "2025-06-02"},
         [{"day": "2025-06-02", "log": {"type": "done"}}, {"day": "2025-06-03", "log": {"type": "tally", "count": 3}}],
         "2025-06-04", ("2025-06-02", "2025-06-04"),
         {"today": "2025-06-04", "current": None,
          "longest": {"length": 1, "start": "2025-06-02", "end": "2025-06-02"}, "milestones": [],
          "consistency": consistency(c(1, 2), c(1, 2), c(1, 2), c(1, 2)),
          "completion": None, "onToday": True, "statuses": ["done", "missed", "pending"]}),
    # STREAK-13 with STREAK-8: a one-off goal's Day whose only entry does not fit (a tally on a
    # progress goal) is as a Day without an entry: notDue, although earlier progress stands.
    case("edges-014", "a one-off Day whose entry does not fit has no status of its own",
         ["STREAK-8", "STREAK-13"],
         {"kind": {"type": "progress", "target": "10", "unit": "km"}, "startDay": "2025-03-01"},
         [{"day": "2025-03-02", "log": {"type": "amount", "amount": "4"}},
          {"day": "2025-03-03", "log": {"type": "tally", "count": 3}}],
         "2025-03-04", ("2025-03-02", "2025-03-04"),
         {"today": "2025-03-04", "current": None, "longest": None, "milestones": [],
          "consistency": NO_CONSISTENCY,
          "completion": {"done": False, "doneOn": None, "thousandths": 400, "daysLeft": None},
          "onToday": True, "statuses": ["partial:400", "notDue", "pending"]}),
]


def main():
    document = {"area": "streaks", "operation": "streaks.evaluate",
                "description": "The rules at their edges: the supported years end to end, saturating sums, one-off statuses Day by Day, removed checklist items.",
                "cases": CASES}
    with open("Spec/corpus/streaks/edges.json", "w") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
