import Foundation
import GlowBundle
import GlowModel
import GlowProtocol
import GlowRelay
import GlowServerStores
import GlowService
import GlowSync

/// A person's own data between their devices (issue 46, Spec/sync.md) on the heavy person (5
/// years, about 86,000 check-ins): a new device's restore from a snapshot against replaying a log
/// of one change set a day, a tap's push, and the server's cost per push with a short log against
/// a long one, in one run.
enum SyncBench {
    static let person = "bench-person"
    static let keys = SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 0x46, count: 32)))
    static let phone = DeviceID(high: 0xBE, low: 1)
    static let laptop = DeviceID(high: 0xBE, low: 2)
    /// 1,750,000,000,000 ms after the epoch (2025-06-15T15:06:40Z).
    static let now = Instant(Date(timeIntervalSince1970: 1_750_000_000))

    /// A `sync-pull` answer's bytes for `records`, as glow-server writes it.
    static func pullAnswer(_ records: [[UInt8]], heads: [SyncHead]) -> [UInt8] {
        ServiceHandler.pullResponse(
            SyncPullAnswer(records: records, heads: heads, cursor: UInt64(records.count), more: false))
    }

    static func run() throws {
        let data = try DataSets.make(DataSets.heavy)
        say("sync     the heavy person: \(data.checkInCount) check-ins of \(data.goals.count) goals")
        try restore(data)
        try tap(data)
        try serverCost()
    }

    /// A new device's restore: one snapshot against a change set a day, bytes and local work.
    static func restore(_ data: DataSet) throws {
        var writer = SyncOutbox(device: phone)
        let chain = SyncChain(device: phone)
        let snapshot = try writer.write(.snapshot, from: data, chain: chain, keys: keys, person: person, at: now)!
        let snapshotAnswer = pullAnswer(
            [snapshot.bytes], heads: [SyncHead(device: phone, sequence: 1, hash: snapshot.hash)])
        // The same history as the phone would have pushed it without snapshots: a change set a day.
        var daily = SyncOutbox(device: phone)
        var byDay: [Day: DataSet.Changes] = [:]
        for checkIn in data.checkIns {
            byDay[checkIn.day, default: DataSet.Changes()].insert(CheckInKey(goalID: checkIn.goalID, day: checkIn.day))
        }
        var first = DataSet.Changes()
        first.profile = data.profile != nil
        first.goals = Set(data.goals.keys)
        first.otherRecords = data.otherRecordCount
        daily.note(first)
        var log: [[UInt8]] = [try daily.write(from: data, chain: chain, keys: keys, person: person, at: now)!.bytes]
        for day in byDay.keys.sorted() {
            daily.note(byDay[day]!)
            log.append(try daily.write(from: data, chain: chain, keys: keys, person: person, at: now)!.bytes)
        }
        let logBytes = log.reduce(0) { $0 + $1.count }
        let heads = [SyncHead(device: phone, sequence: daily.sequence, hash: daily.lastHash)]
        let reader = SyncReader(keys: keys, person: person)
        func readAll(_ pages: [SyncPage]) throws -> DataSet {
            var chain = SyncChain(device: laptop)
            var restored = DataSet()
            for page in pages { _ = try reader.read(page, chain: &chain, into: &restored) }
            return restored
        }
        let snapshotPage = SyncPage(records: [snapshot.bytes], heads: [phone: 1], more: false)
        // The log in pages of the server's 512 KiB.
        var logPages: [SyncPage] = []
        var current: [[UInt8]] = []
        var size = 0
        for record in log {
            if !current.isEmpty, size + record.count > 512 << 10 {
                logPages.append(SyncPage(records: current, heads: [:], more: true))
                current = []
                size = 0
            }
            current.append(record)
            size += record.count
        }
        logPages.append(SyncPage(records: current, heads: [phone: daily.sequence], more: false))
        for (pages, source) in [([snapshotPage], "the snapshot"), (logPages, "the log")] {
            let restored = try readAll(pages)
            precondition(restored == data, "a restore from \(source) lost data")
        }
        let (fromSnapshot, fromLog) = try Timing.pair(
            samples: 5, { blackHole(try readAll([snapshotPage])) }, { blackHole(try readAll(logPages)) })
        let logAnswers = logPages.reduce(0) { $0 + pullAnswer($1.records, heads: heads).count }
        record("heavy", "syncSnapshotBytes", Double(snapshotAnswer.count))
        record("heavy", "syncLogBytes", Double(logAnswers))
        record("heavy", "syncRestoreSnapshot", fromSnapshot.median)
        record("heavy", "syncRestoreLog", fromLog.median)
        say(
            "sync     a new device's restore from one snapshot: \(snapshotAnswer.count) B transferred (target ≤ 300,000), local work (open, check, merge) \(milliseconds(fromSnapshot.median)) (target < 1 s)"
        )
        say(
            "sync     the same from a change set a day (\(log.count) records, \(logBytes) B, \(logPages.count) pages): \(logAnswers) B, \(milliseconds(fromLog.median)) → the snapshot is \(String(format: "%.1f", Double(logAnswers) / Double(snapshotAnswer.count)))× smaller and \(String(format: "%.1f", fromLog.median / fromSnapshot.median))× faster to restore"
        )
    }

    /// A tap after five years: its change set, the push request's bytes, and the time to write it.
    static func tap(_ data: DataSet) throws {
        var data = data
        let goal = data.sortedGoals.first { !$0.deleted && $0.kind == .streak }!
        let day = data.checkIns.filter { $0.goalID == goal.id }.map(\.day).max()!.advanced(by: 1)
        let changes = try data.tap(
            .done, goal: goal.id, on: day, at: try now.adding(milliseconds: 86_400_000 * 2000), device: phone,
            boundary: .utc)
        var outbox = SyncOutbox(device: phone)
        let chain = SyncChain(device: phone)
        let writing = try Timing.measure(samples: 9) {
            var copy = outbox
            copy.note(changes)
            blackHole(try copy.write(from: data, chain: chain, keys: keys, person: person, at: now))
        }
        outbox.note(changes)
        let written = try outbox.write(from: data, chain: chain, keys: keys, person: person, at: now)!
        let request = ProtocolMessage("SyncPushRequest").with("device", .bytes(phone.bytes))
            .with("records", .list([.bytes(written.bytes)])).wireEncoded()
        record("heavy", "syncTapPushBytes", Double(request.count))
        record("heavy", "syncTapWrite", writing.median)
        say(
            "sync     a tap after five years: one sync-push of \(request.count) B (target < 1,000), its change set written and sealed in \(milliseconds(writing.median))"
        )
    }

    /// The server's cost per push on the SQLite default, a log of 10 records against one of 20,000.
    static func serverCost() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "glow-bench-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { removeTemporary(folder, section: "sync") }
        let log = SyncLog(store: try SQLiteServerDatabase(path: folder.appendingPathComponent("s.sqlite").path).sync)
        func chain(_ count: Int, salt: UInt8) throws -> [[UInt8]] {
            var outbox = SyncOutbox(device: phone)
            var data = DataSet()
            let goal = try Goal(
                id: GoalID(high: 0xBE, low: UInt64(salt)), title: "Water", kind: .streak,
                schedule: Schedule(.daily, from: Day(iso: "2020-01-01")), startDay: Day(iso: "2020-01-01"),
                createdAt: now, modifiedAt: now)
            outbox.note(try data.add(goal))
            return try (0..<count).map { index in
                if index > 0 {
                    outbox.note(
                        try data.tap(
                            .done, goal: goal.id, on: try Day(iso: "2020-01-01").advanced(by: index % 1_500),
                            at: try now.adding(milliseconds: Int64(index)), device: phone, boundary: .utc))
                }
                return try outbox.write(
                    from: data, chain: SyncChain(device: phone), keys: keys, person: person, at: now,
                    salt: [UInt8](repeating: salt, count: 16))!.bytes
            }
        }
        let short = try chain(10 + 1_000, salt: 1)
        let long = try chain(20_000 + 1_000, salt: 2)
        for (name, records, count) in [("short", short, 10), ("long", long, 20_000)] {
            for start in stride(from: 0, to: count, by: 500) {
                _ = try log.push(
                    Array(records[start..<Swift.min(count, start + 500)]), device: phone.bytes, of: name,
                    confirming: nil)
            }
        }
        var next = (short: 10, long: 20_000)
        let (few, many) = try Timing.pair(
            samples: 40, repeats: 10,
            {
                blackHole(try log.push([short[next.short]], device: phone.bytes, of: "short", confirming: nil))
                next.short += 1
            },
            {
                blackHole(try log.push([long[next.long]], device: phone.bytes, of: "long", confirming: nil))
                next.long += 1
            })
        record("server", "syncPushShortLog", few.median)
        record("server", "syncPushLongLog", many.median)
        say(
            "sync     the server's push on the SQLite default (one transaction each): \(milliseconds(few.median)) with 10 records in the log, \(milliseconds(many.median)) with 20,000 → \(String(format: "%.2f", many.median / few.median))× (target: independent of the history)"
        )
    }
}
