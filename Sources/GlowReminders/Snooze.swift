import GlowModel

/// A snooze the person asked for (REMIND-8): the goal and the instant they asked.
public struct Snooze: Hashable, Sendable {
    /// The goal.
    public let goal: GoalID
    /// When the person asked.
    public let at: Instant

    /// A snooze of `goal` asked for at `at`.
    public init(goal: GoalID, at: Instant) {
        self.goal = goal
        self.at = at
    }
}
