import Foundation
import GlowAuth
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
    let accounts: AccountService
    let mailer: ServiceMailer
    let server: HTTPServer

    var url: String {
        guard case .tcp(let host, let port) = server.address else { preconditionFailure("a TCP server") }
        return "http://\(host):\(port)"
    }

    init(trustForwardedFor: Bool = true, limits: HTTPLimits = HTTPLimits()) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-service-\(UUID().uuidString)").path
        mailFolder = folder + "/mail"
        try FileManager.default.createDirectory(atPath: mailFolder, withIntermediateDirectories: true)
        database = try SQLiteServerDatabase(path: folder + "/server.sqlite")
        relay = FeedRelay(store: database.relay)
        mailer = ServiceMailer(destination: .directory(mailFolder), report: { print("mail: \($0)") })
        accounts = try AccountService(
            store: database.accounts, mailer: mailer, eraser: RelayEraser(relay: relay), revoker: UnconfiguredRevoker())
        var settings = ServiceHandler.Settings()
        settings.trustForwardedFor = trustForwardedFor
        let handler = ServiceHandler(
            accounts: accounts, relay: relay, settings: settings, healthCheck: { [database] in database.problem() })
        server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0), limits: limits, tooLarge: { ServiceHandler.tooLarge(limit: $0) },
            handler: { handler.respond(to: $0) })
    }

    func stop() {
        server.stop()
        mailer.flush()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
