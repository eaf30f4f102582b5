import Foundation
import GlowClient
import GlowCore
import GlowFeed
import GlowModel
import GlowPostgres
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowStorage
import GlowToolSupport
import Testing

extension ProcessHeavySuites {
    /// The relay's writes when friends check in and cheer at once (issue 57), through glow-server
    /// processes on one PostgreSQL: writes of different people never abort each other, an answer
    /// never contradicts the database (SERVER-10: a write answered `503` is not kept, one answered
    /// `200` is), and a batch that cannot be numbered never holds up the others (FEED-25).
    @Suite("the relay's writes when friends write at once", .enabled(if: TemporaryPostgres.available), .serialized)
    struct RelayWriteTests {
        typealias Writer = FaultTests.Writer

        /// Every statement and lock waits 0.5 s, so a stall is long against it.
        static let wait = 0.5

        /// Signs up `count` people through `client`, all friends of each other, each sharing goal
        /// `g` with friends: a group of friends, as the feed lives on.
        static func friends(_ count: Int, _ client: ServiceClient, mail folder: String) async throws -> [Writer] {
            let writers = try await FaultTests.writers(count, client, mail: folder)
            let wall = Int64(Date().timeIntervalSince1970 * 1_000) - 60_000
            for writer in writers {
                var replica = FeedReplica()
                for other in writers where other.person != writer.person {
                    replica.writeStance(
                        .want, from: writer.person, to: other.person,
                        at: try Stamp(wall: wall, counter: 0, device: writer.device))
                }
                replica.writeVisibility(
                    .friends, owner: writer.person, goal: "g",
                    at: try Stamp(wall: wall, counter: 0, device: writer.device))
                _ = try await client.call("relay", try relayRequest(.submit(replica)), accessToken: writer.token)
            }
            return writers
        }

        static func relayRequest(_ request: RelayRequest) throws -> ProtocolMessage {
            guard let type = ProtocolSchema.type("RelayRequest") else { preconditionFailure("declared") }
            return try ProtocolMessage(type, wire: request.wireEncoded())
        }

        /// The check-in `owner` publishes with their write number `serial`: one item id per write.
        static func checkIn(_ owner: String, _ serial: Int64) throws -> FeedItem {
            let day = try Day(daysSince1970: 20_000 + Int(serial % 10_000))
            return try FeedItem(
                owner: owner, kind: .checkIn, goal: "g", time: Int64(day.daysSince1970) * 86_400_000,
                title: "Walk \(serial)", emoji: "✨", goalKind: "single", day: day)
        }

        /// What the writers were answered, each write sent once.
        struct Sent {
            /// The writes answered `200`: each one's new item and its stamp.
            var kept: [(key: FeedItemID, stamp: Stamp)] = []
            /// The writes answered `503` with `Retry-After`.
            var refused: [(key: FeedItemID, stamp: Stamp)] = []
            /// Writes whose connection was cut: their outcome is not known to the writer.
            var cut = 0
            /// Anything else.
            var unexpected: [String] = []
            /// When each write was answered, and how long it took.
            var latencies: [Double] = []
        }

        /// Each writer writes until `stop`, each write sent once: a check-in of its own, every third
        /// with a cheer on a friend's earlier one, and `hot`'s each with a new stamp on the same
        /// register (its goal `hot`'s visibility), so that every write of theirs changes one row.
        static func send(
            _ writers: [Writer], _ addresses: FaultTests.Addresses, hot: String? = nil, until stop: FaultTests.Flag
        ) async -> Sent {
            await withTaskGroup(of: Sent.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        var sent = Sent()
                        var serial: Int64 = 0
                        while !stop.raised {
                            serial += 1
                            var replica = FeedReplica()
                            let item: FeedItem
                            let stamp: Stamp
                            let body: ProtocolMessage
                            do {
                                item = try checkIn(writer.person, serial)
                                stamp = try Stamp(
                                    wall: Int64(Date().timeIntervalSince1970 * 1_000), counter: serial,
                                    device: writer.device)
                                replica.writeItem(item, id: item.key, at: stamp)
                                if serial % 3 == 0 {
                                    let friend = writers[
                                        (index + 1 + Int(serial) % (writers.count - 1)) % writers.count]
                                    replica.writeReaction(
                                        true, item: try checkIn(friend.person, serial / 2).key, reactor: writer.person,
                                        kind: .clap, at: stamp)
                                }
                                if writer.person == hot {
                                    replica.writeVisibility(.friends, owner: writer.person, goal: "hot", at: stamp)
                                }
                                body = try relayRequest(.submit(replica))
                            } catch {
                                sent.unexpected.append("a write could not be made: \(error)")
                                return sent
                            }
                            let began = Date()
                            do throws(ServiceFailure) {
                                _ = try await addresses.any().call("relay", body, accessToken: writer.token)
                                sent.kept.append((item.key, stamp))
                                sent.latencies.append(Date().timeIntervalSince(began))
                            } catch {
                                if error.code == .network {
                                    sent.cut += 1
                                } else if error.status == 503, error.retryAfter != nil {
                                    sent.refused.append((item.key, stamp))
                                } else {
                                    sent.unexpected.append("\(error.status) \(error.code): \(error.message)")
                                    return sent
                                }
                                do { try await Task.sleep(nanoseconds: 50_000_000) } catch { return sent }
                            }
                        }
                        return sent
                    }
                }
                var total = Sent()
                for await sent in group {
                    total.kept += sent.kept
                    total.refused += sent.refused
                    total.cut += sent.cut
                    total.unexpected += sent.unexpected
                    total.latencies += sent.latencies
                }
                return total
            }
        }

        /// Waits until no change waits for its number (at most 15 s): the numbering catches up
        /// without the writers. Answers the changes still waiting.
        static func settle(_ url: String) async throws -> Int64 {
            let connection = try PostgresConnection(url)
            let deadline = Date().addingTimeInterval(15)
            while true {
                let waiting = try connection.execute("SELECT count(*) AS n FROM relay_pending").int(0, "n")
                if waiting == 0 || Date() > deadline { return waiting }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }

        /// Every write answered `200` is numbered with its stamp, every write answered `503` is
        /// nowhere (not numbered, not waiting, not in quarantine), and no change waits.
        static func judge(_ sent: Sent, url: String) async throws {
            #expect(sent.unexpected.isEmpty, "\(sent.unexpected.prefix(5))")
            let waiting = try await settle(url)
            #expect(waiting == 0, "\(waiting) changes still wait for their numbers")
            let connection = try PostgresConnection(url, limits: PostgresLimits(wait: 30))
            var numbered: [String: Stamp] = [:]
            let rows = try connection.execute("SELECT key, register FROM relay_registers WHERE kind = 'item'")
            for index in 0..<rows.rows.count {
                let delta = try FeedReplica(wire: try rows.bytes(index, "register"))
                for (id, register) in delta.items { numbered[id.text] = register.stamp }
            }
            let lost = sent.kept.filter { numbered[$0.key.text] != $0.stamp }
            #expect(
                lost.isEmpty, "\(lost.count) of \(sent.kept.count) writes answered 200 are not kept: \(lost.prefix(3))")
            var kept: [String] = []
            for write in sent.refused {
                let key = RelayKey.item(write.key).storageKey
                let found = try connection.execute(
                    "SELECT (SELECT count(*) FROM relay_registers WHERE key = $1) + (SELECT count(*) FROM relay_pending "
                        + "WHERE key = $1) + (SELECT count(*) FROM relay_quarantine WHERE key = $1) AS n", [.text(key)])
                if try found.int(0, "n") > 0 { kept.append(write.key.text) }
            }
            #expect(
                kept.isEmpty, "\(kept.count) of \(sent.refused.count) writes answered 503 were kept: \(kept.prefix(3))")
        }

        /// How often the cluster's log says `needle` so far.
        static func logged(_ needle: String, in cluster: TemporaryPostgres) throws -> Int {
            let log = try String(contentsOfFile: cluster.folder.path + "/log", encoding: .utf8)
            return log.components(separatedBy: needle).count - 1
        }

        @Test("friends checking in and cheering at once on two processes: no write aborts another, none answered 503")
        func friendsAtOnce() async throws {
            let cluster = try TemporaryPostgres()
            defer { cluster.stop() }
            let folder = try ServerSimulationTests.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let arguments =
                ["--database", cluster.cluster.url, "--mail-dir", folder + "/mail"] + FaultTests.unlimited
            let processes = try (0..<2).map { _ in try ServerProcess(arguments: arguments) }
            defer { for process in processes { process.stop() } }
            let addresses = FaultTests.Addresses(processes.map(\.url))
            let writers = try await Self.friends(8, addresses.any(), mail: folder + "/mail")
            let stop = FaultTests.Flag()
            let writing = Task { await Self.send(writers, addresses, until: stop) }
            try await Task.sleep(nanoseconds: 3_000_000_000)
            stop.raise()
            let sent = await writing.value
            try await Self.judge(sent, url: cluster.cluster.url)
            #expect(sent.refused.isEmpty && sent.cut == 0, "\(sent.refused.count) answered 503, \(sent.cut) cut")
            #expect(sent.kept.count > 40, "only \(sent.kept.count) writes in 3 s")
            // Nothing raced: PostgreSQL aborted no write, and no rollback came after a commit.
            #expect(try Self.logged("could not serialize access", in: cluster) == 0)
            #expect(try Self.logged("deadlock detected", in: cluster) == 0)
            #expect(try Self.logged("there is no transaction in progress", in: cluster) == 0)
        }

        /// A way the numbering of kept writes can stall.
        enum Stall: String, CaseIterable, CustomTestStringConvertible, Sendable {
            case pausedRun = "a session with glow-server's timeouts paused inside a numbering run"
            case hotRegister = "a register every write of one person changes, locked by another session"
            case clockRow = "the receipt clock's old row locked by another session"
            case badRow = "a waiting change that does not read"
            case frozenDatabase = "every PostgreSQL process stopped"

            var testDescription: String { rawValue }
        }

        @Test(
            "numbering stalled: every write answered 200 is kept and numbered once it can be, every write answered 503 is nowhere, and the others go on",
            arguments: Stall.allCases)
        func stalledNumbering(_ stall: Stall) async throws {
            let cluster = try TemporaryPostgres()
            defer { cluster.stop() }
            let folder = try ServerSimulationTests.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let url = cluster.cluster.url
            let arguments =
                ["--database", url, "--mail-dir", folder + "/mail", "--database-wait", String(Self.wait)]
                + FaultTests.unlimited
            let logs = (0..<2).map { URL(fileURLWithPath: folder + "/server-\($0).log") }
            let processes = try logs.map { try ServerProcess(arguments: arguments, log: $0) }
            defer { for process in processes { process.stop() } }
            let addresses = FaultTests.Addresses(processes.map(\.url))
            let writers = try await Self.friends(4, addresses.any(), mail: folder + "/mail")
            let hot = writers[0].person
            let stop = FaultTests.Flag()
            let writing = Task { await Self.send(writers, addresses, hot: hot, until: stop) }
            try await Task.sleep(nanoseconds: 500_000_000)

            let outside = try PostgresConnection(url, limits: PostgresLimits(wait: 30))
            let observer = try PostgresConnection(url, limits: PostgresLimits(wait: 30))
            func last() throws -> Int64 {
                try observer.execute("SELECT coalesce(max(sequence), 0) AS n FROM relay_registers").int(0, "n")
            }
            var paused: PostgresConnection?
            var frozen: [pid_t] = []
            switch stall {
            case .pausedRun:
                // As glow-server's own sessions: quiet inside a transaction for longer than the
                // wait, PostgreSQL ends it, and its lock with it.
                let session = try PostgresConnection(url, limits: PostgresLimits(wait: Self.wait))
                try session.execute("BEGIN")
                try session.execute("SELECT pg_advisory_xact_lock($1)", [.int(PostgresRelaySequencer.lock)])
                paused = session
            case .hotRegister:
                try outside.execute("BEGIN")
                let held = try outside.execute(
                    "SELECT key FROM relay_registers WHERE key = $1 FOR UPDATE",
                    [.text(RelayKey.visibility(.init(owner: hot, goal: "hot")).storageKey)])
                #expect(held.rows.count == 1, "the hot register is numbered before the stall")
            case .clockRow:
                try outside.execute("BEGIN")
                try outside.execute("SELECT last_receipt FROM relay_clock FOR UPDATE")
            case .badRow:
                try outside.execute(
                    "INSERT INTO relay_pending (batch, position, key, register, ends, received, kind, party, is_public) "
                        + "VALUES (nextval('relay_batch'), 0, $1, $2, 0, 1, 'item', $3, 0)",
                    [
                        .text(RelayKey.item(FeedItemID("\(hot)/checkIn/g/forged")).storageKey), .bytes([0xFF, 0x01]),
                        .text(hot),
                    ])
            case .frozenDatabase:
                frozen = try cluster.cluster.freeze()
            }
            // While it lasts (2.5 s, longer than health waits for a number: 3 × 0.5 s): how far
            // the numbering got, and what health said.
            let stallStart = stall == .frozenDatabase ? 0 : try last()
            var healthSaid: [String] = []
            var lastDuring: Int64 = stallStart
            let probe = ServiceClient(base: processes[0].url, retries: 0, timeout: 10)
            let began = Date()
            while Date().timeIntervalSince(began) < 2.5 {
                do {
                    _ = try await probe.call("health")
                    healthSaid.append("ok")
                } catch {
                    healthSaid.append(error.message)
                }
                if stall != .frozenDatabase { lastDuring = try last() }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            switch stall {
            case .pausedRun: _ = paused
            case .hotRegister, .clockRow: try outside.execute("ROLLBACK")
            case .badRow: break
            case .frozenDatabase: cluster.cluster.thaw(frozen)
            }
            // Healthy again once it is over.
            let recovered = try await FaultTests.healthy(probe, within: 5)
            try await Task.sleep(nanoseconds: 500_000_000)
            stop.raise()
            let sent = await writing.value
            try await Self.judge(sent, url: url)
            #expect(recovered != nil, "health did not answer 200 within 5 s of the stall's end")
            guard stall != .frozenDatabase else {
                // A fault of the database itself: some writes may be refused, each of them not kept.
                #expect(!sent.kept.isEmpty)
                return
            }
            let logged = try logs.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
            #expect(
                sent.refused.isEmpty,
                "\(sent.refused.count) writes answered 503 with no fault of the database: \(logged.suffix(2_000))")
            #expect(sent.cut == 0)
            // The others were numbered during the stall: one batch never holds up the rest.
            #expect(lastDuring > stallStart, "the numbering stood still from \(stallStart) throughout the stall")
            switch stall {
            case .hotRegister:
                // Set aside for longer than health waits: it said so, naming the lock.
                #expect(
                    healthSaid.contains { $0.contains("numbering is behind") },
                    "health during the stall: \(Set(healthSaid))")
            case .badRow:
                let quarantined = try observer.execute("SELECT reason FROM relay_quarantine")
                #expect(quarantined.rows.count == 1)
                #expect(try quarantined.text(0, "reason").contains("does not read"))
                #expect(!healthSaid.contains { $0 != "ok" }, "health during the stall: \(Set(healthSaid))")
            case .pausedRun, .clockRow, .frozenDatabase:
                #expect(!healthSaid.contains { $0 != "ok" }, "health during the stall: \(Set(healthSaid))")
            }
            print(
                "relay    \(stall.rawValue): \(sent.kept.count) writes answered 200 and kept, \(sent.refused.count) answered 503; the numbering went from \(stallStart) to \(lastDuring) during the stall"
            )
        }
    }
}

/// glow-server on its SQLite default under an outside lock on its file (issue 57): every call,
/// health included, answers within the database wait, as on PostgreSQL (SERVER-7).
@Suite("glow-server on SQLite under an outside lock")
struct SQLiteLockTests {
    /// One call's answer: which call, how long it took and its status.
    struct Answer: Sendable {
        let call: String
        let seconds: Double
        let status: Int
    }

    /// One round: health and a write of each of `writers`, at once.
    static func round(_ round: Int, client: ServiceClient, writers: [ProcessHeavySuites.FaultTests.Writer]) async
        -> [Answer]
    {
        await withTaskGroup(of: Answer.self) { group in
            group.addTask {
                let start = Date()
                do throws(ServiceFailure) {
                    _ = try await client.call("health")
                    return Answer(call: "health", seconds: Date().timeIntervalSince(start), status: 200)
                } catch {
                    return Answer(call: "health", seconds: Date().timeIntervalSince(start), status: error.status)
                }
            }
            for writer in writers {
                group.addTask {
                    let start = Date()
                    do {
                        var replica = FeedReplica()
                        let item = try ProcessHeavySuites.RelayWriteTests.checkIn(writer.person, Int64(round + 1))
                        replica.writeItem(
                            item, id: item.key,
                            at: try Stamp(wall: Int64(start.timeIntervalSince1970 * 1_000), counter: 0, device: "d")
                        )
                        _ = try await client.call(
                            "relay", try ProcessHeavySuites.RelayWriteTests.relayRequest(.submit(replica)),
                            accessToken: writer.token)
                        return Answer(call: "relay", seconds: Date().timeIntervalSince(start), status: 200)
                    } catch let error as ServiceFailure {
                        return Answer(call: "relay", seconds: Date().timeIntervalSince(start), status: error.status)
                    } catch {
                        return Answer(call: "relay", seconds: Date().timeIntervalSince(start), status: -1)
                    }
                }
            }
            var answers: [Answer] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
    }

    @Test("another process holds the file's write lock: health and every call answer within the wait, then serve")
    func outsideLock() async throws {
        let folder = try ServerSimulationTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.sqlite"
        let server = try ServerProcess(
            arguments: ["--database", path, "--mail-dir", folder + "/mail", "--database-wait", "0.5"]
                + ProcessHeavySuites.FaultTests.unlimited)
        defer { server.stop() }
        let client = ServiceClient(base: server.url, retries: 0, timeout: 20)
        let writers = try await ProcessHeavySuites.FaultTests.writers(2, client, mail: folder + "/mail")
        // Another process's exclusive transaction on the file, held for 3 s.
        let outside = try SQLiteConnection(path: path, mode: .readWrite)
        try outside.execute("BEGIN EXCLUSIVE")
        let began = Date()
        // Health and a write of each person at once (fewer than the server's four threads, so no
        // call waits for a thread), three rounds one after the other, while it holds the lock.
        var answers: [Answer] = []
        for round in 0..<3 {
            answers += await Self.round(round, client: client, writers: writers)
        }
        let held = Date().timeIntervalSince(began)
        try outside.execute("ROLLBACK")
        // Each call waited at most the wait for its turn and the file (0.5 s) where a write waited
        // SQLite's own timeout (5 s) before: answered within a few waits, with room for a machine
        // that runs other suites beside this one.
        let statuses = answers.map(\.status)
        let writes = answers.filter { $0.call == "relay" }.map(\.status)
        let seconds = answers.map(\.seconds)
        #expect(answers.count == 9)
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(answers)")
        #expect(writes.allSatisfy { $0 == 503 }, "a write passed the lock: \(writes)")
        #expect(seconds.allSatisfy { $0 < 3 }, "\(seconds)")
        #expect(held < 10, "the calls took \(held) s under the lock")
        // Once the lock is gone, every call serves at once.
        _ = try await client.call("health")
        var replica = FeedReplica()
        let item = try ProcessHeavySuites.RelayWriteTests.checkIn(writers[0].person, 99)
        replica.writeItem(item, id: item.key, at: try Stamp(wall: 1, counter: 0, device: "d"))
        _ = try await client.call(
            "relay", try ProcessHeavySuites.RelayWriteTests.relayRequest(.submit(replica)),
            accessToken: writers[0].token)
    }
}

/// A database's URL as glow-server prints it (its start line) and names it in every storage
/// failure it logs (issue 59 item 8): no password, wherever the URL holds one.
@Suite("database names without passwords")
struct RedactionTests {
    @Test(
        "every password of a URL or connection string is withheld, and nothing else is changed",
        arguments: [
            ("postgres://glow:s3cret@db.internal/glow", "postgres://glow:***@db.internal/glow"),
            (
                "postgres://glow@db.internal/glow?password=s3cret&sslmode=require",
                "postgres://glow@db.internal/glow?password=***&sslmode=require"
            ),
            ("postgresql://glow:s3cret@db/glow?PASSWORD=s3cret#x", "postgresql://glow:***@db/glow?PASSWORD=***#x"),
            (
                "host=/run/glow dbname=glow password=s3cret user=glow",
                "host=/run/glow dbname=glow password=*** user=glow"
            ),
            (#"host=db password='s3 cr\'et' dbname=glow"#, "host=db password=*** dbname=glow"),
            (
                "postgresql://postgres@/postgres?host=/tmp/glow-pg-1",
                "postgresql://postgres@/postgres?host=/tmp/glow-pg-1"
            ),
            ("postgres://user@host/db?application_name=a:b@c", "postgres://user@host/db?application_name=a:b@c"),
        ])
    func redacted(url: String, shown: String) {
        let redacted = PostgresServerDatabase.redacted(url)
        #expect(redacted == shown)
        #expect(!redacted.contains("s3cret") && !redacted.contains("cr\\'et"))
    }
}
