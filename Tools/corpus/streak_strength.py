#!/usr/bin/env python3
"""Writes Spec/corpus/streaks/strength.json and strength_track.json: habit strength, STREAK-27 ...
STREAK-30 (issue 32), evaluated and kept current by a tracker.

Each case lists, beside its input, the strength units worked out by hand from Spec/streaks.md
(which Days are units, with what value, under which rule), with the reasoning in a comment. This
script then only does the arithmetic of STREAK-27 ... STREAK-29 on those units; it never runs the
SDK. The daily cases are also checked against Loop Habit Tracker's own formula in floating point
(STREAK-28: within 10^-6 on every Day before today). Run it from the repository root:

    python3 Tools/corpus/streak_strength.py
"""
import datetime
from math import isqrt
from corpus_file import command_line, write_cases

command_line(__doc__)

PROFILE = {"timeZone": "Europe/London", "dayStartMinutes": 0, "weekStart": "monday"}
ONE = 1 << 30
A, B, C = ("01938a6e-7c00-7abc-8def-00000000000" + c for c in "abc")


def day(text):
    return datetime.date.fromisoformat(text)


def days(first, last):
    """The ISO Days first ... last."""
    d, end = day(first), day(last)
    out = []
    while d <= end:
        out.append(d.isoformat())
        d += datetime.timedelta(days=1)
    return out


def multiplier(a, b=1):
    """STREAK-28, step by step, for the weight a / b."""
    e = isqrt((2**60 * a) // (169 * b))
    ladder = [2**29]
    for _ in range(30):
        ladder.append(isqrt(ladder[-1] * 2**30))
    m = ONE >> (e >> 30)
    for i in range(1, 31):
        if (e >> (30 - i)) & 1:
            m = m * ladder[i] >> 30
    return m


DAILY = multiplier(1)
assert DAILY == 1017990458 and isqrt((2**60) // 169) == 82595524 and isqrt(2**59) == 759250124


def reported(s):
    return s * 1000 >> 30


def strength(units, today, zeros_before=None):
    """STREAK-27 and STREAK-29 over hand-listed units: (Day, value in thousandths, M), in Day
    order. `zeros_before` = (count, M) puts that many zero-valued units before the listed ones (a
    gap of millennia; S stops changing once it reaches 0)."""
    s = 0
    history = []  # (Day, S before, S after, whether it is one unit that may be a move, its value)
    for index, (d, value, m) in enumerate(units):
        if index == 1 and zeros_before:
            # The run of zero units starts the Day after the first unit; S reaches 0 within its
            # first 345 Days (dated at its first Day here: no Day asked about lies in between),
            # so each of its units in the last 30 Days changed nothing and none is a move.
            count, zm = zeros_before
            before = s
            while count and s:
                s = s * zm >> 30
                count -= 1
            assert s == 0
            history.append(((day(units[0][0]) + datetime.timedelta(days=1)).isoformat(), before, s, False, 0))
        v = value * ONE // 1000
        after = (s * m + v * (ONE - m)) >> 30
        history.append((d, s, after, True, value))
        s = after

    def through(d):
        score = 0
        for unit_day, _, after, _, _ in history:
            if unit_day <= d:
                score = after
        return score

    t = day(today)
    week, month, window = ((t - datetime.timedelta(days=n)).isoformat() for n in (7, 30, 29))
    # STREAK-29: the moves are the lift (the greatest positive reported change) and then the drop
    # (the most negative), of equals the later Day; a unit whose reported change is 0 is neither.
    moved = [{"day": d, "change": after - before, "reported": reported(after) - reported(before), "value": value}
             for d, before, after, unit, value in history if unit and d >= window]
    lifts = [move for move in moved if move["reported"] > 0]
    drops = [move for move in moved if move["reported"] < 0]
    moves = []
    if lifts:
        moves.append(max(lifts, key=lambda move: (move["reported"], move["day"])))
    if drops:
        moves.append(min(drops, key=lambda move: (move["reported"], [-ord(ch) for ch in move["day"]])))
    now = reported(through(today))
    return {"score": through(today), "thousandths": now,
            "change7": now - reported(through(week)), "change30": now - reported(through(month)),
            "moves": moves}


def loop_check(values):
    """Loop Habit Tracker's score, in floating point, over daily values 0 or 1 (Score.kt:
    multiplier 0.5^(sqrt(1) / 13)); the spec's S / 2^30 must stay within 10^-6 of it Day by Day."""
    m = 0.5 ** (1 / 13)
    loop, s = 0.0, 0
    for value in values:
        loop = loop * m + value * (1 - m)
        s = (s * DAILY + value * ONE * (ONE - DAILY)) >> 30
        assert abs(s / ONE - loop) < 1e-6, (s / ONE, loop)


def case(comment, rules, goal, check_ins, today, expected, flags=()):
    return {"comment": comment, "rules": rules, "flags": list(flags),
            "input": {"profile": PROFILE, "today": today, "goal": goal, "checkIns": check_ins},
            "result": "valid", "expected": {"today": today, "strength": expected}}


def done(*ds):
    return [{"day": d, "log": {"type": "done"}} for d in ds]


def streak_goal(schedule, start, **more):
    goal = {"kind": {"type": "streak"}, "schedule": schedule, "startDay": start}
    goal.update(more)
    return goal


DAILY_RULE = {"type": "daily"}
CASES = []

# 1. Loop's own example shape: a daily yes/no goal, Days 06-02 ... 06-13 before today. Done on
# every Day but 06-05 and 06-08 (no entry: missed) and 06-12, 06-13 (missed); today 06-14 has no
# entry, so it waits (STREAK-11) and is no unit. Twelve units in Day order.
loop_days = days("2025-06-02", "2025-06-13")
loop_values = [0 if d in ("2025-06-05", "2025-06-08", "2025-06-12", "2025-06-13") else 1 for d in loop_days]
loop_check(loop_values)
CASES.append(case(
    "a daily yes/no goal is Loop's habit score: done Days pull up, missed Days pull down, today waits",
    ["STREAK-27", "STREAK-28", "STREAK-29"],
    streak_goal(DAILY_RULE, "2025-06-02"),
    done(*[d for d, v in zip(loop_days, loop_values) if v]), "2025-06-14",
    strength([(d, 1000 * v, DAILY) for d, v in zip(loop_days, loop_values)], "2025-06-14")))

# 2. Sixty Days done in a row, today included (a done today counts at once, STREAK-27): S after
# 60 units of 1000 is close to full; Loop's score agrees to 10^-6.
sixty = days("2025-04-02", "2025-05-31")
loop_check([1] * 60)
CASES.append(case(
    "sixty done Days in a row, the last one today: close to full strength, as Loop's score",
    ["STREAK-27", "STREAK-28", "STREAK-29"],
    streak_goal(DAILY_RULE, "2025-04-02"), done(*sixty), "2025-05-31",
    strength([(d, 1000, DAILY) for d in sixty], "2025-05-31")))

# 3. A skip and a forgiven Day leave the score where it was. Forgiveness 1 a week (Monday weeks):
# Mon 02 done, Tue 03 skip (no unit), Wed 04 no entry (the week's first break: forgiven, no unit),
# Thu 05 done, Fri 06 no entry (second break: missed, value 0), Sat 07 done, today Sun 08 done.
CASES.append(case(
    "skipped and forgiven Days are no units; the week's second miss pulls the score down",
    ["STREAK-27", "STREAK-17"],
    streak_goal(DAILY_RULE, "2025-06-02", forgiveness={"allowance": 1, "period": "week"}),
    done("2025-06-02", "2025-06-05", "2025-06-07", "2025-06-08")
    + [{"day": "2025-06-03", "log": {"type": "skip"}}], "2025-06-08",
    strength([("2025-06-02", 1000, DAILY), ("2025-06-05", 1000, DAILY), ("2025-06-06", 0, DAILY),
              ("2025-06-07", 1000, DAILY), ("2025-06-08", 1000, DAILY)], "2025-06-08")))

# 4. Partial progress in proportion: a tally of 8 a day. 06-02 8 (done, 1000); 06-03 5 of 8
# (partial before today: 625); 06-04 0 (no progress: missed, 0); today 06-05 at 3 of 8 is partly
# done today, which waits: no unit.
CASES.append(case(
    "a tally at 5 of 8 counts 5/8; a partly done today waits",
    ["STREAK-27", "STREAK-6"],
    {"kind": {"type": "tally", "dailyTarget": 8, "unit": "glasses"}, "schedule": DAILY_RULE,
     "startDay": "2025-06-02"},
    [{"day": d, "log": {"type": "tally", "count": n}} for d, n in
     (("2025-06-02", 8), ("2025-06-03", 5), ("2025-06-04", 0), ("2025-06-05", 3))], "2025-06-05",
    strength([("2025-06-02", 1000, DAILY), ("2025-06-03", 625, DAILY), ("2025-06-04", 0, DAILY)],
             "2025-06-05")))

# 5. At most 30 minutes: 06-02 20 (done), 06-03 45 (failed: value 0), 06-04 no entry (missed: 0),
# today 06-05 10 (done, counts).
CASES.append(case(
    "an at-most value: a failed Day and a Day without an entry both count 0",
    ["STREAK-27", "STREAK-7"],
    {"kind": {"type": "value", "unit": "min", "target": {"comparison": "atMost", "amount": "30"}},
     "schedule": DAILY_RULE, "startDay": "2025-06-02"},
    [{"day": d, "log": {"type": "value", "value": v}} for d, v in
     (("2025-06-02", "20"), ("2025-06-03", "45"), ("2025-06-05", "10"))], "2025-06-05",
    strength([("2025-06-02", 1000, DAILY), ("2025-06-03", 0, DAILY), ("2025-06-04", 0, DAILY),
              ("2025-06-05", 1000, DAILY)], "2025-06-05")))

# 6. At least 10: 06-02 2.5 (partial 250), 06-03 10 (done), today 06-04 without an entry waits.
CASES.append(case(
    "an at-least value below its target counts its fraction",
    ["STREAK-27", "STREAK-7"],
    {"kind": {"type": "value", "unit": "km", "target": {"comparison": "atLeast", "amount": "10"}},
     "schedule": DAILY_RULE, "startDay": "2025-06-02"},
    [{"day": d, "log": {"type": "value", "value": v}} for d, v in (("2025-06-02", "2.5"), ("2025-06-03", "10"))],
    "2025-06-04",
    strength([("2025-06-02", 250, DAILY), ("2025-06-03", 1000, DAILY)], "2025-06-04")))

# 7. A recurring checklist of three: 06-02 two of three (666), today 06-03 all three (done).
ITEMS = [{"id": A, "title": "a"}, {"id": B, "title": "b"}, {"id": C, "title": "c"}]
CASES.append(case(
    "a recurring checklist at 2 of 3 counts 666",
    ["STREAK-27", "STREAK-5"],
    {"kind": {"type": "subgoals", "items": ITEMS, "recurring": True}, "schedule": DAILY_RULE,
     "startDay": "2025-06-02"},
    [{"day": "2025-06-02", "log": {"type": "items", "items": [A, B]}},
     {"day": "2025-06-03", "log": {"type": "items", "items": [A, B, C]}}], "2025-06-03",
    strength([("2025-06-02", 666, DAILY), ("2025-06-03", 1000, DAILY)], "2025-06-03")))

# 8. Monday, Wednesday, Friday (weight 7/3): Mon 02 done, Wed 04 no entry (missed), Fri 06 done,
# Mon 09 done; today Tue 10 is not due. Other Days are not due: no units.
MWF = multiplier(7, 3)
CASES.append(case(
    "three weekdays: each due Day is a unit of weight 7/3",
    ["STREAK-27", "STREAK-28"],
    streak_goal({"type": "weekdays", "weekdays": ["monday", "wednesday", "friday"]}, "2025-06-02"),
    done("2025-06-02", "2025-06-06", "2025-06-09"), "2025-06-10",
    strength([("2025-06-02", 1000, MWF), ("2025-06-04", 0, MWF), ("2025-06-06", 1000, MWF),
              ("2025-06-09", 1000, MWF)], "2025-06-10")))

# 9. Every third Day from 06-02 (weight 3): due 02, 05, 08, 11; done 02 and 08; today 06-12.
EVERY3 = multiplier(3)
CASES.append(case(
    "every third Day: due Days only, weight 3",
    ["STREAK-27", "STREAK-28"],
    streak_goal({"type": "everyNDays", "interval": 3}, "2025-06-02"), done("2025-06-02", "2025-06-08"),
    "2025-06-12",
    strength([("2025-06-02", 1000, EVERY3), ("2025-06-05", 0, EVERY3), ("2025-06-08", 1000, EVERY3),
              ("2025-06-11", 0, EVERY3)], "2025-06-12")))

# 10. Three times a week (weight 21), Monday weeks. Week 1 (02-08): done Mon, Tue, Thu: met on Thu
# 05 (1000). Week 2 (09-15): done Mon 09, Wed 11 only: missed, 2000 / 3 = 666 on Sun 15. Week 3
# (16-22): done 16 and 19, skip 18: 2 + 1 reach 3, excused: no unit. Week 4, open: done 23, 24
# and today 25: met today (1000 on 25).
TPW3 = multiplier(21)
CASES.append(case(
    "three times a week: a met week counts 1000 when met, a missed week its share, an excused week nothing",
    ["STREAK-27", "STREAK-12", "STREAK-28"],
    streak_goal({"type": "timesPerWeek", "times": 3}, "2025-06-02"),
    done("2025-06-02", "2025-06-03", "2025-06-05", "2025-06-09", "2025-06-11", "2025-06-16", "2025-06-19",
         "2025-06-23", "2025-06-24", "2025-06-25") + [{"day": "2025-06-18", "log": {"type": "skip"}}],
    "2025-06-25",
    strength([("2025-06-05", 1000, TPW3), ("2025-06-15", 666, TPW3), ("2025-06-25", 1000, TPW3)], "2025-06-25")))

# 11. Twice a month, a tally of 2 a day (weight 60). May: 05-10 count 2 (done), 05-20 count 1
# (partly done, 500): 1 done of 2, missed; P = 1500, 1500 / 2 = 750 on 05-31. June (open): done
# 06-01 and today 06-14: met today.
TPM2 = multiplier(60)
CASES.append(case(
    "twice a month: a missed month counts its done and partly done Days over the target",
    ["STREAK-27", "STREAK-12"],
    {"kind": {"type": "tally", "dailyTarget": 2, "unit": "laps"}, "schedule": {"type": "timesPerMonth", "times": 2},
     "startDay": "2025-05-01"},
    [{"day": d, "log": {"type": "tally", "count": n}} for d, n in
     (("2025-05-10", 2), ("2025-05-20", 1), ("2025-06-01", 2), ("2025-06-14", 2))], "2025-06-14",
    strength([("2025-05-31", 750, TPM2), ("2025-06-14", 1000, TPM2)], "2025-06-14")))

# 12. Three times a week from Saturday 06-07: the first week has two Days in the life, target 2;
# done Sat 07 only: missed, 1000 / 2 = 500 on Sun 08. The open week 09-15 (today Tue 10, done Mon
# 09) is not met: no unit.
CASES.append(case(
    "a first week cut by the start Day has a smaller target; an open week not met is no unit",
    ["STREAK-27", "STREAK-12"],
    streak_goal({"type": "timesPerWeek", "times": 3}, "2025-06-07"), done("2025-06-07", "2025-06-09"),
    "2025-06-10",
    strength([("2025-06-08", 500, TPW3)], "2025-06-10")))

# 13. The life's edges: start 06-02, end 06-06, today 06-10. 06-01 (before the start) and 06-08
# (after the end) are ignored; 02, 03, 04 done; 05 no entry (missed); 06 done.
CASES.append(case(
    "Days before the start and after the end are no units",
    ["STREAK-27", "STREAK-1"],
    streak_goal(DAILY_RULE, "2025-06-02", endDay="2025-06-06"),
    done("2025-06-01", "2025-06-02", "2025-06-03", "2025-06-04", "2025-06-06", "2025-06-08"), "2025-06-10",
    strength([("2025-06-02", 1000, DAILY), ("2025-06-03", 1000, DAILY), ("2025-06-04", 1000, DAILY),
              ("2025-06-05", 0, DAILY), ("2025-06-06", 1000, DAILY)], "2025-06-10")))

# 14. Archived 06-04 until 06-07: 04, 05, 06 are not in the life, no units although nothing was
# done; done 02, 03, 07; today 06-08 without an entry waits.
CASES.append(case(
    "archived Days are no units",
    ["STREAK-27", "STREAK-1"],
    streak_goal(DAILY_RULE, "2025-06-02", archiveHistory=[{"from": "2025-06-04", "until": "2025-06-07"}]),
    done("2025-06-02", "2025-06-03", "2025-06-07"), "2025-06-08",
    strength([("2025-06-02", 1000, DAILY), ("2025-06-03", 1000, DAILY), ("2025-06-07", 1000, DAILY)],
             "2025-06-08")))

# 15. A schedule change: daily from 06-02, twice a week (weight 14) from Monday 06-09. Daily
# units 02, 03, 04 done, 05 missed, 06, 07, 08 done; the week of 09: done 09 and today 11, met on
# 11 under the second rule's multiplier.
TPW2 = multiplier(14)
CASES.append(case(
    "each unit takes the multiplier of the schedule entry in force on its Day",
    ["STREAK-27", "STREAK-28", "STREAK-4"],
    {"kind": {"type": "streak"}, "startDay": "2025-06-02",
     "schedule": [{"effective": "2025-06-02", "rule": DAILY_RULE},
                  {"effective": "2025-06-09", "rule": {"type": "timesPerWeek", "times": 2}}]},
    done("2025-06-02", "2025-06-03", "2025-06-04", "2025-06-06", "2025-06-07", "2025-06-08", "2025-06-09",
         "2025-06-11"), "2025-06-11",
    strength([("2025-06-02", 1000, DAILY), ("2025-06-03", 1000, DAILY), ("2025-06-04", 1000, DAILY),
              ("2025-06-05", 0, DAILY), ("2025-06-06", 1000, DAILY), ("2025-06-07", 1000, DAILY),
              ("2025-06-08", 1000, DAILY), ("2025-06-11", 1000, TPW2)], "2025-06-11")))

# 16. A month done, then nine Days missed: the 7-Day change and the 30-Day change are negative or
# positive as the Days fall; the moves are the Day of the last 30 that lifted the reported strength
# most (of equals the later) and the one that pulled it down most.
may = days("2025-05-01", "2025-05-31")
june = days("2025-06-01", "2025-06-09")
CASES.append(case(
    "a month done, then nine Days missed: the changes and the moves say why",
    ["STREAK-29"],
    streak_goal(DAILY_RULE, "2025-05-01"), done(*may), "2025-06-10",
    strength([(d, 1000, DAILY) for d in may] + [(d, 0, DAILY) for d in june], "2025-06-10")))

# 17. Every 366 Days (weight 366: the exponent passes 1, so M starts from 2^29): done 2024-01-01
# and 2025-01-01, 366 Days later; today 2025-01-02.
EVERY366 = multiplier(366)
CASES.append(case(
    "every 366 Days: a weight whose exponent passes 1",
    ["STREAK-28"],
    streak_goal({"type": "everyNDays", "interval": 366}, "2024-01-01"), done("2024-01-01", "2025-01-01"),
    "2025-01-02",
    strength([("2024-01-01", 1000, EVERY366), ("2025-01-01", 1000, EVERY366)], "2025-01-02")))

# 18. 31 times a month (weight 930, the greatest): May done every Day, met on 05-31; June has 30
# Days, target 30, nothing done: missed, 0 on 06-30; July is open: no unit. Today 2025-07-01.
TPM31 = multiplier(930)
CASES.append(case(
    "31 times a month: the greatest weight; June's target is its 30 Days",
    ["STREAK-28", "STREAK-12"],
    streak_goal({"type": "timesPerMonth", "times": 31}, "2025-05-01"), done(*may), "2025-07-01",
    strength([("2025-05-31", 1000, TPM31), ("2025-06-30", 0, TPM31)], "2025-07-01")))

# 19-23. No strength: one-off kinds, countdowns and deleted goals (STREAK-27).
for comment, goal, check_ins in (
    ("a single goal has no strength", {"kind": {"type": "single"}, "startDay": "2025-06-02"}, done("2025-06-02")),
    ("a progress goal has no strength",
     {"kind": {"type": "progress", "target": "10", "unit": "km"}, "startDay": "2025-06-02"},
     [{"day": "2025-06-02", "log": {"type": "amount", "amount": "3"}}]),
    ("a countdown has no strength", {"kind": {"type": "countdown", "targetDay": "2025-06-20"},
                                     "startDay": "2025-06-02"}, []),
    ("a one-off checklist has no strength",
     {"kind": {"type": "subgoals", "items": ITEMS, "recurring": False}, "startDay": "2025-06-02"},
     [{"day": "2025-06-02", "log": {"type": "items", "items": [A]}}]),
    ("a deleted goal has no strength", streak_goal(DAILY_RULE, "2025-06-02", deleted=True), done("2025-06-02")),
):
    CASES.append(case(comment, ["STREAK-27"], goal, check_ins, "2025-06-05", None))

# 16a. A habit left long ago (STREAK-29's moves): done on 2025-04-01, then every Day missed up to
# today 2025-06-10. Each missed Day still lowers S by its share, but S is small by then, so in the
# last 30 Days most misses change the reported strength by less than a thousandth: those are not
# moves. Only a Day whose reported change is not 0 may be the drop, and with no lift there is one
# move at most.
april_on = days("2025-04-02", "2025-06-09")
CASES.append(case(
    "a habit left long ago: misses that do not move the reported figure are not moves, and there is no lift",
    ["STREAK-29"],
    streak_goal(DAILY_RULE, "2025-04-01"), done("2025-04-01"), "2025-06-10",
    strength([("2025-04-01", 1000, DAILY)] + [(d, 0, DAILY) for d in april_on], "2025-06-10")))

# 16b. Mostly done, one Day missed (the "up, then names only drops"): done every Day from
# 2025-05-12 to today 2025-06-10 but 2025-06-03. The lift is the done Day with the greatest reported
# change (early in the run, when S was lowest), the drop the missed Day; both are named, lift first.
mostly = [d for d in days("2025-05-12", "2025-06-10") if d != "2025-06-03"]
CASES.append(case(
    "mostly done with one Day missed: the moves are the biggest lift, then the one drop",
    ["STREAK-29"],
    streak_goal(DAILY_RULE, "2025-05-12"), done(*mostly), "2025-06-10",
    strength([(d, 0 if d == "2025-06-03" else 1000, DAILY) for d in days("2025-05-12", "2025-06-10")],
             "2025-06-10")))

# 24. Year 1 to 9999 (Extreme): done on 0001-01-01 and today 9999-12-31; every Day between is
# missed (3,652,057 zero units), which brings S to 0 long before the end (345 suffice from full
# strength). Today's unit then gives 2^30 - M; it is the only move.
ALL_DAYS = 3_652_059
CASES.append(case(
    "a daily goal from year 1 to 9999: millions of missed Days, then today",
    ["STREAK-27", "STREAK-29"],
    streak_goal(DAILY_RULE, "0001-01-01"), done("0001-01-01", "9999-12-31"), "9999-12-31",
    strength([("0001-01-01", 1000, DAILY), ("9999-12-31", 1000, DAILY)], "9999-12-31",
             zeros_before=(ALL_DAYS - 2, DAILY)),
    flags=["Extreme"]))

# 25. Mondays only, from Monday 0001-01-01 to Friday 9999-12-31 (Extreme), with one Day forgiven
# a week: each week's one due Day is forgiven when missed, so no Monday after the first is a unit
# and the first Day's score (weight 7) stands for eight millennia; today is not due.
MONDAYS = multiplier(7)
CASES.append(case(
    "forgiven for eight millennia: the score of year 1 stands",
    ["STREAK-27", "STREAK-17"],
    streak_goal({"type": "weekdays", "weekdays": ["monday"]}, "0001-01-01",
                forgiveness={"allowance": 1, "period": "week"}),
    done("0001-01-01"), "9999-12-31",
    strength([("0001-01-01", 1000, MONDAYS)], "9999-12-31"),
    flags=["Extreme"]))

# 26. Daily from year 1 with two Days forgiven a month (Extreme): every month misses more than it
# forgives, so S falls to 0 within the first year and stays there; in December 9999 the 1st and
# 2nd are forgiven and the 3rd ... 30th are zero units that change nothing (today, the 31st,
# waits). Strength 0, no change, no moves.
CASES.append(case(
    "two Days forgiven a month for eight millennia: the misses beyond them bring the score to 0",
    ["STREAK-27", "STREAK-17", "STREAK-29"],
    streak_goal(DAILY_RULE, "0001-01-01", forgiveness={"allowance": 2, "period": "month"}),
    done("0001-01-01"), "9999-12-31",
    {"score": 0, "thousandths": 0, "change7": 0, "change30": 0, "moves": []},
    flags=["Extreme"]))
# Its last Days' statuses too (STREAK-17): the 29th and 30th break, today waits.
CASES[-1]["input"]["range"] = {"from": "9999-12-29", "to": "9999-12-31"}
CASES[-1]["expected"]["statuses"] = ["missed", "missed", "pending"]

write_cases("streaks", "strength.json", "streaks.evaluate",
            "Habit strength (STREAK-27 ... STREAK-30): the score, its changes over 7 and 30 Days and the "
            "Days that moved it most. Written by Tools/corpus/streak_strength.py.",
            CASES, "strength")

# A tracker's Today list carries each goal's strength, equal to a full evaluation after every
# change (STREAK-30, STREAK-26). Goal A is daily from 06-02; goal B, a single goal created after
# it, is on the list without a strength. Profile UTC, so an instant's Day is its UTC date.
UTC = {"timeZone": "UTC", "dayStartMinutes": 0, "weekStart": "monday"}
GA, GB = "01938a6e-7c00-7abc-8def-0000000000a1", "01938a6e-7c00-7abc-8def-0000000000b1"
DEVICE = "01938a6e-7c00-7abc-8def-00000000d001"
GOAL_A = dict(streak_goal(DAILY_RULE, "2025-06-02"), id=GA)
GOAL_B = {"id": GB, "kind": {"type": "single"}, "startDay": "2025-06-02", "createdAt": "2000-01-02T00:00:00.000Z"}


def track(comment, goals, check_ins, now, steps, strengths):
    return {"comment": comment, "rules": ["STREAK-30", "STREAK-26"], "flags": [],
            "input": {"profile": UTC, "now": now, "goals": goals,
                      "checkIns": [dict(c, goalID=GA) for c in check_ins], "steps": steps},
            "result": "valid", "expected": {"strengths": strengths}}


def tap_a(at, **more):
    return dict({"do": "tap", "goalID": GA, "at": at, "deviceID": DEVICE, "tap": "done"}, **more)


def s_of(units, today):
    return strength(units, today)["thousandths"]


TRACK = [
    # Done 02 and 03; the tap on 06-04 (today) counts at once: units 02, 03, 04.
    track("a tap today raises the strength at once", [GOAL_A, GOAL_B], done("2025-06-02", "2025-06-03"),
          "2025-06-04T08:00:00.000Z", [tap_a("2025-06-04T09:00:00.000Z")],
          [s_of([(d, 1000, DAILY) for d in ("2025-06-02", "2025-06-03", "2025-06-04")], "2025-06-04"), None]),
    # The same tap undone: today has no entry again and waits; units 02, 03.
    track("an undo takes today's unit back", [GOAL_A, GOAL_B], done("2025-06-02", "2025-06-03"),
          "2025-06-04T08:00:00.000Z",
          [tap_a("2025-06-04T09:00:00.000Z"),
           {"do": "undo", "goalID": GA, "day": "2025-06-04", "at": "2025-06-04T10:00:00.000Z", "deviceID": DEVICE}],
          [s_of([(d, 1000, DAILY) for d in ("2025-06-02", "2025-06-03")], "2025-06-04"), None]),
    # A new Day: 06-04 ended without an entry and is now missed (value 0); today 06-05 waits.
    track("a new Day turns yesterday without an entry into a missed unit", [GOAL_A],
          done("2025-06-02", "2025-06-03"), "2025-06-04T08:00:00.000Z",
          [{"do": "advance", "at": "2025-06-05T08:00:00.000Z"}],
          [s_of([("2025-06-02", 1000, DAILY), ("2025-06-03", 1000, DAILY), ("2025-06-04", 0, DAILY)], "2025-06-05")]),
    # A backfill of 06-03: the missed unit becomes a done one, and 06-04 follows from there.
    track("a backfill changes a past unit and every one after it", [GOAL_A],
          done("2025-06-02", "2025-06-04"), "2025-06-05T08:00:00.000Z",
          [tap_a("2025-06-05T09:00:00.000Z", day="2025-06-03")],
          [s_of([(d, 1000, DAILY) for d in ("2025-06-02", "2025-06-03", "2025-06-04")], "2025-06-05")]),
]

write_cases("streaks", "strength_track.json", "streaks.track",
            "A tracker's Today list with each item's strength (STREAK-30) after taps, undos, backfills and new "
            "Days. Written by Tools/corpus/streak_strength.py.",
            TRACK, "strength-track")
