import Foundation
import GlowAuth
import GlowCore
import Testing

@testable import GlowServerStores
@testable import GlowStorage

/// The account service's records on SQLite (issue 17, AUTH-35 ... AUTH-42): a service over the
/// file opened again knows the accounts, the sessions and the throttles of the one before.
@Suite("Account store on SQLite")
struct AccountStoreTests {
    final class Mailer: AuthMailer {
        let sent = Locked<[AuthMail]>([])
        func send(_ mail: AuthMail) { sent.withLock { $0.append(mail) } }
        var last: AuthMail? { sent.withLock { $0.last } }
    }

    struct Eraser: AccountEraser {
        func eraseData(of account: AccountID) throws {}
    }

    struct Revoker: ProviderTokenRevoker {
        func revoke(_ token: SecretToken, provider: String) async throws {}
    }

    static func service(_ store: any AccountStore, _ mailer: Mailer) throws -> AccountService {
        var configuration = AccountConfiguration()
        configuration.hashing = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
        configuration.hashingGate = HashingGate(concurrent: 1, wait: 120)
        return try AccountService(
            store: store, configuration: configuration, mailer: mailer, eraser: Eraser(), revoker: Revoker())
    }

    /// A clock that stands still, so that a throttle's wait never runs out during a test.
    struct StillClock: AuthClock {
        func now() -> Double { 1_796_083_200 }
    }

    /// Issue 25, hole 3: the throttle was checked in one transaction and the failure counted in
    /// another, so guesses made at once all passed. Two services on two connections to one file,
    /// as two server processes are, take 50 wrong guesses at once.
    @Test("fifty wrong guesses at once through two connections: no more pass than one after another would")
    func concurrentGuesses() throws {
        let path = StorageTests.temporary()
        let mailer = Mailer()
        var configuration = AccountConfiguration()
        // Hashing slow enough (1 MiB) that the guesses overlap while they hash, each waiting its
        // turn as long as it takes: this test counts AUTH-39's failures, not AUTH-12's line.
        configuration.hashing = Argon2Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)
        configuration.hashingGate = HashingGate(concurrent: 1, wait: 120)
        let services = try (0..<2).map { _ in
            try AccountService(
                store: try SQLiteAccountStore(path: path), configuration: configuration, clock: StillClock(),
                mailer: mailer, eraser: Eraser(), revoker: Revoker())
        }
        try services[0].signUp(email: "mia@example.com", password: "violet lantern morning", clientKey: "mine")
        _ = try services[1].confirmSignUp(token: try #require(mailer.last?.token), password: "violet lantern morning")
        // Fifty threads, not tasks: the task pool has as many threads as cores, two here, and would
        // let only two guesses overlap.
        let outcomes = Locked([String: Int]())
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<50 {
            group.enter()
            Thread.detachNewThread {
                start.wait()
                let outcome: String
                do throws(AuthError) {
                    _ = try services[index % 2].signIn(
                        email: "mia@example.com", password: "guess number \(index)", clientKey: "c\(index)")
                    outcome = "ok"
                } catch {
                    outcome = error.code.description
                }
                outcomes.withLock { $0[outcome, default: 0] += 1 }
                group.leave()
            }
        }
        for _ in 0..<50 { start.signal() }
        group.wait()
        // AUTH-39: five failures are free; the sixth and later find five failures at this instant.
        #expect(outcomes.withLock { $0 } == ["invalid_credentials": 5, "throttled": 45])
        let failures = try SQLiteAccountStore(path: path).update { (records) throws(AuthError) in
            records.throttles["address mia@example.com"]?.failures
        }
        #expect(failures == 5)
    }

    @Test(
        "issued nonces, mail windows, address changes and each family's device and times survive the file being opened again"
    )
    func newRecordsReopen() throws {
        let path = StorageTests.temporary()
        let mailer = Mailer()
        let first = try Self.service(try SQLiteAccountStore(path: path), mailer)
        try first.signUp(email: "mia@example.com", password: "violet lantern morning", clientKey: "k")
        let session = try first.confirmSignUp(
            token: try #require(mailer.last?.token), password: "violet lantern morning", device: "Mia's iPhone")
        let nonce = try first.issueSignInNonce(clientKey: "test")
        let enrollment = try first.beginSecondFactor(accessToken: session.accessToken)
        let code = TOTP.code(
            secret: try TOTP.bytes(base32: enrollment.secret.reveal()), time: Int(Date().timeIntervalSince1970))
        _ = try first.confirmSecondFactor(accessToken: session.accessToken, code: code)
        try first.requestEmailChange(accessToken: session.accessToken, newEmail: "mia@example.org", clientKey: "k")
        let change = try #require(mailer.last?.token)
        let second = try Self.service(try SQLiteAccountStore(path: path), mailer)
        let listed = try second.sessions(accessToken: session.accessToken)
        #expect(listed.map(\.device) == ["Mia's iPhone"] && listed.map(\.id) == [session.id])
        // Found by their expiry index, as a purge finds them.
        let (nonces, windows) = try SQLiteAccountStore(path: path).update { (records) throws(AuthError) in
            (
                records.nonces.expiring(atOrBefore: .infinity).map(\.key),
                records.requestWindows.expiring(atOrBefore: .infinity).map(\.key).sorted()
            )
        }
        #expect(nonces == [SecretToken(nonce).storedHash])
        #expect(
            windows == [
                "address mia@example.com", "address mia@example.org", "all sign-ups", "client k", "nonce client test",
            ])
        try second.confirmEmailChange(accessToken: session.accessToken, token: change)
        let asked = #expect(throws: AuthError.self, "the second factor is asked for after the file is opened again") {
            try second.signIn(email: "mia@example.org", password: "violet lantern morning", clientKey: "k")
        }
        #expect(asked?.code == .secondFactorRequired)
        let methods = try second.signInMethods(accessToken: session.accessToken)
        #expect(methods.hasPassword && methods.providers.isEmpty)
        let moved = try SQLiteAccountStore(path: path).update { (records) throws(AuthError) in
            (
                records.accountsByEmail["mia@example.org"], records.accountsByEmail["mia@example.com"],
                records.emailChanges.owned(by: session.account.rawValue).count
            )
        }
        #expect(moved.0 == session.account && moved.1 == nil && moved.2 == 1, "the undo waits, found by account")
        try second.revokeSession(accessToken: session.accessToken, id: session.id)
        #expect(throws: AuthError.self) { try first.sessions(accessToken: session.accessToken) }
    }

    @Test("an account row written before AUTH-44 reads; its address is proven only when it has a password")
    func accountsBeforeProvenAddresses() throws {
        let old = #"{"createdAt":1796083200,"credentialEpoch":0,"email":"mia@example.com","id":{"rawValue":"%@"}%@}"#
        for (hash, proven) in [
            (#","passwordHash":"$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA""#, true), ("", false),
        ] {
            let json = String(format: old, "0123456789abcdef0123456789abcdef", hash)
            let account = try JSONDecoder().decode(AccountRecords.Account.self, from: Data(json.utf8))
            #expect(account.emailProven == proven && account.email == "mia@example.com")
        }
    }

    @Test("accounts, sessions and throttles survive the file being opened again; what was removed stays removed")
    func reopen() throws {
        let path = StorageTests.temporary()
        let mailer = Mailer()
        let first = try Self.service(try SQLiteAccountStore(path: path), mailer)
        try first.signUp(email: "mia@example.com", password: "violet lantern morning", clientKey: "test")
        let session = try first.confirmSignUp(
            token: try #require(mailer.last?.token), password: "violet lantern morning")
        #expect(throws: AuthError.self) {
            try first.signIn(email: "mia@example.com", password: "wrong but long enough", clientKey: "k")
        }
        let refreshed = try first.refresh(refreshToken: session.refreshToken)
        let counted = try SQLiteAccountStore(path: path).update { (records) throws(AuthError) in
            records.throttles.expiring(atOrBefore: .infinity).count
        }
        #expect(counted > 0, "the failed attempt is counted in the file")

        let reopened = try SQLiteAccountStore(path: path)
        let second = try Self.service(reopened, mailer)
        let signedIn = try second.signIn(email: "mia@example.com", password: "violet lantern morning", clientKey: "k")
        #expect(signedIn.account == session.account)
        // The rotated refresh token works once more; the one it replaced is a reuse that ends the family.
        _ = try second.refresh(refreshToken: refreshed.refreshToken)
        #expect(throws: AuthError.self) { try second.refresh(refreshToken: session.refreshToken) }
        // What one opening sees of the account: its record, its throttles, its families and the
        // refresh tokens' rows.
        let hashes = [session.refreshToken, refreshed.refreshToken].map(\.storedHash)
        func look(_ store: SQLiteAccountStore) throws -> [String] {
            try store.update { (records) throws(AuthError) -> [String] in
                [records.accounts[session.account] == nil ? "no account" : "account"]
                    + records.throttles.expiring(atOrBefore: .infinity).map { "throttle \($0.key)" }.sorted()
                    + records.sessions.owned(by: session.account.rawValue).map { "family \($0.value.device ?? "-")" }
                    + hashes.map { records.sessionsByRefreshHash[$0] == nil ? "no token" : "token" }
            }
        }
        // A sign-in forgets the address's failures, and only those: the client's are kept
        // (AUTH-39); the reused token ended the first family, the second sign-in's lives.
        let seen = try look(reopened)
        #expect(seen == ["account", "throttle client k", "family -", "no token", "no token"], "\(seen)")
        // A third opening sees what the second removed (the ended family) as removed.
        #expect(try look(try SQLiteAccountStore(path: path)) == seen)
    }

    @Test("an update that throws writes nothing; a foreign file is refused")
    func refused() throws {
        let path = StorageTests.temporary()
        let store = try SQLiteAccountStore(path: path)
        #expect(throws: AuthError.self) {
            try store.update { (records) throws(AuthError) in
                records.accountsByEmail["x@example.com"] = AccountID(rawValue: "00")
                throw AuthError.storage("stopped on purpose")
            }
        }
        #expect(try store.update { (records) throws(AuthError) in records.accountsByEmail.isEmpty }, "nor in memory")
        let reopened = try SQLiteAccountStore(path: path)
        #expect(try reopened.update { (records) throws(AuthError) in records.accountsByEmail.isEmpty })
        #expect(throws: StoreError.self) {
            _ = try SQLiteAccountStore(path: try SQLiteFeedRelayStore(path: StorageTests.temporary()).path)
        }
    }

    @Test("random updates, some refused: the file opened again holds exactly what memory holds")
    func randomUpdates() throws {
        let path = StorageTests.temporary()
        let store = try SQLiteAccountStore(path: path)
        let decoder = JSONDecoder()
        func throttle(_ failures: Int) throws -> AccountRecords.Throttle {
            try decoder.decode(
                AccountRecords.Throttle.self, from: Data(#"{"failures":\#(failures),"lastFailure":0}"#.utf8))
        }
        var random = SeededGenerator(state: 0x5EED)
        var expected: [String: Int] = [:]
        var emails: [String: String] = [:]
        for step in 0..<400 {
            let refused = random.next() % 5 == 0
            let writes = (0..<(1 + Int(random.next() % 4))).map { _ in
                (key: "k\(random.next() % 60)", failures: Int(random.next() % 4))
            }
            let values = try writes.map { try throttle($0.failures) }
            do {
                try store.update { (records) throws(AuthError) in
                    for (write, value) in zip(writes, values) {
                        // Zero failures removes the record; anything else sets it.
                        records.throttles[write.key] = write.failures == 0 ? nil : value
                        records.accountsByEmail["\(write.key)@example.com"] = AccountID(rawValue: "s\(step)")
                    }
                    if refused { throw AuthError.storage("refused on purpose") }
                }
                for write in writes {
                    expected[write.key] = write.failures == 0 ? nil : write.failures
                    emails["\(write.key)@example.com"] = "s\(step)"
                }
            } catch {
                #expect(refused, "step \(step): \(error)")
            }
        }
        for reader in [store, try SQLiteAccountStore(path: path)] {
            let keys = (0..<60).map { "k\($0)" }
            let (throttles, addresses) = try reader.update { (records) throws(AuthError) in
                (
                    keys.compactMap { key in records.throttles[key].map { (key, $0.failures) } },
                    keys.compactMap { key in
                        records.accountsByEmail[key + "@example.com"].map { (key + "@example.com", $0.rawValue) }
                    }
                )
            }
            #expect(Dictionary(uniqueKeysWithValues: throttles) == expected)
            #expect(Dictionary(uniqueKeysWithValues: addresses) == emails)
            let indexed = try reader.update { (records) throws(AuthError) in
                records.throttles.expiring(atOrBefore: .infinity).count
            }
            #expect(indexed == expected.count, "every throttle is found by its expiry, and no removed one")
        }
    }

    /// xorshift64: the same updates on every run.
    struct SeededGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }
}
