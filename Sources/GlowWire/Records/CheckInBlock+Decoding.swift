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
        // `count` is justified by the input from here on: day_gaps holds count - 1 values of at
        // least a byte each, so every column below is as long as the bytes read.
        guard dayGaps.count == count - 1 else {
            throw fail("day_gaps has \(dayGaps.count) values for \(count) entries")
        }
        let perEntry = [
            (logTypes.count, "log_types"), (firstSeconds.count, "first_seconds"), (firstMillis.count, "first_millis"),
            (lastAfterFirst.count, "last_after_first"), (modifiedAfterLast.count, "modified_after_last"),
            (zoneRefs.count, "zone_refs"), (deviceRefs.count, "device_refs"),
        ]
        for (values, name) in perEntry where values != 0 && values != count {
            throw fail("\(name) has \(values) values for \(count) entries")
        }
        var fill = HistoryFill(count: count)
        try fill.days(self, reader)
        try fill.logs(self)
        try fill.instants(self)
        let zones = try zoneTable.map { (name) throws(WireError) in
            try reader.validated(at: start) { () throws(ModelError) in try TimeZoneID(name) }
        }
        try fill.contexts(self, zones: zones)
        var history = try reader.validated(at: start) { () throws(ModelError) in
            try CheckInHistory(
                goalID: goalID,
                columns: .init(
                    days: fill.dayNumbers, logTypes: fill.types, deleted: fill.deleted, numbers: fill.numbers,
                    firstOffsets: fill.firstOffsets, spans: fill.spans, modifiedDeltas: fill.modifiedDeltas,
                    contexts: fill.contexts, contextTable: fill.contextTable, itemSets: fill.itemSets))
        }
        try fill.setWhole(self, zones: zones, into: &history)
        let limit = reader.limits.maxCheckInsPerBlock
        try applyTaps(
            to: &history, zones: zones,
            tapLimit: limit.multipliedReportingOverflow(by: 10).overflow ? Int.max : limit * 10)
        return CheckInBlock(history)
    }
}

/// The columns of a goal's history filled straight from a block's columns, one column at a time,
/// checking every value as it goes (WIRE-20 ... WIRE-24); no check-in is built for an entry the
/// columns hold. Entries the history's columns cannot hold (a note, unknown fields, numbers or
/// instants wider than their column) are listed and set whole at the end.
private struct HistoryFill {
    let count: Int
    var dayNumbers: [Int32] = []
    /// Each entry's log type (glow.proto's LogType).
    var types: [UInt8]
    /// Whether each entry is undone; empty when none is.
    var deleted: [Bool] = []
    var numbers: [Int32] = []
    var firstOffsets: [Int32] = []
    var spans: [UInt32] = []
    var modifiedDeltas: [Int32] = []
    var contexts: [UInt16] = []
    var contextTable: [CheckInHistory.Context] = []
    var itemSets: [Set<SubgoalItemID>] = []
    /// Entries to set whole, with what their columns could not hold.
    var whole: [Int: Wide] = [:]

    /// What an entry kept whole needs beyond the columns.
    struct Wide {
        var number: Int64?
        var instants: (first: Int64, last: Int64, modified: Int64)?
        var context: (zone: Int, device: Int)?
    }

    init(count: Int) {
        self.count = count
        types = [UInt8](repeating: 0, count: count)
    }

    /// The entries' Days, from the first Day and the gaps (WIRE-22): each gap at least 1, and
    /// every Day inside the supported years.
    mutating func days(_ columns: Columns, _ reader: WireReader) throws(WireError) {
        dayNumbers.reserveCapacity(count)
        var day = Int64(try reader.day(columns.firstDay, at: columns.start).daysSince1970)
        dayNumbers.append(Int32(day))
        let last = Int64(Day.max.daysSince1970)
        for gap in columns.dayGaps {
            guard gap >= 1, gap <= UInt64(Day.supportedRange.count) else { throw columns.fail("a Day gap of \(gap)") }
            day += Int64(gap)
            if day > last { _ = try reader.day(day, at: columns.start) }
            dayNumbers.append(Int32(day))
        }
    }

    /// Log types, undone marks, numbers and checked items (WIRE-21, WIRE-23).
    mutating func logs(_ columns: Columns) throws(WireError) {
        for (index, type) in columns.logTypes.enumerated() {
            guard type <= 5 else { throw columns.fail("log type \(type) is unknown") }
            types[index] = UInt8(type)
        }
        for index in try columns.indexes(columns.deletedGaps, "deleted_gaps") {
            if deleted.isEmpty { deleted = [Bool](repeating: false, count: count) }
            deleted[index] = true
        }
        guard !columns.logTypes.isEmpty else {
            guard columns.logNumbers.isEmpty else { throw columns.fail("log_numbers has values left over") }
            guard columns.itemRefs.isEmpty else { throw columns.fail("item_refs has values left over") }
            return
        }
        numbers = [Int32](repeating: 0, count: count)
        var nextNumber = 0
        var items = ItemRefReader(columns)
        for index in 0..<count {
            switch types[index] {
            case 2, 3, 5:
                guard nextNumber < columns.logNumbers.count else {
                    throw columns.fail("log_numbers has too few values")
                }
                let number = columns.logNumbers[nextNumber]
                nextNumber += 1
                if types[index] == 3 {
                    guard let tally = UInt32(exactly: number) else { throw columns.fail("a tally of \(number)") }
                    numbers[index] = Int32(bitPattern: tally)
                } else {
                    guard (-Amount.limit...Amount.limit).contains(number) else {
                        throw columns.fail("amount \(number) is beyond the limit")
                    }
                    if let narrow = Int32(exactly: number) {
                        numbers[index] = narrow
                    } else {
                        whole[index, default: Wide()].number = number
                    }
                }
            case 4:
                numbers[index] = try items.next(into: &itemSets)
            default:
                break
            }
        }
        guard nextNumber == columns.logNumbers.count else { throw columns.fail("log_numbers has values left over") }
        try items.finish()
    }

    /// The recorded and modified instants (WIRE-22): exact arithmetic, checked at every step, and
    /// every instant inside years 1...9999, which bounds every running sum.
    mutating func instants(_ columns: Columns) throws(WireError) {
        // Local copies: the loop then writes plain arrays it owns.
        var offsets = [Int32](repeating: 0, count: count)
        var narrowSpans = [UInt32](repeating: 0, count: count)
        var deltas = [Int32](repeating: 0, count: count)
        let (secondsColumn, millisColumn, spanColumn, deltaColumn, days) = (
            columns.firstSeconds, columns.firstMillis, columns.lastAfterFirst, columns.modifiedAfterLast, dayNumbers
        )
        let range = Instant.min.millisecondsSince1970...Instant.max.millisecondsSince1970
        var secondsOfDay: Int64 = 0
        for index in 0..<count {
            if !secondsColumn.isEmpty {
                let (sum, overflow) = secondsOfDay.addingReportingOverflow(secondsColumn[index])
                guard !overflow else {
                    throw columns.fail("entry \(index): first_seconds runs past the supported years")
                }
                secondsOfDay = sum
            }
            let millis = millisColumn.isEmpty ? 0 : millisColumn[index]
            guard millis < 1000 else { throw columns.fail("first_millis has \(millis)") }
            let span = spanColumn.isEmpty ? 0 : spanColumn[index]
            let delta = deltaColumn.isEmpty ? 0 : deltaColumn[index]
            let (secondsMS, o1) = secondsOfDay.multipliedReportingOverflow(by: 1000)
            let (offset, o2) = secondsMS.addingReportingOverflow(Int64(millis))
            let (first, o3) = (Int64(days[index]) * 86_400_000).addingReportingOverflow(offset)
            let (last, o4) = first.addingReportingOverflow(Int64(truncatingIfNeeded: span))
            let (modified, o5) = last.addingReportingOverflow(delta)
            guard !(o1 || o2 || o3 || o4 || o5), span <= UInt64(Int64.max), range.contains(first), range.contains(last),
                range.contains(modified)
            else {
                throw columns.fail("entry \(index) has an instant outside years 1...9999")
            }
            if let narrow = Int32(exactly: offset), let narrowSpan = UInt32(exactly: span),
                let narrowDelta = Int32(exactly: delta)
            {
                offsets[index] = narrow
                narrowSpans[index] = narrowSpan
                deltas[index] = narrowDelta
            } else {
                whole[index, default: Wide()].instants = (first, last, modified)
            }
        }
        firstOffsets = offsets
        spans = narrowSpans
        modifiedDeltas = deltas
    }

    /// Each entry's (time zone, device) pair, as an index into a table of the pairs used.
    mutating func contexts(_ columns: Columns, zones: [TimeZoneID]) throws(WireError) {
        var refs = [UInt16](repeating: 0, count: count)
        let (zoneRefs, deviceRefs, deviceTable) = (columns.zoneRefs, columns.deviceRefs, columns.deviceTable)
        var pairs: [Pair] = []
        var known: [Pair: UInt16] = [:]
        var last = Pair(zone: -1, device: -1)
        var lastIndex: UInt16 = 0
        for index in 0..<count {
            let zone = zoneRefs.isEmpty ? 0 : zoneRefs[index]
            let device = deviceRefs.isEmpty ? 0 : deviceRefs[index]
            guard zone < UInt64(zones.count) else { throw columns.fail("a time-zone reference is out of range") }
            guard device < UInt64(deviceTable.count) else {
                throw columns.fail("a device reference is out of range")
            }
            let pair = Pair(zone: Int(zone), device: Int(device))
            if pair != last {
                // Most blocks use a handful of pairs: a short list is searched directly.
                if pairs.count <= 16, let found = pairs.firstIndex(of: pair) {
                    lastIndex = UInt16(found)
                } else if pairs.count > 16, let found = known[pair] {
                    lastIndex = found
                } else if contextTable.count <= Int(UInt16.max) {
                    lastIndex = UInt16(contextTable.count)
                    pairs.append(pair)
                    if pairs.count > 16 {
                        if known.isEmpty { for (position, old) in pairs.enumerated() { known[old] = UInt16(position) } }
                        known[pair] = lastIndex
                    }
                    contextTable.append(.init(zone: zones[pair.zone], device: deviceTable[pair.device]))
                } else {
                    whole[index, default: Wide()].context = (pair.zone, pair.device)
                    continue
                }
                last = pair
            }
            refs[index] = lastIndex
        }
        contexts = refs
    }

    private struct Pair: Hashable {
        var zone: Int
        var device: Int
    }

    /// Sets whole the entries that have a note or unknown fields or did not fit the columns.
    func setWhole(_ columns: Columns, zones: [TimeZoneID], into history: inout CheckInHistory) throws(WireError) {
        var notes: [Int: String] = [:]
        for (index, note) in zip(try columns.indexes(columns.noteGaps, "note_gaps"), columns.notes) {
            guard CheckIn.isValidNote(note) else {
                throw columns.fail("entry \(index) has a note longer than 500 characters")
            }
            notes[index] = note
        }
        guard notes.count == columns.notes.count, notes.count == columns.noteGaps.count else {
            throw columns.fail("\(columns.notes.count) notes for \(columns.noteGaps.count) noted entries")
        }
        var extras: [Int: UnknownFields] = [:]
        for (index, bytes) in zip(try columns.indexes(columns.extraGaps, "extra_gaps"), columns.extras) {
            extras[index] = UnknownFields(bytes: bytes)
        }
        guard extras.count == columns.extras.count, extras.count == columns.extraGaps.count else {
            throw columns.fail("\(columns.extras.count) extras for \(columns.extraGaps.count) entries")
        }
        let indexes = Set(whole.keys).union(notes.keys).union(extras.keys).sorted()
        for index in indexes {
            let wide = whole[index] ?? Wide()
            let type = types[index]
            let number = wide.number ?? Int64(numbers.isEmpty ? 0 : numbers[index])
            let log: CheckInLog
            switch type {
            case 0: log = .done
            case 1: log = .skip
            case 2: log = .amount(Amount(uncheckedThousandths: number))
            case 3: log = .tally(Int(UInt32(bitPattern: Int32(truncatingIfNeeded: number))))
            case 4: log = .items(itemSets[Int(number)])
            default: log = .value(Amount(uncheckedThousandths: number))
            }
            let day = Int64(dayNumbers[index])
            let first = wide.instants?.first ?? day * 86_400_000 + Int64(firstOffsets[index])
            let last = wide.instants?.last ?? first + Int64(spans[index])
            let modified = wide.instants?.modified ?? last + Int64(modifiedDeltas[index])
            let context =
                wide.context.map { (zones[$0.zone], columns.deviceTable[$0.device]) }
                ?? (contextTable[Int(contexts[index])].zone, contextTable[Int(contexts[index])].device)
            // Every rule of MODEL-36 holds by construction here (the last instant is never before
            // the first, tallies are not negative) or was just checked (the note).
            history.replace(
                at: index,
                with: CheckIn(
                    validGoalID: history.goalID, day: Day(unchecked: Int(day)), log: log,
                    firstRecordedAt: Instant(unchecked: first), lastRecordedAt: Instant(unchecked: last),
                    timeZone: context.0, deviceID: context.1, note: notes[index],
                    modifiedAt: Instant(unchecked: modified),
                    deleted: !deleted.isEmpty && deleted[index],
                    unknownFields: extras[index] ?? UnknownFields()))
        }
    }
}

/// The `item_refs` column read entry by entry: a count, then that many references into the item
/// table; each distinct set becomes one entry of the history's table of item sets.
private struct ItemRefReader {
    let columns: Columns
    var next = 0
    var known: [[UInt64]: Int32] = [:]
    var lastRefs: [UInt64] = []
    var lastIndex: Int32 = -1

    init(_ columns: Columns) {
        self.columns = columns
    }

    /// The next ITEMS entry's index into `sets`, added when new.
    mutating func next(into sets: inout [Set<SubgoalItemID>]) throws(WireError) -> Int32 {
        let refs = columns.itemRefs
        guard next < refs.count, refs[next] <= UInt64(refs.count - next - 1) else {
            throw columns.fail("item_refs ends early")
        }
        let itemCount = Int(refs[next])
        let range = (next + 1)..<(next + 1 + itemCount)
        next += 1 + itemCount
        // Consecutive entries usually check the same items.
        if lastIndex >= 0, refs[range].elementsEqual(lastRefs) { return lastIndex }
        let entryRefs = Array(refs[range])
        if let found = known[entryRefs] {
            lastRefs = entryRefs
            lastIndex = found
            return found
        }
        var set = Set<SubgoalItemID>()
        for ref in entryRefs {
            guard ref < UInt64(columns.itemTable.count) else { throw columns.fail("an item reference is out of range") }
            set.insert(columns.itemTable[Int(ref)])
        }
        let index = Int32(sets.count)
        sets.append(set)
        known[entryRefs] = index
        lastRefs = entryRefs
        lastIndex = index
        return index
    }

    /// Fails when item references are left that no entry used.
    func finish() throws(WireError) {
        guard next == columns.itemRefs.count else { throw columns.fail("item_refs has values left over") }
    }
}
