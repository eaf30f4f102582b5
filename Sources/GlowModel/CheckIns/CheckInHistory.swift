import GlowCore

/// One goal's check-ins in ascending Day order, one per Day, kept as parallel columns the way
/// bundles carry them: a few bytes per Day rather than a ``CheckIn`` value each.
///
/// A history is a random-access collection of ``CheckIn``: an element is built when it is asked
/// for. Streak evaluation, Today and Overview read the columns through ``day(at:)``,
/// ``isDeleted(at:)`` and ``log(at:)`` and build no check-in at all.
///
/// Most check-ins are one tap by one device, recorded within weeks of their Day, with no note:
/// those live only in the columns (Day, log type, number, first instant as milliseconds after the
/// Day's UTC midnight, span to the last instant, modification delta, and a shared (zone, device)
/// table). The rare others (notes, several taps, unknown fields, far instants) are kept whole in
/// a sparse table keyed by Day, beside their Day and log type in the columns.
public struct CheckInHistory: Sendable {
    /// The goal.
    public let goalID: GoalID

    /// Each entry's `Day.daysSince1970`.
    var dayNumbers: [Int32] = []
    /// Each entry's log type (bits 0 ... 2), undone (bit 3) and kept-whole (bit 4) marks.
    @usableFromInline var flags: [UInt8] = []
    /// Each entry's number: thousandths of an amount or value, a tally count, or an index into
    /// ``itemSets``.
    @usableFromInline var numbers = ZeroDefaultColumn<Int32>()
    /// The first recorded instant minus the Day's UTC midnight, in milliseconds.
    var firstOffsets = ZeroDefaultColumn<Int32>()
    /// The last recorded instant minus the first, in milliseconds.
    var spans = ZeroDefaultColumn<UInt32>()
    /// `modifiedAt` minus the last recorded instant, in milliseconds.
    var modifiedDeltas = ZeroDefaultColumn<Int32>()
    /// An index into ``contextTable``.
    var contexts = ZeroDefaultColumn<UInt16>()
    /// The distinct (time zone, device) pairs, in order of first use.
    var contextTable: [Context] = []
    var contextLookup: [Context: UInt16] = [:]
    /// The context the last entry added used: consecutive entries usually share one.
    private var lastContext: UInt16 = 0
    /// The distinct checked-item sets, in order of first use.
    @usableFromInline var itemSets: [Set<SubgoalItemID>] = []
    var itemSetLookup: [Set<SubgoalItemID>: Int32] = [:]
    /// The check-ins kept whole, by `Day.daysSince1970`.
    private var whole: [Int32: CheckIn] = [:]

    // The flag bits: the log type (bits 0 ... 2, glow.proto's LogType), undone, kept whole.
    @usableFromInline static let typeMask: UInt8 = 0b111
    static let deletedBit: UInt8 = 1 << 3
    @usableFromInline static let wholeBit: UInt8 = 1 << 4
    private static let dayMilliseconds: Int64 = 86_400_000

    /// A (time zone, device) pair: the context of entries kept in columns.
    public struct Context: Hashable, Sendable {
        /// The time zone in force.
        public var zone: TimeZoneID
        /// The device that recorded the entry.
        public var device: DeviceID

        /// The pair of `zone` and `device`.
        public init(zone: TimeZoneID, device: DeviceID) {
            self.zone = zone
            self.device = device
        }
    }

    /// An empty history of `goalID`.
    public init(goalID: GoalID) {
        self.goalID = goalID
    }

    /// A history of `checkIns`, in any order.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` when a check-in belongs to another goal or two
    ///   share a Day.
    public init(goalID: GoalID, checkIns: some Sequence<CheckIn>) throws(ModelError) {
        self.init(goalID: goalID)
        var list = Array(checkIns)
        var inOrder = true
        for index in list.indices.dropFirst() where list[index - 1].day > list[index].day {
            inOrder = false
            break
        }
        if !inOrder { list.sort { $0.day < $1.day } }
        reserveCapacity(list.count)
        for index in list.indices {
            guard list[index].goalID == goalID else {
                throw ModelError(
                    .invalidCheckIn, "a check-in of goal \(list[index].goalID) is in the history of \(goalID)")
            }
            if index > 0, list[index - 1].day == list[index].day {
                throw ModelError(
                    .invalidCheckIn, "two check-ins of goal \(goalID) share the Day \(list[index].day)",
                    rule: "MODEL-33")
            }
            appendUnchecked(list[index])
        }
    }

    /// Reserves room for `capacity` entries in every per-entry column in use.
    public mutating func reserveCapacity(_ capacity: Int) {
        dayNumbers.reserveCapacity(capacity)
        flags.reserveCapacity(capacity)
    }

    // MARK: - Reading the columns

    /// The Day of the entry at `index`.
    public func day(at index: Int) -> Day { Day(unchecked: Int(dayNumbers[index])) }

    /// Whether the entry at `index` is undone (MODEL-36).
    public func isDeleted(at index: Int) -> Bool { flags[index] & Self.deletedBit != 0 }

    /// The log of the entry at `index`, built from the columns.
    public func log(at index: Int) -> CheckInLog {
        let flag = flags[index]
        if flag & Self.wholeBit != 0 { return keptWhole(index).log }
        let number = numbers[index]
        switch flag & Self.typeMask {
        case 0: return .done
        case 1: return .skip
        case 2: return .amount(Amount(uncheckedThousandths: Int64(number)))
        case 3: return .tally(Int(UInt32(bitPattern: number)))
        case 4: return .items(itemSets[Int(number)])
        default: return .value(Amount(uncheckedThousandths: Int64(number)))
        }
    }

    /// The first recorded instant of the entry at `index`.
    public func firstRecordedAt(at index: Int) -> Instant {
        if let checkIn = wholeCheckIn(at: index) { return checkIn.firstRecordedAt }
        return Instant(unchecked: Int64(dayNumbers[index]) * Self.dayMilliseconds + Int64(firstOffsets[index]))
    }

    /// The last recorded instant of the entry at `index`.
    public func lastRecordedAt(at index: Int) -> Instant {
        if let checkIn = wholeCheckIn(at: index) { return checkIn.lastRecordedAt }
        return Instant(unchecked: firstRecordedAt(at: index).millisecondsSince1970 + Int64(spans[index]))
    }

    /// When the entry at `index` last changed.
    public func modifiedAt(at index: Int) -> Instant {
        if let checkIn = wholeCheckIn(at: index) { return checkIn.modifiedAt }
        return Instant(unchecked: lastRecordedAt(at: index).millisecondsSince1970 + Int64(modifiedDeltas[index]))
    }

    /// The time zone of the entry at `index`.
    public func timeZone(at index: Int) -> TimeZoneID {
        wholeCheckIn(at: index)?.timeZone ?? contextTable[Int(contexts[index])].zone
    }

    /// The device of the entry at `index`.
    public func deviceID(at index: Int) -> DeviceID {
        wholeCheckIn(at: index)?.deviceID ?? contextTable[Int(contexts[index])].device
    }

    /// The check-in at `index` when it is kept whole (it has a note, several taps, unknown fields
    /// or instants far from its Day); nil when it lives in the columns alone.
    public func wholeCheckIn(at index: Int) -> CheckIn? {
        flags[index] & Self.wholeBit != 0 ? keptWhole(index) : nil
    }

    /// The check-in kept whole for the entry at `index`, which its flag marks as kept whole.
    private func keptWhole(_ index: Int) -> CheckIn {
        guard let checkIn = whole[dayNumbers[index]] else {
            // Every writer of the whole bit stores the check-in in the same step (row(for:)).
            preconditionFailure("entry \(index) is marked kept whole, but no check-in is kept for its Day")
        }
        return checkIn
    }

    /// The index of the first entry on or after `day`; `endIndex` when there is none.
    public func firstIndex(atOrAfter day: Day) -> Int {
        let target = day.daysSince1970
        if let last = dayNumbers.last, Int(last) < target { return dayNumbers.count }
        return dayNumbers.partitioningIndex { Int($0) >= target }
    }

    /// The index of the entry on `day`, if there is one.
    public func index(of day: Day) -> Int? {
        let index = firstIndex(atOrAfter: day)
        return index < dayNumbers.count && Int(dayNumbers[index]) == day.daysSince1970 ? index : nil
    }

    /// The check-in on `day`, if there is one.
    public func checkIn(on day: Day) -> CheckIn? { index(of: day).map { self[$0] } }

    /// The Days of the entries, in order.
    public var days: [Day] { dayNumbers.map { Day(unchecked: Int($0)) } }

    /// How many entries are kept whole rather than only in columns (notes, several taps, unknown
    /// fields, instants far from their Day): for tests and memory accounting.
    public var wholeCount: Int { whole.count }

    /// The bytes the columns and tables hold, not counting the check-ins kept whole: what the
    /// history costs beyond its rare whole entries.
    public var columnBytes: Int {
        dayNumbers.capacity * 4 + flags.capacity + numbers.byteCount + firstOffsets.byteCount + spans.byteCount
            + modifiedDeltas.byteCount + contexts.byteCount + contextTable.count * MemoryLayout<Context>.stride
    }

    // MARK: - Changing entries

    /// Sets the check-in of its Day: replaces the Day's entry or inserts a new one in Day order.
    ///
    /// - Returns: whether a new entry was added (false: one was replaced).
    /// - Precondition: the check-in belongs to ``goalID``.
    /// - Complexity: O(1) amortised for a Day after the last; O(n) for an earlier one.
    @discardableResult
    package mutating func set(_ checkIn: CheckIn) -> Bool {
        precondition(checkIn.goalID == goalID, "a check-in of another goal")
        let position = firstIndex(atOrAfter: checkIn.day)
        if position < dayNumbers.count, Int(dayNumbers[position]) == checkIn.day.daysSince1970 {
            replace(at: position, with: checkIn)
            return false
        }
        insert(checkIn, at: position)
        return true
    }

    /// Appends a check-in whose Day is after the last entry's.
    package mutating func appendUnchecked(_ checkIn: CheckIn) {
        insert(checkIn, at: dayNumbers.count)
    }

    /// Appends the entry at `index` of `other` (a history of the same goal) without building a
    /// check-in when it lives in columns.
    package mutating func append(entryAt index: Int, of other: CheckInHistory) {
        let flag = other.flags[index]
        if flag & Self.wholeBit != 0 {
            appendUnchecked(other.keptWhole(index))
            return
        }
        var number = other.numbers[index]
        if flag & Self.typeMask == 4 { number = itemSetIndex(other.itemSets[Int(number)]) }
        let context = other.contextTable[Int(other.contexts[index])]
        guard let contextIndex = contextIndex(context) else {
            appendUnchecked(other[index])
            return
        }
        let row = Row(
            day: other.dayNumbers[index], flag: flag, number: number, firstOffset: other.firstOffsets[index],
            span: other.spans[index], modifiedDelta: other.modifiedDeltas[index], context: contextIndex)
        insert(row, at: dayNumbers.count)
    }

    /// Replaces the entry at `index` with a check-in of the same Day.
    package mutating func replace(at index: Int, with checkIn: CheckIn) {
        precondition(Int(dayNumbers[index]) == checkIn.day.daysSince1970, "a check-in of another Day")
        whole[dayNumbers[index]] = nil
        let row = row(for: checkIn)
        let count = dayNumbers.count
        numbers.set(row.number, at: index, count: count)
        firstOffsets.set(row.firstOffset, at: index, count: count)
        spans.set(row.span, at: index, count: count)
        modifiedDeltas.set(row.modifiedDelta, at: index, count: count)
        contexts.set(row.context, at: index, count: count)
        flags[index] = row.flag
    }

    private mutating func insert(_ checkIn: CheckIn, at index: Int) {
        insert(row(for: checkIn), at: index)
    }

    private mutating func insert(_ row: Row, at index: Int) {
        let count = dayNumbers.count
        numbers.insert(row.number, at: index, count: count)
        firstOffsets.insert(row.firstOffset, at: index, count: count)
        spans.insert(row.span, at: index, count: count)
        modifiedDeltas.insert(row.modifiedDelta, at: index, count: count)
        contexts.insert(row.context, at: index, count: count)
        if index == count {
            dayNumbers.append(row.day)
            flags.append(row.flag)
        } else {
            dayNumbers.insert(row.day, at: index)
            flags.insert(row.flag, at: index)
        }
    }

    // MARK: - Rows

    /// One entry's column values.
    private struct Row {
        var day: Int32
        var flag: UInt8
        var number: Int32 = 0
        var firstOffset: Int32 = 0
        var span: UInt32 = 0
        var modifiedDelta: Int32 = 0
        var context: UInt16 = 0
    }

    /// The row of `checkIn`: in columns when it fits them, otherwise kept whole.
    private mutating func row(for checkIn: CheckIn) -> Row {
        if checkIn.isPlain,
            let row = row(
                day: checkIn.day, log: checkIn.log, first: checkIn.firstRecordedAt, last: checkIn.lastRecordedAt,
                modified: checkIn.modifiedAt, context: Context(zone: checkIn.timeZone, device: checkIn.deviceID),
                deleted: checkIn.deleted)
        {
            return row
        }
        let day = Int32(checkIn.day.daysSince1970)
        whole[day] = checkIn
        return Row(
            day: day, flag: UInt8(checkIn.log.typeNumber) | (checkIn.deleted ? Self.deletedBit : 0) | Self.wholeBit)
    }

    /// The row of a plain entry, or nil when a value does not fit its column.
    private mutating func row(
        day: Day, log: CheckInLog, first: Instant, last: Instant, modified: Instant, context: Context, deleted: Bool
    ) -> Row? {
        let midnight = Int64(day.daysSince1970) * Self.dayMilliseconds
        guard let firstOffset = Int32(exactly: first.millisecondsSince1970 - midnight),
            let span = UInt32(exactly: last.millisecondsSince1970 - first.millisecondsSince1970),
            let modifiedDelta = Int32(exactly: modified.millisecondsSince1970 - last.millisecondsSince1970)
        else { return nil }
        let number: Int32
        switch log {
        case .done, .skip: number = 0
        case .amount(let amount), .value(let amount):
            guard let fits = Int32(exactly: amount.thousandths) else { return nil }
            number = fits
        case .tally(let count):
            guard let fits = UInt32(exactly: count) else { return nil }
            number = Int32(bitPattern: fits)
        case .items(let items): number = itemSetIndex(items)
        }
        guard let contextIndex = contextIndex(context) else { return nil }
        return Row(
            day: Int32(day.daysSince1970), flag: UInt8(log.typeNumber) | (deleted ? Self.deletedBit : 0),
            number: number, firstOffset: firstOffset, span: span, modifiedDelta: modifiedDelta,
            context: contextIndex)
    }

    /// The index of `context` in the table, added when new; nil when the table is full.
    private mutating func contextIndex(_ context: Context) -> UInt16? {
        // Runs of entries share a context: the last one used is checked before hashing.
        if Int(lastContext) < contextTable.count, contextTable[Int(lastContext)] == context { return lastContext }
        if let known = contextLookup[context] {
            lastContext = known
            return known
        }
        guard contextTable.count <= Int(UInt16.max) else { return nil }
        let index = UInt16(contextTable.count)
        contextTable.append(context)
        contextLookup[context] = index
        lastContext = index
        return index
    }

    /// Whether the entry at `index` and the entry at `otherIndex` of `other` hold the same values,
    /// compared in the columns: a cheap test that spares building and merging two check-ins when
    /// both sides already agree. False when either is kept whole.
    package func sameColumns(at index: Int, as other: CheckInHistory, at otherIndex: Int) -> Bool {
        let flag = flags[index]
        guard flag & Self.wholeBit == 0, flag == other.flags[otherIndex],
            dayNumbers[index] == other.dayNumbers[otherIndex], firstOffsets[index] == other.firstOffsets[otherIndex],
            spans[index] == other.spans[otherIndex], modifiedDeltas[index] == other.modifiedDeltas[otherIndex],
            contextTable[Int(contexts[index])] == other.contextTable[Int(other.contexts[otherIndex])]
        else { return false }
        if flag & Self.typeMask == 4 {
            return itemSets[Int(numbers[index])] == other.itemSets[Int(other.numbers[otherIndex])]
        }
        return numbers[index] == other.numbers[otherIndex]
    }

    /// The index of `items` in the table of item sets, added when new.
    private mutating func itemSetIndex(_ items: Set<SubgoalItemID>) -> Int32 {
        if let last = itemSets.last, last == items { return Int32(itemSets.count - 1) }
        if let known = itemSetLookup[items] { return known }
        // Each entry adds at most one set, and a history holds far fewer than 2^31 entries.
        let index = Int32(itemSets.count)
        itemSets.append(items)
        itemSetLookup[items] = index
        return index
    }
}

// MARK: - Collection

extension CheckInHistory: RandomAccessCollection {
    /// The first entry's index, 0.
    public var startIndex: Int { 0 }
    /// One past the last entry's index: the number of entries.
    public var endIndex: Int { dayNumbers.count }

    /// The check-in at `position`, built from the columns (or the one kept whole).
    public subscript(position: Int) -> CheckIn {
        let flag = flags[position]
        let dayNumber = dayNumbers[position]
        if flag & Self.wholeBit != 0 { return keptWhole(position) }
        let first = Int64(dayNumber) * Self.dayMilliseconds + Int64(firstOffsets[position])
        let last = first + Int64(spans[position])
        let modified = last + Int64(modifiedDeltas[position])
        let context = contextTable[Int(contexts[position])]
        // Every value was taken from a valid check-in (MODEL-36) and is rebuilt exactly.
        return CheckIn(
            validGoalID: goalID, day: Day(unchecked: Int(dayNumber)), log: log(at: position),
            firstRecordedAt: Instant(unchecked: first), lastRecordedAt: Instant(unchecked: last),
            timeZone: context.zone, deviceID: context.device, note: nil, modifiedAt: Instant(unchecked: modified),
            deleted: flag & Self.deletedBit != 0, unknownFields: UnknownFields())
    }
}

// MARK: - Equality

extension CheckInHistory: Hashable {
    /// Two histories are equal when they hold equal check-ins, however their columns are laid out.
    public static func == (lhs: CheckInHistory, rhs: CheckInHistory) -> Bool {
        guard lhs.goalID == rhs.goalID, lhs.dayNumbers == rhs.dayNumbers else { return false }
        if lhs.flags == rhs.flags, lhs.numbers == rhs.numbers, lhs.firstOffsets == rhs.firstOffsets,
            lhs.spans == rhs.spans, lhs.modifiedDeltas == rhs.modifiedDeltas, lhs.contexts == rhs.contexts,
            lhs.contextTable == rhs.contextTable, lhs.itemSets == rhs.itemSets, lhs.whole == rhs.whole
        {
            return true
        }
        return lhs.elementsEqual(rhs)
    }

    /// Hashes the goal and the Days, which equal histories share.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(goalID)
        hasher.combine(dayNumbers)
    }
}

/// A column of integers in which 0 is so common that a column of only zeros is kept empty.
@usableFromInline
struct ZeroDefaultColumn<Value: FixedWidthInteger & Sendable>: Equatable, Sendable {
    /// Empty when every value is 0; otherwise one value per entry.
    @usableFromInline private(set) var values: [Value] = []

    /// A column of these values: one per entry, or none when every value is 0.
    init(_ values: [Value] = []) {
        self.values = values.contains { $0 != 0 } ? values : []
    }

    @inlinable subscript(index: Int) -> Value { values.isEmpty ? 0 : values[index] }

    /// The bytes the column holds.
    var byteCount: Int { values.capacity * MemoryLayout<Value>.stride }

    /// Inserts `value` at `index` of a column of `count` entries.
    mutating func insert(_ value: Value, at index: Int, count: Int) {
        if values.isEmpty {
            guard value != 0 else { return }
            values = Array(repeating: 0, count: count)
        }
        if index == values.count { values.append(value) } else { values.insert(value, at: index) }
    }

    /// Sets the value at `index`, of a column of `count` entries.
    mutating func set(_ value: Value, at index: Int, count: Int) {
        if values.isEmpty {
            guard value != 0 else { return }
            values = Array(repeating: 0, count: count)
        }
        values[index] = value
    }

    @usableFromInline static func == (lhs: Self, rhs: Self) -> Bool {
        if lhs.values.isEmpty || rhs.values.isEmpty {
            return lhs.values.allSatisfy { $0 == 0 } && rhs.values.allSatisfy { $0 == 0 }
        }
        return lhs.values == rhs.values
    }
}

extension CheckInLog {
    /// The log's type number, as `glow.proto`'s LogType numbers it.
    package var typeNumber: Int {
        switch self {
        case .done: 0
        case .skip: 1
        case .amount: 2
        case .tally: 3
        case .items: 4
        case .value: 5
        }
    }
}
