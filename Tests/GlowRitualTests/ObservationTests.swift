import Foundation
import GlowCore
import GlowFeed
import GlowModel
import GlowStorage
import GlowStreaks
import GlowThemes
import Testing

@testable import GlowRitual

/// A count kept from any thread.
final class Counter: Sendable {
    private let value = Locked(0)
    var count: Int { value.withLock { $0 } }
    func add() { value.withLock { $0 += 1 } }
}

/// Stores that hear each other (issue 26): a change made through one store, through a second
/// database object on the file, or by another process, reaches every store that shows that data,
/// once; a storage failure is a typed error and leaves every store as it was.
@MainActor
@Suite("Stores hear each other")
struct ObservationTests {
    /// The stores of one screen over the sample person, and a count of the changes the database
    /// told its observers.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @MainActor final class Screen {
        let database: RitualDatabase
        let goals: GoalStore
        let profiles: ProfileStore
        let themes: ThemeStore
        let auth: AuthStore
        let counter = Counter()
        var observation: DatabaseObservation?

        init(_ database: RitualDatabase) async throws {
            self.database = database
            goals = try await GoalStore(database: database, device: DatabaseTests.device, now: StoreTests.now)
            profiles = try await ProfileStore(database: database)
            themes = ThemeStore(profiles: profiles)
            auth = try await AuthStore(database: database)
            observation = database.observe { [counter] _ in counter.add() }
        }

        /// Each row's evaluation count.
        func evaluations() -> [GoalID: Int] {
            Dictionary(uniqueKeysWithValues: goals.rows.map { ($0.id, $0.evaluations) })
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a week-start edit through the profile store reaches the goal store: every row evaluated again, once")
    func profileReachesGoals() async throws {
        let screen = try await Screen(try StoreTests.sample())
        let before = screen.evaluations()
        let weekStart = try #require(screen.profiles.profile?.boundary.weekStart)
        let other: Weekday = weekStart == .monday ? .sunday : .monday
        let rows = Heard.watching { _ = screen.goals.boundary }
        let boundary = try #require(screen.profiles.profile?.boundary)
        let moved = try DayBoundary(
            timeZone: boundary.timeZone, dayStartMinutes: boundary.dayStartMinutes, weekStart: other)
        try await screen.profiles.edit(at: StoreTests.later(1)) { $0.boundary = moved }
        #expect(rows.fired && screen.goals.boundary.weekStart == other)
        #expect(screen.evaluations() == before.mapValues { $0 + 1 }, "each row once")
        #expect(screen.counter.count == 1)
        // The Overview follows the new week start.
        let expected = OverviewQuery.items(
            try await screen.database.data, boundary: screen.goals.boundary, now: StoreTests.now, weeks: 4)
        #expect(screen.goals.overview(weeks: 4) == expected)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a theme chosen through the profile store shows in the theme store already open")
    func profileReachesTheme() async throws {
        let screen = try await Screen(try StoreTests.sample())
        let heard = Heard.watching { _ = screen.themes.theme }
        let ocean: Slug
        do { ocean = try Slug("ocean") }
        try await screen.profiles.edit(at: StoreTests.later(1)) { $0.themeID = ocean }
        #expect(heard.fired && screen.themes.theme == .ocean && !screen.themes.fellBack)
        #expect(screen.themes.palette == Theme.ocean.palette(.light))
        let untouched = screen.evaluations()
        try await screen.themes.choose("sunset", at: StoreTests.later(2))
        #expect(screen.profiles.profile?.themeID.rawValue == "sunset" && screen.themes.theme == .sunset)
        // A profile change re-evaluates the rows (the week start may have moved), once each.
        #expect(screen.evaluations() == untouched.mapValues { $0 + 1 })
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a second database object on the file: its change reaches the first one's stores at refresh, once")
    func secondConnection() async throws {
        let screen = try await Screen(try StoreTests.sample())
        let other = try await RitualDatabase(path: screen.database.path)
        let before = screen.evaluations()
        try await other.perform { (data) throws(ModelError) in
            try data.tap(
                .done, goal: StoreTests.meditate, at: StoreTests.now, device: DatabaseTests.device,
                boundary: data.dayBoundary)
        }
        try await other.setDeviceValues(["auth.flow": Array("pitch".utf8)])
        #expect(screen.goals.row(StoreTests.meditate)?.status == .pending, "not read before a refresh")
        await #expect(try screen.database.refresh())
        #expect(screen.goals.row(StoreTests.meditate)?.status == .done)
        #expect(screen.auth.flow == .pitch)
        #expect(screen.evaluations() == before.mapValues { $0 + 1 }, "each row once")
        #expect(screen.counter.count == 1)
        await #expect(try !screen.database.refresh(), "nothing new: nobody told again")
        #expect(screen.counter.count == 1)
        // A change through the first reads the second's first: nothing of it is lost or hidden.
        try await other.setDeviceValues(["auth.flow": Array("signInChoices".utf8)])
        try await screen.goals.tap(.done, goal: StoreTests.water, at: StoreTests.later(1))
        #expect(screen.auth.flow == .signInChoices)
        #expect(screen.counter.count == 3, "the other's change, then this one")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("glow-tool store tap in another process reaches the open app's stores at refresh")
    func anotherProcess() async throws {
        let screen = try await Screen(try await StoreTests.sample())
        let title = try #require(screen.goals.row(StoreTests.meditate)?.goal.title)
        let tool = Process()
        tool.executableURL = CrashTests.products.appendingPathComponent("glow-tool")
        tool.arguments = ["store", "tap", title, "--db", screen.database.path, "--day", "2026-11-28"]
        let output = Pipe()
        tool.standardOutput = output
        tool.standardError = output
        try tool.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 0, "\(printed)")
        let before = screen.evaluations()
        await #expect(try screen.database.refresh())
        #expect(screen.goals.row(StoreTests.meditate)?.status == .done)
        #expect(screen.evaluations() == before.mapValues { $0 + 1 })
        #expect(screen.counter.count == 1)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a write the file refuses is a typed error; every store and value stays as it was")
    func refusedWrite() async throws {
        let screen = try await Screen(try StoreTests.sample())
        try await screen.auth.startOnboarding()
        let refuse = try SQLiteConnection(path: screen.database.path, mode: .readWrite)
        try refuse.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON device_state BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
        await #expect {
            try await screen.auth.proceed()
        } throws: { error in
            guard case .store(let stored) = error as? AuthStoreError else { return false }
            return stored.code == .writeFailed && stored.message.contains("disk trouble")
        }
        #expect(screen.auth.flow == .pitch)
        await #expect(try screen.database.deviceValue("auth.flow") == Array("pitch".utf8), "a value, not nil")
        try refuse.execute("DROP TRIGGER refuse")
        try await screen.auth.proceed()
        #expect(screen.auth.flow == .signInChoices)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a feed log that no longer reads is an error at every read, never an empty feed or a signed-out device")
    func unreadableFeed() async throws {
        let database = try await StoreTests.sample()
        try await database.setDeviceValues(["auth.account": Array("mia".utf8), "feed.cursor": Array("12".utf8)])
        try SQLiteConnection(path: database.path, mode: .readWrite).execute(
            "INSERT INTO feed_log (delta) VALUES (x'ffffffff')")
        await #expect {
            try await database.refresh()
        } throws: { error in
            (error as? StoreError)?.code == .corrupt
        }
        await #expect(throws: StoreError.self) { try await database.deviceValue("auth.account") }
        await #expect(throws: StoreError.self) { try await database.feed }
        await #expect(throws: StoreError.self) { _ = try await RitualDatabase(path: database.path) }
        await #expect {
            _ = try await RitualApp(
                path: database.path, device: DatabaseTests.device, secrets: FileSecretStore(database: database.path))
        } throws: { error in
            guard case .store(let stored) = error as? RitualAppError else { return false }
            return stored.code == .corrupt
        }
    }
}
