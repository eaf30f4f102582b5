import Foundation
import GlowAuth
import GlowClient
import GlowCore
import GlowFeed
import GlowModel
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowServer
import GlowServerStores
import GlowService
import GlowToolSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// glow-server's figures (issue 28): small syncs per second and their latency with 100 devices
/// at once against one process, on SQLite and on PostgreSQL, beside the in-process relay doing
/// the same work; one new item reaching 1,000 friends' next pulls; and sign-ins per second,
/// which Argon2id bounds. Everything runs in this process on loopback: the server's handler on
/// libmicrohttpd's threads; the small syncs' devices each on a thread of its own with one
/// keep-alive connection (``LoopbackConnection``, glow-load's), the rest on URLSession.
enum ServerBench {
    /// A server in this process over `accounts` and `relay`, on a free loopback port.
    final class Running: Sendable {
        let server: HTTPServer
        let accounts: AccountService
        let relay: FeedRelay
        let url: URL
        let mail: MailBox

        init(accounts store: any AccountStore, relay relayStore: any FeedRelayStore, hashing: Argon2Parameters) throws {
            var configuration = AccountConfiguration()
            configuration.hashing = hashing
            // The devices all come from 127.0.0.1: the per-client limits would stop the setup, and so
            // would the cap on everyone's sign-ups an hour (AUTH-36), the fan-out's 1,000 friends.
            configuration.mailsPerClient = 1_000_000
            configuration.mailsPerAddress = 1_000_000
            configuration.signUpsPerHour = 1_000_000
            let mail = MailBox()
            let relay = FeedRelay(store: relayStore)
            let accounts = try AccountService(
                store: store, configuration: configuration, mailer: mail, eraser: RelayEraser(relay: relay),
                revoker: UnconfiguredRevoker())
            let handler = ServiceHandler(accounts: accounts, relay: relay, healthCheck: { nil })
            var limits = HTTPLimits()
            limits.threads = 4
            server = try HTTPServer(
                listen: .tcp(host: "127.0.0.1", port: 0), limits: limits,
                tooLarge: { ServiceHandler.tooLarge(limit: $0) }, handler: { handler.respond(to: $0) })
            guard case .tcp(let host, let port) = server.address, let url = URL(string: "http://\(host):\(port)") else {
                throw ThrowawayPostgres.Failure(description: "the server has no TCP address")
            }
            (self.accounts, self.relay, self.url, self.mail) = (accounts, relay, url, mail)
        }
    }

    /// The tokens the service mails, by address.
    final class MailBox: AuthMailer {
        let tokens = Locked<[String: String]>([:])
        func send(_ mail: AuthMail) {
            if let token = mail.token { tokens.withLock { $0[mail.recipient] = token.reveal() } }
        }
    }

    /// Signs `count` people up through the server: their sessions.
    static func people(_ count: Int, on running: Running, prefix: String) async throws -> [ClientSession] {
        let client = ServiceClient(base: running.url)
        var sessions: [ClientSession] = []
        for index in 0..<count {
            let address = "\(prefix)\(index)@example.com"
            try await client.signUp(email: address, password: password)
            guard let token = running.mail.tokens.withLock({ $0[address] }) else {
                throw ThrowawayPostgres.Failure(description: "no mail to \(address)")
            }
            sessions.append(try await client.confirmSignUp(token: token, password: password))
        }
        return sessions
    }

    static let password = "correct horse battery staple"
    static let cheap = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)

    /// Latencies of `devices` devices each calling `body` in a loop for `seconds`, each waiting
    /// `think` seconds between calls (0: as fast as the server answers).
    static func load(
        devices: Int, seconds: Double, think: Double = 0, _ body: @escaping @Sendable (Int) async throws -> Void
    ) async -> (latencies: [Double], failures: Int, elapsed: Double) {
        let start = Date()
        let deadline = start.addingTimeInterval(seconds)
        return await withTaskGroup(of: ([Double], Int).self) { group in
            for device in 0..<devices {
                group.addTask {
                    var latencies: [Double] = []
                    var failures = 0
                    while Date() < deadline {
                        let begun = DispatchTime.now().uptimeNanoseconds
                        do { try await body(device) } catch { failures += 1 }
                        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begun) / 1e9)
                        if think > 0 {
                            // Jittered, so the devices do not march in step.
                            let wait = think * Double.random(in: 0.5...1.5)
                            do { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) } catch { break }
                        }
                    }
                    return (latencies, failures)
                }
            }
            var all: [Double] = []
            var failures = 0
            for await (latencies, failed) in group {
                all += latencies
                failures += failed
            }
            return (all.sorted(), failures, Date().timeIntervalSince(start))
        }
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// Latencies of `devices` devices, each on a thread of its own with one keep-alive
    /// connection to `port`, each calling `body` in a loop for `seconds`, waiting `think` seconds
    /// (jittered ±50%) between calls; a call that throws or answers other than 200 is a failure.
    static func threads(
        devices: Int, port: UInt16, seconds: Double, think: Double,
        _ body: @escaping @Sendable (Int, LoopbackConnection) throws -> Int
    ) -> (latencies: [Double], failures: Int, elapsed: Double) {
        let start = Date()
        let deadline = start.addingTimeInterval(seconds)
        let results = Locked<(latencies: [Double], failures: Int)>(([], 0))
        let group = DispatchGroup()
        for device in 0..<devices {
            group.enter()
            let thread = Thread {
                let connection = LoopbackConnection(port: port)
                var latencies: [Double] = []
                var failures = 0
                while Date() < deadline {
                    let begun = DispatchTime.now().uptimeNanoseconds
                    do {
                        if try body(device, connection) != 200 { failures += 1 }
                    } catch {
                        failures += 1
                    }
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begun) / 1e9)
                    if think > 0 { Thread.sleep(forTimeInterval: think * Double.random(in: 0.5...1.5)) }
                }
                connection.close()
                results.withLock {
                    $0.latencies += latencies
                    $0.failures += failures
                }
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        let (latencies, failures) = results.withLock { $0 }
        return (latencies.sorted(), failures, Date().timeIntervalSince(start))
    }

    /// 100 devices pulling small syncs (nothing new), each on its own keep-alive connection, as
    /// glow-load's devices call: as fast as the server answers for 5 seconds (the throughput),
    /// then each every 100 ms on average, 1,000 a second offered (the latency a device sees when
    /// the server is not saturated).
    static func syncs(_ name: String, _ running: Running) async throws {
        let sessions = try await people(100, on: running, prefix: "\(name.lowercased())-sync-")
        guard let port = running.url.port.map(UInt16.init) else {
            throw ThrowawayPostgres.Failure(description: "the server's URL has no port")
        }
        let request = ProtocolMessage("RelayRequest").with("changes_since", .unsigned(0)).wireEncoded()
        let tokens = sessions.map(\.accessToken)
        let path = ServiceCalls.prefix + "relay"
        // Each device its own client address, as a proxy in front would give them (SERVER-11).
        let call: @Sendable (Int, LoopbackConnection) throws -> Int = { device, connection in
            try connection.post(
                path, token: tokens[device], from: "10.0.\(device / 256).\(device % 256)", body: request
            ).0
        }
        let saturated = threads(devices: 100, port: port, seconds: 5, think: 0, call)
        let perSecond = Double(saturated.latencies.count) / saturated.elapsed
        let paced = threads(devices: 100, port: port, seconds: 5, think: 0.1, call)
        let p50 = percentile(paced.latencies, 0.5)
        let p99 = percentile(paced.latencies, 0.99)
        record("server", "\(name)SyncsPerSecond", perSecond)
        record("server", "\(name)SyncP50", p50)
        record("server", "\(name)SyncP99", p99)
        say(
            "server   small syncs, 100 devices, one process on \(name): \(String(format: "%.0f", perSecond))/s saturated (p50 \(milliseconds(percentile(saturated.latencies, 0.5))) queued); at \(String(format: "%.0f", Double(paced.latencies.count) / paced.elapsed))/s offered: p50 \(milliseconds(p50)), p99 \(milliseconds(p99)); \(saturated.failures + paced.failures) failed (targets ≥ 2,000/s, p50 < 2 ms, p99 < 20 ms)"
        )
    }

    /// The same small sync answered by the relay in this process, without HTTP or a database.
    static func inProcess() async {
        let relay = FeedRelay()
        let request = RelayRequest.changes(since: 0).wireEncoded()
        let result = await load(devices: 100, seconds: 3) { device in
            blackHole(relay.handle(request, from: "p\(device)", now: 1))
        }
        let perSecond = Double(result.latencies.count) / result.elapsed
        record("server", "inProcessSyncsPerSecond", perSecond)
        say(
            "server   the same small sync, in-process relay (no HTTP, memory only): \(String(format: "%.0f", perSecond))/s, p50 \(milliseconds(percentile(result.latencies, 0.5)))"
        )
    }

    /// One person with 1,000 friends publishes an item; every friend pulls once.
    static func fanOut(_ running: Running) async throws {
        let sessions = try await people(1_001, on: running, prefix: "fan-")
        let owner = sessions[0]
        var friendships = FeedReplica()
        var wall: Int64 = 1
        for friend in sessions.dropFirst() {
            wall += 1
            friendships.writeStance(
                .want, from: owner.account.rawValue, to: friend.account.rawValue,
                at: try Stamp(wall: wall, counter: 0, device: "o"))
        }
        try running.relay.submit(friendships, from: owner.account.rawValue, now: 1)
        var cursors: [UInt64] = []
        for friend in sessions.dropFirst() {
            var theirs = FeedReplica()
            theirs.writeStance(
                .want, from: friend.account.rawValue, to: owner.account.rawValue,
                at: try Stamp(wall: 2, counter: 0, device: "f"))
            try running.relay.submit(theirs, from: friend.account.rawValue, now: 2)
        }
        for friend in sessions.dropFirst() {
            cursors.append(try running.relay.changes(for: friend.account.rawValue, since: 0).cursor)
        }
        var post = FeedReplica()
        let item = try FeedItem(
            owner: owner.account.rawValue, kind: .checkIn, goal: "g", time: 3, title: "Walk", emoji: "",
            goalKind: "single",
            day: try Day(daysSince1970: 20_000))
        post.writeVisibility(
            .friends, owner: owner.account.rawValue, goal: "g", at: try Stamp(wall: wall + 1, counter: 0, device: "o"))
        post.writeItem(item, id: item.key, at: try Stamp(wall: wall + 2, counter: 0, device: "o"))
        let client = ServiceClient(base: running.url, retries: 0)
        let friends = Array(sessions.dropFirst())
        let start = Date()
        try running.relay.submit(post, from: owner.account.rawValue, now: 4)
        let received = Locked(0)
        await withTaskGroup(of: Bool.self) { group in
            for (index, friend) in friends.enumerated() {
                let request = ProtocolMessage("RelayRequest").with("changes_since", .unsigned(cursors[index]))
                group.addTask {
                    do {
                        let answer = try await client.call("relay", request, accessToken: friend.accessToken)
                        return answer.message("changes")?.message("delta")?.list("items").count == 1
                    } catch {
                        return false
                    }
                }
            }
            for await got in group where got { received.withLock { $0 += 1 } }
        }
        let elapsed = Date().timeIntervalSince(start)
        record("server", "fanOut1000", elapsed)
        say(
            "server   one item to 1,000 friends' next pulls over HTTP (SQLite): all \(received.withLock { $0 }) in \(milliseconds(elapsed)), \(milliseconds(elapsed / 1_000)) per pull"
        )
    }

    /// What another store's commit to the server's file costs the relay's next answer, on the
    /// state the fan-out left (a thousand friendships): after the mail outbox's or the accounts'
    /// commit the relay's clock has not moved and it answers from memory; after another relay
    /// process's commit it reads its registers again. Each sample's commit is not timed.
    static func clocks(path: String, _ running: Running) throws {
        let other = try SQLiteServerDatabase(path: path)
        let otherRelay = FeedRelay(store: other.relay)
        let outbox = try SQLiteMailOutbox(path: path)
        let registers = try running.relay.replica.stances.count
        var wall: Int64 = 1_000_000
        func answer(after commit: () throws -> Void) throws -> Double {
            var samples: [Double] = []
            for _ in 0..<25 {
                try commit()
                let start = Date()
                blackHole(try running.relay.changes(for: "nobody", since: 0).cursor)
                samples.append(Date().timeIntervalSince(start))
            }
            return percentile(samples.sorted(), 0.5)
        }
        let afterMail = try answer { try outbox.add(recipient: "bench@example.com", kind: "bench", message: "hello") }
        let afterRelay = try answer {
            wall += 1
            var stance = FeedReplica()
            stance.writeStance(
                .want, from: "clock-a", to: "clock-b", at: try Stamp(wall: wall, counter: 0, device: "c"))
            try otherRelay.submit(stance, from: "clock-a", now: wall)
        }
        record("server", "relayAnswerAfterOtherStoresCommit", afterMail)
        record("server", "relayAnswerAfterOtherRelaysCommit", afterRelay)
        say(
            "server   the relay's next answer on SQLite (\(registers) stance registers): after a mail queued on the file \(milliseconds(afterMail)) (its clock unmoved, answered from memory); after another relay process's commit \(milliseconds(afterRelay)) (read again), \(String(format: "%.0f", afterRelay / afterMail))×"
        )
    }

    /// Sign-ins with the service's own Argon2id parameters (OWASP's), as many at once as cores.
    static func signIns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { removeTemporary(folder, section: "server") }
        let database = try SQLiteServerDatabase(path: folder.appendingPathComponent("server.sqlite").path)
        let running = try Running(accounts: database.accounts, relay: database.relay, hashing: .owasp)
        defer { running.server.stop() }
        let people = 8
        _ = try await Self.people(people, on: running, prefix: "signin-")
        let client = ServiceClient(base: running.url, retries: 0)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let result = await load(devices: cores, seconds: 5) { device in
            _ = try await client.signIn(email: "signin-\(device % people)@example.com", password: password)
        }
        let perSecond = Double(result.latencies.count) / result.elapsed
        record("server", "signInsPerSecond", perSecond)
        say(
            "server   sign-ins, \(cores) at once, Argon2id m=19 MiB t=2: \(String(format: "%.1f", perSecond))/s, p50 \(milliseconds(percentile(result.latencies, 0.5))), \(result.failures) failed"
        )
    }

    static func run() async throws {
        say("\n== server: glow-server's handler over HTTP on loopback (one process)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { removeTemporary(folder, section: "server") }
        let database = try SQLiteServerDatabase(path: folder.appendingPathComponent("server.sqlite").path)
        let sqlite = try Running(accounts: database.accounts, relay: database.relay, hashing: cheap)
        try await syncs("SQLite", sqlite)
        try await fanOut(sqlite)
        try clocks(path: database.path, sqlite)
        sqlite.server.stop()
        if ThrowawayPostgres.binaries != nil {
            let cluster = try ThrowawayPostgres()
            defer {
                do { try cluster.stop() } catch { say("server   the throwaway cluster did not stop: \(error)") }
            }
            let postgres = try PostgresServerDatabase(url: cluster.url)
            let running = try Running(accounts: postgres.accounts, relay: postgres.relay, hashing: cheap)
            try await syncs("PostgreSQL", running)
            running.server.stop()
        } else {
            say("server   PostgreSQL: not installed (Debian's postgresql), not measured")
        }
        await inProcess()
        try await signIns()
    }
}
