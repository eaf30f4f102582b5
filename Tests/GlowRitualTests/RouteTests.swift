import Foundation
import GlowModel
import GlowStorage
import Testing

@testable import GlowRitual

/// The app's route follows from the auth and goal stores, and survives a restart (issue 17).
@MainActor
@Suite("App route")
struct RouteTests {
    static let now = try! Instant(rfc3339: "2026-11-28T10:00:00Z")

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("signed out, onboarding, welcome, main: each move heard and kept")
    func newPerson() async throws {
        let path = DatabaseTests.temporary()
        let app = try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now)
        #expect(app.route == .signedOut && app.activity == nil)
        let heard = Heard.watching { _ = app.route }
        try await app.auth.startOnboarding()
        #expect(heard.fired && app.route == .onboarding(.pitch))
        try await app.auth.proceed()
        try await app.auth.back()
        try await app.auth.proceed()
        #expect(app.route == .onboarding(.signInChoices))
        await #expect {
            try await app.auth.createdFirstGoal()
        } throws: { error in
            guard case .flow(let auth) = error as? AuthStoreError else { return false }
            return auth.code == .invalidTransition
        }
        try await app.signIn(DatabaseTests.session("mia"), client: DatabaseTests.offline)
        #expect(app.route == .welcome && app.activity?.person == "mia")
        try await app.addGoal(GoalDraft(title: "Stretch", kind: .streak, schedule: .daily), at: Self.now)
        #expect(app.route == .main(.today))
        app.auth.tab = .glow
        #expect(app.route == .main(.glow))
        // Opened again, the app is where it was, with mia's feed.
        let again = try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now)
        #expect(again.route == .main(.today) && again.account == "mia" && again.activity?.person == "mia")
        try await again.signOutOfThisDevice()
        #expect(again.route == .signedOut && again.activity == nil && again.account == nil)
        await #expect(
            try RitualApp(
                path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now
            ).route == .signedOut)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a first goal whose move past the welcome was never stored still leads to the main screen")
    func moveNotStored() async throws {
        let path = DatabaseTests.temporary()
        let app = try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now)
        try await app.auth.startOnboarding()
        try await app.auth.proceed()
        try await app.signIn(DatabaseTests.session("mia"), client: DatabaseTests.offline)
        try await app.addGoal(GoalDraft(title: "Stretch", kind: .streak, schedule: .daily), at: Self.now)
        // The file as a crash between the goal's commit and the move's would leave it.
        try await app.database.setDeviceValue(Array("welcome".utf8), for: "auth.flow")
        let stuck = try await AuthStore(database: app.database)
        #expect(stuck.flow == .welcome, "the flow as stored")
        let again = try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now)
        #expect(again.route == .main(.today), "the route follows the goals")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a person who has goals goes straight to the main screen")
    func returningPerson() async throws {
        let path = DatabaseTests.temporary()
        try await RitualDatabase(path: path).importBundle(
            try [UInt8](Data(contentsOf: DatabaseTests.root.appendingPathComponent("Spec/examples/sample.glow"))))
        let app = try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now)
        try await app.auth.startOnboarding()
        try await app.auth.proceed()
        try await app.signIn(DatabaseTests.session("mia"), client: DatabaseTests.offline)
        #expect(app.route == .main(.today))
    }

    /// Issue 45 friction 1: a sign-in right after a confirmed sign-up, with no onboarding screens,
    /// failed with `invalid_transition`; sign-in, sign-out and deletion now work from any screen.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test(
        "sign-in works from every state of the onboarding helper, and sign-out from every screen",
        arguments: SignInFlow.allCases)
    func signInFromAnywhere(_ start: SignInFlow) async throws {
        let path = DatabaseTests.temporary()
        let app = try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: Self.now)
        try await app.database.setDeviceValue(Array(start.rawValue.utf8), for: "auth.flow")
        try await app.signIn(DatabaseTests.session("mia"), client: DatabaseTests.offline)
        #expect(app.route == .welcome && app.account == "mia" && app.activity?.person == "mia")
        try await app.addGoal(GoalDraft(title: "Stretch", kind: .streak, schedule: .daily), at: Self.now)
        #expect(app.route == .main(.today))
        try await app.signOutOfThisDevice()
        #expect(app.route == .signedOut && app.account == nil && app.activity == nil)
        #expect(app.goals.rows.count == 1, "signing out keeps the person's goals")
        // Another person on the device reads their feed whole: the last one's position is gone.
        try await app.database.setDeviceValues(["feed.cursor": Array("41".utf8)])
        try await app.signIn(DatabaseTests.session("bob"), client: DatabaseTests.offline)
        await #expect(try app.database.deviceValue("feed.cursor") == [])
        #expect(app.route == .main(.today), "bob finds the device's goals")
    }
}
