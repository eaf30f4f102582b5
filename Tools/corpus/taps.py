#!/usr/bin/env python3
"""Writes Spec/corpus/model/taps.json and Spec/corpus/bundle/merge_taps.json: check-ins made of
taps that merge without losing any (MODEL-52 ... MODEL-55, BUNDLE-22).

Each expected check-in is written out by hand from the rules: taps ordered by instant (an undo
after the taps of its instant), then device, then sequence; the visible taps are those after the
last undo; the log is them applied in order; the recorded instants, zone and device describe them.
Nothing here runs the SDK. Run from the repository root:

    python3 Tools/corpus/taps.py
"""
import itertools
import json
from corpus_file import command_line

command_line(__doc__)

GOAL = "01938a6e-7c00-7abc-8def-0000000000a1"
DAY = "2025-03-09"
P, W, T = ("01938a6e-7c00-7abc-8def-00000000d00%d" % i for i in (1, 2, 3))  # phone, watch, tablet
ZONE = "Europe/London"
A, B = "01938a6e-7c00-7abc-8def-00000000000a", "01938a6e-7c00-7abc-8def-00000000000b"


def at(time):
    return "%sT%s:00.000Z" % (DAY, time)


def compact(device, log, time, modified=None, deleted=False, note=None, first=None):
    """A check-in in the compact form (MODEL-55): one device's one tap, undone when deleted."""
    value = {"goalID": GOAL, "day": DAY, "log": log, "firstRecordedAt": at(first or time),
             "lastRecordedAt": at(time), "timeZone": ZONE, "deviceID": device,
             "modifiedAt": at(modified or time), "deleted": deleted}
    if note is not None:
        value["note"] = note
    return value


def tap(device, sequence, time, action, first=None):
    value = {"deviceID": device, "sequence": sequence, "at": at(time), "timeZone": ZONE, "action": action}
    if first:
        value["firstAt"] = at(first)
    return value


def tapped(taps, modified, **derived):
    """A check-in that lists its taps, with the members that describe them (MODEL-53)."""
    value = {"goalID": GOAL, "day": DAY, "log": derived["log"], "firstRecordedAt": at(derived["first"]),
             "lastRecordedAt": at(derived["last"]), "timeZone": ZONE, "deviceID": derived["device"],
             "modifiedAt": at(modified), "deleted": derived.get("deleted", False), "taps": taps}
    if "note" in derived:
        value["note"] = derived["note"]
    return value


def count(n):
    return {"type": "count", "count": n}


def tally(n):
    return {"type": "tally", "count": n}


DONE = {"type": "done"}
UNDO = {"type": "undo"}


def merge_case(id_, comment, rules, records, expected):
    return {"id": id_, "comment": comment, "rules": rules, "flags": [], "input": {"checkIns": records},
            "result": "valid", "expected": expected}


def main():
    cases = []
    n = itertools.count(1)

    def next_id():
        return "taps-%03d" % next(n)

    # Phone +3 at 08:00 and watch +2 at 10:00: two devices' taps, 5 in all; the last is the watch's.
    phone, watch = compact(P, tally(3), "08:00"), compact(W, tally(2), "10:00")
    five = tapped([tap(P, 0, "08:00", count(3)), tap(W, 0, "10:00", count(2))], "10:00",
                  log=tally(5), first="08:00", last="10:00", device=W)
    cases.append(merge_case(next_id(), "three glasses on the phone and two on the watch, logged offline, are five",
                            ["MODEL-54", "MODEL-53", "MODEL-55"], [phone, watch], five))
    cases.append(merge_case(next_id(), "the same two records merged the other way round give the same five",
                            ["MODEL-54"], [watch, phone], five))
    cases.append(merge_case(next_id(), "a merged record merged with itself is unchanged", ["MODEL-54"], [five, five], five))
    # Three devices in every order: +1 at 08:00, +2 at 09:00, +4 at 10:00 make 7.
    three = [compact(P, tally(1), "08:00"), compact(W, tally(2), "09:00"), compact(T, tally(4), "10:00")]
    seven = tapped([tap(P, 0, "08:00", count(1)), tap(W, 0, "09:00", count(2)), tap(T, 0, "10:00", count(4))],
                   "10:00", log=tally(7), first="08:00", last="10:00", device=T)
    for order in itertools.permutations(range(3)):
        cases.append(merge_case(next_id(), "three devices merged in the order %s agree on 7" % "-".join("PWT"[i] for i in order),
                                ["MODEL-54"], [three[i] for i in order], seven))
    # An undo races a tap. The watch saw the phone's done and undid the Day at 10:00; the phone,
    # offline, tapped done again at 11:00: after the undo, so it stays.
    watch_undo = tapped([tap(P, 0, "09:00", DONE), tap(W, 0, "10:00", UNDO)], "10:00",
                        log=DONE, first="09:00", last="09:00", device=P, deleted=True)
    phone_again = tapped([tap(P, 0, "09:00", DONE), tap(P, 1, "11:00", DONE)], "11:00",
                         log=DONE, first="09:00", last="11:00", device=P)
    cases.append(merge_case(next_id(), "a tap made after another device's undo survives it",
                            ["MODEL-36", "MODEL-54"], [watch_undo, phone_again],
                            tapped([tap(P, 0, "09:00", DONE), tap(W, 0, "10:00", UNDO), tap(P, 1, "11:00", DONE)],
                                   "11:00", log=DONE, first="11:00", last="11:00", device=P)))
    # The phone's second tap at 09:30 came before the watch's undo: hidden, so the Day is undone,
    # showing what the undo hid (both taps, 09:00 to 09:30).
    phone_before = tapped([tap(P, 0, "09:00", DONE), tap(P, 1, "09:30", DONE)], "09:30",
                          log=DONE, first="09:00", last="09:30", device=P)
    cases.append(merge_case(next_id(), "a tap made before another device's undo is hidden by it, wherever it was made",
                            ["MODEL-36", "MODEL-54"], [phone_before, watch_undo],
                            tapped([tap(P, 0, "09:00", DONE), tap(P, 1, "09:30", DONE), tap(W, 0, "10:00", UNDO)],
                                   "10:00", log=DONE, first="09:00", last="09:30", device=P, deleted=True)))
    # An undo in the same second as a tap comes after it, and hides it.
    cases.append(merge_case(next_id(), "an undo in the same second as a tap hides it",
                            ["MODEL-53"], [compact(P, DONE, "10:00"),
                                           tapped([tap(P, 0, "10:00", DONE), tap(W, 0, "10:00", UNDO)], "10:00",
                                                  log=DONE, first="10:00", last="10:00", device=P, deleted=True)],
                            tapped([tap(P, 0, "10:00", DONE), tap(W, 0, "10:00", UNDO)], "10:00",
                                   log=DONE, first="10:00", last="10:00", device=P, deleted=True)))
    # The same device's later edit: two versions of its one tap; the later instant is kept, so
    # 3 then 5 is 5, not 8, and the result is compact again.
    cases.append(merge_case(next_id(), "the same device's later edit replaces its earlier version, it does not add",
                            ["MODEL-54", "MODEL-55"], [compact(P, tally(3), "08:00"), compact(P, tally(5), "09:00")],
                            compact(P, tally(5), "09:00")))
    # Two versions of the phone's one tap at the same instant: neither is later, so the greater
    # canonical JSON (MODEL-51) is kept: {"action":{"type":"skip"},...} sorts after "done".
    cases.append(merge_case(next_id(), "two versions of one tap at one instant: the greater canonical JSON is kept",
                            ["MODEL-51", "MODEL-54"], [compact(P, {"type": "skip"}, "10:00"), compact(P, DONE, "10:00")],
                            compact(P, {"type": "skip"}, "10:00")))
    # Items: checked on the phone at 08:00, unchecked on the watch at 09:00, the phone checks b at 10:00.
    check = lambda items: {"type": "check", "items": items}  # noqa: E731
    uncheck = lambda items: {"type": "uncheck", "items": items}  # noqa: E731
    phone_items = tapped([tap(P, 0, "08:00", check([A])), tap(P, 1, "10:00", check([B]))], "10:00",
                         log={"type": "items", "items": [A, B]}, first="08:00", last="10:00", device=P)
    watch_items = tapped([tap(P, 0, "08:00", check([A])), tap(W, 0, "09:00", uncheck([A]))], "09:00",
                         log={"type": "items", "items": []}, first="08:00", last="09:00", device=W)
    cases.append(merge_case(next_id(), "an item unchecked on the watch after the phone checked it stays unchecked; one checked later stays checked",
                            ["MODEL-54", "MODEL-35"], [phone_items, watch_items],
                            tapped([tap(P, 0, "08:00", check([A])), tap(W, 0, "09:00", uncheck([A])),
                                    tap(P, 1, "10:00", check([B]))], "10:00",
                                   log={"type": "items", "items": [B]}, first="08:00", last="10:00", device=P)))
    # Amounts add across devices; values take the newest.
    cases.append(merge_case(next_id(), "amounts logged on two devices add up",
                            ["MODEL-54"], [compact(P, {"type": "amount", "amount": "1.5"}, "08:00"),
                                           compact(W, {"type": "amount", "amount": "2.25"}, "09:00")],
                            tapped([tap(P, 0, "08:00", {"type": "add", "amount": "1.5"}),
                                    tap(W, 0, "09:00", {"type": "add", "amount": "2.25"})], "09:00",
                                   log={"type": "amount", "amount": "3.75"}, first="08:00", last="09:00", device=W)))
    cases.append(merge_case(next_id(), "of values from two devices the newest wins",
                            ["MODEL-54"], [compact(W, {"type": "value", "value": "69.5"}, "09:00"),
                                           compact(P, {"type": "value", "value": "70"}, "08:00")],
                            tapped([tap(P, 0, "08:00", {"type": "value", "value": "70"}),
                                    tap(W, 0, "09:00", {"type": "value", "value": "69.5"})], "09:00",
                                   log={"type": "value", "value": "69.5"}, first="08:00", last="09:00", device=W)))
    # Notes: the one set last wins; set at the record's modifiedAt, so noteAt is not written.
    cases.append(merge_case(next_id(), "the note set last wins",
                            ["MODEL-54"], [compact(P, tally(1), "08:00", note="morning"),
                                           compact(W, tally(2), "20:00", note="evening")],
                            tapped([tap(P, 0, "08:00", count(1)), tap(W, 0, "20:00", count(2))], "20:00",
                                   log=tally(3), first="08:00", last="20:00", device=W, note="evening")))
    # A record that never had a note loses to one that did: the phone's "morning" stays although
    # the watch's record is later (MODEL-54, MODEL-55: a compact record without a note never had one).
    cases.append(merge_case(next_id(), "a record that never had a note keeps the other's note",
                            ["MODEL-54", "MODEL-55"], [compact(P, tally(1), "08:00", note="morning"),
                                                       compact(W, tally(2), "20:00")],
                            dict(tapped([tap(P, 0, "08:00", count(1)), tap(W, 0, "20:00", count(2))], "20:00",
                                        log=tally(3), first="08:00", last="20:00", device=W, note="morning"),
                                 noteAt=at("08:00"))))
    # checkin.record: taps from two devices into one record.
    goal = {"id": GOAL, "title": "Water", "kind": {"type": "tally", "dailyTarget": 8, "unit": "glasses"},
            "startDay": "2025-01-01", "createdAt": "2025-01-01T00:00:00.000Z",
            "modifiedAt": "2025-01-01T00:00:00.000Z", "schedule": [{"effective": "2025-01-01", "rule": {"type": "daily"}}]}
    record = [{"id": next_id(), "comment": "taps from two devices into one record: each device numbers its own",
               "rules": ["MODEL-35", "MODEL-52"], "flags": [],
               "input": {"goal": goal, "day": DAY, "deviceID": P,
                         "taps": [{"tap": "count", "delta": 3, "at": at("08:00"), "timeZone": ZONE},
                                  {"tap": "count", "delta": 2, "at": at("09:00"), "timeZone": ZONE, "deviceID": W},
                                  {"tap": "count", "delta": 1, "at": at("10:00"), "timeZone": ZONE}]},
               "result": "valid",
               "expected": tapped([tap(P, 0, "08:00", count(3)), tap(W, 0, "09:00", count(2)),
                                   tap(P, 1, "10:00", count(1))], "10:00",
                                  log=tally(6), first="08:00", last="10:00", device=P)}]
    # JSON: one tap listed is the compact form and is written compactly; bad tap lists.
    decode = [{"id": next_id(), "comment": "a check-in that lists one tap is compact and is written without taps",
               "rules": ["MODEL-55"], "flags": [],
               "input": {"type": "CheckIn", "json": {"goalID": GOAL, "day": DAY, "modifiedAt": at("08:00"),
                                                     "taps": [tap(P, 0, "08:00", count(3))]}},
               "result": "valid", "expected": {"canonical": compact(P, tally(3), "08:00")}}]
    for comment, taps in [("two taps with one device and sequence", [tap(P, 0, "08:00", count(1)), tap(P, 0, "09:00", count(2))]),
                          ("taps that are all undos", [tap(P, 0, "08:00", UNDO)]),
                          ("a tap whose firstAt is after its at", [tap(P, 0, "08:00", count(1), first="09:00")])]:
        decode.append({"id": next_id(), "comment": "a check-in with %s is invalid" % comment, "rules": ["MODEL-52"],
                       "flags": [], "input": {"type": "CheckIn", "json": {"goalID": GOAL, "day": DAY,
                                                                          "modifiedAt": at("10:00"), "taps": taps}},
                       "result": "invalid", "error": {"code": "invalid_check_in"}})
    write("Spec/corpus/model/taps.json", "model", "checkin.merge",
          "Check-ins of taps from several devices: merges that lose no tap.", cases)
    write("Spec/corpus/model/taps_record.json", "model", "checkin.record", "Taps from several devices into one record.",
          record)
    write("Spec/corpus/model/taps_json.json", "model", "json.decode", "The JSON form of check-ins with taps.", decode)
    # BUNDLE-22: two data sets, the phone's and the watch's, merge to five glasses.
    goal_json = dict(goal, archiveHistory=[], visibility="private", deleted=False)
    bundle_case = {"id": "merge-taps-001", "comment": "the phone's and the watch's data sets merge to five glasses",
                   "rules": ["BUNDLE-22", "MODEL-54"], "flags": [],
                   "input": {"sets": [{"goals": [goal], "checkIns": [phone]}, {"goals": [goal], "checkIns": [watch]}]},
                   "result": "valid", "expected": {"data": {"goals": [goal_json], "checkIns": [five]}}}
    write("Spec/corpus/bundle/merge_taps.json", "bundle", "bundle.merge",
          "Data sets of several devices merge without losing a tap.", [bundle_case])


def write(path, area, operation, description, cases):
    with open(path, "w") as out:
        json.dump({"area": area, "operation": operation, "description": description, "cases": cases}, out,
                  indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
