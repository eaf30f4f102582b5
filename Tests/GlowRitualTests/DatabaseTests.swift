import Foundation
import GlowBundle
import GlowClient
import GlowModel
import GlowStorage
import GlowWire
import Testing

@testable import GlowRitual

/// The durable store (issue 17): what is committed is there when the file opens again, a refused
/// change leaves nothing behind, and files it should not touch are left as they were.
@Suite("Ritual database")
struct DatabaseTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let boundary = try! DayBoundary(timeZone: .utc)
    static let device = try! DeviceID("01938a6e-7c00-7abc-8def-00000000d001")
    static let start = try! Day(iso: "2026-11-01")

    static func temporary() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-db-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("glow.sqlite").path
    }

    /// A session of `person` that a sign-in gave, valid until 2100, with ``offline``'s server: what
    /// a test of the app object's own state signs in with.
    static func session(_ person: PersonID) -> ClientSession {
        let expiry = Instant(unchecked: 4_102_444_800_000)
        return ClientSession(
            account: person, id: "session-\(person)", accessToken: "access-\(person)",
            refreshToken: "refresh-\(person)",
            accessExpiry: expiry, refreshExpiry: expiry)
    }

    /// A server nobody answers at (a closed port): a test that signs in with ``session(_:)`` never
    /// calls it.
    static let offline = ServiceClient(base: URL(string: "http://127.0.0.1:9")!, retries: 0)

    /// A tally goal "Goal N" of `unit` that starts on ``start``.
    static func goal(_ number: Int, unit: String = "glasses") throws -> Goal {
        let created = try Instant(rfc3339: "2026-11-01T08:00:00Z")
        return try Goal(
            id: GoalID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_0000 + UInt64(number)),
            title: "Goal \(number)", kind: .tally(TallyConfig(dailyTarget: 3, unit: unit)),
            schedule: Schedule(.daily, from: start), startDay: start, createdAt: created, modifiedAt: created)
    }

    static func instant(_ text: String) throws -> Instant { try Instant(rfc3339: text) }

    @Test("taps, edits and undos committed are there when the file opens again")
    func reopen() async throws {
        let path = Self.temporary()
        let goal = try Self.goal(1)
        do {
            let database = try await RitualDatabase(path: path)
            try await database.perform { (data) throws(ModelError) in try data.add(goal) }
            for hour in 10...12 {
                try await database.perform { (data) throws(ModelError) in
                    try data.tap(
                        .count(1), goal: goal.id, at: try Instant(rfc3339: "2026-11-20T\(hour):00:00Z"),
                        device: Self.device, boundary: Self.boundary)
                }
            }
            try await database.perform { (data) throws(ModelError) in
                try data.editGoal(goal.id, at: try Instant(rfc3339: "2026-11-20T13:00:00Z")) { $0.title = "Water" }
            }
            try await database.perform { (data) throws(ModelError) in
                try data.undo(
                    goal: goal.id, on: try Day(iso: "2026-11-20"), at: try Instant(rfc3339: "2026-11-20T14:00:00Z"),
                    device: Self.device)
            }
        }
        let reopened = try await RitualDatabase(path: path)
        await #expect(try reopened.integrityCheck())
        let data = try await reopened.data
        #expect(data.goals[goal.id]?.title == "Water")
        let entry = try #require(data.checkIn(CheckInKey(goalID: goal.id, day: try Day(iso: "2026-11-20"))))
        #expect(entry.taps.count == 4 && entry.deleted, "three taps and the undo")
    }

    @Test("a refused change writes nothing, on disk or in memory")
    func refused() async throws {
        let path = Self.temporary()
        let database = try await RitualDatabase(path: path)
        let goal = try Self.goal(1)
        try await database.perform { (data) throws(ModelError) in try data.add(goal) }
        let before = try await database.data
        await #expect(throws: StoreError.self) {
            try await database.perform { (data) throws(ModelError) in
                // A Day before the goal starts: the model refuses it.
                try data.tap(
                    .count(1), goal: goal.id, on: try Day(iso: "2026-10-01"),
                    at: try Instant(rfc3339: "2026-11-20T10:00:00Z"), device: Self.device, boundary: Self.boundary)
            }
        }
        await #expect(try database.data == before)
        await #expect(try RitualDatabase(path: path).data == before)
    }

    @Test("a bundle imports whole, and the stored records keep fields this version does not know")
    func importKeepsUnknownFields() async throws {
        let sample = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Spec/examples/sample.glow")))
        let path = Self.temporary()
        let result = try await RitualDatabase(path: path).importBundle(sample)
        #expect(result.changes.checkInCount == 4_418)
        let reopened = try await RitualDatabase(path: path)
        let (expected, _) = try BundleReader().dataSet(sample)
        await #expect(try reopened.data == expected)
        // Re-exported, the same frames as the bundle that came in (BUNDLE-15): nothing was lost
        // on the way through the database, unknown fields and records of unknown types included.
        let options = BundleOptions(createdAt: try Instant(rfc3339: "2026-11-28T20:00:00Z"))
        await #expect(
            BundleWriter.frames(try reopened.data, options: options) == BundleWriter.frames(expected, options: options))
    }

    @Test("a bundle that does not verify imports nothing")
    func badImport() async throws {
        var sample = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Spec/examples/sample.glow")))
        sample[sample.count - 40] ^= 0x10
        let path = Self.temporary()
        let database = try await RitualDatabase(path: path)
        await #expect(throws: StoreError.self) { try await database.importBundle(sample) }
        await #expect(try database.data.isEmpty)
        await #expect(try RitualDatabase(path: path).data.isEmpty)
    }

    @Test("a file of a newer schema, or not a Glow database, is refused and left byte for byte")
    func refusesForeignFiles() async throws {
        let newer = Self.temporary()
        _ = try await RitualDatabase(path: newer)
        let connection = try SQLiteConnection(path: newer)
        try connection.execute("PRAGMA user_version = \(RitualDatabase.schemaVersion + 1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: newer))
        await #expect {
            _ = try await RitualDatabase(path: newer)
        } throws: { error in
            (error as? StoreError)?.code == .newerSchema
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: newer)) == before)

        let foreign = Self.temporary()
        let other = try SQLiteConnection(path: foreign)
        try other.execute("CREATE TABLE notes (text TEXT)")
        let foreignBefore = try Data(contentsOf: URL(fileURLWithPath: foreign))
        await #expect {
            _ = try await RitualDatabase(path: foreign)
        } throws: { error in
            (error as? StoreError)?.code == .corrupt
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == foreignBefore)

        let text = Self.temporary()
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: text))
        await #expect(throws: StoreError.self) { _ = try await RitualDatabase(path: text) }
    }

    @Test("a snapshot reads the data without a write: no file made, no migration run, foreign files refused")
    func snapshot() throws {
        let missing = Self.temporary()
        #expect {
            _ = try RitualDatabase.snapshot(path: missing)
        } throws: { error in
            (error as? StoreError)?.code == .cannotOpen
        }
        #expect(!FileManager.default.fileExists(atPath: missing))

        // A file of schema 1 with a goal: read as it is, and still schema 1 afterwards.
        let older = Self.temporary()
        let goal = try Self.goal(3)
        do {
            let connection = try SQLiteConnection(path: older)
            try connection.execute(RitualDatabase.schema.migrations[0].sql)
            try connection.execute("PRAGMA application_id = \(RitualDatabase.applicationID)")
            try connection.execute("PRAGMA user_version = 1")
            try connection.prepare("INSERT INTO goals (id, deleted, modified_at, record) VALUES (?, 0, 0, ?)")
                .run([.blob(goal.id.bytes), .blob(goal.wireEncoded())])
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: older))
        #expect(try RitualDatabase.snapshot(path: older).goals[goal.id] == goal)
        #expect(try Data(contentsOf: URL(fileURLWithPath: older)) == before)
        #expect(try SQLiteConnection(path: older).integer("PRAGMA user_version") == 1)

        let empty = Self.temporary()
        _ = try SQLiteConnection(path: empty)
        #expect {
            _ = try RitualDatabase.snapshot(path: empty)
        } throws: { error in
            (error as? StoreError)?.code == .corrupt && "\(error)".contains("empty")
        }
    }

    @Test("a file of every earlier schema opens migrated to the current one, its records kept")
    func migrationsFromEveryVersion() async throws {
        let goal = try Self.goal(7)
        for version in 1..<RitualDatabase.schemaVersion {
            // A file as that version wrote it, before steps were recorded by name: its
            // migrations only, and a goal in it.
            let path = Self.temporary()
            let connection = try SQLiteConnection(path: path)
            for (index, step) in RitualDatabase.schema.migrations.enumerated() where index < version {
                try connection.execute(step.sql)
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
            try connection.execute("PRAGMA application_id = \(RitualDatabase.applicationID)")
            try connection.prepare("INSERT INTO goals (id, deleted, modified_at, record) VALUES (?, 0, 0, ?)")
                .run([.blob(goal.id.bytes), .blob(goal.wireEncoded())])
            let database = try await RitualDatabase(path: path)
            await #expect(try database.data.goals[goal.id] == goal, "from schema \(version)")
            #expect(try connection.integer("PRAGMA user_version") == Int64(RitualDatabase.schemaVersion))
            try await database.setDeviceValue([1, 2, 3], for: "probe")
            await #expect(try database.deviceValue("probe") == [1, 2, 3], "the newer tables are there")
        }
    }

    @Test("an empty file is migrated to the current schema, and opening again changes nothing")
    func migration() async throws {
        let path = Self.temporary()
        _ = try await RitualDatabase(path: path)
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.integer("PRAGMA user_version") == Int64(RitualDatabase.schemaVersion))
        #expect(try connection.integer("PRAGMA application_id") == RitualDatabase.applicationID)
        #expect(
            try connection.texts(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                == [
                    "check_ins", "device_state", "feed_log", "glow_migrations", "goals", "other_records", "profile",
                    "sync_heads", "sync_pending", "sync_promised", "sync_secret_leaving", "sync_state",
                ])
        #expect(try connection.texts("PRAGMA journal_mode") == ["wal"])
        _ = try await RitualDatabase(path: path)
        #expect(try connection.integer("PRAGMA user_version") == Int64(RitualDatabase.schemaVersion))
    }
}

/// The profile photo, written atomically beside the database.
@Suite("Profile photo")
struct PhotoTests {
    @Test("a photo is written whole, becomes the profile's, and replaces the last one's file")
    func save() async throws {
        let path = DatabaseTests.temporary()
        let database = try await RitualDatabase(path: path)
        let sample = try [UInt8](
            Data(contentsOf: DatabaseTests.root.appendingPathComponent("Spec/examples/sample.glow")))
        try await database.importBundle(sample)
        let first = try await database.savePhoto(Array(repeating: 0xFF, count: 50_000))
        let second = try await database.savePhoto([0xFF, 0xD8, 0xFF, 0xE0])
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        await #expect(try RitualDatabase(path: path).data.profile?.photoReference == second)
        #expect(try Data(contentsOf: folder.appendingPathComponent(second)) == Data([0xFF, 0xD8, 0xFF, 0xE0]))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(first).path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: database.photoFolder.path) == [
                String(second.dropFirst(7))
            ])
    }

    @Test("without a profile, or without bytes, nothing is written")
    func refused() async throws {
        let database = try await RitualDatabase(path: DatabaseTests.temporary())
        await #expect(throws: StoreError.self) { try await database.savePhoto([1, 2, 3]) }
        await #expect(throws: StoreError.self) { try await database.savePhoto([]) }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: database.photoFolder.path)) ?? []
        #expect(left.isEmpty)
    }
}
