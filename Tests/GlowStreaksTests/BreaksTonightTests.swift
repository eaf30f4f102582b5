import GlowModel
import GlowStreaks
import Testing

/// `breaksTonight` (REMIND-6) against its definition: the current streak as of the next Day, with
/// nothing more recorded, no longer starts where today's does.
@Suite("Breaks tonight")
struct BreaksTonightTests {
    static let rules: [ScheduleRule] = [
        .daily, .weekdays([.monday, .wednesday, .friday, .saturday]), .everyNDays(2), .timesPerWeek(3),
        .timesPerMonth(4),
    ]

    @Test("equals evaluating as of the next Day, over random goals, forgiveness and histories")
    func definition() throws {
        var random = SeededRandom(seed: 41)
        let start = try Day(iso: "2026-01-05")
        var breaking = 0
        for round in 0..<600 {
            let rule = Self.rules[round % Self.rules.count]
            let forgiveness: Forgiveness? =
                switch random.next() % 3 {
                case 0: nil
                case 1: Forgiveness(allowance: 1 + Int(random.next() % 2), period: .week)
                default: Forgiveness(allowance: 1 + Int(random.next() % 3), period: .month)
                }
            let goal = try Goal(
                id: GoalID(high: 1, low: 1), title: "Goal", kind: .streak, schedule: try Schedule(rule, from: start),
                startDay: start, forgiveness: forgiveness, createdAt: GoalEvaluationTests.created,
                modifiedAt: GoalEvaluationTests.created)
            let today = start.advanced(by: 20 + Int(random.next() % 60))
            var checkIns: [CheckIn] = []
            // Most Days done, so streaks run; today left open in half the rounds.
            let openToday = round % 2 == 0
            for offset in 0...start.days(to: today) where random.next() % 100 < 85 {
                if openToday, offset == start.days(to: today) { continue }
                var checkIn = try GoalEvaluationTests.done(start.advanced(by: offset))
                // Some skips, which excuse periods (STREAK-12) and keep day-based streaks.
                if random.next() % 12 == 0 {
                    checkIn = try CheckIn(
                        goalID: checkIn.goalID, day: checkIn.day, log: .skip, firstRecordedAt: checkIn.firstRecordedAt,
                        lastRecordedAt: checkIn.lastRecordedAt, timeZone: .utc, deviceID: checkIn.deviceID,
                        modifiedAt: checkIn.modifiedAt)
                }
                checkIns.append(checkIn)
            }
            let evaluation = GoalEvaluation(goal: goal, checkIns: checkIns, weekStart: .monday, today: today)
            let tomorrow = GoalEvaluation(
                goal: goal, checkIns: checkIns, weekStart: .monday, today: today.advanced(by: 1))
            let waits: Bool
            switch evaluation.status(on: today) {
            case .pending, .partial: waits = true
            default: waits = false
            }
            let expected =
                waits && evaluation.currentStreak != nil
                && tomorrow.currentStreak?.start != evaluation.currentStreak?.start
            #expect(evaluation.breaksTonight == expected, "round \(round): \(rule), \(today)")
            if expected { breaking += 1 }
        }
        #expect(breaking >= 40, "only \(breaking) of 600 would break: the comparison had little to check")
    }

    @Test("statuses(of:) equals status(on:) Day by Day, past, today and future, for every rule")
    func statuses() throws {
        var random = SeededRandom(seed: 43)
        let start = try Day(iso: "2026-01-05")
        for round in 0..<100 {
            let rule = Self.rules[round % Self.rules.count]
            let goal = try Goal(
                id: GoalID(high: 1, low: 1), title: "Goal", kind: .streak, schedule: try Schedule(rule, from: start),
                startDay: start, endDay: round % 4 == 0 ? start.advanced(by: 70) : nil,
                createdAt: GoalEvaluationTests.created, modifiedAt: GoalEvaluationTests.created)
            let today = start.advanced(by: 20 + Int(random.next() % 60))
            let checkIns = try (0...start.days(to: today)).filter { _ in random.next() % 3 != 0 }.map {
                try GoalEvaluationTests.done(start.advanced(by: $0))
            }
            let evaluation = GoalEvaluation(goal: goal, checkIns: checkIns, weekStart: .monday, today: today)
            let days = start.advanced(by: -3)...today.advanced(by: 40)
            let expected = (days.lowerBound.daysSince1970...days.upperBound.daysSince1970).map {
                evaluation.status(on: Day(unchecked: $0))
            }
            #expect(evaluation.statuses(of: days) == expected, "round \(round): \(rule)")
        }
    }
}
