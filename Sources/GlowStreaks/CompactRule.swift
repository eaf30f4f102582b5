import GlowModel

/// A day-based schedule rule reduced to arithmetic, so a Day is judged and a run of Days counted
/// without visiting each (STREAK-2).
struct CompactRule: Sendable {
    private enum Form: Sendable {
        case daily
        case weekdays(mask: UInt8)
        case every(interval: Int, anchor: Int)
        case period(week: Bool)
    }

    /// Whether the rule is judged Day by Day or per calendar period (STREAK-2, STREAK-12).
    enum Kind: Equatable {
        case days
        case period(week: Bool)
    }

    private let form: Form

    /// Day by Day, or per week or month.
    var kind: Kind {
        if case .period(let week) = form { return .period(week: week) }
        return .days
    }

    init(_ rule: ScheduleRule, effective: Day) {
        switch rule {
        case .daily: form = .daily
        case .weekdays(let days): form = .weekdays(mask: days.reduce(0) { $0 | 1 << UInt8($1.isoNumber - 1) })
        case .everyNDays(let interval): form = .every(interval: interval, anchor: effective.daysSince1970)
        case .timesPerWeek: form = .period(week: true)
        case .timesPerMonth: form = .period(week: false)
        }
    }

    /// Whether the rule falls on `day`, or nil for an N-per-period rule, judged per period.
    func falls(on day: Day) -> Bool? {
        switch form {
        case .daily: return true
        case .weekdays(let mask): return mask & 1 << UInt8(day.weekday.isoNumber - 1) != 0
        case .every(let interval, let anchor): return Self.floorMod(day.daysSince1970 - anchor, interval) == 0
        case .period: return nil
        }
    }

    /// How many Days of `first ... last` the rule falls on (0 for a period rule).
    ///
    /// - Complexity: O(1).
    func count(from first: Day, through last: Day) -> Int {
        guard first <= last else { return 0 }
        let length = first.days(to: last) + 1
        switch form {
        case .daily:
            return length
        case .weekdays(let mask):
            var total = length / 7 * mask.nonzeroBitCount
            var day = first.daysSince1970 + length / 7 * 7
            while day <= last.daysSince1970 {
                if mask & 1 << UInt8(Day.weekdayIndex(ofDaysSince1970: day)) != 0 { total += 1 }
                day += 1
            }
            return total
        case .every(let interval, let anchor):
            return Self.floorDivide(last.daysSince1970 - anchor, interval)
                - Self.floorDivide(first.daysSince1970 - 1 - anchor, interval)
        case .period:
            return 0
        }
    }

    /// The fewest and the most Days the rule falls on in any window of `length` consecutive Days,
    /// whatever Day it starts on.
    func dueBounds(inWindowsOf length: Int) -> (fewest: Int, most: Int) {
        switch form {
        case .daily:
            return (length, length)
        case .weekdays(let mask):
            let whole = length / 7 * mask.nonzeroBitCount
            var fewest = Int.max
            var most = 0
            for start in 0..<7 {
                var part = 0
                for offset in 0..<(length % 7) where mask & 1 << UInt8((start + offset) % 7) != 0 { part += 1 }
                fewest = Swift.min(fewest, whole + part)
                most = Swift.max(most, whole + part)
            }
            return (fewest, most)
        case .every(let interval, _):
            return (length / interval, (length + interval - 1) / interval)
        case .period:
            return (0, 0)
        }
    }

    /// The fewest and the most Days the rule falls on in any whole calendar week (7 Days) or
    /// month (28 to 31 Days).
    func dueBounds(inWholePeriodsOf period: Forgiveness.Period) -> (fewest: Int, most: Int) {
        guard period == .month else { return dueBounds(inWindowsOf: 7) }
        let bounds = (28...31).map { dueBounds(inWindowsOf: $0) }
        return (bounds.map(\.fewest).min()!, bounds.map(\.most).max()!)
    }

    private static func floorDivide(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }

    private static func floorMod(_ a: Int, _ b: Int) -> Int {
        let r = a % b
        return r < 0 ? r + b : r
    }
}
