import GlowModel

/// The columns of a CheckInBlock as read, checked against each other once the message ends
/// (WIRE-20 ... WIRE-24). Every column grows only as input bytes are consumed, so a hostile
/// `count` cannot make the reader allocate.
struct Columns {
    let start: Int
    var goalID: GoalID?
    var count = 0
    var firstDay: Int64 = 0
    var dayGaps: [UInt64] = []
    var logTypes: [UInt64] = []
    var logNumbers: [Int64] = []
    var itemTable: [SubgoalItemID] = []
    var itemRefs: [UInt64] = []
    var firstSeconds: [Int64] = []
    var firstMillis: [UInt64] = []
    var lastAfterFirst: [UInt64] = []
    var modifiedAfterLast: [Int64] = []
    var zoneTable: [String] = []
    var zoneRefs: [UInt64] = []
    var deviceTable: [DeviceID] = []
    var deviceRefs: [UInt64] = []
    var deletedGaps: [UInt64] = []
    var noteGaps: [UInt64] = []
    var notes: [String] = []
    var extraGaps: [UInt64] = []
    var extras: [[UInt8]] = []
    var tapGaps: [UInt64] = []
    var tapCounts: [UInt64] = []
    var tapDeviceRefs: [UInt64] = []
    var tapSequences: [UInt64] = []
    var tapSeconds: [UInt64] = []
    var tapMillis: [UInt64] = []
    var tapSpans: [UInt64] = []
    var tapZoneRefs: [UInt64] = []
    var tapTypes: [UInt64] = []
    var tapNumbers: [UInt64] = []
    var tapItemRefs: [UInt64] = []
    var noteAtGaps: [UInt64] = []
    var noteAtBefore: [UInt64] = []

    init(start: Int) {
        self.start = start
    }

    mutating func read(_ f: WireReader.Field, from r: inout WireReader) throws(WireError) -> Bool {
        // WIRE-25: no column, table or count may pass the per-block limit; each is checked as it
        // grows, so a hostile block stops before anything is built for its entries.
        let limit = r.limits.maxCheckInsPerBlock
        // An entry lists each of its items once, and a goal has at most 50 items (MODEL-22).
        let refLimit = limit.multipliedReportingOverflow(by: 51).overflow ? Int.max : limit * 51
        func table<T>(_ values: inout [T], _ value: () throws(WireError) -> T) throws(WireError) {
            guard values.count < limit else {
                throw WireError(.limitExceeded, at: f.start, "a table holds more than \(limit) values", rule: "WIRE-25")
            }
            values.append(try value())
        }
        switch f.number {
        case 1: goalID = try r.readID(f)
        case 2:
            count = try r.readUInt32(f)
            guard count <= limit else {
                throw WireError(
                    .limitExceeded, at: f.start, "the block holds \(count) check-ins; the limit is \(limit)",
                    rule: "WIRE-25")
            }
        case 3: firstDay = try r.readSInt(f)
        case 4: try r.readRepeated(f, into: &dayGaps, limit: limit)
        case 5: try r.readRepeated(f, into: &logTypes, limit: limit)
        case 6: try r.readRepeated(f, into: &logNumbers, limit: limit)
        case 7:
            try table(&itemTable) { () throws(WireError) in
                let raw = try r.readBytes(f)
                guard raw.count == 16 else {
                    throw WireError(
                        .invalidValue, at: f.start, "check-in block: an item id has \(raw.count) bytes, not 16",
                        rule: "WIRE-24")
                }
                return SubgoalItemID(bytes: raw)
            }
        case 8: try r.readRepeated(f, into: &itemRefs, limit: refLimit)
        case 9: try r.readRepeated(f, into: &firstSeconds, limit: limit)
        case 10: try r.readRepeated(f, into: &firstMillis, limit: limit)
        case 11: try r.readRepeated(f, into: &lastAfterFirst, limit: limit)
        case 12: try r.readRepeated(f, into: &modifiedAfterLast, limit: limit)
        case 13: try table(&zoneTable) { () throws(WireError) in try r.readString(f) }
        case 14: try r.readRepeated(f, into: &zoneRefs, limit: limit)
        case 15: try table(&deviceTable) { () throws(WireError) in try r.readID(f) }
        case 16: try r.readRepeated(f, into: &deviceRefs, limit: limit)
        case 17: try r.readRepeated(f, into: &deletedGaps, limit: limit)
        case 18: try r.readRepeated(f, into: &noteGaps, limit: limit)
        case 19: try table(&notes) { () throws(WireError) in try r.readString(f) }
        case 20: try r.readRepeated(f, into: &extraGaps, limit: limit)
        case 21: try table(&extras) { () throws(WireError) in try r.readBytes(f) }
        default: return try readTaps(f, from: &r, limit: limit)
        }
        return true
    }

    func fail(_ message: String, at offset: Int? = nil) -> WireError {
        WireError(.invalidValue, at: offset ?? start, "check-in block: \(message)", rule: "WIRE-24")
    }

    /// A per-entry column: empty (all default) or exactly `count` values.
    func column<T>(_ values: [T], _ name: String, default value: T) throws(WireError) -> [T] {
        if values.isEmpty { return Array(repeating: value, count: count) }
        guard values.count == count else { throw fail("\(name) has \(values.count) values for \(count) entries") }
        return values
    }

    /// A sparse column: a first index, then gaps of at least 1, all below `count`.
    func indexes(_ gaps: [UInt64], _ name: String) throws(WireError) -> [Int] {
        var result: [Int] = []
        var index = -1
        for (position, gap) in gaps.enumerated() {
            guard position == 0 || gap >= 1, gap < UInt64(count) else { throw fail("\(name) is out of order or range") }
            index = position == 0 ? Int(gap) : index + Int(gap)
            guard index < count else { throw fail("\(name) points past the last entry") }
            result.append(index)
        }
        return result
    }

    /// `day × 86,400,000 + 1000 × seconds + millis`, or nil when it overflows or leaves years
    /// 1...9999 (WIRE-22).
    static func instant(day: Day, seconds: Int64, millis: Int64) -> Instant? {
        let (dayMS, o1) = Int64(day.daysSince1970).multipliedReportingOverflow(by: 86_400_000)
        let (secondsMS, o2) = seconds.multipliedReportingOverflow(by: 1000)
        let (sum, o3) = dayMS.addingReportingOverflow(secondsMS)
        let (total, o4) = sum.addingReportingOverflow(millis)
        guard !(o1 || o2 || o3 || o4) else { return nil }
        return try? Instant(millisecondsSince1970: total)
    }

    /// `base` plus an unsigned delta in milliseconds, or nil outside years 1...9999.
    static func instant(_ base: Instant, plus delta: UInt64) -> Instant? {
        guard let signed = Int64(exactly: delta) else { return nil }
        return try? base.adding(milliseconds: signed)
    }

    /// `base` plus a signed delta in milliseconds, or nil outside years 1...9999.
    static func instant(_ base: Instant, plus delta: Int64) -> Instant? {
        try? base.adding(milliseconds: delta)
    }

    func build(_ reader: WireReader) throws(WireError) -> CheckInBlock {
        guard let goalID else { throw fail("the block has no goal id") }
        guard count > 0 else {
            guard dayGaps.isEmpty, logTypes.isEmpty, firstSeconds.isEmpty else {
                throw fail("an empty block has columns")
            }
            return CheckInBlock(CheckInHistory(goalID: goalID))
        }
        guard dayGaps.count == count - 1 else {
            throw fail("day_gaps has \(dayGaps.count) values for \(count) entries")
        }
        let days = try days(reader)
        let types = try column(logTypes, "log_types", default: 0)
        let seconds = try column(firstSeconds, "first_seconds", default: 0)
        let millis = try column(firstMillis, "first_millis", default: 0)
        let lastDelta = try column(lastAfterFirst, "last_after_first", default: 0)
        let modifiedDelta = try column(modifiedAfterLast, "modified_after_last", default: 0)
        let zoneIndexes = try column(zoneRefs, "zone_refs", default: 0)
        let deviceIndexes = try column(deviceRefs, "device_refs", default: 0)
        let zones = try zoneTable.map { (name) throws(WireError) in
            try reader.validated(at: start) { () throws(ModelError) in try TimeZoneID(name) }
        }
        var deleted = [Bool](repeating: false, count: count)
        for index in try indexes(deletedGaps, "deleted_gaps") { deleted[index] = true }
        let noted = try indexes(noteGaps, "note_gaps")
        let extra = try indexes(extraGaps, "extra_gaps")
        guard notes.count == noted.count else { throw fail("\(notes.count) notes for \(noted.count) noted entries") }
        guard extras.count == extra.count else { throw fail("\(extras.count) extras for \(extra.count) entries") }
        // The sparse columns are in entry order: walk them beside the entries.
        var nextNote = 0
        var nextExtra = 0
        var logs = LogColumns(self)
        var secondsOfDay: Int64 = 0
        var history = CheckInHistory(goalID: goalID)
        history.reserveCapacity(count)
        for index in 0..<count {
            let log = try logs.next(type: types[index])
            guard zoneIndexes[index] < UInt64(zones.count) else { throw fail("a time-zone reference is out of range") }
            guard deviceIndexes[index] < UInt64(deviceTable.count) else {
                throw fail("a device reference is out of range")
            }
            guard millis[index] < 1000 else { throw fail("first_millis has \(millis[index])") }
            // WIRE-22: exact arithmetic, checked at every step. Each entry's instants must lie in
            // years 1...9999, which bounds every running sum, so a sum that leaves 64 bits has
            // already left that range.
            let (secondsSum, overflow) = secondsOfDay.addingReportingOverflow(seconds[index])
            guard !overflow else { throw fail("entry \(index): first_seconds runs past the supported years") }
            secondsOfDay = secondsSum
            guard let first = Self.instant(day: days[index], seconds: secondsOfDay, millis: Int64(millis[index])),
                let last = Self.instant(first, plus: lastDelta[index]),
                let modified = Self.instant(last, plus: modifiedDelta[index])
            else {
                throw fail("entry \(index) has an instant outside years 1...9999")
            }
            var note: String? = nil
            if nextNote < noted.count, noted[nextNote] == index {
                note = notes[nextNote]
                nextNote += 1
                guard CheckIn.isValidNote(note!) else {
                    throw fail("entry \(index) has a note longer than 500 characters")
                }
            }
            var unknown = UnknownFields()
            if nextExtra < extra.count, extra[nextExtra] == index {
                unknown = UnknownFields(bytes: extras[nextExtra])
                nextExtra += 1
            }
            // Every rule of MODEL-36 holds by construction here (the last instant is never before
            // the first, tallies are not negative) or was just checked (the note).
            let zone = zones[Int(zoneIndexes[index])]
            let device = deviceTable[Int(deviceIndexes[index])]
            if note == nil, unknown.isEmpty {
                history.appendValidated(
                    day: days[index], log: log, firstRecordedAt: first, lastRecordedAt: last, timeZone: zone,
                    deviceID: device, modifiedAt: modified, deleted: deleted[index])
            } else {
                history.appendUnchecked(
                    CheckIn(
                        validGoalID: goalID, day: days[index], log: log, firstRecordedAt: first, lastRecordedAt: last,
                        timeZone: zone, deviceID: device, note: note, modifiedAt: modified, deleted: deleted[index],
                        unknownFields: unknown))
            }
        }
        try logs.finish()
        let limit = reader.limits.maxCheckInsPerBlock
        try applyTaps(
            to: &history, zones: zones,
            tapLimit: limit.multipliedReportingOverflow(by: 10).overflow ? Int.max : limit * 10)
        return CheckInBlock(history)
    }

    /// The entries' Days, from the first Day and the gaps (WIRE-22): each gap at least 1, and
    /// every Day inside the supported years.
    private func days(_ reader: WireReader) throws(WireError) -> [Day] {
        var days: [Day] = [try reader.day(firstDay, at: start)]
        days.reserveCapacity(count)
        for gap in dayGaps {
            guard gap >= 1, gap <= UInt64(Day.supportedRange.count) else { throw fail("a Day gap of \(gap)") }
            days.append(try reader.day(Int64(days[days.count - 1].daysSince1970) + Int64(gap), at: start))
        }
        return days
    }
}

/// The log columns read entry by entry: `log_numbers` for amounts, tallies and values,
/// `item_refs` for checklists (a count, then that many references into the item table).
private struct LogColumns {
    let columns: Columns
    var numbers: IndexingIterator<[Int64]>
    var refs: IndexingIterator<[UInt64]>
    // Consecutive entries usually check the same items: build each distinct set once.
    var lastRefs: [UInt64] = []
    var lastItems = Set<SubgoalItemID>()

    init(_ columns: Columns) {
        self.columns = columns
        numbers = columns.logNumbers.makeIterator()
        refs = columns.itemRefs.makeIterator()
    }

    /// The next entry's log, of the type `log_types` gives it.
    mutating func next(type: UInt64) throws(WireError) -> CheckInLog {
        switch type {
        case 0: return .done
        case 1: return .skip
        case 2, 3, 5:
            guard let number = numbers.next() else { throw columns.fail("log_numbers has too few values") }
            if type == 3 {
                guard (0...Int64(UInt32.max)).contains(number) else { throw columns.fail("a tally of \(number)") }
                return .tally(Int(number))
            }
            guard let amount = try? Amount(thousandths: number) else {
                throw columns.fail("amount \(number) is beyond the limit")
            }
            return type == 2 ? .amount(amount) : .value(amount)
        case 4:
            guard let itemCount = refs.next(), itemCount <= UInt64(columns.itemRefs.count) else {
                throw columns.fail("item_refs ends early")
            }
            var entryRefs: [UInt64] = []
            entryRefs.reserveCapacity(Int(itemCount))
            for _ in 0..<itemCount {
                guard let ref = refs.next(), ref < UInt64(columns.itemTable.count) else {
                    throw columns.fail("an item reference is out of range")
                }
                entryRefs.append(ref)
            }
            if entryRefs != lastRefs {
                lastItems = Set(entryRefs.map { columns.itemTable[Int($0)] })
                lastRefs = entryRefs
            }
            return .items(lastItems)
        default:
            throw columns.fail("log type \(type) is unknown")
        }
    }

    /// Fails when a log column has values no entry used.
    mutating func finish() throws(WireError) {
        guard numbers.next() == nil else { throw columns.fail("log_numbers has values left over") }
        guard refs.next() == nil else { throw columns.fail("item_refs has values left over") }
    }
}
