import GlowModel

extension GoalEvaluation {
    /// Completion and the statuses of entry Days for single, progress and one-off checklist
    /// goals (STREAK-13): progress accumulates over the entries in Day order, and the goal is
    /// complete from the first Day after which it stayed at or above the target.
    mutating func walkOneOff() {
        let target: Int64
        switch goal.kind {
        case .subgoals(let config): target = Int64(config.items.count)
        case .progress(let config): target = config.target.thousandths
        default: target = 1
        }
        let current: Set<SubgoalItemID>
        if case .subgoals(let config) = goal.kind { current = Set(config.items.map(\.id)) } else { current = [] }
        var progress: Int64 = 0
        var checked = Set<SubgoalItemID>()
        var completedOn: Day? = nil
        var progressAt: [Int64?] = []
        progressAt.reserveCapacity(entries.count)
        for index in 0..<entries.count {
            switch (goal.kind, entries.logs[index]) {
            case (.single, .done):
                progress = 1
            case (.subgoals, .items(let items)):
                // STREAK-5: only the goal's current items count.
                for item in items where current.contains(item) { checked.insert(item) }
                progress = Int64(checked.count)
            case (.progress, .amount(let amount)):
                // STREAK-6: the sum saturates instead of overflowing.
                let (sum, overflow) = progress.addingReportingOverflow(amount.thousandths)
                progress = overflow ? (amount.thousandths > 0 ? .max : .min) : sum
            default:
                // A log that does not fit adds nothing, and its Day is as one without an entry
                // (STREAK-8, STREAK-13).
                progressAt.append(nil)
                continue
            }
            if progress >= target {
                completedOn = completedOn ?? entries.days[index]
            } else {
                completedOn = nil
            }
            progressAt.append(progress)
        }
        entryStatuses = entries.days.indices.map { index in
            let day = entries.days[index]
            if let completedOn, day >= completedOn { return day == completedOn ? .done : .notDue }
            guard let progress = progressAt[index], progress > 0 else { return .notDue }
            return .partial(thousandths: Int(Swift.min(999, DayOutcome.thousandths(progress, of: target))))
        }
        let thousandths = DayOutcome.thousandths(Swift.max(0, progress), of: target)
        completion = Completion(
            done: completedOn != nil, doneOn: completedOn, thousandths: Int(clamping: thousandths))
    }

    /// The status of a one-off goal's Day in the life, on or before today (STREAK-13).
    func oneOffStatus(_ day: Day) -> DayStatus {
        if let index = entries.index(of: day), entryStatuses[index] != .notDue { return entryStatuses[index] }
        return day == today && completion?.done != true ? .pending : .notDue
    }

    /// A countdown's completion: done on and after its target Day; the elapsed share of the time
    /// from start to target, clamped to 0...1000 (STREAK-13).
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
