import GlowModel
import GlowStreaks
import Testing

/// Strength's own edges (STREAK-27 ... STREAK-29); the corpus and the differential tests check the
/// figures against the spec and the reference evaluator.
@Suite("Strength")
struct StrengthTests {
    typealias Case = (rule: ScheduleRule, multiplier: Int64)

    /// The multipliers of STREAK-28, worked out with Python's exact integers
    /// (`Tools/corpus/streak_strength.py`'s `multiplier`), and each within 10^-7 of `2^(−√R / 13)`.
    static let multipliers: [(ScheduleRule, weight: Double, multiplier: Int64)] = [
        (.daily, 1, 1_017_990_458), (.weekdays([.monday, .wednesday, .friday]), 7.0 / 3, 989_756_246),
        (.weekdays(Set(Weekday.allCases)), 1, 1_017_990_458), (.everyNDays(366), 366, 387_165_412),
        (.timesPerWeek(7), 49, 739_276_300), (.timesPerWeek(1), 7, 932_469_068),
        (.timesPerMonth(31), 930, 211_218_561),
    ]

    @Test("the multiplier of each rule is the spec's integer, close to Loop's", arguments: multipliers)
    func multiplier(rule: ScheduleRule, weight: Double, expected: Int64) {
        let m = Strength.multiplier(for: rule)
        #expect(m == expected)
        let exact = (-(weight.squareRoot()) / 13 * 0.6931471805599453).exp
        #expect(abs(Double(m) / Double(Strength.full) - exact) < 1e-7)
    }

    static func evaluation(_ doneDays: [Int], today: Int) throws -> GoalEvaluation {
        let goal = try GoalEvaluationTests.goal()
        let checkIns = try doneDays.map { try GoalEvaluationTests.done(GoalEvaluationTests.start.advanced(by: $0)) }
        return GoalEvaluation(
            goal: goal, checkIns: checkIns, weekStart: .monday, today: GoalEvaluationTests.start.advanced(by: today))
    }

    @Test("the week in words: up, down or steady, with the Days done")
    func weekSummary() throws {
        // Ten done Days, the last today: 1 − m^10 = 0.413 now, 1 − m^3 = 0.147 through Day 2
        // (m = 0.94808): 413 − 147 = 266 thousandths, 26.6 points.
        let rising = try Self.evaluation(Array(0...9), today: 9)
        #expect(
            rising.strength?.weekSummary(last7: rising.consistency(lastDays: 7))
                == "up 26.6 points this week: 7 of 7 done")
        let falling = try Self.evaluation(Array(0...29), today: 40)
        #expect(falling.strength?.weekSummary(last7: falling.consistency(lastDays: 7)).hasPrefix("down ") == true)
        #expect(
            falling.strength?.weekSummary(last7: falling.consistency(lastDays: 7)).hasSuffix(": 0 of 6 done") == true)
        let fresh = try Self.evaluation([], today: 0)
        #expect(fresh.strength?.weekSummary(last7: fresh.consistency(lastDays: 7)) == "steady this week")
        #expect(fresh.strength?.score == 0 && fresh.strength?.moves == [])
    }

    @Test("the 30 Days in words: up, down or steady, with what lifted it and what pulled it down")
    func monthSummary() throws {
        // Ten done Days, the last today: up 41.3 points (413 thousandths); the first Day lifted it
        // most, by a share (1 − m) of what was left: 51 thousandths (m = 0.94808), 5.1 points.
        // Nothing pulled it down, so the lift is the one move.
        let rising = try Self.evaluation(Array(0...9), today: 9)
        let start = GoalEvaluationTests.start
        #expect(rising.strength?.monthSummary == "up 41.3 points in 30 days: done on \(start) (+5.1)")
        // Thirty done Days then twenty missed: 1 − m^21 = 0.674 through Day 20, (1 − m^30) × m^20 =
        // 0.275 now: down. The lift is the first done Day of the last 30 (Day 21, S lowest then:
        // +17 thousandths), the drop the first missed Day (Day 30, S highest then: −42).
        let falling = try Self.evaluation(Array(0...29), today: 50)
        let month = try #require(falling.strength?.monthSummary)
        #expect(month.hasPrefix("down "))
        #expect(
            month.hasSuffix(": done on \(start.advanced(by: 21)) (+1.7), missed on \(start.advanced(by: 30)) (−4.2)"),
            "\(month)")
        #expect(try Self.evaluation([], today: 0).strength?.monthSummary == "steady in 30 days")
    }

    @Test(
        "a direction word agrees with the number's sign, and a figure too small for whole points is not steady",
        arguments: [
            (0, "steady"), (1, "up 0.1 points"), (4, "up 0.4 points"), (-4, "down 0.4 points"),
            (10, "up 1.0 points"), (-266, "down 26.6 points"),
        ])
    func direction(_ change: Int, _ words: String) {
        #expect(Strength.direction(change) == words)
    }

    @Test("percentages round half up", arguments: [(666, 67), (857, 86), (994, 99), (995, 100), (4, 0), (5, 1)])
    func percent(_ thousandths: Int, _ percent: Int) {
        #expect(Percent.of(thousandths: thousandths) == percent)
    }

    @Test("the strength through a Day is known for the recorded Days only")
    func recordedDays() throws {
        let evaluation = try Self.evaluation(Array(0...199), today: 200)
        let strength = try #require(evaluation.strength)
        let today = evaluation.today
        #expect(strength.score(through: today) == strength.score)
        #expect(strength.score(through: strength.firstKnownDay) != nil)
        #expect(strength.score(through: strength.firstKnownDay.advanced(by: -1)) == nil)
        #expect(strength.series(lastDays: 84).count == 84 && strength.series(lastDays: 84).last?.day == today)
        // Rising every Day until today, which waits: each Day's strength through it is higher.
        let values = strength.series(lastDays: 84).map(\.thousandths)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(strength.recent.count == Strength.recordedDays - 1)
    }
}

extension Double {
    fileprivate var exp: Double {
        // e^x by its series: enough terms for |x| < 3 to 1e-12, with no Foundation needed.
        var term = 1.0
        var sum = 1.0
        for n in 1..<40 {
            term *= self / Double(n)
            sum += term
        }
        return sum
    }
}
