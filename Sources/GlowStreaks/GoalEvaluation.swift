import GlowModel

/// Everything GlowStreaks knows about one goal as of one Day: the status of every Day, streaks,
/// milestones, consistency and, for one-off kinds, completion (STREAK-1 ... STREAK-23).
///
/// Built in one pass over the Days from the goal's start to today, so asking for any range,
/// streak or rate afterwards costs no recomputation.
/// - Complexity: O(c + d) to build, for c check-ins and d Days from the start Day to today.
public struct GoalEvaluation: Sendable {
    /// The goal.
    public let goal: Goal
    /// The Day this evaluation is as of.
    public let today: Day
    /// The first Day of a week, for N-per-week schedules and weekly forgiveness.
    public let weekStart: Weekday

    /// The current streak, if one is running (STREAK-15).
    public internal(set) var currentStreak: Streak?
    /// The longest streak so far, the earliest of equals (STREAK-16).
    public internal(set) var longestStreak: Streak?
    /// Every milestone reached by any streak so far, in order of reaching (STREAK-20).
    public internal(set) var milestones: [Milestone] = []
    /// Completion, for one-off kinds (single, one-off subgoals, progress, countdown).
    public internal(set) var completion: Completion?

    /// Statuses of the Days from the start Day to ``judgedThrough``.
    var statuses: [DayStatus] = []
    /// Overview intensities of the same Days.
    var levels: [Int] = []
    /// The last Day with a stored status: today, or the end Day if earlier.
    let judgedThrough: Day
    /// Judged units (due Days and periods) in time order: the Day judged and whether it was done.
    var judgements: [(day: Day, done: Bool)] = []
    /// The Days of the judgements in order, and how many were done before each: consistency over
    /// any window is then two binary searches.
    var judgementDays: [Day] = []
    var doneBefore: [Int] = []
    /// N-per-period periods already judged, by (schedule entry, first Day): whether they were met.
    var periodsMet: [PeriodKey: Bool] = [:]

    struct PeriodKey: Hashable {
        var entry: Int
        var first: Day
    }

    /// Evaluates `goal` as of `today`.
    ///
    /// - Parameters:
    ///   - checkIns: the goal's check-ins; other goals' entries and tombstones are ignored, and
    ///     of two entries for one Day the later-modified counts.
    ///   - weekStart: the profile's week start.
    ///   - today: the Day it is for the person (``DayBoundary/day(containing:)`` of now).
    public init(goal: Goal, checkIns: some Sequence<CheckIn>, weekStart: Weekday, today: Day) {
        var logs = DayLogs(goal: goal, today: today)
        for checkIn in checkIns { logs.add(checkIn) }
        self.init(goal: goal, logs: logs, weekStart: weekStart, today: today)
    }

    /// Evaluates `goal` as of `today` from an array of check-ins, reading only what it needs of
    /// each, without copying them.
    public init(goal: Goal, checkIns: [CheckIn], weekStart: Weekday, today: Day) {
        var logs = DayLogs(goal: goal, today: today)
        checkIns.withUnsafeBufferPointer { buffer in
            for index in buffer.indices { logs.add(buffer, index) }
        }
        self.init(goal: goal, logs: logs, weekStart: weekStart, today: today)
    }

    init(goal: Goal, logs prepared: DayLogs, weekStart: Weekday, today: Day) {
        self.goal = goal
        self.today = today
        self.weekStart = weekStart
        self.judgedThrough = prepared.judgedThrough
        guard !goal.deleted, goal.startDay <= judgedThrough else {
            if !goal.kind.isRecurring && !goal.deleted { completion = Completion(done: false, thousandths: 0) }
            if case .countdown(let config) = goal.kind, !goal.deleted {
                completion = countdownCompletion(config)
            }
            return
        }
        var prepared = prepared
        prepared.dropArchived(goal)
        let count = prepared.count
        statuses = Array(repeating: .notDue, count: count)
        levels = Array(repeating: 0, count: count)
        if goal.kind.isRecurring, let schedule = goal.schedule {
            evaluateRecurring(schedule: schedule, outcomes: prepared.outcomes)
        } else {
            evaluateOneOff(logs: prepared.logs)
        }
        var done = 0
        judgementDays.reserveCapacity(judgements.count)
        doneBefore.reserveCapacity(judgements.count + 1)
        doneBefore.append(0)
        // Judgements arrive in Day order (a period is judged before the Days after it); sort
        // only if that ever fails.
        var inOrder = true
        for index in judgements.indices.dropFirst() where judgements[index - 1].day > judgements[index].day {
            inOrder = false
            break
        }
        for judgement in inOrder ? judgements : judgements.sorted(by: { $0.day < $1.day }) {
            judgementDays.append(judgement.day)
            done += judgement.done ? 1 : 0
            doneBefore.append(done)
        }
    }

    /// The status of `day` (STREAK-9): stored up to today, derived for later Days.
    public func status(on day: Day) -> DayStatus {
        let offset = goal.startDay.days(to: day)
        if offset >= 0, offset < statuses.count {
            return statuses[offset]
        }
        guard day > today, isInLife(day) else { return .notDue }
        return futureStatus(day)
    }

    /// The statuses of every Day in `range`, in order.
    public func statuses(in range: ClosedRange<Day>) -> [DayStatus] {
        range.map { status(on: $0) }
    }

    /// The Overview intensity of `day`, 0...4 (STREAK-23).
    public func level(on day: Day) -> Int {
        let offset = goal.startDay.days(to: day)
        return offset >= 0 && offset < levels.count ? levels[offset] : 0
    }

    /// The completion rate of the last `days` Days up to today, or since the start Day when
    /// `days` is nil; nil for one-off kinds (STREAK-18).
    public func consistency(lastDays days: Int?) -> Consistency? {
        guard goal.kind.isRecurring, !goal.deleted else { return nil }
        let from = days.map { (try? today.adding(days: 1 - Swift.max(1, $0))) ?? Day.min } ?? goal.startDay
        let lower = firstIndex(atOrAfter: from)
        let upper = firstIndex(atOrAfter: today.daysSince1970 == Day.max.daysSince1970 ? today : today.advanced(by: 1))
        guard lower < upper else { return Consistency(done: 0, due: 0) }
        return Consistency(done: doneBefore[upper] - doneBefore[lower], due: upper - lower)
    }

    private func firstIndex(atOrAfter day: Day) -> Int {
        var low = 0
        var high = judgementDays.count
        while low < high {
            let middle = (low + high) / 2
            if judgementDays[middle] < day { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether the goal belongs in today's list (STREAK-22).
    public var isOnToday: Bool {
        guard !goal.deleted, isInLife(today) else { return false }
        if case .countdown(let config) = goal.kind { return today <= config.targetDay }
        return status(on: today) != .notDue
    }

    /// Whether `day` is in the goal's life: from the start Day to the end Day, not archived (STREAK-1).
    func isInLife(_ day: Day) -> Bool {
        !goal.deleted && day >= goal.startDay && (goal.endDay.map { day <= $0 } ?? true) && !goal.isArchived(on: day)
    }

    func index(_ day: Day) -> Int { goal.startDay.days(to: day) }

    // MARK: - Recurring kinds

    enum Unit {
        case counted(start: Day, end: Day)
        case broken
    }

    private mutating func evaluateRecurring(schedule: Schedule, outcomes: [DayOutcome]) {
        var units = StreakTracker(goalID: goal.id)
        var forgivenPerPeriod: [Day: Int] = [:]
        var entryIndex = 0
        var period: PeriodAccumulator? = nil
        let rules = schedule.entries.map { CompactRule($0.rule, effective: $0.effective) }
        var nextEffective = schedule.entries.count > 1 ? schedule.entries[1].effective : Day.max
        let unarchived = goal.archiveHistory.isEmpty
        var day = goal.startDay
        for offset in 0..<outcomes.count {
            if offset > 0 { day = day.advanced(by: 1) }
            while day >= nextEffective {
                entryIndex += 1
                nextEffective =
                    entryIndex + 1 < schedule.entries.count ? schedule.entries[entryIndex + 1].effective : Day.max
            }
            guard unarchived || !goal.isArchived(on: day) else { continue }
            let outcome = outcomes[offset]
            levels[offset] = outcome.level
            let rule = rules[entryIndex]
            if let dueToday = rule.falls(on: day) {
                if let open = period {
                    finish(open, schedule: schedule, units: &units)
                    period = nil
                }
                guard dueToday else { continue }
                judgeDueDay(day, outcome: outcome, units: &units, forgiven: &forgivenPerPeriod)
            } else {
                let entry = schedule.entries[entryIndex]
                let (target, days) = entry.rule.period(containing: day, weekStart: weekStart)!
                let key = PeriodKey(entry: entryIndex, first: Swift.max(days.lowerBound, entry.effective))
                if period?.key != key {
                    if let open = period { finish(open, schedule: schedule, units: &units) }
                    period = PeriodAccumulator(key: key, target: target, calendar: days)
                }
                period?.seen.append((day, outcome))
            }
        }
        if let open = period { finish(open, schedule: schedule, units: &units) }
        collectStreaks(units)
    }

    /// STREAK-10, STREAK-11, STREAK-17: a due Day is done, skipped, missed (or forgiven), or
    /// today still open.
    private mutating func judgeDueDay(
        _ day: Day, outcome: DayOutcome, units: inout StreakTracker, forgiven: inout [Day: Int]
    ) {
        let status: DayStatus
        switch outcome {
        case .done:
            status = .done
            units.append(.counted(start: day, end: day))
            judgements.append((day, true))
        case .skipped:
            status = .skipped
        case .partial(let thousandths) where day == today:
            status = .partial(thousandths: thousandths)
        case .none, .failed, .partial:
            if day == today {
                status = .pending
            } else {
                var partialStatus: DayStatus = .missed
                if case .partial(let thousandths) = outcome { partialStatus = .partial(thousandths: thousandths) }
                judgements.append((day, false))
                if let forgiveness = goal.forgiveness {
                    let period = forgiveness.period == .week ? day.week(startingOn: weekStart) : day.calendarMonth
                    let used = forgiven[period.lowerBound, default: 0]
                    if used < forgiveness.allowance {
                        forgiven[period.lowerBound] = used + 1
                        statuses[index(day)] = .forgiven
                        return
                    }
                }
                status = partialStatus
                units.append(.broken)
            }
        }
        statuses[index(day)] = status
    }

    /// The Days of one N-per-period period seen so far, judged when the period ends.
    struct PeriodAccumulator {
        var key: PeriodKey
        var target: Int
        var calendar: ClosedRange<Day>
        var seen: [(day: Day, outcome: DayOutcome)] = []
    }
}
