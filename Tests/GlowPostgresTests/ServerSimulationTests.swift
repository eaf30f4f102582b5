import Foundation
import GlowClient
import GlowFeed
import GlowModel
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowServerStores
import GlowToolSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fifty people with three devices each, over HTTP, against `glow-server` processes: three over
/// one PostgreSQL, each request of each device sent to a process chosen at random, and one on the
/// SQLite default. Devices make friends, publish, withdraw, hide goals, cheer and mark seen, go
/// offline and come back with clocks up to five minutes off. No answer ever holds an item its
/// viewer may not see at that moment, and once everyone has synchronised every device shows what
/// its person may see (FEED-25 ... FEED-27, SERVER-3).
@Suite("glow-server simulation", .serialized)
struct ServerSimulationTests {
    struct Device {
        let person: String
        let token: String
        /// Its person's address, as a proxy in front would give it: a /64 of each person's own.
        let from: [String: String]
        var clock: HybridClock
        var replica = FeedReplica()
        var cursor: UInt64 = 0
        var sent: Stamp?
        var online = true
        let skew: Int64
    }

    /// The deployment under test: its processes' clients, its mail folder, and the relay's state
    /// as the database holds it (the truth each answer is judged by).
    struct Deployment {
        let clients: [ServiceClient]
        let mailFolder: String
        let truth: FeedRelay
    }

    static let password = "correct horse battery staple"

    /// Signs the people up and their devices in, each call through a process chosen at random.
    static func devices(_ deployment: Deployment, _ random: inout SeededRandom) async throws -> [Device] {
        var devices: [Device] = []
        for index in 0..<50 {
            let address = "p\(index)@example.com"
            // Each person's calls come from a /64 of their own, as through a proxy (AUTH-39, SERVER-11).
            let from = ["X-Forwarded-For": "2001:db8:\(String(index, radix: 16))::1"]
            _ = try await deployment.clients.randomElement(using: &random)!.call(
                "sign-up", ProtocolMessage("SignUpRequest").with("email", address).with("password", password),
                headers: from)
            let token = try ServerProcess.mailedToken(deployment.mailFolder, to: address)
            let confirmed = try await deployment.clients.randomElement(using: &random)!.call(
                "confirm-sign-up",
                ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", password), headers: from)
            let person = confirmed.string("account")
            for device in 0..<3 {
                let session = try await deployment.clients.randomElement(using: &random)!.call(
                    "sign-in",
                    ProtocolMessage("SignInRequest").with("email", address).with("password", password)
                        .with("device", "d\(device)"), headers: from)
                #expect(session.string("account") == person)
                devices.append(
                    Device(
                        person: person, token: session.string("access_token"), from: from,
                        clock: HybridClock(device: "\(person)-d\(device)"),
                        skew: Int64.random(in: -300_000...300_000, using: &random)))
            }
        }
        return devices
    }

    /// The relay's answer to `request` from `device`, through a process chosen at random.
    static func exchange(
        _ request: RelayRequest, _ device: Device, _ deployment: Deployment, _ random: inout SeededRandom
    ) async throws -> RelayResponse {
        guard let type = ProtocolSchema.type("RelayRequest") else { preconditionFailure("declared") }
        let answer = try await deployment.clients.randomElement(using: &random)!.call(
            "relay", try ProtocolMessage(type, wire: request.wireEncoded()), accessToken: device.token,
            headers: device.from)
        return try RelayResponse(wire: answer.wireEncoded())
    }

    /// Sends the device's new writes, then takes in what the relay has for its person, judging
    /// every item it was sent by the relay's state at that moment.
    static func sync(_ device: inout Device, _ deployment: Deployment, _ random: inout SeededRandom, now: Int64)
        async throws
    {
        let mine = device.replica.authored(by: device.person, since: device.sent)
        if mine != FeedReplica() {
            guard case .submitted = try await exchange(.submit(mine), device, deployment, &random) else {
                Issue.record("the relay refused \(device.person)'s own writes")
                return
            }
            if let latest = mine.latestStamp { device.sent = max(device.sent ?? latest, latest) }
        }
        guard
            case .changes(let delta, let cursor, _) = try await exchange(
                .changes(since: device.cursor), device, deployment, &random)
        else {
            Issue.record("the relay did not answer \(device.person)'s changes")
            return
        }
        let truth = try deployment.truth.replica
        for register in delta.items.values {
            if let item = register.value {
                #expect(truth.canSee(device.person, item), "\(device.person) was sent \(item.id), not theirs to see")
            }
        }
        device.replica.merge(delta)
        device.cursor = cursor
        if let latest = delta.latestStamp { try device.clock.receive(latest, now: now + device.skew) }
    }

    /// One random local change on `device`, as a person's taps make them.
    static func act(_ device: inout Device, _ people: [String], _ random: inout SeededRandom, now: Int64) throws {
        let person = device.person
        let physical = max(0, now + device.skew)
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2:
            let other = people.randomElement(using: &random)!
            let action = FriendAction.allCases.randomElement(using: &random)!
            let stamp = try device.clock.tick(now: physical)
            // An action the friend state does not allow is refused, as the app's button would be.
            _ = Result { () throws(FeedError) in try device.replica.act(action, from: person, toward: other, at: stamp)
            }
        case 3, 4:
            let goal = "g\(Int.random(in: 0..<3, using: &random))"
            let day = try Day(daysSince1970: 20_000 + Int.random(in: 0..<5, using: &random))
            let item = try FeedItem(
                owner: person, kind: .checkIn, goal: goal, time: Int64(day.daysSince1970) * 86_400_000,
                title: "Goal \(goal)", emoji: "✨", goalKind: "single", day: day,
                streak: Int.random(in: 1...9, using: &random))
            device.replica.writeItem(item, id: item.key, at: try device.clock.tick(now: physical))
        case 5:
            let mine = device.replica.items.filter { $0.value.value?.owner == person }.keys.sorted()
            if let id = mine.randomElement(using: &random) {
                device.replica.writeItem(nil, id: id, at: try device.clock.tick(now: physical))
            }
        case 6:
            let goal = "g\(Int.random(in: 0..<3, using: &random))"
            let visibility = Visibility.allCases.randomElement(using: &random)!
            device.replica.writeVisibility(
                visibility, owner: person, goal: goal, at: try device.clock.tick(now: physical))
        case 7, 8:
            let page = try device.replica.page(for: person, limit: 100).items.filter { $0.owner != person }
            if let item = page.randomElement(using: &random) {
                let kind = ReactionKind.allCases.randomElement(using: &random)!
                try device.replica.react(
                    kind, on: item.key, by: person, Bool.random(using: &random),
                    at: try device.clock.tick(now: physical))
            }
        default:
            let newest = device.replica.receipts.values.max() ?? 0
            device.replica.markSeen(person, upTo: newest)
        }
    }

    /// Every page of `person`'s feed in `replica`.
    static func wholeFeed(_ replica: FeedReplica, _ person: String) throws -> [FeedItem] {
        var items: [FeedItem] = []
        var cursor: FeedCursor?
        repeat {
            let page = try replica.page(for: person, limit: 100, after: cursor)
            items += page.items
            cursor = page.next
        } while cursor != nil
        return items
    }

    /// The simulation over `deployment`: `steps` random actions, a third of them followed by a
    /// sync, then everyone back online syncing until nothing moves.
    static func simulate(_ deployment: Deployment, seed: UInt64, steps: Int) async throws {
        var random = SeededRandom(seed: seed)
        var devices = try await devices(deployment, &random)
        let people = Array(Set(devices.map(\.person))).sorted()
        var now = Int64(Date().timeIntervalSince1970 * 1_000)
        for _ in 0..<steps {
            now += Int64.random(in: 0...2_000, using: &random)
            let index = Int.random(in: 0..<devices.count, using: &random)
            if Int.random(in: 0..<20, using: &random) == 0 { devices[index].online.toggle() }
            try act(&devices[index], people, &random, now: now)
            if devices[index].online && Int.random(in: 0..<3, using: &random) == 0 {
                try await sync(&devices[index], deployment, &random, now: now)
            }
        }
        for round in 0..<3 {
            now += 1_000
            for index in devices.indices {
                devices[index].online = true
                try await sync(&devices[index], deployment, &random, now: now + Int64(round))
            }
        }
        let truth = try deployment.truth.replica
        var checkedItems = 0
        for device in devices {
            let person = device.person
            let expected = try wholeFeed(truth, person)
            #expect(try wholeFeed(device.replica, person) == expected, "\(person) on \(device.clock.device)")
            #expect(device.replica.badge(person) == truth.badge(person))
            for other in people where other != person {
                #expect(device.replica.friendState(person, other) == truth.friendState(person, other))
            }
            for item in expected {
                #expect(
                    try device.replica.reactions(on: item.key, viewer: person)
                        == truth.reactions(on: item.key, viewer: person))
                checkedItems += 1
            }
        }
        #expect(checkedItems > 100, "the simulation shared items")
    }

    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-sim-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder + "/mail", withIntermediateDirectories: true)
        return folder
    }

    @Test(
        "three glow-server processes over one PostgreSQL: every device converges, and none is sent more",
        .enabled(if: TemporaryPostgres.available))
    func threeProcessesOnPostgres() async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = "postgresql://postgres@/postgres?host=\(cluster.folder.path)"
        let servers = try (0..<3).map { _ in
            try ServerProcess(arguments: ["--database", url, "--mail-dir", folder + "/mail"])
        }
        defer { for server in servers { server.stop() } }
        let deployment = Deployment(
            // A call the storage did not answer in time (503 with Retry-After: not carried out) is
            // sent again, as an app's client does: beside the whole suite on 2 cores, PostgreSQL
            // answered a sign-in late once.
            clients: servers.map { ServiceClient(base: $0.url, retries: 3) }, mailFolder: folder + "/mail",
            truth: FeedRelay(store: try PostgresServerDatabase(url: url).relay))
        try await Self.simulate(deployment, seed: 7, steps: 1_500)
    }

    @Test("one glow-server process on the SQLite default: every device converges, and none is sent more")
    func oneProcessOnSQLite() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.sqlite"
        let server = try ServerProcess(arguments: ["--database", path, "--mail-dir", folder + "/mail"])
        defer { server.stop() }
        let deployment = Deployment(
            clients: [ServiceClient(base: server.url, retries: 0)], mailFolder: folder + "/mail",
            truth: FeedRelay(store: try SQLiteServerDatabase(path: path).relay))
        try await Self.simulate(deployment, seed: 2026, steps: 1_500)
    }
}
