import Foundation
import GlowBundle
import GlowModel
import GlowStorage
import GlowSync
import Testing

@testable import GlowRitual

/// The sync secret lives in the database's secret store, never in its file (issue 58): turned on,
/// the file, its log and its shared memory hold neither the secret nor its words; a file an earlier
/// version wrote gives its secret to the store and erases it, in an order a crash cannot half-do;
/// and a missing or unreadable entry is a typed error naming it, the database left as it was.
@Suite("The database's secrets")
struct DatabaseSecretTests {
    static let secret = DatabaseSyncTests.secret
    static let person = DatabaseSyncTests.person

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle)
        }
    }

    /// The bytes of the database at `path` with its write-ahead log and shared memory.
    static func fileBytes(_ path: String) throws -> [UInt8] {
        try ["", "-wal", "-shm"].flatMap { suffix -> [UInt8] in
            let file = path + suffix
            guard FileManager.default.fileExists(atPath: file) else { return [] }
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        }
    }

    /// What a secret looks like anywhere it could leak: its bytes, its words, its sync key.
    static func traces(of secret: RecoveryKey) -> [(String, [UInt8])] {
        [
            ("the secret", secret.bytes), ("its words", Array(secret.words.joined(separator: " ").utf8)),
            ("its sync key", SyncKeys(secret: secret).syncKeyBytes),
        ]
    }

    /// A file as schema 3 (before this issue) wrote it: sync on, the secret in `sync_state`, a
    /// goal, in write-ahead-log mode, as a running app left it.
    static func earlierFile(secret: RecoveryKey = secret) throws -> String {
        let path = DatabaseTests.temporary()
        let connection = try SQLiteConnection(path: path)
        _ = try connection.texts("PRAGMA journal_mode = WAL")
        for (index, step) in RitualDatabase.schema.migrations.prefix(3).enumerated() {
            try connection.execute(step.sql)
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS glow_migrations (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
            try connection.prepare("INSERT INTO glow_migrations (position, name) VALUES (?, ?)")
                .run([.integer(Int64(index + 1)), .text(step.name)])
        }
        try connection.execute("PRAGMA user_version = 3")
        try connection.execute("PRAGMA application_id = \(RitualDatabase.applicationID)")
        let goal = try DatabaseTests.goal(1)
        try connection.prepare("INSERT INTO goals (id, deleted, modified_at, record) VALUES (?, 0, 0, ?)")
            .run([.blob(goal.id.bytes), .blob(goal.wireEncoded())])
        try connection.prepare(
            "INSERT INTO sync_state (singleton, secret, person, device, sequence, last_hash, acknowledged, cursor, "
                + "snapshot_at) VALUES (1, ?, ?, ?, 0, X'', 0, 7, 0)"
        ).run([.blob(secret.bytes), .text(person.rawValue), .blob(DatabaseSyncTests.me.bytes)])
        return path
    }

    @Test("sync turned on: the secret is in the store, and neither it, its words nor its key in the file")
    func secretNeverInTheFile() async throws {
        let path = DatabaseTests.temporary()
        let secrets = FileSecretStore(database: path)
        let database = try await RitualDatabase(path: path, secrets: secrets)
        _ = try await database.perform { try $0.add(DatabaseTests.goal(1)) }
        try await database.enableSync(secret: Self.secret, person: Self.person, device: DatabaseSyncTests.me)
        _ = try await database.perform { try $0.add(DatabaseTests.goal(2)) }
        try await database.writeSyncSnapshot()
        #expect(try secrets.secret(.syncSecret) == Self.secret.bytes)
        let bytes = try Self.fileBytes(path)
        #expect(bytes.count > 4096, "the file and its log were read")
        for (what, trace) in Self.traces(of: Self.secret) {
            #expect(!Self.contains(bytes, trace), "\(what) is in the database's files")
        }
        // The scan finds what is there: the person's name, which is no secret.
        #expect(Self.contains(bytes, Array(Self.person.rawValue.utf8)))
        // Opened again, the sync reads its secret from the store.
        let again = try await RitualDatabase(path: path, secrets: secrets)
        await #expect(try again.sync?.syncSecret() == Self.secret)
    }

    @Test("an earlier file's secret moves to the store and is erased from the file, its log included")
    func earlierFileMoves() async throws {
        let path = try Self.earlierFile()
        #expect(Self.contains(try Self.fileBytes(path), Self.secret.bytes), "the earlier file holds it")
        let secrets = InMemorySecretStore()
        do {
            let database = try await RitualDatabase(path: path, secrets: secrets)
            let sync = try await #require(try database.sync)
            #expect(sync.hasSecret && sync.person == Self.person.rawValue && sync.state.cursor == 7)
            await #expect(try database.data.goals.count == 1)
        }
        #expect(try secrets.secret(.syncSecret) == Self.secret.bytes)
        for (what, trace) in Self.traces(of: Self.secret) {
            #expect(!Self.contains(try Self.fileBytes(path), trace), "\(what) is still in the file")
        }
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try connection.integer("SELECT count(*) FROM sync_secret_leaving") == 0)
        #expect(try connection.integer("PRAGMA user_version") == Int64(RitualDatabase.schemaVersion))
    }

    /// What the store holds when an earlier file is opened (a crash may have left the secret
    /// kept there before the file's erasure), and whether the open succeeds.
    static let moves: [(String, [UInt8]?, Bool)] = [
        ("an empty store", nil, true),
        ("a store that kept the secret before a crash", secret.bytes, true),
        ("a store of another database's secret", [UInt8](repeating: 0x11, count: 32), false),
    ]

    @Test("opened after a crash at any point of the move, the file and the store converge", arguments: 0..<3)
    func convergesAfterCrash(_ index: Int) async throws {
        let (name, held, opens) = Self.moves[index]
        let path = try Self.earlierFile()
        let secrets = InMemorySecretStore()
        if let held { try secrets.setSecret(held, for: .syncSecret) }
        if opens {
            _ = try await RitualDatabase(path: path, secrets: secrets)
            #expect(try secrets.secret(.syncSecret) == Self.secret.bytes, "\(name)")
            #expect(!Self.contains(try Self.fileBytes(path), Self.secret.bytes), "\(name)")
            return
        }
        await #expect {
            _ = try await RitualDatabase(path: path, secrets: secrets)
        } throws: { error in
            (error as? StoreError)?.code == .corrupt && "\(error)".contains("another sync secret")
        }
        // Nothing was lost: the file still holds its secret, the store its own.
        #expect(try secrets.secret(.syncSecret) == held)
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        let row = try connection.prepare("SELECT secret FROM sync_secret_leaving")
        #expect(try row.step() && row.blob(0) == Self.secret.bytes)
        // Given a store of its own, it moves.
        let own = InMemorySecretStore()
        await #expect(try RitualDatabase(path: path, secrets: own).sync?.hasSecret == true)
        #expect(try own.secret(.syncSecret) == Self.secret.bytes)
    }

    /// A sync secret entry that is missing or does not read, and the code it gives.
    static let entries: [(String, [UInt8]?, StoreError.Code)] = [
        ("missing", nil, .secretMissing), ("5 bytes", [1, 2, 3, 4, 5], .corrupt), ("empty", [], .corrupt),
    ]

    @Test(
        "a missing or unreadable secret is a typed error naming it, and the database stays as it was", arguments: 0..<3)
    func missingOrCorrupt(_ index: Int) async throws {
        let (name, entry, code) = Self.entries[index]
        let path = DatabaseTests.temporary()
        do {
            let database = try await RitualDatabase(path: path, secrets: InMemorySecretStore())
            _ = try await database.perform { try $0.add(DatabaseTests.goal(1)) }
            try await database.enableSync(secret: Self.secret, person: Self.person, device: DatabaseSyncTests.me)
        }
        let secrets = InMemorySecretStore()
        if let entry { try secrets.setSecret(entry, for: .syncSecret) }
        let database = try await RitualDatabase(path: path, secrets: secrets)
        let sync = try await #require(try database.sync)
        #expect(!sync.hasSecret, "\(name)")
        let (data, pending) = (try await database.data, sync.state.outbox.pending)
        func named(_ error: any Error) -> Bool {
            (error as? StoreError)?.code == code && "\(error)".contains("sync-secret")
                && "\(error)".contains(secrets.location)
        }
        await #expect(
            performing: { _ = try await database.perform { try $0.add(DatabaseTests.goal(2)) } }, throws: named)
        await #expect(performing: { _ = try await database.sync?.syncSecret() }, throws: named)
        let (after, held) = (try await database.data, try await database.sync)
        #expect(after == data && held?.state.outbox.pending == pending, "\(name)")
        let reopened = try await RitualDatabase(path: path, secrets: secrets).data
        #expect(reopened == data)

        // Another secret is refused against the records it would have sealed; the right one is
        // given back, and the device goes on.
        let wrong = await #expect(throws: StoreError.self) {
            try await database.restoreSyncSecret(RecoveryKey(bytes: [UInt8](repeating: 0x22, count: 32)))
        }
        #expect((wrong?.refusal as? SyncError)?.code == .wrongKey)
        try await database.restoreSyncSecret(Self.secret)
        _ = try await database.perform { try $0.add(DatabaseTests.goal(2)) }
        await #expect(try database.sync?.state.outbox.pending.count == pending.count + 1)
        #expect(try secrets.secret(.syncSecret) == Self.secret.bytes)
    }

    @Test("the app opens with sync's missing secret said at once, and the words give it back")
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @MainActor
    func appSaysMissingSecret() async throws {
        let path = DatabaseTests.temporary()
        do {
            let database = try await RitualDatabase(path: path, secrets: InMemorySecretStore())
            try await database.enableSync(secret: Self.secret, person: Self.person, device: DatabaseSyncTests.me)
        }
        let app = try await RitualApp(path: path, device: DatabaseSyncTests.me, secrets: InMemorySecretStore())
        #expect(app.syncsData)
        guard case .store(let error)? = app.syncFailure else {
            Issue.record("no failure said: \(String(describing: app.syncFailure))")
            return
        }
        #expect(error.code == .secretMissing)
    }

    @Test("turning sync off removes the secret from the store; turning it on twice is refused")
    func disableRemoves() async throws {
        let path = DatabaseTests.temporary()
        let secrets = InMemorySecretStore()
        let database = try await RitualDatabase(path: path, secrets: secrets)
        try await database.enableSync(secret: Self.secret, person: Self.person, device: DatabaseSyncTests.me)
        let twice = await #expect(throws: StoreError.self) {
            try await database.enableSync(
                secret: RecoveryKey(bytes: [UInt8](repeating: 3, count: 32)), person: Self.person,
                device: DatabaseSyncTests.me)
        }
        #expect(twice?.code == .refused)
        #expect(try secrets.secret(.syncSecret) == Self.secret.bytes)
        try await database.disableSync()
        #expect(try secrets.secret(.syncSecret) == nil)
        await #expect(try database.sync == nil)
    }
}
