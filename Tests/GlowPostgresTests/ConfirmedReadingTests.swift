import Foundation
import GlowAuth
import GlowCore
import GlowFeed
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowServer
import GlowServerStores
import GlowService
import Testing

/// SERVER-3 as one transaction: a relay request is authenticated on the account rows it reads,
/// and the relay's transaction confirms that none of them changed since. The attacker's flow: a
/// session signed out through one process between the reading and the relay's work keeps
/// working. Here it must stop at once, while a session the change did not touch goes on being
/// served.
enum ConfirmedReadingFlow {
    /// One server process's parts over a database's stores.
    struct Process {
        let accounts: AccountService
        let relay: FeedRelay
        let handler: ServiceHandler
        let mailer = PostgresStoreTests.Mailer()

        init(accounts store: any AccountStore, relay relayStore: any FeedRelayStore) throws {
            var configuration = AccountConfiguration()
            configuration.hashing = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
            configuration.hashingGate = HashingGate(concurrent: 1, wait: 120)
            relay = FeedRelay(store: relayStore)
            accounts = try AccountService(
                store: store, configuration: configuration, mailer: mailer, eraser: RelayEraser(relay: relay),
                revoker: UnconfiguredRevoker())
            handler = ServiceHandler(accounts: accounts, relay: relay, healthCheck: { nil })
        }

        /// A confirmed person's first session, and a second from another sign-in.
        func person(_ email: String) throws -> (Session, Session) {
            let password = ConfirmedReadingFlow.password
            try accounts.signUp(email: email, password: password, clientKey: "c")
            guard case .confirmSignUp(_, let token)? = mailer.sent.withLock({ $0.last }) else {
                throw AuthError.storage("no confirmation mail to \(email)")
            }
            let first = try accounts.confirmSignUp(token: token, password: password)
            let second = try accounts.signIn(email: email, password: password, clientKey: "c", device: "tablet")
            return (first, second)
        }

        /// A call of the handler with `session`'s access token: its status and its error's code.
        func call(_ name: String, _ body: [UInt8], _ session: Session) throws -> (status: Int, code: String) {
            let call = try #require(ServiceCalls.call(named: name))
            let response = handler.respond(
                to: HTTPRequest(
                    method: call.method, path: call.path,
                    headers: [
                        "Authorization": "Bearer " + session.accessToken.reveal(),
                        "Content-Type": ServiceCalls.contentType,
                    ], body: body, peer: "192.0.2.7"))
            guard response.status != 200 else { return (200, "") }
            let error = try ProtocolMessage(#require(ProtocolSchema.type("ServiceError")), wire: response.body)
            return (response.status, error.string("code"))
        }

        func sync(_ session: Session) throws -> (status: Int, code: String) {
            try call("relay", RelayRequest.changes(since: 0).wireEncoded(), session)
        }

        func register(_ token: String, _ session: Session) throws -> (status: Int, code: String) {
            try call(
                "register-device",
                ProtocolMessage("RegisterDeviceRequest").with("token", token).with("time_zone", "UTC").wireEncoded(),
                session)
        }
    }

    /// `first` holds `email`'s sessions; `second`, another process on the database, signs one out.
    static func run(_ first: Process, _ second: Process, email: String) throws {
        let (phone, tablet) = try first.person(email)
        #expect(try first.sync(phone).status == 200 && first.sync(tablet).status == 200)

        try second.accounts.signOut(accessToken: phone.accessToken)

        // The sign-out ended the phone's session rows: the request is refused, whichever process
        // serves it.
        #expect(try first.sync(phone) == (401, "invalid_session"))
        #expect(try first.register(email + "-phone", phone) == (401, "invalid_session"))
        var item = FeedReplica()
        let person = phone.account.rawValue
        item.writeVisibility(.public, owner: person, goal: "g", at: try Stamp(wall: 1, counter: 0, device: "p"))
        #expect(try first.call("relay", RelayRequest.submit(item).wireEncoded(), phone) == (401, "invalid_session"))
        #expect(try first.relay.replica.visibility.keys.allSatisfy { $0.owner != person }, "nothing was kept")
        #expect(try first.relay.pushDevices().allSatisfy { $0.person != person })

        // The tablet's session was not touched by the change: served after a fresh read.
        try second.accounts.signUp(email: "other." + email, password: "another long password", clientKey: "c")
        #expect(try first.sync(tablet).status == 200)
        #expect(try first.register(email + "-tablet", tablet).status == 200)
        #expect(try first.relay.pushDevices().contains { $0.token == email + "-tablet" })

        // A session begun through the second process, which the first one's records do not know
        // yet: served, not refused on the records held.
        let laptop = try second.accounts.signIn(
            email: email, password: ConfirmedReadingFlow.password, clientKey: "c", device: "laptop")
        #expect(try first.sync(laptop).status == 200)
    }

    static let password = "plenty of quiet mornings"
}

/// An account store whose readings never hold: each row's version is one off the one it read.
struct SkewedAccountStore: AccountStore {
    let base: any AccountStore

    func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        try base.update(body)
    }

    func read<T>(fresh: Bool, _ body: (AccountRecords) throws(AuthError) -> T) throws(AuthError) -> (
        result: T, reading: StoreReading?
    ) {
        let (result, reading) = try base.read(fresh: fresh, body)
        guard let reading else { return (result, nil) }
        return (
            result,
            StoreReading(
                database: reading.database,
                rows: reading.rows.map { StoreReading.Row(map: $0.map, key: $0.key, version: $0.version &+ 1) })
        )
    }
}

@Suite("A relay request confirms the read that authenticated it")
struct ConfirmedReadingTests {
    @Test("SQLite: a session signed out through another store on the file stops at once")
    func sqlite() throws {
        let path = try ServerFiles.path("glow-confirm")
        defer { ServerFiles.remove(path) }
        let (one, two) = (try SQLiteServerDatabase(path: path), try SQLiteServerDatabase(path: path))
        try ConfirmedReadingFlow.run(
            try .init(accounts: one.accounts, relay: one.relay), try .init(accounts: two.accounts, relay: two.relay),
            email: "ana@example.com")
    }

    @Test("a reading that never holds is refused as storage_failed after a bounded number of tries, and nothing runs")
    func neverHolds() throws {
        let path = try ServerFiles.path("glow-skewed")
        defer { ServerFiles.remove(path) }
        let database = try SQLiteServerDatabase(path: path)
        let honest = try ConfirmedReadingFlow.Process(accounts: database.accounts, relay: database.relay)
        let (phone, _) = try honest.person("bea@example.com")
        let skewed = try ConfirmedReadingFlow.Process(
            accounts: SkewedAccountStore(base: database.accounts), relay: database.relay)
        #expect(try skewed.sync(phone) == (503, "storage_failed"))
        #expect(try skewed.register("bea-phone", phone) == (503, "storage_failed"))
        #expect(try honest.relay.pushDevices().isEmpty, "nothing was kept")
        #expect(try honest.sync(phone).status == 200)
    }

    /// Over stores on different databases no transaction reads both: each call judges the token
    /// on the records as the account store's database holds them, then runs. The relay's store
    /// itself refuses to confirm a reading of another database.
    @Test("stores that share no database: the token is judged afresh, so a sign-out elsewhere still stops it")
    func separateDatabases() throws {
        let accounts = try ServerFiles.path("glow-accounts")
        let relay = try ServerFiles.path("glow-relay")
        defer { for path in [accounts, relay] { ServerFiles.remove(path) } }
        let relayFile = try SQLiteServerDatabase(path: relay)
        for relayStore in [relayFile.relay, InMemoryFeedRelayStore()] as [any FeedRelayStore] {
            let process = try ConfirmedReadingFlow.Process(
                accounts: try SQLiteAccountStore(path: accounts), relay: relayStore)
            let other = try ConfirmedReadingFlow.Process(
                accounts: try SQLiteAccountStore(path: accounts), relay: relayStore)
            let (phone, tablet) = try process.person("fin.\(type(of: relayStore))@example.com")
            #expect(try process.sync(phone).status == 200 && process.sync(tablet).status == 200)
            try other.accounts.signOut(accessToken: phone.accessToken)
            #expect(try process.sync(phone) == (401, "invalid_session"))
            #expect(try process.register("fin-phone", phone) == (401, "invalid_session"))
            #expect(try process.sync(tablet).status == 200)
            let reading = try #require(
                try process.accounts.authenticate(accessToken: tablet.accessToken, fresh: false).reading)
            #expect(!relayStore.confirms(reading))
            #expect(throws: FeedError.self) {
                _ = try relayStore.update(loading: .whole, writing: false, confirming: reading) {
                    (state) throws(FeedError) in state.sequence
                }
            }
        }
    }

    @Test("in memory there is no reading to confirm, and a signed-out session stops as before")
    func memory() throws {
        let process = try ConfirmedReadingFlow.Process(
            accounts: InMemoryAccountStore(), relay: InMemoryFeedRelayStore())
        let (phone, tablet) = try process.person("cai@example.com")
        #expect(try process.accounts.authenticate(accessToken: phone.accessToken, fresh: false).reading == nil)
        try process.accounts.signOut(accessToken: phone.accessToken)
        #expect(try process.sync(phone) == (401, "invalid_session"))
        #expect(try process.sync(tablet).status == 200)
    }
}

extension PostgresStoreTests {
    @Test("PostgreSQL: a session signed out through another process stops at once on this one")
    func confirmedReading() throws {
        let one = try PostgresServerDatabase(url: cluster.conninfo, connections: 1)
        let two = try PostgresServerDatabase(url: cluster.conninfo, connections: 1)
        try ConfirmedReadingFlow.run(
            try .init(accounts: one.accounts, relay: one.relay), try .init(accounts: two.accounts, relay: two.relay),
            email: "dee@example.com")
        let skewed = try ConfirmedReadingFlow.Process(
            accounts: SkewedAccountStore(base: one.accounts), relay: one.relay)
        let (_, tablet) = try ConfirmedReadingFlow.Process(accounts: one.accounts, relay: one.relay).person(
            "eli@example.com")
        #expect(try skewed.sync(tablet) == (503, "storage_failed"))
        let foreign = StoreReading(database: "another database", rows: [])
        #expect(!one.relay.confirms(foreign))
        #expect(throws: FeedError.self) {
            _ = try one.relay.update(loading: .whole, writing: false, confirming: foreign) {
                (state) throws(FeedError) in state.sequence
            }
        }
    }
}
