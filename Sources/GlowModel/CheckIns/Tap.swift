/// One thing a device did to a goal's Day: a tap of the app, or an undo (MODEL-52).
///
/// A check-in is the record of its taps, so that merging two devices' records of a Day loses
/// none: taps from every device are kept, in one order every implementation agrees on, and the
/// Day's log is what they add up to (MODEL-53, MODEL-54).
public struct Tap: Hashable, Sendable {
    /// What a tap did.
    public enum Action: Hashable, Sendable {
        /// Marked done.
        case done
        /// Marked as a rest day.
        case skip
        /// Added an amount to a progress goal (negative to correct).
        case add(Amount)
        /// Changed a tally by a number (negative to take back).
        case count(Int)
        /// Checked checklist items.
        case check(Set<SubgoalItemID>)
        /// Unchecked checklist items.
        case uncheck(Set<SubgoalItemID>)
        /// Entered the Day's value.
        case value(Amount)
        /// Undid the Day: every tap before this one is hidden, on every device (MODEL-36).
        case undo

        /// Whether this is an undo.
        public var isUndo: Bool { self == .undo }
    }

    /// The device that tapped.
    public let deviceID: DeviceID
    /// The tap's number among the device's taps of this goal and Day: 0, 1, 2, ... With the
    /// device it identifies the tap, so a tap that reaches a device twice counts once.
    public let sequence: Int
    /// When the tap was made (whole seconds for taps of the SDK, MODEL-35).
    public let at: Instant
    /// The first instant the tap stands for: ``at`` for a tap, earlier for a check-in of the form
    /// written before taps existed, which reads as one tap spanning its first and last taps.
    public let firstAt: Instant
    /// The time zone in force, for display and audit.
    public let timeZone: TimeZoneID
    /// What it did.
    public let action: Action

    /// The largest sequence number a device may give a tap: 2^32 − 1 (a `uint32` on the wire).
    public static let sequenceLimit = Int(UInt32.max)

    /// A tap.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when `firstAt` is after `at` or the sequence
    ///   is outside 0 ... ``sequenceLimit``.
    public init(
        deviceID: DeviceID, sequence: Int, at: Instant, firstAt: Instant? = nil, timeZone: TimeZoneID,
        action: Action
    ) throws(ModelError) {
        guard (0...Tap.sequenceLimit).contains(sequence) else {
            throw ModelError(
                .invalidCheckIn, "a tap's sequence of \(sequence) is outside 0...\(Tap.sequenceLimit)",
                path: "sequence", rule: "MODEL-52")
        }
        guard (firstAt ?? at) <= at else {
            throw ModelError(.invalidCheckIn, "a tap's firstAt is after its at", path: "firstAt", rule: "MODEL-52")
        }
        self.init(
            unchecked: deviceID, sequence: sequence, at: at, firstAt: firstAt ?? at, timeZone: timeZone, action: action)
    }

    package init(
        unchecked deviceID: DeviceID, sequence: Int, at: Instant, firstAt: Instant, timeZone: TimeZoneID,
        action: Action
    ) {
        self.deviceID = deviceID
        self.sequence = sequence
        self.at = at
        self.firstAt = firstAt
        self.timeZone = timeZone
        self.action = action
    }

    /// The order of taps in a check-in (MODEL-53): by instant; at the same instant an undo comes
    /// after the taps it may hide; then by device, then by sequence.
    static func ordered(_ a: Tap, _ b: Tap) -> Bool {
        if a.at != b.at { return a.at < b.at }
        if a.action.isUndo != b.action.isUndo { return !a.action.isUndo }
        if a.deviceID != b.deviceID { return a.deviceID < b.deviceID }
        return a.sequence < b.sequence
    }

    /// Of two versions of one tap (the same device and sequence), the one merge keeps
    /// (MODEL-54): the later instant, then the later first instant, then the greater canonical
    /// JSON. A total order, so merge is idempotent, commutative and associative.
    static func greater(_ a: Tap, _ b: Tap) -> Tap {
        if a.at != b.at { return a.at > b.at ? a : b }
        if a.firstAt != b.firstAt { return a.firstAt > b.firstAt ? a : b }
        if a == b { return a }  // the usual case, a tap both sides hold: no bytes to compare
        return CanonicalJSON.bytes(a).lexicographicallyPrecedes(CanonicalJSON.bytes(b)) ? b : a
    }

    /// The log after `action` is applied to `log` (MODEL-35): same sorts combine (amounts and
    /// counts add, items join or leave), another sort replaces. Sums stay within their bounds:
    /// taps from several devices may add past them, and a merge has nobody to refuse.
    static func apply(_ action: Action, to log: CheckInLog?) -> CheckInLog? {
        switch (log, action) {
        case (_, .undo): return nil
        case (.amount(let old)?, .add(let added)): return .amount(old.saturatingAdding(added))
        case (.tally(let old)?, .count(let delta)): return .tally(CheckIn.tallied(old, delta))
        case (.items(let old)?, .check(let items)): return .items(old.union(items))
        case (.items(let old)?, .uncheck(let items)): return .items(old.subtracting(items))
        case (_, .done): return .done
        case (_, .skip): return .skip
        case (_, .add(let added)): return .amount(added)
        case (_, .count(let delta)): return .tally(CheckIn.tallied(0, delta))
        case (_, .check(let items)): return .items(items)
        case (_, .uncheck): return .items([])
        case (_, .value(let value)): return .value(value)
        }
    }

    /// The tap that stands for a whole log, as a check-in of the older form reads (MODEL-55).
    static func contribution(_ log: CheckInLog) -> Action {
        switch log {
        case .done: .done
        case .skip: .skip
        case .amount(let amount): .add(amount)
        case .tally(let count): .count(count)
        case .items(let items): .check(items)
        case .value(let value): .value(value)
        }
    }
}

extension Amount {
    /// The sum, kept within ±``limit``.
    func saturatingAdding(_ other: Amount) -> Amount {
        Amount(uncheckedThousandths: (thousandths + other.thousandths).clamped(to: -Amount.limit...Amount.limit))
    }
}

extension Tap.Action: Codable {
    private enum CodingKeys: String, CodingKey {
        case type
        case amount
        case count
        case items
        case value
    }

    private enum Name: String, Codable, CaseIterable {
        case done, skip, add, count, check, uncheck, value, undo

        init(from decoder: any Decoder) throws {
            self = try decodeEnumName(Name.self, from: decoder)
        }
    }

    /// Decodes `{"type": "count", "count": -1}` and the like.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(Name.self, forKey: .type) {
        case .done: self = .done
        case .skip: self = .skip
        case .undo: self = .undo
        case .add: self = .add(try c.decode(Amount.self, forKey: .amount))
        case .count: self = .count(try c.decode(Int.self, forKey: .count))
        case .value: self = .value(try c.decode(Amount.self, forKey: .value))
        case .check, .uncheck:
            let list = try c.decode([SubgoalItemID].self, forKey: .items)
            guard Set(list).count == list.count else {
                throw DecodingError.dataCorruptedError(
                    forKey: .items, in: c, debugDescription: "an item is listed twice")
            }
            self = try c.decode(Name.self, forKey: .type) == .check ? .check(Set(list)) : .uncheck(Set(list))
        }
    }

    /// Encodes `{"type": NAME, ...}`, items in identifier order.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .done: try c.encode(Name.done, forKey: .type)
        case .skip: try c.encode(Name.skip, forKey: .type)
        case .undo: try c.encode(Name.undo, forKey: .type)
        case .add(let amount):
            try c.encode(Name.add, forKey: .type)
            try c.encode(amount, forKey: .amount)
        case .count(let delta):
            try c.encode(Name.count, forKey: .type)
            try c.encode(delta, forKey: .count)
        case .value(let value):
            try c.encode(Name.value, forKey: .type)
            try c.encode(value, forKey: .value)
        case .check(let items):
            try c.encode(Name.check, forKey: .type)
            try c.encode(items.sorted(), forKey: .items)
        case .uncheck(let items):
            try c.encode(Name.uncheck, forKey: .type)
            try c.encode(items.sorted(), forKey: .items)
        }
    }
}

extension Tap: Codable {
    private enum CodingKeys: String, CodingKey {
        case deviceID
        case sequence
        case at
        case firstAt
        case timeZone
        case action
    }

    /// Decodes a tap; `firstAt` defaults to `at`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = try validated(at: c.codingPath) {
            try Tap(
                deviceID: c.decode(DeviceID.self, forKey: .deviceID), sequence: c.decode(Int.self, forKey: .sequence),
                at: c.decode(Instant.self, forKey: .at), firstAt: c.decodeIfPresent(Instant.self, forKey: .firstAt),
                timeZone: c.decode(TimeZoneID.self, forKey: .timeZone), action: c.decode(Action.self, forKey: .action))
        }
    }

    /// Encodes a tap; `firstAt` only when it differs from `at`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(deviceID, forKey: .deviceID)
        try c.encode(sequence, forKey: .sequence)
        try c.encode(at, forKey: .at)
        if firstAt != at { try c.encode(firstAt, forKey: .firstAt) }
        try c.encode(timeZone, forKey: .timeZone)
        try c.encode(action, forKey: .action)
    }
}
