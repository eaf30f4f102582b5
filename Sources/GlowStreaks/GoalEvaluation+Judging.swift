import GlowModel

extension GoalEvaluation {
    /// Judges one N-per-period period once all its Days up to today are seen (STREAK-12,
    /// STREAK-13 of periods).
    ///
    /// The target is N, or the number of the period's Days in the goal's life when fewer. The
    /// period is met when that many Days are done (surplus does not carry over); a closed period
    /// that is not met is excused when skips make up the difference, and missed otherwise; the
    /// open period (today's) never breaks a streak.
    mutating func finish(_ period: PeriodAccumulator, schedule: Schedule, units: inout StreakTracker) {
        let clipped = clippedDays(of: period.calendar, entry: period.key.entry, in: schedule)
        let lifeDays = clipped.map { $0.filter(isInLife).count } ?? 0
        let target = Swift.min(period.target, lifeDays)
        let doneDays = period.seen.filter { $0.outcome == .done }.map(\.day)
        let skips = period.seen.filter { $0.outcome == .skipped }.count
        let open = (clipped?.upperBound ?? period.calendar.upperBound) >= today
        let met = target > 0 && doneDays.count >= target
        let excused = !met && skips > 0 && doneDays.count + skips >= target
        periodsMet[period.key] = met
        for (day, outcome) in period.seen {
            let status: DayStatus
            switch outcome {
            case .done: status = .done
            case .skipped: status = .skipped
            case .partial(let thousandths): status = .partial(thousandths: thousandths)
            case .none, .failed:
                if day == today {
                    status = met ? .notDue : .pending
                } else {
                    status = open || met || excused || target == 0 ? .notDue : .missed
                }
            }
            statuses[index(day)] = status
        }
        guard target > 0 else { return }
        if met {
            units.append(.counted(start: doneDays[0], end: doneDays[target - 1]))
            judgements.append((doneDays[target - 1], true))
        } else if !open && !excused {
            units.append(.broken)
            judgements.append((clipped!.upperBound, false))
        }
    }

    /// Takes the streaks and milestones the units made (STREAK-14 ... STREAK-16, STREAK-20).
    mutating func collectStreaks(_ units: StreakTracker) {
        var tracker = units
        currentStreak = tracker.current
        tracker.close()
        longestStreak = tracker.longest
        milestones = tracker.milestones
    }

    /// Statuses and completion of one-off kinds (STREAK-13).
    ///
    /// Progress accumulates over the Days in order: checked items join, amounts add, done is
    /// done. The goal is complete from the first Day after which its progress stayed at or above
    /// the target; earlier Days with progress are partly done.
    mutating func evaluateOneOff(logs: [CheckInLog?]) {
        if case .countdown(let config) = goal.kind {
            completion = countdownCompletion(config)
            if config.targetDay <= judgedThrough, config.targetDay >= goal.startDay, isInLife(config.targetDay) {
                statuses[index(config.targetDay)] = .done
                levels[index(config.targetDay)] = 4
            } else if today < config.targetDay, today <= judgedThrough, isInLife(today) {
                statuses[index(today)] = .pending
            }
            return
        }
        let target: Int64
        switch goal.kind {
        case .subgoals(let config): target = Int64(config.items.count)
        case .progress(let config): target = config.target.thousandths
        default: target = 1
        }
        var progress: Int64 = 0
        var checked = Set<SubgoalItemID>()
        var completedOn: Day? = nil
        var record: [(day: Day, progress: Int64)] = []
        for (offset, entry) in logs.enumerated() {
            guard let log = entry else { continue }
            let day = goal.startDay.advanced(by: offset)
            guard CheckIn.accepts(log, for: goal.kind) else { continue }
            switch (goal.kind, log) {
            case (.subgoals(let config), .items(let items)):
                checked.formUnion(config.items.map(\.id).filter(items.contains))
                progress = Int64(checked.count)
            case (_, .amount(let amount)):
                progress += amount.thousandths
            default:
                progress = 1
            }
            if progress >= target {
                completedOn = completedOn ?? day
            } else {
                completedOn = nil
            }
            record.append((day, progress))
        }
        for (day, dayProgress) in record {
            let status: DayStatus
            if day == completedOn {
                status = .done
            } else if let completedOn, day > completedOn {
                status = .notDue
            } else if dayProgress > 0 {
                status = .partial(thousandths: Int(Swift.min(999, Swift.max(1, dayProgress * 1000 / target))))
            } else {
                status = .notDue
            }
            statuses[index(day)] = status
            if case .partial(let thousandths) = status {
                levels[index(day)] = 1 + thousandths * 3 / 1000
            } else if status == .done {
                levels[index(day)] = 4
            }
        }
        if completedOn == nil, today <= judgedThrough, isInLife(today), statuses[index(today)] == .notDue {
            statuses[index(today)] = .pending
        }
        let fraction = Swift.max(0, progress) * 1000 / target
        completion = Completion(
            done: completedOn != nil, doneOn: completedOn, thousandths: Int(Swift.min(fraction, Int64(Int.max))))
    }

    /// A countdown's completion: done on and after its target Day (STREAK-13).
    func countdownCompletion(_ config: CountdownConfig) -> Completion {
        let span = goal.startDay.days(to: config.targetDay)
        let elapsed = goal.startDay.days(to: today)
        let thousandths = span <= 0 ? 1000 : Swift.min(1000, Swift.max(0, elapsed * 1000 / span))
        let done = today >= config.targetDay
        return Completion(
            done: done, doneOn: done ? config.targetDay : nil, thousandths: thousandths,
            daysLeft: today.days(to: config.targetDay))
    }
}

/// Streaks as units arrive, in time order: a counting unit extends the run, a break closes it
/// (STREAK-14 ... STREAK-16); milestones are noted as runs reach them (STREAK-20). Nothing per
/// unit is stored.
struct StreakTracker {
    let goalID: GoalID
    private var start: Day?
    private var end: Day?
    private var length = 0
    private var nextMilestone = 0
    private(set) var longest: Streak?
    private(set) var milestones: [Milestone] = []

    init(goalID: GoalID) {
        self.goalID = goalID
    }

    /// The run no break has followed, if it counts anything.
    var current: Streak? {
        guard length > 0, let start, let end else { return nil }
        return Streak(length: length, start: start, end: end)
    }

    mutating func append(_ unit: GoalEvaluation.Unit) {
        switch unit {
        case .counted(let first, let last):
            if length == 0 {
                start = first
                nextMilestone = 0
            }
            length += 1
            end = last
            if nextMilestone < Milestone.thresholds.count, length == Milestone.thresholds[nextMilestone] {
                milestones.append(
                    Milestone(id: Milestone.ID(goalID: goalID, milestone: length, streakStart: start!), reachedOn: last)
                )
                nextMilestone += 1
            }
        case .broken:
            close()
        }
    }

    /// Ends the run; the longest keeps the earliest of equals.
    mutating func close() {
        if let run = current, run.length > (longest?.length ?? 0) { longest = run }
        length = 0
        start = nil
        end = nil
    }
}
