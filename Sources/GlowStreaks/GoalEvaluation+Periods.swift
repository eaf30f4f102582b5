import GlowModel

extension GoalEvaluation {
    /// The index of the schedule entry in force on `day`.
    func entryIndex(_ schedule: Schedule, on day: Day) -> Int {
        schedule.entries.lastIndex { $0.effective <= day } ?? 0
    }

    /// The Days of a period that count: the calendar period cut to the span of its schedule entry
    /// and to the goal's start and end Days (STREAK-12).
    func clippedDays(of calendar: ClosedRange<Day>, entry: Int, in schedule: Schedule) -> ClosedRange<Day>? {
        var first = Swift.max(calendar.lowerBound, schedule.entries[entry].effective, goal.startDay)
        var last = calendar.upperBound
        if entry + 1 < schedule.entries.count {
            last = Swift.min(last, schedule.entries[entry + 1].effective.advanced(by: -1))
        }
        if let end = goal.endDay { last = Swift.min(last, end) }
        first = Swift.max(first, Day.min)
        return first <= last ? first...last : nil
    }

    /// The status of a Day after today (STREAK-9).
    func futureStatus(_ day: Day) -> DayStatus {
        guard goal.kind.isRecurring, let schedule = goal.schedule else {
            if case .countdown(let config) = goal.kind { return day == config.targetDay ? .upcoming : .notDue }
            return completion?.done == true ? .notDue : .upcoming
        }
        let index = entryIndex(schedule, on: day)
        let entry = schedule.entries[index]
        guard let (_, calendar) = entry.rule.period(containing: day, weekStart: weekStart) else {
            return entry.rule.matches(day, effective: entry.effective) ? .upcoming : .notDue
        }
        let key = PeriodKey(entry: index, first: Swift.max(calendar.lowerBound, entry.effective))
        return periodsMet[key] == true ? .notDue : .upcoming
    }
}
