import Foundation
import GlowBundle
import GlowClient
import GlowModel
import GlowRitual
import GlowStorage
import Testing

/// The example app of `Examples/FirstApp` (the README's "Your first app") run as its user runs it,
/// against a real glow-server: its first launch, a goal with a reminder, a tap, a sign-in, a sync
/// and an encrypted backup (issue 45).
@Suite("The example app")
struct ExampleAppTests {
    @Test("glow-first-app goes from a first launch to a synced check-in and an encrypted backup")
    func firstApp() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, session) = try await ClientTests.account("first-app", on: server)
        let database = server.folder + "/first-app.sqlite"
        let (status, output, errors) = try ServerExecutableTests.run(
            "glow-first-app",
            [
                "--database", database, "--server", server.url, "--email", "first-app@example.com",
                "--password", ClientTests.password,
            ])
        #expect(status == 0, "\(errors)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("today: Stretch done, streak 1"), "\(output)")
        // The plan covers today and the next six Days (REMIND-1's seven); done today, six remain.
        #expect(lines.contains("reminders: 6 planned for Stretch"), "\(output)")
        #expect(lines.contains("signed in: \(session.account.rawValue), route main(GlowRitual.MainTab.today)"))
        #expect(lines.contains { $0.hasPrefix("synced: ") && !$0.hasPrefix("synced: 0 ") }, "\(output)")

        // What it left: the goal, its reminder and the tap on disk, and the feed's sync position kept.
        let data = try RitualDatabase.snapshot(path: database)
        let stretch = try #require(data.goals.values.first { $0.title == "Stretch" })
        #expect(stretch.reminders?.times == [18 * 60 + 30])
        #expect(data.checkIns(of: stretch.id).count == 1)
        let reopened = try await RitualDatabase(path: database)
        await #expect(try reopened.deviceValue("feed.cursor").map { !$0.isEmpty } == true)
        // The backup opens with its passphrase and holds the same person.
        let backup = try [UInt8](Data(contentsOf: URL(fileURLWithPath: database + ".backup.glow")))
        let plain = try BundleEnvelope.open(backup, secret: .passphrase("a long passphrase"))
        #expect(try BundleReader().importing(plain, into: DataSet()) == data)
    }

    @Test("relaunched on its database and secrets, glow-first-app is signed in already: it syncs with no sign-in")
    func relaunch() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (client, confirmed) = try await ClientTests.account("relaunch", on: server)
        let database = server.folder + "/relaunch.sqlite"
        let secrets = FileSecretStore(database: database)
        // The first process signs in and taps.
        let first = try ServerExecutableTests.run(
            "glow-first-app",
            [
                "--database", database, "--server", server.url, "--email", "relaunch@example.com",
                "--password", ClientTests.password,
            ])
        #expect(first.0 == 0 && first.1.contains("session: signed in now"), "\(first)")
        let kept = try #require(try secrets.keptSession())
        #expect(kept.session.account == confirmed.account)

        // The second has no password to sign in with: it is signed in, syncs and sees the first's tap.
        let second = try ServerExecutableTests.run("glow-first-app", ["--database", database, "--server", server.url])
        #expect(second.0 == 0, "\(second.2)")
        let lines = second.1.split(separator: "\n").map(String.init)
        #expect(lines.contains("session: kept from an earlier launch"), "\(second.1)")
        #expect(lines.contains("today: Stretch done, streak 1"), "\(second.1)")
        #expect(lines.contains("signed in: \(confirmed.account.rawValue), route main(GlowRitual.MainTab.today)"))
        #expect(lines.contains { $0.hasPrefix("synced: ") && !$0.hasPrefix("synced: 0 ") }, "\(second.1)")
        let data = try RitualDatabase.snapshot(path: database)
        let stretches = data.goals.values.filter { $0.title == "Stretch" }
        #expect(stretches.count == 1 && data.checkIns(of: stretches[0].id).count == 1)
        // No sign-in was made: the account holds the confirmation's session and the first run's.
        let keeper = SessionKeeper(client: client, session: confirmed)
        #expect(try await keeper.sessions().count == 2)

        // A third finds its access token expired: it renews the session before its first call,
        // keeps the new pair, and syncs.
        let stale = try #require(try secrets.keptSession())
        let expired = ClientSession(
            account: stale.session.account, id: stale.session.id, accessToken: stale.session.accessToken,
            refreshToken: stale.session.refreshToken, accessExpiry: .epoch,
            refreshExpiry: Instant(stale.session.refreshExpiry))
        try secrets.keep(expired, server: stale.server)
        let third = try ServerExecutableTests.run("glow-first-app", ["--database", database, "--server", server.url])
        #expect(third.0 == 0 && third.1.contains("session: kept from an earlier launch"), "\(third)")
        let renewed = try #require(try secrets.keptSession())
        #expect(renewed.session.refreshToken != stale.session.refreshToken, "the session was renewed and kept")
        #expect(renewed.session.accessExpiresAt > UInt64(Instant.now.millisecondsSince1970))

        // The tokens are in the secret store, and in none of the database's files.
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            bytes += try Data(contentsOf: URL(fileURLWithPath: database + suffix))
        }
        for token in [stale.session.accessToken, stale.session.refreshToken, renewed.session.refreshToken] {
            #expect(bytes.range(of: Data(token.utf8)) == nil, "a token is in the database's files")
        }
        #expect(bytes.range(of: Data(confirmed.account.rawValue.utf8)) != nil, "the scan reads the files")
    }

    @Test("glow-first-app without its arguments says how to run it, and without a password signs nobody in")
    func usage() throws {
        let (status, _, errors) = try ServerExecutableTests.run("glow-first-app", [])
        #expect(status == 64 && errors.contains("usage: glow-first-app"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-first-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let signedOut = try ServerExecutableTests.run(
            "glow-first-app",
            ["--database", folder.appendingPathComponent("a.sqlite").path, "--server", "http://127.0.0.1:9"])
        #expect(signedOut.0 == 64 && signedOut.2.contains("usage: glow-first-app"), "\(signedOut)")
    }
}
