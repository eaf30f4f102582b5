import Foundation
import GlowClient
import GlowRitual
import GlowStorage
import Synchronization

/// `glow-tool account` and `glow-tool store sync`: a device's side of a Glow server from a
/// terminal. The session a sign-in gives is kept in the device's database (its device values
/// `server.url` and `server.session`, and `auth.account`, whom the feed is of), so that later
/// commands act as that person; every renewed pair of tokens is kept before it is used.
@MainActor
enum AccountCommand {
    struct Options: Equatable, Sendable {
        enum Action: Equatable, Sendable {
            case signUp(email: String)
            case confirm(token: String)
            case signIn(email: String)
            case sessions
            case signOut
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
    static func server(_ explicit: String?, _ database: RitualDatabase?) throws -> ServiceClient {
        var text = explicit
        if text == nil, let database {
            text = try database.deviceValue("server.url").map { String(decoding: $0, as: UTF8.self) }
        }
        guard let text else { throw UsageErrorInRun(message: "give --server URL (no session names one)") }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? "") else {
            throw UsageErrorInRun(message: "--server takes an http:// or https:// URL, not '\(text)'")
        }
        return ServiceClient(base: url)
    }

    static func open(_ path: String?) throws -> RitualDatabase {
        let path = StoreCommand.path(path)
        do {
            return try RitualDatabase(path: path, create: false)
        } catch {
            throw DataFailure(message: "\(error) (glow-tool store init makes a database)")
        }
    }

    /// The session kept in `database`, or a failure saying to sign in.
    static func session(_ database: RitualDatabase) throws -> ClientSession {
        guard let bytes = try database.deviceValue("server.session"), !bytes.isEmpty else {
            throw DataFailure(message: "nobody is signed in on this database: glow-tool account sign-in")
        }
        do {
            return try JSONDecoder().decode(ClientSession.self, from: Data(bytes))
        } catch {
            throw DataFailure(message: "the session kept in the database does not read: \(error)")
        }
    }

    /// Keeps `session` (nil: forgets it) in `database` with the server it is with.
    nonisolated static func keep(_ session: ClientSession?, server: URL, in database: RitualDatabase) throws {
        if let session {
            try database.setDeviceValues([
                "server.url": Array(server.absoluteString.utf8),
                "server.session": Array(try JSONEncoder().encode(session)),
                "auth.account": Array(session.account.rawValue.utf8),
            ])
        } else {
            try database.setDeviceValue([], for: "server.session")
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
        let keeper = SessionKeeper(client: client, session: try session(database)) { renewed in
            do {
                try keep(renewed, server: client.base, in: database)
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
            let client = try server(options.server, nil)
            try await call { try await client.signUp(email: email, password: try password()) }
            print("a confirmation mail is on its way to \(email): glow-tool account confirm --token TOKEN")
        case .confirm(let token):
            let database = try open(options.database)
            let client = try server(options.server, database)
            let session = try await call {
                try await client.confirmSignUp(token: token, password: try password(), device: options.device)
            }
            try keep(session, server: client.base, in: database)
            print("signed up and in as \(session.account) (session \(session.id))")
        case .signIn(let email):
            let database = try open(options.database)
            let client = try server(options.server, database)
            let session = try await call {
                try await client.signIn(email: email, password: try password(), device: options.device)
            }
            try keep(session, server: client.base, in: database)
            print("signed in as \(session.account) (session \(session.id))")
        case .sessions:
            let database = try open(options.database)
            let list = try await withKeeper(database, try server(options.server, database)) { keeper in
                try await call { try await keeper.call("sessions") }
            }
            for case .message(let entry) in list.list("sessions") {
                let device = entry.text("device") ?? "(no device)"
                let since = Date(timeIntervalSince1970: Double(entry.unsigned("signed_in_at")) / 1_000)
                print("\(entry.string("id"))  \(device)  since \(since)\(entry.bool("current") ? "  (this one)" : "")")
            }
        case .signOut:
            let database = try open(options.database)
            try await withKeeper(database, try server(options.server, database)) { keeper in
                try await call { try await keeper.signOut() }
            }
            print("signed out")
        }
        return 0
    }

    /// `store sync`: sends the person's writes and takes in what the relay has for them.
    static func sync(database path: String?, server: String?) async throws -> Int32 {
        let database = try open(path)
        return try await withKeeper(database, try self.server(server, database)) { keeper in
            guard let person = keeper.session?.account else { preconditionFailure("a keeper holds a session") }
            let store: ActivityStore
            do {
                store = try ActivityStore(database: database, person: person, clockID: "glow-tool")
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
        private let heard = Mutex<[String]>([])
        func note(_ failure: String) { heard.withLock { $0.append(failure) } }
        var first: String? { heard.withLock { $0.first } }
    }
}
