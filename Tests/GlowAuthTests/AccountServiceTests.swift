import Foundation
import GlowCore
import GlowCrypto
import Testing

@testable import GlowAuth

/// The account service through its public API, beyond the corpus's scripts: provider sign-in and
/// linking, revocations that survive a restart, rehashing, secrets kept out of every description,
/// and concurrent use.
@Suite("The account service")
struct AccountServiceTests {
    static let tiny = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
    /// Tiny hashes through a gate of their own whose line waits as long as it takes: the test
    /// process runs many suites at once on two cores, and a test that is not about AUTH-12's
    /// `busy` must not meet it because another suite hashes through the process's gate.
    static var configuration: AccountConfiguration {
        var configuration = AccountConfiguration()
        configuration.hashing = tiny
        configuration.hashingGate = patientGate
        return configuration
    }
    static let patientGate = HashingGate(concurrent: 1, wait: 120)
    static let password = "violet lantern morning"

    final class Clock: AuthClock {
        let time = Locked(1_796_083_200.0)
        func now() -> Double { time.withLock { $0 } }
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    final class Mailer: AuthMailer {
        let sent = Locked<[AuthMail]>([])
        func send(_ mail: AuthMail) { sent.withLock { $0.append(mail) } }
        var last: AuthMail? { sent.withLock { $0.last } }
    }

    final class Eraser: AccountEraser {
        let erased = Locked<[AccountID]>([])
        func eraseData(of account: AccountID) throws { erased.withLock { $0.append(account) } }
    }

    /// Fails its first `failures` calls, then revokes.
    final class Revoker: ProviderTokenRevoker {
        let failures: Int
        let calls = Locked(0)
        let revoked = Locked<[String]>([])
        init(failures: Int) { self.failures = failures }
        struct Down: Error {}
        func revoke(_ token: SecretToken, provider: String) async throws {
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            if call <= failures { throw Down() }
            revoked.withLock { $0.append(provider + ":" + token.reveal()) }
        }
    }

    /// A fetcher answering one fixed key set.
    struct Fetcher: KeySetFetcher {
        let body: [UInt8]
        func fetchKeySet(from url: String) async throws -> KeySetResponse { KeySetResponse(body: body, maxAge: 3600) }
    }

    /// A valid ID-token case of the corpus: its token, key set, nonce, time and client ids.
    struct TokenFixture {
        let token: String
        let keySet: [UInt8]
        let nonce: String
        let now: Double
        let clientIDs: Set<String>
        let provider: IdentityProvider

        init(_ id: String) throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Spec/corpus/auth/id_token.json")
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
            let cases = document["cases"] as! [[String: Any]]
            let input = cases.first { $0["id"] as? String == id }!["input"] as! [String: Any]
            token = input["token"] as! String
            keySet = Array(try JSONSerialization.data(withJSONObject: input["keySet"]!))
            nonce = input["nonce"] as! String
            now = (input["now"] as! NSNumber).doubleValue
            clientIDs = Set(input["clientIds"] as! [String])
            provider = input["provider"] as! String == "apple" ? .apple : .google
        }
    }

    struct World {
        let store: InMemoryAccountStore
        let clock = Clock()
        let mailer = Mailer()
        let eraser = Eraser()
        let service: AccountService

        init(
            store: InMemoryAccountStore = InMemoryAccountStore(), hashing: Argon2Parameters = AccountServiceTests.tiny,
            revoker: any ProviderTokenRevoker = Revoker(failures: 0), fixtures: [TokenFixture] = []
        ) throws {
            self.store = store
            var configuration = AccountServiceTests.configuration
            configuration.hashing = hashing
            let verifiers = try fixtures.map {
                try IDTokenVerifier(
                    provider: $0.provider, clientIDs: $0.clientIDs, keys: KeySetCache(fetcher: Fetcher(body: $0.keySet))
                )
            }
            if let first = fixtures.first { clock.time.withLock { $0 = first.now } }
            // The fixture tokens were signed for one nonce: the service issues that one each time.
            let fixed = fixtures.first?.nonce
            service = try AccountService(
                store: store, configuration: configuration, clock: clock, mailer: mailer, eraser: eraser,
                revoker: revoker, verifiers: verifiers, makeNonce: { fixed ?? SecretToken.random().reveal() })
        }

        /// Signs `email` up and confirms it.
        func account(_ email: String = "ana@example.com") throws -> Session {
            try service.signUp(email: email, password: AccountServiceTests.password, clientKey: "test")
            return try service.confirmSignUp(token: mailer.last!.token!, password: AccountServiceTests.password)
        }
    }

    @Test("Google's verified address links to the account of that address; Apple's relay address does not")
    func linking() async throws {
        let google = try TokenFixture("idtoken-001")
        let world = try World(fixtures: [google])
        let existing = try world.account()
        _ = try world.service.issueSignInNonce(clientKey: "test")
        let viaGoogle = try await world.service.signIn(provider: "google", idToken: google.token, nonce: google.nonce)
        #expect(viaGoogle.account == existing.account)
        await #expect(throws: AuthError.self, "a used nonce does not sign in again") {
            try await world.service.signIn(provider: "google", idToken: google.token, nonce: google.nonce)
        }
        _ = try world.service.issueSignInNonce(clientKey: "test")
        let again = try await world.service.signIn(provider: "google", idToken: google.token, nonce: google.nonce)
        #expect(again.account == existing.account, "the identity is linked now")

        let relay = try TokenFixture("idtoken-004")
        let appleWorld = try World(fixtures: [relay])
        let owner = try appleWorld.account("x7kq2p9d4m@privaterelay.appleid.com")
        _ = try appleWorld.service.issueSignInNonce(clientKey: "test")
        let viaApple = try await appleWorld.service.signIn(provider: "apple", idToken: relay.token, nonce: relay.nonce)
        #expect(viaApple.account != owner.account, "a relay address never links by e-mail")

        let unverified = try TokenFixture("idtoken-007")
        let unverifiedWorld = try World(fixtures: [unverified])
        let holder = try unverifiedWorld.account()
        _ = try unverifiedWorld.service.issueSignInNonce(clientKey: "test")
        let viaUnverified = try await unverifiedWorld.service.signIn(
            provider: "google", idToken: unverified.token, nonce: unverified.nonce)
        #expect(viaUnverified.account != holder.account, "an unverified address never links")
        // The new account has no address: the holder's stays theirs, and their password still works.
        #expect(
            try unverifiedWorld.service.signIn(email: "ana@example.com", password: Self.password, clientKey: "c")
                .account == holder.account)

        await #expect(throws: AuthError.self) {
            try await world.service.signIn(provider: "facebook", idToken: google.token, nonce: nil)
        }
        do {
            _ = try await world.service.signIn(provider: "google", idToken: google.token, nonce: "another nonce")
            Issue.record("a token with another nonce signed in")
        } catch {
            #expect(error.code == .nonceMismatch)
        }
    }

    @Test("deleting an Apple account queues its token's revocation, which survives failures and a restart")
    func revocation() async throws {
        let apple = try TokenFixture("idtoken-003")
        let store = InMemoryAccountStore()
        let failing = Revoker(failures: 100)
        let first = try World(store: store, revoker: failing, fixtures: [apple])
        _ = try first.service.issueSignInNonce(clientKey: "test")
        let session = try await first.service.signIn(
            provider: "apple", idToken: apple.token, nonce: apple.nonce, providerRefreshToken: SecretToken("r.apple.1"))
        try first.service.deleteAccount(accessToken: session.accessToken, confirmed: true)
        #expect(first.eraser.erased.withLock { $0 } == [session.account])
        #expect(try await first.service.processRevocations() == .init(revoked: 0, waiting: 1))
        #expect(try await first.service.processRevocations() == .init(revoked: 0, waiting: 1), "not due yet: no call")
        #expect(failing.calls.withLock { $0 } == 1)
        first.clock.advance(60)
        #expect(try await first.service.processRevocations() == .init(revoked: 0, waiting: 1))
        #expect(failing.calls.withLock { $0 } == 2)

        // A restart: a new service over the same store, whose revoker works.
        let working = Revoker(failures: 0)
        let second = try World(store: store, revoker: working, fixtures: [apple])
        // The second failure was at +60 s, so the next try is due at +180 s.
        second.clock.advance(60 + 119)
        #expect(
            try await second.service.processRevocations() == .init(revoked: 0, waiting: 1),
            "the 2nd failure waits 120 s")
        second.clock.advance(1)
        #expect(try await second.service.processRevocations() == .init(revoked: 1, waiting: 0))
        #expect(working.revoked.withLock { $0 } == ["apple:r.apple.1"])
        do {
            _ = try second.service.authenticate(accessToken: session.accessToken)
            Issue.record("a deleted account's session still works")
        } catch {
            #expect(error.code == .invalidSession)
        }
    }

    @Test("a sign-in replaces a hash made with less than the current parameters")
    func rehash() throws {
        let store = InMemoryAccountStore()
        let weak = try World(store: store)
        let session = try weak.account()
        func storedParameters() throws -> Argon2Parameters {
            try PasswordHash(
                phc: store.update { (records) throws(AuthError) in records.accounts[session.account]!.passwordHash! }
            ).parameters
        }
        #expect(try storedParameters() == Self.tiny)
        let stronger = Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1)
        let strong = try World(store: store, hashing: stronger)
        _ = try strong.service.signIn(email: "ana@example.com", password: Self.password, clientKey: "c")
        #expect(try storedParameters() == stronger)
        _ = try strong.service.signIn(email: "ana@example.com", password: Self.password, clientKey: "c")
        #expect(
            try weak.service.signIn(email: "ana@example.com", password: Self.password, clientKey: "c").account
                == session.account)
    }

    @Test("no password, token or hash shows in a description, a dump, an error or a mail's description")
    func secretsStayHidden() throws {
        let world = try World()
        let session = try world.account()
        try world.service.requestPasswordReset(email: "ana@example.com", clientKey: "test")
        let reset = world.mailer.last!
        var secrets = [
            Self.password, session.accessToken.reveal(), session.refreshToken.reveal(), reset.token!.reveal(),
        ]
        let records = try world.store.update { (records) throws(AuthError) in records }
        let account = records.accounts[session.account]!
        secrets.append(account.passwordHash!)
        secrets.append(contentsOf: records.sessions.values.flatMap { [$0.accessHash, $0.refreshHash] })
        secrets.append(contentsOf: records.resets.keys)
        var texts = [
            String(describing: session), String(reflecting: session), String(describing: reset),
            String(describing: records), String(describing: account), String(describing: session.accessToken),
        ]
        for value in [session as Any, records, account, reset, records.sessions.values.first!] {
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
        do {
            try world.service.changePassword(accessToken: session.accessToken, newPassword: Self.password)
        } catch {
            texts.append(String(describing: error))
        }
        do {
            _ = try world.service.signIn(email: "ana@example.com", password: "wrong " + Self.password, clientKey: "c")
        } catch {
            texts.append(String(describing: error))
            #expect(!String(describing: error).contains("wrong"))
        }
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text) shows a secret") }
        }
        #expect(texts.count == 13)
    }

    @Test("sign-ins from many tasks at once each get their own session, and failures are all counted")
    func concurrentSignIns() async throws {
        let world = try World()
        let account = try world.account().account
        let sessions = try await withThrowingTaskGroup(of: Session.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try world.service.signIn(email: "ana@example.com", password: Self.password, clientKey: "c\(index)")
                }
            }
            return try await group.reduce(into: [Session]()) { $0.append($1) }
        }
        #expect(sessions.count == 16)
        #expect(Set(sessions.map(\.accessToken)).count == 16)
        #expect(sessions.allSatisfy { $0.account == account })
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    _ = try? world.service.signIn(email: "bob@example.com", password: "x", clientKey: "same")
                }
            }
        }
        do {
            _ = try world.service.signIn(email: "carol@example.com", password: "x", clientKey: "same")
            Issue.record("the sixth failure from one client was not throttled")
        } catch {
            #expect(error.code == .throttled)
            #expect(error.retryAfter == 1)
        }
    }

    @Test("a guess with a 900 KB address keeps a throttle of a few bytes, counted like any other text")
    func boundedThrottleKeys() throws {
        let world = try World()
        let huge = String(repeating: "x", count: 900_000) + "@example.com"
        let client = String(repeating: "c", count: 10_000)
        for _ in 0..<2 {
            #expect(throws: AuthError.self) {
                try world.service.signIn(email: huge, password: "not the password", clientKey: client)
            }
        }
        let throttles = try world.store.update { (records) throws(AuthError) in
            records.throttles.expiring(atOrBefore: .infinity).map { ($0.key, $0.value.failures) }
        }
        #expect(throttles.count == 2 && throttles.allSatisfy { $0.0.utf8.count < 100 && $0.1 == 2 }, "\(throttles)")
        // An address of ordinary length keeps its text as its key (AUTH-39).
        #expect(throws: AuthError.self) {
            try world.service.signIn(email: "eve@example.com", password: "not the password", clientKey: "k")
        }
        let named = try world.store.update { (records) throws(AuthError) in
            records.throttles["address eve@example.com"]?.failures
        }
        #expect(named == 1)
    }

    @Test("purging forgets expired sign-ups, resets, sessions, throttles and mail windows, and nothing live")
    func purge() throws {
        let world = try World()
        let session = try world.account()
        try world.service.signUp(email: "bob@example.com", password: Self.password, clientKey: "test")
        try world.service.requestPasswordReset(email: "ana@example.com", clientKey: "test")
        _ = try? world.service.signIn(email: "eve@example.com", password: "x", clientKey: "c")
        #expect(try world.service.purgeExpired() == 0)
        world.clock.advance(86_400)
        // The sign-up, the reset, two throttles (address and client), three mail windows (two
        // addresses and the client), the window of everyone's sign-ups (AUTH-36) and the sign-in
        // client's (AUTH-39) are past; the session is not.
        #expect(try world.service.purgeExpired() == 9)
        _ = try world.service.refresh(refreshToken: session.refreshToken)
        world.clock.advance(30 * 86_400)
        #expect(try world.service.purgeExpired() == 1)
        let left = try world.store.update { (records) throws(AuthError) in
            records.sessions.count + records.throttles.count
        }
        #expect(left == 0)
    }

    @Test("a service without Swift concurrency signs in with an ID token through a blocking fetcher")
    func synchronousProviderSignIn() throws {
        struct Blocking: BlockingKeySetFetcher {
            let body: [UInt8]
            func fetchKeySet(from url: String) throws -> KeySetResponse { KeySetResponse(body: body, maxAge: nil) }
        }
        let google = try TokenFixture("idtoken-001")
        let clock = Clock()
        clock.time.withLock { $0 = google.now }
        let verifier = try IDTokenVerifier(
            provider: .google, clientIDs: google.clientIDs,
            keys: KeySetCache(blockingFetcher: Blocking(body: google.keySet)))
        let configuration = Self.configuration
        let service = try AccountService(
            store: InMemoryAccountStore(), configuration: configuration, clock: clock, mailer: Mailer(),
            eraser: Eraser(), revoker: Revoker(failures: 0), verifiers: [verifier], makeNonce: { google.nonce })
        #expect(try service.issueSignInNonce(clientKey: "test") == google.nonce)
        let first = try service.signInSynchronously(provider: "google", idToken: google.token, nonce: google.nonce)
        _ = try service.issueSignInNonce(clientKey: "test")
        let again = try service.signInSynchronously(provider: "google", idToken: google.token, nonce: google.nonce)
        #expect(first.account == again.account)
        #expect(verifier.keys.fetchCount == 1)
        #expect(throws: AuthError.self) {
            try service.signInSynchronously(provider: "apple", idToken: google.token, nonce: nil)
        }
    }

    @Test("README's example: a checked password, sign up, confirm from the mailed link, refresh")
    func readmeExample() throws {
        let google = try TokenFixture("idtoken-001")
        let appleVerifier = try IDTokenVerifier(
            provider: google.provider, clientIDs: google.clientIDs,
            keys: KeySetCache(fetcher: Fetcher(body: google.keySet)))
        let (myMailer, myEraser, myAppleRevoker) = (Mailer(), Eraser(), Revoker(failures: 0))
        let ip = "192.0.2.7"
        var tokenFromTheLink: SecretToken { myMailer.last?.token ?? SecretToken("") }
        // README: begin
        let policy = try PasswordPolicy()  // minimum 15 code points
        let password = try policy.check("quiet morning walks", email: "mia@example.com")
        print(password)  // Password(19 characters)

        // Your mailer, data eraser and Apple revoker are small protocols; the store is one too.
        let service = try AccountService(
            store: InMemoryAccountStore(), mailer: myMailer, eraser: myEraser,
            revoker: myAppleRevoker, verifiers: [appleVerifier])
        // The client key (an IP address, a device) is counted against the mail limits (AUTH-45).
        try service.signUp(email: "mia@example.com", password: "quiet morning walks", clientKey: ip)  // mails a link
        // Confirming asks for the password again: only who chose it and reads the mail makes the account.
        let session = try service.confirmSignUp(token: tokenFromTheLink, password: "quiet morning walks")
        let next = try service.refresh(refreshToken: session.refreshToken)  // rotates
        // README: end
        #expect("\(password)" == "Password(19 characters)")
        #expect(next.account == session.account)
        #expect(next.refreshToken != session.refreshToken)
        #expect(throws: AuthError.self) { try service.refresh(refreshToken: session.refreshToken) }
    }

    @Test(
        "addresses: what is one and how it is compared",
        arguments: [
            ("Ana@Example.COM", "ana@example.com"), ("a@b", "a@b"), ("ÄNA@example.com", "Äna@example.com"),
        ])
    func addresses(text: String, normalized: String) throws {
        #expect(try AccountService.normalizedEmail(text) == normalized)
    }

    @Test("text that is not an address", arguments: ["", "a@", "@b", "a b@c", "a@b@c", "ab", "a\u{7F}@b"])
    func notAddresses(text: String) {
        #expect(throws: AuthError.self) { try AccountService.normalizedEmail(text) }
    }
}

@Suite("Sign-in methods")
struct SignInMethodTests {
    @Test("email, Apple and Google sign in through one protocol")
    func oneProtocol() async throws {
        let google = try AccountServiceTests.TokenFixture("idtoken-001")
        let world = try AccountServiceTests.World(fixtures: [google])
        let existing = try world.account()
        let methods: [any SignInMethod] = [
            EmailSignIn(email: "ana@example.com", password: AccountServiceTests.password, clientKey: "c"),
            ProviderSignIn.google(
                idToken: google.token, nonce: try SignInNonce(issuedBy: world.service, clientKey: "test")),
        ]
        for method in methods {
            let session = try await method.signIn(with: world.service)
            #expect(session.account == existing.account, "\(method.provider)")
        }
        let wrong = ProviderSignIn.google(idToken: google.token, nonce: SignInNonce(raw: SecretToken.random()))
        do {
            _ = try await wrong.signIn(with: world.service)
            Issue.record("a fresh nonce matched an old token")
        } catch {
            #expect(error.code == .nonceMismatch)
        }
        #expect("\(methods[0])" == "EmailSignIn(ana@example.com)")
        #expect(!"\(methods[1])".contains(google.token))
    }

    @Test("Apple's request carries the nonce's SHA-256, Google's the nonce itself")
    func nonces() throws {
        let nonce = SignInNonce(raw: SecretToken("n-0S6_WzA2Mj"))
        #expect(nonce.requestValue(for: .google) == "n-0S6_WzA2Mj")
        #expect(nonce.requestValue(for: .apple) == Crypto.hex(Crypto.sha256(Array("n-0S6_WzA2Mj".utf8))))
        let service = try AccountServiceTests.World().service
        let issued = try (0..<2).map { _ throws(AuthError) in
            try SignInNonce(issuedBy: service, clientKey: "test").raw.reveal()
        }
        #expect(issued[0] != issued[1] && issued.allSatisfy { $0.count == 43 })
        #expect("\(nonce)" == "SignInNonce(redacted)")
    }
}
