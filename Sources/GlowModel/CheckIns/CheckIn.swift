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

/// One tap in the app: what the person just did for a goal on a Day (MODEL-35), as the tap it
/// records (``Tap/Action``); `.undo` undoes the Day (MODEL-59).
public typealias CheckInTap = Tap.Action

/// A goal's entry for one Day: the taps of every device that logged it, and what they add up to
/// (MODEL-33 ... MODEL-36, MODEL-52 ... MODEL-55).
///
/// A check-in keeps what each device contributed, so merging the records of a phone and a watch
/// loses no tap: tallies and amounts add up, checked items stay checked unless unchecked later,
/// the newest value, done or skip wins, and an undo hides every tap made before it on every
/// device. ``log`` and the recorded instants are derived from the taps. Most check-ins are one
/// tap (or one tap and its undo); those keep the compact form check-ins had before taps, and
/// only the others store their taps.
public struct CheckIn: Hashable, Sendable {
    /// The goal.
    public let goalID: GoalID
    /// The Day this entry belongs to.
    public let day: Day
    /// What the visible taps add up to; for an undone entry, what was undone (MODEL-53).
    public private(set) var log: CheckInLog
    /// The first instant of the taps behind ``log``.
    public private(set) var firstRecordedAt: Instant
    /// The last instant of the taps behind ``log``.
    public private(set) var lastRecordedAt: Instant
    /// The time zone in force at the last of those taps, for display and audit.
    public private(set) var timeZone: TimeZoneID
    /// The device of the last of those taps.
    public private(set) var deviceID: DeviceID
    /// A note for the Day.
    public private(set) var note: String?
    /// When the note was last set or removed, if ever.
    public private(set) var noteAt: Instant?
    /// When the entry last changed: never before any of its taps or its note.
    public private(set) var modifiedAt: Instant
    /// Whether the entry is undone: its last undo hides every tap (MODEL-36). Merge keeps it;
    /// streaks ignore it.
    public private(set) var deleted: Bool
    /// Fields of the binary form this version does not know (MODEL-49).
    public package(set) var unknownFields = UnknownFields()
    /// The taps, in order, when the entry is not in its compact form (one tap, or one tap and
    /// its undo, by one device); nil otherwise, and ``taps`` derives them.
    private var tapList: [Tap]?

    /// The (goal, Day) key.
    public var key: CheckInKey { CheckInKey(goalID: goalID, day: day) }

    /// The largest tally count a Day can hold, 2^32 − 1: a count that fits every platform's
    /// 32-bit unsigned integer and the wire's column (MODEL-36).
    public static let tallyLimit = Int(UInt32.max)

    /// The most taps one check-in may hold (MODEL-52): a thousand taps a Day is far beyond a
    /// person; the bound keeps a hostile record from costing more than its bytes justify.
    public static let tapLimit = 10_000

    /// A check-in in its compact form: one device's contribution to the Day, undone when
    /// `deleted` (MODEL-55). This is also how a check-in written before taps existed reads.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when the instants are out of order, a tally is
    ///   outside 0 ... ``tallyLimit``, or the note is longer than 500 characters.
    public init(
        goalID: GoalID, day: Day, log: CheckInLog, firstRecordedAt: Instant, lastRecordedAt: Instant,
        timeZone: TimeZoneID, deviceID: DeviceID, note: String? = nil, modifiedAt: Instant, deleted: Bool = false
    ) throws(ModelError) {
        if lastRecordedAt < firstRecordedAt {
            throw ModelError(
                .invalidCheckIn, "lastRecordedAt is before firstRecordedAt", path: "lastRecordedAt", rule: "MODEL-36")
        }
        try CheckIn.check(log)
        try CheckIn.check(note: note)
        self.init(
            validGoalID: goalID, day: day, log: log, firstRecordedAt: firstRecordedAt, lastRecordedAt: lastRecordedAt,
            timeZone: timeZone, deviceID: deviceID, note: note, modifiedAt: modifiedAt, deleted: deleted,
            unknownFields: UnknownFields())
    }

    /// A compact check-in whose fields the caller has already checked against MODEL-36 (the
    /// binary reader builds them by construction); no validation is repeated.
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
        self.noteAt = note == nil ? nil : modifiedAt
        self.modifiedAt = modifiedAt
        self.deleted = deleted
        self.unknownFields = unknownFields
    }

    /// A check-in made of `taps` (MODEL-52, MODEL-53).
    ///
    /// - Parameters:
    ///   - taps: in any order; each (device, sequence) at most once; at least one that is not an
    ///     undo.
    ///   - modifiedAt: when the entry last changed; raised to the latest tap or note if earlier.
    /// - Throws: ``ModelError/Code/invalidCheckIn`` for no tap but undos, a (device, sequence)
    ///   given twice, more than ``tapLimit`` taps, a tally outside its bounds, or a note longer
    ///   than 500 characters.
    public init(
        goalID: GoalID, day: Day, taps: [Tap], note: String? = nil, noteAt: Instant? = nil, modifiedAt: Instant
    ) throws(ModelError) {
        guard taps.count <= CheckIn.tapLimit else {
            throw ModelError(
                .invalidCheckIn, "\(taps.count) taps are more than the \(CheckIn.tapLimit) a check-in may hold",
                path: "taps", rule: "MODEL-52")
        }
        var seen = Set<TapID>()
        for tap in taps where !seen.insert(TapID(tap)).inserted {
            throw ModelError(
                .invalidCheckIn, "device \(tap.deviceID) has two taps numbered \(tap.sequence)", path: "taps",
                rule: "MODEL-52")
        }
        try CheckIn.check(note: note)
        let ordered = taps.sorted(by: Tap.ordered)
        guard let derived = Derived(ordered) else {
            throw ModelError(
                .invalidCheckIn, "a check-in needs a tap that is not an undo", path: "taps", rule: "MODEL-52")
        }
        try CheckIn.check(derived.log)
        var latest = ordered.map(\.at).max()!
        if let noteAt { latest = Swift.max(latest, noteAt) }
        self.goalID = goalID
        self.day = day
        self.log = derived.log
        self.firstRecordedAt = derived.first
        self.lastRecordedAt = derived.last
        self.timeZone = derived.timeZone
        self.deviceID = derived.deviceID
        self.note = note
        self.noteAt = note == nil && noteAt == nil ? nil : (noteAt ?? modifiedAt)
        self.modifiedAt = Swift.max(modifiedAt, latest)
        self.deleted = derived.deleted
        self.tapList = ordered
        if isCompact { tapList = nil }
    }

    /// The taps, in the order of MODEL-53.
    public var taps: [Tap] {
        tapList ?? compactTaps
    }

    /// The taps of the compact form: the contribution, at the last recorded instant, and for an
    /// undone entry its undo, at `modifiedAt` (never before the contribution) (MODEL-55).
    private var compactTaps: [Tap] {
        var taps = [
            Tap(
                unchecked: deviceID, sequence: 0, at: lastRecordedAt, firstAt: firstRecordedAt, timeZone: timeZone,
                action: Tap.contribution(log))
        ]
        if deleted {
            taps.append(
                Tap(
                    unchecked: deviceID, sequence: 1, at: Swift.max(modifiedAt, lastRecordedAt),
                    firstAt: Swift.max(modifiedAt, lastRecordedAt),
                    timeZone: timeZone, action: .undo))
        }
        return taps
    }

    /// Whether the taps are those of the compact form, which the binary and JSON forms then carry
    /// without listing them (MODEL-55).
    public var isCompact: Bool {
        tapList.map { $0 == compactTaps } ?? true && (note == nil ? noteAt == nil : noteAt == modifiedAt)
    }

    /// Whether the check-in is one tap by one device with no note, note instant or unknown field:
    /// all a ``CheckInHistory``'s columns hold.
    var isPlain: Bool { tapList == nil && note == nil && noteAt == nil && unknownFields.isEmpty }

    /// Identifies a tap within a check-in.
    struct TapID: Hashable {
        var device: DeviceID
        var sequence: Int

        init(_ tap: Tap) {
            device = tap.deviceID
            sequence = tap.sequence
        }
    }

    /// What ordered taps add up to (MODEL-53): the visible taps are those after the last undo;
    /// when there are none, the entry is undone and shows what the last undo hid.
    struct Derived {
        var log: CheckInLog
        var first: Instant
        var last: Instant
        var timeZone: TimeZoneID
        var deviceID: DeviceID
        var deleted: Bool

        init?(_ ordered: [Tap]) {
            var state: CheckInLog? = nil
            var segment: [Tap] = []
            var undone: (log: CheckInLog, taps: [Tap])? = nil
            for tap in ordered {
                if tap.action.isUndo {
                    if let state { undone = (state, segment) }
                    state = nil
                    segment = []
                } else {
                    state = Tap.apply(tap.action, to: state)
                    segment.append(tap)
                }
            }
            let (log, taps, deleted): (CheckInLog, [Tap], Bool)
            if let state {
                (log, taps, deleted) = (state, segment, false)
            } else if let undone {
                (log, taps, deleted) = (undone.log, undone.taps, true)
            } else {
                return nil
            }
            self.log = log
            self.first = taps.map(\.firstAt).min()!
            self.last = taps.map(\.at).max()!
            self.timeZone = taps.last!.timeZone
            self.deviceID = taps.last!.deviceID
            self.deleted = deleted
        }
    }

    /// Checks the log against MODEL-36: a tally within 0 ... ``tallyLimit``.
    private static func check(_ log: CheckInLog) throws(ModelError) {
        if case .tally(let count) = log, !(0...CheckIn.tallyLimit).contains(count) {
            throw ModelError(
                .invalidCheckIn, "a tally count of \(count) is outside 0...\(CheckIn.tallyLimit)", path: "log.count",
                rule: "MODEL-36")
        }
    }

    /// Checks a note against MODEL-36: at most 500 characters.
    private static func check(note: String?) throws(ModelError) {
        if let note, !CheckIn.isValidNote(note) {
            throw ModelError(
                .invalidCheckIn, "the note is longer than \(GoalRules.noteLimit) characters", path: "note",
                rule: "MODEL-36")
        }
    }

    /// Whether a note fits MODEL-36: at most 500 characters.
    package static func isValidNote(_ note: String) -> Bool {
        note.utf8.count <= GoalRules.noteLimit
            || GoalRules.length(note, upTo: GoalRules.noteLimit) <= GoalRules.noteLimit
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
    static func tallied(_ count: Int, _ delta: Int) -> Int {
        let (sum, overflow) = count.addingReportingOverflow(delta)
        if overflow { return delta < 0 ? 0 : tallyLimit }
        return sum.clamped(to: 0...tallyLimit)
    }
}
