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
}

/// The Overview: streaks, consistency and a grid of recent weeks per goal (STREAK-23).
public enum OverviewQuery {
    /// Every live goal, in the Today order, with a grid of the last `weeks` calendar weeks.
    ///
    /// - Complexity: O(c + g·(d + 7·weeks)).
    public static func items(
        goals: [Goal], checkIns: [CheckIn], weekStart: Weekday, today: Day, weeks: Int = 12
    ) -> [OverviewItem] {
        let lastWeek = today.week(startingOn: weekStart)
        let first = (try? lastWeek.lowerBound.adding(days: -7 * (Swift.max(1, weeks) - 1))) ?? Day.min
        return TodayQuery.evaluations(goals: goals, checkIns: checkIns, weekStart: weekStart, today: today).map {
            evaluation in
            OverviewItem(
                goalID: evaluation.goal.id, title: evaluation.goal.title, current: evaluation.currentStreak,
                longest: evaluation.longestStreak, last7: evaluation.consistency(lastDays: 7),
                last30: evaluation.consistency(lastDays: 30), last365: evaluation.consistency(lastDays: 365),
                sinceStart: evaluation.consistency(lastDays: nil),
                grid: (first...lastWeek.upperBound).map { OverviewCell(day: $0, level: evaluation.level(on: $0)) })
        }
    }
}
