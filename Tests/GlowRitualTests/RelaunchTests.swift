import Foundation
import GlowClient
import GlowModel
import GlowStorage
import Testing

@testable import GlowRitual

/// The app object through a relaunch (issue 58): who is signed in is the person of the session
/// the secret store keeps, restored at creation; a session missing, unreadable or expired leaves
/// the app signed out with the reason typed and the database as it was; a sign-in interrupted
/// between the secret store and the database is completed.
@MainActor
@Suite("Relaunch")
struct RelaunchTests {
    /// What a relaunch finds: the session the secret store holds (as bytes), the person the
    /// database records, and what the app then is.
    struct Case: CustomStringConvertible, Sendable {
        let description: String
        let kept: @Sendable () throws -> [UInt8]?
        let recorded: PersonID?
        let account: PersonID?
        let failure: String?
    }

    /// The entry a sign-in of `person` keeps, its refresh token expiring at `refreshExpiry`.
    nonisolated static func entry(_ person: PersonID, refreshExpiry: Instant? = nil) throws -> [UInt8] {
        let store = InMemorySecretStore()
        var session = DatabaseTests.session(person)
        if let refreshExpiry {
            session = ClientSession(
                account: person, id: session.id, accessToken: session.accessToken, refreshToken: session.refreshToken,
                accessExpiry: .epoch, refreshExpiry: refreshExpiry)
        }
        try store.keep(session, server: DatabaseTests.offline.base)
        return try #require(try store.secret(.session))
    }

    nonisolated static let cases: [Case] = [
        Case(
            description: "signed in: restored", kept: { try entry("mia") }, recorded: "mia", account: "mia",
            failure: nil),
        Case(
            description: "kept, but the database's record of it was interrupted: completed", kept: { try entry("mia") },
            recorded: nil, account: "mia", failure: nil),
        Case(
            description: "another person's session kept: theirs", kept: { try entry("bob") }, recorded: "mia",
            account: "bob", failure: nil),
        Case(description: "never signed in", kept: { nil }, recorded: nil, account: nil, failure: nil),
        Case(
            description: "the database says signed in, the store lost the session", kept: { nil }, recorded: "mia",
            account: nil, failure: "secret_missing"),
        Case(
            description: "an entry that does not read", kept: { Array("{not json".utf8) }, recorded: "mia",
            account: nil, failure: "corrupt"),
        Case(
            description: "a session whose refresh token expired", kept: { try entry("mia", refreshExpiry: .epoch) },
            recorded: "mia", account: nil, failure: "session_expired"),
    ]

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a relaunch is signed in exactly when the secret store keeps a live session", arguments: cases)
    func relaunch(_ relaunch: Case) async throws {
        let path = DatabaseTests.temporary()
        let secrets = InMemorySecretStore()
        do {
            let database = try await RitualDatabase(path: path, secrets: secrets)
            try await database.setDeviceValues(
                AuthStore.values(flow: relaunch.recorded == nil ? .signedOut : .main, person: relaunch.recorded))
        }
        if let kept = try relaunch.kept() { try secrets.setSecret(kept, for: .session) }
        let before = try await RitualDatabase(path: path, secrets: InMemorySecretStore()).deviceValue("auth.account")
        let app = try await RitualApp(path: path, device: DatabaseTests.device, secrets: secrets)
        #expect(app.account == relaunch.account && app.session?.account == relaunch.account)
        #expect(app.activity?.person == relaunch.account)
        #expect((app.account == nil) == (app.route == .signedOut))
        switch app.sessionFailure {
        case .store(let error)?:
            #expect(error.code.description == relaunch.failure && "\(error)".contains("session"), "\(error)")
        case .service(let error)?:
            #expect(error.code.description == relaunch.failure, "\(error)")
        case nil:
            #expect(relaunch.failure == nil)
        case let other?:
            Issue.record("unexpected \(other)")
        }
        if relaunch.account == nil {
            // Signed out for a reason the store gave: the database is as it was.
            await #expect(try app.database.deviceValue("auth.account") == before)
        } else {
            await #expect(try app.database.deviceValue("auth.account") == Array(relaunch.account!.rawValue.utf8))
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("signing in keeps the session in the store; signing out removes it first, and a relaunch is signed out")
    func signInAndOut() async throws {
        let path = DatabaseTests.temporary()
        let secrets = FileSecretStore(database: path)
        let app = try await RitualApp(path: path, device: DatabaseTests.device, secrets: secrets)
        #expect(app.protection == .completeUntilFirstUserAuthentication, "the default protection")
        try await app.signIn(DatabaseTests.session("mia"), client: DatabaseTests.offline)
        #expect(try secrets.keptSession()?.session == DatabaseTests.session("mia"))
        #expect(try secrets.keptSession()?.server == DatabaseTests.offline.base)
        await #expect(try RitualApp(path: path, device: DatabaseTests.device, secrets: secrets).account == "mia")
        try await app.signOutOfThisDevice()
        #expect(try secrets.keptSession() == nil && app.session == nil && app.account == nil)
        let again = try await RitualApp(path: path, device: DatabaseTests.device, secrets: secrets)
        #expect(again.account == nil && again.sessionFailure == nil && again.route == .signedOut)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a change that cannot be sent because nobody is signed in is said, not skipped")
    func pushNotSkipped() async throws {
        let path = DatabaseTests.temporary()
        let secrets = InMemorySecretStore()
        try await RitualDatabase(path: path, secrets: secrets).enableSync(
            secret: DatabaseSyncTests.secret, person: "mia", device: DatabaseTests.device)
        let app = try await RitualApp(path: path, device: DatabaseTests.device, secrets: secrets)
        #expect(app.syncsData && app.account == nil && app.syncFailure == nil)
        let waiting = try await #require(try app.database.sync).state.outbox.pending.count
        try await app.addGoal(GoalDraft(title: "Stretch", kind: .streak, schedule: .daily))
        guard case .service(let failure)? = app.syncFailure else {
            Issue.record("the change's push was skipped in silence")
            return
        }
        #expect(failure.code == .signedOut && failure.call == "sync-push")
        await #expect(
            try app.database.sync?.state.outbox.pending.count == waiting + 1, "the change waits in the outbox")
    }
}
