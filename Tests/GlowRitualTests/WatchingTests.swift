import Foundation
import GlowModel
import GlowStorage
import Testing

@testable import GlowRitual

/// Watching the file for other writers, paused while the app is in the background, and the app
/// closed (issue 58). On Linux the watch reads `data_version` on a timer, the only way there.
@MainActor
@Suite("Pausing, resuming and closing the app's watch")
struct WatchingTests {
    /// An empty app on a new file, watching it every 20 ms.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func app() async throws -> RitualApp {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "glow-watch-\(UUID().uuidString).sqlite"
        )
        .path
        return try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: InMemorySecretStore(), now: AppDeveloperTests.now,
            watchInterval: .milliseconds(20))
    }

    /// Whether `app` shows goal `number` within `seconds`.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func shows(_ app: RitualApp, _ number: Int, within seconds: Double) async throws -> Bool {
        let id = try DatabaseTests.goal(number).id
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        while clock.now < end {
            if app.goals.row(id) != nil { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return app.goals.row(id) != nil
    }

    /// Adds goal `number` through `other`, another connection to the file.
    static func add(_ number: Int, through other: RitualDatabase) async throws {
        let goal = try DatabaseTests.goal(number)
        try await other.perform { (data) throws(ModelError) in try data.add(goal) }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a paused app reads nothing of another writer's commits; resuming reads what came meanwhile, then watches")
    func pauseAndResume() async throws {
        let app = try await Self.app()
        let other = try await RitualDatabase(path: app.database.path, secrets: InMemorySecretStore())
        #expect(app.isWatching)
        try await Self.add(1, through: other)
        #expect(try await Self.shows(app, 1, within: 5), "the watch did not read another writer's commit")

        app.pauseWatching()
        #expect(!app.isWatching)
        try await Self.add(2, through: other)
        // Fifteen of the watch's intervals: a watch still running would have read it.
        #expect(try await !Self.shows(app, 2, within: 0.3), "a paused app read the file")

        await app.resumeWatching()
        #expect(app.isWatching)
        #expect(try await Self.shows(app, 2, within: 0), "resuming did not read what came while paused")
        try await Self.add(3, through: other)
        #expect(try await Self.shows(app, 3, within: 5), "the watch did not start again")
        // Resuming twice starts one watch, and pausing stops it.
        await app.resumeWatching()
        app.pauseWatching()
        try await Self.add(4, through: other)
        #expect(try await !Self.shows(app, 4, within: 0.3), "a second watch was left running")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("close lets go of the file, stops the watch, and refuses every read and change after, closed")
    func close() async throws {
        let app = try await Self.app()
        let path = app.database.path
        _ = try await app.addGoal(GoalDraft(title: "Read", kind: .streak, schedule: .daily), at: AppDeveloperTests.now)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        await app.close()
        #expect(app.isClosed && !app.isWatching)
        // The last connection to the file closed: SQLite folded the write-ahead log in and removed it.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the app still holds the file")
        let refused = await #expect(throws: GoalStoreError.self) {
            _ = try await app.addGoal(GoalDraft(title: "Walk", kind: .streak, schedule: .daily))
        }
        guard case .store(let error)? = refused else {
            Issue.record("a change after close failed as \(String(describing: refused))")
            return
        }
        #expect(error.code == .closed)
        await #expect(throws: StoreError.self) { _ = try await app.database.data }

        // Another writer's commit is not read, and resuming does not open the file again.
        let other = try await RitualDatabase(path: path, secrets: InMemorySecretStore())
        try await Self.add(5, through: other)
        await app.resumeWatching()
        #expect(!app.isWatching)
        #expect(try await !Self.shows(app, 5, within: 0.3), "a closed app read the file")
        #expect(try await other.data.goals.count == 2)
    }
}
