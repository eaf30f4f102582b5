import GlowModel
import Testing

@testable import GlowStreaks

/// A tap on a recent Day resumes the goal's walk from its checkpoint instead of walking the
/// whole history again (STREAK-26): the answers after it must equal the reference evaluator's
/// on the changed data, for every kind, schedule, forgiveness and archive the random histories
/// hold, and the tracker's answers with them.
@Suite("Resuming a walk after a tap")
struct ResumeTests {
    static let device = DeviceID(high: 0xD, low: 7)

    /// A tap that fits `kind`, or an undo; some do not fit and must be refused.
    static func change(for kind: GoalKind, _ random: inout SeededRandom) -> CheckInTap? {
        let roll = random.next() % 10
        if roll == 0 { return nil }
        if roll == 1 { return .skip }
        switch kind {
        case .tally(let config): return .count(Int(random.next() % UInt64(config.dailyTarget + 2)) - 1)
        case .streak, .single, .countdown: return .done
        case .subgoals(let config):
            let item = config.items[Int(random.next() % UInt64(config.items.count))].id
            return roll < 7 ? .check([item]) : .uncheck([item])
        case .progress: return .add(try! Amount(thousandths: Int64(random.next() % 9000)))
        case .value: return .value(try! Amount(thousandths: Int64(random.next() % 6000)))
        }
    }

    @Test("a change on a recent Day resumes the walk and agrees with the reference", arguments: 0..<2)
    func resumedAgrees(part: UInt64) throws {
        var (changes, resumed) = (0, 0)
        for seed in (part * 125)..<((part + 1) * 125) {
            let history = RandomHistory(seed: seed &+ 7_000_000)
            let goal = history.goal
            guard !goal.deleted else { continue }
            // One check-in a Day, as a data set keeps them: the devices' copies merged.
            var byDay: [Day: CheckIn] = [:]
            for checkIn in history.checkIns where checkIn.goalID == goal.id {
                byDay[checkIn.day] = byDay[checkIn.day].map { $0.merging(checkIn) } ?? checkIn
            }
            let data = try DataSet(profile: nil, goals: [goal], checkIns: Array(byDay.values))
            let boundary = try DayBoundary(timeZone: .utc, weekStart: history.weekStart)
            var clock = try Instant(millisecondsSince1970: Int64(history.today.daysSince1970) * 86_400_000 + 43_200_000)
            var tracker = try Tracker(data: data, now: clock, boundary: boundary)
            var random = SeededRandom(seed: seed)
            for _ in 0..<6 {
                let day = history.today.advanced(by: -Int(random.next() % 12))
                clock = try clock.adding(milliseconds: 1000)
                let before = tracker.evaluation(of: goal.id)
                do {
                    if let tap = Self.change(for: goal.kind, &random) {
                        try tracker.tap(tap, goal: goal.id, on: day, at: clock, device: Self.device)
                    } else {
                        try tracker.undo(goal: goal.id, on: day, at: clock, device: Self.device)
                    }
                } catch {
                    continue  // a Day outside the life, a tap that does not fit: refused
                }
                changes += 1
                let reference = ReferenceEvaluator(
                    goal: goal, checkIns: tracker.data.checkIns(of: goal.id), weekStart: history.weekStart,
                    today: history.today)
                let current = try #require(tracker.evaluation(of: goal.id))
                if let difference = DifferentialTests.difference(current, reference) {
                    Issue.record("seed \(seed), tracker after a change on \(day): \(difference)")
                    break
                }
                // The evaluation before the change, resumed on its own: taken whenever the
                // checkpoint is at or before the Day, and then equal to the reference too.
                guard var evaluation = before, let checkpoint = evaluation.checkpoint, day >= checkpoint.day else {
                    continue
                }
                let earlier = evaluation.milestonesAfterCheckpoint
                let replaced = evaluation.resume(history: tracker.data.history(of: goal.id), changedFrom: day)
                #expect(replaced.map { Array(earlier) == $0 } == true, "seed \(seed): the milestones it replaced")
                resumed += 1
                if let difference = DifferentialTests.difference(evaluation, reference) {
                    Issue.record("seed \(seed), resumed after a change on \(day): \(difference)")
                    break
                }
            }
        }
        // Most changes land in the last week of a goal that is running: they must resume.
        #expect(resumed * 3 >= changes, "\(resumed) of \(changes) changes resumed")
    }

    @Test("a change before the checkpoint, or to a one-off goal, does not resume")
    func refusals() throws {
        let start = try Day(iso: "2026-01-05")
        let today = try Day(iso: "2026-03-04")
        let daily = try Goal(
            id: GoalID(high: 1, low: 1), title: "Walk", kind: .streak, schedule: Schedule(.daily, from: start),
            startDay: start, createdAt: Instant(millisecondsSince1970: 0), modifiedAt: Instant(millisecondsSince1970: 0)
        )
        let history = CheckInHistory(goalID: daily.id)
        var evaluation = GoalEvaluation(goal: daily, history: history, weekStart: .monday, today: today)
        let checkpoint = try #require(evaluation.checkpoint)
        // Seven Days before today, for a daily rule.
        #expect(checkpoint.day == today.advanced(by: -7))
        #expect(evaluation.resume(history: history, changedFrom: today.advanced(by: -8)) == nil)
        #expect(evaluation.resume(history: CheckInHistory(goalID: GoalID(high: 9, low: 9)), changedFrom: today) == nil)
        #expect(evaluation.resume(history: history, changedFrom: today) == [])
        // A monthly rule: the checkpoint is the first Day of the month that reaches the window.
        var monthly = daily
        let fourAMonth = try Schedule(.timesPerMonth(4), from: start)
        try monthly.edit(at: Instant(millisecondsSince1970: 1000)) { $0.schedule = fourAMonth }
        let byMonth = GoalEvaluation(goal: monthly, history: history, weekStart: .monday, today: today)
        #expect(byMonth.checkpoint?.day == (try Day(iso: "2026-02-01")))
        var single = daily
        try single.edit(at: Instant(millisecondsSince1970: 1000)) {
            $0.kind = .single
            $0.schedule = nil
        }
        var oneOff = GoalEvaluation(goal: single, history: history, weekStart: .monday, today: today)
        #expect(oneOff.checkpoint == nil)
        #expect(oneOff.resume(history: history, changedFrom: today) == nil)
    }
}
