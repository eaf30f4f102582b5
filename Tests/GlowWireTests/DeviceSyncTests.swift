import Foundation
import GlowBundle
import GlowModel
import Testing

/// A phone and a watch log the same goals offline and exchange bundles, delivered late and in
/// any order (BUNDLE-22, MODEL-54): at the end both hold the same data, every tap either made is
/// there, and each Day's log is what the taps add up to under MODEL-53, recomputed here from the
/// log of taps made, not from the SDK's merge.
@Suite("Phone and watch")
struct DeviceSyncTests {
    static let person = UserID(high: 0xE, low: 1)
    static let devices = [DeviceID(high: 0xA, low: 1), DeviceID(high: 0xA, low: 2)]
    static let boundary = try! DayBoundary(timeZone: TimeZoneID("Europe/Lisbon"), dayStartMinutes: 120)
    static let start = try! Day(iso: "2025-05-01")
    static let created = try! Instant(rfc3339: "2025-05-01T06:00:00Z")
    static let items = (1...3).map { SubgoalItem(id: SubgoalItemID(high: 7, low: UInt64($0)), title: "Item \($0)") }
    static let kinds: [GoalKind] = [
        .tally(TallyConfig(dailyTarget: 8, unit: "glasses")),
        .progress(ProgressConfig(target: try! Amount(parsing: "42.195"), unit: "km")),
        .subgoals(SubgoalsConfig(items: items, recurring: true)),
        .value(ValueConfig(unit: "kg", target: nil)),
        .streak,
    ]

    /// The data both devices start from.
    static let shared: DataSet = {
        var data = DataSet()
        try! data.setProfile(
            Profile(userID: person, displayName: "Mia", boundary: boundary, createdAt: created, modifiedAt: created))
        for (index, kind) in kinds.enumerated() {
            try! data.add(
                Goal(
                    id: GoalID(high: 1, low: UInt64(index)), title: "Goal \(index)", kind: kind,
                    schedule: kind.isRecurring ? try Schedule(.daily, from: start) : nil, startDay: start,
                    createdAt: created, modifiedAt: created))
        }
        return data
    }()

    /// A tap made, as the test remembers it.
    struct Made: Hashable {
        var key: CheckInKey
        var tap: Tap
    }

    /// A schedule of taps, undos and deliveries, with what it made.
    struct Run {
        var data: [DataSet] = Array(repeating: DeviceSyncTests.shared, count: 2)
        var clocks: [Instant]
        var inFlight: [(to: Int, bytes: [UInt8])] = []
        var made: [Made] = []
        var exchanges = 0

        init(_ random: inout SeededRandom) {
            // The watch's clock may run up to two minutes apart from the phone's.
            let skew = Int64(random.next() % 240_001) - 120_000
            let first = try! DeviceSyncTests.created.adding(milliseconds: 3_600_000)
            clocks = [first, try! first.adding(milliseconds: skew)]
        }

        mutating func step(_ random: inout SeededRandom) throws {
            let device = Int(random.next() % 2)
            // Up to three hours pass on that device between its actions: a schedule spans Days.
            clocks[device] = try clocks[device].adding(milliseconds: Int64(random.next() % 10_800_000))
            let goal = GoalID(high: 1, low: random.next() % UInt64(kinds.count))
            switch random.next() % 10 {
            case 0..<6:
                try tap(device, goal, &random)
            case 6:
                let (now, day) = (
                    clocks[device], try boundary.day(containing: clocks[device]).adding(days: -Int(random.next() % 2))
                )
                try record(device, CheckInKey(goalID: goal, day: day)) { data throws(ModelError) in
                    try data.undo(goal: goal, on: day, at: now, device: devices[device])
                }
            case 7, 8:
                // A bundle leaves one device; it arrives later, in any order with the others.
                let bytes = BundleWriter.bundle(data[device], options: BundleOptions(createdAt: clocks[device]))
                inFlight.append((to: 1 - device, bytes: bytes))
            default:
                guard !inFlight.isEmpty else { return }
                let parcel = inFlight.remove(at: Int(random.next() % UInt64(inFlight.count)))
                try BundleReader().import(parcel.bytes, into: &data[parcel.to])
                exchanges += 1
            }
        }

        mutating func tap(_ device: Int, _ goal: GoalID, _ random: inout SeededRandom) throws {
            let action: CheckInTap
            switch data[device].goals[goal]!.kind {
            case .tally: action = .count(Int(random.next() % 3) + 1)
            case .progress: action = .add(try Amount(thousandths: Int64(random.next() % 5000) + 1))
            case .subgoals:
                let item = Set([DeviceSyncTests.items[Int(random.next() % 3)].id])
                action = random.next() % 3 == 0 ? .uncheck(item) : .check(item)
            case .value: action = .value(try Amount(thousandths: Int64(random.next() % 100_000)))
            default: action = random.next() % 5 == 0 ? .skip : .done
            }
            let now = clocks[device]
            let key = CheckInKey(goalID: goal, day: boundary.day(containing: now))
            try record(device, key) { data throws(ModelError) in
                try data.tap(action, goal: goal, at: now, device: devices[device], boundary: boundary)
            }
        }

        /// Applies a change on one device and remembers the tap it added; a change the device
        /// refuses (an undo of a Day it sees as empty) is fine and adds nothing.
        mutating func record(
            _ device: Int, _ key: CheckInKey, _ change: (inout DataSet) throws(ModelError) -> DataSet.Changes
        )
            throws
        {
            let before = Set(data[device].checkIn(key)?.taps ?? [])
            do {
                _ = try change(&data[device])
            } catch {
                guard error.code == .notFound else { throw error }
                return
            }
            let added = Set(data[device].checkIn(key)?.taps ?? []).subtracting(before)
            #expect(added.count == 1, "one change, one tap")
            made += added.map { Made(key: key, tap: $0) }
        }

        /// Delivers everything in flight, then each device's data to the other.
        mutating func settle() throws {
            for parcel in inFlight { try BundleReader().import(parcel.bytes, into: &data[parcel.to]) }
            inFlight = []
            let phone = BundleWriter.bundle(data[0], options: BundleOptions(createdAt: clocks[0]))
            try BundleReader().import(phone, into: &data[1])
            let watch = BundleWriter.bundle(data[1], options: BundleOptions(createdAt: clocks[1]))
            try BundleReader().import(watch, into: &data[0])
        }
    }

    /// What a Day's taps add up to (MODEL-53, MODEL-35), restated here from the spec: taps in
    /// order of instant (an undo after the other taps of its instant), device, sequence; those
    /// after the last undo applied in turn.
    static func expectedLog(_ taps: [Tap]) -> CheckInLog? {
        let ordered = taps.sorted {
            ($0.at, $0.action.isUndo ? 1 : 0, $0.deviceID, $0.sequence)
                < ($1.at, $1.action.isUndo ? 1 : 0, $1.deviceID, $1.sequence)
        }
        let visible = ordered.lastIndex { $0.action.isUndo }.map { Array(ordered[($0 + 1)...]) } ?? ordered
        var log: CheckInLog?
        for tap in visible {
            switch (tap.action, log) {
            case (.count(let n), .tally(let total)?): log = .tally(total + n)
            case (.count(let n), _): log = .tally(n)
            case (.add(let amount), .amount(let total)?): log = .amount(try! total.adding(amount))
            case (.add(let amount), _): log = .amount(amount)
            case (.check(let items), .items(let checked)?): log = .items(checked.union(items))
            case (.check(let items), _): log = .items(items)
            case (.uncheck(let items), .items(let checked)?): log = .items(checked.subtracting(items))
            case (.uncheck, _): log = .items([])
            case (.value(let value), _): log = .value(value)
            case (.done, _): log = .done
            case (.skip, _): log = .skip
            case (.undo, _): break
            }
        }
        return log
    }

    @Test("a thousand random schedules end with every tap counted, on both devices alike")
    func everyTapCounted() throws {
        var exchanges = 0
        var taps = 0
        for seed in UInt64(0)..<1_000 {
            var random = SeededRandom(seed: seed)
            var run = Run(&random)
            for _ in 0..<(10 + Int(random.next() % 30)) { try run.step(&random) }
            try run.settle()
            exchanges += run.exchanges
            taps += run.made.count
            #expect(run.data[0] == run.data[1], "seed \(seed): the devices disagree")
            let byKey = Dictionary(grouping: run.made, by: \.key)
            for (key, made) in byKey {
                guard let entry = run.data[0].checkIn(key) else {
                    Issue.record("seed \(seed): \(key.goalID) on \(key.day) lost its entry")
                    continue
                }
                let held = Set(entry.taps)
                let lost = made.map(\.tap).filter { !held.contains($0) }
                #expect(lost.isEmpty, "seed \(seed): lost \(lost)")
                #expect(held.count == made.count, "seed \(seed): \(held.count) taps held, \(made.count) made")
                let expected = Self.expectedLog(made.map(\.tap))
                if let expected {
                    #expect(!entry.deleted && entry.log == expected, "seed \(seed): \(entry.log) ≠ \(expected)")
                } else {
                    #expect(entry.deleted, "seed \(seed): every tap was undone")
                }
            }
        }
        // The schedules did exchange data and did make taps (a generator that never delivered
        // anything would prove nothing).
        #expect(exchanges > 1_000 && taps > 10_000)
    }

    @Test("merge is idempotent, commutative and associative on data sets the devices made", arguments: 0..<60)
    func laws(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var runs: [DataSet] = []
        for _ in 0..<3 {
            var run = Run(&random)
            for _ in 0..<25 { try run.step(&random) }
            runs.append(run.data[Int(random.next() % 2)])
        }
        let (a, b, c) = (runs[0], runs[1], runs[2])
        #expect(a.merging(a) == a)
        #expect(a.merging(b) == b.merging(a))
        #expect(a.merging(b).merging(c) == a.merging(b.merging(c)))
    }
}
