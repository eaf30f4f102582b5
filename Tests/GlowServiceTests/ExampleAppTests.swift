import Foundation
import GlowBundle
import GlowModel
import GlowRitual
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
        let reopened = try RitualDatabase(path: database)
        #expect(try reopened.deviceValue("feed.cursor").map { !$0.isEmpty } == true)
        // The backup opens with its passphrase and holds the same person.
        let backup = try [UInt8](Data(contentsOf: URL(fileURLWithPath: database + ".backup.glow")))
        let plain = try BundleEnvelope.open(backup, secret: .passphrase("a long passphrase"))
        #expect(try BundleReader().importing(plain, into: DataSet()) == data)
    }

    @Test("glow-first-app without its arguments says how to run it")
    func usage() throws {
        let (status, _, errors) = try ServerExecutableTests.run("glow-first-app", [])
        #expect(status == 64 && errors.contains("usage: glow-first-app"))
    }
}
