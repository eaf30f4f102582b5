import Dispatch
import Foundation
import GlowBundle
import GlowClient
import GlowCore
import GlowModel
import GlowRitual
import Observation

/// The app object on the main actor (issue 58), on the heavy person: every method of the app
/// object and its stores that runs there, 1,000 calls each, and how soon a tap reaches a view.
///
/// Two figures per method, each as p50, p99 and max. *Returns*: the wall time from the call to its
/// return, awaited on the main actor (for a change, the commit on the database's executor and every
/// store showing it, so it includes the disk's sync). *Main actor*: the longest the main actor was
/// busy at a stretch while the call ran, which is what a frame drawn meanwhile would wait: a probe
/// thread hands the main queue (the main actor's executor) an empty block every 0.2 ms and times how
/// late each runs. On a machine whose cores are busy with other work this also counts the time the
/// main actor's thread waited for a core; the idle figure, measured with no call running, says how
/// much.
@MainActor
enum AppBench {
    /// The budget of issue 58: a call's p99 on the main actor.
    static let callBudget = 0.004
    /// A tap's way to an observing view: one frame at 120 Hz.
    static let viewBudget = 0.008

    /// A thread that keeps asking the main queue to run an empty block and notes how late each
    /// ran: the longest delay while a call runs is the main actor's longest busy stretch in it.
    final class Probe: Sendable {
        private let latest = Locked<Double>(0)
        private let running = Locked(true)

        init() {
            Thread.detachNewThread { [self] in
                let done = DispatchSemaphore(value: 0)
                while running.withLock({ $0 }) {
                    let asked = DispatchTime.now().uptimeNanoseconds
                    DispatchQueue.main.async {
                        let late = Double(DispatchTime.now().uptimeNanoseconds - asked) / 1e9
                        self.latest.withLock { $0 = max($0, late) }
                        done.signal()
                    }
                    done.wait()
                    usleep(200)
                }
            }
        }

        /// The longest delay since the last call, starting again.
        func take() -> Double {
            latest.withLock { value in
                defer { value = 0 }
                return value
            }
        }

        /// Ends the thread.
        func stop() { running.withLock { $0 = false } }
    }

    /// One method's figures.
    struct Figures {
        var returns: [Double] = []
        var mainActor: [Double] = []
    }

    static func run() async throws {
        guard #available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *) else {
            say("app      skipped: the app object needs macOS 14")
            return
        }
        try await measureApp()
    }

    /// The measurements, where the app object is.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func measureApp() async throws {
        say("\n== app: the heavy person's app object on the main actor (1,000 calls each; p50, p99, max)")
        let (data, water, today) = try StoreBench.person()
        let work = try StoreBench.folder()
        defer { removeTemporary(work, section: "app") }
        let path = work.appendingPathComponent("app.sqlite").path
        // The person imported; the database closes at the end of the block, before the app opens it.
        do {
            let database = try await RitualDatabase(path: path, secrets: InMemorySecretStore())
            try await database.importBundle(BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch)))
        }
        let probe = Probe()
        defer { probe.stop() }
        // The main actor idle: how late the probe's blocks run when nothing else does.
        var idle: [Double] = []
        for _ in 0..<1_000 {
            _ = probe.take()
            do { try await Task.sleep(for: .milliseconds(1)) } catch { break }
            idle.append(probe.take())
        }
        say(
            "app      the main actor idle, a block's delay: \(milliseconds(StoreBench.percentile(idle, 0.5))), \(milliseconds(StoreBench.percentile(idle, 0.99))), \(milliseconds(idle.max() ?? 0)) (this machine's own wake-up and scheduling)"
        )
        let start = data.dayBoundary.firstInstant(of: today)!.millisecondsSince1970 + 12 * 3_600_000
        let now = try Instant(millisecondsSince1970: start)
        let clock = ContinuousClock()
        _ = probe.take()
        let opening = clock.now
        let app = try await RitualApp(
            path: path, device: StoreBench.device, secrets: InMemorySecretStore(), now: now,
            watchInterval: .seconds(3600))
        try await app.signIn(
            ClientSession(
                account: "bench", id: "bench", accessToken: "a", refreshToken: "r", accessExpiry: now,
                refreshExpiry: try now.adding(milliseconds: 86_400_000)),
            client: ServiceClient(base: URL(string: "http://127.0.0.1:9")!, retries: 0))
        let opened = (clock.now - opening).seconds
        say(
            "app      opening the app object (and signing in): \(milliseconds(opened)), the main actor busy at most \(milliseconds(probe.take())) at a stretch"
        )
        record("app", "open", opened)

        var wall = start
        func later() throws -> Instant {
            wall += 1
            return try Instant(millisecondsSince1970: wall)
        }
        var results: [(String, Figures)] = []
        /// Times `calls` calls of `body`, each awaited on the main actor, each after `before` (not
        /// timed). A failure of either ends the run, thrown with the method's name.
        func measure(
            _ name: String, calls: Int = 1_000, before: (Int) async throws -> Void = { _ in },
            _ body: (Int) async throws -> Void
        ) async throws {
            var figures = Figures()
            for index in 0..<calls {
                do {
                    try await before(index)
                } catch {
                    throw BenchFailure("\(name): \(error)")
                }
                _ = probe.take()
                let asked = clock.now
                do {
                    try await body(index)
                } catch {
                    throw BenchFailure("\(name): \(error)")
                }
                figures.returns.append((clock.now - asked).seconds)
                // The probe's block asked for meanwhile runs before this goes on: a call that never
                // gave up the main actor is measured whole.
                await Task.yield()
                figures.mainActor.append(probe.take())
            }
            results.append((name, figures))
        }

        let goals = app.goals
        let row = goals.row(water)!
        // Reads: from the stores' memory.
        try await measure("goals.row(_:)") { _ in blackHole(goals.row(water)) }
        try await measure("goals.overview(weeks: 12)") { _ in blackHole(goals.overview(weeks: 12)) }
        try await measure("app.route") { _ in blackHole(app.route) }
        try await measure("reminders.plan") { _ in blackHole(app.reminders.plan.notifications.count) }
        // A tap's way to a view: the row's observers hear it (Observation's onChange), and a
        // loop over the store's changes() is given it.
        let heardAt = Locked<ContinuousClock.Instant?>(nil)
        var observed: [Double] = []
        var streamed: [Double] = []
        let changes = goals.changes()
        let arrivals = Locked<[ContinuousClock.Instant]>([])
        let reader = Task.detached {
            for await _ in changes { arrivals.withLock { $0.append(ContinuousClock().now) } }
        }
        for _ in 0..<1_000 {
            heardAt.withLock { $0 = nil }
            withObservationTracking {
                _ = row.evaluations
            } onChange: {
                heardAt.withLock { $0 = ContinuousClock().now }
            }
            let count = arrivals.withLock { $0.count }
            let tapped = clock.now
            try await goals.tap(.count(1), goal: water, at: later())
            if let heard = heardAt.withLock({ $0 }) { observed.append((heard - tapped).seconds) }
            while arrivals.withLock({ $0.count }) == count { await Task.yield() }
            streamed.append((arrivals.withLock { $0[count] } - tapped).seconds)
        }
        reader.cancel()
        let view = StoreBench.percentile(observed, 0.99)
        let stream = StoreBench.percentile(streamed, 0.99)
        record("app", "tapToViewP99", view)
        record("app", "tapToChangesP99", stream)
        say(
            "app      a tap to an observing view (onChange of its row): \(milliseconds(StoreBench.percentile(observed, 0.5))), \(milliseconds(view)), \(milliseconds(observed.max() ?? 0)) over \(observed.count) taps (budget 8 ms)\(view <= viewBudget ? "" : "  OVER")"
        )
        say(
            "app      a tap to a loop over goals.changes(): \(milliseconds(StoreBench.percentile(streamed, 0.5))), \(milliseconds(stream)), \(milliseconds(streamed.max() ?? 0))\(stream <= viewBudget ? "" : "  OVER")"
        )

        // Changes: committed on the executor and shown before they return.
        try await measure("goals.tap(_:goal:at:)") { _ in try await goals.tap(.count(1), goal: water, at: later()) }
        // An undo takes back the Day's entry: a tap (not timed) gives each one an entry to undo.
        try await measure(
            "goals.undo(goal:on:at:)", before: { _ in try await goals.tap(.count(1), goal: water, at: later()) }
        ) {
            _ in try await goals.undo(goal: water, at: later())
        }
        // A goal with five years of history, filled in on the last four weeks' Days.
        let kept = data.sortedGoals[0].id
        try await measure("goals.backfill(_:goal:on:at:)") { index in
            try await goals.backfill(.skip, goal: kept, on: today.advanced(by: -(index % 28)), at: later())
        }
        try await measure("goals.edit(_:at:_:)") { index in
            try await goals.edit(water, at: later()) { $0.title = "Water \(index)" }
        }
        // A snooze an hour after the last: a day keeps a day's snoozes, as a person's would.
        try await measure("reminders.snooze(_:at:)") { index in
            try await app.reminders.snooze(water, at: try now.adding(milliseconds: Int64(index) * 3_600_000))
        }
        try await measure("profile.edit(at:_:)") { index in
            try await app.profile.edit(at: later()) { $0.displayName = "Bench \(index)" }
        }
        try await measure("theme.choose(_:at:)") { index in
            try await app.theme.choose(index % 2 == 0 ? "ocean" : "forest", at: later())
        }
        try await measure("activity.act(_:toward:now:)") { index in
            try await app.activity?.act(.request, toward: PersonID("friend-\(index)"), now: later())
        }
        // To tomorrow and back, so the changes after it stay on today.
        try await measure("app.refresh(now:), a new Day each") { index in
            try await app.refresh(now: index % 2 == 0 ? now.adding(milliseconds: 86_400_000) : later())
        }
        var added: [GoalID] = []
        try await measure("app.addGoal(_:at:)") { index in
            added.append(
                try await app.addGoal(GoalDraft(title: "Added \(index)", kind: .streak, schedule: .daily), at: later())
                    .id)
        }
        try await measure("goals.delete(_:at:)") { index in try await goals.delete(added[index], at: later()) }

        // Whole-data-set work, a few times each: how long it takes, and how long the main actor
        // was busy meanwhile.
        let bundle = work.appendingPathComponent("export.glow").path
        try await measure("app.export(to:) (whole data set)", calls: 5) { _ in try await app.export(to: bundle) }
        try await measure("activity.publish(now:) (whole data set)", calls: 5) { _ in
            try await app.activity?.publish(now: later())
        }
        try await measure("app.importBundle(from:) (whole data set)", calls: 5) { _ in
            try await app.importBundle(from: bundle)
        }
        try await measure("app.startSync() (whole data set)", calls: 1) { _ in try await app.startSync() }

        for (name, figures) in results {
            let main = StoreBench.percentile(figures.mainActor, 0.99)
            let returns = StoreBench.percentile(figures.returns, 0.99)
            let key = name.prefix { $0 != "(" && $0 != " " }
            record("app", "\(key).mainActorP99", main)
            record("app", "\(key).returnsP99", returns)
            say(
                "app      \(name): returns \(milliseconds(StoreBench.percentile(figures.returns, 0.5))), \(milliseconds(returns)), \(milliseconds(figures.returns.max() ?? 0)); the main actor busy at most \(milliseconds(StoreBench.percentile(figures.mainActor, 0.5))), \(milliseconds(main)), \(milliseconds(figures.mainActor.max() ?? 0))\(main <= callBudget ? "" : "  OVER 4 ms")"
            )
        }

    }
}
