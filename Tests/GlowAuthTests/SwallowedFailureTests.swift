import GlowCore
import Testing

@testable import GlowAuth

/// Failures that were swallowed reach the caller as typed errors (issue 25, hole 11): a store
/// that fails while revocations run or records are purged, and an eraser whose error text must
/// not travel to the caller.
@Suite("Swallowed failures")
struct SwallowedFailureTests {
    /// An account store that works until it is told to fail, then refuses every update.
    final class FailingStore: AccountStore {
        let inner = InMemoryAccountStore()
        let failing = Locked(false)
        func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
            if failing.withLock({ $0 }) { throw AuthError.storage("the disk is full (injected)") }
            return try inner.update(body)
        }
    }

    final class Clock: AuthClock {
        func now() -> Double { 1_800_000_000 }
    }

    final class Mailer: AuthMailer {
        let last = Locked<AuthMail?>(nil)
        func send(_ mail: AuthMail) { last.withLock { $0 = mail } }
    }

    struct Eraser: AccountEraser {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "ERROR: could not open /srv/glow/private/users.db at db.internal:5432" }
        }
        let fails: Bool
        func eraseData(of account: AccountID) throws { if fails { throw Failure() } }
    }

    struct Revoker: ProviderTokenRevoker {
        func revoke(_ token: SecretToken, provider: String) async throws {}
    }

    static func service(_ store: any AccountStore, mailer: Mailer = Mailer(), eraserFails: Bool = false) throws
        -> AccountService
    {
        let configuration = AccountServiceTests.configuration
        return try AccountService(
            store: store, configuration: configuration, clock: Clock(), mailer: mailer,
            eraser: Eraser(fails: eraserFails), revoker: Revoker())
    }

    @Test("processing revocations on a failing store throws storage_failed, never a report of nothing to do")
    func revocations() async throws {
        let store = FailingStore()
        let service = try Self.service(store)
        store.failing.withLock { $0 = true }
        await #expect {
            _ = try await service.processRevocations()
        } throws: { error in
            (error as? AuthError)?.code == .storageFailed
        }
    }

    @Test("purging on a failing store throws storage_failed, never 'nothing purged'")
    func purge() throws {
        let store = FailingStore()
        let service = try Self.service(store)
        store.failing.withLock { $0 = true }
        #expect {
            try service.purgeExpired()
        } throws: { error in
            (error as? AuthError)?.code == .storageFailed
        }
    }

    @Test("a failed erasure is deletion_failed without the eraser's own text, and the account stays")
    func erasure() throws {
        let mailer = Mailer()
        let service = try Self.service(FailingStore(), mailer: mailer, eraserFails: true)
        try service.signUp(email: "mia@example.com", password: AccountServiceTests.password, clientKey: "test")
        let token = try #require(mailer.last.withLock { $0?.token })
        let session = try service.confirmSignUp(token: token, password: AccountServiceTests.password)
        #expect {
            try service.deleteAccount(accessToken: session.accessToken, confirmed: true)
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.code == .deletionFailed && !error.message.contains("/srv")
                && !error.message.contains("db.internal")
        }
        #expect(try service.authenticate(accessToken: session.accessToken) == session.account, "the account stays")
    }
}
