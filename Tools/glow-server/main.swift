import Foundation
import GlowAuth
import GlowCore
import GlowPostgres
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowReminders
import GlowServer
import GlowServerStores
import GlowService
import GlowStorage
import GlowToolSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// glow-server: accounts and the Glow feed's relay for people's devices, speaking the protocol
// of Spec/server.md over HTTP/1.1. TLS belongs to a reverse proxy in front (see the README).

let usage = """
    usage: glow-server [--listen HOST:PORT | --listen unix:PATH] [--database PATH]
                       [--mail-command COMMAND | --mail-dir DIR] [--mail-from ADDRESS] [--link-base URL]
                       [--threads N] [--max-body-bytes N] [--timeout SECONDS] [--connections N]
                       [--connections-per-client N] [--waiting-connections N] [--calls-per-client N]
                       [--header-seconds N] [--body-seconds N]
                       [--database-connections N] [--pool-wait SECONDS] [--database-wait SECONDS]
                       [--client-interval MS] [--client-burst N]
                       [--trust-forwarded-for] [--google-client-id IDS] [--apple-client-id IDS]
                       [--google-key-set URL] [--apple-key-set URL] [--push-command COMMAND]
                       [--push-window SECONDS] [--no-background-pushes] [--sync-quota-mib N]
                       [--sync-capacity-gib N] [--sign-ups-per-hour N]
      --listen          where to listen (default 127.0.0.1:8080; port 0 picks a free one)
      --database        postgres://USER@HOST/DB for a deployment of several processes over one
                        PostgreSQL, or the SQLite file of a single process (default
                        $XDG_DATA_HOME/glow-server/server.sqlite, else ~/.local/share/glow-server/)
      --mail-command    hand each mail to this command's standard input (e.g. "sendmail -t")
      --mail-dir        write each mail as a file into this folder (development, conformance runs)
                        without either, mail is printed to standard error
      --mail-from       the From: of every mail (default "Glow Ritual <no-reply@localhost>")
      --link-base       what the links in mails start with (default glowritual://)
      --threads         threads serving requests (default 4)
      --max-body-bytes  the longest body taken (default 1048576)
      --timeout         seconds a connection may stay idle (default 30)
      --connections     connections open at once (default 1000)
      --connections-per-client
                        connections one client (SERVER-11) may hold open at once (default 32;
                        0 with --trust-forwarded-for, where every connection is the proxy's)
      --calls-per-client
                        requests of one client (SERVER-11) handled at once; its others wait while
                        other clients' take the free threads (default: half of --threads, at least 1)
      --waiting-connections
                        connections that may wait on their clients (for a header or a body) at
                        once, an idle kept-alive one included; past it the one waiting longest
                        is closed (default seven eighths of --connections, at most --connections)
      --header-seconds  seconds a request's whole header may take, from the connection's start or
                        the end of the exchange before it (default 10)
      --body-seconds    seconds a request's whole body may take after its header, and an answer to
                        be taken (default 30)
      --database-connections
                        PostgreSQL connections per store of this process (default: --threads)
      --pool-wait       seconds a request waits for a free database connection before it is
                        answered 503 with Retry-After (default 2)
      --database-wait   seconds one database call may wait: on PostgreSQL also set as the database's
                        statement, lock and idle-in-transaction timeouts; on SQLite for the file's
                        connection and locks; past it the request is answered 503 with Retry-After
                        (default 2)
      --client-interval milliseconds between one client's calls once its burst is spent
                        (default 50; 0: no limit) (SERVER-11)
      --client-burst    calls one client may make at once (default 200)
      --trust-forwarded-for  throttle by the last X-Forwarded-For entry (only behind a proxy)
      --google-client-id, --apple-client-id
                        sign in with Google or Apple for these client ids (comma-separated): the
                        audiences the apps' ID tokens carry
      --google-key-set, --apple-key-set
                        where the provider's keys are (default its published URL; file:// too)
      --push-command    hand each second's pushes of friends' activity to this command's standard
                        input, one JSON line each (SERVER-12); without it they are printed to
                        standard error
      --push-window     seconds between two pushes of one topic to one device (default 900)
      --no-background-pushes
                        do not wake a person's other devices when one syncs or a friend's item
                        reaches them (REMIND-19; sent unless this is given)
      --sync-quota-mib  the most MiB of sealed records a person's sync log keeps (default 64)
      --sync-capacity-gib
                        the most GiB every sync log together keeps (default 64): past it a push
                        that keeps more is 507 sync_server_full (SYNC-9)
      --sign-ups-per-hour
                        sign-ups taken from everyone together in an hour; past it 507
                        sign_ups_full with Retry-After (default 1000) (AUTH-36)
    """

/// Prints `message` to standard error.
func complain(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

// Everything the server makes (its database, its mail files) holds secrets: password and token
// hashes, tokens in mails. Only its own user may read them.
umask(0o077)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}

struct Configuration {
    var listen = ListenAddress.tcp(host: "127.0.0.1", port: 8080)
    var database: String
    var explicitDatabase = false
    /// Whether `database` is a PostgreSQL URL rather than a SQLite file.
    var postgres: Bool { database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") }
    var mail = ServiceMailer.Destination.standardError
    var mailFrom = "Glow Ritual <no-reply@localhost>"
    var linkBase = "glowritual://"
    var limits = HTTPLimits()
    /// PostgreSQL connections per store; nil: one per serving thread.
    var databaseConnections: Int?
    var poolWait = 2.0
    var databaseWait = PostgresLimits.standard
    /// How often one client may call (SERVER-11).
    var clientLimit = ClientLimit.standard
    var pushCommand: String?
    var pushWindowMilliseconds = PushOutbox.standardWindow
    /// Whether devices are woken by background pushes (REMIND-19).
    var backgroundPushes = true
    /// The bytes of records a person's sync log keeps at most (SYNC-9).
    var syncQuota: Int64 = 64 << 20
    /// The bytes every sync log together keeps at most (SYNC-9).
    var syncCapacity: Int64 = 64 << 30
    var signUpsPerHour = AccountConfiguration().signUpsPerHour
    var settings = ServiceHandler.Settings()
    /// The providers people sign in with: each one's client ids and key set URL.
    var providers: [(provider: IdentityProvider, clientIDs: Set<String>)] = []

    init(_ arguments: [String]) throws {
        var parser = try OptionParser(
            arguments, command: "glow-server",
            valued: [
                "--listen", "--database", "--mail-command", "--mail-dir", "--mail-from", "--link-base", "--threads",
                "--max-body-bytes", "--timeout", "--connections", "--database-connections", "--pool-wait",
                "--database-wait", "--connections-per-client", "--waiting-connections", "--calls-per-client",
                "--header-seconds",
                "--body-seconds",
                "--client-interval", "--client-burst", "--push-command", "--push-window", "--sync-quota-mib",
                "--sync-capacity-gib",
                "--sign-ups-per-hour",
                "--google-client-id", "--apple-client-id",
                "--google-key-set", "--apple-key-set",
            ])
        if let text = try parser.value("--listen") { listen = try ListenAddress(parsing: text) }
        if let path = try parser.value("--database") {
            database = path
            explicitDatabase = true
        } else {
            database = DataFolder.path("glow-server") + "/server.sqlite"
        }
        let command = try parser.value("--mail-command")
        let folder = try parser.value("--mail-dir")
        switch (command, folder) {
        case (let command?, nil): mail = .command(command)
        case (nil, let folder?): mail = .directory(folder)
        case (nil, nil): mail = .standardError
        case (.some, .some):
            throw UsageError(message: "--mail-command and --mail-dir are one or the other", command: "glow-server")
        }
        if let from = try parser.value("--mail-from") { mailFrom = from }
        if let base = try parser.value("--link-base") { linkBase = base }
        if let threads = try parser.integer("--threads", atLeast: 1) { limits.threads = threads }
        limits.callsPerClient =
            try parser.integer("--calls-per-client", atLeast: 1) ?? max(1, limits.threads / 2)
        if let bytes = try parser.integer("--max-body-bytes", atLeast: 1) { limits.maxBodyBytes = bytes }
        if let seconds = try parser.integer("--timeout", atLeast: 1) { limits.timeoutSeconds = seconds }
        if let count = try parser.integer("--connections", atLeast: 1) { limits.connectionLimit = count }
        let perClient = try parser.integer("--connections-per-client", atLeast: 0)
        if let waiting = try parser.integer("--waiting-connections", atLeast: 1) {
            guard waiting <= limits.connectionLimit else {
                throw UsageError(
                    message: "--waiting-connections \(waiting): at most --connections (\(limits.connectionLimit))",
                    command: "glow-server")
            }
            limits.waitingConnections = waiting
        } else {
            limits.waitingConnections = HTTPLimits.waiting(of: limits.connectionLimit)
        }
        for (name, part) in [("--header-seconds", \HTTPLimits.headerSeconds), ("--body-seconds", \.bodySeconds)] {
            guard let seconds = try parser.integer(name, atLeast: 1) else { continue }
            guard seconds <= 3_600 else {
                throw UsageError(message: "\(name) \(seconds): at most 3600 seconds", command: "glow-server")
            }
            limits[keyPath: part] = seconds
        }
        databaseConnections = try parser.integer("--database-connections", atLeast: 1)
        if let text = try parser.value("--pool-wait") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 3_600 else {
                throw UsageError(
                    message: "--pool-wait takes seconds from 0 to 3600, not '\(text)'", command: "glow-server")
            }
            poolWait = seconds
        }
        if let text = try parser.value("--database-wait") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0.05, seconds <= 3_600 else {
                throw UsageError(
                    message: "--database-wait takes seconds from 0.05 to 3600, not '\(text)'", command: "glow-server")
            }
            databaseWait = PostgresLimits(wait: seconds)
        }
        let interval =
            try parser.integer("--client-interval", atLeast: 0) ?? Int(ClientLimit.standard.intervalMilliseconds)
        let burst = try parser.integer("--client-burst", atLeast: 1) ?? Int(ClientLimit.standard.burst)
        guard let limit = ClientLimit(intervalMilliseconds: Int64(interval), burst: Int64(burst)) else {
            throw UsageError(
                message: "--client-burst \(burst) times --client-interval \(interval) passes the longest wait",
                command: "glow-server")
        }
        clientLimit = limit
        pushCommand = try parser.value("--push-command")
        if let seconds = try parser.integer("--push-window", atLeast: 0) {
            guard seconds <= 86_400 else {
                throw UsageError(message: "--push-window \(seconds): at most 86400 seconds", command: "glow-server")
            }
            pushWindowMilliseconds = Int64(seconds) * 1_000
        }
        if let mebibytes = try parser.integer("--sync-quota-mib", atLeast: 0) {
            guard mebibytes <= 1 << 20 else {
                throw UsageError(message: "--sync-quota-mib \(mebibytes): at most 1048576", command: "glow-server")
            }
            syncQuota = Int64(mebibytes) << 20
        }
        if let gibibytes = try parser.integer("--sync-capacity-gib", atLeast: 0) {
            guard gibibytes <= 1 << 30 else {
                throw UsageError(
                    message: "--sync-capacity-gib \(gibibytes): at most 1073741824", command: "glow-server")
            }
            syncCapacity = Int64(gibibytes) << 30
        }
        if let count = try parser.integer("--sign-ups-per-hour", atLeast: 1) { signUpsPerHour = count }
        settings.trustForwardedFor = parser.flag("--trust-forwarded-for")
        backgroundPushes = !parser.flag("--no-background-pushes")
        // Behind a proxy every connection is the proxy's: capping its address would cap everyone.
        limits.connectionsPerClient = perClient ?? (settings.trustForwardedFor ? 0 : limits.connectionsPerClient)
        for (name, base) in [("google", IdentityProvider.google), ("apple", IdentityProvider.apple)] {
            let ids = try parser.value("--\(name)-client-id")
            let keySet = try parser.value("--\(name)-key-set")
            guard let ids else {
                if keySet != nil {
                    throw UsageError(message: "--\(name)-key-set needs --\(name)-client-id", command: "glow-server")
                }
                continue
            }
            let clientIDs = Set(ids.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
            guard !clientIDs.contains("") else {
                throw UsageError(
                    message: "--\(name)-client-id takes client ids separated by commas", command: "glow-server")
            }
            let provider = try IdentityProvider(
                id: base.id, issuers: base.issuers, keySetURL: keySet ?? base.keySetURL, algorithms: base.algorithms,
                hashesNonce: base.hashesNonce, relayDomain: base.relayDomain)
            providers.append((provider, clientIDs))
        }
        try parser.finish()
    }
}

let configuration: Configuration
do {
    configuration = try Configuration(arguments)
} catch {
    complain("glow-server: \(error)\n\(usage)")
    exit(64)
}

if case .directory(let folder) = configuration.mail {
    var isFolder: ObjCBool = false
    // Spec/server.md 9.6: the folder is not made, since a mistyped one made here is one nobody reads.
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
        complain(
            !FileManager.default.fileExists(atPath: folder)
                ? "glow-server: --mail-dir \(folder): there is no such folder; make it first (mkdir -p \(folder)) "
                    + "or name the folder you read mail from (the server makes none, so a mistyped name fails "
                    + "here rather than collecting mail nobody reads)"
                : "glow-server: --mail-dir \(folder) is a file, not a folder: name a folder to write each mail into")
        exit(66)
    }
}

// The default database's folder is made; a folder named by --database must be there.
if !configuration.explicitDatabase, !configuration.postgres {
    let folder = (configuration.database as NSString).deletingLastPathComponent
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
        complain("glow-server: cannot make the data folder \(folder): \(error.localizedDescription)")
        exit(73)
    }
}

/// What serves once the database answers.
struct Service {
    let handler: ServiceHandler
    let mailer: ServiceMailer
    let pushes: PushDispatcher
    let purger: AccountPurger
}

/// The server's stores on the configured database: PostgreSQL for a deployment of several
/// processes; else the embedded SQLite file.
func openStores() throws(StoreError) -> Stores {
    if configuration.postgres {
        let database = try PostgresServerDatabase(
            url: configuration.database,
            connections: configuration.databaseConnections ?? configuration.limits.threads,
            poolWait: configuration.poolWait, limits: configuration.databaseWait,
            report: { complain("glow-server: \($0)") })
        return Stores(
            accounts: database.accounts, relay: database.relay, sync: database.sync,
            outbox: try PostgresMailOutbox(url: configuration.database, limits: configuration.databaseWait),
            problem: { database.problem() }, numbering: { database.numberingBehind() })
    }
    let database = try SQLiteServerDatabase(path: configuration.database, wait: configuration.databaseWait.wait)
    return Stores(
        accounts: database.accounts, relay: database.relay, sync: database.sync,
        outbox: try SQLiteMailOutbox(path: configuration.database, wait: configuration.databaseWait.wait),
        problem: { database.problem() },
        numbering: { nil })
}

/// The server's stores on its database.
struct Stores {
    let accounts: any AccountStore
    let relay: any FeedRelayStore
    let sync: any SyncLogStore
    let outbox: any MailOutbox
    let problem: @Sendable () -> String?
    /// How far the relay's numbering is behind, nil when it keeps up (SQLite numbers as it writes).
    let numbering: @Sendable () -> String?
}

/// The service over the stores, its mail and pushes started.
func makeService(_ stores: Stores) throws -> Service {
    let relay = FeedRelay(
        store: stores.relay, pushWindow: configuration.pushWindowMilliseconds,
        backgroundPushes: configuration.backgroundPushes)
    let sync = SyncLog(store: stores.sync, quota: configuration.syncQuota, capacity: configuration.syncCapacity)
    // Every mail goes into the database's outbox first, and out from there.
    let mailer = ServiceMailer(
        destination: configuration.mail, sender: configuration.mailFrom, linkBase: configuration.linkBase,
        outbox: stores.outbox, report: { complain("glow-server: \($0)") })
    let fetcher = HTTPKeySetFetcher()
    let verifiers = try configuration.providers.map { entry in
        try IDTokenVerifier(
            provider: entry.provider, clientIDs: entry.clientIDs, keys: KeySetCache(blockingFetcher: fetcher))
    }
    var accountConfiguration = AccountConfiguration()
    accountConfiguration.signUpsPerHour = configuration.signUpsPerHour
    let accounts = try AccountService(
        store: stores.accounts, configuration: accountConfiguration, mailer: mailer,
        eraser: RelayEraser(relay: relay, sync: sync),
        revoker: UnconfiguredRevoker(),
        verifiers: verifiers)
    let handler = ServiceHandler(
        accounts: accounts, relay: relay, sync: sync, settings: configuration.settings, healthCheck: stores.problem,
        numberingCheck: stores.numbering)
    // Pushes of friends' activity wait in the relay's outbox, and go out once a second.
    let sender: any PushSender =
        configuration.pushCommand.map { CommandPushSender(command: $0) }
        ?? StandardErrorPushSender()
    let pushes = PushDispatcher(relay: relay, sender: sender, report: { complain("glow-server: \($0)") })
    // What strangers leave behind (sign-ups never confirmed, guesses) is forgotten every minute.
    let purger = AccountPurger(accounts: accounts, report: { complain("glow-server: \($0)") })
    mailer.start()
    pushes.start()
    purger.start()
    return Service(handler: handler, mailer: mailer, pushes: pushes, purger: purger)
}

/// The service once it is made; until then every request is answered `503` (SERVER-7).
let current = Locked<Service?>(nil)

let server: HTTPServer
do {
    let limiter = ClientLimiter(limit: configuration.clientLimit)
    // New connections are held to the same rate, counted apart from the calls (SERVER-11).
    let connections = ClientLimiter(limit: configuration.clientLimit)
    server = try HTTPServer(
        listen: configuration.listen, limits: configuration.limits,
        tooLarge: { ServiceHandler.tooLarge(limit: $0) }, badRequest: { ServiceHandler.badRequest($0) },
        client: ClientLimit.client,
        // SERVER-11 as soon as a request's headers are in: a throttled client's body is never read.
        screen: { ServiceHandler.screen($0, limitedBy: limiter, settings: configuration.settings) },
        connection: {
            ServiceHandler.admitsConnection(from: $0, limitedBy: connections, settings: configuration.settings)
        },
        // A client's share of the handler threads counts by SERVER-11's client, behind a trusted
        // proxy the one it names; the host's own peers on a Unix socket are not capped.
        caller: { request in
            let key = ServiceHandler.clientKey(request, trustForwardedFor: configuration.settings.trustForwardedFor)
            return key == "unix" ? nil : ClientLimit.client(key)
        },
        handler: { request in
            guard let handler = current.withLock({ $0?.handler }) else { return ServiceHandler.starting(request) }
            return handler.respond(to: request)
        })
} catch {
    complain("glow-server: \(error)")
    exit(1)
}

// The service starts as soon as its database answers. A SQLite file that cannot be opened stops
// the process at once. A PostgreSQL server that is not there yet (or restarting) is asked again
// every half second, every request answered 503 meanwhile, so a deployment needs no supervisor to
// order its start; a database that answers but is not this server's, or a configuration the
// service refuses, stops the process.
func startService(quiet: Bool) -> Bool {
    do {
        let service = try makeService(try openStores())
        current.withLock { $0 = service }
        return true
    } catch let error as StoreError
        where configuration.postgres && (error.code == .cannotOpen || error.code == .writeFailed)
    {
        if !quiet { complain("glow-server: waiting for the database: \(error.message)") }
        return false
    } catch {
        complain("glow-server: \(error)")
        server.stop()
        exit(1)
    }
}
if !startService(quiet: false) {
    Thread.detachNewThread {
        while true {
            Thread.sleep(forTimeInterval: 0.5)
            if startService(quiet: true) {
                complain("glow-server: the database answers; serving")
                return
            }
        }
    }
}

FileHandle.standardOutput.write(
    Data(
        "glow-server listening on \(server.address), database \(configuration.postgres ? PostgresServerDatabase.redacted(configuration.database) : configuration.database)\n"
            .utf8))

// Runs until SIGINT or SIGTERM, then stops taking requests, lets the mail queue drain and exits.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let stopping = DispatchSemaphore(value: 0)
let sources = [SIGINT, SIGTERM].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler { stopping.signal() }
    source.resume()
    return source
}
stopping.wait()
server.stop()
if let service = current.withLock({ $0 }) {
    service.purger.stop()
    service.pushes.stop()
    service.mailer.flush()
}
print("glow-server stopped")
exit(0)
