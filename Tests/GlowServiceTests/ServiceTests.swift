import Foundation
import GlowAuth
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowServer
import Testing

@testable import GlowService

/// The handler's parts the corpus cannot reach over HTTP: the client key behind a proxy, the
/// mail's text, erasure at the relay, the health check failing.
@Suite("glow-server's handler")
struct ServiceTests {
    @Test("the client key is the peer, or behind a trusted proxy the last X-Forwarded-For hop")
    func clientKeys() throws {
        let server = try TestServer(trustForwardedFor: false)
        defer { server.stop() }
        // Six wrong sign-ins from one peer under six addresses: the peer's key throttles the sixth
        // (AUTH-39); a forged X-Forwarded-For does not escape it when the proxy is not trusted.
        let handler = ServiceHandler(
            accounts: server.accounts, relay: server.relay, healthCheck: { nil })
        var statuses: [Int] = []
        for index in 0..<6 {
            let body = ProtocolMessage("SignInRequest").with("email", "n\(index)@example.com")
                .with("password", "wrong wrong wrong").wireEncoded()
            let answer = handler.respond(
                to: HTTPRequest(
                    method: "POST", path: "/v1/sign-in",
                    headers: ["Content-Type": "application/x-protobuf", "X-Forwarded-For": "198.51.100.\(index)"],
                    body: body, peer: "192.0.2.7"))
            statuses.append(answer.status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429])
        var settings = ServiceHandler.Settings()
        settings.trustForwardedFor = true
        let proxied = ServiceHandler(
            accounts: server.accounts, relay: server.relay, settings: settings, healthCheck: { nil })
        let body = ProtocolMessage("SignInRequest").with("email", "n9@example.com").with(
            "password", "wrong wrong wrong"
        )
        .wireEncoded()
        let answer = proxied.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/sign-in",
                headers: ["Content-Type": "application/x-protobuf", "X-Forwarded-For": "203.0.113.5, 198.51.100.9"],
                body: body, peer: "192.0.2.7"))
        #expect(answer.status == 401, "behind a trusted proxy the client is the proxy's last hop, not its address")
    }

    @Test("health is 503 storage_failed with Retry-After when the database does not answer; the why goes to the log")
    func unhealthy() throws {
        let server = try TestServer()
        defer { server.stop() }
        let logged = Locked<[String]>([])
        let problem = "busy in /srv/glow/server.sqlite: BEGIN IMMEDIATE (disk I/O error)"
        let handler = ServiceHandler(
            accounts: server.accounts, relay: server.relay, healthCheck: { problem },
            log: { line in logged.withLock { $0.append(line) } })
        let answer = handler.respond(to: HTTPRequest(method: "GET", path: "/v1/health"))
        #expect(answer.status == 503)
        #expect(answer.headers.contains(HTTPHeader("Retry-After", "1")))
        let type = try #require(ProtocolSchema.type("ServiceError"))
        let error = try ProtocolMessage(type, wire: answer.body)
        #expect(error.string("code") == "storage_failed" && error.string("rule") == "SERVER-7")
        // The client learns what to do; the server's path and statement are for its operator.
        for secret in ["/srv/glow", "BEGIN IMMEDIATE", "disk I/O"] {
            #expect(
                !error.string("message").contains(secret)
                    && !String(decoding: answer.body, as: UTF8.self).contains(secret))
        }
        #expect(logged.withLock { $0 }.contains { $0.contains(problem) })
    }

    @Test("the purger's rounds forget expired records by themselves, and a live one stays")
    func purgerRounds() throws {
        final class Clock: AuthClock {
            let time = Locked(1_800_000_000.0)
            func now() -> Double { time.withLock { $0 } }
        }
        let clock = Clock()
        var configuration = TestServer.configuration
        configuration.hashing = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
        let server = try TestServer(configuration: configuration, clock: clock)
        defer { server.stop() }
        let (accounts, store) = (server.accounts, server.database.accounts)
        #expect(throws: AuthError.self) {
            try accounts.signIn(email: "eve@example.com", password: "not the password", clientKey: "stranger")
        }
        func throttles() throws -> Int {
            try store.update { (records) throws(AuthError) in records.throttles.expiring(atOrBefore: .infinity).count }
        }
        #expect(try throttles() == 2)
        let purger = AccountPurger(accounts: accounts, interval: 0.02, report: { Issue.record("\($0)") })
        purger.start()
        defer { purger.stop() }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(try throttles() == 2, "a throttle within its memory stays")
        clock.time.withLock { $0 += 86_400 }
        let deadline = Date().addingTimeInterval(5)
        while try throttles() > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try throttles() == 0, "a day later the rounds forgot both keys of the guess")
    }

    @Test("a mail printed for people withholds its token, in the header and the link")
    func printedSecrets() throws {
        let mail =
            "To: ana@example.com\r\nX-Glow-Mail: passwordReset\r\nX-Glow-Token: tok-123-secret\r\n\r\n"
            + "Reset it: glowritual://reset?token=tok-123-secret\r\n"
        let printed = ServiceMailer.withholdingToken(mail)
        #expect(!printed.contains("tok-123-secret"))
        #expect(printed.contains("X-Glow-Token: [withheld") && printed.contains("X-Glow-Mail: passwordReset"))
        #expect(
            ServiceMailer.withholdingToken("To: ana@example.com\r\n\r\nhello") == "To: ana@example.com\r\n\r\nhello")
    }

    @Test("a mail is RFC 5322 text with its kind and token in headers, and no text adds a header")
    func mailText() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-mail-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mailer = ServiceMailer(
            destination: .directory(folder), sender: "Glow <a@b.example>\r\nBcc: everyone@example.com",
            report: { Issue.record("\($0)") })
        mailer.send(.passwordReset(to: "ana@example.com", token: SecretToken("tok123")))
        mailer.send(.passwordChanged(to: "ana@example.com"))
        mailer.flush()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".eml") }.sorted()
        #expect(names.count == 2)
        let texts = try names.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
        let reset = try #require(texts.first { $0.contains("X-Glow-Mail: passwordReset") })
        let head = reset.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(head.contains("To: ana@example.com"))
        #expect(head.contains("X-Glow-Token: tok123"))
        #expect(!head.contains { $0.hasPrefix("Bcc:") }, "a line break in a header's value never starts a header")
        #expect(reset.contains("reset-password?token=tok123"))
        let changed = try #require(texts.first { $0.contains("X-Glow-Mail: passwordChanged") })
        #expect(!changed.contains("X-Glow-Token"))
    }

    @Test("a mail command gets the message on its standard input; a failing one is reported")
    func mailCommand() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("glow-mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let mailer = ServiceMailer(destination: .command("cat > '\(file)'"), report: { Issue.record("\($0)") })
        mailer.send(.accountDeleted(to: "bo@example.com"))
        mailer.flush()
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("To: bo@example.com") && text.contains("X-Glow-Mail: accountDeleted"))
        let reports = ReportBox()
        let failing = ServiceMailer(destination: .command("exit 3"), report: { reports.add($0) })
        failing.send(.accountDeleted(to: "bo@example.com"))
        failing.flush()
        #expect(reports.all.count == 1 && reports.all[0].contains("status 3"))
        #expect(!reports.all[0].contains("bo@example.com") || reports.all[0].contains("accountDeleted to"))
    }

    @Test("deleting an account withdraws its person's items, stances and reactions at the relay (AUTH-42)")
    func erasure() throws {
        let server = try TestServer()
        defer { server.stop() }
        let relay = server.relay
        let eraser = RelayEraser(relay: relay)
        let ana = "ana-account"
        let bob = "bob-account"
        let stamp = try Stamp(wall: 1_000, counter: 0, device: "phone")
        var anaWrites = FeedReplica()
        anaWrites.writeStance(.want, from: ana, to: bob, at: stamp)
        let item = try FeedItem(
            owner: ana, kind: .checkIn, goal: "g1", time: 1_000, title: "Walk", emoji: "", goalKind: "single",
            day: try Day(daysSince1970: 20_000))
        anaWrites.writeItem(item, id: FeedItemID(item.id), at: stamp)
        anaWrites.writeVisibility(.friends, owner: ana, goal: "g1", at: stamp)
        try relay.submit(anaWrites, from: ana, now: 2_000)
        var bobWrites = FeedReplica()
        bobWrites.writeStance(.want, from: bob, to: ana, at: stamp)
        bobWrites.writeReaction(true, item: FeedItemID(item.id), reactor: bob, kind: .heart, at: stamp)
        try relay.submit(bobWrites, from: bob, now: 2_000)
        let before = try relay.changes(for: bob, since: 0)
        #expect(before.delta.item(FeedItemID(item.id)) != nil, "bob sees ana's item while they are friends")

        try eraser.eraseData(of: AccountID(rawValue: ana))
        let after = try relay.changes(for: bob, since: before.cursor)
        // The erasure ends the friendship: bob's device, taking in his next pull, shows the
        // friends-only item no more, and is not told of its withdrawal, a goal he may not see now
        // (FEED-27 (2)).
        var bobsDevice = before.delta
        bobsDevice.merge(after.delta)
        #expect(bobsDevice.friendState(bob, ana) != .friends && !bobsDevice.canSee(bob, item))
        #expect(after.delta.items[FeedItemID(item.id)] == nil)
        let replica = try relay.replica
        #expect(replica.friendState(ana, bob) != .friends)
        #expect(replica.item(FeedItemID(item.id)) == nil)
        // Erasing again finds nothing left to withdraw and changes nothing.
        let cursor = try relay.changes(for: bob, since: 0).cursor
        try eraser.eraseData(of: AccountID(rawValue: ana))
        #expect(try relay.changes(for: bob, since: 0).cursor == cursor)
    }
}

/// Reports heard from another thread.
final class ReportBox: Sendable {
    private let reports = Locked<[String]>([])
    func add(_ report: String) { reports.withLock { $0.append(report) } }
    var all: [String] { reports.withLock { $0 } }
}
