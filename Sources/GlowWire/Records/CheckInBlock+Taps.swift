import GlowModel

/// The taps of a block's entries that are not compact, as columns beside the entries' own
/// (WIRE-28): a tap costs a few bytes, as an entry does. The entries' columns still describe what
/// the taps add up to, for readers that do not know taps.
struct TapColumns {
    private(set) var entries: [Int] = []
    private(set) var counts: [UInt64] = []
    private var deviceRefs: [UInt64] = []
    private var sequences: [UInt64] = []
    private var seconds: [UInt64] = []
    private var millis: [UInt64] = []
    private var spans: [UInt64] = []
    private var zoneRefs: [UInt64] = []
    private var types: [UInt64] = []
    private var numbers: [UInt64] = []
    private var itemRefs: [UInt64] = []
    private var noteAtEntries: [Int] = []
    private var noteAtBefore: [UInt64] = []
    /// Whether a column holds a value other than its default (WIRE-21's writer rule).
    private var anyDevice = false
    private var anySequence = false
    private var anyMillis = false
    private var anySpan = false
    private var anyZone = false
    private var anyType = false
    private var anySeconds = false

    /// The numbers of the TapType enum (glow.proto).
    static func type(of action: Tap.Action) -> UInt64 {
        switch action {
        case .done: 0
        case .skip: 1
        case .add: 2
        case .count: 3
        case .check: 4
        case .uncheck: 5
        case .value: 6
        case .undo: 7
        }
    }

    /// Adds the taps of `entry`, the block's entry number `index`, with the table indexes the
    /// closures give.
    mutating func add(
        _ entry: CheckIn, at index: Int, devices: (DeviceID) -> Int, zones: (String) -> Int,
        items: (SubgoalItemID) -> Int
    ) {
        let taps = entry.taps
        entries.append(index)
        counts.append(UInt64(taps.count))
        var previous: Int64 = 0
        var perDevice: [DeviceID: Int] = [:]
        let midnight = Int64(entry.day.daysSince1970) * 86_400
        for tap in taps {
            let device = UInt64(devices(tap.deviceID))
            deviceRefs.append(device)
            anyDevice = anyDevice || device != 0
            // The default sequence: the device's taps in this entry numbered 0, 1, 2 ... in order.
            let expected = perDevice[tap.deviceID, default: 0]
            perDevice[tap.deviceID] = expected + 1
            sequences.append(UInt64(tap.sequence))
            anySequence = anySequence || tap.sequence != expected
            let (whole, fraction) = Instant.floorDivide(tap.at.millisecondsSince1970, 1000)
            seconds.append(zigzag(whole - midnight - previous))
            anySeconds = anySeconds || whole - midnight != previous
            previous = whole - midnight
            millis.append(UInt64(fraction))
            anyMillis = anyMillis || fraction != 0
            let span = UInt64(tap.at.millisecondsSince1970 - tap.firstAt.millisecondsSince1970)
            spans.append(span)
            anySpan = anySpan || span != 0
            let zone = UInt64(zones(tap.timeZone.identifier))
            zoneRefs.append(zone)
            anyZone = anyZone || zone != 0
            let type = TapColumns.type(of: tap.action)
            types.append(type)
            anyType = anyType || type != 0
            switch tap.action {
            case .add(let amount), .value(let amount): numbers.append(zigzag(amount.thousandths))
            case .count(let delta): numbers.append(zigzag(Int64(delta)))
            case .check(let set), .uncheck(let set):
                itemRefs.append(UInt64(set.count))
                for item in set.sorted() { itemRefs.append(UInt64(items(item))) }
            case .done, .skip, .undo: break
            }
        }
        if let noteAt = entry.noteAt, entry.note == nil || noteAt != entry.modifiedAt {
            noteAtEntries.append(index)
            noteAtBefore.append(UInt64(entry.modifiedAt.millisecondsSince1970 - noteAt.millisecondsSince1970))
        }
    }

    /// Writes the columns, in field order; per-tap columns only when some tap differs from the
    /// default.
    func write(to writer: inout WireWriter) {
        writer.packed(22, CheckInBlock.gaps(entries))
        writer.packed(23, counts)
        if anyDevice { writer.packed(24, deviceRefs) }
        if anySequence { writer.packed(25, sequences) }
        if anySeconds { writer.packed(26, seconds) }
        if anyMillis { writer.packed(27, millis) }
        if anySpan { writer.packed(28, spans) }
        if anyZone { writer.packed(29, zoneRefs) }
        if anyType { writer.packed(30, types) }
        writer.packed(31, numbers)
        writer.packed(32, itemRefs)
        writer.packed(33, CheckInBlock.gaps(noteAtEntries))
        writer.packed(34, noteAtBefore)
    }
}

extension Columns {
    /// Reads a tap column; false for a field that is not one.
    mutating func readTaps(_ f: WireReader.Field, from r: inout WireReader, limit: Int) throws(WireError) -> Bool {
        // WIRE-28: a block holds at most ten taps per check-in it may hold; item references follow
        // WIRE-25's bound on the entries' own.
        let tapLimit = limit.multipliedReportingOverflow(by: 10).overflow ? Int.max : limit * 10
        let refLimit = tapLimit.multipliedReportingOverflow(by: 51).overflow ? Int.max : tapLimit * 51
        switch f.number {
        case 22: try r.readRepeated(f, into: &tapGaps, limit: limit)
        case 23: try r.readRepeated(f, into: &tapCounts, limit: limit)
        case 24: try r.readRepeated(f, into: &tapDeviceRefs, limit: tapLimit)
        case 25: try r.readRepeated(f, into: &tapSequences, limit: tapLimit)
        case 26: try r.readRepeated(f, into: &tapSeconds, limit: tapLimit)
        case 27: try r.readRepeated(f, into: &tapMillis, limit: tapLimit)
        case 28: try r.readRepeated(f, into: &tapSpans, limit: tapLimit)
        case 29: try r.readRepeated(f, into: &tapZoneRefs, limit: tapLimit)
        case 30: try r.readRepeated(f, into: &tapTypes, limit: tapLimit)
        case 31: try r.readRepeated(f, into: &tapNumbers, limit: tapLimit)
        case 32: try r.readRepeated(f, into: &tapItemRefs, limit: refLimit)
        case 33: try r.readRepeated(f, into: &noteAtGaps, limit: limit)
        case 34: try r.readRepeated(f, into: &noteAtBefore, limit: limit)
        default: return false
        }
        return true
    }

    /// Replaces the entries that list taps by the check-ins their taps make (WIRE-28): the taps
    /// decide, and the entry's own columns only describe them to readers that do not know taps.
    func applyTaps(to history: inout CheckInHistory, zones: [TimeZoneID], tapLimit: Int) throws(WireError) {
        let tapped = try indexes(tapGaps, "tap_gaps")
        guard tapCounts.count == tapped.count else {
            throw fail("tap_counts has \(tapCounts.count) values for \(tapped.count) entries with taps")
        }
        var total = 0
        for count in tapCounts {
            guard count >= 1, count <= UInt64(CheckIn.tapLimit) else { throw fail("an entry lists \(count) taps") }
            total += Int(count)
        }
        // WIRE-28: the taps are bounded even when every tap column is empty (all defaults).
        guard total <= tapLimit else {
            throw WireError(
                .limitExceeded, at: start, "the block's entries list \(total) taps; the limit is \(tapLimit)",
                rule: "WIRE-28")
        }
        var taps = TapReader(columns: self, total: total, zones: zones)
        try taps.check()
        let noteAt = try indexes(noteAtGaps, "note_at_gaps")
        guard noteAtBefore.count == noteAt.count else {
            throw fail("note_at_before has \(noteAtBefore.count) values for \(noteAt.count) entries")
        }
        guard Set(noteAt).isSubset(of: Set(tapped)) else { throw fail("a note instant is given for a compact entry") }
        var noteBefore: [Int: UInt64] = [:]
        for (index, before) in zip(noteAt, noteAtBefore) { noteBefore[index] = before }
        for (entry, count) in zip(tapped, tapCounts) {
            let old = history[entry]
            let list = try taps.next(Int(count), day: old.day)
            var at: Instant? = old.note == nil ? nil : old.modifiedAt
            if let before = noteBefore[entry] {
                guard before <= UInt64(Int64.max),
                    let instant = try? old.modifiedAt.adding(milliseconds: -Int64(before))
                else { throw fail("entry \(entry) has a note instant outside years 1...9999") }
                at = instant
            }
            var rebuilt = try TapReader.validated(start) { () throws(ModelError) in
                try CheckIn(
                    goalID: old.goalID, day: old.day, taps: list, note: old.note, noteAt: at, modifiedAt: old.modifiedAt
                )
            }
            rebuilt.unknownFields = old.unknownFields
            history.replace(at: entry, with: rebuilt)
        }
        try taps.finish()
    }
}

/// Walks the tap columns beside the taps they describe. It holds the columns themselves, not the
/// whole `Columns`, so that reading a tap copies nothing.
struct TapReader {
    let total: Int
    let zones: [TimeZoneID]
    private let deviceRefs: [UInt64]
    private let sequences: [UInt64]
    private let seconds: [UInt64]
    private let millis: [UInt64]
    private let spans: [UInt64]
    private let zoneRefs: [UInt64]
    private let types: [UInt64]
    private let numbers: [UInt64]
    private let itemRefs: [UInt64]
    private let devices: [DeviceID]
    private let items: [SubgoalItemID]
    private let fail: (String) -> WireError
    private var index = 0
    private var nextNumber = 0
    private var nextItemRef = 0

    init(columns: Columns, total: Int, zones: [TimeZoneID]) {
        self.total = total
        self.zones = zones
        deviceRefs = columns.tapDeviceRefs
        sequences = columns.tapSequences
        seconds = columns.tapSeconds
        millis = columns.tapMillis
        spans = columns.tapSpans
        zoneRefs = columns.tapZoneRefs
        types = columns.tapTypes
        numbers = columns.tapNumbers
        itemRefs = columns.tapItemRefs
        devices = columns.deviceTable
        items = columns.itemTable
        let start = columns.start
        fail = { WireError(.invalidValue, at: start, "check-in block: \($0)", rule: "WIRE-28") }
    }

    /// Every per-tap column is empty or holds one value per tap (WIRE-21's rule, for taps).
    func check() throws(WireError) {
        let perTap: [(Int, String)] = [
            (deviceRefs.count, "tap_device_refs"), (sequences.count, "tap_sequences"), (seconds.count, "tap_seconds"),
            (millis.count, "tap_millis"), (spans.count, "tap_spans"), (zoneRefs.count, "tap_zone_refs"),
            (types.count, "tap_types"),
        ]
        for (count, name) in perTap where count != 0 && count != total {
            throw fail("\(name) has \(count) values for \(total) taps")
        }
    }

    /// The next `count` taps, of an entry of `day`.
    mutating func next(_ count: Int, day: Day) throws(WireError) -> [Tap] {
        var taps: [Tap] = []
        taps.reserveCapacity(count)
        var secondsOfDay: Int64 = 0
        var perDevice: [DeviceID: Int] = [:]
        for _ in 0..<count {
            guard index < total else { throw fail("tap_counts lists more taps than there are") }
            let deviceRef = value(deviceRefs, index)
            guard deviceRef < UInt64(devices.count) else { throw fail("a tap's device is out of range") }
            let device = devices[Int(deviceRef)]
            let expected = perDevice[device, default: 0]
            perDevice[device] = expected + 1
            let sequence = sequences.isEmpty ? UInt64(expected) : sequences[index]
            guard sequence <= UInt64(Tap.sequenceLimit) else { throw fail("a tap's sequence is out of range") }
            let (sum, overflow) = secondsOfDay.addingReportingOverflow(unzigzag(value(seconds, index)))
            guard !overflow else { throw fail("tap_seconds runs past the supported years") }
            secondsOfDay = sum
            let milliseconds = value(millis, index)
            guard milliseconds < 1000 else { throw fail("tap_millis has \(milliseconds)") }
            let span = value(spans, index)
            guard span <= UInt64(Int64.max),
                let at = Columns.instant(day: day, seconds: secondsOfDay, millis: Int64(milliseconds)),
                let first = Columns.instant(at, plus: -Int64(span))
            else { throw fail("a tap's instant is outside years 1...9999") }
            let zoneRef = value(zoneRefs, index)
            guard zoneRef < UInt64(zones.count) else { throw fail("a tap's time zone is out of range") }
            let action = try nextAction(value(types, index))
            taps.append(
                Tap(
                    unchecked: device, sequence: Int(sequence), at: at, firstAt: first, timeZone: zones[Int(zoneRef)],
                    action: action))
            index += 1
        }
        return taps
    }

    private func value(_ column: [UInt64], _ at: Int) -> UInt64 { column.isEmpty ? 0 : column[at] }

    private mutating func nextAction(_ type: UInt64) throws(WireError) -> Tap.Action {
        func number() throws(WireError) -> Int64 {
            guard nextNumber < numbers.count else { throw fail("tap_numbers has too few values") }
            defer { nextNumber += 1 }
            return unzigzag(numbers[nextNumber])
        }
        func amount() throws(WireError) -> Amount {
            let thousandths = try number()
            guard let amount = try? Amount(thousandths: thousandths) else {
                throw fail("a tap's amount \(thousandths) is beyond the limit")
            }
            return amount
        }
        func itemSet() throws(WireError) -> Set<SubgoalItemID> {
            guard nextItemRef < itemRefs.count else { throw fail("tap_item_refs ends early") }
            let count = itemRefs[nextItemRef]
            nextItemRef += 1
            guard count <= UInt64(itemRefs.count - nextItemRef) else { throw fail("tap_item_refs ends early") }
            var set = Set<SubgoalItemID>()
            for _ in 0..<Int(count) {
                let ref = itemRefs[nextItemRef]
                nextItemRef += 1
                guard ref < UInt64(items.count) else { throw fail("a tap's item is out of range") }
                guard set.insert(items[Int(ref)]).inserted else { throw fail("a tap lists an item twice") }
            }
            return set
        }
        switch type {
        case 0: return .done
        case 1: return .skip
        case 2: return .add(try amount())
        case 3: return .count(Int(try number()))
        case 4: return .check(try itemSet())
        case 5: return .uncheck(try itemSet())
        case 6: return .value(try amount())
        case 7: return .undo
        default: throw fail("tap type \(type) is unknown")
        }
    }

    /// Every tap and every number and item reference was used.
    func finish() throws(WireError) {
        guard index == total else { throw fail("\(total - index) taps belong to no entry") }
        guard nextNumber == numbers.count else { throw fail("tap_numbers has values left over") }
        guard nextItemRef == itemRefs.count else { throw fail("tap_item_refs has values left over") }
    }

    /// A model value, or `invalid_value` at the block's start (WIRE-24).
    static func validated<T>(_ start: Int, _ make: () throws(ModelError) -> T) throws(WireError) -> T {
        do {
            return try make()
        } catch {
            throw WireError(.invalidValue, at: start, "check-in block: \(error.description)", rule: "WIRE-24")
        }
    }
}
