import Foundation
import Testing

/// `glow-tool reminders` plans from the settings a bundle or data set keeps in its goals and
/// profile (REMIND-13): the expected plans below are worked from REMIND-2 ... REMIND-10.
@Suite("glow-tool reminders")
struct RemindersCommandTests {
    static let goal = "01938a6e-7c00-7abc-8def-00000000000a"

    /// Mia in London (UTC+1 in June) with a nudge at 21:00 for streaks of 3 or more, and a daily
    /// Run reminded at 07:30 and 20:00 (or at `times`), done on `done` Days at noon UTC.
    static func person(times: [Int] = [450, 1200], dayStart: Int = 0, done: [String]) -> [String: Any] {
        let checkIns: [[String: Any]] = done.map { day in
            [
                "goalID": goal, "day": day, "log": ["type": "done"], "firstRecordedAt": "\(day)T12:00:00.000Z",
                "lastRecordedAt": "\(day)T12:00:00.000Z", "timeZone": "Europe/London",
                "deviceID": "01938a6e-7c00-7abc-8def-00000000d001", "modifiedAt": "\(day)T12:00:00.000Z",
                "deleted": false,
            ]
        }
        return [
            "profile": [
                "userID": "01938a6e-7c00-7abc-8def-0000000000aa", "displayName": "Mia", "interests": [],
                "themeID": "default",
                "boundary": ["timeZone": "Europe/London", "dayStartMinutes": dayStart, "weekStart": "monday"],
                "reminders": ["streakAtRisk": ["minute": 1260, "minimumStreak": 3]],
                "createdAt": "2026-06-01T08:00:00.000Z", "modifiedAt": "2026-06-01T08:00:00.000Z",
            ],
            "goals": [
                [
                    "id": goal, "title": "Run", "emoji": "🏃", "kind": ["type": "streak"],
                    "schedule": [["effective": "2026-06-01", "rule": ["type": "daily"]]], "startDay": "2026-06-01",
                    "archiveHistory": [], "visibility": "private", "reminders": ["times": times],
                    "createdAt": "2026-06-01T08:00:00.000Z", "modifiedAt": "2026-06-01T08:00:00.000Z",
                    "deleted": false,
                ]
            ],
            "checkIns": checkIns,
        ]
    }

    static func write(_ data: [String: Any], _ name: String) throws -> String {
        let path = EndToEndTests.temporary(name)
        try JSONSerialization.data(withJSONObject: data).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func plan(_ arguments: [String]) throws -> [String: Any] {
        let run = try EndToEndTests.run(["reminders"] + arguments + ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    static func ids(_ plan: [String: Any], _ member: String = "notifications") -> [String] {
        ((plan[member] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    @Test("a streak of three at risk: both times of two Days and tonight's nudge, in plan order, from a bundle too")
    func atRisk() throws {
        let json = try Self.write(Self.person(done: ["2026-06-07", "2026-06-08", "2026-06-09"]), "at-risk.json")
        // 07:00 in London on 2026-06-10: today is pending after three done Days, so the streak of 3
        // breaks tonight (REMIND-6); both times of today and tomorrow are to come (REMIND-5).
        let expected = [
            "due/\(Self.goal)/2026-06-10/07:30", "due/\(Self.goal)/2026-06-10/20:00", "risk/\(Self.goal)/2026-06-10",
            "due/\(Self.goal)/2026-06-11/07:30", "due/\(Self.goal)/2026-06-11/20:00",
        ]
        let plan = try Self.plan([json, "--from", "2026-06-10T06:00:00Z", "--days", "2"])
        #expect(Self.ids(plan) == expected)
        let rows = try #require(plan["notifications"] as? [[String: Any]])
        // 07:30 and 20:00 of British Summer Time are 06:30 and 19:00 UTC; the nudge 20:00 UTC.
        #expect(
            rows.map { $0["at"] as? String } == [
                "2026-06-10T06:30:00.000Z", "2026-06-10T19:00:00.000Z", "2026-06-10T20:00:00.000Z",
                "2026-06-11T06:30:00.000Z", "2026-06-11T19:00:00.000Z",
            ])
        #expect(rows[0]["local"] as? String == "2026-06-10T07:30")
        #expect(rows[2]["arguments"] as? [String] == ["Run", "🏃", "3"])
        #expect(rows[2]["key"] as? String == "reminder.streakAtRisk")
        #expect(plan["timeZone"] as? String == "Europe/London")
        // The same settings read from a bundle give the same plan: they travel in the records.
        let bundle = EndToEndTests.temporary("at-risk.glow")
        let converted = try EndToEndTests.run(["convert", json, bundle])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(Self.ids(try Self.plan([bundle, "--from", "2026-06-10T06:00:00Z", "--days", "2"])) == expected)
        let text = try EndToEndTests.run(["reminders", bundle, "--from", "2026-06-10T06:00:00Z", "--days", "2"])
        #expect(text.stdout.hasPrefix("Reminders for Mia from Wed 2026-06-10 07:00 (Europe/London), 2 Days: 5 planned"))
        #expect(text.stdout.contains("  21:00  streak at risk 🏃 Run (a 3-Day streak would break tonight)\n"))
    }

    @Test("a Day done today has no reminders left and no nudge; the next Day keeps its own")
    func doneToday() throws {
        let path = try Self.write(
            Self.person(done: ["2026-06-07", "2026-06-08", "2026-06-09", "2026-06-10"]), "done-today.json")
        let plan = try Self.plan([path, "--from", "2026-06-10T12:30:00Z", "--days", "2"])
        #expect(Self.ids(plan) == ["due/\(Self.goal)/2026-06-11/07:30", "due/\(Self.goal)/2026-06-11/20:00"])
    }

    @Test("with a 03:00 day start, 01:30 falls on the next date and reminds about the Day before")
    func dayStart() throws {
        let path = try Self.write(Self.person(times: [90], dayStart: 180, done: []), "day-start.json")
        let run = try EndToEndTests.run(["reminders", path, "--from", "2026-06-10T06:00:00Z", "--days", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        // REMIND-3: the Day 2026-06-10's 01:30 is on the wall-clock date 2026-06-11.
        #expect(
            run.stdout.contains("Thu 2026-06-11\n  01:30  due            🏃 Run (for Wed 2026-06-10)\n"), "\(run.stdout)"
        )
    }

    @Test(
        "bad options are usage errors and a missing input a data error",
        arguments: [
            (["--days", "0"], 64, "--days"), (["--days", "32"], 64, "--days"), (["--days", "a"], 64, "--days"),
            (["--from", "yesterday"], 64, "--from"),
        ] as [([String], Int32, String)])
    func refused(_ options: [String], _ status: Int32, _ named: String) throws {
        let path = try Self.write(Self.person(done: []), "refused.json")
        let run = try EndToEndTests.run(["reminders", path] + options)
        #expect(run.status == status)
        #expect(run.stderr.contains(named), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("the README's example: quiet hours from 22:30 drop the water's 23:00, which would move past its Day")
    func example() throws {
        let path = EndToEndTests.root.appendingPathComponent("Spec/examples/reminders.json").path
        let plan = try Self.plan([path, "--from", "2026-11-28T07:00:00Z", "--days", "3"])
        let water = "01938a6e-7c00-7abc-8def-00000000000b"
        // Saturday and Sunday: Run only (the water is limited to weekdays); tonight's nudge for the
        // three Days done; Monday: Run twice and the water at 10:00 and 15:00 (REMIND-5, REMIND-7).
        #expect(
            Self.ids(plan) == [
                "due/\(Self.goal)/2026-11-28/07:30", "due/\(Self.goal)/2026-11-28/20:00",
                "risk/\(Self.goal)/2026-11-28", "due/\(Self.goal)/2026-11-29/07:30",
                "due/\(Self.goal)/2026-11-29/20:00", "due/\(Self.goal)/2026-11-30/07:30",
                "due/\(water)/2026-11-30/10:00", "due/\(water)/2026-11-30/15:00", "due/\(Self.goal)/2026-11-30/20:00",
            ])
    }

    @Test("a file that is not there is a data error")
    func missing() throws {
        let run = try EndToEndTests.run(["reminders", EndToEndTests.temporary("nowhere.json")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("nowhere.json"))
    }
}
