import GlowModel

/// A goal's entries by Day, from its start to today (STREAK-3), gathered in one pass over any
/// number of check-ins, reading only goal, Day, tombstone, instant and log. Recurring kinds keep
/// each Day's outcome (a small value, STREAK-5 ... STREAK-8); one-off kinds keep the logs, whose
/// progress accumulates.
struct DayLogs {
    let goalID: GoalID
    let start: Day
    let judgedThrough: Day
    let recurring: Bool
    private let outcomeOf: (CheckInLog) -> DayOutcome
    private(set) var outcomes: [DayOutcome]
    private(set) var logs: [CheckInLog?]
    private var modified: [Int64]

    init(goal: Goal, today: Day) {
        goalID = goal.id
        start = goal.startDay
        judgedThrough = Swift.min(today, goal.endDay ?? today)
        recurring = goal.kind.isRecurring
        outcomeOf = DayOutcome.evaluator(for: goal.kind)
        let count = goal.deleted ? 0 : Swift.max(0, start.days(to: judgedThrough) + 1)
        outcomes = Array(repeating: .none, count: recurring ? count : 0)
        logs = Array(repeating: nil, count: recurring ? 0 : count)
        modified = Array(repeating: .min, count: count)
    }

    var count: Int { modified.count }

    /// Takes a check-in if it is this goal's and in range, and no older than the one held for its
    /// Day (STREAK-3): the later `modifiedAt` decides, a tombstone over a live entry of the same
    /// instant, then the later in input order. A deciding tombstone leaves the Day without entry.
    @inline(__always) mutating func add(_ checkIns: UnsafeBufferPointer<CheckIn>, _ index: Int) {
        guard checkIns[index].goalID == goalID else { return }
        let offset = start.days(to: checkIns[index].day)
        // Instants lie within years 1...9999 (about ±2^48 ms), so doubling cannot overflow.
        let deleted = checkIns[index].deleted
        let stamp = checkIns[index].modifiedAt.millisecondsSince1970 * 2 + (deleted ? 1 : 0)
        guard offset >= 0, offset < modified.count, stamp >= modified[offset] else { return }
        modified[offset] = stamp
        if recurring {
            outcomes[offset] = deleted ? .none : outcomeOf(checkIns[index].log)
        } else {
            logs[offset] = deleted ? nil : checkIns[index].log
        }
    }

    /// The same for a check-in given by value.
    mutating func add(_ checkIn: CheckIn) {
        withUnsafePointer(to: checkIn) { add(UnsafeBufferPointer(start: $0, count: 1), 0) }
    }

    /// Forgets the entries of archived Days (STREAK-1).
    mutating func dropArchived(_ goal: Goal) {
        guard !goal.archiveHistory.isEmpty else { return }
        for offset in 0..<count where goal.isArchived(on: start.advanced(by: offset)) {
            if recurring { outcomes[offset] = .none } else { logs[offset] = nil }
        }
    }
}
