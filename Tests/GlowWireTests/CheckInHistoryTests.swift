import GlowModel
import GlowStreaks
import GlowWire
import Testing

/// A goal's history keeps its check-ins as columns; what it gives back must be exactly what went
/// in, whatever mixture of plain and unusual check-ins it holds and in whatever order they came.
@Suite("Check-in history")
struct CheckInHistoryTests {
    static let tokyo = try! TimeZoneID("Asia/Tokyo")
    static let watch = try! DeviceID("01938a6e-7c00-7abc-8def-00000000d002")

    /// The ways a check-in can be unusual, each of which the columns cannot hold alone.
    enum Variant: String, CaseIterable {
        case plain, noted, tapped, backfilledLate, modifiedLate, largeNumber, unknownFields, undone, otherZone
        /// Small differences the columns hold: each must still tell two check-ins apart.
        case modifiedSoon, recordedLater, otherDevice, otherNumber
    }

    /// `checkIn` made unusual in one way.
    static func vary(_ checkIn: CheckIn, _ variant: Variant, goal: Goal) throws -> CheckIn {
        let day = checkIn.day
        switch variant {
        case .plain: return checkIn
        case .noted: return try checkIn.withNote("a long walk 🌿", at: checkIn.modifiedAt)
        case .undone: return checkIn.deleting(at: try checkIn.modifiedAt.adding(milliseconds: 90_000))
        case .otherZone:
            return try CheckIn(
                goalID: checkIn.goalID, day: day, log: checkIn.log, firstRecordedAt: checkIn.firstRecordedAt,
                lastRecordedAt: checkIn.lastRecordedAt, timeZone: tokyo, deviceID: watch,
                modifiedAt: checkIn.modifiedAt)
        case .modifiedSoon, .recordedLater, .otherDevice:
            let shift: Int64 = variant == .recordedLater ? 30_000 : 0
            return try CheckIn(
                goalID: checkIn.goalID, day: day, log: checkIn.log,
                firstRecordedAt: checkIn.firstRecordedAt.adding(milliseconds: shift),
                lastRecordedAt: checkIn.lastRecordedAt.adding(milliseconds: shift), timeZone: checkIn.timeZone,
                deviceID: variant == .otherDevice ? watch : checkIn.deviceID,
                modifiedAt: checkIn.modifiedAt.adding(milliseconds: variant == .modifiedSoon ? 5_000 : shift),
                deleted: checkIn.deleted)
        case .otherNumber:
            let log: CheckInLog
            switch checkIn.log {
            case .tally(let count): log = .tally(count == CheckIn.tallyLimit ? 0 : count + 1)
            case .amount(let amount): log = .amount(try amount.adding(try Amount(1)))
            case .value(let value): log = .value(try value.adding(try Amount(1)))
            case .items(let items):
                guard case .subgoals(let config) = goal.kind else { return checkIn }
                log = .items(items.count > 1 ? Set(items.dropFirst()) : Set(config.items.map(\.id)))
            case .done: log = .done
            case .skip: log = .skip
            }
            return try CheckIn(
                goalID: checkIn.goalID, day: day, log: log, firstRecordedAt: checkIn.firstRecordedAt,
                lastRecordedAt: checkIn.lastRecordedAt, timeZone: checkIn.timeZone, deviceID: checkIn.deviceID,
                modifiedAt: checkIn.modifiedAt, deleted: checkIn.deleted)
        case .backfilledLate:
            // Recorded 40 days after its Day: beyond what the instant column holds.
            let late = try checkIn.firstRecordedAt.adding(milliseconds: 40 * 86_400_000)
            return try CheckIn(
                goalID: checkIn.goalID, day: day, log: checkIn.log, firstRecordedAt: late, lastRecordedAt: late,
                timeZone: checkIn.timeZone, deviceID: checkIn.deviceID, modifiedAt: late)
        case .modifiedLate:
            return try CheckIn(
                goalID: checkIn.goalID, day: day, log: checkIn.log, firstRecordedAt: checkIn.firstRecordedAt,
                lastRecordedAt: checkIn.lastRecordedAt, timeZone: checkIn.timeZone, deviceID: checkIn.deviceID,
                modifiedAt: checkIn.lastRecordedAt.adding(milliseconds: 90 * 86_400_000))
        case .largeNumber:
            let log: CheckInLog
            switch checkIn.log {
            case .tally: log = .tally(CheckIn.tallyLimit)  // fits the column (unsigned 32 bits)
            case .amount: log = .amount(try Amount(thousandths: 5_000_000_000))  // does not
            case .value: log = .value(try Amount(thousandths: -3_000_000_000))
            default: log = checkIn.log
            }
            return try CheckIn(
                goalID: checkIn.goalID, day: day, log: log, firstRecordedAt: checkIn.firstRecordedAt,
                lastRecordedAt: checkIn.lastRecordedAt, timeZone: checkIn.timeZone, deviceID: checkIn.deviceID,
                modifiedAt: checkIn.modifiedAt)
        case .tapped:
            // A second device adds to the Day: the entry lists its taps.
            let at = try checkIn.lastRecordedAt.adding(milliseconds: 60_000)
            return try CheckIn.record(
                tap(for: goal), for: goal, on: day, at: at, timeZone: tokyo, deviceID: watch, existing: checkIn)
        case .unknownFields:
            var copy = checkIn
            copy.unknownFields = UnknownFields(bytes: [0xF8, 0x07, 0x01])  // field 127, varint 1
            return copy
        }
    }

    static func tap(for goal: Goal) -> CheckInTap {
        switch goal.kind {
        case .tally: .count(2)
        case .progress: .add(try! Amount(parsing: "0.5"))
        case .value: .value(try! Amount(parsing: "72"))
        case .subgoals(let config): .check([config.items.last!.id])
        default: .done
        }
    }

    /// Every sample goal's check-ins, each made unusual in a way drawn from `random`.
    static func mixedHistories(_ random: inout SeededRandom) throws -> [(Goal, [CheckIn])] {
        try Samples.goals.compactMap { goal in
            let base = Samples.checkIns(for: goal, days: 60)
            guard !base.isEmpty else { return nil }
            let list = try base.map { checkIn in
                let variant = Variant.allCases[Int(random.next() % UInt64(Variant.allCases.count))]
                return try vary(checkIn, random.next() % 2 == 0 ? .plain : variant, goal: goal)
            }
            return (goal, list)
        }
    }

    @Test("a history gives back every check-in exactly, field by field", arguments: 0..<8)
    func roundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for (goal, list) in try Self.mixedHistories(&random) {
            let history = try CheckInHistory(goalID: goal.id, checkIns: list.shuffled(using: &random))
            #expect(Array(history) == list, "goal \(goal.title)")
            for index in history.indices {
                let checkIn = list[index]
                #expect(history.day(at: index) == checkIn.day)
                #expect(history.log(at: index) == checkIn.log)
                #expect(history.isDeleted(at: index) == checkIn.deleted)
                #expect(history.firstRecordedAt(at: index) == checkIn.firstRecordedAt)
                #expect(history.lastRecordedAt(at: index) == checkIn.lastRecordedAt)
                #expect(history.modifiedAt(at: index) == checkIn.modifiedAt)
                #expect(history.timeZone(at: index) == checkIn.timeZone)
                #expect(history.deviceID(at: index) == checkIn.deviceID)
                #expect(history.checkIn(on: checkIn.day) == checkIn)
            }
            // The wire form carries the same history.
            let block = CheckInBlock(history)
            #expect(try CheckInBlock(wire: block.wireEncoded()) == block)
        }
    }

    @Test("plain check-ins live in the columns alone; each kind of unusual one is kept whole")
    func whatIsKeptWhole() throws {
        for goal in Samples.goals {
            let base = Samples.checkIns(for: goal, days: 30).filter { $0.note == nil && !$0.deleted }
            guard base.count > 2 else { continue }
            let plain = try CheckInHistory(goalID: goal.id, checkIns: base)
            #expect(plain.wholeCount == 0, "goal \(goal.title)")
            for variant in Variant.allCases {
                var list = base
                list[1] = try Self.vary(list[1], variant, goal: goal)
                let history = try CheckInHistory(goalID: goal.id, checkIns: list)
                let fitsColumns: Bool
                switch variant {
                case .plain, .undone, .otherZone, .modifiedSoon, .recordedLater, .otherDevice, .otherNumber:
                    fitsColumns = true
                case .largeNumber: fitsColumns = list[1] == base[1] || list[1].log == .tally(CheckIn.tallyLimit)
                case .tapped: fitsColumns = list[1].isCompact
                default: fitsColumns = false
                }
                #expect(history.wholeCount == (fitsColumns ? 0 : 1), "\(variant) on \(goal.title)")
                #expect(Array(history) == list, "\(variant) on \(goal.title)")
            }
        }
    }

    @Test("setting Days in any order keeps Day order, replacing plain and whole entries alike", arguments: 0..<12)
    func setInAnyOrder(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for (goal, list) in try Self.mixedHistories(&random).prefix(8) {
            var history = CheckInHistory(goalID: goal.id)
            var model: [Day: CheckIn] = [:]
            // Every check-in, then a second version of a third of them, in a random order.
            var writes = list.shuffled(using: &random)
            for checkIn in list where random.next() % 3 == 0 {
                let variant = Variant.allCases[Int(random.next() % UInt64(Variant.allCases.count))]
                writes.insert(try Self.vary(checkIn, variant, goal: goal), at: writes.count)
            }
            for checkIn in writes {
                let added = history.set(checkIn)
                #expect(added == (model[checkIn.day] == nil))
                model[checkIn.day] = checkIn
            }
            let expected = model.keys.sorted().map { model[$0]! }
            #expect(Array(history) == expected)
            #expect(history.days == expected.map(\.day))
        }
    }

    @Test("equal check-ins make equal histories, whatever order built the columns")
    func equalityIgnoresLayout() throws {
        var random = SeededRandom(seed: 7)
        for (goal, list) in try Self.mixedHistories(&random) {
            var forward = CheckInHistory(goalID: goal.id)
            list.forEach { forward.set($0) }
            var backward = CheckInHistory(goalID: goal.id)
            list.reversed().forEach { backward.set($0) }
            #expect(forward == backward)
            #expect(forward.hashValue == backward.hashValue)
            var changed = backward
            changed.set(try Self.vary(list[0], .otherZone, goal: goal))
            #expect(changed != forward || list[0].timeZone == Self.tokyo)
        }
    }

    @Test("evaluation from the columns equals evaluation from check-ins", arguments: 0..<6)
    func evaluationFromColumns(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for (goal, list) in try Self.mixedHistories(&random) {
            let history = try CheckInHistory(goalID: goal.id, checkIns: list)
            for today in [Samples.today, Samples.today.advanced(by: 25), Samples.today.advanced(by: 400), Day.max] {
                let columns = GoalEvaluation(goal: goal, history: history, weekStart: .monday, today: today)
                let values = GoalEvaluation(goal: goal, checkIns: list, weekStart: .monday, today: today)
                #expect(columns.currentStreak == values.currentStreak, "\(goal.title) on \(today)")
                #expect(columns.longestStreak == values.longestStreak)
                #expect(columns.milestones == values.milestones)
                #expect(columns.completion == values.completion)
                for day in (today.advanced(by: -70)...today) {
                    #expect(columns.status(on: day) == values.status(on: day))
                }
            }
            // Another goal's history counts as none.
            let stranger = CheckInHistory(goalID: GoalID(high: 1, low: 2))
            let none = GoalEvaluation(goal: goal, history: stranger, weekStart: .monday, today: Samples.today)
            let empty = GoalEvaluation(goal: goal, checkIns: [], weekStart: .monday, today: Samples.today)
            #expect(none.longestStreak == empty.longestStreak && none.completion == empty.completion)
        }
    }

    @Test("merging histories gives each Day the merge of its two check-ins, whatever differs")
    func mergeByDay() throws {
        for goal in Samples.goals {
            let base = Samples.checkIns(for: goal, days: 12)
            guard base.count > 3 else { continue }
            for variant in Variant.allCases {
                // One side holds the base; the other a version differing in one way on each Day.
                let other = try base.map { try Self.vary($0, variant, goal: goal) }
                var mine = DataSet()
                mine.put(goal)
                for checkIn in base { try mine.put(checkIn) }
                var theirs = DataSet()
                theirs.put(goal)
                for checkIn in other { try theirs.put(checkIn) }
                let merged = mine.merging(theirs)
                for (a, b) in zip(base, other) {
                    #expect(merged.checkIn(a.key) == a.merging(b), "\(variant) on \(goal.title), \(a.day)")
                }
            }
        }
    }

    @Test("a year of plain daily check-ins costs at most 24 bytes each in columns")
    func columnCost() throws {
        for goal in Samples.goals {
            let list = Samples.checkIns(for: goal, days: 365).filter { $0.note == nil && !$0.deleted }
            guard !list.isEmpty else { continue }
            let history = try CheckInHistory(goalID: goal.id, checkIns: list)
            #expect(history.wholeCount == 0)
            let perCheckIn = Double(history.columnBytes) / Double(history.count)
            #expect(perCheckIn <= 24, "\(goal.title): \(perCheckIn) bytes per check-in")
        }
    }
}
