import Foundation
import GlowActivity
import GlowBundle
import GlowFeed
import GlowModel
import GlowRelay
import GlowRitual
import Testing

/// README's GlowFeed and GlowRitual blocks, compiled and run (Tests/PackageTests/ReadmeBlocksTests.swift
/// checks that the code between each pair of markers is a block).
@MainActor
@Suite("README: GlowFeed and GlowRitual")
struct ReadmeAppTests {
    nonisolated static let now = try! Instant(rfc3339: "2026-11-28T09:00:00Z")

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a replica publishes, befriends and pages, and its social data rides in a bundle")
    func feed() throws {
        let profile = try Profile(
            userID: UserID(high: 1, low: 1), displayName: "Mia", boundary: .utc, createdAt: Self.now,
            modifiedAt: Self.now)
        let goal = try DatabaseTests.goal(1)
        let data = try DataSet(profile: profile, goals: [goal], checkIns: [])
        let today = profile.boundary.day(containing: Self.now)
        let ms = Self.now.millisecondsSince1970
        let options = BundleOptions(createdAt: Self.now)
        // README: begin
        var phone = FeedReplica()
        var clock = HybridClock(device: "mia-phone")
        try phone.publish(data, owner: "mia", boundary: profile.boundary, today: today, clock: &clock, now: ms)
        try phone.act(.request, from: "mia", toward: "bob", at: try clock.tick(now: ms))
        let page = try phone.page(for: "mia", limit: 20)  // newest first, with page.next
        let bytes = BundleWriter.bundle(data, social: SocialData(of: "mia", in: phone), options: options)
        // README: end
        #expect(page.next == nil, "one person's few items fit one page")
        var restored = DataSet()
        var chunks = [bytes]
        let result = try BundleReader().import(reading: { chunks.popLast() }, into: &restored)
        #expect(result.social == SocialData(of: "mia", in: phone) && restored == data)
    }

    /// A transport to an in-memory relay, shaped as an app's HTTP client would be.
    struct HTTP {
        let relay: FeedRelay
        let person: String
        func post(_ url: URL, _ body: [UInt8]) async throws -> [UInt8] {
            relay.handle(body, from: person, now: ReadmeAppTests.now.millisecondsSince1970)
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("the app taps durably, signs in from any screen, syncs through a transport and hears other processes")
    func app() async throws {
        let path = DatabaseTests.temporary()
        let phone = DatabaseTests.device
        let water = try DatabaseTests.goal(1).id
        do {
            let first = try await RitualApp(
                path: path, device: phone, secrets: FileSecretStore(database: path), now: Self.now)
            try await first.database.perform { data in try data.add(DatabaseTests.goal(1)) }
            try await first.auth.startOnboarding()
            try await first.auth.proceed()
        }
        let http = HTTP(relay: FeedRelay(), person: "mia")
        let relayURL = URL(string: "https://glow.example.com/v1/relay")!
        // Commits from another connection on the file, as another process's would be, until the
        // block has heard one.
        let other = Task.detached {
            let elsewhere = try await RitualDatabase(path: path)
            for count in 1... {
                try await Task.sleep(for: .milliseconds(100))
                try await elsewhere.setDeviceValue(Array("\(count)".utf8), for: "elsewhere")
            }
        }
        defer { other.cancel() }
        // A session a sign-in gave, with a server this test never calls.
        let (session, client) = (DatabaseTests.session("mia"), DatabaseTests.offline)
        // README: begin
        let app = try await RitualApp(path: path, device: phone, secrets: FileSecretStore(database: path))
        try await app.goals.tap(.count(1), goal: water)  // on disk when this returns; the main actor never waits
        try await app.signIn(session, client: client)  // the session a sign-in gave, from any screen
        try await app.activity?.sync(through: { bytes in try await http.post(relayURL, bytes) })
        for await _ in app.goals.changes() { break }  // the next commit, another process's too
        // README: end
        #expect(try RitualDatabase.snapshot(path: path).checkIns(of: water).count == 1)
        #expect(app.route == .main(.today) && app.activity?.person == "mia")
    }
}
