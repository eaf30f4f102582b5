import Foundation
import GlowBundle
import GlowClient
import GlowCore
import GlowModel
import GlowRitual
import GlowStorage
import GlowSync

/// `glow-tool account` and `glow-tool store sync`: a device's side of a Glow server from a
/// terminal. The session a sign-in gives is kept in the database's secret store (files beside it,
/// never the database itself), with the server's URL and whom the feed is of (`server.url` and
/// `auth.account`) in the database, so that later commands act as that person; every renewed pair
/// of tokens is kept before it is used.
@MainActor
enum AccountCommand {
    struct Options: Equatable, Sendable {
        enum Action: Equatable, Sendable {
            case signUp(email: String)
            case confirm(token: String)
            case signIn(email: String)
            case sessions
            case signOut
            /// Sync the database's data (Spec/sync.md), first turning it on when `start` is given.
            case sync(start: Start?)
            /// Show a pairing code for another device.
            case pair
        }

        /// How a database that does not sync yet gets the person's sync secret.
        enum Start: Equatable, Sendable {
            /// A new secret: this is the person's first device.
            case new
            /// The secret another device offers under a pairing code.
            case pair(code: String)
            /// The recovery words, on standard input's first line.
            case words
        }

        var action: Action
        var server: String?
        var database: String?
        var device: String?
        var json = false
    }

    /// The password: the first line of standard input, never an argument (which other users of
    /// the machine can read).
    static func password() throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw UsageErrorInRun(message: "the password is read from standard input's first line, which is empty")
        }
        return line
    }

    /// The server's URL: `--server`, else the one the database's session is with.
    static func server(_ explicit: String?, _ database: RitualDatabase?) async throws -> ServiceClient {
        var text = explicit
        if text == nil, let database {
            text = try await database.deviceValue("server.url").map { String(decoding: $0, as: UTF8.self) }
        }
        guard let text else { throw UsageErrorInRun(message: "give --server URL (no session names one)") }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? "") else {
            throw UsageErrorInRun(message: "--server takes an http:// or https:// URL, not '\(text)'")
        }
        return ServiceClient(base: url)
    }

    static func open(_ path: String?) async throws -> RitualDatabase {
        let path = StoreCommand.path(path)
        do {
            return try await RitualDatabase(path: path, create: false)
        } catch {
            throw DataFailure(message: "\(error) (glow-tool store init makes a database)")
        }
    }

    /// The session kept in the secret store of `database`, or a failure saying to sign in. A
    /// session an earlier version kept in the database itself (`server.session`) is moved into the
    /// secret store first, and erased from the database.
    static func session(_ database: RitualDatabase) async throws -> ClientSession {
        if let kept = try database.secrets.keptSession() { return kept.session }
        guard let bytes = try await database.deviceValue("server.session"), !bytes.isEmpty else {
            throw DataFailure(message: "nobody is signed in on this database: glow-tool account sign-in")
        }
        let session: ClientSession
        do {
            session = try JSONDecoder().decode(ClientSession.self, from: Data(bytes))
        } catch {
            throw DataFailure(message: "the session kept in the database does not read: \(error)")
        }
        let server = try await database.deviceValue("server.url").flatMap {
            URL(string: String(decoding: $0, as: UTF8.self))
        }
        guard let server else { throw DataFailure(message: "the database's server.url does not read") }
        try database.secrets.keep(session, server: server)
        try await database.setDeviceValue([], for: "server.session")
        return session
    }

    /// Keeps `session` (nil: forgets it) in the secret store of `database`, and in the database
    /// the server it is with and whom the feed is of.
    static func keep(_ session: ClientSession?, server: URL, in database: RitualDatabase) async throws {
        try database.secrets.keep(session, server: server)
        if let session {
            try await database.setDeviceValues([
                "server.url": Array(server.absoluteString.utf8), "auth.account": Array(session.account.rawValue.utf8),
            ])
        }
    }

    /// A keeper of the database's session, which writes each renewed pair back; `body` runs with
    /// it, and a pair that could not be kept fails the command after it.
    static func withKeeper<T>(
        _ database: RitualDatabase, _ client: ServiceClient, _ body: (SessionKeeper) async throws -> T
    )
        async throws -> T
    {
        let failures = Failures()
        let secrets = database.secrets
        // A renewed pair is the same session's, with the same server and person: only the secret
        // store changes.
        let keeper = SessionKeeper(client: client, session: try await session(database)) { renewed in
            do {
                try secrets.keep(renewed, server: client.base)
            } catch {
                failures.note("\(error)")
            }
        }
        let result = try await body(keeper)
        if let failure = failures.first {
            throw DataFailure(message: "the renewed session could not be kept in the database: \(failure)")
        }
        return result
    }

    /// Runs an account command; the exit status.
    static func run(_ options: Options) async throws -> Int32 {
        switch options.action {
        case .signUp(let email):
            let client = try await server(options.server, nil)
            try await call { try await client.signUp(email: email, password: try password()) }
            print("a confirmation mail is on its way to \(email): glow-tool account confirm --token TOKEN")
        case .confirm(let token):
            let database = try await open(options.database)
            let client = try await server(options.server, database)
            let session = try await call {
                try await client.confirmSignUp(token: token, password: try password(), device: options.device)
            }
            try await keep(session, server: client.base, in: database)
            print("signed up and in as \(session.account) (session \(session.id))")
        case .signIn(let email):
            let database = try await open(options.database)
            let client = try await server(options.server, database)
            let session = try await call {
                try await client.signIn(email: email, password: try password(), device: options.device)
            }
            try await keep(session, server: client.base, in: database)
            print("signed in as \(session.account) (session \(session.id))")
        case .sessions:
            let database = try await open(options.database)
            let list = try await withKeeper(database, try await server(options.server, database)) { keeper in
                try await call { try await keeper.sessions() }
            }
            for entry in list {
                let since = entry.signedInAt.date
                print(
                    "\(entry.id)  \(entry.device ?? "(no device)")  since \(since)\(entry.isCurrent ? "  (this one)" : "")"
                )
            }
        case .signOut:
            let database = try await open(options.database)
            try await withKeeper(database, try await server(options.server, database)) { keeper in
                try await call { try await keeper.signOut() }
            }
            print("signed out")
        case .sync(let start):
            let database = try await open(options.database)
            try await withKeeper(database, try await server(options.server, database)) { keeper in
                try await syncData(database, keeper, start: start)
            }
        case .pair:
            let database = try await open(options.database)
            guard let sync = try await database.sync else {
                throw DataFailure(
                    message: "this database does not sync: glow-tool account sync --new, --pair or --words")
            }
            let secret = try sync.syncSecret()
            let code = try await withKeeper(database, try await server(options.server, database)) { keeper in
                try await call { try await keeper.offerPairing(of: secret) }
            }
            print("type this code on the new device within ten minutes: \(code)")
        }
        return 0
    }

    /// `account sync`: turns sync on when asked, then one round of it.
    static func syncData(_ database: RitualDatabase, _ keeper: SessionKeeper, start: Options.Start?) async throws {
        guard let session = keeper.session else { preconditionFailure("a keeper holds a session") }
        let device = try await deviceID(database)
        switch (start, try await database.sync) {
        case (nil, nil):
            throw DataFailure(
                message: "this database does not sync yet: --new on the person's first device, else --pair CODE "
                    + "(glow-tool account pair on a device that syncs) or --words")
        case (_?, _?):
            throw DataFailure(
                message: "this database syncs already: glow-tool account sync, without --new, --pair or --words")
        case (.new?, nil):
            let secret = RecoveryKey.random()
            try await database.enableSync(secret: secret, person: session.account, device: device)
            print("sync is on; keep these recovery words, which restore everything if every device is lost:")
            print(secret.words.joined(separator: " "))
        case (.pair(let code)?, nil):
            let secret: RecoveryKey
            do {
                secret = try await keeper.takePairing(code: code)
            } catch {
                throw DataFailure(message: "\(error)")
            }
            try await database.enableSync(secret: secret, person: session.account, device: device)
        case (.words?, nil):
            guard let line = readLine(strippingNewline: true) else {
                throw UsageErrorInRun(message: "--words reads the recovery words from standard input's first line")
            }
            do {
                try await database.enableSync(
                    secret: try RecoveryKey(words: line), person: session.account, device: device)
            } catch let error as BundleError {
                throw DataFailure(message: "\(error)")
            }
        case (nil, _?):
            break
        }
        let changes: DataSet.Changes
        do {
            changes = try await database.syncData(through: keeper.syncTransport)
        } catch {
            throw DataFailure(message: "the sync failed: \(error)")
        }
        let pending = try await database.sync?.state.outbox.pending.count ?? 0
        print(
            "synced: \(changes.goals.count) goals and \(changes.checkInCount) check-ins came from other devices; "
                + "\(pending) records wait to be sent")
    }

    /// This database's device: its device value `sync.device`, made once.
    static func deviceID(_ database: RitualDatabase) async throws -> DeviceID {
        if let bytes = try await database.deviceValue("sync.device") {
            do {
                return try DeviceID(String(decoding: bytes, as: UTF8.self))
            } catch {
                throw DataFailure(message: "the database's sync.device does not read: \(error)")
            }
        }
        let made = DeviceID(UUID())
        try await database.setDeviceValue(Array(made.description.utf8), for: "sync.device")
        return made
    }

    /// `store sync`: sends the person's writes and takes in what the relay has for them (through
    /// the activity store, which needs Observation: macOS 14 and later).
    static func sync(database path: String?, server: String?) async throws -> Int32 {
        guard #available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *) else {
            throw DataFailure(
                message: "glow-tool store sync needs macOS 14 or later (the activity store's Observation)")
        }
        let database = try await open(path)
        return try await withKeeper(database, try await self.server(server, database)) { keeper in
            guard let person = keeper.session?.account else { preconditionFailure("a keeper holds a session") }
            let store: ActivityStore
            do {
                store = try await ActivityStore(database: database, person: person, clockID: "glow-tool")
            } catch {
                throw DataFailure(message: "\(error)")
            }
            do {
                try await store.sync(through: keeper.relayTransport)
            } catch {
                throw DataFailure(message: "the sync failed: \(error)")
            }
            print("synced \(person): \(store.items.count) items on the first page, \(store.badge) unread")
            return 0
        }
    }

    /// `body`'s value, its ``ServiceFailure`` a failure of the command.
    static func call<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as ServiceFailure {
            throw DataFailure(message: "\(failure)")
        }
    }

    /// Failures heard from a callback that cannot throw.
    final class Failures: Sendable {
        private let heard = Locked<[String]>([])
        func note(_ failure: String) { heard.withLock { $0.append(failure) } }
        var first: String? { heard.withLock { $0.first } }
    }
}
