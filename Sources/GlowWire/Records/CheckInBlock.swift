import GlowModel

/// All check-ins of one goal, carried as delta-coded columns rather than one message each, so a
/// daily habit kept for years costs a few bytes per Day (WIRE-20 ... WIRE-24).
public struct CheckInBlock: Hashable, Sendable {
    /// The goal the check-ins belong to.
    public let goalID: GoalID
    /// The check-ins, in ascending Day order, one per Day.
    public let checkIns: [CheckIn]
    /// Fields of the block message this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    /// A block of `checkIns`, sorted by Day.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when a check-in belongs to another goal or two
    ///   share a Day.
    public init(goalID: GoalID, checkIns: [CheckIn]) throws(ModelError) {
        // Blocks read from the wire are in order already; sorting a copy would cost a copy of each.
        // Fields are read in place, by index: check-ins are large values.
        var inOrder = true
        for index in checkIns.indices.dropFirst() where checkIns[index - 1].day > checkIns[index].day {
            inOrder = false
            break
        }
        let sorted = inOrder ? checkIns : checkIns.sorted { $0.day < $1.day }
        for index in sorted.indices {
            guard sorted[index].goalID == goalID else {
                throw ModelError(
                    .invalidCheckIn, "a check-in of goal \(sorted[index].goalID) is in the block of \(goalID)")
            }
            if index > 0, sorted[index - 1].day == sorted[index].day {
                throw ModelError(
                    .invalidCheckIn, "two check-ins of goal \(goalID) share the Day \(sorted[index].day)",
                    rule: "MODEL-33")
            }
        }
        self.goalID = goalID
        self.checkIns = sorted
    }
}

extension CheckInBlock: WireRecord {
    private static let dayMilliseconds: Int64 = 86_400_000

    package func encodeFields(to writer: inout WireWriter) {
        writer.bytes(1, goalID.bytes)
        writer.uint(2, UInt64(checkIns.count))
        guard let first = checkIns.first else {
            writer.raw(unknownFields.bytes)
            return
        }
        writer.sint(3, Int64(first.day.daysSince1970))
        // One pass by index gathers every column (check-ins are large values; iterating them by
        // value would copy each).
        let count = checkIns.count
        func column() -> [UInt64] {
            var values: [UInt64] = []
            values.reserveCapacity(count)
            return values
        }
        var gaps = column()
        var types = column()
        var numbers: [UInt64] = []
        var seconds = column()
        var millis = column()
        var lastAfterFirst = column()
        var modifiedAfterLast = column()
        var anyType = false
        var anyMillis = false
        var anyLast = false
        var anyModified = false
        var itemTable: [SubgoalItemID] = []
        var itemIndex: [SubgoalItemID: Int] = [:]
        var itemRefs: [UInt64] = []
        var zones = TableBuilder<String>()
        var devices = TableBuilder<DeviceID>()
        var previous: Int64 = 0
        for index in 0..<count {
            let day = Int64(checkIns[index].day.daysSince1970)
            if index > 0 { gaps.append(UInt64(day - Int64(checkIns[index - 1].day.daysSince1970))) }
            let log = checkIns[index].log
            let type = UInt64(log.wireType)
            anyType = anyType || type != 0
            types.append(type)
            if let number = log.wireNumber { numbers.append(zigzag(number)) }
            if case .items(let items) = log {
                itemRefs.append(UInt64(items.count))
                for item in items.sorted() {
                    if itemIndex[item] == nil {
                        itemIndex[item] = itemTable.count
                        itemTable.append(item)
                    }
                    itemRefs.append(UInt64(itemIndex[item]!))
                }
            }
            let first = checkIns[index].firstRecordedAt.millisecondsSince1970
            let last = checkIns[index].lastRecordedAt.millisecondsSince1970
            let (whole, fraction) = Instant.floorDivide(first, 1000)
            let secondsOfDay = whole - day * 86_400
            seconds.append(zigzag(secondsOfDay - previous))
            previous = secondsOfDay
            millis.append(UInt64(fraction))
            anyMillis = anyMillis || fraction != 0
            lastAfterFirst.append(UInt64(last - first))
            anyLast = anyLast || last != first
            let modified = checkIns[index].modifiedAt.millisecondsSince1970 - last
            modifiedAfterLast.append(zigzag(modified))
            anyModified = anyModified || modified != 0
            zones.add(checkIns[index].timeZone.identifier)
            devices.add(checkIns[index].deviceID)
        }
        writer.packed(4, gaps) { $0 }
        // Logs (WIRE-21).
        if anyType { writer.packed(5, types) { $0 } }
        writer.packed(6, numbers) { $0 }
        for item in itemTable { writer.presentBytes(7, item.bytes) }
        writer.packed(8, itemRefs) { $0 }
        // When: seconds after the Day's UTC midnight, delta-coded; per-entry columns only when
        // some entry differs from the default (WIRE-22).
        writer.packed(9, seconds) { $0 }
        if anyMillis { writer.packed(10, millis) { $0 } }
        if anyLast { writer.packed(11, lastAfterFirst) { $0 } }
        if anyModified { writer.packed(12, modifiedAfterLast) { $0 } }
        for zone in zones.values { writer.presentString(13, zone) }
        if zones.anyBeyondFirst { writer.packed(14, zones.refs) { $0 } }
        for device in devices.values { writer.presentBytes(15, device.bytes) }
        if devices.anyBeyondFirst { writer.packed(16, devices.refs) { $0 } }
        // Sparse columns (WIRE-23).
        writer.packed(17, Self.gaps(checkIns.indices.filter { checkIns[$0].deleted })) { $0 }
        let noted = checkIns.indices.filter { checkIns[$0].note != nil }
        writer.packed(18, Self.gaps(noted)) { $0 }
        for index in noted { writer.presentString(19, checkIns[index].note!) }
        let extra = checkIns.indices.filter { !checkIns[$0].unknownFields.isEmpty }
        writer.packed(20, Self.gaps(extra)) { $0 }
        for index in extra { writer.presentBytes(21, checkIns[index].unknownFields.bytes) }
        writer.raw(unknownFields.bytes)
    }

    /// Indexes as a first index and then the gaps between them.
    private static func gaps(_ indexes: [Int]) -> [UInt64] {
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

    mutating func add(_ value: Value) {
        if last < 0 || values[last] != value {
            if let known = index[value] {
                last = known
            } else {
                last = values.count
                index[value] = last
                values.append(value)
            }
        }
        anyBeyondFirst = anyBeyondFirst || last != 0
        refs.append(UInt64(last))
    }
}

extension CheckInLog {
    /// The LogType number (glow.proto).
    var wireType: Int {
        switch self {
        case .done: 0
        case .skip: 1
        case .amount: 2
        case .tally: 3
        case .items: 4
        case .value: 5
        }
    }

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
}
