import Foundation
import GlowClient
import GlowModel
import GlowRelay
import GlowRitual
import Testing

/// Content-free pushes through glow-server (REMIND-19 ... REMIND-21, issue 58): a device's sync
/// wakes the person's other devices, never itself, with a push that carries nothing; the woken
/// app syncs within its budget and shows what the other device did.
@Suite("Background pushes through glow-server", .serialized)
@MainActor
struct BackgroundPushTests {
    static func milliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a phone's sync wakes the person's tablet, not the phone; the tablet syncs within its budget")
    func syncWakesOtherDevices() async throws {
        let server = try TestServer(backgroundPushes: true)
        defer { server.stop() }
        let (client, first) = try await ClientTests.account("wake", on: server)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-wake-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let phone = try await RitualApp(
            path: folder.appendingPathComponent("phone.sqlite").path, device: DeviceID(high: 0xB1, low: 1),
            secrets: InMemorySecretStore())
        try await phone.signIn(first, client: client)
        try await phone.startSync()
        #expect(await phone.sync(within: .seconds(30)).isComplete)
        let tablet = try await RitualApp(
            path: folder.appendingPathComponent("tablet.sqlite").path, device: DeviceID(high: 0xB1, low: 2),
            secrets: InMemorySecretStore())
        try await tablet.signIn(
            try await client.signIn(email: "wake@example.com", password: ClientTests.password), client: client)
        try await tablet.pair(code: try await phone.offerPairing().description)
        // Each device registers its token in its own session.
        try await #require(phone.session).registerDevice(token: "tok-phone", timeZone: .utc)
        try await #require(tablet.session).registerDevice(token: "tok-tablet", timeZone: .utc)
        #expect(try server.relay.duePushes(at: Self.milliseconds() + 1_000) { _ in nil }.isEmpty)

        // A goal added on the phone goes out in the background: the log keeps its records.
        let goal = try await phone.addGoal(GoalDraft(title: "Swim", kind: .streak, schedule: .daily))
        await phone.backgroundSyncFinished()
        #expect(phone.syncFailure == nil)
        let pushes = try server.relay.duePushes(at: Self.milliseconds() + 1_000) { _ in nil }
        try #require(pushes.count == 1, "\(pushes)")
        let push = pushes[0]
        #expect(push.token == "tok-tablet" && push.person == first.account.rawValue)
        #expect(push.topic == "sync" && push.collapseID == "glow-sync")
        #expect(push.pushType == "background" && push.priority == 5)
        #expect(String(decoding: push.payload, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)

        // The tablet, woken by it, syncs within its budget and shows the phone's goal.
        #expect(tablet.goals.row(goal.id) == nil)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(push.payload)) as? [AnyHashable: Any])
        let report = try #require(await tablet.handleBackgroundPush(payload, within: .seconds(20)))
        #expect(report.isComplete && report.failure == nil, "\(report)")
        #expect(tablet.goals.row(goal.id) != nil)
        // A proof push, or any other, is not one to sync for.
        let proof: [AnyHashable: Any] = ["aps": ["content-available": 1], "glow-proof": "0123"]
        #expect(await tablet.handleBackgroundPush(proof, within: .seconds(1)) == nil)
        #expect(await tablet.handleBackgroundPush(["aps": ["alert": "hi"]], within: .seconds(1)) == nil)
    }
}
