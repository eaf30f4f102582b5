import GlowModel

/// A goal's logs by Day, from its start to today (STREAK-3): the entries that count, gathered
/// in one pass over any number of check-ins, reading only goal, Day, tombstone, instant and log.
struct DayLogs {
    let goalID: GoalID
    let start: Day
    let judgedThrough: Day
    private(set) var logs: [CheckInLog?]
    private var modified: [Int64]

    init(goal: Goal, today: Day) {
        goalID = goal.id
        start = goal.startDay
        judgedThrough = Swift.min(today, goal.endDay ?? today)
        let count = goal.deleted ? 0 : Swift.max(0, start.days(to: judgedThrough) + 1)
        logs = Array(repeating: nil, count: count)
        modified = Array(repeating: .min, count: count)
    }

    /// Takes a check-in if it is this goal's, live, in range, and not older than the one held
    /// for its Day (of equals, the later in input order wins).
    @inline(__always) mutating func add(_ checkIn: borrowing CheckIn) {
        guard checkIn.goalID == goalID, !checkIn.deleted else { return }
        let offset = start.days(to: checkIn.day)
        let stamp = checkIn.modifiedAt.millisecondsSince1970
        guard offset >= 0, offset < logs.count, stamp >= modified[offset] else { return }
        modified[offset] = stamp
        logs[offset] = checkIn.log
    }
}
