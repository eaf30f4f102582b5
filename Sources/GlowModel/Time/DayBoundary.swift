/// The rule that turns instants into Days for one person: their time zone, the minute their day
/// starts, and the day their week starts (MODEL-9 ... MODEL-13).
///
/// With a 03:00 day start, a check-in at 01:30 belongs to the previous Day, so a late night still
/// counts for the day it ends (MODEL-10).
public struct DayBoundary: Hashable, Sendable {
    /// The IANA zone whose wall clock decides the Day.
    public let timeZone: TimeZoneID
    /// Minutes after local midnight at which a Day begins, 0 ..< 1440.
    public let dayStartMinutes: Int
    /// The first day of a calendar week.
    public let weekStart: Weekday
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    /// UTC, Days from midnight, weeks from Monday: the boundary of a data set with no profile.
    public static let utc = try! DayBoundary(timeZone: .utc)

    /// Creates a boundary.
    ///
    /// - Throws: ``ModelError/Code/invalidDayStart`` when `dayStartMinutes` is outside 0 ..< 1440.
    public init(timeZone: TimeZoneID, dayStartMinutes: Int = 0, weekStart: Weekday = .monday) throws(ModelError) {
        guard (0..<1440).contains(dayStartMinutes) else {
            throw ModelError(
                .invalidDayStart, "a day start of \(dayStartMinutes) minutes is outside 0 ..< 1440",
                path: "dayStartMinutes", rule: "MODEL-9")
        }
        self.timeZone = timeZone
        self.dayStartMinutes = dayStartMinutes
        self.weekStart = weekStart
    }

    /// Why this boundary cannot follow its zone's rules, if it cannot: a zone this system's tz
    /// database does not know (a newer tzdata elsewhere added it) is computed in UTC until the
    /// system learns it (MODEL-8). Apps show this so a person can pick a zone this device knows.
    public var warning: DayBoundaryWarning? {
        timeZone.isKnown ? nil : .unknownTimeZone(timeZone)
    }

    /// The Day that `instant` belongs to (MODEL-10, MODEL-11).
    ///
    /// The Day is the one whose start (see ``firstInstant(of:)``) is the latest at or before
    /// `instant`. Where the wall clock runs backwards (a daylight-saving overlap), a Day that has
    /// begun stays begun: the repeated hour never returns to the previous Day.
    public func day(containing instant: Instant) -> Day {
        let (seconds, _) = Instant.floorDivide(instant.millisecondsSince1970, 1000)
        // The latest wall-clock reading reached at or before `seconds`; a backward jump is
        // shorter than 27 hours, so earlier readings cannot be later than this one.
        var latestLocal = Int64.min
        for piece in pieces(from: seconds - 27 * 3600, through: seconds) {
            latestLocal = Swift.max(latestLocal, piece.end + Int64(piece.offset))
        }
        let (days, _) = Instant.floorDivide(latestLocal - Int64(dayStartMinutes) * 60, 86_400)
        return Day(unchecked: Int(days).clamped(to: Day.supportedRange))
    }

    /// The first instant of `day`, or nil when the zone skipped the whole Day (MODEL-12).
    ///
    /// It is the earliest instant whose wall-clock time is at or after the day start on `day`:
    /// when the day start falls into a daylight-saving gap, the Day starts at the end of the gap;
    /// in an overlap, at its first occurrence.
    public func firstInstant(of day: Day) -> Instant? {
        let range = instants(of: day)
        return range.isEmpty ? nil : range.lowerBound
    }

    /// The last instant (millisecond) of `day`, or nil when the zone skipped the whole Day.
    public func lastInstant(of day: Day) -> Instant? {
        let range = instants(of: day)
        return range.isEmpty ? nil : Instant(unchecked: range.upperBound.millisecondsSince1970 - 1)
    }

    /// Every instant that belongs to `day`, from its start up to the next Day's start; empty when
    /// the zone skipped the Day (Pacific/Apia skipped 2011-12-30).
    public func instants(of day: Day) -> Range<Instant> {
        let start = startSeconds(ofLocal: Int64(day.daysSince1970) * 86_400 + Int64(dayStartMinutes) * 60)
        let end = startSeconds(ofLocal: Int64(day.daysSince1970 + 1) * 86_400 + Int64(dayStartMinutes) * 60)
        // The first Day's start and the last Day's end lie a zone offset beyond years 1...9999;
        // they are clamped to the instants that exist (the upper bound is exclusive).
        let limits = Instant.min.millisecondsSince1970...(Instant.max.millisecondsSince1970 + 1)
        let lower = Instant(unchecked: (start * 1000).clamped(to: limits))
        return lower..<Swift.max(lower, Instant(unchecked: (end * 1000).clamped(to: limits)))
    }

    /// The earliest instant whose wall-clock reading is at or after `minute` minutes past local
    /// midnight on the calendar date `date` (REMIND-4): in a daylight-saving gap the end of the
    /// gap, in an overlap the first occurrence. Clamped to the instants that exist.
    public func instant(atOrAfter minute: Int, on date: Day) -> Instant {
        let seconds = startSeconds(ofLocal: Int64(date.daysSince1970) * 86_400 + Int64(minute) * 60)
        let limits = Instant.min.millisecondsSince1970...Instant.max.millisecondsSince1970
        return Instant(unchecked: (seconds * 1000).clamped(to: limits))
    }

    /// The calendar date and the minute past local midnight (0 ..< 1440) that the zone's wall
    /// clock reads at `instant`.
    public func wallClock(at instant: Instant) -> (date: Day, minute: Int) {
        let (seconds, _) = Instant.floorDivide(instant.millisecondsSince1970, 1000)
        let local = seconds + Int64(timeZone.offsetSeconds(at: seconds))
        let (days, second) = Instant.floorDivide(local, 86_400)
        return (Day(unchecked: Int(days).clamped(to: Day.supportedRange)), Int(second / 60))
    }

    /// The calendar week that contains `day`, beginning on ``weekStart`` (MODEL-13).
    public func week(containing day: Day) -> ClosedRange<Day> {
        day.week(startingOn: weekStart)
    }

    /// The calendar month that contains `day` (MODEL-13).
    public func month(containing day: Day) -> ClosedRange<Day> {
        day.calendarMonth
    }

    /// The earliest second whose wall-clock reading is at or after `local` (seconds of wall
    /// time since 1970-01-01T00:00 local).
    private func startSeconds(ofLocal local: Int64) -> Int64 {
        // Offsets lie within -12h ... +14h, so the crossing lies within this window.
        let pieces = pieces(from: local - 15 * 3600, through: local + 13 * 3600)
        for piece in pieces {
            let candidate = Swift.max(piece.start, local - Int64(piece.offset))
            if candidate <= piece.end { return candidate }
        }
        return local - Int64(pieces.last!.offset)
    }

    /// The window cut into pieces of constant offset, in time order.
    ///
    /// Samples every 30 minutes and finds each change to the second by bisection; real zones
    /// never change offset twice within 30 minutes.
    private func pieces(from lower: Int64, through upper: Int64) -> [(start: Int64, end: Int64, offset: Int)] {
        var result: [(start: Int64, end: Int64, offset: Int)] = []
        var pieceStart = lower
        var offset = timeZone.offsetSeconds(at: lower)
        var previous = lower
        while previous < upper {
            let next = Swift.min(previous + 1800, upper)
            let nextOffset = timeZone.offsetSeconds(at: next)
            if nextOffset != offset {
                // Bisect for the first second with the new offset.
                var low = previous
                var high = next
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if timeZone.offsetSeconds(at: middle) == offset { low = middle } else { high = middle }
                }
                result.append((pieceStart, high - 1, offset))
                pieceStart = high
                offset = nextOffset
            }
            previous = next
        }
        result.append((pieceStart, upper, offset))
        return result
    }
}

/// Why a ``DayBoundary`` decides Days differently from what its settings ask (MODEL-8).
public enum DayBoundaryWarning: Hashable, Sendable, CustomStringConvertible {
    /// The zone is unknown to this system's tz database; Days are computed in UTC.
    case unknownTimeZone(TimeZoneID)

    /// The warning's stable code, as the corpus spells it.
    public var code: String {
        switch self {
        case .unknownTimeZone: "unknown_time_zone"
        }
    }

    /// A sentence an app can show.
    public var description: String {
        switch self {
        case .unknownTimeZone(let zone):
            "this device does not know the time zone \"\(zone)\"; Days are counted in UTC until it does"
        }
    }
}

extension DayBoundary: Codable {
    private enum CodingKeys: String, CodingKey {
        case timeZone
        case dayStartMinutes
        case weekStart
    }

    /// Decodes `{"timeZone": ..., "dayStartMinutes": ..., "weekStart": ...}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let minutes = try container.decode(Int.self, forKey: .dayStartMinutes)
        self = try validated(at: container.codingPath) {
            try DayBoundary(
                timeZone: try container.decode(TimeZoneID.self, forKey: .timeZone),
                dayStartMinutes: minutes,
                weekStart: try container.decode(Weekday.self, forKey: .weekStart))
        }
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
