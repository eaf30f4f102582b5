import Foundation

/// A point in time: UTC milliseconds since 1970-01-01T00:00:00Z, with no leap seconds.
///
/// Instants are kept beside Days for display and audit (`recordedAt`, `modifiedAt`); nothing that
/// decides a streak or a due date reads them (MODEL-1). JSON and text use RFC 3339 in UTC with
/// exactly three fraction digits, `2025-03-09T07:30:00.000Z` (MODEL-7).
public struct Instant: Hashable, Comparable, Sendable {
    /// Milliseconds since the Unix epoch; negative before it.
    public let millisecondsSince1970: Int64

    /// The earliest instant that has text: 0001-01-01T00:00:00.000Z.
    public static let min = Instant(unchecked: Int64(Day.min.daysSince1970) * 86_400_000)
    /// The latest instant that has text: 9999-12-31T23:59:59.999Z.
    public static let max = Instant(unchecked: Int64(Day.max.daysSince1970 + 1) * 86_400_000 - 1)
    /// 1970-01-01T00:00:00.000Z.
    public static let epoch = Instant(unchecked: 0)

    /// The instant this many milliseconds after the epoch (MODEL-7).
    ///
    /// - Throws: ``ModelError/Code/invalidInstant`` outside years 1...9999 (``min`` ... ``max``),
    ///   which have no text and no place on the wire.
    public init(millisecondsSince1970: Int64) throws(ModelError) {
        guard Instant.min.millisecondsSince1970...Instant.max.millisecondsSince1970 ~= millisecondsSince1970 else {
            throw ModelError(
                .invalidInstant, "\(millisecondsSince1970) ms since 1970 is outside years 1...9999", rule: "MODEL-7")
        }
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// An instant the caller has already checked to lie in ``min`` ... ``max``.
    package init(unchecked millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Orders instants by time.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// The instant `milliseconds` later (earlier when negative).
    ///
    /// - Throws: ``ModelError/Code/invalidInstant`` when the result leaves years 1...9999; the sum
    ///   is checked, so no input traps (MODEL-7).
    public func adding(milliseconds: Int64) throws(ModelError) -> Instant {
        let (sum, overflow) = millisecondsSince1970.addingReportingOverflow(milliseconds)
        guard !overflow else {
            throw ModelError(
                .invalidInstant, "\(self) plus \(milliseconds) ms is outside years 1...9999", rule: "MODEL-7")
        }
        return try Instant(millisecondsSince1970: sum)
    }

    /// Floor division that rounds toward negative infinity, as calendar arithmetic needs.
    @inlinable package static func floorDivide(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}

extension Instant: CustomStringConvertible {
    /// RFC 3339 in UTC with milliseconds: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public var description: String {
        let (days, msOfDay) = Instant.floorDivide(millisecondsSince1970, 86_400_000)
        guard Day.supportedRange.contains(Int(days)) else { return "\(millisecondsSince1970)ms" }
        let day = Day(unchecked: Int(days))
        let ms = Int(msOfDay)
        return "\(day)T\(Day.pad(ms / 3_600_000, 2)):\(Day.pad(ms / 60_000 % 60, 2)):\(Day.pad(ms / 1000 % 60, 2))"
            + ".\(Day.pad(ms % 1000, 3))Z"
    }

    /// Parses an RFC 3339 date-time (MODEL-7).
    ///
    /// Accepted: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of one to three digits, then `Z` or a
    /// numeric offset `±HH:MM`. `T` and `Z` are upper case. Seconds 60 (leap seconds) and finer
    /// precision than milliseconds are refused rather than silently changed.
    /// - Throws: ``ModelError/Code/invalidInstant`` naming what was wrong.
    public init(rfc3339 text: String) throws(ModelError) {
        let b = Array(text.utf8)
        func fail(_ why: String) -> ModelError {
            ModelError(.invalidInstant, "\"\(text)\" is not an RFC 3339 instant: \(why)", rule: "MODEL-7")
        }
        func digits(_ start: Int, _ count: Int) throws(ModelError) -> Int {
            guard start + count <= b.count else { throw fail("it ends early") }
            var value = 0
            for byte in b[start..<(start + count)] {
                guard (48...57).contains(byte) else { throw fail("expected a digit at offset \(start)") }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func expect(_ offset: Int, _ char: Character) throws(ModelError) {
            guard offset < b.count, b[offset] == char.asciiValue! else {
                throw fail("expected \"\(char)\" at offset \(offset)")
            }
        }
        guard b.count >= 20 else { throw fail("it is too short") }
        let day: Day
        do {
            try expect(4, "-")
            try expect(7, "-")
            day = try Day(year: try digits(0, 4), month: try digits(5, 2), day: try digits(8, 2))
        } catch let error where error.code == .invalidDay {
            throw fail("the date part is not a valid day")
        }
        try expect(10, "T")
        let hour = try digits(11, 2)
        try expect(13, ":")
        let minute = try digits(14, 2)
        try expect(16, ":")
        let second = try digits(17, 2)
        guard hour < 24, minute < 60, second < 60 else { throw fail("the time of day is out of range") }
        var offset = 19
        var millis = 0
        if offset < b.count, b[offset] == UInt8(ascii: ".") {
            offset += 1
            var count = 0
            while offset < b.count, (48...57).contains(b[offset]) {
                count += 1
                guard count <= 3 else { throw fail("more than three fraction digits") }
                millis = millis * 10 + Int(b[offset] - 48)
                offset += 1
            }
            guard count > 0 else { throw fail("a fraction needs at least one digit") }
            for _ in count..<3 { millis *= 10 }
        }
        var zoneSeconds = 0
        guard offset < b.count else { throw fail("the zone (Z or ±HH:MM) is missing") }
        if b[offset] == UInt8(ascii: "Z") {
            offset += 1
        } else if b[offset] == UInt8(ascii: "+") || b[offset] == UInt8(ascii: "-") {
            let sign = b[offset] == UInt8(ascii: "-") ? -1 : 1
            let zh = try digits(offset + 1, 2)
            try expect(offset + 3, ":")
            let zm = try digits(offset + 4, 2)
            guard zh < 24, zm < 60 else { throw fail("the zone offset is out of range") }
            zoneSeconds = sign * (zh * 3600 + zm * 60)
            offset += 6
        } else {
            throw fail("expected Z or ±HH:MM at offset \(offset)")
        }
        guard offset == b.count else { throw fail("unexpected text after the zone") }
        let seconds = Int64(day.daysSince1970) * 86_400 + Int64(hour * 3600 + minute * 60 + second - zoneSeconds)
        guard let instant = try? Instant(millisecondsSince1970: seconds * 1000 + Int64(millis)) else {
            throw fail("it is outside years 1...9999")
        }
        self = instant
    }
}

extension Instant: Codable {
    /// Decodes an RFC 3339 string.
    public init(from decoder: any Decoder) throws {
        self = try decodeText(from: decoder) { (text: String) throws(ModelError) in try Instant(rfc3339: text) }
    }

    /// Encodes as RFC 3339 UTC with milliseconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Instant {
    /// The current instant from the system clock, to the millisecond.
    public static var now: Instant { Instant(Date()) }

    /// The instant of a Foundation `Date`, to the millisecond (rounded down), held to
    /// ``min`` ... ``max`` (a date outside years 1 ... 9999, or not a number, becomes the nearer end).
    /// A date within a microsecond of a whole millisecond is that millisecond: a `Date` keeps its
    /// time in floating point from 2001, so an instant's own `date` comes back as itself.
    public init(_ date: Date) {
        let exact = date.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        let milliseconds = abs(exact - nearest) < 0.001 ? nearest : exact.rounded(.down)
        let limits = Double(Instant.min.millisecondsSince1970)...Double(Instant.max.millisecondsSince1970)
        // Clamped as a Double first, so that no date's conversion to an integer can trap.
        let held = milliseconds.isNaN ? 0 : Swift.min(Swift.max(milliseconds, limits.lowerBound), limits.upperBound)
        self.init(unchecked: Int64(held))
    }

    /// The instant as a Foundation `Date`, for the platform's APIs (notifications, formatters).
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }
}
