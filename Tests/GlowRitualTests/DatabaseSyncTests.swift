import Foundation
import GlowBundle
import GlowModel
import GlowRitual
import GlowStorage
import GlowSync
import Testing

/// The person's database keeps its sync (Spec/sync.md): each local change a sealed record in the
/// change's transaction, pulled pages merged all or nothing, and all of it read back when the file
/// is opened again, as a killed app's would be.
@Suite("Ritual database sync")
struct DatabaseSyncTests {
    static let secret = RecoveryKey(bytes: [UInt8](repeating: 0x5E, count: 32))
    static let keys = SyncKeys(secret: secret)
    static let person = PersonID("p-1")
    static let me = DeviceID(high: 0xD5, low: 1)
    static let other = DeviceID(high: 0xD5, low: 2)
    static let third = DeviceID(high: 0xD5, low: 3)
    static let created = try! Instant(rfc3339: "2025-06-01T08:00:00Z")

    static func goal(_ low: UInt64, _ title: String) throws -> Goal {
        try Goal(
            id: GoalID(high: 0x60, low: low), title: title, kind: .streak,
            schedule: Schedule(.daily, from: Day(iso: "2025-06-01")), startDay: Day(iso: "2025-06-01"),
            createdAt: created, modifiedAt: created)
    }

    /// Record `sequence` of `device` holding `goal`, after `previous`, naming `seen`.
    static func record(
        _ device: DeviceID, _ sequence: UInt64, after previous: SyncRecord?, goal: Goal, seen: [SyncHead] = []
    ) throws -> SyncRecord {
        var data = DataSet()
        _ = try data.add(goal)
        let header = SyncHeader(
            keyID: [], device: device, sequence: sequence, previous: previous?.hash ?? [], seen: seen,
            kind: .changes, salt: [UInt8](repeating: UInt8(sequence), count: 16))
        return try keys.seal(
            BundleWriter.bundle(data, options: BundleOptions(createdAt: created)), header: header,
            person: person.rawValue)
    }

    @Test("local changes wait as sealed records, pulled pages merge, and a reopened file holds all of it")
    func keptAcrossOpens() async throws {
        let path = DatabaseTests.temporary()
        var database = try await RitualDatabase(path: path)
        _ = try await database.perform { try $0.add(Self.goal(1, "Mine before sync")) }
        try await database.enableSync(secret: Self.secret, person: Self.person, device: Self.me, now: Self.created)
        _ = try await database.perform { try $0.add(Self.goal(2, "Mine after")) }
        let pending = try await #require(try database.sync).state.outbox.pending
        #expect(pending.count == 2, "the data before sync, and the change after")
        // The records are this device's, sealed: they open to what was changed.
        let first = try SyncRecord(bytes: pending[0])
        #expect(try Self.keys.dataSet(of: first, person: Self.person.rawValue).goals.count == 1)

        // Another device's record merges; one that names a record of a third device the page
        // leaves for later is remembered across a reopen.
        let theirs = try Self.record(Self.other, 1, after: nil, goal: Self.goal(3, "Theirs"))
        let withheld = try Self.record(Self.third, 1, after: nil, goal: Self.goal(4, "Third"))
        let naming = try Self.record(
            Self.other, 2, after: theirs, goal: Self.goal(5, "Theirs again"),
            seen: [SyncHead(device: Self.third, sequence: 1, hash: withheld.hash)])
        let changes = try await database.applySync(
            SyncPulled(page: SyncPage(records: [theirs.bytes, naming.bytes], heads: [:], more: true), cursor: 2))
        #expect(changes.goals.count == 2)
        try await database.acknowledgeSync(through: 1)

        database = try await RitualDatabase(path: path)
        let sync = try await #require(try database.sync)
        #expect(sync.state.cursor == 2)
        #expect(sync.state.outbox.pending == [pending[1]])
        #expect(sync.state.chain.heads[Self.other]?.hash == naming.hash)
        #expect(sync.state.chain.promised[Self.third] == 1)
        await #expect(try database.data.goals.count == 4)

        // The pull's last page without the third device's record is refused (SYNC-7): nothing of it kept.
        let before = try await database.data
        let refused = await #expect(throws: StoreError.self) {
            try await database.applySync(
                SyncPulled(
                    page: SyncPage(records: [], heads: [Self.other: 2, Self.me: 1], more: false), cursor: 2))
        }
        #expect((refused?.refusal as? SyncError)?.code == .gap)
        await #expect(try database.data == before)
        // With it, the pull ends.
        try await database.applySync(
            SyncPulled(
                page: SyncPage(
                    records: [withheld.bytes], heads: [Self.other: 2, Self.third: 1, Self.me: 1], more: false),
                cursor: 3))
        await #expect(try database.data.goals.count == 5)
    }

    @Test("a tampered page is refused whole with the reader's error, and disabling sync forgets it all")
    func refusedAndDisabled() async throws {
        let path = DatabaseTests.temporary()
        let database = try await RitualDatabase(path: path)
        try await database.enableSync(secret: Self.secret, person: Self.person, device: Self.me)
        let good = try Self.record(Self.other, 1, after: nil, goal: Self.goal(1, "One"))
        var bad = try Self.record(Self.other, 2, after: good, goal: Self.goal(2, "Two")).bytes
        bad[bad.count - 3] ^= 1
        let error = await #expect(throws: StoreError.self) {
            try await database.applySync(
                SyncPulled(page: SyncPage(records: [good.bytes, bad], heads: [:], more: true), cursor: 2))
        }
        #expect((error?.refusal as? SyncError)?.code == .tampered)
        await #expect(try database.data.goals.isEmpty)
        await #expect(try database.sync?.state.cursor == 0)
        try await database.disableSync()
        await #expect(try database.sync == nil)
        await #expect(try RitualDatabase(path: path).sync == nil)
    }
}
