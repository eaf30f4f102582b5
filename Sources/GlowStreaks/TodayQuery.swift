import GlowCore
import GlowModel

/// One goal in the Today view (STREAK-22).
public struct TodayItem: Hashable, Sendable {
    /// The goal.
    public var goalID: GoalID
    /// Its title.
    public var title: String
    /// Its emoji, if any.
    public var emoji: String?
    /// Its kind.
    public var kind: GoalKind.Name
    /// Today's status: pending, partial, done or skipped.
    public var status: DayStatus
    /// How far: today's share of the day's target for recurring kinds, the completion for one-off
    /// kinds, in thousandths (over 1000 for progress past its target).
    public var thousandths: Int
    /// The current streak's length (0 when none is running).
    public var streak: Int
    /// For countdowns: Days left to the target Day.
    public var daysLeft: Int?
    /// The goal's strength in thousandths, for recurring kinds (STREAK-27, STREAK-30).
    public var strength: Int?
}

/// The Today view: the goals that need or got attention today (STREAK-22).
public enum TodayQuery {
    /// The goals on today's list, ordered by creation (then identifier), so the list does not
    /// jump around as goals get done.
    ///
    /// - Complexity: O(c log g) for c check-ins and g goals: see ``evaluations(goals:checkIns:weekStart:today:)``.
    public static func items(goals: [Goal], checkIns: [CheckIn], weekStart: Weekday, today: Day) -> [TodayItem] {
        evaluations(goals: goals, checkIns: checkIns, weekStart: weekStart, today: today).compactMap(item)
    }

    /// The Today list of a person's data at `now`, evaluated in full: the Day and the week start
    /// come from `boundary` (STREAK-24). ``Tracker`` keeps the same answer current as data changes.
    ///
    /// - Complexity: O(c + g log g) for c check-ins and g goals.
    public static func items(_ data: DataSet, boundary: DayBoundary, now: Instant) -> [TodayItem] {
        evaluations(data, weekStart: boundary.weekStart, today: boundary.day(containing: now)).compactMap(item)
    }

    /// Evaluations of every live goal of `data`, in display order, each read from its history's
    /// columns.
    ///
    /// - Complexity: O(c + g log g) for c check-ins and g goals.
    public static func evaluations(_ data: DataSet, weekStart: Weekday, today: Day) -> [GoalEvaluation] {
        order(data.goals.values).map { goal in
            GoalEvaluation(goal: goal, history: data.history(of: goal.id), weekStart: weekStart, today: today)
        }
    }

    /// The goal's Today item, or nil when it is not on today's list (STREAK-22).
    public static func item(_ evaluation: GoalEvaluation) -> TodayItem? {
        guard evaluation.isOnToday else { return nil }
        let status = evaluation.status(on: evaluation.today)
        let thousandths: Int
        if let completion = evaluation.completion {
            thousandths = completion.thousandths
        } else if case .partial(let value) = status {
            thousandths = value
        } else {
            thousandths = status == .done ? 1000 : 0
        }
        return TodayItem(
            goalID: evaluation.goal.id, title: evaluation.goal.title, emoji: evaluation.goal.emoji,
            kind: evaluation.goal.kind.name, status: status, thousandths: thousandths,
            streak: evaluation.currentStreak?.length ?? 0, daysLeft: evaluation.completion?.daysLeft,
            strength: evaluation.strength?.thousandths)
    }

    /// The live goals in display order: by creation instant, then identifier (STREAK-22).
    public static func order(_ goals: some Sequence<Goal>) -> [Goal] {
        goals.filter { !$0.deleted }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Evaluations of every live goal, in display order: by creation instant, then identifier.
    ///
    /// - Complexity: O(c log g + g log g) for c check-ins and g goals, plus each goal's
    ///   evaluation, which is linear in its check-ins (never in the Days of its history).
    public static func evaluations(goals: [Goal], checkIns: [CheckIn], weekStart: Weekday, today: Day)
        -> [GoalEvaluation]
    {
        let live = order(goals)
        // One pass over the check-ins. Goals are found by binary search over their ids, after a
        // check of the last one found, since stores usually keep a goal's check-ins together.
        let byID = live.indices.sorted { live[$0].id < live[$1].id }
        let ids = byID.map { live[$0].id }
        var collectors = live.map { EntryCollector(goal: $0, today: today) }
        var last = -1
        for checkIn in checkIns {
            let id = checkIn.goalID
            if last < 0 || ids[last] != id {
                let index = ids.partitioningIndex { $0 >= id }
                guard index < ids.count, ids[index] == id else { continue }
                last = index
            }
            collectors[byID[last]].add(checkIn)
        }
        return live.indices.map {
            GoalEvaluation(goal: live[$0], entries: collectors[$0].entries(), weekStart: weekStart, today: today)
        }
    }
}
