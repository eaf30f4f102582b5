/// A civil date in the proleptic Gregorian calendar, years 1...9999, with no time and no zone.
///
/// Every streak, due date and "today" is computed on `Day`s, never on instants (MODEL-1), so
/// daylight-saving changes and travel can never break or double a streak. On the wire a `Day` is
/// the number of days since 1970-01-01 (MODEL-2).
public struct Day: Hashable, Comparable, Sendable {
    /// Days since 1970-01-01; negative before it.
    public let daysSince1970: Int

    /// The first supported Day, 0001-01-01.
    public static let min = Day(unchecked: -719_162)
    /// The last supported Day, 9999-12-31.
    public static let max = Day(unchecked: 2_932_896)

    /// Days since 1970-01-01 that a `Day` may hold.
    public static let supportedRange = min.daysSince1970...max.daysSince1970

    @inlinable package init(unchecked daysSince1970: Int) {
        self.daysSince1970 = daysSince1970
    }

    /// The Day `daysSince1970` days after 1970-01-01.
    ///
    /// - Throws: ``ModelError/Code/dayOutOfRange`` outside 0001-01-01...9999-12-31.
    public init(daysSince1970: Int) throws(ModelError) {
        guard Day.supportedRange.contains(daysSince1970) else {
            throw ModelError(
                .dayOutOfRange, "\(daysSince1970) days since 1970-01-01 is outside years 1...9999", rule: "MODEL-2")
        }
        self.daysSince1970 = daysSince1970
    }

    /// The Day with this year, month and day of month.
    ///
    /// Nothing is normalised: 2025-02-29 is an error, not March 1st (MODEL-3).
    /// - Throws: ``ModelError/Code/invalidDay`` when the date does not exist or the year is outside 1...9999.
    public init(year: Int, month: Int, day: Int) throws(ModelError) {
        guard (1...9999).contains(year) else {
            throw ModelError(.invalidDay, "year \(year) is outside 1...9999", rule: "MODEL-3")
        }
        guard (1...12).contains(month) else {
            throw ModelError(.invalidDay, "month \(month) is outside 1...12", rule: "MODEL-3")
        }
        let length = Day.daysIn(month: month, year: year)
        guard (1...length).contains(day) else {
            throw ModelError(
                .invalidDay, "day \(day) does not exist in \(year)-\(Day.pad(month, 2)) (it has \(length) days)",
                rule: "MODEL-3")
        }
        self.daysSince1970 = Day.daysFromCivil(year: year, month: month, day: day)
    }

    /// The calendar year, 1...9999.
    public var year: Int { components.year }
    /// The month, 1...12.
    public var month: Int { components.month }
    /// The day of the month, 1...31.
    public var day: Int { components.day }

    /// Year, month and day of month at once.
    ///
    /// - Complexity: O(1).
    public var components: (year: Int, month: Int, day: Int) {
        // Civil-from-days over 400-year eras (March-based years), exact for the whole range.
        let z = daysSince1970 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The day of the week (MODEL-4): 1970-01-01 was a Thursday.
    public var weekday: Weekday {
        Weekday.allCases[Day.weekdayIndex(ofDaysSince1970: daysSince1970)]
    }

    /// The weekday of a day number, 0 for Monday ... 6 for Sunday: 1970-01-01 was a Thursday
    /// (MODEL-4). The one home of the weekday formula.
    @inlinable package static func weekdayIndex(ofDaysSince1970 days: Int) -> Int {
        ((days + 3) % 7 + 7) % 7
    }

    /// The 1-based day of the year.
    public var dayOfYear: Int {
        daysSince1970 - Day.daysFromCivil(year: year, month: 1, day: 1) + 1
    }

    /// The Day `count` days later (earlier when negative).
    ///
    /// - Throws: ``ModelError/Code/dayOutOfRange`` when the result leaves years 1...9999.
    public func adding(days count: Int) throws(ModelError) -> Day {
        let (sum, overflow) = daysSince1970.addingReportingOverflow(count)
        guard !overflow else {
            throw ModelError(.dayOutOfRange, "adding \(count) days overflows", rule: "MODEL-5")
        }
        do {
            return try Day(daysSince1970: sum)
        } catch {
            throw ModelError(
                .dayOutOfRange, "\(self) plus \(count) days is outside years 1...9999", rule: "MODEL-5")
        }
    }

    /// The number of days from `self` to `other`: positive when `other` is later.
    public func days(to other: Day) -> Int {
        other.daysSince1970 - daysSince1970
    }

    /// Whether `year` is a leap year in the proleptic Gregorian calendar.
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` of `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a valid civil date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Orders Days by time.
    public static func < (lhs: Day, rhs: Day) -> Bool {
        lhs.daysSince1970 < rhs.daysSince1970
    }
}

extension Day: Strideable {
    /// The Day `n` days later.
    ///
    /// - Precondition: the result lies in years 1...9999; use ``adding(days:)`` for input you do not control.
    public func advanced(by n: Int) -> Day {
        let result = daysSince1970 + n
        precondition(Day.supportedRange.contains(result), "Day arithmetic left years 1...9999")
        return Day(unchecked: result)
    }

    /// The number of days from `self` to `other`.
    public func distance(to other: Day) -> Int {
        days(to: other)
    }
}

extension Day: CustomStringConvertible, LosslessStringConvertible {
    /// The ISO 8601 calendar date, `YYYY-MM-DD` (MODEL-6).
    public var description: String {
        let (y, m, d) = components
        return "\(Day.pad(y, 4))-\(Day.pad(m, 2))-\(Day.pad(d, 2))"
    }

    /// Parses `YYYY-MM-DD` strictly, or returns nil; use ``init(iso:)`` to learn why.
    public init?(_ description: String) {
        guard let day = try? Day(iso: description) else { return nil }
        self = day
    }

    /// Parses exactly `YYYY-MM-DD`: four-digit year, two-digit month and day, ASCII digits, no
    /// sign, no spaces, no time (MODEL-6).
    ///
    /// - Throws: ``ModelError/Code/invalidDay`` naming what was wrong.
    public init(iso text: String) throws(ModelError) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else {
            throw ModelError(.invalidDay, "\"\(text)\" is not of the form YYYY-MM-DD", rule: "MODEL-6")
        }
        func number(_ range: Range<Int>) throws(ModelError) -> Int {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    throw ModelError(.invalidDay, "\"\(text)\" has a non-digit where a digit belongs", rule: "MODEL-6")
                }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        try self.init(year: try number(0..<4), month: try number(5..<7), day: try number(8..<10))
    }
}

extension Day: Codable {
    /// Decodes a `YYYY-MM-DD` string.
    public init(from decoder: any Decoder) throws {
        self = try decodeText(from: decoder) { (text: String) throws(ModelError) in try Day(iso: text) }
    }

    /// Encodes as a `YYYY-MM-DD` string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
