import GlowModel

/// One Day of the Overview grid.
public struct OverviewCell: Hashable, Sendable {
    /// The Day.
    public var day: Day
    /// Its intensity, 0 (nothing) ... 4 (done) (STREAK-23).
    public var level: Int
}

/// One goal in the Overview (STREAK-23).
public struct OverviewItem: Hashable, Sendable {
    /// The goal.
    public var goalID: GoalID
    /// Its title.
    public var title: String
    /// The current streak, if one is running.
    public var current: Streak?
    /// The longest streak so far.
    public var longest: Streak?
    /// Consistency over the last 7, 30 and 365 Days and since the start; nil for one-off kinds.
    public var last7: Consistency?
    /// See ``last7``.
    public var last30: Consistency?
    /// See ``last7``.
    public var last365: Consistency?
    /// See ``last7``.
    public var sinceStart: Consistency?
    /// Whole weeks, oldest first, ending with the week that contains today; Days in order.
    public var grid: [OverviewCell]
    /// Strength, with its change and moves, for recurring kinds (STREAK-27 ... STREAK-30).
    public var strength: Strength?
}

/// The Overview: streaks, consistency and a grid of recent weeks per goal (STREAK-23).
public enum OverviewQuery {
    /// Every live goal, in the Today order, with a grid of the last `weeks` calendar weeks.
    ///
    /// - Complexity: O(c + g·(d + 7·weeks)).
    public static func items(
        goals: [Goal], checkIns: [CheckIn], weekStart: Weekday, today: Day, weeks: Int = 12
    ) -> [OverviewItem] {
        TodayQuery.evaluations(goals: goals, checkIns: checkIns, weekStart: weekStart, today: today).map {
            item($0, weeks: weeks)
        }
    }

    /// The Overview of a person's data at `now`, evaluated in full (STREAK-24); ``Tracker`` keeps
    /// the same answer current as data changes.
    public static func items(_ data: DataSet, boundary: DayBoundary, now: Instant, weeks: Int = 12) -> [OverviewItem] {
        TodayQuery.evaluations(data, weekStart: boundary.weekStart, today: boundary.day(containing: now)).map {
            item($0, weeks: weeks)
        }
    }

    /// One goal's Overview item, with a grid of the last `weeks` calendar weeks (at least one,
    /// at most every week of the calendar).
    public static func item(_ evaluation: GoalEvaluation, weeks: Int = 12) -> OverviewItem {
        let lastWeek = evaluation.today.week(startingOn: evaluation.weekStart)
        // At least one week; no more than the calendar holds (so the product cannot overflow).
        let count = Swift.min(Swift.max(1, weeks), 530_000)
        let first = (try? lastWeek.lowerBound.adding(days: -7 * (count - 1))) ?? Day.min
        return OverviewItem(
            goalID: evaluation.goal.id, title: evaluation.goal.title, current: evaluation.currentStreak,
            longest: evaluation.longestStreak, last7: evaluation.consistency(lastDays: 7),
            last30: evaluation.consistency(lastDays: 30), last365: evaluation.consistency(lastDays: 365),
            sinceStart: evaluation.consistency(lastDays: nil),
            grid: (first...lastWeek.upperBound).map { OverviewCell(day: $0, level: evaluation.level(on: $0)) },
            strength: evaluation.strength)
    }
}
