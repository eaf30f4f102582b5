import GlowModel

/// The state of a recurring goal's walk just before one Day (STREAK-26): what the streaks,
/// forgiveness, judgements and strength were before any unit on or after it, so that a change to
/// the goal's check-ins on that Day or later is judged again from there rather than from the
/// start Day.
///
/// A walk keeps one checkpoint: at the first place it can stop at or after ``window(today:)``,
/// seven Days before today. For a day-based rule that is the window's Day itself (or the first
/// Day after it in the life); for an N-per-period rule, the first Day of the period that reaches
/// it, so the period is judged whole. Resuming walks at most that period and the Days after it:
/// a constant number of Days, whatever the goal's history holds before.
struct WalkCheckpoint: Sendable {
    /// The first Day walked after the checkpoint.
    let day: Day
    /// The schedule entry in force on ``day``.
    let entry: Int
    /// The streak run so far, its milestones left out (they stay in the evaluation's list).
    let tracker: StreakTracker
    /// How many milestones had been reached before ``day``.
    let milestoneCount: Int
    /// The forgiveness used so far in the current calendar period.
    let forgiveness: ForgivenessState
    /// The judged units before ``day``.
    let judgements: (points: Int, runs: Int)
    /// The score and recorded strength units before ``day``.
    let meter: (score: Int64, recorded: Int)

    /// The first Day of the window a checkpoint is kept for: seven Days before today, so a tap
    /// today or a Day filled in during the last week resumes the walk.
    static func window(today: Day) -> Day {
        Day(unchecked: Swift.max(Day.min.daysSince1970, today.daysSince1970 - 7))
    }
}

extension GoalEvaluation {
    /// Brings this evaluation up to date after the goal's check-ins changed on `day` and perhaps
    /// later Days, with nothing else changed (the goal, today, the week start): the entries from
    /// the checkpoint on are read again from `history`, and the walk resumes there.
    ///
    /// - Returns: the milestones the walk had reached after the checkpoint before the change (so
    ///   a tracker compares those alone), or nil when this evaluation cannot resume for a change
    ///   on `day` (a one-off kind, no checkpoint, or `day` before it); it is then unchanged.
    /// - Complexity: O(log c + k) for c check-ins and the k Days from the checkpoint to today.
    mutating func resume(history: CheckInHistory, changedFrom day: Day) -> [Milestone]? {
        guard goal.kind.isRecurring, !goal.deleted, history.goalID == goal.id, let checkpoint,
            day >= checkpoint.day
        else { return nil }
        entries.replaceTail(
            from: checkpoint.day, with: GoalEntries(goal: goal, history: history, from: checkpoint.day, today: today))
        let replaced = walkRecurring(resuming: checkpoint)
        strength = meter.strength(today: today)
        return replaced
    }

    /// The milestones reached after the checkpoint, in order: those the walk reaches now.
    var milestonesAfterCheckpoint: ArraySlice<Milestone> {
        milestones[(checkpoint?.milestoneCount ?? 0)...]
    }
}

extension GoalEvaluation {
    /// Takes in a change to the goal's check-ins on `days` (what ``DataSet/Changes/days`` lists for
    /// the goal), with the goal's record, today and the week start as they were: the walk resumes
    /// from its checkpoint when every Day is at or after it, and the goal is evaluated from its
    /// start otherwise. Either way the result equals a new evaluation with `history`.
    ///
    /// - Parameter history: the goal's check-ins after the change (``DataSet/history(of:)``).
    /// - Complexity: O(log c + k) for c check-ins and k Days from the checkpoint to today (at most
    ///   the last week and the period that reaches it) when it resumes; a full evaluation's
    ///   otherwise.
    public mutating func update(checkInsChangedOn days: [Day], history: CheckInHistory) {
        guard let first = days.min() else { return }
        if resume(history: history, changedFrom: first) == nil {
            self = GoalEvaluation(goal: goal, history: history, weekStart: weekStart, today: today)
        }
    }
}
