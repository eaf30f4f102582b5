extension CheckIn {
    /// Records a tap for `goal` at `instant` from `deviceID`, into `existing` (this goal's entry for
    /// the same Day, if any) or a new entry (MODEL-35, MODEL-52).
    ///
    /// The tap's instant is kept to the whole second, and the tap joins the entry's taps as the
    /// device's next one. A tap after an undo starts the Day over: the undo still hides what came
    /// before it, from every device, and the tap is stamped after the latest undo the entry holds
    /// (MODEL-35), so no undo it follows hides it. An undo tap hides every tap before it
    /// (MODEL-36); an entry needs a tap before one.
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when `existing` is another goal's or Day's, or
    ///   the result does not fit the goal's kind (MODEL-34) or names an item the goal does not
    ///   have; ``ModelError/Code/invalidAmount`` when an amount tap takes the sum past the limit.
    public static func record(
        _ tap: CheckInTap, for goal: Goal, on day: Day, at instant: Instant, timeZone: TimeZoneID,
        deviceID: DeviceID, existing: CheckIn? = nil
    ) throws(ModelError) -> CheckIn {
        if let existing, existing.key != CheckInKey(goalID: goal.id, day: day) {
            throw ModelError(.invalidCheckIn, "the existing entry belongs to another goal or Day", rule: "MODEL-33")
        }
        if case .add(let added) = tap, let existing, !existing.deleted, case .amount(let old) = existing.log {
            _ = try old.adding(added)  // MODEL-35: a sum past the limit is refused, not saturated
        }
        // MODEL-35: taps are kept to the whole second; that is all display and audit need, and it
        // keeps the binary form of a check-in to a few bytes. Instant.min is a whole second.
        var second = Instant(
            unchecked: Instant.floorDivide(instant.millisecondsSince1970, 1000).quotient * 1000)
        // A tap after an undo starts the Day over: an undo the entry holds at or after the tap's
        // second (a quick undo and re-tap, or a clock that went back) would hide it (MODEL-53),
        // so the tap takes the first whole second after the latest undo.
        if let undo = existing?.taps.filter(\.action.isUndo).map(\.at).max(), undo >= second {
            let next = (Instant.floorDivide(undo.millisecondsSince1970, 1000).quotient + 1) * 1000
            second = try Instant(millisecondsSince1970: next)
        }
        let entry = try CheckIn.appending(
            tap, to: existing, goalID: goal.id, day: day, at: second, timeZone: timeZone, deviceID: deviceID)
        guard CheckIn.accepts(entry.log, for: goal.kind) else {
            throw ModelError(
                .invalidCheckIn,
                "a \(entry.log.name) entry does not fit a \(goal.kind.name) goal (or names an unknown item)",
                path: "log", rule: "MODEL-34")
        }
        return entry
    }

    /// This entry undone at `instant` by `deviceID` (MODEL-36): an undo tap that hides every tap
    /// made before it, on every device.
    public func deleting(at instant: Instant, by deviceID: DeviceID? = nil) -> CheckIn {
        // An undo after every tap always leaves an entry that is valid (it had a tap before).
        try! CheckIn.appending(
            .undo, to: self, goalID: goalID, day: day, at: Swift.max(instant, lastRecordedAt), timeZone: timeZone,
            deviceID: deviceID ?? self.deviceID)
    }

    /// This entry with its note replaced (nil removes it), changed at `instant`.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when the note is longer than 500 characters.
    public func withNote(_ note: String?, at instant: Instant) throws(ModelError) -> CheckIn {
        let at = Swift.max(instant, noteAt ?? instant)
        return try CheckIn(
            goalID: goalID, day: day, taps: taps, note: note, noteAt: at, modifiedAt: Swift.max(modifiedAt, at)
        ).keeping(unknownFields)
    }

    /// `existing`'s taps and one more from `deviceID`, numbered after that device's last.
    static func appending(
        _ action: Tap.Action, to existing: CheckIn?, goalID: GoalID, day: Day, at instant: Instant,
        timeZone: TimeZoneID, deviceID: DeviceID
    ) throws(ModelError) -> CheckIn {
        let taps = existing?.taps ?? []
        let sequence = (taps.filter { $0.deviceID == deviceID }.map(\.sequence).max() ?? -1) + 1
        let tap = try Tap(deviceID: deviceID, sequence: sequence, at: instant, timeZone: timeZone, action: action)
        return try CheckIn(
            goalID: goalID, day: day, taps: taps + [tap], note: existing?.note, noteAt: existing?.noteAt,
            modifiedAt: Swift.max(instant, existing?.modifiedAt ?? instant)
        ).keeping(existing?.unknownFields ?? UnknownFields())
    }

    /// This entry with `fields` as its unknown fields.
    func keeping(_ fields: UnknownFields) -> CheckIn {
        var copy = self
        copy.unknownFields = fields
        return copy
    }

    /// The entry two records of one (goal, Day) make together (MODEL-54): every tap of both, a tap
    /// both hold once (of two versions, the greater), the later note, the later `modifiedAt`, and
    /// the unknown fields of the later record. Idempotent, commutative and associative.
    ///
    /// - Precondition: both have the same key.
    public func merging(_ other: CheckIn) -> CheckIn {
        precondition(key == other.key, "check-ins of different goals or Days do not merge")
        if self == other { return self }
        var byID: [TapID: Tap] = [:]
        for tap in taps + other.taps {
            let id = TapID(tap)
            byID[id] = byID[id].map { Tap.greater($0, tap) } ?? tap
        }
        let (note, noteAt) = CheckIn.laterNote(self, other)
        let later: CheckIn
        if modifiedAt != other.modifiedAt {
            later = modifiedAt > other.modifiedAt ? self : other
        } else {
            later = unknownFields.bytes.lexicographicallyPrecedes(other.unknownFields.bytes) ? other : self
        }
        // Both were valid check-ins of one key: their union is one too, within the tap limit of
        // the two (a merge never refuses what both sides already hold).
        let merged =
            (try? CheckIn(
                goalID: goalID, day: day, taps: Array(byID.values), note: note, noteAt: noteAt,
                modifiedAt: Swift.max(modifiedAt, other.modifiedAt))) ?? later
        return merged.keeping(later.unknownFields)
    }

    /// The note of two records that was set last: by the instant it was set, then the greater
    /// text (a removal, nil, before any text).
    private static func laterNote(_ a: CheckIn, _ b: CheckIn) -> (String?, Instant?) {
        switch (a.noteAt, b.noteAt) {
        case (nil, nil): return (nil, nil)
        case (_?, nil): return (a.note, a.noteAt)
        case (nil, _?): return (b.note, b.noteAt)
        case (let x?, let y?):
            if x != y { return x > y ? (a.note, x) : (b.note, y) }
            let left = Array((a.note ?? "").utf8)
            let right = Array((b.note ?? "").utf8)
            if a.note == nil { return (b.note, y) }
            if b.note == nil { return (a.note, x) }
            return left.lexicographicallyPrecedes(right) ? (b.note, y) : (a.note, x)
        }
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
        case noteAt
        case modifiedAt
        case deleted
        case taps
    }

    /// Decodes and validates a check-in (MODEL-55): with `taps`, the taps decide and the other
    /// members that describe them (`log`, the recorded instants, `timeZone`, `deviceID`,
    /// `deleted`) may be left out; without, the compact form: `note` may be absent, `deleted`
    /// defaults to false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let goalID = try c.decode(GoalID.self, forKey: .goalID)
        let day = try c.decode(Day.self, forKey: .day)
        let note = try c.decodeIfPresent(String.self, forKey: .note)
        let modifiedAt = try c.decode(Instant.self, forKey: .modifiedAt)
        if let taps = try c.decodeIfPresent([Tap].self, forKey: .taps) {
            let noteAt = try c.decodeIfPresent(Instant.self, forKey: .noteAt)
            self = try validated(at: c.codingPath) {
                try CheckIn(goalID: goalID, day: day, taps: taps, note: note, noteAt: noteAt, modifiedAt: modifiedAt)
            }
            return
        }
        self = try validated(at: c.codingPath) {
            try CheckIn(
                goalID: goalID, day: day, log: c.decode(CheckInLog.self, forKey: .log),
                firstRecordedAt: c.decode(Instant.self, forKey: .firstRecordedAt),
                lastRecordedAt: c.decode(Instant.self, forKey: .lastRecordedAt),
                timeZone: c.decode(TimeZoneID.self, forKey: .timeZone),
                deviceID: c.decode(DeviceID.self, forKey: .deviceID), note: note, modifiedAt: modifiedAt,
                deleted: c.decodeIfPresent(Bool.self, forKey: .deleted) ?? false)
        }
    }

    /// Encodes the compact form's members always (they describe the entry to readers that do not
    /// know taps), and `taps` and `noteAt` only when the entry is not compact.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(goalID, forKey: .goalID)
        try c.encode(day, forKey: .day)
        try c.encode(log, forKey: .log)
        try c.encode(firstRecordedAt, forKey: .firstRecordedAt)
        try c.encode(lastRecordedAt, forKey: .lastRecordedAt)
        try c.encode(timeZone, forKey: .timeZone)
        try c.encode(deviceID, forKey: .deviceID)
        try c.encodeIfPresent(note, forKey: .note)
        try c.encode(modifiedAt, forKey: .modifiedAt)
        try c.encode(deleted, forKey: .deleted)
        if !isCompact {
            // MODEL-55: `noteAt` only when it is not what its absence means.
            if noteAt != (note == nil ? nil : modifiedAt) { try c.encodeIfPresent(noteAt, forKey: .noteAt) }
            try c.encode(taps, forKey: .taps)
        }
    }
}
