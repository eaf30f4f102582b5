extension CheckInHistory {
    /// A history's columns as a columnar block lays them out (`Spec/wire.md`, WIRE-20 ...
    /// WIRE-24): one value per entry in each column, tables that entries refer to by index. A
    /// column of integers may be empty when every value in it is 0.
    ///
    /// This is how a reader hands a history its entries without building a ``CheckIn`` each, and
    /// how a writer reads them back; ``CheckInHistory/init(goalID:columns:)`` checks every value.
    public struct Columns: Hashable, Sendable {
        /// Each entry's Day as `Day.daysSince1970`, ascending, one entry per Day.
        public var days: [Int32]
        /// Each entry's log type, as `glow.proto`'s LogType numbers it: 0 done, 1 skip, 2 amount,
        /// 3 tally, 4 items, 5 value.
        public var logTypes: [UInt8]
        /// Whether each entry is undone (MODEL-36); empty when none is.
        public var deleted: [Bool]
        /// Each entry's number: thousandths of an amount or value, a tally's count as the bits of
        /// a `UInt32`, an index into ``itemSets``; 0 for done and skip.
        public var numbers: [Int32]
        /// The first recorded instant minus the Day's UTC midnight, in milliseconds.
        public var firstOffsets: [Int32]
        /// The last recorded instant minus the first, in milliseconds.
        public var spans: [UInt32]
        /// `modifiedAt` minus the last recorded instant, in milliseconds.
        public var modifiedDeltas: [Int32]
        /// An index into ``contextTable``.
        public var contexts: [UInt16]
        /// The distinct (time zone, device) pairs.
        public var contextTable: [Context]
        /// The distinct sets of checked items.
        public var itemSets: [Set<SubgoalItemID>]

        /// Columns of the given values.
        public init(
            days: [Int32], logTypes: [UInt8], deleted: [Bool] = [], numbers: [Int32] = [], firstOffsets: [Int32] = [],
            spans: [UInt32] = [], modifiedDeltas: [Int32] = [], contexts: [UInt16] = [], contextTable: [Context],
            itemSets: [Set<SubgoalItemID>] = []
        ) {
            self.days = days
            self.logTypes = logTypes
            self.deleted = deleted
            self.numbers = numbers
            self.firstOffsets = firstOffsets
            self.spans = spans
            self.modifiedDeltas = modifiedDeltas
            self.contexts = contexts
            self.contextTable = contextTable
            self.itemSets = itemSets
        }
    }

    /// A history of `goalID` whose entries are `columns`, each value checked.
    ///
    /// - Throws: ``ModelError/Code/invalidCheckIn`` naming the entry and the column: a column of
    ///   another length, Days out of order or outside the supported years (MODEL-33), an unknown
    ///   log type, a number its log type cannot hold, a reference beyond its table, or an instant
    ///   outside years 1 ... 9999 (MODEL-36).
    public init(goalID: GoalID, columns: Columns) throws(ModelError) {
        let flags = try Self.check(columns, of: goalID)
        self.init(goalID: goalID)
        dayNumbers = columns.days
        self.flags = flags
        numbers = ZeroDefaultColumn(columns.numbers)
        firstOffsets = ZeroDefaultColumn(columns.firstOffsets)
        spans = ZeroDefaultColumn(columns.spans)
        modifiedDeltas = ZeroDefaultColumn(columns.modifiedDeltas)
        contexts = ZeroDefaultColumn(columns.contexts)
        contextTable = columns.contextTable
        itemSets = columns.itemSets
        for (index, context) in contextTable.enumerated() where contextLookup[context] == nil {
            contextLookup[context] = UInt16(index)
        }
        for (index, items) in itemSets.enumerated() where itemSetLookup[items] == nil {
            itemSetLookup[items] = Int32(index)
        }
    }

    /// Checks every value of `columns` (see ``init(goalID:columns:)``) in one pass, and returns
    /// each entry's flag (log type and undone mark).
    private static func check(_ columns: Columns, of goalID: GoalID) throws(ModelError) -> [UInt8] {
        let count = columns.days.count
        func fail(_ message: String, rule: String = "MODEL-36") -> ModelError {
            ModelError(.invalidCheckIn, "the check-ins of goal \(goalID): \(message)", rule: rule)
        }
        func length(_ name: String, _ values: Int, optional: Bool = true) throws(ModelError) {
            guard values == count || (optional && values == 0) else {
                throw fail("\(name) has \(values) values for \(count) entries")
            }
        }
        try length("logTypes", columns.logTypes.count, optional: false)
        try length("deleted", columns.deleted.count)
        try length("numbers", columns.numbers.count)
        try length("firstOffsets", columns.firstOffsets.count)
        try length("spans", columns.spans.count)
        try length("modifiedDeltas", columns.modifiedDeltas.count)
        try length("contexts", columns.contexts.count)
        guard count == 0 || !columns.contextTable.isEmpty else { throw fail("entries without a context table") }
        let (days, types, deleted, numbers) = (columns.days, columns.logTypes, columns.deleted, columns.numbers)
        let (first, last) = (Int64(Day.min.daysSince1970), Int64(Day.max.daysSince1970))
        // Instants are checked near the ends of the supported years only: every column is 32 bits
        // (under 50 Days of milliseconds), and Instant's range is exactly Day's.
        let margin: Int64 = 100
        let instants = Instant.min.millisecondsSince1970...Instant.max.millisecondsSince1970
        let (itemSetCount, contextCount) = (columns.itemSets.count, columns.contextTable.count)
        var flags = [UInt8](repeating: 0, count: count)
        var previous = Int64.min
        for index in 0..<count {
            let day = Int64(days[index])
            guard day >= first, day <= last else { throw fail("entry \(index) has a Day outside years 1 ... 9999") }
            guard day > previous else {
                throw fail("entry \(index) is not after the one before (one entry per Day, in order)", rule: "MODEL-33")
            }
            previous = day
            let type = types[index]
            let number = numbers.isEmpty ? 0 : numbers[index]
            switch type {
            case 0, 1:
                guard number == 0 else { throw fail("entry \(index) is done or skipped but has the number \(number)") }
            case 2, 3, 5:
                break
            case 4:
                guard number >= 0, Int(number) < itemSetCount else {
                    throw fail("entry \(index) refers to item set \(number) of \(itemSetCount)")
                }
            default:
                throw fail("entry \(index) has the unknown log type \(type)")
            }
            if !columns.contexts.isEmpty, Int(columns.contexts[index]) >= contextCount {
                throw fail("entry \(index) refers to context \(columns.contexts[index]) of \(contextCount)")
            }
            if day - first < margin || last - day < margin {
                // Each sum stays far inside Int64: a Day is within ±4 × 10^6, each column 32 bits.
                let start = day * 86_400_000 + Int64(columns.firstOffsets.isEmpty ? 0 : columns.firstOffsets[index])
                let end = start + Int64(columns.spans.isEmpty ? 0 : columns.spans[index])
                let modified = end + Int64(columns.modifiedDeltas.isEmpty ? 0 : columns.modifiedDeltas[index])
                guard instants.contains(start), instants.contains(end), instants.contains(modified) else {
                    throw fail("entry \(index) has an instant outside years 1 ... 9999")
                }
            }
            flags[index] = type | (!deleted.isEmpty && deleted[index] ? Self.deletedBit : 0)
        }
        return flags
    }

    /// The columns of the history, for a writer that lays out a block. An entry kept whole (see
    /// ``isKeptWhole(at:)``) shows its Day, log type and undone mark; its other values are 0 here,
    /// and its accessors (``log(at:)``, ``firstRecordedAt(at:)``, ...) give them.
    public var columns: Columns {
        Columns(
            days: dayNumbers, logTypes: flags.map { $0 & Self.typeMask },
            deleted: flags.contains { $0 & Self.deletedBit != 0 } ? flags.map { $0 & Self.deletedBit != 0 } : [],
            numbers: numbers.values, firstOffsets: firstOffsets.values, spans: spans.values,
            modifiedDeltas: modifiedDeltas.values, contexts: contexts.values, contextTable: contextTable,
            itemSets: itemSets)
    }

    /// The entries in `range` that are not undone, as their indices and Days: one pass over the
    /// columns, for work that reads every live Day of a stretch (streaks, Today, Overview).
    ///
    /// - Complexity: O(n) for the n entries in `range`.
    public func liveEntries(in range: Range<Int>) -> (indices: [Int], days: [Day]) {
        let flags = flags[range]
        guard flags.contains(where: { $0 & Self.deletedBit != 0 }) else {
            return (Array(range), dayNumbers[range].map { Day(unchecked: Int($0)) })
        }
        var indices: [Int] = []
        var days: [Day] = []
        indices.reserveCapacity(range.count)
        days.reserveCapacity(range.count)
        for index in range where flags[index] & Self.deletedBit == 0 {
            indices.append(index)
            days.append(Day(unchecked: Int(dayNumbers[index])))
        }
        return (indices, days)
    }

    /// Whether the entry at `index` is kept whole (a note, several taps, unknown fields, values
    /// wider than the columns) rather than in the columns alone.
    public func isKeptWhole(at index: Int) -> Bool { flags[index] & Self.wholeBit != 0 }

    /// The entries at `indices` grouped by log, for work that depends on the log alone: entries
    /// whose columns show the same log (done, skip, the same item set, the same type and number)
    /// share a class; an entry kept whole is a class of its own. A class may appear twice when
    /// two numbers share a slot of the small cache that groups them, which costs one more call
    /// of the work and never a wrong answer.
    ///
    /// - Returns: each entry's class, and for each class the index of an entry that has it.
    /// - Complexity: O(n) for the n indices, without hashing.
    public func logClasses(of indices: [Int]) -> (classOf: [Int], representatives: [Int]) {
        var representatives: [Int] = []
        let classOf = judgedByLog(indices) { index in
            representatives.append(index)
            return representatives.count - 1
        }
        return (classOf, representatives)
    }

    /// `judge` of each entry at `indices`, called once per class of logs (``logClasses(of:)``) with
    /// the index of the class's first entry, and its answer given to every entry of the class: a
    /// goal's Days repeat a few logs (done, the same count), so the work that depends on the log
    /// alone runs a few times, not once a Day. One pass, with no list but the answers.
    ///
    /// - Complexity: O(n) for the n indices, without hashing, and one `judge` per class.
    @inlinable
    public func judgedByLog<Answer>(_ indices: [Int], _ judge: (Int) -> Answer) -> [Answer] {
        var judged: [Answer] = []
        // Classes of done, skip and each item set, by their slot; numbers through a 64-slot cache.
        var bySlot = [Int](repeating: -1, count: 2 + itemSets.count)
        var byNumber = [(flag: UInt8, number: Int32, type: Int)?](repeating: nil, count: 64)
        var answers: [Answer] = []
        answers.reserveCapacity(indices.count)
        for index in indices {
            let flag = flags[index] & (Self.typeMask | Self.wholeBit)
            let number = numbers[index]
            let type: Int
            switch flag {
            case 0, 1, 4:
                let slot = flag == 4 ? 2 + Int(number) : Int(flag)
                if bySlot[slot] < 0 {
                    bySlot[slot] = judged.count
                    judged.append(judge(index))
                }
                type = bySlot[slot]
            case 2, 3, 5:
                let slot = Int(UInt32(bitPattern: number) & 63)
                if let cached = byNumber[slot], cached.flag == flag, cached.number == number {
                    type = cached.type
                } else {
                    type = judged.count
                    judged.append(judge(index))
                    byNumber[slot] = (flag, number, type)
                }
            default:
                type = judged.count
                judged.append(judge(index))
            }
            answers.append(judged[type])
        }
        return answers
    }
}
