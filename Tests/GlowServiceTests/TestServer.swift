import Foundation
import GlowAuth
import GlowProtocol
import GlowRelay
import GlowServer
import GlowServerStores
import GlowService

/// A glow-server in this process on a free loopback port, over a SQLite server database in a
/// temporary folder, writing its mail into a folder there; stopped and removed by `stop()`.
final class TestServer: Sendable {
    let folder: String
    let mailFolder: String
    let database: SQLiteServerDatabase
    let relay: FeedRelay
    let sync: SyncLog
    let accounts: AccountService
    let mailer: ServiceMailer
    let server: HTTPServer

    var url: String {
        guard case .tcp(let host, let port) = server.address else { preconditionFailure("a TCP server") }
        return "http://\(host):\(port)"
    }

    /// The spec's defaults, with one gate for every test server of the process whose hashes wait
    /// their turn as long as it takes: the test process runs many suites at once on two cores, and
    /// a test that is not about AUTH-12's `busy` must not meet it because another suite hashes.
    static let configuration: AccountConfiguration = {
        var configuration = AccountConfiguration()
        configuration.hashingGate = HashingGate(concurrent: 1, wait: 120)
        return configuration
    }()

    init(
        trustForwardedFor: Bool = true, limits: HTTPLimits = HTTPLimits(),
        configuration: AccountConfiguration = TestServer.configuration, clock: any AuthClock = SystemAuthClock(),
        clientLimit: ClientLimit = .standard, backgroundPushes: Bool = false
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-service-\(UUID().uuidString)").path
        mailFolder = folder + "/mail"
        try FileManager.default.createDirectory(atPath: mailFolder, withIntermediateDirectories: true)
        database = try SQLiteServerDatabase(path: folder + "/server.sqlite")
        relay = FeedRelay(store: database.relay, backgroundPushes: backgroundPushes)
        sync = SyncLog(store: database.sync)
        mailer = ServiceMailer(
            destination: .directory(mailFolder), outbox: try SQLiteMailOutbox(path: folder + "/server.sqlite"),
            report: { print("mail: \($0)") })
        mailer.start()
        accounts = try AccountService(
            store: database.accounts, configuration: configuration, clock: clock, mailer: mailer,
            eraser: RelayEraser(relay: relay, sync: sync),
            revoker: UnconfiguredRevoker())
        var settings = ServiceHandler.Settings()
        settings.trustForwardedFor = trustForwardedFor
        let handler = ServiceHandler(
            accounts: accounts, relay: relay, sync: sync, settings: settings, clock: clock,
            healthCheck: { [database] in database.problem() })
        let limiter = ClientLimiter(limit: clientLimit)
        server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0), limits: limits, tooLarge: { ServiceHandler.tooLarge(limit: $0) },
            handler: { handler.respond(to: $0, limitedBy: limiter) })
    }

    /// The token of the newest mail of `kind` to `address`, waiting up to five seconds for it.
    func mailedToken(to address: String, kind: String) throws -> String {
        let head = try mailed(to: address, kind: kind).head
        guard let token = head.first(where: { $0.hasPrefix("X-Glow-Token: ") }) else {
            throw MailMissing(address: address, kind: kind)
        }
        return String(token.dropFirst("X-Glow-Token: ".count))
    }

    /// The link in the text of the latest mail of `kind` to `address`, as a person taps it.
    func mailedLink(to address: String, kind: String) throws -> URL {
        let body = try mailed(to: address, kind: kind).body
        guard let line = body.components(separatedBy: "\r\n").first(where: { $0.contains("?token=") }),
            let url = URL(string: line)
        else { throw MailMissing(address: address, kind: kind) }
        return url
    }

    /// The header lines and the text of the latest mail of `kind` to `address`, waited for up to
    /// 5 seconds.
    func mailed(to address: String, kind: String) throws -> (head: [String], body: String) {
        let deadline = Date().addingTimeInterval(5)
        repeat {
            mailer.flush()
            let names = try FileManager.default.contentsOfDirectory(atPath: mailFolder).filter { $0.hasSuffix(".eml") }
                .sorted().reversed()
            for name in names {
                let text = try String(contentsOfFile: mailFolder + "/" + name, encoding: .utf8)
                let parts = text.components(separatedBy: "\r\n\r\n")
                let head = parts[0].components(separatedBy: "\r\n")
                guard head.contains("To: \(address)"), head.contains("X-Glow-Mail: \(kind)") else { continue }
                return (head, parts.dropFirst().joined(separator: "\r\n\r\n"))
            }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        throw MailMissing(address: address, kind: kind)
    }

    struct MailMissing: Error {
        let address: String
        let kind: String
    }

    func stop() {
        server.stop()
        mailer.flush()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
