import Foundation
import GlowBundle
import GlowModel
import GlowReminders
import GlowStorage
import Observation
import Testing

@testable import GlowRitual

/// Issue 45's frictions, each as an app developer's code against the app object: reminders set
/// with the goal and kept current, every store fed by every commit (another process's included)
/// with no refresh, export and import in both shapes with progress and cancellation, and the
/// app's own state observable.
@MainActor
@Suite("The app object, as an app developer uses it")
struct AppDeveloperTests {
    nonisolated static let now = try! Instant(rfc3339: "2026-11-28T10:00:00Z")
    /// A cheap Argon2id, so an encrypted export costs the tests little.
    nonisolated static let cheap = EnvelopeKDF(memoryKiB: 64, iterations: 1, parallelism: 1)

    /// An app over the sample person (goals, check-ins, a profile), watching its file often.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func sampleApp(now: Instant = now) async throws -> RitualApp {
        let path = try await StoreTests.sample().path
        return try await RitualApp(
            path: path, device: DatabaseTests.device, secrets: FileSecretStore(database: path), now: now,
            watchInterval: .milliseconds(20))
    }

    /// The first element `stream` gives within `seconds`, or nil.
    static func first<Element: Sendable>(of stream: AsyncStream<Element>, within seconds: Double = 10) async
        -> Element?
    {
        let reader = Task {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds))
            reader.cancel()
        }
        defer { watchdog.cancel() }
        return await reader.value
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("another process's tap reaches the app's stores and its change stream, with no refresh to call")
    func anotherProcessWithoutRefresh() async throws {
        let app = try await Self.sampleApp()
        let title = try #require(app.goals.row(StoreTests.meditate)?.goal.title)
        #expect(app.goals.row(StoreTests.meditate)?.status == .pending)
        let changes = app.goals.changes()
        let tool = Process()
        tool.executableURL = CrashTests.products.appendingPathComponent("glow-tool")
        tool.arguments = ["store", "tap", title, "--db", app.database.path, "--day", "2026-11-28"]
        tool.standardOutput = FileHandle.nullDevice
        try tool.run()
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 0)
        let change = await Self.first(of: changes)
        #expect(change != nil && change?.changes == nil, "another connection's commit: anything may have changed")
        #expect(app.goals.row(StoreTests.meditate)?.status == .done, "shown by the time the stream tells it")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a draft's reminders are stored with the goal in one commit, planned, and kept current by taps")
    func remindersWithTheGoal() async throws {
        let app = try await Self.sampleApp()
        let commits = Counter()
        let counting = app.database.observe { _ in commits.add() }
        let planned = app.reminders.changes()
        var draft = GoalDraft(title: "Evening walk", kind: .streak, schedule: .daily)
        draft.reminders = try GoalReminders(times: [18 * 60])
        let walk = try await app.addGoal(draft, at: Self.now)
        counting.cancel()
        #expect(commits.count == 1, "the goal and its reminders are one change")
        let added = try #require(await Self.first(of: planned))
        #expect(added.add.contains { $0.goal == walk.id && $0.kind == .due })
        // The kept plan is the whole planner's answer for the committed data.
        let data = app.goals.committed
        let whole = try ReminderPlanner.plan(data: data, boundary: data.dayBoundary, now: Self.now)
        #expect(app.reminders.plan == whole)
        // Done today: today's 18:00 is cancelled; the other Days stay.
        let today = try #require(
            app.reminders.plan.notifications.first { $0.goal == walk.id && $0.day == app.goals.day })
        try await app.goals.tap(.done, goal: walk.id, at: StoreTests.later(1))
        #expect(app.reminders.lastChange?.cancel.contains(today.id) == true)
        #expect(!app.reminders.plan.notifications.contains(today))
        #expect(app.reminders.plan.notifications.contains { $0.goal == walk.id && $0.day > app.goals.day })
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a snooze is kept in the database: the app opened again plans it as before")
    func snoozeSurvivesRelaunch() async throws {
        let app = try await Self.sampleApp()
        var draft = GoalDraft(title: "Stretch", kind: .streak, schedule: .daily)
        draft.reminders = try GoalReminders(times: [10 * 60 + 30])
        let stretch = try await app.addGoal(draft, at: Self.now)
        let at = try Instant(rfc3339: "2026-11-28T10:30:00Z")
        try await app.reminders.snooze(stretch.id, at: at)
        let snoozed = app.reminders.plan
        #expect(snoozed.notifications.contains { $0.goal == stretch.id && $0.kind == .snooze })
        let again = try await RitualApp(
            path: app.database.path, device: DatabaseTests.device,
            secrets: FileSecretStore(database: app.database.path), now: Self.now)
        #expect(again.reminders.plan == snoozed)
        // A kept snooze that does not read is an error, never a snooze silently lost.
        try await app.database.setDeviceValue(Array("not-a-goal 12".utf8), for: ReminderStore.snoozesKey)
        await #expect {
            _ = try await RitualApp(
                path: app.database.path, device: DatabaseTests.device,
                secrets: FileSecretStore(database: app.database.path), now: Self.now)
        } throws: { error in
            guard case .store(let stored) = error as? RitualAppError else { return false }
            return stored.code == .corrupt
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test(
        "export and import in both shapes carry the person whole, with progress",
        arguments: [false, true])
    func exportAndImport(encrypted: Bool) async throws {
        let app = try await Self.sampleApp()
        let file = DatabaseTests.temporary() + ".glow"
        let frames = Counter()
        let protection: BundleProtection =
            encrypted ? .passphrase("correct horse", recoveryKey: nil, kdf: Self.cheap) : .none
        let size = try await app.export(to: file, protection: protection, now: Self.now) { step in
            if step.frames > 0 { frames.add() }
        }
        #expect(size == (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int))
        #expect(frames.count > 0)
        let head = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)).prefix(8))
        #expect(BundleEnvelope.isEncrypted(head: head) == encrypted)

        let fresh = try await RitualApp(
            path: DatabaseTests.temporary(), device: DatabaseTests.device, secrets: InMemorySecretStore(), now: Self.now
        )
        if encrypted {
            await #expect {
                try await fresh.importBundle(from: file)
            } throws: { error in
                (error as? RitualAppError) == .encrypted(path: file)
            }
            await #expect {
                try await fresh.importBundle(from: file, secret: .passphrase("wrong"))
            } throws: { error in
                guard case .bundle(let bundle) = error as? RitualAppError else { return false }
                return bundle.code == .wrongPassphrase
            }
            #expect(fresh.goals.rows.isEmpty, "a refused import changes nothing")
        }
        let read = Counter()
        let result = try await fresh.importBundle(
            from: file, secret: encrypted ? .passphrase("correct horse") : nil, progress: { _ in read.add() })
        #expect(read.count > 0 && !result.changes.isEmpty)
        #expect(fresh.goals.committed == app.goals.committed)
        #expect(fresh.goals.rows.map(\.id) == app.goals.rows.map(\.id), "the stores show the import")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a cancelled export leaves no file, and a cancelled import changes nothing")
    func cancellation() async throws {
        let app = try await Self.sampleApp()
        let file = DatabaseTests.temporary() + ".glow"
        let export = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await app.export(to: file, now: Self.now)
        }
        await #expect {
            try await export.value
        } throws: { error in
            guard case .bundle(let bundle) = error as? RitualAppError else { return false }
            return bundle.code == .cancelled
        }
        #expect(!FileManager.default.fileExists(atPath: file))

        try await app.export(to: file, now: Self.now)
        let fresh = try await RitualApp(
            path: DatabaseTests.temporary(), device: DatabaseTests.device, secrets: InMemorySecretStore(), now: Self.now
        )
        let importing = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fresh.importBundle(from: file)
        }
        await #expect {
            try await importing.value
        } throws: { error in
            guard case .bundle(let bundle) = error as? RitualAppError else { return false }
            return bundle.code == .cancelled
        }
        await #expect(try fresh.database.data == DataSet())
        // A file that is not there is the store's error, naming it.
        await #expect {
            try await fresh.importBundle(from: file + ".missing")
        } throws: { error in
            guard case .store(let stored) = error as? RitualAppError else { return false }
            return stored.code == .cannotOpen && stored.path == file + ".missing"
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("the app object is observable: a view that reads the feed hears it open at sign-in and close at sign-out")
    func observableApp() async throws {
        let app = try await Self.sampleApp()
        #expect(app.activity == nil)
        let opened = Heard.watching { _ = app.activity }
        try await app.signIn(DatabaseTests.session("mia"), client: DatabaseTests.offline)
        #expect(opened.fired && app.activity?.person == "mia")
        let closed = Heard.watching { _ = app.activity }
        try await app.signOutOfThisDevice()
        #expect(closed.fired && app.activity == nil)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test(
        "reminders planned for a number of Days outside 1 ... 31 are refused with the model's error",
        arguments: [0, 32])
    func reminderDaysOutOfRange(_ days: Int) async throws {
        await #expect {
            _ = try await RitualApp(
                path: DatabaseTests.temporary(), device: DatabaseTests.device, secrets: InMemorySecretStore(),
                reminderDays: days)
        } throws: { error in
            guard case .store(let stored) = error as? RitualAppError else { return false }
            return stored.code == .refused && (stored.refusal as? ModelError)?.code == .invalidReminder
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("deleting an account with no session is a typed refusal, and nothing is erased")
    func deleteWithoutSession() async throws {
        let app = try await Self.sampleApp()
        await #expect {
            try await app.deleteAccount()
        } throws: { error in
            guard case .service(let failure) = error as? RitualAppError else { return false }
            return failure.code == .signedOut && failure.call == "delete-account"
        }
        #expect(!app.goals.rows.isEmpty && app.account == nil)
    }
}
