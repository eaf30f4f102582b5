/// The key of a check-in: one goal, one Day (MODEL-33).
///
/// There is no per-entry UUID: merge, the feed and the wire format all identify a check-in by
/// this pair, so two devices logging the same goal on the same Day meet in one entry.
public struct CheckInKey: Hashable, Comparable, Sendable, Codable {
    /// The goal.
    public var goalID: GoalID
    /// The Day.
    public var day: Day

    /// A key.
    public init(goalID: GoalID, day: Day) {
        self.goalID = goalID
        self.day = day
    }

    /// Orders by goal, then Day.
    public static func < (lhs: CheckInKey, rhs: CheckInKey) -> Bool {
        (lhs.goalID, lhs.day) < (rhs.goalID, rhs.day)
    }
}

/// What was logged for a goal on one Day (MODEL-34).
public enum CheckInLog: Hashable, Sendable {
    /// Done (single and streak goals).
    case done
    /// A planned rest day: keeps a streak alive without adding to it (recurring kinds).
    case skip
    /// An amount added toward a progress goal's target on this Day.
    case amount(Amount)
    /// The Day's count for a tally goal, 0 or more.
    case tally(Int)
    /// The checklist items checked on this Day (subgoals goals).
    case items(Set<SubgoalItemID>)
    /// The Day's measured value (value goals).
    case value(Amount)

    /// The log's stable name, as JSON spells it.
    public var name: Name {
        switch self {
        case .done: .done
        case .skip: .skip
        case .amount: .amount
        case .tally: .tally
        case .items: .items
        case .value: .value
        }
    }

    /// The names of the log cases.
    public enum Name: String, CaseIterable, Hashable, Sendable, Codable {
        /// ``CheckInLog/done``.
        case done
        /// ``CheckInLog/skip``.
        case skip
        /// ``CheckInLog/amount(_:)``.
        case amount
        /// ``CheckInLog/tally(_:)``.
        case tally
        /// ``CheckInLog/items(_:)``.
        case items
        /// ``CheckInLog/value(_:)``.
        case value

        /// Decodes a log name; an unknown one is an unknown enum case.
        public init(from decoder: any Decoder) throws {
            self = try decodeEnumName(Name.self, from: decoder)
        }
    }
}

extension CheckInLog: Codable {
    private enum CodingKeys: String, CodingKey {
        case type
        case amount
        case count
        case items
        case value
    }

    /// Decodes `{"type": NAME, ...}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(Name.self, forKey: .type) {
        case .done: self = .done
        case .skip: self = .skip
        case .amount: self = .amount(try c.decode(Amount.self, forKey: .amount))
        case .tally: self = .tally(try c.decode(Int.self, forKey: .count))
        case .items:
            let list = try c.decode([SubgoalItemID].self, forKey: .items)
            let set = Set(list)
            guard set.count == list.count else {
                throw DecodingError.dataCorruptedError(
                    forKey: .items, in: c, debugDescription: "an item is listed twice")
            }
            self = .items(set)
        case .value: self = .value(try c.decode(Amount.self, forKey: .value))
        }
    }

    /// Encodes `{"type": NAME, ...}`, items in identifier order.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .type)
        switch self {
        case .done, .skip: break
        case .amount(let amount): try c.encode(amount, forKey: .amount)
        case .tally(let count): try c.encode(count, forKey: .count)
        case .items(let items): try c.encode(items.sorted(), forKey: .items)
        case .value(let value): try c.encode(value, forKey: .value)
        }
    }
}

/// One tap in the app: what the person just did for a goal on a Day (MODEL-35).
public enum CheckInTap: Hashable, Sendable {
    /// Marked done.
    case done
    /// Marked as a rest day.
    case skip
    /// Added an amount to a progress goal (negative to correct).
    case add(Amount)
    /// Changed a tally by `delta` (negative to take back); the count never drops below 0.
    case count(Int)
    /// Checked checklist items.
    case check(Set<SubgoalItemID>)
    /// Entered the Day's value, replacing any earlier one.
    case value(Amount)
}

/// A goal's entry for one Day: what was logged, and when and where (MODEL-33 ... MODEL-36).
public struct CheckIn: Hashable, Sendable {
    /// The goal.
    public internal(set) var goalID: GoalID
    /// The Day this entry belongs to.
    public internal(set) var day: Day
    /// What was logged.
    public internal(set) var log: CheckInLog
    /// The instant of the Day's first tap.
    public internal(set) var firstRecordedAt: Instant
    /// The instant of the Day's latest tap.
    public internal(set) var lastRecordedAt: Instant
    /// The time zone in force at the latest tap, for display and audit.
    public internal(set) var timeZone: TimeZoneID
    /// The device of the latest tap.
    public internal(set) var deviceID: DeviceID
    /// A note for the Day.
    public internal(set) var note: String?
    /// When the entry last changed, deleting included.
    public internal(set) var modifiedAt: Instant
    /// Whether the entry was undone: a tombstone that merge keeps and streaks ignore.
    public internal(set) var deleted: Bool
    /// Fields of the binary form this version does not know (MODEL-49).
    public package(set) var unknownFields = UnknownFields()

    /// The (goal, Day) key.
    public var key: CheckInKey { CheckInKey(goalID: goalID, day: day) }

    /// A check-in, validated.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when the instants are out of order, a tally is
    ///   negative, or the note is longer than 500 characters.
    public init(
        goalID: GoalID, day: Day, log: CheckInLog, firstRecordedAt: Instant, lastRecordedAt: Instant,
        timeZone: TimeZoneID, deviceID: DeviceID, note: String? = nil, modifiedAt: Instant, deleted: Bool = false
    ) throws(ModelError) {
        self.init(
            validGoalID: goalID, day: day, log: log, firstRecordedAt: firstRecordedAt, lastRecordedAt: lastRecordedAt,
            timeZone: timeZone, deviceID: deviceID, note: note, modifiedAt: modifiedAt, deleted: deleted,
            unknownFields: UnknownFields())
        if lastRecordedAt < firstRecordedAt {
            throw ModelError(
                .invalidCheckIn, "lastRecordedAt is before firstRecordedAt", path: "lastRecordedAt", rule: "MODEL-36")
        }
        if case .tally(let count) = log, !(0...CheckIn.tallyLimit).contains(count) {
            throw ModelError(
                .invalidCheckIn, "a tally count of \(count) is outside 0...\(CheckIn.tallyLimit)", path: "log.count",
                rule: "MODEL-36")
        }
        if let note, !CheckIn.isValidNote(note) {
            throw ModelError(
                .invalidCheckIn, "the note is longer than \(GoalRules.noteLimit) characters", path: "note",
                rule: "MODEL-36")
        }
    }

    /// A check-in whose fields the caller has already checked against MODEL-36 (the binary
    /// reader builds them by construction); no validation is repeated.
    package init(
        validGoalID goalID: GoalID, day: Day, log: CheckInLog, firstRecordedAt: Instant, lastRecordedAt: Instant,
        timeZone: TimeZoneID, deviceID: DeviceID, note: String?, modifiedAt: Instant, deleted: Bool,
        unknownFields: UnknownFields
    ) {
        self.goalID = goalID
        self.day = day
        self.log = log
        self.firstRecordedAt = firstRecordedAt
        self.lastRecordedAt = lastRecordedAt
        self.timeZone = timeZone
        self.deviceID = deviceID
        self.note = note
        self.modifiedAt = modifiedAt
        self.deleted = deleted
        self.unknownFields = unknownFields
    }

    /// The largest tally count a Day can hold, 2^32 − 1: a count that fits every platform's
    /// 32-bit unsigned integer and the wire's column (MODEL-36).
    public static let tallyLimit = Int(UInt32.max)

    /// Whether a note fits MODEL-36: at most 500 characters.
    package static func isValidNote(_ note: String) -> Bool {
        note.utf8.count <= GoalRules.noteLimit
            || GoalRules.length(note, upTo: GoalRules.noteLimit) <= GoalRules.noteLimit
    }

    /// Records a tap for `goal` at `instant`, into `existing` (this goal's entry for the same
    /// Day, if any) or a new entry (MODEL-35).
    ///
    /// The tap's instant is kept to the whole second. A tap of the same sort as the stored log
    /// combines with it: amounts add, tally counts add
    /// (never below 0), checked items join, a value replaces the earlier value, done stays done.
    /// A tap of another sort (done after a skip, say) replaces the log. A deleted entry starts over.
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when the tap does not fit the goal's kind
    ///   (MODEL-34) or names an item the goal does not have.
    public static func record(
        _ tap: CheckInTap, for goal: Goal, on day: Day, at instant: Instant, timeZone: TimeZoneID,
        deviceID: DeviceID, existing: CheckIn? = nil
    ) throws(ModelError) -> CheckIn {
        if let existing, existing.key != CheckInKey(goalID: goal.id, day: day) {
            throw ModelError(.invalidCheckIn, "the existing entry belongs to another goal or Day", rule: "MODEL-33")
        }
        let current = existing.flatMap { $0.deleted ? nil : $0 }
        let log = try combine(current?.log, tap, kind: goal.kind)
        // MODEL-35: taps are kept to the whole second; that is all display and audit need, and it
        // keeps the binary form of a check-in to a few bytes. Instant.min is a whole second, so the
        // result stays in range.
        let instant = Instant(
            unchecked: Instant.floorDivide(instant.millisecondsSince1970, 1000).quotient * 1000)
        return try CheckIn(
            goalID: goal.id, day: day, log: log, firstRecordedAt: current?.firstRecordedAt ?? instant,
            lastRecordedAt: Swift.max(instant, current?.lastRecordedAt ?? instant), timeZone: timeZone,
            deviceID: deviceID, note: current?.note, modifiedAt: Swift.max(instant, existing?.modifiedAt ?? instant))
    }

    /// This entry with its note replaced (nil removes it), changed at `instant`.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when the note is longer than 500 characters.
    public func withNote(_ note: String?, at instant: Instant) throws(ModelError) -> CheckIn {
        if let note, !CheckIn.isValidNote(note) {
            throw ModelError(
                .invalidCheckIn, "the note is longer than \(GoalRules.noteLimit) characters", path: "note",
                rule: "MODEL-36")
        }
        var copy = self
        copy.note = note
        copy.modifiedAt = Swift.max(instant, modifiedAt)
        return copy
    }

    /// This entry as a tombstone, undone at `instant`.
    public func deleting(at instant: Instant) -> CheckIn {
        var copy = self
        copy.deleted = true
        copy.modifiedAt = Swift.max(instant, modifiedAt)
        return copy
    }

    /// Whether `log` is a valid entry for a goal of `kind` (MODEL-34).
    public static func accepts(_ log: CheckInLog, for kind: GoalKind) -> Bool {
        switch (kind, log) {
        case (.single, .done), (.streak, .done), (.streak, .skip), (.progress, .amount), (.tally, .tally),
            (.tally, .skip), (.value, .value), (.value, .skip):
            return true
        case (.subgoals(let config), .items(let items)):
            let known = Set(config.items.map(\.id))
            return items.isSubset(of: known)
        case (.subgoals(let config), .skip):
            return config.recurring
        default:
            return false
        }
    }

    /// A tally changed by `delta`, kept within 0 ... ``tallyLimit`` (MODEL-35): taking back more
    /// than was counted stops at 0, and counting past the limit stops there, without overflow.
    private static func tallied(_ count: Int, _ delta: Int) -> Int {
        let (sum, overflow) = count.addingReportingOverflow(delta)
        if overflow { return delta < 0 ? 0 : tallyLimit }
        return sum.clamped(to: 0...tallyLimit)
    }

    private static func combine(_ log: CheckInLog?, _ tap: CheckInTap, kind: GoalKind) throws(ModelError) -> CheckInLog
    {
        let result: CheckInLog
        switch (log, tap) {
        case (.amount(let old)?, .add(let added)): result = .amount(try old.adding(added))
        case (.tally(let old)?, .count(let delta)): result = .tally(tallied(old, delta))
        case (.items(let old)?, .check(let added)): result = .items(old.union(added))
        case (_, .done): result = .done
        case (_, .skip): result = .skip
        case (_, .add(let added)): result = .amount(added)
        case (_, .count(let delta)): result = .tally(tallied(0, delta))
        case (_, .check(let items)): result = .items(items)
        case (_, .value(let value)): result = .value(value)
        }
        guard accepts(result, for: kind) else {
            throw ModelError(
                .invalidCheckIn, "a \(result.name) entry does not fit a \(kind.name) goal (or names an unknown item)",
                path: "log", rule: "MODEL-34")
        }
        return result
    }
}

extension CheckIn: Codable {
    private enum CodingKeys: String, CodingKey {
        case goalID
        case day
        case log
        case firstRecordedAt
        case lastRecordedAt
        case timeZone
        case deviceID
        case note
        case modifiedAt
        case deleted
    }

    /// Decodes and validates a check-in; `note` may be absent, `deleted` defaults to false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = try validated(at: c.codingPath) {
            try Self(
                goalID: c.decode(GoalID.self, forKey: .goalID), day: c.decode(Day.self, forKey: .day),
                log: c.decode(CheckInLog.self, forKey: .log),
                firstRecordedAt: c.decode(Instant.self, forKey: .firstRecordedAt),
                lastRecordedAt: c.decode(Instant.self, forKey: .lastRecordedAt),
                timeZone: c.decode(TimeZoneID.self, forKey: .timeZone),
                deviceID: c.decode(DeviceID.self, forKey: .deviceID),
                note: c.decodeIfPresent(String.self, forKey: .note),
                modifiedAt: c.decode(Instant.self, forKey: .modifiedAt),
                deleted: c.decodeIfPresent(Bool.self, forKey: .deleted) ?? false)
        }
    }

}
