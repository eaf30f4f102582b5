import Foundation
import GlowBundle
import GlowClient
import GlowCore
import GlowModel
import GlowPostgres
import GlowRitual
import GlowSync
import GlowToolSupport
import Testing

/// One person's phone, watch and laptop sync their own data through real glow-server processes
/// (Spec/sync.md): they tap and edit, sync through a process chosen at random, are killed in the
/// middle of a round (what the round did is lost on the device, whatever the server kept), write
/// snapshots, and the laptop stays offline for a week of taps. At the end every device holds the
/// same data, with every tap made on any of them; and the server's database holds none of the
/// person's titles, notes or Days, nor a plaintext bundle.
@Suite("Sync through glow-server processes", .serialized)
struct SyncProcessTests {
    static let password = "correct horse battery staple"
    static let boundary = try! DayBoundary(timeZone: TimeZoneID("Europe/Lisbon"), dayStartMinutes: 120)
    static let start = try! Day(iso: "2025-05-01")
    static let created = try! Instant(rfc3339: "2025-05-01T06:00:00Z")
    /// Text in every title and note: what must never reach the server in the clear.
    static let marker = "Sobriety-7f3a"
    static let goals = (0..<3).map { GoalID(high: 0x5C, low: UInt64($0)) }

    /// A device: its own database file (a kill reopens it, with what it committed), and its session.
    struct Device {
        let path: String
        let keeper: SessionKeeper
        let id: DeviceID
        var database: RitualDatabase
        var clock: Instant
        var online = true

        var data: DataSet { get async throws { try await database.data } }

        /// The process killed and started again: a new database object on the file.
        mutating func restart() async throws { database = try await RitualDatabase(path: path) }
    }

    /// A transport that stops working after `budget` calls, as a device killed in the middle of a
    /// round.
    final class Dying: SyncTransport {
        let inner: any SyncTransport
        let budget: Locked<Int>

        init(inner: any SyncTransport, budget: Int) {
            self.inner = inner
            self.budget = Locked(budget)
        }

        struct Killed: Error {}

        func spend() throws {
            try budget.withLock { left in
                guard left > 0 else { throw Killed() }
                left -= 1
            }
        }

        func push(_ records: [[UInt8]], device: DeviceID) async throws -> UInt64 {
            try spend()
            return try await inner.push(records, device: device)
        }

        func pull(device: DeviceID, after cursor: UInt64, maxBytes: Int) async throws -> SyncPulled {
            try spend()
            return try await inner.pull(device: device, after: cursor, maxBytes: maxBytes)
        }
    }

    /// A tap made, as the test remembers it.
    struct Made: Hashable {
        var key: CheckInKey
        var tap: Tap
    }

    /// The person's three devices, signed in through the processes in turn, each with a database
    /// of its own in `folder`, sync turned on with the person's secret.
    static func devices(_ clients: [ServiceClient], mailFolder: String, folder: String, secret: RecoveryKey)
        async throws -> [Device]
    {
        let address = "sync-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await clients[0].signUp(email: address, password: password)
        let token = try ServerProcess.mailedToken(mailFolder, to: address)
        let first = try await clients[0].confirmSignUp(token: token, password: password, device: "phone")
        var sessions = [first]
        for name in ["watch", "laptop"] {
            sessions.append(
                try await clients[sessions.count % clients.count].signIn(
                    email: address, password: password, device: name))
        }
        var devices: [Device] = []
        for (index, session) in sessions.enumerated() {
            let path = folder + "/device-\(index).sqlite"
            let id = DeviceID(high: 0xDE, low: UInt64(index + 1))
            let database = try await RitualDatabase(path: path)
            try await database.enableSync(secret: secret, person: session.account, device: id)
            devices.append(
                Device(
                    path: path, keeper: SessionKeeper(client: clients[index % clients.count], session: session), id: id,
                    database: database, clock: try created.adding(milliseconds: 3 * 86_400_000)))
        }
        return devices
    }

    /// Plays a seeded run and returns the devices at the end, each synced twice round.
    static func play(_ clients: [ServiceClient], mailFolder: String, folder: String, seed: UInt64) async throws
        -> [Device]
    {
        let secret = RecoveryKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) })
        var devices = try await Self.devices(clients, mailFolder: mailFolder, folder: folder, secret: secret)
        var random = SeededRandom(seed: seed)
        var made: [Made] = []
        // The phone makes the goals; the others get them by sync.
        for (index, id) in goals.enumerated() {
            let kind: GoalKind = index == 1 ? .tally(TallyConfig(dailyTarget: 5, unit: "cups")) : .streak
            let goal = try Goal(
                id: id, title: "\(marker) goal \(index)", note: "\(marker) note \(index)", kind: kind,
                schedule: try Schedule(.daily, from: start), startDay: start, createdAt: created, modifiedAt: created)
            try await devices[0].database.perform { try $0.add(goal) }
        }
        var kills = 0
        var pages = 0
        for step in 0..<160 {
            let index = Int(random.next() % 3)
            var device = devices[index]
            device.clock = try device.clock.adding(milliseconds: Int64(random.next() % 10_800_000))
            // The laptop goes offline for a week of taps.
            if index == 2 { device.online = !(30..<110).contains(step) }
            let editable = try await device.data.goals[goals[0]] != nil
            switch random.next() % 8 {
            case 0..<4:
                let goal = goals[Int(random.next() % 3)]
                guard try await device.data.goals[goal] != nil else { break }
                let day = boundary.day(containing: device.clock).advanced(by: -Int(random.next() % 2))
                let key = CheckInKey(goalID: goal, day: day)
                let before = Set(try await device.data.checkIn(key)?.taps ?? [])
                let tap: CheckInTap = goal.low == 1 ? .count(1) : .done
                let (clock, id) = (device.clock, device.id)
                try await device.database.perform {
                    try $0.tap(tap, goal: goal, on: day, at: clock, device: id, boundary: boundary)
                }
                for new in Set(try await device.data.checkIn(key)?.taps ?? []).subtracting(before) {
                    made.append(Made(key: key, tap: new))
                }
            case 4 where editable:
                let (title, clock) = ("\(marker) goal 0 by \(index) at \(step)", device.clock)
                try await device.database.perform { try $0.editGoal(goals[0], at: clock) { $0.title = title } }
            case 5 where device.online:
                // Killed in the middle of a round: the device comes back with what its file kept.
                let dying = Dying(inner: device.keeper.syncTransport, budget: Int(random.next() % 3))
                do {
                    try await device.database.syncData(through: dying, now: device.clock, maxBytes: 700)
                } catch is Dying.Killed {
                    kills += 1
                }
                try await device.restart()
            case 6 where device.online:
                try await device.database.syncData(
                    through: device.keeper.syncTransport, now: device.clock, maxBytes: 700, snapshotEvery: 8,
                    progress: { _ in pages += 1 })
            default:
                break
            }
            devices[index] = device
        }
        for _ in 0..<2 {
            for device in devices {
                try await device.database.syncData(through: device.keeper.syncTransport, now: device.clock)
            }
        }
        let phone = try await devices[0].data
        for device in devices {
            #expect(try await device.data == phone, "device \(device.id) differs from the phone")
            #expect(try await device.database.sync?.state.outbox.pending.isEmpty == true)
            // What each device kept on disk is what it holds.
            #expect(try await RitualDatabase(path: device.path).data == phone)
        }
        for item in made {
            #expect(phone.checkIn(item.key)?.taps.contains(item.tap) == true, "a tap on \(item.key.day) was lost")
        }
        var snapshots = 0
        for device in devices where try await device.database.sync?.snapshotAt ?? 0 > 0 { snapshots += 1 }
        #expect(made.count > 20 && kills > 0 && pages > 10, "\(made.count) taps, \(kills) kills, \(pages) pages")
        #expect(snapshots > 0, "a device wrote a snapshot")
        return devices
    }

    /// What the server must not hold: the titles' and notes' text, a bundle's signature (a
    /// plaintext bundle begins with it), and every 16 bytes of the data's uncompressed frames that
    /// look like data rather than padding (ten different byte values or more): the Days and taps
    /// of the check-in blocks among them.
    static func secrets(_ data: DataSet) -> [[UInt8]] {
        var texts: Set<String> = [marker]
        for goal in data.goals.values {
            texts.insert(goal.title)
            if let note = goal.note { texts.insert(note) }
        }
        let frames = BundleWriter.frames(data, options: BundleOptions(createdAt: created))
        let windows = stride(from: 0, to: frames.count - 16, by: 8).map { Array(frames[$0..<$0 + 16]) }
            .filter { Set($0).count >= 10 }
        return texts.map { Array($0.utf8) } + [[0x89, 0x47, 0x4C, 0x57]] + windows
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return false }
        var index = haystack.startIndex
        while let found = haystack[index...].firstIndex(of: first) {
            if found + needle.count > haystack.count { return false }
            if haystack[found..<found + needle.count].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }

    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-sync-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder + "/mail", withIntermediateDirectories: true)
        return folder
    }

    @Test("three devices on the SQLite default converge; the server's file holds no plaintext")
    func sqlite() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.sqlite"
        let server = try ServerProcess(arguments: [
            "--database", path, "--mail-dir", folder + "/mail", "--client-interval", "0",
        ])
        let devices = try await Self.play(
            [ServiceClient(base: server.url)], mailFolder: folder + "/mail", folder: folder, seed: 46)
        server.stop()
        var bytes: [UInt8] = []
        for file in [path, path + "-wal"] {
            if let data = FileManager.default.contents(atPath: file) { bytes += Array(data) }
        }
        #expect(bytes.count > 10_000, "the server's file holds the log")
        for secret in Self.secrets(try await devices[0].data) {
            let held = Self.contains(bytes, secret)
            #expect(!held, "the server's file holds \(String(decoding: secret, as: UTF8.self))")
        }
        // The search finds what is there: a bundle of the data stored without compression holds
        // every secret.
        let stored = BundleWriter.bundle(
            try await devices[0].data, options: BundleOptions(level: 0, createdAt: Self.created))
        let secrets = Self.secrets(try await devices[0].data)
        let found = secrets.filter { Self.contains(stored, $0) }.count
        #expect(found == secrets.count && secrets.count > 20, "\(found) of \(secrets.count) found in a plain bundle")
    }

    @Test(
        "three devices through two processes over one PostgreSQL converge; no row holds plaintext",
        .enabled(if: TemporaryPostgres.available))
    func postgres() async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = "postgresql://postgres@/postgres?host=\(cluster.folder.path)"
        let servers = try (0..<2).map { _ in
            try ServerProcess(arguments: ["--database", url, "--mail-dir", folder + "/mail", "--client-interval", "0"])
        }
        defer { for server in servers { server.stop() } }
        let devices = try await Self.play(
            servers.map { ServiceClient(base: $0.url) }, mailFolder: folder + "/mail", folder: folder,
            seed: 2046)
        // Every cell of every table, as the database gives it.
        let connection = try PostgresConnection(cluster.conninfo)
        let tables = try connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        var cells: [UInt8] = []
        var records = 0
        for row in 0..<tables.rows.count {
            let table = try tables.text(row, "tablename")
            let result = try connection.execute("SELECT * FROM \(table)")
            if table == "sync_records" { records = result.rows.count }
            for values in result.rows {
                for value in values {
                    switch value {
                    case .text(let text): cells += Array(text.utf8) + [0]
                    case .bytes(let bytes): cells += bytes + [0]
                    case .int, .null: break
                    }
                }
            }
        }
        #expect(records > 0, "the log keeps records")
        for secret in Self.secrets(try await devices[0].data) {
            let held = Self.contains(cells, secret)
            #expect(!held, "a row holds \(String(decoding: secret, as: UTF8.self))")
        }
    }
}
