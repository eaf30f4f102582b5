import GlowModel

/// All check-ins of one goal, carried as delta-coded columns rather than one message each, so a
/// daily habit kept for years costs a few bytes per Day (WIRE-20 ... WIRE-24).
public struct CheckInBlock: Hashable, Sendable {
    /// The check-ins, in ascending Day order, one per Day, as columns.
    public let history: CheckInHistory
    /// Fields of the block message this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    /// The goal the check-ins belong to.
    public var goalID: GoalID { history.goalID }

    /// The check-ins, built from the history.
    public var checkIns: [CheckIn] { Array(history) }

    /// A block of `checkIns`, sorted by Day.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when a check-in belongs to another goal or two
    ///   share a Day.
    public init(goalID: GoalID, checkIns: [CheckIn]) throws(ModelError) {
        history = try CheckInHistory(goalID: goalID, checkIns: checkIns)
    }

    /// A block of a goal's history.
    public init(_ history: CheckInHistory) {
        self.history = history
    }
}

extension CheckInBlock: WireRecord {
    private static let dayMilliseconds: Int64 = 86_400_000

    package func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, goalID.bytes)
        writer.uint(2, UInt64(history.count))
        guard !history.isEmpty else {
            writer.raw(unknownFields.bytes)
            return
        }
        writer.sint(3, Int64(history.day(at: 0).daysSince1970))
        // One pass over the columns gathers every wire column; no check-in is built but those kept
        // whole.
        var entries = EntryColumns(capacity: history.count)
        entries.add(history)
        // Entries that are not compact list their taps as columns (WIRE-28); the taps' devices,
        // zones and items join the tables after the entries' own.
        var taps = TapColumns()
        for index in entries.whole {
            guard let checkIn = history.wholeCheckIn(at: index), !checkIn.isCompact else { continue }
            taps.add(
                checkIn, at: index, devices: { entries.devices.index(of: $0) },
                zones: { entries.zones.index(of: $0) }, items: { entries.itemTable.index(of: $0) })
        }
        entries.write(history, to: &writer)
        taps.write(to: &writer)
        writer.raw(unknownFields.bytes)
    }

    /// Indexes as a first index and then the gaps between them.
    static func gaps(_ indexes: [Int]) -> [UInt64] {
        indexes.enumerated().map { position, index in UInt64(position == 0 ? index : index - indexes[position - 1]) }
    }

    package static func decodeFields(from reader: inout WireReader) throws(WireError) -> CheckInBlock {
        var columns = Columns(start: reader.offset)
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in try columns.read(f, from: &r) }
        var block = try columns.build(reader)
        block.unknownFields = UnknownFields(bytes: unknown)
        return block
    }
}

/// A table of distinct values in order of first use, with a per-entry reference; consecutive
/// entries usually repeat the last value, which is checked before hashing.
struct TableBuilder<Value: Hashable> {
    private(set) var values: [Value] = []
    private(set) var refs: [UInt64] = []
    private var index: [Value: Int] = [:]
    private var last = -1
    private(set) var anyBeyondFirst = false

    /// Small tables are searched directly; larger ones through a hash index.
    private static var directLimit: Int { 16 }

    /// The table index of `value`, added at the end when it is new.
    mutating func index(of value: Value) -> Int {
        if last >= 0, values[last] == value { return last }
        if values.count <= Self.directLimit, let known = values.firstIndex(of: value) {
            last = known
        } else if values.count > Self.directLimit, let known = index[value] {
            last = known
        } else {
            last = values.count
            values.append(value)
            if values.count > Self.directLimit {
                if index.isEmpty { for (position, known) in values.enumerated() { index[known] = position } }
                index[value] = last
            }
        }
        return last
    }

    /// Adds a per-entry reference to `value`.
    mutating func add(_ value: Value) {
        add(position: index(of: value))
    }

    /// Adds a per-entry reference to the value at `position`, which ``index(of:)`` gave.
    mutating func add(position: Int) {
        anyBeyondFirst = anyBeyondFirst || position != 0
        refs.append(UInt64(position))
    }
}

extension CheckInLog {
    /// The number a log carries in the log_numbers column, if any.
    var wireNumber: Int64? {
        switch self {
        case .amount(let amount), .value(let amount): amount.thousandths
        case .tally(let count): Int64(count)
        case .done, .skip, .items: nil
        }
    }
}

extension CheckInBlock: Codable {
    private enum CodingKeys: String, CodingKey {
        case goalID
        case checkIns
    }

    /// Decodes `{"goalID": ..., "checkIns": [...]}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let goalID = try container.decode(GoalID.self, forKey: .goalID)
        let checkIns = try container.decode([CheckIn].self, forKey: .checkIns)
        do {
            try self.init(goalID: goalID, checkIns: checkIns)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath + [CodingKeys.checkIns], debugDescription: error.message,
                    underlyingError: error))
        }
    }

    /// Encodes `{"goalID": ..., "checkIns": [...]}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(goalID, forKey: .goalID)
        try container.encode(checkIns, forKey: .checkIns)
    }
}

extension DataSet {
    /// The data set's check-ins as one block per goal that has any, in goal order (WIRE-20):
    /// how bundles carry them.
    public var blocks: [CheckInBlock] {
        // Each goal's check-ins are kept in Day order, one per Day: the block needs no sorting.
        histories.map(CheckInBlock.init)
    }
}

/// A per-entry column that is written only when some entry differs from the default 0 (WIRE-21):
/// it holds nothing until then, so a column of zeros costs no appends.
struct ZeroElidedColumn {
    /// Empty while every value so far is 0; otherwise one value per entry.
    private(set) var values: [UInt64] = []
    private var count = 0

    mutating func append(_ value: UInt64) {
        if values.isEmpty {
            guard value != 0 else {
                count += 1
                return
            }
            values = [UInt64](repeating: 0, count: count)
        }
        values.append(value)
        count += 1
    }
}

/// The columns of the entries themselves (WIRE-20 ... WIRE-23), gathered in one pass; a per-entry
/// column is written only when some entry differs from its default.
private struct EntryColumns {
    var gaps: [UInt64] = []
    var types = ZeroElidedColumn()
    var numbers: [UInt64] = []
    var seconds: [UInt64] = []
    var millis = ZeroElidedColumn()
    var lastAfterFirst = ZeroElidedColumn()
    var modifiedAfterLast = ZeroElidedColumn()
    var anySeconds = false
    var itemTable = TableBuilder<SubgoalItemID>()
    var itemRefs: [UInt64] = []
    var zones = TableBuilder<String>()
    var devices = TableBuilder<DeviceID>()
    /// The previous entry's seconds after its Day's UTC midnight.
    var previous: Int64 = 0
    var deleted: [Int] = []
    /// The entries with a note, and the note.
    var noted: [(index: Int, note: String)] = []
    /// The entries with unknown fields, and their bytes.
    var extra: [(index: Int, bytes: [UInt8])] = []
    /// The entries kept whole, which may have notes, unknown fields or taps.
    var whole: [Int] = []

    init(capacity: Int) {
        seconds.reserveCapacity(capacity)
        gaps.reserveCapacity(capacity)
    }

    /// Adds every entry of `history`, reading its columns directly; only entries kept whole are
    /// read through their check-in.
    mutating func add(_ history: CheckInHistory) {
        let columns = history.columns
        let (days, logTypes, deletedColumn) = (columns.days, columns.logTypes, columns.deleted)
        // Empty columns are all zeros.
        let (numberColumn, offsets, spanColumn, deltas, contextColumn) = (
            columns.numbers, columns.firstOffsets, columns.spans, columns.modifiedDeltas, columns.contexts
        )
        // Each (zone, device) pair and item set is looked up in the wire tables once, at its first
        // use, so the tables keep the order of first use.
        var zoneOf = [Int](repeating: -1, count: columns.contextTable.count)
        var deviceOf = zoneOf
        var itemRefsOf = [[UInt64]?](repeating: nil, count: columns.itemSets.count)
        if !numberColumn.isEmpty { numbers.reserveCapacity(days.count) }
        for index in days.indices {
            guard !history.isKeptWhole(at: index) else {
                add(history, at: index)
                continue
            }
            let day = Int64(days[index])
            if index > 0 { gaps.append(UInt64(day - Int64(days[index - 1]))) }
            let type = logTypes[index]
            types.append(UInt64(type))
            switch type {
            case 2, 5: numbers.append(zigzag(Int64((numberColumn.isEmpty ? 0 : numberColumn[index]))))
            case 3: numbers.append(zigzag(Int64(UInt32(bitPattern: (numberColumn.isEmpty ? 0 : numberColumn[index])))))
            case 4:
                let set = Int((numberColumn.isEmpty ? 0 : numberColumn[index]))
                let refs: [UInt64]
                if let known = itemRefsOf[set] {
                    refs = known
                } else {
                    let items = columns.itemSets[set].sorted()
                    refs = [UInt64(items.count)] + items.map { UInt64(itemTable.index(of: $0)) }
                    itemRefsOf[set] = refs
                }
                itemRefs += refs
            default: break
            }
            let (secondsOfDay, fraction) = Instant.floorDivide(Int64((offsets.isEmpty ? 0 : offsets[index])), 1000)
            seconds.append(zigzag(secondsOfDay - previous))
            anySeconds = anySeconds || secondsOfDay != previous
            previous = secondsOfDay
            millis.append(UInt64(fraction))
            let span = (spanColumn.isEmpty ? 0 : spanColumn[index])
            lastAfterFirst.append(UInt64(span))
            let delta = (deltas.isEmpty ? 0 : deltas[index])
            modifiedAfterLast.append(zigzag(Int64(delta)))
            let context = Int((contextColumn.isEmpty ? 0 : contextColumn[index]))
            if zoneOf[context] < 0 {
                zoneOf[context] = zones.index(of: columns.contextTable[context].zone.identifier)
                deviceOf[context] = devices.index(of: columns.contextTable[context].device)
            }
            zones.add(position: zoneOf[context])
            devices.add(position: deviceOf[context])
            if !deletedColumn.isEmpty && deletedColumn[index] { deleted.append(index) }
        }
    }

    /// Adds the entry at `index` through its accessors: for entries kept whole.
    private mutating func add(_ history: CheckInHistory, at index: Int) {
        let day = Int64(history.day(at: index).daysSince1970)
        if index > 0 { gaps.append(UInt64(day - Int64(history.day(at: index - 1).daysSince1970))) }
        let log = history.log(at: index)
        let type = UInt64(log.typeNumber)
        types.append(type)
        if let number = log.wireNumber { numbers.append(zigzag(number)) }
        if case .items(let items) = log {
            itemRefs.append(UInt64(items.count))
            for item in items.sorted() { itemRefs.append(UInt64(itemTable.index(of: item))) }
        }
        let first = history.firstRecordedAt(at: index).millisecondsSince1970
        let last = history.lastRecordedAt(at: index).millisecondsSince1970
        let (whole, fraction) = Instant.floorDivide(first, 1000)
        let secondsOfDay = whole - day * 86_400
        seconds.append(zigzag(secondsOfDay - previous))
        anySeconds = anySeconds || secondsOfDay != previous
        previous = secondsOfDay
        millis.append(UInt64(fraction))
        lastAfterFirst.append(UInt64(last - first))
        let modified = history.modifiedAt(at: index).millisecondsSince1970 - last
        modifiedAfterLast.append(zigzag(modified))
        zones.add(history.timeZone(at: index).identifier)
        devices.add(history.deviceID(at: index))
        if history.isDeleted(at: index) { deleted.append(index) }
        if let checkIn = history.wholeCheckIn(at: index) {
            self.whole.append(index)
            if let note = checkIn.note { noted.append((index, note)) }
            if !checkIn.unknownFields.isEmpty { extra.append((index, checkIn.unknownFields.bytes)) }
        }
    }

    /// Fields 4 ... 21, in number order.
    func write(_ history: CheckInHistory, to writer: inout WireWriter) {
        writer.packed(4, gaps)
        // Logs (WIRE-21).
        writer.packed(5, types.values)
        writer.packed(6, numbers)
        for item in itemTable.values { writer.presentBytes(7, item.bytes) }
        writer.packed(8, itemRefs)
        // When: seconds after the Day's UTC midnight, delta-coded (WIRE-22).
        if anySeconds { writer.packed(9, seconds) }
        writer.packed(10, millis.values)
        writer.packed(11, lastAfterFirst.values)
        writer.packed(12, modifiedAfterLast.values)
        for zone in zones.values { writer.presentString(13, zone) }
        if zones.anyBeyondFirst { writer.packed(14, zones.refs) }
        for device in devices.values { writer.presentBytes(15, device.bytes) }
        if devices.anyBeyondFirst { writer.packed(16, devices.refs) }
        // Sparse columns (WIRE-23).
        writer.packed(17, CheckInBlock.gaps(deleted))
        writer.packed(18, CheckInBlock.gaps(noted.map(\.index)))
        for entry in noted { writer.presentString(19, entry.note) }
        writer.packed(20, CheckInBlock.gaps(extra.map(\.index)))
        for entry in extra { writer.presentBytes(21, entry.bytes) }
    }
}
