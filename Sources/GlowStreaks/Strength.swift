import GlowCore
import GlowModel

/// How well a recurring goal's habit is holding (STREAK-27 ... STREAK-29): an exponentially
/// smoothed record of its judged units, in exact integer arithmetic, with the figures that say
/// why it moved.
///
/// For a daily yes/no goal it is Loop Habit Tracker's habit score; a skipped or forgiven Day
/// leaves it where it was, a missed one pulls it down by a share, a done one up by the same share
/// of what is left.
public struct Strength: Hashable, Sendable {
    /// The score of full strength, 2^30.
    public static let full: Int64 = 1 << 30
    /// How many Days back from today the units are kept one by one: enough for the 30-Day change
    /// and moves and for a chart of the last 12 weeks.
    public static let recordedDays = 91

    /// One unit of the recorded Days: its Day and the score before and after it.
    public struct Move: Hashable, Sendable {
        /// The unit's Day.
        public var day: Day
        /// The score before the unit.
        public var before: Int64
        /// The score after the unit.
        public var after: Int64
        /// How far the unit moved the score, in 2^−30 units; negative when it fell.
        public var change: Int64 { after - before }
    }

    /// The score S, 0 ... 2^30 (STREAK-27).
    public let score: Int64
    /// The Day the strength is as of.
    public let today: Day
    /// The units on the recorded Days (``recordedDays`` up to today), in Day order.
    public let recent: [Move]

    /// The reported strength, `floor(1000 × S / 2^30)`, 0 ... 1000.
    public var thousandths: Int { Self.thousandths(score) }

    /// The reported form of a score.
    public static func thousandths(_ score: Int64) -> Int { Int((score * 1000) >> 30) }

    /// The first Day whose strength through it is known here: the Day before the recorded Days.
    public var firstKnownDay: Day {
        let (back, overflow) = today.daysSince1970.subtractingReportingOverflow(Self.recordedDays)
        return overflow ? Day.min : Day(unchecked: Swift.max(back, Day.min.daysSince1970))
    }

    /// The score after the units on or before `day` (STREAK-29); nil for a Day before
    /// ``firstKnownDay``, whose units were not kept one by one.
    public func score(through day: Day) -> Int64? {
        guard day >= firstKnownDay else { return nil }
        let index = recent.partitioningIndex { $0.day > day }
        if index > 0 { return recent[index - 1].after }
        return recent.first?.before ?? score
    }

    /// The change of the reported strength over the last `days` Days (7 or 30, say), in
    /// thousandths: through today minus through today − `days` (STREAK-29).
    ///
    /// - Precondition: `days` is at most ``recordedDays``.
    public func change(overLast days: Int) -> Int {
        precondition((0...Self.recordedDays).contains(days), "only the recorded Days are kept")
        let (back, overflow) = today.daysSince1970.subtractingReportingOverflow(days)
        let then = overflow ? Day.min : Day(unchecked: Swift.max(back, Day.min.daysSince1970))
        return thousandths - Self.thousandths(score(through: then) ?? 0)
    }

    /// The units of the last 30 Days that moved the score most: at most three, the greatest
    /// absolute change first, of equals the later Day first; units that changed nothing are left
    /// out (STREAK-29).
    public var moves: [Move] {
        let (back, overflow) = today.daysSince1970.subtractingReportingOverflow(29)
        let from = overflow ? Day.min : Day(unchecked: Swift.max(back, Day.min.daysSince1970))
        let moved = recent.filter { $0.day >= from && $0.change != 0 }
        return Array(
            moved.sorted { a, b in
                a.change.magnitude != b.change.magnitude ? a.change.magnitude > b.change.magnitude : a.day > b.day
            }.prefix(3))
    }

    /// The reported strength through each of the last `days` Days, oldest first, ending with today.
    ///
    /// - Precondition: `days` is 1 ... ``recordedDays``.
    public func series(lastDays days: Int) -> [(day: Day, thousandths: Int)] {
        precondition((1...Self.recordedDays).contains(days), "only the recorded Days are kept")
        let first = Swift.max(Day.min.daysSince1970, today.daysSince1970 - (days - 1))
        return (first...today.daysSince1970).map { number in
            let day = Day(unchecked: number)
            return (day, Self.thousandths(score(through: day) ?? 0))
        }
    }

    // MARK: - The multiplier (STREAK-28)

    /// The multiplier M of a rule: `2^30 × 2^(−√R / 13)` for the rule's weight R, in the integer
    /// steps of STREAK-28.
    public static func multiplier(for rule: ScheduleRule) -> Int64 {
        let (a, b): (UInt64, UInt64)
        switch rule {
        case .daily: (a, b) = (1, 1)
        case .weekdays(let days): (a, b) = (7, UInt64(Swift.max(1, days.count)))
        // Clamped to the ranges of MODEL-29, so a rule built without validation cannot trap.
        case .everyNDays(let interval): (a, b) = (UInt64(Swift.min(366, Swift.max(1, interval))), 1)
        case .timesPerWeek(let times): (a, b) = (7 * UInt64(Swift.min(7, Swift.max(1, times))), 1)
        case .timesPerMonth(let times): (a, b) = (30 * UInt64(Swift.min(31, Swift.max(1, times))), 1)
        }
        return multiplier(weight: a, over: b)
    }

    /// M for the weight `a / b`; the quotient `2^60 × a / (169 × b)` must fit in 64 bits, as it
    /// does for every weight a rule can have (at most 930).
    static func multiplier(weight a: UInt64, over b: UInt64) -> Int64 {
        let (high, low) = a.multipliedFullWidth(by: 1 << 60)
        let exponent = isqrt((169 * b).dividingFullWidth((high, low)).quotient)
        var m = UInt64(1 << 30) >> (exponent >> 30)
        for i in 1...30 where (exponent >> (30 - i)) & 1 == 1 {
            m = (m * ladder[i]) >> 30
        }
        return Int64(m)
    }

    /// `C_0 = 2^29`, `C_i = isqrt(C_(i−1) × 2^30)`: 2^30 × 2^(−2^−i), rounded down step by step.
    static let ladder: [UInt64] = {
        var steps: [UInt64] = [1 << 29]
        for _ in 1...30 { steps.append(isqrt(steps[steps.count - 1] << 30)) }
        return steps
    }()

    /// The greatest integer whose square is at most `x`, for `x < 2^62`.
    static func isqrt(_ x: UInt64) -> UInt64 {
        var root = UInt64(Double(x).squareRoot())
        // The estimate is within a few units; settle it exactly.
        while root * root > x { root -= 1 }
        while (root + 1) * (root + 1) <= x { root += 1 }
        return root
    }
}

/// The score as a goal's units arrive in Day order (STREAK-27), keeping the units of the
/// recorded Days one by one.
struct StrengthMeter {
    /// More zero-valued units than any score survives: from 2^30 under the greatest multiplier
    /// (a daily rule's), S reaches 0 after 345.
    static let zeroLimit = 512

    private(set) var score: Int64 = 0
    /// The first recorded Day.
    let recordedFrom: Day
    private(set) var recent: [Strength.Move] = []

    init(today: Day) {
        let back = today.daysSince1970 - (Strength.recordedDays - 1)
        recordedFrom = Day(unchecked: Swift.max(back, Day.min.daysSince1970))
    }

    /// A unit of `value` thousandths on `day` under multiplier `m`.
    mutating func unit(_ day: Day, value: Int, multiplier m: Int64) {
        let v = (Int64(Swift.min(1000, Swift.max(0, value))) << 30) / 1000
        let before = score
        score = (score * m + v * (Strength.full - m)) >> 30
        if day >= recordedFrom { recent.append(Strength.Move(day: day, before: before, after: score)) }
    }

    /// The score and how many units are recorded: a place to come back to with ``rewind(to:)``.
    var mark: (score: Int64, recorded: Int) { (score, recent.count) }

    /// Goes back to the score and recorded units of `mark`.
    mutating func rewind(to mark: (score: Int64, recorded: Int)) {
        score = mark.score
        recent.removeLast(recent.count - mark.recorded)
    }

    /// `count` units of value 0, all before the recorded Days.
    mutating func zeros(_ count: Int, multiplier m: Int64) {
        var left = count
        while left > 0, score > 0 {
            score = (score * m) >> 30
            left -= 1
        }
    }

    func strength(today: Day) -> Strength { Strength(score: score, today: today, recent: recent) }
}

extension Strength {
    /// The week's movement in words, for a line beside the figure: "up 6 points this week: 6 of 7
    /// done", "down 3 points this week: 4 of 7 done", or "steady this week" under one point
    /// (STREAK-29). Points are whole percentage points of the reported strength.
    public func weekSummary(last7: Consistency?) -> String {
        let points = change(overLast: 7) / 10
        var text =
            points > 0
            ? "up \(Self.points(points)) this week"
            : points < 0 ? "down \(Self.points(-points)) this week" : "steady this week"
        if let last7, last7.due > 0 { text += ": \(last7.done) of \(last7.due) done" }
        return text
    }

    /// The 30 Days' movement in words, with the Days that moved it most (``moves``): "up 12 points
    /// in 30 days, most on 2026-11-28 (+5.2), 2026-11-20 (+5.0), 2026-11-03 (−4.9)"; "steady in 30
    /// days" under one point and without moves (STREAK-29). A move is shown in points of the
    /// reported strength to a tenth.
    public var monthSummary: String {
        let points = change(overLast: 30) / 10
        var text =
            points > 0
            ? "up \(Self.points(points)) in 30 days"
            : points < 0 ? "down \(Self.points(-points)) in 30 days" : "steady in 30 days"
        let shown = moves.map { move in
            let change = Self.thousandths(move.after) - Self.thousandths(move.before)
            let sign = change > 0 ? "+" : change < 0 ? "−" : "±"
            return "\(move.day) (\(sign)\(abs(change) / 10).\(abs(change) % 10))"
        }
        if !shown.isEmpty { text += ", most on " + shown.joined(separator: ", ") }
        return text
    }

    private static func points(_ count: Int) -> String { count == 1 ? "1 point" : "\(count) points" }
}
