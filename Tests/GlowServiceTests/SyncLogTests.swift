import Foundation
import GlowBundle
import GlowModel
import GlowRelay
import GlowServerStores
import GlowStorage
import GlowSync
import Testing

/// The sync log's rules (SYNC-9 ... SYNC-11) on each store a server keeps it in: the quota, a
/// refused push keeping nothing, a snapshot freeing what it covers, erasure, and a database that
/// fails a write.
@Suite("Sync log")
struct SyncLogTests {
    static let keys = SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 0x11, count: 32)))
    static let phone = DeviceID(high: 0xF0, low: 1)
    static let watch = DeviceID(high: 0xF0, low: 2)
    static let reader = DeviceID(high: 0xF0, low: 3)

    /// `count` records of `device` after `previous`, each with `size` bytes of plaintext.
    static func records(
        _ device: DeviceID, from first: UInt64, count: Int, after previous: [UInt8] = [], size: Int = 300,
        kind: SyncKind = .changes, seen: [SyncHead] = []
    ) throws -> [SyncRecord] {
        var previous = previous
        var result: [SyncRecord] = []
        for sequence in first..<first + UInt64(count) {
            let header = SyncHeader(
                keyID: [], device: device, sequence: sequence, previous: previous, seen: seen, kind: kind,
                salt: [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: 16))
            let record = try keys.seal([UInt8](repeating: 7, count: size), header: header, person: "p")
            previous = record.hash
            result.append(record)
        }
        return result
    }

    /// The stores under test, each new and empty.
    enum Store: String, CaseIterable, Sendable {
        case memory, sqlite

        func make() throws -> (any SyncLogStore, String?) {
            switch self {
            case .memory: return (InMemorySyncLogStore(), nil)
            case .sqlite:
                let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "glow-sync-\(UUID().uuidString).sqlite"
                ).path
                return (try SQLiteServerDatabase(path: path).sync, path)
            }
        }
    }

    @Test(
        "a push past the quota is 507 sync_quota_exceeded and keeps nothing; a snapshot frees what it covers",
        arguments: Store.allCases)
    func quota(_ kind: Store) throws {
        let log = SyncLog(store: try kind.make().0, quota: 1_000)
        let first = try Self.records(Self.phone, from: 1, count: 3)
        #expect(try log.push(first[0..<2].map(\.bytes), device: Self.phone.bytes, of: "p", confirming: nil) == 2)
        let error = #expect(throws: SyncError.self) {
            try log.push([first[2].bytes], device: Self.phone.bytes, of: "p", confirming: nil)
        }
        #expect(error?.code == .quotaExceeded)
        #expect(error?.message.contains("quota is 1000") == true)
        let page = try #require(
            try log.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "p", confirming: nil))
        #expect(page.records == first[0..<2].map(\.bytes))
        #expect(page.heads.map(\.sequence) == [2])
        // A snapshot covers the log: it alone is kept, well within the quota.
        let snapshot = try Self.records(Self.phone, from: 3, count: 1, after: first[1].hash, kind: .snapshot)[0]
        #expect(try log.push([snapshot.bytes], device: Self.phone.bytes, of: "p", confirming: nil) == 3)
        let after = try #require(
            try log.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "p", confirming: nil))
        #expect(after.records == [snapshot.bytes])
        #expect(after.cursor == 3)
        // The record the snapshot dropped, sent again, is taken as kept.
        #expect(try log.push([first[0].bytes], device: Self.phone.bytes, of: "p", confirming: nil) == 3)
    }

    /// Issue 59 item 6: the quota bounded each person, nothing bounded everyone, so enough accounts
    /// filled the disk. Two logs here are two processes over one store.
    @Test(
        "every log together keeps at most the capacity: past it any person's push is 507 sync_server_full, a snapshot that drops what it covers is still taken, and another process counts what one kept",
        arguments: Store.allCases)
    func capacity(_ kind: Store) throws {
        let store = try kind.make().0
        let records = try Self.records(Self.phone, from: 1, count: 2)
        let size = Int64(records[0].bytes.count)
        // Room for two logs of one record each, heads counted.
        let capacity = try store.keptByEveryLog() + 2 * (size + SyncLog.headBytes)
        let (one, other) = (
            SyncLog(store: store, capacity: capacity, countInterval: .zero),
            SyncLog(store: store, capacity: capacity, countInterval: .zero)
        )
        #expect(try one.push([records[0].bytes], device: Self.phone.bytes, of: "ana", confirming: nil) == 1)
        #expect(try other.push([records[0].bytes], device: Self.phone.bytes, of: "bob", confirming: nil) == 1)
        for (log, person, record) in [(one, "ana", records[1]), (other, "cat", records[0]), (one, "cat", records[0])] {
            let error = #expect(throws: SyncError.self) {
                try log.push([record.bytes], device: Self.phone.bytes, of: person, confirming: nil)
            }
            #expect(error?.code == .serverFull && error?.rule == "SYNC-9")
            #expect(error?.message.contains("(\(capacity))") == true)
        }
        // A full server still takes a snapshot that keeps no more than what it drops.
        let snapshot = try Self.records(
            Self.phone, from: 2, count: 1, after: records[0].hash, size: 1, kind: .snapshot)[0]
        #expect(Int64(snapshot.bytes.count) <= size)
        #expect(try other.push([snapshot.bytes], device: Self.phone.bytes, of: "ana", confirming: nil) == 2)
        let page = try #require(
            try one.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "ana", confirming: nil))
        #expect(page.records == [snapshot.bytes])
        // The room the snapshot freed takes a small log again.
        let small = try Self.records(Self.watch, from: 1, count: 1, size: 1)[0]
        #expect(Int64(small.bytes.count) + SyncLog.headBytes <= size - Int64(snapshot.bytes.count))
        #expect(try one.push([small.bytes], device: Self.watch.bytes, of: "dan", confirming: nil) == 1)
    }

    /// Issue 59 item 6: heads sat outside the quota, and a log of more devices than a snapshot's
    /// `seen` can name never compacted.
    @Test("each head counts 64 bytes toward the quota", arguments: Store.allCases)
    func headsInQuota(_ kind: Store) throws {
        let record = try Self.records(Self.phone, from: 1, count: 1)[0]
        for (room, kept) in [(SyncLog.headBytes - 1, false), (SyncLog.headBytes, true)] {
            let log = SyncLog(store: try kind.make().0, quota: Int64(record.bytes.count) + room)
            if kept {
                #expect(try log.push([record.bytes], device: Self.phone.bytes, of: "p", confirming: nil) == 1)
            } else {
                let error = #expect(throws: SyncError.self) {
                    try log.push([record.bytes], device: Self.phone.bytes, of: "p", confirming: nil)
                }
                #expect(error?.code == .quotaExceeded)
            }
        }
    }

    @Test(
        "a log keeps at most 256 devices: a 257th is 409 sync_device_limit, and a snapshot naming the others compacts it",
        arguments: Store.allCases)
    func deviceLimit(_ kind: Store) throws {
        let log = SyncLog(store: try kind.make().0)
        var heads: [SyncHead] = []
        for index in 0..<SyncLog.maximumDevices {
            let device = DeviceID(high: 0xD0, low: UInt64(index))
            let record = try Self.records(device, from: 1, count: 1, size: 1)[0]
            _ = try log.push([record.bytes], device: device.bytes, of: "p", confirming: nil)
            heads.append(SyncHead(device: device, sequence: 1, hash: record.hash))
        }
        let newcomer = DeviceID(high: 0xD1, low: 0)
        let error = #expect(throws: SyncError.self) {
            try log.push(
                [try Self.records(newcomer, from: 1, count: 1, size: 1)[0].bytes], device: newcomer.bytes, of: "p",
                confirming: nil)
        }
        #expect(error?.code == .deviceLimit && error?.rule == "SYNC-9")
        // A device the log knows writes on, and its snapshot names all 255 others.
        let first = heads[0]
        let others = heads.dropFirst().sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) }
        let snapshot = try Self.records(
            first.device, from: 2, count: 1, after: first.hash, size: 1, kind: .snapshot, seen: Array(others))[0]
        #expect(try log.push([snapshot.bytes], device: first.device.bytes, of: "p", confirming: nil) == 2)
        let page = try #require(
            try log.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "p", confirming: nil))
        #expect(page.records == [snapshot.bytes])
        #expect(page.heads.count == SyncLog.maximumDevices)
    }

    @Test("erasing a person's log leaves nothing: no record, no head, no key id", arguments: Store.allCases)
    func erase(_ kind: Store) throws {
        let log = SyncLog(store: try kind.make().0)
        let records = try Self.records(Self.phone, from: 1, count: 2)
        _ = try log.push(records.map(\.bytes), device: Self.phone.bytes, of: "p", confirming: nil)
        _ = try log.push(records.map(\.bytes), device: Self.phone.bytes, of: "q", confirming: nil)
        try log.erase("p")
        try log.erase("p")
        let page = try #require(
            try log.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "p", confirming: nil))
        #expect(page.records.isEmpty && page.heads.isEmpty && page.cursor == 0 && !page.more)
        // Another key starts a new log; the other person's is untouched.
        let other = SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 0x22, count: 32)))
        let fresh = try other.seal(
            [1, 2, 3],
            header: SyncHeader(
                keyID: [], device: Self.watch, sequence: 1, previous: [], seen: [], kind: .changes,
                salt: [UInt8](repeating: 9, count: 16)), person: "p")
        #expect(try log.push([fresh.bytes], device: Self.watch.bytes, of: "p", confirming: nil) == 1)
        let kept = try #require(
            try log.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "q", confirming: nil))
        #expect(kept.records == records.map(\.bytes))
    }

    @Test("a database that fails a write answers storage_failed and keeps none of the push")
    func failingDatabase() throws {
        let (store, path) = try Store.sqlite.make()
        let log = SyncLog(store: store)
        let records = try Self.records(Self.phone, from: 1, count: 3)
        _ = try log.push([records[0].bytes], device: Self.phone.bytes, of: "p", confirming: nil)
        let meddler = try DatabaseSchema.server.open(path: try #require(path), create: false)
        try meddler.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON sync_heads BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
        let error = #expect(throws: SyncError.self) {
            try log.push(records[1...].map(\.bytes), device: Self.phone.bytes, of: "p", confirming: nil)
        }
        #expect(error?.code == .storageFailed)
        let page = try #require(
            try log.pull(device: Self.reader.bytes, after: 0, maxBytes: 0, of: "p", confirming: nil))
        #expect(page.records == [records[0].bytes])
        #expect(page.heads.map(\.sequence) == [1])
        try meddler.execute("DROP TRIGGER refuse")
        #expect(try log.push(records[1...].map(\.bytes), device: Self.phone.bytes, of: "p", confirming: nil) == 3)
    }
}
