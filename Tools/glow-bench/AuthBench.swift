import Foundation
import GlowAuth
import GlowCore

/// GlowAuth's figures: one Argon2id hash at OWASP's parameters, sign-ins per second through the
/// account service on every core, the pairs of requests that must not tell whether an address has
/// an account (time and records written side by side), and ID-token verifications per second,
/// RS256 against ES256.
enum AuthBench {
    final class Mailer: AuthMailer {
        let last = Locked<AuthMail?>(nil)
        func send(_ mail: AuthMail) { last.withLock { $0 = mail } }
    }
    struct Eraser: AccountEraser { func eraseData(of account: AccountID) throws {} }
    struct Revoker: ProviderTokenRevoker { func revoke(_ token: SecretToken, provider: String) async throws {} }
    struct NoFetch: KeySetFetcher {
        struct Unused: Error {}
        func fetchKeySet(from url: String) async throws -> KeySetResponse { throw Unused() }
    }

    static let password = "quiet morning walks by the river"

    static func run() throws {
        say("\n== auth: Argon2id at OWASP's parameters (19 MiB, 2 passes, 1 lane), sign-ins, ID tokens")
        let hasher = try PasswordHasher()
        let checked = try PasswordPolicy().check(password)
        let hashTime = try Timing.measure(samples: 9) { blackHole(try hasher.hash(checked)) }
        record("auth", "argon2idHash", hashTime.median)

        // The account service as a server runs it: throttling off, so that failures can repeat.
        var configuration = AccountConfiguration()
        configuration.freeAttempts = Int.max
        let mailer = Mailer()
        let service = try AccountService(
            store: InMemoryAccountStore(), configuration: configuration, mailer: mailer, eraser: Eraser(),
            revoker: Revoker())
        try service.signUp(email: "mia@example.com", password: password, clientKey: "bench")
        _ = try service.confirmSignUp(token: mailer.last.withLock { $0 }!.token!, password: password)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let perCore = 8
        let clock = ContinuousClock()
        let elapsed = try onEveryCore(cores, clock) { core in
            for _ in 0..<perCore {
                blackHole(try service.signIn(email: "mia@example.com", password: password, clientKey: "c\(core)"))
            }
        }
        let signIns = Double(cores * perCore) / seconds(elapsed)
        record("auth", "signInsPerSecond", signIns)
        say(
            "auth     one Argon2id hash \(milliseconds(hashTime.median)) (±\(Int(hashTime.spread * 100))%)   sign-ins through the service on \(cores) cores: \(String(format: "%.1f", signIns)) per second"
        )
        try enumerationPairs()

        // ID tokens: the corpus's valid Google tokens, RS256 (idtoken-001) and ES256 (idtoken-010).
        guard let rs = try fixture("idtoken-001"), let es = try fixture("idtoken-010") else {
            say("auth     ID tokens skipped: run from the repository's root to find Spec/corpus/auth/id_token.json")
            return
        }
        var rates: [String: Double] = [:]
        for (name, case_) in [("RS256", rs), ("ES256", es)] {
            let provider = try IdentityProvider(
                id: "google", issuers: IdentityProvider.google.issuers, keySetURL: "", algorithms: ["RS256", "ES256"])
            let verifier = try IDTokenVerifier(
                provider: provider, clientIDs: case_.clients, keys: KeySetCache(fetcher: NoFetch()))
            let rounds = 200
            let timing = try Timing.measure(samples: 5) {
                for _ in 0..<rounds {
                    blackHole(try verifier.verify(case_.token, nonce: case_.nonce, at: case_.now, keySet: case_.keys))
                }
            }
            let perSecond = Double(rounds) / timing.median
            let parallel = try onEveryCore(cores, clock) { _ in
                for _ in 0..<rounds {
                    blackHole(try verifier.verify(case_.token, nonce: case_.nonce, at: case_.now, keySet: case_.keys))
                }
            }
            let allCores = Double(cores * rounds) / seconds(parallel)
            rates[name] = perSecond
            record("auth", "idToken\(name)PerSecond", perSecond)
            record("auth", "idToken\(name)PerSecondAllCores", allCores)
            say(
                "auth     ID tokens \(name): \(Int(perSecond)) verifications per second on one core, \(Int(allCores)) on \(cores)"
            )
        }
        say("auth     RS256 verifies \(String(format: "%.1f", rates["RS256"]! / rates["ES256"]!))× as fast as ES256")
    }

    /// The time `body` takes run on `cores` threads at once (Dispatch's concurrentPerform, which
    /// takes no throwing work): the first failure on any thread is thrown once all are done.
    static func onEveryCore(_ cores: Int, _ clock: ContinuousClock, _ body: @Sendable (Int) throws -> Void) throws
        -> Duration
    {
        let failure = Locked<(any Error)?>(nil)
        let elapsed = clock.measure {
            DispatchQueue.concurrentPerform(iterations: cores) { core in
                do { try body(core) } catch { failure.withLock { $0 = $0 ?? error } }
            }
        }
        if let failure = failure.withLock({ $0 }) { throw failure }
        return elapsed
    }

    /// A sign-in that must be refused as a wrong password or an unknown address is (AUTH-39): the
    /// refusal is the outcome measured, so it is caught here. Anything else (a success, a failed
    /// store, a throttle) is thrown: the pair would be timing something other than a refusal.
    static func refusedSignIn(_ service: AccountService, email: String, password: String, clientKey: String) throws {
        do throws(AuthError) {
            blackHole(try service.signIn(email: email, password: password, clientKey: clientKey))
        } catch {
            guard error.code == .invalidCredentials else { throw error }
            return
        }
        throw BenchFailure("signing in as '\(email)' with a password that is not its own succeeded")
    }

    /// An account store that counts the records each update writes.
    final class CountingStore: AccountStore {
        let inner = InMemoryAccountStore()
        let written = Locked(0)
        func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
            try inner.update { (records) throws(AuthError) -> T in
                let result = try body(&records)
                written.withLock { $0 += records.changedRecordCount }
                return result
            }
        }
    }

    /// Issue 25, hole 5: each pair of requests that differ only in whether an address has an
    /// account (or how old its hash is) must cost the same and write the same. Throttling and
    /// mail limits are off so that the requests can repeat; hashing is at OWASP's parameters.
    static func enumerationPairs() throws {
        var configuration = AccountConfiguration()
        configuration.freeAttempts = Int.max
        configuration.mailsPerAddress = Int.max
        configuration.mailsPerClient = Int.max
        let store = CountingStore()
        let mailer = Mailer()
        let service = try AccountService(
            store: store, configuration: configuration, mailer: mailer, eraser: Eraser(), revoker: Revoker())
        try service.signUp(email: "mia@example.com", password: password, clientKey: "setup")
        _ = try service.confirmSignUp(token: mailer.last.withLock { $0 }!.token!, password: password)
        // An account whose hash was made when the cost was half today's.
        var older = configuration
        older.hashing = Argon2Parameters(memoryKiB: 9_728, iterations: 2, parallelism: 1)
        let oldService = try AccountService(
            store: store, configuration: older, mailer: mailer, eraser: Eraser(), revoker: Revoker())
        try oldService.signUp(email: "leo@example.com", password: password, clientKey: "setup")
        _ = try oldService.confirmSignUp(token: mailer.last.withLock { $0 }!.token!, password: password)

        /// The records one run of `request` wrote.
        func written(_ request: () throws -> Void) throws -> Int {
            let before = store.written.withLock { $0 }
            try request()
            return store.written.withLock { $0 } - before
        }
        let unknown = {
            try refusedSignIn(service, email: "nobody@example.com", password: password, clientKey: "u")
        }
        let newAddress = { try service.signUp(email: "someone.new@example.com", password: password, clientKey: "s") }
        let pairs: [(name: String, key: String, first: () throws -> Void, second: () throws -> Void, repeats: Int)] = [
            (
                "sign-in: a wrong password / an unknown address", "signInWrongPassword",
                {
                    try refusedSignIn(service, email: "mia@example.com", password: "not the password", clientKey: "w")
                },
                unknown, 1
            ),
            (
                "sign-in: text that is not an address / an unknown address", "signInNotAnAddress",
                { try refusedSignIn(service, email: "mia", password: password, clientKey: "n") }, unknown, 1
            ),
            (
                "sign-in: a wrong password on an older hash / an unknown address", "signInOlderHash",
                {
                    try refusedSignIn(service, email: "leo@example.com", password: "not the password", clientKey: "o")
                },
                unknown, 1
            ),
            (
                "reset: an account / no account", "resetRequest",
                { try service.requestPasswordReset(email: "mia@example.com", clientKey: "r") },
                { try service.requestPasswordReset(email: "nobody@example.com", clientKey: "r") }, 200
            ),
            (
                "sign-up: a registered address / a new one", "signUp",
                { try service.signUp(email: "mia@example.com", password: password, clientKey: "s") }, newAddress, 1
            ),
        ]
        for pair in pairs {
            let records = (try written(pair.first), try written(pair.second))
            let (first, second) = try Timing.pair(samples: 21, repeats: pair.repeats, pair.first, pair.second)
            let ratio = first.median / second.median
            record("auth", pair.key + "Ratio", ratio)
            say(
                "auth     \(pair.name): \(milliseconds(first.median)) / \(milliseconds(second.median)), ratio \(String(format: "%.3f", ratio)) (within 5%: \(abs(ratio - 1) <= 0.05 ? "yes" : "NO")); records written \(records.0) / \(records.1)"
            )
        }
    }

    struct Fixture {
        let token: String
        let nonce: String
        let now: Double
        let clients: Set<String>
        let keys: JSONWebKeySet
    }

    /// The corpus's case `id`, or nil when the corpus is not here (run from outside the
    /// repository's root). A corpus that is here but cannot be read, or lacks the case, is thrown.
    static func fixture(_ id: String) throws -> Fixture? {
        let path = "Spec/corpus/auth/id_token.json"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = document["cases"] as? [[String: Any]],
            let input = cases.first(where: { $0["id"] as? String == id })?["input"] as? [String: Any],
            let token = input["token"] as? String, let nonce = input["nonce"] as? String,
            let now = input["now"] as? NSNumber, let clients = input["clientIds"] as? [String],
            let set = input["keySet"]
        else { throw BenchFailure("\(path): no case \(id) with a token, nonce, now, clientIds and keySet") }
        let keys = try JSONWebKeySet(json: Array(try JSONSerialization.data(withJSONObject: set)))
        return Fixture(token: token, nonce: nonce, now: now.doubleValue, clients: Set(clients), keys: keys)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
