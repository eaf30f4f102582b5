import GlowBundle
import GlowModel
import GlowRelay
import GlowSync
import Testing

/// Three devices of one person edit offline, push, pull, lose acknowledgements, are killed in the
/// middle of a pull and write snapshots, through glow-server's log (``SyncLog``) that keeps only
/// ciphertext (section 11): at the end every device holds the same data, which is the merge of everything the log
/// acknowledged, and every tap made on any device is in it.
@Suite("Three devices through the sync log")
struct SyncConvergenceTests {
    static let person = "person-42"
    static let keys = SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 0x3C, count: 32)))
    static let devices = (1...3).map { DeviceID(high: 0xD, low: UInt64($0)) }
    static let boundary = try! DayBoundary(timeZone: TimeZoneID("Europe/Lisbon"), dayStartMinutes: 120)
    static let start = try! Day(iso: "2025-05-01")
    static let created = try! Instant(rfc3339: "2025-05-01T06:00:00Z")
    static let goals = (0..<4).map { GoalID(high: 1, low: UInt64($0)) }

    /// What every device starts from: the goals, as a restored bundle would give them.
    static let shared: DataSet = {
        var data = DataSet()
        for (index, id) in goals.enumerated() {
            let kind: GoalKind = index % 2 == 0 ? .streak : .tally(TallyConfig(dailyTarget: 5, unit: "cups"))
            try! data.add(
                Goal(
                    id: id, title: "Goal \(index)", kind: kind, schedule: try Schedule(.daily, from: start),
                    startDay: start, createdAt: created, modifiedAt: created))
        }
        return data
    }()

    /// The server's side (SYNC-9, SYNC-10): glow-server's log over a store in memory, and every
    /// record it acknowledged, snapshots' covered ones included.
    struct Log {
        let log = SyncLog(store: InMemorySyncLogStore())
        var acknowledged: [[UInt8]] = []

        /// Takes a device's pending records in order; answers the last sequence it holds of it. A
        /// snapshot the log finds stale is refused, and nothing of the push is kept.
        mutating func push(_ records: [[UInt8]], from device: DeviceID) throws -> UInt64 {
            let head = try #require(try log.push(records, device: device.bytes, of: person, confirming: nil))
            for bytes in records where !acknowledged.contains(bytes) {
                if try SyncRecord(bytes: bytes).header.sequence <= head { acknowledged.append(bytes) }
            }
            return head
        }

        /// The page after `cursor` for `device`, of about `cap` bytes.
        func pull(after cursor: UInt64, for device: DeviceID, cap: Int) throws -> SyncPulled {
            let answer = try #require(
                try log.pull(device: device.bytes, after: cursor, maxBytes: cap, of: person, confirming: nil))
            let heads = Dictionary(answer.heads.map { ($0.device, $0.sequence) }, uniquingKeysWith: { $1 })
            return SyncPulled(
                page: SyncPage(records: answer.records, heads: heads, more: answer.more), cursor: answer.cursor)
        }
    }

    struct Device {
        let id: DeviceID
        var data = SyncConvergenceTests.shared
        var state: SyncState
        var clock: Instant
        var offline = 0

        init(_ id: DeviceID) {
            self.id = id
            state = SyncState(device: id)
            clock = try! SyncConvergenceTests.created.adding(milliseconds: 3 * 86_400_000)
        }

        mutating func write(_ kind: SyncKind = .changes) throws {
            _ = try state.outbox.write(kind, from: data, chain: state.chain, keys: keys, person: person, at: clock)
        }

        /// Pushes what waits; the answer may be lost on the way back. A snapshot the log finds
        /// stale is taken back, and what came before it is pushed alone.
        mutating func push(to log: inout Log, ackLost: Bool) throws {
            guard !state.outbox.pending.isEmpty else { return }
            let sequence: UInt64
            do {
                sequence = try log.push(state.outbox.pending, from: id)
            } catch let error as SyncError where error.code == .snapshotStale {
                let withdrawn = state.outbox.withdrawSnapshot()
                #expect(withdrawn)
                return try push(to: &log, ackLost: ackLost)
            }
            guard !ackLost else { return }
            state.acknowledge(through: sequence)
        }

        /// Pulls until the log has no more, or until killed after `pages` pages.
        mutating func pull(from log: Log, cap: Int, killedAfter pages: Int = .max) throws {
            for _ in 0..<pages {
                let pulled = try log.pull(after: state.cursor, for: id, cap: cap)
                // What a pull merges is the other devices' work: nothing for this device's next record.
                _ = try state.apply(pulled, to: &data, keys: keys, person: person)
                if !pulled.page.more { return }
            }
        }
    }

    /// A tap made, as the test remembers it.
    struct Made: Hashable {
        var key: CheckInKey
        var tap: Tap
    }

    /// How often a run did each hostile-to-state thing, so a generator that never did them fails.
    struct Tally {
        var lostAcknowledgements = 0
        var killedPulls = 0
        var snapshots = 0
    }

    @Test("three devices, one offline for a week of taps, converge to the merge of what the log acknowledged")
    func converge() throws {
        var tally = Tally()
        for seed in UInt64(0)..<40 { try run(seed: seed, tally: &tally) }
        #expect(tally.lostAcknowledgements > 20 && tally.killedPulls > 20 && tally.snapshots > 10, "\(tally)")
    }

    func run(seed: UInt64, tally: inout Tally) throws {
        var random = SeededRandom(seed: seed)
        var log = Log()
        var devices = Self.devices.map(Device.init)
        var made: [Made] = []
        var pulls = 0
        for step in 0..<80 {
            let index = Int(random.next() % 3)
            var device = devices[index]
            device.clock = try device.clock.adding(milliseconds: Int64(random.next() % 7_200_000))
            // Device 3 goes offline for a week of taps once in each run.
            if index == 2, step == 10 { device.offline = 7 * 4 }
            let online = device.offline == 0
            if device.offline > 0 { device.offline -= 1 }
            switch random.next() % 10 {
            case 0..<5:
                let goal = Self.goals[Int(random.next() % 4)]
                let today = Self.boundary.day(containing: device.clock)
                let day = today.advanced(by: -Int(random.next() % 3))
                let tap: CheckInTap = goal.low % 2 == 0 ? .done : .count(1 + Int(random.next() % 3))
                let key = CheckInKey(goalID: goal, day: day)
                let before = Set(device.data.checkIn(key)?.taps ?? [])
                do {
                    device.state.outbox.note(
                        try device.data.tap(
                            tap, goal: goal, on: day, at: device.clock, device: device.id, boundary: Self.boundary))
                } catch {
                    Issue.record("seed \(seed): the model refused a tap: \(error)")
                }
                for new in Set(device.data.checkIn(key)?.taps ?? []).subtracting(before) {
                    made.append(Made(key: key, tap: new))
                }
            case 5:
                let goal = Self.goals[Int(random.next() % 4)]
                let title = "Goal \(goal.low) by \(device.id.low) at \(step)"
                device.state.outbox.note(try device.data.editGoal(goal, at: device.clock) { $0.title = title })
            case 6 where online:
                try device.write()
                let lost = random.next() % 4 == 0
                tally.lostAcknowledgements += lost && !device.state.outbox.pending.isEmpty ? 1 : 0
                try device.push(to: &log, ackLost: lost)
            case 7 where online:
                pulls += 1
                let killed = random.next() % 3 == 0
                tally.killedPulls += killed ? 1 : 0
                try device.pull(from: log, cap: 900, killedAfter: killed ? 1 : .max)
            case 8 where online && random.next() % 3 == 0:
                // A snapshot, when this device has everything the log holds.
                try device.pull(from: log, cap: 900)
                try device.write()
                try device.push(to: &log, ackLost: false)
                if device.state.outbox.pending.isEmpty {
                    let before = device.state.outbox.sequence
                    try device.write(.snapshot)
                    try device.push(to: &log, ackLost: false)
                    tally.snapshots += device.state.outbox.sequence > before ? 1 : 0
                }
            default: break
            }
            devices[index] = device
        }
        // Everyone comes online: writes, pushes, pulls, twice round.
        for _ in 0..<2 {
            for index in devices.indices {
                try devices[index].write()
                try devices[index].push(to: &log, ackLost: false)
                try devices[index].pull(from: log, cap: 900)
            }
        }
        let expected = try log.acknowledged.reduce(Self.shared) { data, bytes in
            data.merging(try Self.keys.dataSet(of: SyncRecord(bytes: bytes), person: Self.person))
        }
        for device in devices {
            #expect(device.data == expected, "seed \(seed): device \(device.id.low) differs from the log's merge")
            #expect(device.state.outbox.pending.isEmpty)
        }
        for item in made {
            #expect(
                expected.checkIn(item.key)?.taps.contains(item.tap) == true,
                "seed \(seed): a tap on \(item.key.day) was lost")
        }
        #expect(!made.isEmpty && pulls > 0 && log.acknowledged.count > 3)
    }
}
