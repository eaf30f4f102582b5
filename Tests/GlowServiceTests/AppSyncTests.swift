import Foundation
import GlowBundle
import GlowClient
import GlowCore
import GlowModel
import GlowRitual
import GlowStorage
import GlowSync
import Testing

/// The person's own data on every device, through the app object (issue 46): the first device
/// turns sync on and shows a pairing code; a new device signs in, types it, and the data appears
/// with progress; a change on either reaches the other by the background push and the next pull;
/// a third device restores from the recovery words alone.
@Suite("The app's own data on every device", .serialized)
@MainActor
struct AppSyncTests {
    static let password = "correct horse battery staple"

    /// A person signed up on `server`; the session of the confirmation.
    static func person(_ server: TestServer, _ client: ServiceClient, _ address: String) async throws -> ClientSession {
        try await client.signUp(email: address, password: password)
        let token = try server.mailedToken(to: address, kind: "confirmSignUp")
        return try await client.confirmSignUp(token: token, password: password, device: "phone")
    }

    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-app-sync-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("pair a new device by code, restore a third by the words; changes reach every device")
    func pairAndRestore() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = ServiceClient(base: try #require(URL(string: server.url)))
        let address = "ivy-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        let first = try await Self.person(server, client, address)

        let phone = try await RitualApp(
            path: folder + "/phone.sqlite", device: DeviceID(high: 0xA1, low: 1), secrets: InMemorySecretStore())
        try await phone.signIn(first, client: client)
        let stretch = try await phone.addGoal(GoalDraft(title: "Stretch", kind: .streak, schedule: .daily))
        try await phone.goals.tap(.done, goal: stretch.id)
        let secret = try await phone.startSync()
        #expect(phone.syncsData)
        try await phone.syncData()
        let code = try await phone.offerPairing()

        // A new device: signed in, paired by the code, the data appears with progress.
        let tablet = try await RitualApp(
            path: folder + "/tablet.sqlite", device: DeviceID(high: 0xA1, low: 2), secrets: InMemorySecretStore())
        let second = try await client.signIn(email: address, password: Self.password, device: "tablet")
        try await tablet.signIn(second, client: client)
        let heard = ProgressLog()
        try await tablet.pair(code: code.description.lowercased(), progress: { heard.add($0) })
        await #expect(try tablet.database.data == phone.database.data)
        #expect(tablet.goals.row(stretch.id)?.currentStreak == 1)
        #expect(heard.last?.records ?? 0 >= 1 && heard.last?.more == false)
        // The code works once.
        let again = try await #require(throws: RitualAppError.self) { try await tablet.pair(code: code.description) }
        guard case .service(let failure) = again else {
            Issue.record("a second pairing failed as \(again)")
            return
        }
        #expect(failure.code.description == "sync_pairing_not_found")

        // A change on the tablet goes out in the background; the phone's next sync brings it.
        let read = try await tablet.addGoal(GoalDraft(title: "Read", kind: .streak, schedule: .daily))
        await tablet.backgroundSyncFinished()
        await #expect(try tablet.database.sync?.state.outbox.pending.isEmpty == true)
        try await phone.syncData()
        #expect(phone.goals.row(read.id) != nil)
        await #expect(try phone.database.data == tablet.database.data)

        // A third device with nothing but the words.
        let laptop = try await RitualApp(
            path: folder + "/laptop.sqlite", device: DeviceID(high: 0xA1, low: 3), secrets: InMemorySecretStore())
        let third = try await client.signIn(email: address, password: Self.password, device: "laptop")
        try await laptop.signIn(third, client: client)
        try await laptop.restoreSync(words: secret.words.joined(separator: " "))
        await #expect(try laptop.database.data == phone.database.data)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("the README's block: a first device, a paired one and one restored from the words hold the same data")
    func readme() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = ServiceClient(base: try #require(URL(string: server.url)))
        let address = "rue-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        var apps: [RitualApp] = []
        for (index, name) in ["phone", "tablet", "laptop"].enumerated() {
            let session =
                index == 0
                ? try await Self.person(server, client, address)
                : try await client.signIn(email: address, password: Self.password, device: name)
            let app = try await RitualApp(
                path: folder + "/\(name).sqlite", device: DeviceID(high: 0xA3, low: UInt64(index)),
                secrets: InMemorySecretStore())
            try await app.signIn(session, client: client)
            apps.append(app)
        }
        let (phone, tablet, laptop) = (apps[0], apps[1], apps[2])
        _ = try await phone.addGoal(GoalDraft(title: "Journal", kind: .streak, schedule: .daily))
        // README: begin
        let secret = try await phone.startSync()  // the first device: show secret.words to the person, once
        try await phone.syncData()  // its data goes up, sealed; later changes go in the background
        let code = try await phone.offerPairing()  // shown on the phone, typed on the tablet
        try await tablet.pair(code: code.description, progress: { shown in print(shown.records) })
        try await laptop.restoreSync(words: secret.words.joined(separator: " "))  // nothing but the words
        // README: end
        await #expect(try tablet.database.data == phone.database.data)
        await #expect(try laptop.database.data == phone.database.data)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a mistyped code is refused by name, and a device without sync cannot offer one")
    func refusals() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = ServiceClient(base: try #require(URL(string: server.url)))
        let session = try await Self.person(
            server, client, "ash-\(UUID().uuidString.prefix(6).lowercased())@example.com")
        let app = try await RitualApp(
            path: folder + "/a.sqlite", device: DeviceID(high: 0xA2, low: 1), secrets: InMemorySecretStore())
        try await app.signIn(session, client: client)
        let offered = try await #require(throws: RitualAppError.self) { _ = try await app.offerPairing() }
        guard case .store = offered else {
            Issue.record("offering without sync failed as \(offered)")
            return
        }
        let badCode = try await #require(throws: RitualAppError.self) { try await app.pair(code: "ABCD-EFGH-0000") }
        guard case .sync(let error) = badCode else {
            Issue.record("a bad code failed as \(badCode)")
            return
        }
        #expect(error.code == .invalidPairingCode)
        let unknown = try await #require(throws: RitualAppError.self) {
            try await app.pair(code: PairingCode.random().description)
        }
        guard case .service(let failure) = unknown else {
            Issue.record("an unknown code failed as \(unknown)")
            return
        }
        #expect(failure.code.description == "sync_pairing_not_found")
        #expect(!app.syncsData)
    }
}

/// Progress reports, heard from any thread.
final class ProgressLog: Sendable {
    private let reports = Locked<[SyncProgress]>([])
    func add(_ report: SyncProgress) { reports.withLock { $0.append(report) } }
    var last: SyncProgress? { reports.withLock { $0.last } }
}
