#!/usr/bin/env python3
"""Writes Spec/corpus/model/dataset_apply.json (MODEL-56 ... MODEL-62) and
Spec/corpus/streaks/track.json (STREAK-26): a person's data changed step by step.

Every expected value is written out by hand from the rules, with the reasoning beside it: the Day
of a tap from the boundary (01:30 with a 03:00 day start is yesterday), the device's next
sequence number (a compact check-in reads as its device's tap 0), stamps a millisecond after the
version replaced when the clock went back, what each step reports as changed. Nothing here runs
the SDK. Run from the repository root:

    python3 Tools/corpus/dataset.py
"""
import copy
import json
from corpus_file import command_line

command_line(__doc__)

PERSON = "01938a6e-7c00-7abc-8def-0000000000aa"
STRANGER = "01938a6e-7c00-7abc-8def-0000000000bb"
PHONE = "01938a6e-7c00-7abc-8def-00000000d001"
WATCH = "01938a6e-7c00-7abc-8def-00000000d002"
WATER = "01938a6e-7c00-7abc-8def-0000000000a1"
READ = "01938a6e-7c00-7abc-8def-0000000000a2"
SAVE = "01938a6e-7c00-7abc-8def-0000000000a3"
GONE = "01938a6e-7c00-7abc-8def-0000000000a4"
REST = "01938a6e-7c00-7abc-8def-0000000000a5"
TRIP = "01938a6e-7c00-7abc-8def-0000000000a6"
NEW = "01938a6e-7c00-7abc-8def-0000000000a7"
NOWHERE = "01938a6e-7c00-7abc-8def-0000000000ff"
ZONE = "Europe/London"  # GMT, UTC+0, throughout March before the 30th
BOUNDARY = {"timeZone": ZONE, "dayStartMinutes": 180, "weekStart": "monday"}
CREATED = "2025-03-01T08:00:00.000Z"


def at(day, time):
    return "2025-03-%02dT%s.000Z" % (day, time) if len(time) == 8 else "2025-03-%02dT%sZ" % (day, time)


def goal(id, title, kind, schedule=True, end=None, archive=(), deleted=False, modified=CREATED, emoji=None):
    value = {"id": id, "title": title, "kind": kind, "startDay": "2025-03-01", "archiveHistory": list(archive),
             "visibility": "private", "createdAt": CREATED, "modifiedAt": modified, "deleted": deleted}
    if schedule:
        value["schedule"] = [{"effective": "2025-03-01", "rule": {"type": "daily"}}]
    if end:
        value["endDay"] = end
    if emoji:
        value["emoji"] = emoji
    return value


def goals(**changed):
    """The base data set's goals in identifier order, with some replaced."""
    base = {
        WATER: goal(WATER, "Water", {"type": "tally", "dailyTarget": 8, "unit": "glasses"}),
        READ: goal(READ, "Read", {"type": "streak"}),
        SAVE: goal(SAVE, "Save", {"type": "progress", "target": "100", "unit": "€"}, schedule=False,
                   end="2025-03-20"),
        GONE: goal(GONE, "Gone", {"type": "streak"}, deleted=True, modified="2025-03-02T08:00:00.000Z"),
        REST: goal(REST, "Rest", {"type": "streak"}, archive=[{"from": "2025-03-05"}],
                   modified="2025-03-05T08:00:00.000Z"),
        TRIP: goal(TRIP, "Trip", {"type": "countdown", "targetDay": "2025-06-01"}, schedule=False),
    }
    names = {"water": WATER, "read": READ, "save": SAVE, "gone": GONE, "rest": REST, "trip": TRIP, "new": NEW}
    for name, value in changed.items():
        base[names[name]] = value
    return [base[id] for id in sorted(base)]


PROFILE = {"userID": PERSON, "displayName": "Mia", "interests": [], "themeID": "default", "boundary": BOUNDARY,
           "createdAt": CREATED, "modifiedAt": CREATED}


def compact(goal_id, day, device, log, time, modified=None, deleted=False, note=None):
    """A compact check-in (MODEL-55): one device's one tap at `time` on 2025-03-`day`."""
    value = {"goalID": goal_id, "day": "2025-03-%02d" % day, "log": log, "firstRecordedAt": time,
             "lastRecordedAt": time, "timeZone": ZONE, "deviceID": device, "modifiedAt": modified or time,
             "deleted": deleted}
    if note is not None:
        value["note"] = note
    return value


def tap(device, sequence, time, action):
    return {"deviceID": device, "sequence": sequence, "at": time, "timeZone": ZONE, "action": action}


# The water entry every case starts from: two glasses on the phone at 10:00 on the 9th.
WATER_9 = compact(WATER, 9, PHONE, {"type": "tally", "count": 2}, at(9, "10:00:00"))
BASE = {"profile": PROFILE, "goals": goals(), "checkIns": [WATER_9]}


def changes(goals=(), keys=(), profile=False):
    return {"changes": {"profile": profile, "goals": sorted(goals),
                        "checkIns": [{"goalID": g, "day": d} for g, d in sorted(keys)], "otherRecords": 0}}


NONE = changes()


def error(code):
    return {"error": code}


def case(id, comment, rules, steps, expected, data=None):
    return {"id": id, "comment": comment, "rules": rules, "flags": [],
            "input": {"boundary": BOUNDARY, "dataSet": data or BASE, "steps": steps},
            "result": "valid", "expected": expected}


def step(do, **members):
    value = {"do": do}
    for key, member in members.items():
        if key == "goal" and isinstance(member, str):
            key = "goalID"  # a goal named by its id; addGoal gives a whole goal
        value["deviceID" if key == "device" else key] = member
    return value


W9 = (WATER, "2025-03-09")
APPLY = [
    case("dataset-001", "a tap at 01:30 with a 03:00 day start belongs to yesterday: the phone's second tap of the 9th",
         ["MODEL-57", "MODEL-62", "MODEL-35"],
         [step("tap", goal=WATER, at=at(10, "01:30:00"), device=PHONE, tap="count", delta=1)],
         # The compact entry reads as the phone's tap 0 (count 2 at 10:00); the new tap is its
         # tap 1. Two taps: the entry lists them. The log adds up to 3, from 10:00 on the 9th to
         # 01:30 on the 10th; modifiedAt is the latest tap.
         {"steps": [changes(keys=[W9])],
          "checkIns": [{"goalID": WATER, "day": "2025-03-09", "log": {"type": "tally", "count": 3},
                        "firstRecordedAt": at(9, "10:00:00"), "lastRecordedAt": at(10, "01:30:00"),
                        "timeZone": ZONE, "deviceID": PHONE, "modifiedAt": at(10, "01:30:00"), "deleted": False,
                        "taps": [tap(PHONE, 0, at(9, "10:00:00"), {"type": "count", "count": 2}),
                                 tap(PHONE, 1, at(10, "01:30:00"), {"type": "count", "count": 1})]}]}),
    case("dataset-002", "a past Day is filled in with the instant it was made; tomorrow cannot be",
         ["MODEL-58", "MODEL-62"],
         [step("tap", goal=READ, day="2025-03-07", at=at(9, "12:00:00.400"), device=PHONE, tap="done"),
          # 02:00 on the 10th is still the 9th (03:00 day start): the 10th is tomorrow.
          step("tap", goal=READ, day="2025-03-10", at=at(10, "02:00:00"), device=PHONE, tap="done")],
         # The tap keeps its instant to the whole second: 12:00:00 on the 9th.
         {"steps": [changes(keys=[(READ, "2025-03-07")]), error("invalid_check_in")],
          "checkIns": [WATER_9, compact(READ, 7, PHONE, {"type": "done"}, at(9, "12:00:00"))]}),
    case("dataset-003", "taps the data set cannot take are refused, and change nothing",
         ["MODEL-56", "MODEL-57", "MODEL-34"],
         [step("tap", goal=NOWHERE, at=at(9, "12:00:00"), device=PHONE, tap="done"),
          step("tap", goal=GONE, at=at(9, "12:00:00"), device=PHONE, tap="done"),
          step("tap", goal=READ, at="2025-02-28T12:00:00.000Z", device=PHONE, tap="done"),
          step("tap", goal=SAVE, at=at(21, "12:00:00"), device=PHONE, tap="add", amount="5"),
          step("tap", goal=REST, at=at(9, "12:00:00"), device=PHONE, tap="done"),
          step("tap", goal=WATER, at=at(9, "12:00:00"), device=PHONE, tap="done"),
          step("tap", goal=TRIP, at=at(9, "12:00:00"), device=PHONE, tap="done")],
         {"steps": [error("not_found"), error("goal_deleted"), error("invalid_check_in"),
                    error("invalid_check_in"), error("invalid_check_in"), error("invalid_check_in"),
                    error("invalid_check_in")],
          "checkIns": [WATER_9], "goals": goals()}),
    case("dataset-004", "an undo from the watch hides the phone's taps; a tap in the same second starts the Day over",
         ["MODEL-59", "MODEL-57", "MODEL-53"],
         [step("undo", goal=WATER, day="2025-03-09", at=at(9, "12:00:00"), device=WATCH),
          step("undo", goal=WATER, day="2025-03-09", at=at(9, "12:30:00"), device=WATCH),
          step("tap", goal=WATER, at=at(9, "12:00:00.400"), device=PHONE, tap="count", delta=1)],
         # Step 1: the watch's tap 0 is an undo at 12:00; undone, the entry describes the hidden
         # taps. Step 2: nothing left to undo. Step 3: 12:00:00.400 is kept as 12:00:00, which an
         # undo at 12:00:00 would hide (an undo follows the taps of its instant), so the tap is
         # stamped 12:00:01, the phone's tap 1.
         {"steps": [changes(keys=[W9]), error("not_found"), changes(keys=[W9])],
          "checkIns": [{"goalID": WATER, "day": "2025-03-09", "log": {"type": "tally", "count": 1},
                        "firstRecordedAt": at(9, "12:00:01"), "lastRecordedAt": at(9, "12:00:01"),
                        "timeZone": ZONE, "deviceID": PHONE, "modifiedAt": at(9, "12:00:01"), "deleted": False,
                        "taps": [tap(PHONE, 0, at(9, "10:00:00"), {"type": "count", "count": 2}),
                                 tap(WATCH, 0, at(9, "12:00:00"), {"type": "undo"}),
                                 tap(PHONE, 1, at(9, "12:00:01"), {"type": "count", "count": 1})]}]}),
    case("dataset-005", "notes: set, the same again (no change), replaced by a clock that went back, none to annotate",
         ["MODEL-59", "MODEL-56", "MODEL-62"],
         [step("note", goal=WATER, day="2025-03-09", at=at(9, "12:00:00"), note="hot day"),
          step("note", goal=WATER, day="2025-03-09", at=at(9, "13:00:00"), note="hot day"),
          step("note", goal=WATER, day="2025-03-09", at=at(9, "11:00:00"), note="cool"),
          step("note", goal=READ, day="2025-03-09", at=at(9, "11:00:00"), note="tired")],
         # The third note is stamped a millisecond after the one it replaces (12:00:00.001), and
         # modifiedAt follows it; a note set at modifiedAt is what the compact form implies.
         {"steps": [changes(keys=[W9]), NONE, changes(keys=[W9]), error("not_found")],
          "checkIns": [compact(WATER, 9, PHONE, {"type": "tally", "count": 2}, at(9, "10:00:00"),
                               modified=at(9, "12:00:00.001"), note="cool")]}),
    case("dataset-006", "a goal edit made with a clock behind the goal's version is stamped a millisecond after it",
         ["MODEL-56", "MODEL-60", "MODEL-62"],
         [step("editGoal", goal=READ, at="2025-02-01T00:00:00.000Z", set={"title": "Read more"}),
          step("editGoal", goal=READ, at=at(9, "10:00:00"), set={"title": "Read more"}),
          step("editGoal", goal=READ, at=at(9, "10:00:00"), set={"title": "   "}),
          step("editGoal", goal=GONE, at=at(9, "10:00:00"), set={"title": "Back"}),
          step("editGoal", goal=NOWHERE, at=at(9, "10:00:00"), set={"title": "Never"})],
         {"steps": [changes(goals=[READ]), NONE, error("invalid_goal"), error("goal_deleted"), error("not_found")],
          "goals": goals(read=goal(READ, "Read more", {"type": "streak"}, modified="2025-03-01T08:00:00.001Z"))}),
    case("dataset-007", "adding goals: a new one, a held id, a tombstone's id, a tombstone",
         ["MODEL-60", "MODEL-62"],
         [step("addGoal", goal=goal(NEW, "Walk", {"type": "streak"})),
          step("addGoal", goal=goal(WATER, "Water again", {"type": "streak"})),
          step("addGoal", goal=goal(GONE, "Gone again", {"type": "streak"})),
          step("addGoal", goal=goal(NOWHERE, "Never", {"type": "streak"}, deleted=True))],
         {"steps": [changes(goals=[NEW]), error("duplicate_id"), error("duplicate_id"), error("invalid_goal")],
          "goals": goals(new=goal(NEW, "Walk", {"type": "streak"}))}),
    case("dataset-008", "archive, unarchive and delete: taps follow the archive; a deleted goal keeps its check-ins",
         ["MODEL-60", "MODEL-57", "MODEL-56", "MODEL-47"],
         [step("archive", goal=READ, day="2025-03-10", at=at(10, "10:00:00")),
          step("tap", goal=READ, at=at(11, "10:00:00"), device=PHONE, tap="done"),
          step("unarchive", goal=READ, day="2025-03-12", at=at(12, "10:00:00")),
          step("unarchive", goal=READ, day="2025-03-13", at=at(13, "10:00:00")),
          step("deleteGoal", goal=WATER, at=at(12, "11:00:00")),
          step("deleteGoal", goal=WATER, at=at(12, "12:00:00")),
          step("tap", goal=WATER, at=at(12, "12:00:00"), device=PHONE, tap="count", delta=1)],
         {"steps": [changes(goals=[READ]), error("invalid_check_in"), changes(goals=[READ]), error("invalid_goal"),
                    changes(goals=[WATER]), error("goal_deleted"), error("goal_deleted")],
          "goals": goals(
              read=goal(READ, "Read", {"type": "streak"}, archive=[{"from": "2025-03-10", "until": "2025-03-12"}],
                        modified=at(12, "10:00:00")),
              water=goal(WATER, "Water", {"type": "tally", "dailyTarget": 8, "unit": "glasses"}, deleted=True,
                         modified=at(12, "11:00:00"))),
          "checkIns": [WATER_9]}),
    case("dataset-009", "the profile: edited, the same edit again, another person's refused",
         ["MODEL-61", "MODEL-56", "MODEL-62"],
         [step("editProfile", at=at(9, "10:00:00"), set={"displayName": "Mia R."}),
          step("editProfile", at=at(9, "11:00:00"), set={"displayName": "Mia R."}),
          step("setProfile", profile=dict(PROFILE, userID=STRANGER, displayName="Noor"))],
         {"steps": [changes(profile=True), NONE, error("invalid_profile")],
          "profile": dict(PROFILE, displayName="Mia R.", modifiedAt=at(9, "10:00:00"))}),
    case("dataset-010", "an edit of a data set without a profile finds none",
         ["MODEL-61"],
         [step("editProfile", at=at(9, "10:00:00"), set={"displayName": "Mia"})],
         {"steps": [error("not_found")]},
         data={"goals": goals(), "checkIns": [WATER_9]}),
]

# MODEL-62's worked example: the watch logs a glass and ticks Read on the 9th, and edits Save.
WATCH_DATA = {"profile": PROFILE,
              "goals": goals(save=goal(SAVE, "Save", {"type": "progress", "target": "100", "unit": "€"},
                                       schedule=False, end="2025-03-20", emoji="💶", modified=at(9, "11:00:00"))),
              "checkIns": [compact(WATER, 9, WATCH, {"type": "tally", "count": 1}, at(9, "11:00:00")),
                           compact(READ, 9, WATCH, {"type": "done"}, at(9, "11:00:00"))]}
APPLY.append(case(
    "dataset-011", "a merge reports the goals and Days it changed, and nothing when the same data comes again",
    ["MODEL-62", "MODEL-54", "BUNDLE-21"],
    [step("merge", dataSet=WATCH_DATA), step("merge", dataSet=WATCH_DATA)],
    # Water on the 9th: the phone's 2 and the watch's 1 are 3, from 10:00 to 11:00, last by the watch.
    {"steps": [changes(goals=[SAVE], keys=[W9, (READ, "2025-03-09")]), NONE],
     "checkIns": [{"goalID": WATER, "day": "2025-03-09", "log": {"type": "tally", "count": 3},
                   "firstRecordedAt": at(9, "10:00:00"), "lastRecordedAt": at(9, "11:00:00"), "timeZone": ZONE,
                   "deviceID": WATCH, "modifiedAt": at(9, "11:00:00"), "deleted": False,
                   "taps": [tap(PHONE, 0, at(9, "10:00:00"), {"type": "count", "count": 2}),
                            tap(WATCH, 0, at(9, "11:00:00"), {"type": "count", "count": 1})]},
                  compact(READ, 9, WATCH, {"type": "done"}, at(9, "11:00:00"))]}))

# STREAK-26: a tracker's answers after each change. Compact inputs (streaks.md 2.10): the goal's id
# is the default one, created 2000-01-01; the profile is a boundary in UTC.
STREAK_GOAL = "01938a6e-7c00-7abc-8def-0123456789ab"
UTC = {"timeZone": "UTC", "dayStartMinutes": 0, "weekStart": "monday"}


def jan(day, time="12:00:00"):
    return "2025-01-%02dT%s.000Z" % (day, time)


def update(today, new=(), revoked=(), new_day=False):
    return {"new": list(new), "revoked": list(revoked), "newDay": new_day, "today": today}


def track(id, comment, rules, now, steps, expected, check_ins=(), goal=None):
    return {"id": id, "comment": comment, "rules": rules, "flags": [],
            "input": {"profile": UTC, "now": now,
                      "goals": [goal or {"kind": {"type": "streak"}, "schedule": {"type": "daily"},
                                         "startDay": "2025-01-01"}],
                      "checkIns": list(check_ins), "steps": steps},
            "result": "valid", "expected": expected}


TRACK = [
    track("track-001", "three Days in a row reach the 3 milestone once; undoing the middle Day revokes it",
          ["STREAK-26", "STREAK-21", "STREAK-20"], jan(1),
          [step("tap", goal=STREAK_GOAL, at=jan(1), device=PHONE, tap="done"),
           step("tap", goal=STREAK_GOAL, at=jan(2), device=PHONE, tap="done"),
           step("tap", goal=STREAK_GOAL, at=jan(3), device=PHONE, tap="done"),
           step("undo", goal=STREAK_GOAL, day="2025-01-02", at=jan(3, "13:00:00"), device=PHONE)],
          # Each tap moves the tracker to its instant: the 2nd and 3rd are new Days. The third done
          # Day reaches 3 (streak from the 1st, reached on the 3rd). Undoing the 2nd leaves runs of
          # 1 and 1: the milestone goes. Today (the 3rd) is done, its streak 1.
          {"steps": [update("2025-01-01"), update("2025-01-02", new_day=True),
                     update("2025-01-03", new=[{"goalID": STREAK_GOAL, "milestone": 3, "streakStart": "2025-01-01",
                                                "reachedOn": "2025-01-03"}], new_day=True),
                     update("2025-01-03", revoked=[{"goalID": STREAK_GOAL, "milestone": 3,
                                                    "streakStart": "2025-01-01"}])],
           "items": [{"goalID": STREAK_GOAL, "status": "done", "thousandths": 1000, "streak": 1,
                      "daysLeft": None}]}),
    track("track-002", "the clock never goes back; a new Day is reported once; a deleted goal's milestones go",
          ["STREAK-26", "STREAK-25"], jan(5),
          [step("advance", at=jan(5, "23:59:59")),
           step("advance", at=jan(6, "00:00:00")),
           step("advance", at=jan(5, "18:00:00")),
           step("deleteGoal", goal=STREAK_GOAL, at=jan(6, "09:00:00"))],
          # The goal was done on the 2nd, 3rd and 4th (a streak of 3) and missed on the 5th.
          {"steps": [update("2025-01-05"), update("2025-01-06", new_day=True), update("2025-01-06"),
                     update("2025-01-06", revoked=[{"goalID": STREAK_GOAL, "milestone": 3,
                                                    "streakStart": "2025-01-02"}])],
           "items": []},
          check_ins=[{"day": "2025-01-%02d" % d, "log": {"type": "done"}} for d in (2, 3, 4)]),
    track("track-003", "changes the tracker cannot make are refused and report nothing",
          ["STREAK-26", "MODEL-56", "MODEL-34"], jan(3),
          [step("tap", goal="01938a6e-7c00-7abc-8def-0000000000ff", at=jan(3), device=PHONE, tap="done"),
           step("tap", goal=STREAK_GOAL, at=jan(3), device=PHONE, tap="count", delta=1),
           step("undo", goal=STREAK_GOAL, day="2025-01-02", at=jan(3), device=PHONE)],
          {"steps": [error("not_found"), error("invalid_check_in"), error("not_found")],
           "items": [{"goalID": STREAK_GOAL, "status": "pending", "thousandths": 0, "streak": 0,
                      "daysLeft": None}]}),
    track("track-004", "a tally's Today follows each tap, and a merge from the watch adds the watch's glasses",
          ["STREAK-26", "STREAK-22", "MODEL-54"], jan(3, "08:00:00"),
          [step("tap", goal=STREAK_GOAL, at=jan(3, "08:00:00"), device=PHONE, tap="count", delta=2),
           step("merge", dataSet={
               "goals": [{"id": STREAK_GOAL, "title": "Goal", "kind": {"type": "tally", "dailyTarget": 4,
                                                                       "unit": "glasses"},
                          "schedule": [{"effective": "2025-01-01", "rule": {"type": "daily"}}],
                          "startDay": "2025-01-01", "archiveHistory": [], "visibility": "private",
                          "createdAt": "2000-01-01T00:00:00.000Z", "modifiedAt": "2000-01-01T00:00:00.000Z",
                          "deleted": False}],
               "checkIns": [{"goalID": STREAK_GOAL, "day": "2025-01-03", "log": {"type": "tally", "count": 2},
                             "firstRecordedAt": jan(3, "09:00:00"), "lastRecordedAt": jan(3, "09:00:00"),
                             "timeZone": "UTC", "deviceID": WATCH, "modifiedAt": jan(3, "09:00:00"),
                             "deleted": False}]})],
          # 2 of 4 glasses is half (500 thousandths, partial); with the watch's 2 it is 4 of 4: done,
          # a streak of 1. The goal in the merged data is the same version: nothing new there.
          {"steps": [update("2025-01-03"), update("2025-01-03")],
           "items": [{"goalID": STREAK_GOAL, "status": "done", "thousandths": 1000, "streak": 1,
                      "daysLeft": None}]},
          goal={"kind": {"type": "tally", "dailyTarget": 4, "unit": "glasses"}, "schedule": {"type": "daily"},
                "startDay": "2025-01-01"}),
]


def write(path, area, operation, description, cases):
    document = {"area": area, "operation": operation, "description": description, "cases": cases}
    with open(path, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=1, ensure_ascii=False)
        file.write("\n")


write("Spec/corpus/model/dataset_apply.json", "model", "dataset.apply",
      "A person's data changed step by step through the mutations an app calls: what each step changed, or why "
      "it was refused.", copy.deepcopy(APPLY))
write("Spec/corpus/streaks/track.json", "streaks", "streaks.track",
      "A tracker's answers after each change: milestones new and revoked, new Days, and Today at the end.",
      copy.deepcopy(TRACK))
