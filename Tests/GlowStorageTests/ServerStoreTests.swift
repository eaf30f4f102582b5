import Foundation
import GlowAuth
import GlowFeed
import GlowProtocol
import GlowRelay
import Testing

@testable import GlowServerStores
@testable import GlowStorage

/// The server side's stores on the one storage layer (issue 26): two stores on one file (two
/// processes) each answer with what the other committed, and a storage failure reaches the
/// caller as a typed error with nothing kept in memory that the file does not hold.
@Suite("Server stores")
struct ServerStoreTests {
    static func stance(_ from: String, _ to: String, _ wall: Int64) throws -> FeedReplica {
        var delta = FeedReplica()
        delta.writeStance(.want, from: from, to: to, at: try Stamp(wall: wall, counter: 0, device: from))
        return delta
    }

    /// Runs SQL on the file through a connection of its own, as another process would.
    static func meddle(_ path: String, _ sql: String) throws {
        try SQLiteConnection(path: path, mode: .readWrite).execute(sql)
    }

    /// The stores' clocks went with the whole-state stores they kept in step (issue 43): a file an
    /// older version left, its clock rows and all, loses the table when a store opens it, and
    /// its other rows stay.
    @Test(
        "a server-side file from before loses its store clocks and keeps its rows",
        arguments: [DatabaseSchema.server, .relay, .accounts])
    func storeClocksGone(schema: DatabaseSchema) throws {
        let path = StorageTests.temporary()
        let step = try #require(schema.migrations.firstIndex { $0.name == "no store clocks" })
        let before = DatabaseSchema(
            kind: schema.kind, applicationID: schema.applicationID, migrations: Array(schema.migrations[..<step]))
        let older = try before.open(path: path, create: true)
        try older.execute("INSERT INTO glow_clock (name, version) VALUES ('relay', 7), ('accounts', 3)")
        let table = schema.kind == DatabaseSchema.accounts.kind ? "account_records" : "relay_registers"
        let row =
            table == "account_records"
            ? "INSERT INTO account_records (map, key, value) VALUES ('throttles', 'k', X'7B7D')"
            : "INSERT INTO relay_registers (key, sequence, register, kind, party) VALUES ('k', 1, X'00', 's', 'p')"
        try older.execute(row)
        let connection = try schema.open(path: path, create: false)
        #expect(
            try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'glow_clock'") == 0)
        #expect(try connection.integer("SELECT count(*) FROM \(table)") == 1)
    }

    @Test("two relays on one file: a write through either is in the other's next answer")
    func relaysShareTheFile() throws {
        let path = StorageTests.temporary()
        let first = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        let second = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        let one = try first.submit(try Self.stance("ana", "bob", 1), from: "ana", now: 10)
        let answer = try second.changes(for: "bob", since: 0)
        #expect(answer.cursor == one && answer.delta.stances.count == 1)
        // The second goes on numbering after the first's write, not over it.
        let two = try second.submit(try Self.stance("bob", "ana", 2), from: "bob", now: 11)
        #expect(two == one + 1)
        #expect(try first.changes(for: "ana", since: 0).delta.friendState("ana", "bob") == .friends)
    }

    @Test(
        "a relay whose writes fail answers with storage_failed, keeps nothing, and goes on once the file takes writes")
    func relayWriteFails() throws {
        let path = StorageTests.temporary()
        let relay = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        let kept = try relay.submit(try Self.stance("ana", "bob", 1), from: "ana", now: 10)
        try Self.meddle(
            path,
            "CREATE TRIGGER refuse BEFORE INSERT ON relay_registers BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
        #expect {
            try relay.submit(try Self.stance("cat", "bob", 2), from: "cat", now: 11)
        } throws: { error in
            (error as? FeedError)?.code == .storageFailed && "\(error)".contains("disk trouble")
        }
        let bytes = RelayRequest.submit(try Self.stance("dan", "bob", 3)).wireEncoded()
        guard case .error(let code, _, let rule) = relay.respond(to: bytes, from: "dan", now: 12) else {
            Issue.record("a failed submit was answered as accepted")
            return
        }
        #expect(code == "storage_failed" && rule == "FEED-25")
        // Nothing of the refused writes is served: bob's answer is the one kept write.
        let answer = try relay.changes(for: "bob", since: 0)
        #expect(answer.cursor == kept && answer.delta.stances.keys.map(\.from) == ["ana"])
        try Self.meddle(path, "DROP TRIGGER refuse")
        #expect(try relay.submit(try Self.stance("cat", "bob", 4), from: "cat", now: 13) == kept + 1)
    }

    @Test("a relay whose file no longer reads answers every request with an error, never an empty answer")
    func relayReadFails() throws {
        let path = StorageTests.temporary()
        let relay = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        _ = try relay.submit(try Self.stance("ana", "bob", 1), from: "ana", now: 10)
        // A stance toward bob whose bytes do not read: his answer reads it by index.
        try Self.meddle(
            path,
            "INSERT INTO relay_registers (key, sequence, register, kind, party, other) "
                + "VALUES ('x', 9, x'ff', 'stance', 'cat', 'bob')")
        #expect {
            try relay.changes(for: "bob", since: 0)
        } throws: { error in
            (error as? FeedError)?.code == .storageFailed
        }
        let bytes = RelayRequest.changes(since: 0).wireEncoded()
        guard case .error(let code, _, _) = relay.respond(to: bytes, from: "bob", now: 11) else {
            Issue.record("an unreadable relay answered with changes")
            return
        }
        #expect(code == "storage_failed")
        #expect(throws: FeedError.self) { try relay.replica }
        try Self.meddle(path, "DELETE FROM relay_registers WHERE key = 'x'")
        #expect(try relay.changes(for: "bob", since: 0).delta.stances.count == 1)
    }

    @Test("two account services on one file: a sign-out in one ends the session in the other")
    func accountsShareTheFile() throws {
        let path = StorageTests.temporary()
        let mailer = AccountStoreTests.Mailer()
        let first = try AccountStoreTests.service(try SQLiteAccountStore(path: path), mailer)
        let second = try AccountStoreTests.service(try SQLiteAccountStore(path: path), mailer)
        try first.signUp(email: "mia@example.com", password: "violet lantern morning", clientKey: "test")
        let session = try second.confirmSignUp(
            token: try #require(mailer.last?.token), password: "violet lantern morning")
        #expect(try first.authenticate(accessToken: session.accessToken) == session.account)
        try second.signOut(accessToken: session.accessToken)
        #expect(throws: AuthError.self) { try first.authenticate(accessToken: session.accessToken) }
        // A refresh token rotated through one is a reuse in the other.
        let again = try first.signIn(email: "mia@example.com", password: "violet lantern morning", clientKey: "k")
        _ = try second.refresh(refreshToken: again.refreshToken)
        #expect(throws: AuthError.self) { try first.refresh(refreshToken: again.refreshToken) }
    }

    @Test("an account store whose writes fail reports storage_failed and holds nothing the file does not")
    func accountWriteFails() throws {
        let path = StorageTests.temporary()
        let store = try SQLiteAccountStore(path: path)
        let mailer = AccountStoreTests.Mailer()
        let service = try AccountStoreTests.service(store, mailer)
        try Self.meddle(
            path,
            "CREATE TRIGGER refuse BEFORE INSERT ON account_records BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
        #expect {
            try service.signUp(email: "mia@example.com", password: "violet lantern morning", clientKey: "test")
        } throws: { error in
            (error as? AuthError)?.code == .storageFailed && "\(error)".contains("disk trouble")
        }
        func waiting() throws -> Int {
            try store.update { (records) throws(AuthError) in
                records.pendingSignUps.expiring(atOrBefore: .infinity).count
            }
        }
        #expect(try waiting() == 0)
        try Self.meddle(path, "DROP TRIGGER refuse")
        try service.signUp(email: "mia@example.com", password: "violet lantern morning", clientKey: "test")
        #expect(try waiting() == 1)
    }
}
