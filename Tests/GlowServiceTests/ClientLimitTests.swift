import Foundation
import GlowAuth
import GlowClient
import GlowProtocol
import GlowService
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// SERVER-11 as glow-server keeps it: per client, through HTTP, in bounded memory, under threads.
@Suite("per-client limit")
struct ClientLimitTests {
    @Test("a client past its burst is answered 429 throttled with Retry-After and is not served; others are")
    func throttled() async throws {
        let clock = ClientTests.StepClock()
        let limit = try #require(ClientLimit(intervalMilliseconds: 30_000, burst: 3))
        let server = try TestServer(clock: clock, clientLimit: limit)
        defer { server.stop() }
        let base = try #require(URL(string: server.url))
        let client = ServiceClient(base: base, retries: 0)
        let mallory = ["X-Forwarded-For": "2001:db8:bad:1::1"]
        for _ in 0..<3 { _ = try await client.call("health", headers: mallory) }
        // The fourth call in the same instant: refused before it is served, so no account is made.
        let address = "mallory@example.com"
        let signUp = ProtocolMessage("SignUpRequest").with("email", address).with(
            "password", "correct horse battery staple")
        do {
            _ = try await client.call("sign-up", signUp, headers: mallory)
            Issue.record("a fourth call within the burst of three was served")
        } catch {
            #expect(error.status == 429 && error.code.description == "throttled", "\(error)")
            #expect(error.retryAfter == 30, "a due 90 s ahead, 60 s tolerated: 30 s to wait")
        }
        // Another address of the same /64 is the same client; a raw request shows the header.
        var request = URLRequest(url: base.appendingPathComponent("v1/health"))
        request.setValue("2001:db8:bad:1:ffff::7", forHTTPHeaderField: "X-Forwarded-For")
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 429 && http.value(forHTTPHeaderField: "Retry-After") == "30")
        // Another client is served meanwhile.
        let other = try await client.call("health", headers: ["X-Forwarded-For": "2001:db8:600d:1::1"])
        #expect(other.string("status") == "ok")
        server.mailer.flush()
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.mailFolder).isEmpty)
        // After the wait it was given, the client is served again.
        clock.advance(30)
        _ = try await client.call("sign-up", signUp, headers: mallory)
        #expect(try server.mailedToken(to: address, kind: "confirmSignUp").isEmpty == false)
    }

    @Test("threads calling at once as one client are served exactly the burst")
    func concurrent() async {
        let limiter = ClientLimiter(limit: ClientLimit(intervalMilliseconds: 1_000, burst: 50)!)
        let served = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<100).filter { _ in limiter.admit("198.51.100.1", now: 5_000) == nil }.count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(served == 50)
    }

    @Test("memory stays within the capacity however many clients call, and forgetting keeps the answers")
    func bounded() {
        let limit = ClientLimit(intervalMilliseconds: 1_000, burst: 2)!
        let limiter = ClientLimiter(limit: limit, capacity: 256)
        for index in 0..<20_000 {
            #expect(limiter.admit("2001:db8:\(String(index, radix: 16))::1", now: 0) == nil)
            #expect(limiter.remembered <= 256)
        }
        // A client forgotten for memory was one whose due is soonest; one called at a later time
        // is remembered, and its second and third calls are decided as the rule says.
        #expect(limiter.admit("192.0.2.1", now: 500) == nil)
        #expect(limiter.admit("192.0.2.1", now: 500) == nil)
        #expect(limiter.admit("192.0.2.1", now: 500) == 1)
    }

    @Test(
        "the arithmetic saturates at the ends of 64 bits instead of trapping",
        arguments: [
            (Int64?.some(.max), Int64.min, false), (nil, .max, true), (.some(.min), .max, true),
            (.some(.max), .max - 1, true),
        ])
    func extremes(_ due: Int64?, _ now: Int64, _ served: Bool) {
        let limit = ClientLimit(intervalMilliseconds: 1_000, burst: 2)!
        switch limit.decide(due: due, now: now) {
        case .served(let next): #expect(served && next >= now)
        case .refused(let seconds): #expect(!served && seconds >= 1)
        }
    }

    /// SERVER-11's rate of connections, as glow-server asks it for each new connection: counted
    /// by client (a /64 is one), apart from the calls; not counted behind a trusted proxy or on a
    /// Unix socket.
    @Test("new connections are held to the rate by client, except behind a trusted proxy or on a Unix socket")
    func connectionRate() throws {
        let limiter = ClientLimiter(limit: try #require(ClientLimit(intervalMilliseconds: 3_600_000, burst: 2)))
        var direct = ServiceHandler.Settings()
        direct.trustForwardedFor = false
        let admitted = (0..<3).map { index in
            ServiceHandler.admitsConnection(from: "2001:db8::\(index + 1)", limitedBy: limiter, settings: direct)
        }
        #expect(admitted == [true, true, false], "one /64, one client")
        #expect(ServiceHandler.admitsConnection(from: "2001:db9::1", limitedBy: limiter, settings: direct))
        #expect(ServiceHandler.admitsConnection(from: "unix", limitedBy: limiter, settings: direct))
        var proxied = direct
        proxied.trustForwardedFor = true
        #expect(ServiceHandler.admitsConnection(from: "2001:db8::9", limitedBy: limiter, settings: proxied))
    }

    @Test("limits that cannot hold are refused", arguments: [(Int64(-1), Int64(1)), (1, 0), (.max, 3), (2, .max)])
    func invalid(_ interval: Int64, _ burst: Int64) {
        #expect(ClientLimit(intervalMilliseconds: interval, burst: burst) == nil)
    }
}
