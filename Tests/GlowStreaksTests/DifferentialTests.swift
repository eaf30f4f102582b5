import Foundation
import GlowModel
import GlowStreaks
import Testing

/// GoalEvaluation, Today and Overview against the naive reference evaluator written from the spec
/// (issue 13), on seeded random goals and histories.
///
/// `swift test` runs 2,000 seeds; set `GLOW_DIFFERENTIAL_CASES` for more, and
/// `GLOW_DIFFERENTIAL_FIRST` to start elsewhere:
///
///     GLOW_DIFFERENTIAL_CASES=1000000 swift test -c release --filter Differential
@Suite("Differential: GoalEvaluation against the reference evaluator")
struct DifferentialTests {
    static var seeds: Range<UInt64> {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["GLOW_DIFFERENTIAL_CASES"].flatMap { UInt64($0) } ?? 2_000
        let first = environment["GLOW_DIFFERENTIAL_FIRST"].flatMap { UInt64($0) } ?? 0
        return first..<(first + count)
    }

    @Test("every answer agrees on random goals and histories")
    func agrees() {
        var failures = 0
        for seed in Self.seeds {
            let history = RandomHistory(seed: seed)
            guard let difference = Self.difference(history.goal, history.checkIns, history) else { continue }
            failures += 1
            let minimal = Self.shrink(history)
            Issue.record(
                """
                seed \(seed): \(difference)
                goal: \(Self.describe(history.goal)) today \(history.today) weekStart \(history.weekStart)
                minimal history (\(minimal.count) of \(history.checkIns.count) check-ins):
                \(minimal.map { "  \($0.day) \($0.log) deleted \($0.deleted) modified \($0.modifiedAt)" }.joined(separator: "\n"))
                """)
            if failures >= 3 { return }
        }
    }

    @Test("Today and Overview agree with the reference, goal by goal")
    func queries() {
        for seed in Self.seeds.prefix(300) {
            let histories = (0..<4).map { RandomHistory(seed: seed &* 4 &+ $0) }
            let today = histories[0].today
            let weekStart = histories[0].weekStart
            let goals = histories.map(\.goal)
            let checkIns = histories.flatMap(\.checkIns)
            let references = goals.map {
                ReferenceEvaluator(goal: $0, checkIns: checkIns, weekStart: weekStart, today: today)
            }
            let order = goals.indices.filter { !goals[$0].deleted }.sorted {
                (goals[$0].createdAt, goals[$0].id) < (goals[$1].createdAt, goals[$1].id)
            }
            let expectedToday = order.filter { references[$0].isOnToday }.map { index -> String in
                let reference = references[index]
                let status = reference.status(on: today)
                var thousandths = status == .done ? 1000 : 0
                if case .partial(let value) = status { thousandths = value }
                if let completion = reference.completion { thousandths = completion.thousandths }
                return
                    "\(goals[index].id) \(status.name) \(thousandths) \(reference.currentStreak?.length ?? 0) \(String(describing: reference.completion?.daysLeft))"
            }
            let actualToday = TodayQuery.items(goals: goals, checkIns: checkIns, weekStart: weekStart, today: today).map
            {
                "\($0.goalID) \($0.status.name) \($0.thousandths) \($0.streak) \(String(describing: $0.daysLeft))"
            }
            #expect(actualToday == expectedToday, "seed \(seed)")
            let overview = OverviewQuery.items(
                goals: goals, checkIns: checkIns, weekStart: weekStart, today: today, weeks: 3)
            #expect(overview.map(\.goalID) == order.map { goals[$0].id }, "seed \(seed)")
            for (item, index) in zip(overview, order) {
                let reference = references[index]
                #expect(item.current == reference.currentStreak && item.longest == reference.longestStreak)
                #expect(item.last30 == reference.consistency(lastDays: 30))
                #expect(item.sinceStart == reference.consistency(lastDays: nil))
                #expect(item.grid.map(\.level) == item.grid.map { reference.level(on: $0.day) }, "seed \(seed)")
                #expect(
                    item.strength?.score
                        == reference.strengthScores.map { ReferenceEvaluator.strength(through: today, $0) },
                    "seed \(seed): strength")
            }
        }
    }

    /// The first answer on which the two evaluators differ, or nil when all agree.
    static func difference(_ goal: Goal, _ checkIns: [CheckIn], _ history: RandomHistory) -> String? {
        let today = history.today
        let actual = GoalEvaluation(goal: goal, checkIns: checkIns, weekStart: history.weekStart, today: today)
        let reference = ReferenceEvaluator(goal: goal, checkIns: checkIns, weekStart: history.weekStart, today: today)
        return difference(actual, reference)
    }

    /// The first answer on which an evaluation and the reference differ, or nil when all agree.
    static func difference(_ actual: GoalEvaluation, _ reference: ReferenceEvaluator) -> String? {
        let (goal, today) = (actual.goal, actual.today)
        let first = goal.startDay.advanced(by: -3)
        let last = Swift.max(today, goal.startDay).advanced(by: 12)
        for day in first...last {
            if actual.status(on: day) != reference.status(on: day) {
                return "status of \(day): \(actual.status(on: day).name), reference \(reference.status(on: day).name)"
            }
            if actual.level(on: day) != reference.level(on: day) {
                return "level of \(day): \(actual.level(on: day)), reference \(reference.level(on: day))"
            }
        }
        if actual.currentStreak != reference.currentStreak {
            return
                "current streak \(String(describing: actual.currentStreak)), reference \(String(describing: reference.currentStreak))"
        }
        if actual.longestStreak != reference.longestStreak {
            return
                "longest streak \(String(describing: actual.longestStreak)), reference \(String(describing: reference.longestStreak))"
        }
        if actual.milestones != reference.milestones {
            return "milestones \(actual.milestones), reference \(reference.milestones)"
        }
        for window in [7, 30, 365, nil] as [Int?]
        where actual.consistency(lastDays: window) != reference.consistency(lastDays: window) {
            return
                "consistency \(String(describing: window)): \(String(describing: actual.consistency(lastDays: window))), reference \(String(describing: reference.consistency(lastDays: window)))"
        }
        if actual.completion != reference.completion {
            return
                "completion \(String(describing: actual.completion)), reference \(String(describing: reference.completion))"
        }
        if actual.isOnToday != reference.isOnToday {
            return "on Today \(actual.isOnToday), reference \(reference.isOnToday)"
        }
        return strengthDifference(actual, reference)
    }

    /// Strength (STREAK-27 ... STREAK-29): the score, the score through every recorded Day, and
    /// the moves.
    static func strengthDifference(_ actual: GoalEvaluation, _ reference: ReferenceEvaluator) -> String? {
        guard let strength = actual.strength else {
            return reference.strengthScores == nil ? nil : "no strength, reference has one"
        }
        guard let scores = reference.strengthScores else { return "a strength, reference has none" }
        let today = actual.today
        func expected(_ day: Day) -> Int64 { ReferenceEvaluator.strength(through: day, scores) }
        if strength.score != expected(today) {
            return "strength \(strength.score), reference \(expected(today))"
        }
        for day in strength.firstKnownDay...today where strength.score(through: day) != expected(day) {
            return
                "strength through \(day): \(String(describing: strength.score(through: day))), reference \(expected(day))"
        }
        let moves = ReferenceEvaluator.strengthMoves(today: today, scores)
        let same =
            strength.moves.count == moves.count
            && zip(strength.moves, moves).allSatisfy {
                $0.day == $1.day && $0.change == $1.after - $1.before && $0.value == $1.value
            }
        return same ? nil : "strength moves \(strength.moves), reference \(moves)"
    }

    /// The history with check-ins removed one at a time while the evaluators still disagree.
    static func shrink(_ history: RandomHistory) -> [CheckIn] {
        var checkIns = history.checkIns
        var index = 0
        while index < checkIns.count {
            var fewer = checkIns
            fewer.remove(at: index)
            if difference(history.goal, fewer, history) != nil { checkIns = fewer } else { index += 1 }
        }
        return checkIns
    }

    static func describe(_ goal: Goal) -> String {
        var text = "\(goal.kind) start \(goal.startDay)"
        if let schedule = goal.schedule { text += " schedule \(schedule.entries.map { "\($0.effective):\($0.rule)" })" }
        if let end = goal.endDay { text += " end \(end)" }
        if !goal.archiveHistory.isEmpty {
            text += " archived \(goal.archiveHistory.map { "\($0.from)..<\(String(describing: $0.until))" })"
        }
        if let forgiveness = goal.forgiveness { text += " forgive \(forgiveness.allowance)/\(forgiveness.period)" }
        if goal.deleted { text += " deleted" }
        return text
    }
}
