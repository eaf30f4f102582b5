import Foundation
import GlowAuth
import GlowConformance
import GlowCore
import GlowFeed
import GlowModel
import GlowPostgres
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowServer
import GlowServerStores
import GlowService
import GlowStorage
import Testing

/// glow-server's state in PostgreSQL, shared by several processes (issue 28): each
/// `PostgresServerDatabase` here stands for one server process with its own connections.
@Suite("PostgreSQL stores", .enabled(if: TemporaryPostgres.available), .serialized)
final class PostgresStoreTests {
    let cluster: TemporaryPostgres

    init() throws { cluster = try TemporaryPostgres() }
    deinit { cluster.stop() }

    final class Mailer: AuthMailer {
        let sent = Locked<[AuthMail]>([])
        func send(_ mail: AuthMail) { sent.withLock { $0.append(mail) } }
    }

    /// The spec's defaults, hashing through a gate of this suite whose line waits as long as it
    /// takes: beside the whole test process's suites, the process's own gate may answer `busy`.
    static let configuration: AccountConfiguration = {
        var configuration = AccountConfiguration()
        configuration.hashingGate = HashingGate(concurrent: 1, wait: 120)
        return configuration
    }()

    func service(_ database: PostgresServerDatabase, _ mailer: Mailer) throws -> AccountService {
        let relay = FeedRelay(store: database.relay)
        return try AccountService(
            store: database.accounts, configuration: Self.configuration, mailer: mailer,
            eraser: RelayEraser(relay: relay), revoker: UnconfiguredRevoker())
    }

    @Test("a fresh database takes the schema once; every process after that opens it as it is")
    func migrations() throws {
        _ = try PostgresServerDatabase(url: cluster.conninfo)
        _ = try PostgresServerDatabase(url: cluster.conninfo)
        let connection = try PostgresConnection(cluster.conninfo)
        let steps = try connection.execute("SELECT name FROM glow_migrations ORDER BY position")
        #expect(
            steps.rows == [
                [.text("store clocks")], [.text("account records")], [.text("relay registers")], [.text("mail outbox")],
                [.text("push outbox")], [.text("account rows")], [.text("visibility ends")], [.text("relay indexes")],
                [.text("relay sequencer")], [.text("no store clocks")], [.text("sync log")],
                [.text("sync pairings")], [.text("relay numbering")],
            ])
        #expect(try connection.execute("SELECT to_regclass('glow_clock') IS NULL AS gone").text(0, "gone") == "t")
        #expect(try connection.execute("SELECT to_regclass('relay_batches') IS NULL AS gone").text(0, "gone") == "t")
        // A step this version does not know is a newer schema; a renamed step a stranger's.
        try connection.execute("INSERT INTO glow_migrations (position, name) VALUES (99, 'from the future')")
        #expect { try PostgresServerDatabase(url: self.cluster.conninfo) } throws: {
            ($0 as? StoreError)?.code == .newerSchema
        }
        try connection.execute("DELETE FROM glow_migrations WHERE position = 99")
        try connection.execute("UPDATE glow_migrations SET name = 'renamed' WHERE position = 2")
        #expect { try PostgresServerDatabase(url: self.cluster.conninfo) } throws: {
            ($0 as? StoreError)?.code == .corrupt
        }
    }

    @Test("a database holding another application's tables is refused and left as it was")
    func foreignDatabase() throws {
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute("CREATE DATABASE other")
        let other = cluster.conninfo.replacingOccurrences(of: "dbname=postgres", with: "dbname=other")
        let stranger = try PostgresConnection(other)
        try stranger.execute("CREATE TABLE invoices (id bigint PRIMARY KEY, total bigint)")
        try stranger.execute("INSERT INTO invoices VALUES (1, 100)")
        #expect { try PostgresServerDatabase(url: other) } throws: { ($0 as? StoreError)?.code == .corrupt }
        let tables = try stranger.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
        #expect(tables.rows == [[.text("invoices")]])
        #expect(try stranger.execute("SELECT total FROM invoices").rows == [[.int(100)]])
    }

    @Test("what one process commits, another answers from at once: a sign-up confirmed elsewhere, a session revoked")
    func sharedAccounts() throws {
        let mailer = Mailer()
        let first = try service(try PostgresServerDatabase(url: cluster.conninfo), mailer)
        let second = try service(try PostgresServerDatabase(url: cluster.conninfo), mailer)
        try first.signUp(email: "ana@example.com", password: "correct horse battery staple", clientKey: "c")
        guard case .confirmSignUp(_, let token)? = mailer.sent.withLock({ $0.last }) else {
            Issue.record("no confirmation mail")
            return
        }
        let session = try second.confirmSignUp(token: token, password: "correct horse battery staple")
        #expect(try first.authenticate(accessToken: session.accessToken) == session.account)
        // Refreshing in one process rotates the tokens for every other; a replay of the old
        // refresh token in another process ends the family everywhere (AUTH-37).
        let renewed = try first.refresh(refreshToken: session.refreshToken)
        #expect(try second.authenticate(accessToken: renewed.accessToken) == session.account)
        #expect(throws: AuthError.self) { try second.refresh(refreshToken: session.refreshToken) }
        #expect(throws: AuthError.self) { try first.authenticate(accessToken: renewed.accessToken) }
        let again = try first.signIn(email: "ana@example.com", password: "correct horse battery staple", clientKey: "c")
        try second.signOutEverywhere(accessToken: again.accessToken)
        #expect(throws: AuthError.self) { try first.authenticate(accessToken: again.accessToken) }
        // A third process that starts now reads it all from the tables.
        let third = try service(try PostgresServerDatabase(url: cluster.conninfo), mailer)
        #expect(throws: AuthError.self) { try third.authenticate(accessToken: again.accessToken) }
        #expect(
            try third.signIn(email: "ana@example.com", password: "correct horse battery staple", clientKey: "c")
                .account == session.account)
    }

    @Test("records kept before the rows step move into account_rows, found by key, by account and by expiry")
    func upgrade() throws {
        // A database as the version before this one left it, holding a family and a throttle.
        let before = DatabaseSchema(
            kind: DatabaseSchema.postgresServer.kind, applicationID: DatabaseSchema.postgresServer.applicationID,
            migrations: Array(DatabaseSchema.postgresServer.migrations.prefix(5)))
        let connection = try PostgresConnection(cluster.conninfo)
        try PostgresMigrator.migrate(before, on: connection, name: "test")
        let family =
            #"{"account":{"rawValue":"a1"},"accessExpiresAt":900,"accessHash":"h","authenticatedAt":100,"id":"f1","#
            + #""refreshExpiresAt":2000,"refreshHash":"r","usedRefreshHashes":[]}"#
        try connection.execute(
            "INSERT INTO account_sessions (key, value, version) VALUES ('f1', $1, 1)", [.bytes(Array(family.utf8))])
        try connection.execute(
            "INSERT INTO account_throttles (key, value, version) VALUES ('client k', $1, 2), ('gone', NULL, 3)",
            [.bytes(Array(#"{"failures":2,"lastFailure":1234.5678}"#.utf8))])
        let database = try PostgresServerDatabase(url: cluster.conninfo)
        let rows = try connection.execute("SELECT map, key, owner, expiry FROM account_rows ORDER BY map, key")
        #expect(
            rows.rows == [
                [.text("sessions"), .text("f1"), .text("a1"), .int(100_000)],
                [.text("throttles"), .text("client k"), .null, .int(1_234_567)],
            ], "a removed record's row is not carried over; a family without a last use expires from its sign-in")
        let found = try database.accounts.update { (records) throws(AuthError) in
            (
                records.sessions["f1"]?.lastUsedAt, records.sessions.owned(by: "a1").map(\.key),
                records.throttles.expiring(atOrBefore: 1234.5678).map(\.key),
                records.throttles.expiring(atOrBefore: 1234.5).map(\.key)
            )
        }
        #expect(found.0 == 100 && found.1 == ["f1"] && found.2 == ["client k"] && found.3.isEmpty)
        #expect(try connection.execute("SELECT to_regclass('account_sessions') IS NULL AS gone").text(0, "gone") == "t")
    }

    @Test("writes of different people never wait for each other; a row held elsewhere delays only its own writer")
    func noSharedLock() throws {
        let store = try PostgresServerDatabase(url: cluster.conninfo, limits: PostgresLimits(wait: 0.5)).accounts
        let throttle = try JSONDecoder().decode(
            AccountRecords.Throttle.self, from: Data(#"{"failures": 1, "lastFailure": 0}"#.utf8))
        try store.update { (records) throws(AuthError) in
            records.throttles["held"] = throttle
            records.throttles["free"] = throttle
        }
        // Another process is inside a transaction that wrote the row of "held", and stays there.
        let other = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 30))
        try other.execute("BEGIN")
        try other.execute("UPDATE account_rows SET version = version + 1 WHERE map = 'throttles' AND key = 'held'")
        var more = throttle
        more.failures = 2
        let start = ContinuousClock.now
        try store.update { (records) throws(AuthError) in records.throttles["free"] = more }
        try store.update { (records) throws(AuthError) in records.throttles["new"] = more }
        #expect(ContinuousClock.now - start < .milliseconds(400), "the other rows' writes did not wait")
        let refused = #expect(throws: AuthError.self) {
            try store.update { (records) throws(AuthError) in records.throttles["held"] = more }
        }
        #expect(refused?.code == .storageFailed)
        try other.execute("COMMIT")
        try store.update { (records) throws(AuthError) in records.throttles["held"] = more }
        let failures = try store.update { (records) throws(AuthError) in
            ["held", "free", "new"].map { records.throttles[$0]?.failures }
        }
        #expect(failures == [2, 2, 2])
        // A removed record leaves no row behind.
        try store.update { (records) throws(AuthError) in records.throttles["new"] = nil }
        let left = try other.execute("SELECT count(*) AS n FROM account_rows WHERE map = 'throttles'")
        #expect(try left.int(0, "n") == 2)
    }

    @Test("PostgreSQL's outbox: a postponed mail is not claimed until its wait ends; an hour-old one is taken out")
    func outboxWaits() throws {
        let outbox = try PostgresMailOutbox(url: cluster.conninfo)
        try outbox.add(recipient: "slow@example.com", kind: "passwordReset", message: "a")
        try outbox.add(recipient: "old@example.com", kind: "passwordReset", message: "b")
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute(
            "UPDATE mail_outbox SET created_at = now() - interval '3601 seconds' WHERE recipient = 'old@example.com'")
        let claimed = try outbox.claim(limit: 10, for: 60)
        #expect(Set(claimed.map(\.recipient)).isSuperset(of: ["slow@example.com", "old@example.com"]))
        #expect(claimed.first { $0.recipient == "old@example.com" }.map { $0.age >= 3_601 } == true)
        let slow = try #require(claimed.first { $0.recipient == "slow@example.com" })
        try connection.execute("UPDATE mail_outbox SET claimed_until = now()")
        try outbox.postpone(slow.id, for: 600)
        #expect(try !outbox.claim(limit: 10, for: 60).contains { $0.id == slow.id }, "postponed ten minutes")
        let removed = try outbox.removeOlder(than: 3_600)
        #expect(removed.map(\.recipient) == ["old@example.com"])
        #expect(try !outbox.waiting().contains { $0.recipient == "old@example.com" })
        #expect(try outbox.waiting().contains { $0.recipient == "slow@example.com" })
    }

    @Test("two processes draining one outbox deliver each of forty mails once")
    func sharedOutbox() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try PostgresMailOutbox(url: cluster.conninfo)
        for index in 0..<40 {
            try first.add(
                recipient: "p\(index)@example.com", kind: "passwordChanged",
                message: "To: p\(index)@example.com\r\n\r\n")
        }
        let mailers = try (0..<2).map { _ in
            ServiceMailer(
                destination: .directory(folder), outbox: try PostgresMailOutbox(url: cluster.conninfo), retry: 0.05,
                report: { Issue.record("\($0)") })
        }
        for mailer in mailers { mailer.start() }
        let deadline = Date().addingTimeInterval(10)
        while try !first.waiting().isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        for mailer in mailers { mailer.flush() }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".eml") }
        let recipients = try files.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
        #expect(files.count == 40 && Set(recipients).count == 40, "each mail once: \(files.count) files")
    }

    static func stance(_ from: String, _ to: String, wall: Int64) throws -> FeedReplica {
        var delta = FeedReplica()
        delta.writeStance(.want, from: from, to: to, at: try Stamp(wall: wall, counter: 0, device: "phone"))
        return delta
    }

    @Test("writes answered while their numbering stalls reach a viewer paging by cursor once it runs, none passed")
    func stalledNumbering() throws {
        let limits = PostgresLimits(wait: 0.5)
        let writer = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo, limits: limits).relay)
        let viewer = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo, limits: limits).relay)
        try writer.submit(try Self.stance("ana", "vic", wall: 1), from: "ana", now: 1)
        let start = try viewer.changes(for: "vic", since: 0)
        #expect(start.delta.stances.count == 1)

        // Another session holds the sequencer's lock, as a process paused inside its run would:
        // writes are kept and answered, with the last number they knew, and wait for their numbers.
        let blocker = try PostgresConnection(cluster.conninfo)
        try blocker.execute("SELECT pg_advisory_lock($1)", [.int(PostgresRelaySequencer.lock)])
        let before = ContinuousClock.now
        let bob = try writer.submit(try Self.stance("bob", "vic", wall: 2), from: "bob", now: 2)
        let cat = try viewer.submit(try Self.stance("cat", "vic", wall: 2), from: "cat", now: 2)
        #expect(ContinuousClock.now - before < .seconds(3), "each write waited at most the wait for its numbers")
        #expect(bob == start.cursor && cat == start.cursor, "answered with the last number they knew")
        let waiting = try blocker.execute("SELECT count(DISTINCT batch) AS n FROM relay_pending").int(0, "n")
        #expect(waiting == 2, "both writes are kept, waiting for their numbers")
        let middle = try viewer.changes(for: "vic", since: start.cursor)
        #expect(
            middle.delta.stances.isEmpty && middle.cursor == start.cursor, "a change with no number is in no answer")
        try blocker.execute("SELECT pg_advisory_unlock($1)", [.int(PostgresRelaySequencer.lock)])
        // The numbering catches up by itself, without the writers.
        var cursor = start.cursor
        var seen = Set(start.delta.stances.keys.map(\.from))
        let deadline = Date().addingTimeInterval(10)
        while seen.count < 3, Date() < deadline {
            let page = try viewer.changes(for: "vic", since: cursor)
            for key in page.delta.stances.keys { seen.insert(key.from) }
            cursor = page.cursor
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(seen == ["ana", "bob", "cat"], "a cursor never passes a write that is numbered later")
        #expect(cursor == start.cursor + 2)
    }

    @Test(
        "a sequence taken at insert and seen at commit lets a cursor pass a late commit: the hazard the clock prevents")
    func naiveSequenceSkips() throws {
        let setup = try PostgresConnection(cluster.conninfo)
        try setup.execute("CREATE TABLE naive_log (id bigserial PRIMARY KEY, what text NOT NULL)")
        let early = try PostgresConnection(cluster.conninfo)
        let late = try PostgresConnection(cluster.conninfo)
        try early.execute("BEGIN")
        try early.execute("INSERT INTO naive_log (what) VALUES ('first number, commits last')")
        try late.execute("INSERT INTO naive_log (what) VALUES ('second number, commits first')")
        let page = try setup.execute("SELECT id FROM naive_log WHERE id > 0 ORDER BY id")
        let cursor = try page.int(page.rows.count - 1, "id")
        try early.execute("COMMIT")
        let next = try setup.execute("SELECT id FROM naive_log WHERE id > $1", [.int(cursor)])
        #expect(page.rows.count == 1 && next.rows.isEmpty, "the early number is never seen by this cursor")
    }

    @Test("the server corpus passes against three glow-server handlers over one database, each exchange to the next")
    func corpusAcrossProcesses() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var servers: [HTTPServer] = []
        var mailers: [ServiceMailer] = []
        for _ in 0..<3 {
            let database = try PostgresServerDatabase(url: cluster.conninfo)
            let relay = FeedRelay(store: database.relay)
            let sync = SyncLog(store: database.sync)
            let mailer = ServiceMailer(destination: .directory(folder), report: { Issue.record("\($0)") })
            let accounts = try AccountService(
                store: database.accounts, configuration: Self.configuration, mailer: mailer,
                eraser: RelayEraser(relay: relay, sync: sync),
                revoker: UnconfiguredRevoker())
            var settings = ServiceHandler.Settings()
            settings.trustForwardedFor = true
            let handler = ServiceHandler(
                accounts: accounts, relay: relay, sync: sync, settings: settings, healthCheck: { database.problem() })
            servers.append(
                try HTTPServer(
                    listen: .tcp(host: "127.0.0.1", port: 0), tooLarge: { ServiceHandler.tooLarge(limit: $0) },
                    handler: { handler.respond(to: $0) }))
            mailers.append(mailer)
        }
        defer { for server in servers { server.stop() } }
        let bases = servers.map { server -> String in
            guard case .tcp(let host, let port) = server.address else { return "" }
            return "http://\(host):\(port)"
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let corpus = Corpus(directory: root.appendingPathComponent("Spec/corpus"))
        let runner = ServerRunner(bases: bases, mailDirectory: folder)
        for testCase in corpus.serverCases() {
            #expect(runner.play(testCase) == .passed, "\(testCase.reference): \(testCase.comment)")
        }
    }

    @Test("health says what is wrong when the database is gone, and the store reconnects when it is back")
    func health() throws {
        let database = try PostgresServerDatabase(url: cluster.conninfo)
        #expect(database.problem() == nil)
        let admin = try PostgresConnection(cluster.conninfo)
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = 'postgres'"
        )
        // The killed connection fails once, is dropped, and the next call connects again.
        let first = database.problem()
        let second = database.problem()
        #expect(first != nil, "the lost connection is reported")
        #expect(second == nil, "reconnected after \(first ?? "no failure")")
    }

    @Test("every connection of a store in use: a request waits the pool's bounded time, then 503 with Retry-After")
    func poolExhausted() throws {
        let database = try PostgresServerDatabase(url: cluster.conninfo, connections: 1, poolWait: 0.3)
        let mailer = Mailer()
        let accounts = try service(database, mailer)
        try accounts.signUp(email: "ana@example.com", password: "correct horse battery staple", clientKey: "c")
        guard case .confirmSignUp(_, let token)? = mailer.sent.withLock({ $0.last }) else {
            Issue.record("no confirmation mail")
            return
        }
        let session = try accounts.confirmSignUp(token: token, password: "correct horse battery staple")
        let logged = Locked<[String]>([])
        let handler = ServiceHandler(
            accounts: accounts, relay: FeedRelay(store: database.relay), healthCheck: { nil },
            log: { line in logged.withLock { $0.append(line) } })
        let headers = [
            "authorization": "Bearer \(session.accessToken.reveal())", "content-type": ServiceCalls.contentType,
        ]
        let request = HTTPRequest(
            method: "POST", path: "/v1/relay", headers: headers,
            body: RelayRequest.changes(since: 0).wireEncoded())
        #expect(handler.respond(to: request).status == 200)
        // Another request holds the relay's only connection until it is told to let go.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            do {
                try database.relay.pool.withConnection { (_) throws(StoreError) in
                    holding.signal()
                    release.wait()
                }
            } catch {
                Issue.record("the holding update failed: \(error)")
            }
            finished.signal()
        }.start()
        holding.wait()
        // A pool that waited without bound would hold this test until the holder lets go: it
        // does after five seconds, and the request is then late, not refused.
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { release.signal() }
        let started = Date()
        let refused = handler.respond(to: request)
        let waited = Date().timeIntervalSince(started)
        release.signal()
        finished.wait()
        #expect(refused.status == 503)
        #expect(refused.headers.contains { $0.name.lowercased() == "retry-after" && Int($0.value) ?? 0 >= 1 })
        let error = try ProtocolMessage(
            try #require(ProtocolSchema.type("ServiceError")), wire: refused.body)
        #expect(error.string("code") == "storage_failed", "\(error.string("message"))")
        // The client hears what to do; the operator's log says which store's connections were busy.
        #expect(!error.string("message").contains("in use"), "\(error.string("message"))")
        #expect(
            logged.withLock { $0 }.contains { $0.hasPrefix("relay: ") && $0.contains("in use") },
            "\(logged.withLock { $0 })")
        #expect(waited >= 0.29 && waited < 5, "waited \(waited) s")
        // The connection free again, the same request is served.
        #expect(handler.respond(to: request).status == 200)
    }
}

extension PostgresStoreTests {
    @Test("PostgreSQL: rows an older version wrote without index columns are indexed when a process opens the database")
    func olderRows() throws {
        let relay = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        let stamp = try Stamp(wall: 1, counter: 0, device: "ana-phone")
        var delta = FeedReplica()
        delta.writeStance(.want, from: "ana", to: "bob", at: stamp)
        delta.writeVisibility(.public, owner: "ana", goal: "g", at: stamp)
        let item = try FeedItem(
            owner: "ana", kind: .goalStarted, goal: "g", time: 1, title: "Walk", emoji: "", goalKind: "streak")
        delta.writeItem(item, id: item.key, at: stamp)
        try relay.submit(delta, from: "ana", now: 10)
        try relay.register(try PushDevice(token: "t", person: "bob", timeZone: TimeZoneID("UTC")), now: 0)
        let before = try relay.changes(for: "cat", since: 0)
        #expect(before.delta.items.count == 1)
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute(
            "UPDATE relay_registers SET kind = NULL, party = NULL, other = NULL, item = NULL, is_public = 0")
        try connection.execute("UPDATE relay_pushes SET person = NULL, token = NULL, at = NULL")
        // Unindexed, the public goal and its item are found by no index.
        #expect(try relay.changes(for: "cat", since: 0).delta.items.isEmpty)
        let reopened = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        let after = try reopened.changes(for: "cat", since: 0)
        #expect(after.delta == before.delta && after.cursor == before.cursor)
        #expect(try reopened.pushDevices().map(\.token) == ["t"])
        let unindexed = try connection.execute("SELECT count(*) AS n FROM relay_registers WHERE kind IS NULL")
        #expect(try unindexed.int(0, "n") == 0)
    }
}

extension PostgresStoreTests {
    /// A relay store that pauses the first write of `person` inside its transaction, once its
    /// body ran (a write PostgreSQL fails to serialize it runs its body again, unpaused).
    final class PausingStore: FeedRelayStore {
        let base: PostgresFeedRelayStore
        let person: String
        let paused = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let pausedOnce = Locked<Bool>(false)

        init(_ base: PostgresFeedRelayStore, pausing person: String) {
            self.base = base
            self.person = person
        }

        func update<T>(
            loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
            _ body: (inout FeedRelayState) throws(FeedError) -> T
        ) throws(FeedError) -> (result: T, sequence: UInt64)? {
            try base.update(loading: load, writing: writing, confirming: reading) { (state) throws(FeedError) in
                let result = try body(&state)
                if case .accept(_, let from) = load, from == person,
                    !pausedOnce.withLock({ already in
                        defer { already = true }
                        return already
                    })
                {
                    paused.signal()
                    release.wait()
                }
                return result
            }
        }
    }

    /// Issue 43: writes of different people take no common lock, and a write that began first
    /// and commits last, while readers poll, still reaches them: it is numbered when it commits.
    static func publish(_ person: String, wall: Int64) throws -> FeedReplica {
        let stamp = try Stamp(wall: wall, counter: 0, device: person + "-phone")
        var delta = FeedReplica()
        delta.writeVisibility(.public, owner: person, goal: "g", at: stamp)
        let item = try FeedItem(
            owner: person, kind: .goalStarted, goal: "g", time: wall, title: "Walk", emoji: "", goalKind: "streak")
        delta.writeItem(item, id: item.key, at: stamp)
        return delta
    }

    @Test(
        "PostgreSQL: a write that commits last while readers poll reaches them, and another's write does not wait for it"
    )
    func lateCommitWithoutLock() throws {
        let database = try PostgresServerDatabase(url: cluster.conninfo, connections: 4)
        let store = PausingStore(database.relay, pausing: "ana")
        let relay = FeedRelay(store: store)
        // A reader that polls from its cursor, as a device does, keeping what it learns.
        let learned = Locked((replica: FeedReplica(), cursor: UInt64(0), polls: 0))
        let stop = Locked<Bool>(false)
        let failures = Locked<[String]>([])
        let ended = DispatchSemaphore(value: 0)
        let reader = Thread {
            defer { ended.signal() }
            while !stop.withLock({ $0 }) {
                do {
                    let cursor = learned.withLock { $0.cursor }
                    let answer = try relay.changes(for: "cat", since: cursor)
                    learned.withLock {
                        $0.replica.merge(answer.delta)
                        $0.cursor = answer.cursor
                        $0.polls += 1
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    stop.withLock { $0 = true }
                }
            }
        }
        reader.start()
        // The reader ends before the test does, so none of its polls outlives the database.
        defer {
            stop.withLock { $0 = true }
            ended.wait()
            #expect(failures.withLock { $0 }.isEmpty, "polls failed: \(failures.withLock { $0 })")
        }
        /// Waits until the reader polled `count` more times, at most 5 s.
        func polls(_ count: Int) -> Bool {
            let target = learned.withLock { $0.polls } + count
            let deadline = ContinuousClock.now + .seconds(5)
            while learned.withLock({ $0.polls }) < target {
                guard ContinuousClock.now < deadline else { return false }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return true
        }
        // Ana's write begins, runs its body and holds its transaction open.
        let anaDone = DispatchSemaphore(value: 0)
        Thread {
            do { try relay.submit(try Self.publish("ana", wall: 1), from: "ana", now: 10) } catch {
                Issue.record("ana's write failed: \(error)")
            }
            anaDone.signal()
        }.start()
        try #require(store.paused.wait(timeout: .now() + 5) == .success, "ana's write reached its pause")
        // Bob's write begins after it, and commits while Ana's transaction is open.
        let started = ContinuousClock.now
        try relay.submit(try Self.publish("bob", wall: 2), from: "bob", now: 11)
        let bobTook = ContinuousClock.now - started
        // Readers poll past Bob's write while Ana's has not committed.
        #expect(polls(3))
        #expect(learned.withLock { $0.replica.items.keys.map(\.text) } == ["bob/goalStarted/g"])
        store.release.signal()
        #expect(anaDone.wait(timeout: .now() + 5) == .success)
        #expect(polls(3))
        stop.withLock { $0 = true }
        // Ana's write, begun first and committed last, reached the reader; Bob's did not wait.
        #expect(
            Set(learned.withLock { $0.replica.items.keys.map(\.text) }) == ["ana/goalStarted/g", "bob/goalStarted/g"])
        #expect(bobTook < .seconds(1), "\(bobTook)")
    }
}
