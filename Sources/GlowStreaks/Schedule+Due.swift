import GlowModel

extension ScheduleRule {
    /// Whether the rule is judged Day by Day (daily, weekdays, every N days) rather than by
    /// calendar period (STREAK-2).
    var isDayBased: Bool {
        switch self {
        case .daily, .weekdays, .everyNDays: true
        case .timesPerWeek, .timesPerMonth: false
        }
    }

    /// Whether a day-based rule that took effect on `effective` falls on `day` (STREAK-2).
    func matches(_ day: Day, effective: Day) -> Bool {
        switch self {
        case .daily: true
        case .weekdays(let days): days.contains(day.weekday)
        case .everyNDays(let interval): (effective.days(to: day) % interval + interval) % interval == 0
        case .timesPerWeek, .timesPerMonth: false
        }
    }

    /// For period rules: the target per period and the calendar period containing `day`.
    func period(containing day: Day, weekStart: Weekday) -> (target: Int, days: ClosedRange<Day>)? {
        switch self {
        case .timesPerWeek(let times): (times, day.week(startingOn: weekStart))
        case .timesPerMonth(let times): (times, day.calendarMonth)
        case .daily, .weekdays, .everyNDays: nil
        }
    }
}
