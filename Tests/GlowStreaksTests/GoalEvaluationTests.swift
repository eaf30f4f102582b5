import GlowModel
import GlowStreaks
import Testing

@Suite("GoalEvaluation")
struct GoalEvaluationTests {
    static let start = try! Day(iso: "2020-01-01")
    static let created = try! Instant(rfc3339: "2020-01-01T00:00:00Z")

    static func goal(_ kind: GoalKind = .streak, rule: ScheduleRule = .daily, deleted: Bool = false) throws -> Goal {
        try Goal(
            id: GoalID(high: 1, low: 1), title: "Goal", kind: kind,
            schedule: kind.isRecurring ? try Schedule(rule, from: start) : nil, startDay: start, createdAt: created,
            modifiedAt: created, deleted: deleted)
    }

    static func done(_ day: Day, goal: GoalID = GoalID(high: 1, low: 1)) throws -> CheckIn {
        try CheckIn(
            goalID: goal, day: day, log: .done, firstRecordedAt: created, lastRecordedAt: created, timeZone: .utc,
            deviceID: DeviceID(high: 0, low: 0), modifiedAt: created)
    }

    @Test("any Day can be asked about, whatever the goal's state", arguments: [false, true])
    func everyDayAnswers(deleted: Bool) throws {
        let goal = try Self.goal(deleted: deleted)
        let evaluation = GoalEvaluation(
            goal: goal, checkIns: [try Self.done(Self.start)], weekStart: .monday, today: Self.start.advanced(by: 1))
        let expected: [(Day, DayStatus, Int)] = [
            (Day.min, .notDue, 0), (Self.start.advanced(by: -1), .notDue, 0), (Self.start, .done, 4),
            (Self.start.advanced(by: 1), .pending, 0), (Self.start.advanced(by: 10), .upcoming, 0),
            (Day.max, .upcoming, 0),
        ]
        for (day, status, level) in expected {
            #expect(evaluation.status(on: day) == (deleted ? .notDue : status), "\(day)")
            #expect(evaluation.level(on: day) == (deleted ? 0 : level), "\(day)")
        }
        #expect(deleted ? evaluation.currentStreak == nil : evaluation.currentStreak?.length == 1)
        #expect(deleted ? evaluation.consistency(lastDays: 7) == nil : evaluation.consistency(lastDays: Int.max) != nil)
    }

    @Test("today before the start Day: nothing is due yet and nothing crashes")
    func beforeStart() throws {
        for kind in [GoalKind.streak, .single, .countdown(CountdownConfig(targetDay: Self.start.advanced(by: 9)))] {
            let evaluation = GoalEvaluation(
                goal: try Self.goal(kind), checkIns: [], weekStart: .monday, today: Self.start.advanced(by: -5))
            #expect(evaluation.status(on: Self.start.advanced(by: -5)) == .notDue)
            #expect(evaluation.currentStreak == nil && evaluation.longestStreak == nil)
            #expect(!evaluation.isOnToday)
        }
    }

    @Test("check-ins of other goals are ignored")
    func otherGoals() throws {
        let other = GoalID(high: 2, low: 2)
        let evaluation = GoalEvaluation(
            goal: try Self.goal(), checkIns: [try Self.done(Self.start, goal: other)], weekStart: .monday,
            today: Self.start)
        #expect(evaluation.status(on: Self.start) == .pending)
    }

    @Test("five years of daily history: streaks, milestones and ranges agree")
    func longHistory() throws {
        let today = Self.start.advanced(by: 5 * 365)
        let checkIns = try (Self.start...today).filter { $0.daysSince1970 % 97 != 0 }.map { try Self.done($0) }
        let evaluation = GoalEvaluation(goal: try Self.goal(), checkIns: checkIns, weekStart: .monday, today: today)
        let statuses = evaluation.statuses(in: Self.start...today)
        #expect(
            statuses.filter { $0 == .missed }.count == (Self.start...today).filter { $0.daysSince1970 % 97 == 0 }.count)
        #expect(evaluation.longestStreak?.length == 96)
        #expect(evaluation.milestones.allSatisfy { $0.id.milestone <= 96 })
        let sinceStart = try #require(evaluation.consistency(lastDays: nil))
        #expect(sinceStart.due == statuses.count && sinceStart.done == checkIns.count)
    }

    @Test("milestone changes are idempotent")
    func milestoneChanges() throws {
        let today = Self.start.advanced(by: 20)
        let checkIns = try (Self.start...today).map { try Self.done($0) }
        let milestones = GoalEvaluation(goal: try Self.goal(), checkIns: checkIns, weekStart: .monday, today: today)
            .milestones
        #expect(milestones.map(\.id.milestone) == [3, 7, 14, 21])
        let first = Milestone.changes(announced: [], current: milestones)
        #expect(first.new == milestones && first.revoked.isEmpty)
        let again = Milestone.changes(announced: Set(milestones.map(\.id)), current: milestones)
        #expect(again.new.isEmpty && again.revoked.isEmpty)
    }

    @Test("the Overview grid has whole weeks ending with today's")
    func overviewGrid() throws {
        let today = try Day(iso: "2025-06-11")
        let items = OverviewQuery.items(
            goals: [try Self.goal()], checkIns: [], weekStart: .sunday, today: today, weeks: 4)
        let grid = try #require(items.first?.grid)
        #expect(grid.count == 28)
        #expect(grid.first?.day.weekday == .sunday)
        #expect(grid.last?.day.description == "2025-06-14")
    }
}
