import Foundation
import GlowAuth
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowServer
import GlowService
import Testing

/// Authorization call by call (issue 29): a token acts for its own person only, a revoked
/// session's token stops at once, and a replayed refresh token ends its whole family. Through
/// the handler, over in-memory stores, as a client's bytes would arrive.
@Suite("glow-server authorization, call by call")
struct AuthorizationTests {
    final class Mailbox: AuthMailer {
        let mails = Locked<[AuthMail]>([])
        func send(_ mail: AuthMail) { mails.withLock { $0.append(mail) } }
    }

    /// A handler, and a way to call it.
    struct Server {
        let handler: ServiceHandler
        let mailbox = Mailbox()

        init() throws {
            var configuration = TestServer.configuration
            configuration.hashing = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
            let relay = FeedRelay()
            let accounts = try AccountService(
                store: InMemoryAccountStore(), configuration: configuration, mailer: mailbox,
                eraser: RelayEraser(relay: relay), revoker: UnconfiguredRevoker())
            handler = ServiceHandler(accounts: accounts, relay: relay, healthCheck: { nil })
        }

        /// A call: its status, and the answer read as `answerType` (or the error's code).
        func call(_ name: String, _ message: ProtocolMessage = ProtocolMessage("Done"), token: String? = nil)
            throws -> (status: Int, answer: ProtocolMessage)
        {
            var headers = ["Content-Type": "application/x-protobuf"]
            if let token { headers["Authorization"] = "Bearer " + token }
            let call = try #require(ServiceCalls.call(named: name))
            let response = handler.respond(
                to: HTTPRequest(
                    method: call.method, path: call.path, headers: headers, body: message.wireEncoded(),
                    peer: "192.0.2.\(name.count)"))
            let type = response.status == 200 ? call.response : try #require(ProtocolSchema.type("ServiceError"))
            return (response.status, try ProtocolMessage(type, wire: response.body))
        }

        /// A confirmed person signed in on `devices` devices: their sessions' tokens.
        func person(_ email: String, password: String, devices: Int = 1) throws -> [ProtocolMessage] {
            #expect(
                try call("sign-up", ProtocolMessage("SignUpRequest").with("email", email).with("password", password))
                    .status == 200)
            let token = try #require(
                mailbox.mails.withLock { mails in
                    mails.compactMap { mail -> SecretToken? in
                        if case .confirmSignUp(let to, let token) = mail, to == email { return token }
                        return nil
                    }.last
                })
            var sessions = [
                try call(
                    "confirm-sign-up",
                    ProtocolMessage("ConfirmSignUpRequest").with("token", token.reveal()).with("password", password)
                ).answer
            ]
            for device in 1..<devices {
                let signIn = try call(
                    "sign-in",
                    ProtocolMessage("SignInRequest").with("email", email).with("password", password).with(
                        "device", "device \(device)"))
                #expect(signIn.status == 200)
                sessions.append(signIn.answer)
            }
            return sessions
        }

        /// Whether `session`'s access token still opens its person's session list.
        func works(_ session: ProtocolMessage) throws -> Bool {
            try call("sessions", token: session.string("access_token")).status == 200
        }

        /// The session ids `session`'s person sees.
        func sessionIDs(_ session: ProtocolMessage) throws -> Set<String> {
            Set(
                try call("sessions", token: session.string("access_token")).answer.list("sessions").compactMap {
                    value -> String? in
                    if case .message(let entry) = value { return entry.string("id") }
                    return nil
                })
        }
    }

    @Test("a token reads and changes its own person only: sessions, revocation, passwords, sign-out, deletion")
    func ownPersonOnly() throws {
        let server = try Server()
        let ana = try server.person("ana@example.com", password: "plenty of quiet mornings")
        let ben = try server.person("ben@example.com", password: "bright lanterns at dusk", devices: 2)
        let anaToken = ana[0].string("access_token")
        // Each sees their own sessions only.
        #expect(try server.sessionIDs(ana[0]) == [ana[0].string("session")])
        #expect(try server.sessionIDs(ben[0]) == Set(ben.map { $0.string("session") }))
        // Ana names one of Ben's sessions: refused, and it goes on working.
        let revoke = try server.call(
            "revoke-session", ProtocolMessage("RevokeSessionRequest").with("id", ben[1].string("session")),
            token: anaToken)
        #expect(revoke.status >= 400 && revoke.status < 500, "\(revoke.answer.string("code"))")
        #expect(try server.works(ben[1]))
        // Ana's password change, sign-out everywhere and deletion touch Ana alone.
        _ = try server.call(
            "step-up", ProtocolMessage("StepUpRequest").with("password", "plenty of quiet mornings"), token: anaToken)
        #expect(
            try server.call(
                "change-password", ProtocolMessage("ChangePasswordRequest").with("new_password", "a new quiet evening"),
                token: anaToken
            ).status == 200)
        #expect(
            try server.call(
                "sign-in",
                ProtocolMessage("SignInRequest").with("email", "ben@example.com").with(
                    "password", "bright lanterns at dusk")
            ).status == 200, "Ben's password is his own")
        let anaAgain = try server.call(
            "sign-in",
            ProtocolMessage("SignInRequest").with("email", "ana@example.com").with("password", "a new quiet evening"))
        #expect(anaAgain.status == 200)
        #expect(try server.call("sign-out-everywhere", token: anaAgain.answer.string("access_token")).status == 200)
        #expect(try !server.works(anaAgain.answer) && server.works(ben[0]) && server.works(ben[1]))
        let last = try server.call(
            "sign-in",
            ProtocolMessage("SignInRequest").with("email", "ana@example.com").with("password", "a new quiet evening")
        ).answer
        _ = try server.call(
            "step-up", ProtocolMessage("StepUpRequest").with("password", "a new quiet evening"),
            token: last.string("access_token"))
        #expect(
            try server.call(
                "delete-account", ProtocolMessage("DeleteAccountRequest").with("confirmed", .bool(true)),
                token: last.string("access_token")
            ).status == 200)
        #expect(try !server.works(last) && server.works(ben[0]) && server.works(ben[1]))
    }

    /// The attacker's flow FEED-31 closes: a sync the handler authenticated a moment before the
    /// account's deletion reaches the relay after it, with a stamp far ahead to beat the
    /// erasure's withdrawals. The relay refuses it, so nothing the person wrote survives.
    @Test("a sync authenticated before its account's deletion and reaching the relay after it is refused")
    func syncRacingDeletion() throws {
        let server = try Server()
        let ana = try server.person("ana.race@example.com", password: "plenty of quiet mornings")
        let token = ana[0].string("access_token")
        let person = ana[0].string("account")
        let item = try FeedItem(
            owner: person, kind: .checkIn, goal: "g", time: 1_000, title: "Stretch", emoji: "🧘", goalKind: "streak",
            day: try Day(iso: "2026-12-02"))
        var posted = FeedReplica()
        posted.writeVisibility(.public, owner: person, goal: "g", at: try Stamp(wall: 1, counter: 0, device: "p"))
        posted.writeItem(item, id: item.key, at: try Stamp(wall: 2, counter: 0, device: "p"))
        let submit = try server.call(
            "relay",
            try ProtocolMessage(
                #require(ProtocolSchema.type("RelayRequest")), wire: RelayRequest.submit(posted).wireEncoded()),
            token: token)
        #expect(submit.status == 200)
        _ = try server.call(
            "step-up", ProtocolMessage("StepUpRequest").with("password", "plenty of quiet mornings"), token: token)
        #expect(
            try server.call(
                "delete-account", ProtocolMessage("DeleteAccountRequest").with("confirmed", .bool(true)), token: token
            ).status == 200)
        // The request that passed authentication before the deletion, as the relay now receives it.
        var late = FeedReplica()
        late.writeItem(item, id: item.key, at: try Stamp(wall: 9_000_000_000_000, counter: 0, device: "p"))
        let answer = server.handler.relay.respond(
            to: RelayRequest.submit(late).wireEncoded(), from: person, now: 5_000)
        guard case .error(let code, _, let rule) = answer else {
            Issue.record("the late write was taken: \(answer)")
            return
        }
        #expect(code == "person_erased" && rule == "FEED-31")
        #expect(try server.handler.relay.replica.items[item.key]?.value == nil, "the item stays withdrawn")
        // And through the front door the token is gone.
        #expect(
            try server.call(
                "relay",
                try ProtocolMessage(
                    #require(ProtocolSchema.type("RelayRequest")), wire: RelayRequest.changes(since: 0).wireEncoded()),
                token: token
            ).status == 401)
    }

    @Test("a revoked session's access token stops at once; a replayed refresh token ends its whole family")
    func revocationAndReplay() throws {
        let server = try Server()
        let sessions = try server.person("ana@example.com", password: "plenty of quiet mornings", devices: 2)
        // Revoked from the other device: its access token no longer works, before it would expire.
        #expect(
            try server.call(
                "revoke-session", ProtocolMessage("RevokeSessionRequest").with("id", sessions[1].string("session")),
                token: sessions[0].string("access_token")
            ).status == 200)
        #expect(try !server.works(sessions[1]) && server.works(sessions[0]))
        // A refresh token used twice: the second use is refused and ends the pair the first gave.
        let refresh = ProtocolMessage("RefreshRequest").with("refresh_token", sessions[0].string("refresh_token"))
        let first = try server.call("refresh", refresh)
        #expect(first.status == 200)
        #expect(try server.works(first.answer))
        let replay = try server.call("refresh", refresh)
        #expect(replay.status == 401 && replay.answer.string("code") == "refresh_token_reused")
        #expect(try !server.works(first.answer))
        let next = try server.call(
            "refresh", ProtocolMessage("RefreshRequest").with("refresh_token", first.answer.string("refresh_token")))
        #expect(next.status == 401)
    }
}
