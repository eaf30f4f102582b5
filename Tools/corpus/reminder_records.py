#!/usr/bin/env python3
"""Writes Spec/corpus/model/reminder_settings.json and Spec/corpus/wire/reminder_settings.json:
reminder settings kept in the goal and profile records (REMIND-13, with MODEL-19, MODEL-37).

The JSON cases decode a goal or a profile and expect its canonical form, worked from REMIND-13:
times in increasing order, weekdays Monday first, `enabled` written always, and a profile's
settings written only when they differ from no nudge, no quiet hours and a ten-minute snooze.
A setting outside REMIND-1 is `invalid_reminder` at its JSON path.

The wire cases are encoded by hand with Tools/corpus/bundle_writer.py from glow.proto's
`GoalReminders` (Goal field 22) and `PersonReminders` (Profile field 9); each canonical case
carries the text `protoc --decode` prints for it, which ProtocTests checks with protoc itself.
Run from the repository root:

    python3 Tools/corpus/reminder_records.py
"""
import copy
import os
import sys
from corpus_file import command_line, write_cases

command_line(__doc__)

sys.path.insert(0, os.path.dirname(__file__))
from bundle_writer import field_bytes, field_packed, field_sint, field_varint, uuid_bytes  # noqa: E402

GOAL_ID = "01938a6e-7c00-7abc-8def-0123456789ab"
USER_ID = "01938a6e-7c00-7abc-8def-0000000000aa"
DAY = 20089  # 2025-01-01
CREATED = 1735718400000  # 2025-01-01T08:00:00.000Z
MODIFIED = 1735804800000  # 2025-01-02T08:00:00.000Z

GOAL_JSON = {
    "id": GOAL_ID, "title": "Read", "kind": {"type": "streak"},
    "schedule": [{"effective": "2025-01-01", "rule": {"type": "daily"}}], "startDay": "2025-01-01",
    "archiveHistory": [], "visibility": "private", "createdAt": "2025-01-01T08:00:00.000Z",
    "modifiedAt": "2025-01-02T08:00:00.000Z", "deleted": False,
}
PROFILE_JSON = {
    "userID": USER_ID, "displayName": "Mia", "interests": [], "themeID": "default",
    "boundary": {"timeZone": "Europe/London", "dayStartMinutes": 0, "weekStart": "monday"},
    "createdAt": "2025-01-01T08:00:00.000Z", "modifiedAt": "2025-01-02T08:00:00.000Z",
}


def with_(base, **members):
    value = copy.deepcopy(base)
    value.update(members)
    return value


def json_case(comment, rules, type_, value, canonical=None, code=None, path=None):
    case = {"comment": comment, "rules": rules, "flags": [], "input": {"type": type_, "json": value}}
    if code:
        case.update({"result": "invalid", "error": {"code": code, "path": path}})
    else:
        case.update({"result": "valid", "expected": {"canonical": canonical}})
    return case


def goal_with(reminders):
    return with_(GOAL_JSON, reminders=reminders)


def profile_with(reminders):
    return with_(PROFILE_JSON, reminders=reminders)


json_cases = [
    json_case("a goal's reminders round-trip", ["REMIND-13", "REMIND-1", "MODEL-19"], "Goal",
              goal_with({"times": [450, 1200], "weekdays": ["monday", "friday"], "enabled": True}),
              goal_with({"times": [450, 1200], "weekdays": ["monday", "friday"], "enabled": True})),
    # REMIND-13: times in increasing order, weekdays Monday first.
    json_case("times and weekdays in any order are written in order", ["REMIND-13"], "Goal",
              goal_with({"times": [1200, 0, 450], "weekdays": ["sunday", "monday", "wednesday"], "enabled": False}),
              goal_with({"times": [0, 450, 1200], "weekdays": ["monday", "wednesday", "sunday"],
                         "enabled": False})),
    # REMIND-13: `enabled` absent reads as true and is written; weekdays absent stays absent.
    json_case("enabled defaults to true and is always written", ["REMIND-13"], "Goal",
              goal_with({"times": [1439]}), goal_with({"times": [1439], "enabled": True})),
    json_case("a goal without reminders writes none", ["REMIND-13", "MODEL-19"], "Goal",
              copy.deepcopy(GOAL_JSON), copy.deepcopy(GOAL_JSON)),
    json_case("no reminder time", ["REMIND-1"], "Goal", goal_with({"times": []}),
              code="invalid_reminder", path="$.reminders.times"),
    json_case("nine reminder times", ["REMIND-1"], "Goal", goal_with({"times": list(range(9))}),
              code="invalid_reminder", path="$.reminders.times"),
    json_case("a time past the last minute of the day", ["REMIND-1"], "Goal", goal_with({"times": [60, 1440]}),
              code="invalid_reminder", path="$.reminders.times[1]"),
    json_case("a negative time", ["REMIND-1"], "Goal", goal_with({"times": [-1]}),
              code="invalid_reminder", path="$.reminders.times[0]"),
    json_case("a time given twice", ["REMIND-1"], "Goal", goal_with({"times": [60, 60]}),
              code="invalid_reminder", path="$.reminders.times"),
    json_case("limited to no weekday", ["REMIND-1"], "Goal", goal_with({"times": [60], "weekdays": []}),
              code="invalid_reminder", path="$.reminders.weekdays"),
    json_case("a weekday listed twice", ["REMIND-1"], "Goal",
              goal_with({"times": [60], "weekdays": ["monday", "monday"]}),
              code="invalid_reminder", path="$.reminders.weekdays"),
    json_case("an unknown weekday", ["MODEL-41"], "Goal", goal_with({"times": [60], "weekdays": ["someday"]}),
              code="unknown_enum_case", path="$.reminders.weekdays[0]"),
    json_case("reminders without times", ["MODEL-40"], "Goal", goal_with({"enabled": True}),
              code="invalid_json", path="$.reminders.times"),
    json_case("a profile's reminders round-trip", ["REMIND-13", "REMIND-1", "MODEL-37"], "Profile",
              profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 3},
                            "quietHours": {"start": 1320, "end": 420}, "snoozeMinutes": 15}),
              profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 3},
                            "quietHours": {"start": 1320, "end": 420}, "snoozeMinutes": 15})),
    # REMIND-13: inside the object the snooze is written always, ten when not given.
    json_case("quiet hours alone write the standard snooze beside them", ["REMIND-13"], "Profile",
              profile_with({"quietHours": {"start": 0, "end": 360}}),
              profile_with({"quietHours": {"start": 0, "end": 360}, "snoozeMinutes": 10})),
    # REMIND-13: no nudge, no quiet hours and ten minutes are the settings of no choice: not written.
    json_case("the standard settings are not written", ["REMIND-13", "MODEL-37"], "Profile",
              profile_with({"snoozeMinutes": 10}), copy.deepcopy(PROFILE_JSON)),
    json_case("an empty settings object is the standard one", ["REMIND-13"], "Profile", profile_with({}),
              copy.deepcopy(PROFILE_JSON)),
    json_case("a nudge for streaks of length 0", ["REMIND-1"], "Profile",
              profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 0}}),
              code="invalid_reminder", path="$.reminders.streakAtRisk.minimumStreak"),
    # REMIND-1 bounds the length at 100,000, so every length fits the wire's uint32.
    json_case("a nudge for streaks longer than 100,000 Days", ["REMIND-1"], "Profile",
              profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 100001}}),
              code="invalid_reminder", path="$.reminders.streakAtRisk.minimumStreak"),
    json_case("a nudge for streaks of exactly 100,000 Days", ["REMIND-1"], "Profile",
              profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 100000}}),
              profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 100000}, "snoozeMinutes": 10})),
    json_case("a nudge at minute 1440", ["REMIND-1"], "Profile",
              profile_with({"streakAtRisk": {"minute": 1440, "minimumStreak": 1}}),
              code="invalid_reminder", path="$.reminders.streakAtRisk.minute"),
    json_case("quiet hours that start where they end", ["REMIND-1"], "Profile",
              profile_with({"quietHours": {"start": 600, "end": 600}}),
              code="invalid_reminder", path="$.reminders.quietHours"),
    json_case("quiet hours ending past the day", ["REMIND-1"], "Profile",
              profile_with({"quietHours": {"start": 600, "end": 2000}}),
              code="invalid_reminder", path="$.reminders.quietHours.end"),
    json_case("a snooze of no minutes", ["REMIND-1"], "Profile", profile_with({"snoozeMinutes": 0}),
              code="invalid_reminder", path="$.reminders.snoozeMinutes"),
    json_case("a snooze longer than a day", ["REMIND-1"], "Profile", profile_with({"snoozeMinutes": 1441}),
              code="invalid_reminder", path="$.reminders.snoozeMinutes"),
]

write_cases("model", "reminder_settings.json", "json.decode",
            "Reminder settings in goal and profile JSON (REMIND-13): canonical forms and refusals by path.",
            json_cases, "reminder-json")

# The wire: a daily streak goal and a profile, fields in number order (WIRE-1), the settings last.
GOAL_TEXT = ('id: "\\001\\223\\212n|\\000z\\274\\215\\357\\001#Eg\\211\\253"\ntitle: "Read"\nstreak: true\n'
             'schedule {\n  effective: 20089\n  daily: true\n}\nstart_day: 20089\n'
             'created_at: 1735718400000\nmodified_at: 1735804800000\n')
PROFILE_TEXT = ('user_id: "\\001\\223\\212n|\\000z\\274\\215\\357\\000\\000\\000\\000\\000\\252"\n'
                'display_name: "Mia"\ntheme_id: "default"\nboundary {\n  time_zone: "Europe/London"\n}\n'
                'created_at: 1735718400000\nmodified_at: 1735804800000\n')


def goal_bytes(reminders=b""):
    schedule = field_bytes(12, field_sint(1, DAY) + field_varint(2, 1))
    return (field_bytes(1, uuid_bytes(GOAL_ID)) + field_bytes(2, b"Read") + field_varint(11, 1) + schedule
            + field_sint(13, DAY) + field_sint(19, CREATED) + field_sint(20, MODIFIED) + reminders)


def profile_bytes(reminders=b""):
    return (field_bytes(1, uuid_bytes(USER_ID)) + field_bytes(2, b"Mia") + field_bytes(5, b"default")
            + field_bytes(6, field_bytes(1, b"Europe/London")) + field_sint(7, CREATED) + field_sint(8, MODIFIED)
            + reminders)


def wire_valid(comment, rules, message, data, canonical, json_, text):
    """A valid case; `text` is what protoc prints for the canonical bytes (None: protoc's text
    cannot say it, as for an unknown field, which `protoc --encode` cannot write back)."""
    case = {"comment": comment, "rules": rules, "flags": [],
            "input": {"message": message, "hex": data.hex()}, "result": "valid",
            "expected": {"canonicalHex": canonical.hex(), "json": json_}}
    if text is not None:
        case["protoc"] = {"message": "glow.v1." + message, "text": text}
        if canonical != data:
            case["protoc"]["hex"] = canonical.hex()
    return case


def wire_invalid(comment, rules, message, data, offset):
    """A refusal: the code at the Required level, the offset in a Recommended twin (WIRE-16)."""
    base = {"comment": comment, "rules": rules, "input": {"message": message, "hex": data.hex()},
            "result": "invalid"}
    required = dict(base, flags=[], error={"code": "invalid_value"})
    twin = dict(base, comment=comment + " (the offset)", flags=["Recommended"],
                error={"code": "invalid_value", "offset": offset})
    return [required, twin]


# Monday and Friday: bits 0 and 4, 0b10001 = 17.
goal_settings = field_packed(1, [450, 1200]) + field_varint(2, 17) + field_varint(3, 1)
GOAL_WITH = goal_bytes(field_bytes(22, goal_settings))
nudge_quiet = (field_varint(1, 1260) + field_varint(2, 3) + field_varint(3, 1320) + field_varint(4, 420)
               + field_varint(5, 15))
PROFILE_WITH = profile_bytes(field_bytes(9, nudge_quiet))
# Midnight has presence: the nudge's and the quiet hours' minute 0 are written (WIRE-19).
midnight = field_varint(1, 0) + field_varint(2, 1) + field_varint(3, 0) + field_varint(4, 360) + field_varint(5, 10)
PROFILE_MIDNIGHT = profile_bytes(field_bytes(9, midnight))
UNKNOWN = field_varint(15, 7)

# Where the settings' body starts inside a record: after field 22's tag (2 bytes) and length.
goal_body = len(goal_bytes()) + 2 + 1
profile_body = len(profile_bytes()) + 1 + 1

wire_cases = [
    wire_valid("a goal's reminders", ["REMIND-13", "WIRE-4", "WIRE-17"], "Goal", GOAL_WITH, GOAL_WITH,
               goal_with({"times": [450, 1200], "weekdays": ["monday", "friday"], "enabled": True}),
               GOAL_TEXT + "reminders {\n  times: 450\n  times: 1200\n  weekdays: 17\n  enabled: true\n}\n"),
    # Unpacked times in any order read the same; written packed in increasing order (WIRE-4, WIRE-6).
    wire_valid("unpacked times out of order are written packed in order", ["REMIND-13", "WIRE-6"], "Goal",
               goal_bytes(field_bytes(22, field_varint(1, 1200) + field_varint(1, 450) + field_varint(3, 1))),
               goal_bytes(field_bytes(22, field_packed(1, [450, 1200]) + field_varint(3, 1))),
               goal_with({"times": [450, 1200], "enabled": True}),
               GOAL_TEXT + "reminders {\n  times: 450\n  times: 1200\n  enabled: true\n}\n"),
    # enabled false is the default and is left out (WIRE-2); weekdays 0 is every due Day.
    wire_valid("reminders that are off", ["REMIND-13", "WIRE-2"], "Goal",
               goal_bytes(field_bytes(22, field_packed(1, [0]))), goal_bytes(field_bytes(22, field_packed(1, [0]))),
               goal_with({"times": [0], "enabled": False}),
               GOAL_TEXT + "reminders {\n  times: 0\n}\n"),
    wire_valid("an unknown field inside a goal's reminders is kept", ["REMIND-13", "WIRE-7", "MODEL-49"], "Goal",
               goal_bytes(field_bytes(22, UNKNOWN + goal_settings)),
               goal_bytes(field_bytes(22, goal_settings + UNKNOWN)),
               goal_with({"times": [450, 1200], "weekdays": ["monday", "friday"], "enabled": True}),
               None),
    wire_valid("a profile's reminders", ["REMIND-13", "WIRE-19"], "Profile", PROFILE_WITH, PROFILE_WITH,
               profile_with({"streakAtRisk": {"minute": 1260, "minimumStreak": 3},
                             "quietHours": {"start": 1320, "end": 420}, "snoozeMinutes": 15}),
               PROFILE_TEXT + "reminders {\n  streak_at_risk_minute: 1260\n  streak_at_risk_minimum: 3\n"
               "  quiet_start: 1320\n  quiet_end: 420\n  snooze_minutes: 15\n}\n"),
    wire_valid("a nudge and quiet hours at midnight keep their presence", ["REMIND-13", "WIRE-19"], "Profile",
               PROFILE_MIDNIGHT, PROFILE_MIDNIGHT,
               profile_with({"streakAtRisk": {"minute": 0, "minimumStreak": 1},
                             "quietHours": {"start": 0, "end": 360}, "snoozeMinutes": 10}),
               PROFILE_TEXT + "reminders {\n  streak_at_risk_minute: 0\n  streak_at_risk_minimum: 1\n"
               "  quiet_start: 0\n  quiet_end: 360\n  snooze_minutes: 10\n}\n"),
    # A snooze of 0 reads as ten minutes; the standard settings are then not written at all.
    wire_valid("empty settings are the standard ones and are not written", ["REMIND-13", "WIRE-2"], "Profile",
               profile_bytes(field_bytes(9, b"")), profile_bytes(), copy.deepcopy(PROFILE_JSON), PROFILE_TEXT),
    wire_valid("settings given twice merge", ["REMIND-13", "WIRE-6"], "Profile",
               profile_bytes(field_bytes(9, field_varint(3, 1320)) + field_bytes(9, field_varint(4, 420))),
               profile_bytes(field_bytes(9, field_varint(3, 1320) + field_varint(4, 420) + field_varint(5, 10))),
               profile_with({"quietHours": {"start": 1320, "end": 420}, "snoozeMinutes": 10}),
               PROFILE_TEXT + "reminders {\n  quiet_start: 1320\n  quiet_end: 420\n  snooze_minutes: 10\n}\n"),
]
wire_cases += wire_invalid("nine reminder times", ["REMIND-1", "WIRE-16"], "Goal",
                           goal_bytes(field_bytes(22, field_packed(1, list(range(9))))), goal_body)
wire_cases += wire_invalid("a reminder time of minute 1440", ["REMIND-1", "WIRE-16"], "Goal",
                           goal_bytes(field_bytes(22, field_packed(1, [1440]))), goal_body)
wire_cases += wire_invalid("no reminder time", ["REMIND-1", "WIRE-16"], "Goal",
                           goal_bytes(field_bytes(22, field_varint(3, 1))), goal_body)
# A weekday bit above bit 6 breaks WIRE-17: the offset is the field's tag.
wire_cases += wire_invalid("a weekday bit above Sunday", ["WIRE-17"], "Goal",
                           goal_bytes(field_bytes(22, field_packed(1, [60]) + field_varint(2, 128))), goal_body + 3)
wire_cases += wire_invalid("quiet hours with a start and no end", ["REMIND-1", "WIRE-16"], "Profile",
                           profile_bytes(field_bytes(9, field_varint(3, 1320))), profile_body)
wire_cases += wire_invalid("a nudge for streaks of length 0", ["REMIND-1", "WIRE-16"], "Profile",
                           profile_bytes(field_bytes(9, field_varint(1, 1260))), profile_body)
wire_cases += wire_invalid("a nudge for streaks of 2^32 − 1 Days", ["REMIND-1", "WIRE-16"], "Profile",
                           profile_bytes(field_bytes(9, field_varint(1, 1260) + field_varint(2, 2**32 - 1))),
                           profile_body)
wire_cases += wire_invalid("a snooze longer than a day", ["REMIND-1", "WIRE-16"], "Profile",
                           profile_bytes(field_bytes(9, field_varint(5, 1441))), profile_body)

write_cases("wire", "reminder_settings.json", "wire.decode",
            "Reminder settings in the goal and profile records (REMIND-13): canonical bytes, what protoc "
            "reads, and refusals.", wire_cases, "reminder-wire")
