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
        let sorted = checkIns.sorted { $0.day < $1.day }
        for (index, checkIn) in sorted.enumerated() {
            guard checkIn.goalID == goalID else {
                throw ModelError(.invalidCheckIn, "a check-in of goal \(checkIn.goalID) is in the block of \(goalID)")
            }
            if index > 0, sorted[index - 1].day == checkIn.day {
                throw ModelError(
                    .invalidCheckIn, "two check-ins of goal \(goalID) share the Day \(checkIn.day)", rule: "MODEL-33")
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
        writer.packed(4, checkIns.indices.dropFirst()) {
            UInt64(checkIns[$0].day.daysSince1970 - checkIns[$0 - 1].day.daysSince1970)
        }
        // Logs (WIRE-21).
        if checkIns.contains(where: { $0.log != .done }) {
            writer.packed(5, checkIns) { UInt64($0.log.wireType) }
        }
        writer.packed(6, checkIns.compactMap(\.log.wireNumber)) { zigzag($0) }
        var itemTable: [SubgoalItemID] = []
        var itemIndex: [SubgoalItemID: Int] = [:]
        var itemRefs: [UInt64] = []
        for checkIn in checkIns {
            guard case .items(let items) = checkIn.log else { continue }
            itemRefs.append(UInt64(items.count))
            for item in items.sorted() {
                if itemIndex[item] == nil {
                    itemIndex[item] = itemTable.count
                    itemTable.append(item)
                }
                itemRefs.append(UInt64(itemIndex[item]!))
            }
        }
        for item in itemTable { writer.presentBytes(7, item.bytes) }
        writer.packed(8, itemRefs) { $0 }
        // When: seconds after the Day's UTC midnight, delta-coded; sparse columns for the rest (WIRE-22).
        var previous: Int64 = 0
        writer.packed(9, checkIns) { checkIn in
            let seconds =
                Instant.floorDivide(checkIn.firstRecordedAt.millisecondsSince1970, 1000).quotient
                - Int64(checkIn.day.daysSince1970) * 86_400
            defer { previous = seconds }
            return zigzag(seconds - previous)
        }
        let millis = checkIns.map {
            UInt64(Instant.floorDivide($0.firstRecordedAt.millisecondsSince1970, 1000).remainder)
        }
        if millis.contains(where: { $0 != 0 }) { writer.packed(10, millis) { $0 } }
        let lastAfterFirst = checkIns.map {
            UInt64($0.lastRecordedAt.millisecondsSince1970 - $0.firstRecordedAt.millisecondsSince1970)
        }
        if lastAfterFirst.contains(where: { $0 != 0 }) { writer.packed(11, lastAfterFirst) { $0 } }
        let modifiedAfterLast = checkIns.map {
            $0.modifiedAt.millisecondsSince1970 - $0.lastRecordedAt.millisecondsSince1970
        }
        if modifiedAfterLast.contains(where: { $0 != 0 }) { writer.packed(12, modifiedAfterLast) { zigzag($0) } }
        Self.table(13, 14, checkIns.map(\.timeZone.identifier), to: &writer) { w, field, zone in
            w.presentString(field, zone)
        }
        Self.table(15, 16, checkIns.map(\.deviceID), to: &writer) { w, field, device in
            w.presentBytes(field, device.bytes)
        }
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

    /// Writes a table of distinct values in order of first use, and per-entry references when any
    /// entry uses more than the first.
    private static func table<T: Hashable>(
        _ tableField: UInt32, _ refsField: UInt32, _ values: [T], to writer: inout WireWriter,
        _ write: (inout WireWriter, UInt32, T) -> Void
    ) {
        var index: [T: Int] = [:]
        var refs: [UInt64] = []
        refs.reserveCapacity(values.count)
        for value in values {
            if index[value] == nil {
                index[value] = index.count
                write(&writer, tableField, value)
            }
            refs.append(UInt64(index[value]!))
        }
        if refs.contains(where: { $0 != 0 }) { writer.packed(refsField, refs) { $0 } }
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
