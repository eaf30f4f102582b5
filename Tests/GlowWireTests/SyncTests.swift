import GlowBundle
import GlowModel
import GlowSync
import Testing

/// A small log of a person's records, written by two devices, for the reader to judge.
private struct Log {
    static let person = "person-7"
    static let keys = SyncKeys(secret: RecoveryKey(bytes: (0..<32).map { UInt8($0 * 7 & 0xFF) }))
    static let a = try! DeviceID("01938a6e-7c00-7abc-8def-00000000000a")
    static let b = try! DeviceID("01938a6e-7c00-7abc-8def-00000000000b")
    static let reader = try! DeviceID("01938a6e-7c00-7abc-8def-00000000000c")

    /// Goals 0-2 with ten Days for A, goals 3-5 for B: records that merge without touching.
    static let goals = Samples.goals
    static func data(_ range: Range<Int>, days: Int = 10) -> DataSet {
        let chosen = Array(goals[range])
        return try! DataSet(
            profile: nil, goals: chosen, checkIns: chosen.flatMap { Samples.checkIns(for: $0, days: days) })
    }

    static func record(
        _ device: DeviceID, _ sequence: UInt64, after previous: SyncRecord?, seen: [SyncHead] = [],
        kind: SyncKind = .changes, data: DataSet, keys: SyncKeys = keys, person: String = person
    ) -> SyncRecord {
        let header = SyncHeader(
            keyID: keys.keyID, device: device, sequence: sequence, previous: previous?.hash ?? [], seen: seen,
            kind: kind, salt: (0..<16).map { UInt8(truncatingIfNeeded: Int(sequence) * 31 + $0) })
        let plaintext = BundleWriter.bundle(data, options: BundleOptions(createdAt: Samples.now, deviceID: device))
        return try! keys.seal(plaintext, header: header, person: person)
    }

    static let a1 = record(a, 1, after: nil, data: data(0..<2))
    static let a2 = record(a, 2, after: a1, data: data(2..<3))
    static let a3 = record(a, 3, after: a2, data: data(0..<1, days: 12))
    static let b1 = record(b, 1, after: nil, seen: [SyncHead(device: a, sequence: 2, hash: a2.hash)], data: data(3..<5))
    /// A second record 2 of A, written with another previous: a fork.
    static let a2Fork = record(a, 2, after: b1, data: data(5..<6))

    static func heads(_ pairs: [(DeviceID, UInt64)]) -> [DeviceID: UInt64] {
        Dictionary(pairs, uniquingKeysWith: { $1 })
    }
}

@Suite("Sync records and pulls (Spec/sync.md)")
struct SyncTests {
    @Test("a pull of two devices' records merges them all, and the heads follow each chain")
    func pull() throws {
        let reader = SyncReader(keys: Log.keys, person: Log.person)
        var chain = SyncChain(device: Log.reader)
        var data = DataSet()
        let page = SyncPage(
            records: [Log.a1, Log.a2, Log.b1, Log.a3].map(\.bytes), heads: Log.heads([(Log.a, 3), (Log.b, 1)]),
            more: false)
        let changes = try reader.read(page, chain: &chain, into: &data)
        let expected = [Log.a1, Log.a2, Log.b1, Log.a3].reduce(DataSet()) {
            $0.merging(try! Log.keys.dataSet(of: $1, person: Log.person))
        }
        #expect(data == expected)
        #expect(data.goals.count == 5)
        #expect(changes.goals.count == 5)
        #expect(
            chain.sortedHeads == [
                SyncHead(device: Log.a, sequence: 3, hash: Log.a3.hash),
                SyncHead(device: Log.b, sequence: 1, hash: Log.b1.hash),
            ])
    }

    /// A hostile page: what the server sends, the code the reader must answer, and where.
    struct Hostile: CustomTestStringConvertible, Sendable {
        let name: String
        let records: [[UInt8]]
        var heads: [DeviceID: UInt64] = [:]
        var acknowledged: UInt64 = 0
        let code: String
        var record: Int? = nil
        var device: DeviceID? = nil
        var testDescription: String { name }
    }

    static func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var copy = bytes
        copy[index] ^= 0x01
        return copy
    }

    static let hostile: [Hostile] = [
        Hostile(
            name: "a changed byte of the ciphertext", records: [Log.a1.bytes, flipped(Log.a2.bytes, at: 200)],
            code: "sync_tampered", record: 1),
        Hostile(
            name: "a changed byte of the header's salt",
            records: [flipped(Log.a1.bytes, at: Log.a1.headerBytes.count)], code: "sync_tampered", record: 0),
        Hostile(
            name: "another person's record",
            records: [Log.record(Log.a, 1, after: nil, data: Log.data(0..<1), person: "person-8").bytes],
            code: "sync_tampered", record: 0),
        Hostile(
            name: "a record sealed under another key",
            records: [
                Log.record(
                    Log.a, 1, after: nil, data: Log.data(0..<1),
                    keys: SyncKeys(secret: RecoveryKey(bytes: [UInt8](repeating: 9, count: 32)))
                ).bytes
            ], code: "sync_wrong_key", record: 0),
        Hostile(name: "a record sent twice", records: [Log.a1.bytes, Log.a1.bytes], code: "sync_replayed", record: 1),
        Hostile(name: "two records swapped", records: [Log.a2.bytes, Log.a1.bytes], code: "sync_gap", record: 0),
        Hostile(name: "a record dropped", records: [Log.a1.bytes, Log.a3.bytes], code: "sync_gap", record: 1),
        Hostile(
            name: "a record cut short", records: [Log.a1.bytes, Array(Log.a2.bytes.dropLast(5))],
            code: "sync_malformed", record: 1),
        Hostile(
            name: "the reader's own record",
            records: [Log.record(Log.reader, 1, after: nil, data: Log.data(0..<1)).bytes], code: "sync_replayed",
            record: 0),
        Hostile(
            name: "a fork: another record 2", records: [Log.a1.bytes, Log.a2Fork.bytes], code: "sync_broken_chain",
            record: 1),
        Hostile(
            name: "the server keeps more than it sends", records: [Log.a1.bytes],
            heads: Log.heads([(Log.a, 2)]), code: "sync_gap", device: Log.a),
        Hostile(
            name: "a record names one the server withheld", records: [Log.a1.bytes, Log.b1.bytes],
            heads: Log.heads([(Log.a, 1), (Log.b, 1)]), code: "sync_gap", device: Log.a),
        Hostile(
            name: "the server forgot what it sent", records: [Log.a1.bytes, Log.a2.bytes],
            heads: Log.heads([(Log.a, 1)]), code: "sync_rollback", device: Log.a),
        Hostile(
            name: "the server lost the reader's own records", records: [], heads: Log.heads([(Log.reader, 1)]),
            acknowledged: 2, code: "sync_rollback", device: Log.reader),
        Hostile(
            name: "a plaintext that is not a bundle",
            records: [
                try! Log.keys.seal(
                    Array("not a bundle".utf8),
                    header: SyncHeader(
                        keyID: [], device: Log.a, sequence: 1, previous: [], seen: [], kind: .changes,
                        salt: [UInt8](repeating: 1, count: 16)), person: Log.person
                ).bytes
            ], code: "bad_magic", record: 0),
    ]

    @Test("a hostile page is refused with a typed error, and nothing of it is merged", arguments: hostile)
    func refused(_ hostile: Hostile) throws {
        let reader = SyncReader(keys: Log.keys, person: Log.person)
        let before = Log.data(5..<6)
        var data = before
        var chain = SyncChain(device: Log.reader, acknowledged: hostile.acknowledged)
        let start = chain
        let page = SyncPage(records: hostile.records, heads: hostile.heads, more: false)
        let error = #expect(throws: SyncError.self) { try reader.read(page, chain: &chain, into: &data) }
        #expect(error?.code.description == hostile.code)
        #expect(error?.record == hostile.record)
        #expect(error?.device == hostile.device)
        #expect(data == before)
        #expect(chain == start)
    }

    @Test("a page refused after an accepted one leaves the first merged and the rest out")
    func pages() throws {
        let reader = SyncReader(keys: Log.keys, person: Log.person)
        var chain = SyncChain(device: Log.reader)
        var data = DataSet()
        _ = try reader.read(SyncPage(records: [Log.a1.bytes], heads: [:], more: true), chain: &chain, into: &data)
        let afterFirst = (data, chain)
        #expect(throws: SyncError.self) {
            try reader.read(
                SyncPage(records: [Log.a2.bytes, Log.a2.bytes], heads: Log.heads([(Log.a, 2)]), more: false),
                chain: &chain, into: &data)
        }
        #expect(data == afterFirst.0)
        #expect(chain == afterFirst.1)
        #expect(chain.heads[Log.a]?.sequence == 1)
    }

    @Test("a new device starts from a snapshot and follows the chains after it; an older snapshot is a replay")
    func snapshot() throws {
        let reader = SyncReader(keys: Log.keys, person: Log.person)
        let whole = Log.data(0..<5)
        let snapshot = Log.record(
            Log.b, 2, after: Log.b1, seen: [SyncHead(device: Log.a, sequence: 2, hash: Log.a2.hash)], kind: .snapshot,
            data: whole)
        var chain = SyncChain(device: Log.reader)
        var data = DataSet()
        _ = try reader.read(
            SyncPage(
                records: [snapshot.bytes, Log.a3.bytes], heads: Log.heads([(Log.a, 3), (Log.b, 2)]), more: false),
            chain: &chain, into: &data)
        #expect(data == whole.merging(try Log.keys.dataSet(of: Log.a3, person: Log.person)))
        #expect(chain.heads[Log.a] == SyncHead(device: Log.a, sequence: 3, hash: Log.a3.hash))
        #expect(chain.heads[Log.b] == SyncHead(device: Log.b, sequence: 2, hash: snapshot.hash))

        let error = #expect(throws: SyncError.self) {
            try reader.read(
                SyncPage(records: [snapshot.bytes], heads: Log.heads([(Log.a, 3), (Log.b, 2)]), more: false),
                chain: &chain, into: &data)
        }
        #expect(error?.code == .replayed)
    }

    @Test("the README's block reads a page into a device's data")
    func readme() throws {
        let secret = RecoveryKey(bytes: (0..<32).map { UInt8($0 * 7 & 0xFF) })
        let person = Log.person
        let thisDevice = Log.reader
        let page = SyncPage(records: [Log.a1.bytes], heads: [Log.a: 1], more: false)
        var dataSet = DataSet()
        // README: begin
        let keys = SyncKeys(secret: secret)  // a RecoveryKey: RecoveryKey.random() on the first device
        let reader = SyncReader(keys: keys, person: person)
        var chain = SyncChain(device: thisDevice)
        _ = try reader.read(page, chain: &chain, into: &dataSet)  // all of the page, or nothing
        // README: end
        #expect(dataSet == Log.data(0..<2))
        #expect(chain.heads[Log.a]?.hash == Log.a1.hash)
    }

    @Test("a writer refuses a header a reader would refuse")
    func malformedHeaders() throws {
        let good = SyncHeader(
            keyID: [], device: Log.a, sequence: 2, previous: [UInt8](repeating: 0, count: 32), seen: [],
            kind: .changes, salt: [UInt8](repeating: 0, count: 16))
        var zero = good
        zero.sequence = 0
        var firstWithPrevious = good
        firstWithPrevious.sequence = 1
        var shortSalt = good
        shortSalt.salt = [1]
        var selfSeen = good
        selfSeen.seen = [SyncHead(device: Log.a, sequence: 1, hash: [UInt8](repeating: 0, count: 32))]
        var unordered = good
        unordered.seen = [Log.b, Log.reader, Log.reader].map {
            SyncHead(device: $0, sequence: 1, hash: [UInt8](repeating: 0, count: 32))
        }
        for header in [zero, firstWithPrevious, shortSalt, selfSeen, unordered] {
            let error = #expect(throws: SyncError.self) { try Log.keys.seal([], header: header, person: Log.person) }
            #expect(error?.code == .malformed)
        }
        #expect(try Log.keys.seal([], header: good, person: Log.person).header.sequence == 2)
    }
}
