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

    /// One unit of the recorded Days: its Day, its value, and the score before and after it.
    public struct Move: Hashable, Sendable {
        /// The unit's Day.
        public var day: Day
        /// The unit's value in thousandths (STREAK-27): 1000 done (or a period met), 0 missed,
        /// between them partly done.
        public var value: Int
        /// The score before the unit.
        public var before: Int64
        /// The score after the unit.
        public var after: Int64
        /// How far the unit moved the score, in 2^−30 units; negative when it fell.
        public var change: Int64 { after - before }
        /// How far the unit moved the reported strength, in thousandths (STREAK-29).
        public var reportedChange: Int { Strength.thousandths(after) - Strength.thousandths(before) }

        /// The unit's outcome in words (STREAK-29): "done", "missed" or "partly done".
        public var outcome: String { value >= 1000 ? "done" : value <= 0 ? "missed" : "partly done" }
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

    /// What lifted the strength and what pulled it down in the last 30 Days (STREAK-29): the unit
    /// with the greatest positive reported change, then the one with the most negative, each
    /// when there is one, of equals the later Day. A unit that did not move the reported strength
    /// is neither.
    public var moves: [Move] {
        let (back, overflow) = today.daysSince1970.subtractingReportingOverflow(29)
        let from = overflow ? Day.min : Day(unchecked: Swift.max(back, Day.min.daysSince1970))
        var lift: Move?
        var drop: Move?
        // In Day order, so a later equal replaces an earlier one.
        for move in recent where move.day >= from {
            let change = move.reportedChange
            if change > 0, change >= lift?.reportedChange ?? 1 { lift = move }
            if change < 0, change <= drop?.reportedChange ?? -1 { drop = move }
        }
        return [lift, drop].compactMap { $0 }
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
    @inline(__always)
    mutating func unit(_ day: Day, value: Int, multiplier m: Int64) {
        let value = Swift.min(1000, Swift.max(0, value))
        let before = score
        // S < 2^30 and M < 2^30, so no product passes 2^60: the wrapping operators never wrap.
        // A done unit (V = 2^30) adds 2^30 × (2^30 − M), a whole multiple of 2^30, and a missed one
        // adds nothing: both are the general formula's exact result without its second product.
        switch value {
        case 1000: score = ((score &* m) >> 30) &+ (Strength.full &- m)
        case 0: score = (score &* m) >> 30
        default: score = (score &* m &+ ((Int64(value) << 30) / 1000) &* (Strength.full &- m)) >> 30
        }
        if day >= recordedFrom {
            recent.append(Strength.Move(day: day, value: value, before: before, after: score))
        }
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
    /// The week's movement in words, for a line beside the figure: "up 6.0 points this week: 6 of 7
    /// done", "down 0.3 points this week: 4 of 7 done", or "steady this week" only when the
    /// reported strength did not move at all (STREAK-29).
    public func weekSummary(last7: Consistency?) -> String {
        var text = "\(Self.direction(change(overLast: 7))) this week"
        if let last7, last7.due > 0 { text += ": \(last7.done) of \(last7.due) done" }
        return text
    }

    /// The 30 Days' movement in words, with what lifted it and what pulled it down (``moves``):
    /// "up 12.4 points in 30 days: done on 2026-11-28 (+5.2), missed on 2026-11-03 (−4.9)";
    /// "steady in 30 days" only when the reported strength did not move (STREAK-29).
    public var monthSummary: String {
        var text = "\(Self.direction(change(overLast: 30))) in 30 days"
        let shown = moves.map { "\($0.outcome) on \($0.day) (\(Self.signedPoints($0.reportedChange)))" }
        if !shown.isEmpty { text += ": " + shown.joined(separator: ", ") }
        return text
    }

    /// A change of the reported strength as a direction and its points to a tenth: "up 1.2
    /// points", "down 0.1 points", "steady" (STREAK-29).
    public static func direction(_ thousandths: Int) -> String {
        thousandths == 0 ? "steady" : "\(thousandths > 0 ? "up" : "down") \(points(thousandths.magnitude)) points"
    }

    /// A change in points to a tenth with its sign: "+2.1", "−4.0", and "±0.0" for no change
    /// (STREAK-29).
    public static func signedPoints(_ thousandths: Int) -> String {
        (thousandths > 0 ? "+" : thousandths < 0 ? "−" : "±") + points(thousandths.magnitude)
    }

    private static func points(_ thousandths: UInt) -> String { "\(thousandths / 10).\(thousandths % 10)" }
}
