import Dispatch
import Foundation
import GlowClient
import GlowCore
import GlowModel
import GlowProtocol
import GlowRitual
import GlowServer
import GlowService
import Testing

/// Syncing within a budget (issue 58): a background task's seconds are never overrun, a server
/// that stalls included, and nothing a device changed is lost to a server that fails mid-sync.
@Suite("Sync within a budget", .serialized)
@MainActor
struct BackgroundSyncTests {
    /// How the front answers the sync log's calls and the relay's.
    enum Mode: Sendable, Equatable {
        /// As glow-server does.
        case forward
        /// `503` with a `storage_failed` refusal.
        case unavailable
        /// `401` `invalid_session`: the session was ended elsewhere.
        case refuse
        /// Accepts and answers nothing until the test ends.
        case stall
        /// `503` asking for a wait of 30 seconds before the next try.
        case busy
    }

    /// A server in front of `server` that answers the sync log's calls and the relay's as `mode`
    /// says, and every other call as glow-server does.
    final class Front: Sendable {
        let mode = Locked(Mode.forward)
        let released = DispatchSemaphore(value: 0)
        /// The requests the front answered as `mode` says.
        let seen = Locked(0)
        let http: HTTPServer

        init(_ server: TestServer) throws {
            let handler = ServiceHandler(
                accounts: server.accounts, relay: server.relay, sync: server.sync, healthCheck: { nil })
            let (mode, released, seen) = (mode, released, seen)
            http = try HTTPServer(listen: .tcp(host: "127.0.0.1", port: 0)) { request in
                let call = request.path.split(separator: "/").last.map(String.init) ?? ""
                let now =
                    ["sync-push", "sync-pull", "relay", "health"].contains(call) ? mode.withLock { $0 } : .forward
                if now != .forward { seen.withLock { $0 += 1 } }
                switch now {
                case .forward: return handler.respond(to: request)
                case .unavailable:
                    return Self.refusal(503, "storage_failed", "the database is busy")
                case .refuse:
                    return Self.refusal(401, "invalid_session", "the session was ended")
                case .stall:
                    // Held until the test ends (at most a minute), as a stalled server holds it.
                    _ = released.wait(timeout: .now() + 60)
                    return Self.refusal(503, "storage_failed", "stalled")
                case .busy:
                    let error = ProtocolMessage("ServiceError").with("code", "storage_failed").with("message", "busy")
                        .with("retry_after_seconds", .unsigned(30))
                    return HTTPResponse(status: 503, contentType: ServiceCalls.contentType, body: error.wireEncoded())
                }
            }
        }

        static func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
            let error = ProtocolMessage("ServiceError").with("code", code).with("message", message)
            return HTTPResponse(status: status, contentType: ServiceCalls.contentType, body: error.wireEncoded())
        }

        var url: URL {
            get throws {
                guard case .tcp(let host, let port) = http.address else { throw CancellationError() }
                return try #require(URL(string: "http://\(host):\(port)"))
            }
        }

        func stop() {
            for _ in 0..<16 { released.signal() }
            http.stop()
        }
    }

    /// A signed-in app over the sample person, syncing its own data through `front`, synced once;
    /// the client that reaches it.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func app(_ name: String, _ server: TestServer, _ front: Front) async throws -> (RitualApp, ServiceClient) {
        _ = try await ClientTests.account(name, on: server)
        let client = ServiceClient(base: try front.url, backoff: 0.05)
        let app = try await RitualApp(
            path: try await ClientTests.samplePath(), device: DeviceID(UUID()), secrets: InMemorySecretStore())
        try await app.signIn(
            try await client.signIn(email: "\(name)@example.com", password: ClientTests.password), client: client)
        try await app.startSync()
        let first = await app.sync(within: .seconds(60))
        #expect(first.isComplete && first.failure == nil && first.waiting == 0, "\(first)")
        return (app, client)
    }

    /// The records waiting in `app`'s outbox.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func waiting(_ app: RitualApp) async throws -> Int {
        try #require(try await app.database.sync).state.outbox.pending.count
    }

    @Test("a client's call sends nothing past its deadline, and waits for no retry that would pass it")
    // Off the main actor, which the suite's other tests keep busy when they run beside it.
    nonisolated func clientDeadline() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let front = try Front(server)
        defer { front.stop() }
        let client = ServiceClient(base: try front.url, retries: 5, backoff: 0.05)
        front.mode.withLock { $0 = .busy }
        // Without a deadline the server's wait is taken: this one returns only because it is cancelled.
        let clock = ContinuousClock()
        var started = clock.now
        let patient = Task { try await client.health() }
        try await Task.sleep(for: .milliseconds(500))
        patient.cancel()
        _ = await patient.result
        #expect(clock.now - started >= .milliseconds(500))
        // A deadline a second away: one try, and no wait of 30 seconds for the next. The call ends by
        // the deadline, with the 503 or, should the answer not come by then, without one.
        started = clock.now
        front.seen.withLock { $0 = 0 }
        let refused = await ServiceClient.$deadline.withValue(clock.now + .seconds(1)) {
            await #expect(throws: ServiceFailure.self) { try await client.health() }
        }
        // Not the 30 seconds asked for. (How close to the deadline it returns is the sync test's to
        // hold: beside the module's other tests the two cores' task threads can be busy a second.)
        #expect(clock.now - started < .seconds(15), "the client waited for a retry past its deadline")
        #expect(refused?.status == 503 || refused?.code == .network, "\(String(describing: refused))")
        // A deadline passed already: nothing is sent.
        front.seen.withLock { $0 = 0 }
        let late = await ServiceClient.$deadline.withValue(clock.now - .seconds(1)) {
            await #expect(throws: ServiceFailure.self) { try await client.health() }
        }
        #expect(late?.code == .network && front.seen.withLock { $0 } == 0)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    /// The figure is 2.2 s. Beside the whole suite on 2 cores the main actor this runs on
    /// is shared with every other suite's, and a run there took 3.7 s, so the bound here is 5 s:
    /// still far from the stall, which lasts until the client's own timeout of a minute.
    @Test("sync(within: 2 s) against a server that stalls returns by its budget, naming the work left")
    func stalledServer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let front = try Front(server)
        defer { front.stop() }
        let (app, _) = try await Self.app("stall", server, front)
        // A change the background round cannot send (the server is busy), then a server that stalls.
        front.mode.withLock { $0 = .unavailable }
        _ = try await app.addGoal(GoalDraft(title: "Stretch", kind: .streak, schedule: .daily))
        await app.backgroundSyncFinished()
        let waiting = try await Self.waiting(app)
        #expect(waiting > 0)
        front.mode.withLock { $0 = .stall }

        let clock = ContinuousClock()
        let started = clock.now
        let report = await app.sync(within: .seconds(2))
        let took = clock.now - started
        #expect(took < .seconds(5), "sync(within: 2 s) took \(took)")
        // Stopped at the deadline, or by the last call's wait, bounded by the time left, running out.
        #expect(report.overBudget || report.failure != nil, "\(report)")
        #expect(report.left == [.push, .pull, .feed] && report.done.isEmpty)
        #expect(report.waiting == waiting && report.pushed == 0)
        #expect(try await Self.waiting(app) == waiting, "the stalled push took changes out of the outbox")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test(
        "a server that answers 503, stalls or refuses the session mid-sync leaves every change in the outbox; the next sync sends it",
        arguments: [Mode.unavailable, .stall, .refuse])
    func changesStay(mode: Mode) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let front = try Front(server)
        defer { front.stop() }
        let name = "keep-\(UUID().uuidString.prefix(6).lowercased())"
        let (app, client) = try await Self.app(name, server, front)
        front.mode.withLock { $0 = .unavailable }
        let goal = try await app.addGoal(GoalDraft(title: "Walk", kind: .streak, schedule: .daily))
        try await app.goals.tap(.done, goal: goal.id)
        await app.backgroundSyncFinished()
        let waiting = try await Self.waiting(app)
        #expect(waiting >= 2)

        front.mode.withLock { $0 = mode }
        let failed = await app.sync(within: .seconds(2))
        #expect(failed.left.contains(.push) && !failed.done.contains(.push), "\(failed)")
        #expect(failed.waiting == waiting && failed.pushed == 0)
        switch mode {
        case .stall: #expect(failed.overBudget || failed.failure != nil)
        case .refuse:
            #expect(!failed.overBudget && failed.failure != nil)
            #expect(app.session == nil, "a refused session stays signed in")
        default: #expect(!failed.overBudget && failed.failure != nil)
        }
        #expect(try await Self.waiting(app) == waiting, "a failed sync took changes out of the outbox")

        // The next sync, against a server that answers, sends them.
        front.mode.withLock { $0 = .forward }
        if app.session == nil {
            try await app.signIn(
                try await client.signIn(email: "\(name)@example.com", password: ClientTests.password), client: client)
        }
        let next = await app.sync(within: .seconds(60))
        #expect(next.isComplete && next.failure == nil && !next.overBudget, "\(next)")
        #expect(next.pushed == waiting && next.waiting == 0)
        #expect(try await Self.waiting(app) == 0)
        // Another device of the person pulls them.
        let other = try await RitualApp(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("glow-\(UUID().uuidString).sqlite")
                .path,
            device: DeviceID(UUID()), secrets: InMemorySecretStore())
        try await other.signIn(
            try await client.signIn(email: "\(name)@example.com", password: ClientTests.password), client: client)
        try await other.pair(code: try await app.offerPairing().description)
        #expect(other.goals.row(goal.id)?.currentStreak == 1)
    }
}
