import Foundation
import GlowModel
import Testing

@Suite("Goals, drafts and the catalogue")
struct GoalTests {
    @Test("a model error about a draft reads as a draft issue of its field, code and message")
    func issueFromError() {
        let issue = DraftIssue(
            ModelError(.invalidGoal, "the end is before the start", path: "endDay", rule: "MODEL-13"))
        #expect(issue.field == "endDay" && issue.code.rawValue == "invalid_goal")
        #expect(issue.message == "the end is before the start")
    }

    static let today = try! Day(iso: "2026-11-29")
    static let now = try! Instant(rfc3339: "2026-11-29T09:00:00Z")

    @Test("the catalogue has eight interests of at least four valid templates, with unique ids")
    func catalogue() throws {
        let interests = InspirationCatalogue.interests
        #expect(interests.count >= 8)
        var templateIDs = Set<TemplateID>()
        var kinds = Set<GoalKind.Name>()
        for interest in interests {
            #expect(interest.templates.count >= 4, "\(interest.id)")
            #expect(InspirationCatalogue.interest(interest.id) == interest)
            for template in interest.templates {
                #expect(templateIDs.insert(template.id).inserted, "duplicate \(template.id)")
                #expect(template.interestID == interest.id)
                #expect(template.draft.templateID == template.id)
                #expect(template.draft.validate(today: Self.today).isEmpty, "\(template.draft.title)")
                #expect(InspirationCatalogue.template(template.id) == template)
                let goal = try template.draft.makeGoal(id: GoalID(high: 1, low: 2), today: Self.today, now: Self.now)
                #expect(goal.templateID == template.id)
                kinds.insert(goal.kind.name)
            }
        }
        #expect(kinds.isSuperset(of: [.single, .subgoals, .progress, .value, .tally, .streak]))
    }

    @Test("a valid draft becomes a goal that starts today with a one-entry schedule")
    func draftToGoal() throws {
        let draft = GoalDraft(
            title: "  Read 20 pages ", emoji: "📖", kind: .tally(TallyConfig(dailyTarget: 20, unit: "pages")),
            schedule: .timesPerWeek(5))
        let goal = try draft.makeGoal(id: GoalID(high: 9, low: 9), today: Self.today, now: Self.now)
        #expect(goal.title == "Read 20 pages")
        #expect(goal.startDay == Self.today)
        #expect(goal.schedule?.entries == [Schedule.Entry(effective: Self.today, rule: .timesPerWeek(5))])
        #expect(goal.createdAt == Self.now && goal.modifiedAt == Self.now)
        #expect(!goal.archived && !goal.deleted && goal.visibility == .private)
    }

    @Test("an invalid draft reports every issue and makes no goal")
    func invalidDraft() {
        let draft = GoalDraft(
            title: "", kind: .streak, schedule: .weekdays([]), startDay: Self.today, endDay: Self.today.advanced(by: -1)
        )
        #expect(draft.validate(today: Self.today).map(\.code) == [.titleEmpty, .weekdaysEmpty, .endBeforeStart])
        do {
            _ = try draft.makeGoal(id: GoalID(high: 1, low: 1), today: Self.today, now: Self.now)
            Issue.record("an invalid draft became a goal")
        } catch {
            #expect(error.code == .draftInvalid)
            #expect(error.issues.count == 3)
            #expect(error.path == "title")
        }
    }

    @Test("a schedule change keeps judging past Days by the old rule")
    func scheduleChange() throws {
        let start = try Day(iso: "2025-01-01")
        var schedule = try Schedule(.daily, from: start)
        try schedule.change(to: .weekdays([.monday]), from: try Day(iso: "2025-02-01"))
        try schedule.change(to: .everyNDays(3), from: try Day(iso: "2025-03-01"))
        try schedule.change(to: .timesPerWeek(2), from: try Day(iso: "2025-02-15"))  // replaces the March entry
        #expect(schedule.entries.map(\.rule) == [.daily, .weekdays([.monday]), .timesPerWeek(2)])
        #expect(schedule.entry(on: try Day(iso: "2025-01-31")).rule == .daily)
        #expect(schedule.entry(on: try Day(iso: "2025-12-31")).rule == .timesPerWeek(2))
        #expect(throws: ModelError.self) { try schedule.change(to: .daily, from: try Day(iso: "2024-12-31")) }
        #expect(throws: ModelError.self) { try schedule.change(to: .timesPerWeek(0), from: try Day(iso: "2025-06-01")) }
        #expect(schedule.entries.count == 3, "a refused change leaves the schedule as it was")
    }

    @Test("goals refuse contradictions")
    func goalValidation() throws {
        let start = try Day(iso: "2025-01-01")
        #expect(throws: ModelError.self) {
            try Goal(
                id: GoalID(high: 1, low: 1), title: "Walk", kind: .streak, schedule: nil, startDay: start,
                createdAt: Self.now, modifiedAt: Self.now)
        }
        #expect(throws: ModelError.self) {
            try Goal(
                id: GoalID(high: 1, low: 1), title: "Walk", kind: .single, schedule: try Schedule(.daily, from: start),
                startDay: start, createdAt: Self.now, modifiedAt: Self.now)
        }
    }

    @Test("every catalogue goal survives a JSON round trip")
    func jsonRoundTrip() throws {
        for (index, template) in InspirationCatalogue.interests.flatMap(\.templates).enumerated() {
            let goal = try template.draft.makeGoal(
                id: GoalID(high: UInt64(index), low: 7), today: Self.today, now: Self.now)
            let data = try GlowJSON.encode(goal)
            #expect(try GlowJSON.decode(Goal.self, from: data) == goal)
            #expect(try GlowJSON.encode(try GlowJSON.decode(Goal.self, from: data)) == data, "canonical output")
        }
    }

    @Test("JSON errors name the path")
    func jsonErrors() {
        do {
            _ = try GlowJSON.decode(Profile.self, from: #"{"userID": "x"}"#)
            Issue.record("decoded an invalid profile")
        } catch {
            #expect(error.code == .invalidUUID)
            #expect(error.path == "$.userID")
        }
        do {
            _ = try GlowJSON.decode([Weekday].self, from: #"["monday", "someday"]"#)
            Issue.record("decoded an unknown weekday")
        } catch {
            #expect(error.code == .unknownEnumCase)
            #expect(error.path == "$[1]")
            #expect(error.message.contains("someday"))
        }
    }
}

@Suite("Check-ins")
struct CheckInTests {
    static let device = DeviceID(high: 0xD, low: 0xD)
    static let day = try! Day(iso: "2025-03-09")

    func goal(_ kind: GoalKind) throws -> Goal {
        let start = try Day(iso: "2025-01-01")
        let now = try Instant(rfc3339: "2025-01-01T00:00:00Z")
        return try Goal(
            id: GoalID(high: 1, low: 1), title: "Goal", kind: kind,
            schedule: kind.isRecurring ? try Schedule(.daily, from: start) : nil, startDay: start, createdAt: now,
            modifiedAt: now)
    }

    @Test("an existing entry of another goal or Day is refused")
    func wrongKey() throws {
        let streak = try goal(.streak)
        let at = try Instant(rfc3339: "2025-03-09T10:00:00Z")
        let entry = try CheckIn.record(.done, for: streak, on: Self.day, at: at, timeZone: .utc, deviceID: Self.device)
        #expect(throws: ModelError.self) {
            try CheckIn.record(
                .done, for: streak, on: Self.day.advanced(by: 1), at: at, timeZone: .utc,
                deviceID: Self.device, existing: entry)
        }
    }

    @Test("a refused tap leaves the stored entry untouched")
    func refusedTap() throws {
        let tally = try goal(.tally(TallyConfig(dailyTarget: 8, unit: "")))
        let at = try Instant(rfc3339: "2025-03-09T10:00:00Z")
        let entry = try CheckIn.record(
            .count(2), for: tally, on: Self.day, at: at, timeZone: .utc, deviceID: Self.device)
        let copy = entry
        #expect(throws: ModelError.self) {
            try CheckIn.record(
                .value(try Amount(3)), for: tally, on: Self.day, at: at, timeZone: .utc,
                deviceID: Self.device, existing: entry)
        }
        #expect(entry == copy)
        #expect(entry.log == .tally(2))
    }

    @Test("amounts beyond the limit are refused, not wrapped")
    func amountLimit() throws {
        let big = try Amount(parsing: "999999999999.999")
        #expect(throws: ModelError.self) { try big.adding(try Amount(parsing: "0.001")) }
        #expect(try big.adding(try Amount(parsing: "-0.999")).description == "999999999999")
    }

    @Test(
        "instants round-trip through text",
        arguments: [0, -1, 1_741_505_400_123, Instant.min.millisecondsSince1970, Instant.max.millisecondsSince1970])
    func instantText(millis: Int64) throws {
        let instant = try Instant(millisecondsSince1970: millis)
        #expect(try Instant(rfc3339: instant.description) == instant)
    }
}

@Suite("Values at the edges")
struct EdgeValueTests {
    @Test("instants outside years 1...9999 cannot be built, and arithmetic leaving them throws")
    func instants() throws {
        #expect(throws: ModelError.self) { try Instant(millisecondsSince1970: Instant.max.millisecondsSince1970 + 1) }
        #expect(throws: ModelError.self) { try Instant(millisecondsSince1970: Instant.min.millisecondsSince1970 - 1) }
        #expect(throws: ModelError.self) { try Instant.max.adding(milliseconds: 1) }
        #expect(throws: ModelError.self) { try Instant.min.adding(milliseconds: Int64.min) }
        #expect(try Instant.max.adding(milliseconds: -1).millisecondsSince1970 == Instant.max.millisecondsSince1970 - 1)
    }

    @Test("tallies stay within 0...2^32-1 and taps saturate there")
    func tallies() throws {
        let goal = try Goal(
            id: GoalID(high: 1, low: 1), title: "Count", kind: .tally(TallyConfig(dailyTarget: 8, unit: "x")),
            schedule: Schedule(.daily, from: Day(iso: "2025-01-01")), startDay: Day(iso: "2025-01-01"),
            createdAt: .epoch, modifiedAt: .epoch)
        let day = try Day(iso: "2025-01-02")
        let device = DeviceID(high: 0, low: 1)
        let at = try Instant(rfc3339: "2025-01-02T10:00:00Z")
        var entry = try CheckIn.record(.count(Int.max), for: goal, on: day, at: at, timeZone: .utc, deviceID: device)
        #expect(entry.log == .tally(CheckIn.tallyLimit))
        entry = try CheckIn.record(
            .count(5), for: goal, on: day, at: at, timeZone: .utc, deviceID: device, existing: entry)
        #expect(entry.log == .tally(CheckIn.tallyLimit))
        entry = try CheckIn.record(
            .count(Int.min), for: goal, on: day, at: at, timeZone: .utc, deviceID: device, existing: entry)
        #expect(entry.log == .tally(0))
        #expect(throws: ModelError.self) {
            try CheckIn(
                goalID: goal.id, day: day, log: .tally(CheckIn.tallyLimit + 1), firstRecordedAt: at, lastRecordedAt: at,
                timeZone: .utc, deviceID: device, modifiedAt: at)
        }
    }

    /// A daily yes/no goal "Read" from 2025-01-01, made at the epoch.
    static func reading() throws -> Goal {
        try Goal(
            id: GoalID(high: 1, low: 1), title: "Read", kind: .streak,
            schedule: Schedule(.daily, from: Day(iso: "2025-01-01")), startDay: Day(iso: "2025-01-01"),
            createdAt: .epoch, modifiedAt: .epoch)
    }

    @Test("an edit that breaks a rule changes nothing")
    func edits() throws {
        var goal = try Self.reading()
        let before = goal
        #expect(throws: ModelError.self) { try goal.edit(at: .epoch) { $0.title = "   " } }
        #expect(throws: ModelError.self) {
            try goal.edit(at: .epoch) { $0.kind = .tally(TallyConfig(dailyTarget: 0, unit: "x")) }
        }
        #expect(goal == before)
        let later = try Instant(rfc3339: "2025-02-01T00:00:00Z")
        try goal.edit(at: later) { $0.title = "Read more" }
        #expect(goal.title == "Read more" && goal.modifiedAt == later && goal.createdAt == .epoch)
    }

    struct Interrupted: Error {}

    @Test("an edit closure takes plain try of any model call; its errors reach the caller typed")
    func untypedEditClosures() throws {
        var goal = try Self.reading()
        // No typed parameter: the closure throws `any Error` and the mutator still compiles.
        try goal.edit(at: .epoch) { $0.reminders = try GoalReminders(times: [8 * 60]) }
        #expect(goal.reminders?.times == [8 * 60])
        let before = goal
        let cases: [(String, (inout Goal.Changes) throws -> Void)] = [
            ("invalid_reminder", { $0.reminders = try GoalReminders(times: [24 * 60]) }),
            ("edit_failed", { _ in throw Interrupted() }),
            (
                "edit_failed",
                {
                    $0.title = "Half"; throw CancellationError()
                }
            ),
        ]
        for (code, change) in cases {
            do {
                try goal.edit(at: .epoch, change)
                Issue.record("an edit that threw changed the goal")
            } catch {
                #expect(error.code.description == code)
            }
            #expect(goal == before)
        }
    }
}
