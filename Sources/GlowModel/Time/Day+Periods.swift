extension Day {
    /// The seven Days of the calendar week containing this Day, beginning on `weekStart` (MODEL-13).
    ///
    /// Near the ends of the supported range the week is cut to Days that exist.
    public func week(startingOn weekStart: Weekday) -> ClosedRange<Day> {
        let back = (weekday.isoNumber - weekStart.isoNumber + 7) % 7
        let first = Swift.max(daysSince1970 - back, Day.min.daysSince1970)
        let last = Swift.min(daysSince1970 - back + 6, Day.max.daysSince1970)
        return Day(unchecked: first)...Day(unchecked: last)
    }

    /// The Days of the calendar month containing this Day (MODEL-13).
    public var calendarMonth: ClosedRange<Day> {
        let (y, m, _) = components
        let first = Day.daysFromCivil(year: y, month: m, day: 1)
        return Day(unchecked: first)...Day(unchecked: first + Day.daysIn(month: m, year: y) - 1)
    }

    /// The ISO 8601 week date: the week-numbering year and the week 1...53 (MODEL-14).
    ///
    /// Weeks start on Monday and week 1 is the week with the year's first Thursday, so
    /// 2026-12-31 lies in week 53 of 2026 and 2027-01-01 too.
    public var isoWeek: (year: Int, week: Int) {
        let thursday = daysSince1970 - weekday.isoNumber + 4
        let (year, _, _) = Day(unchecked: thursday).components
        let firstOfYear = Day.daysFromCivil(year: year, month: 1, day: 1)
        return (year, (thursday - firstOfYear) / 7 + 1)
    }
}
