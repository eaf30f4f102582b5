import GlowCore
import GlowModel
import GlowReminders
import GlowStorage
import GlowStreaks
import Observation

/// The person's local notifications of the coming Days (Spec/reminders.md), kept current over the
/// durable goal store: each committed change re-plans only the goals it touched (REMIND-11), and
/// says what to cancel and what to add, so an app hands the platform's scheduler the difference
/// and never the whole plan again. Planning runs off the main actor, one change after another; the
/// plan shows the last one finished. Snoozes are kept in the database beside the device's other
/// values, so a relaunch plans them as before.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class ReminderStore {
    /// The plan as of the last change: the notifications to have scheduled, in order.
    public private(set) var plan: ReminderPlan
    /// The last difference the plan made: what to cancel and add; nil before the first change.
    public private(set) var lastChange: ReminderChange?

    /// The device value that keeps the snoozes.
    nonisolated static let snoozesKey = "reminders.snoozes"

    @ObservationIgnored private var keeper: ReminderKeeper
    @ObservationIgnored private let goals: GoalStore
    @ObservationIgnored private let database: RitualDatabase
    @ObservationIgnored private var observation: DatabaseObservation? = nil
    @ObservationIgnored private let heard = ChangeObservers<ReminderChange>()
    /// The store's changes, new Days and snoozes, one after another.
    @ObservationIgnored let lane = MainLane()

    /// What a plan is made from: the goal store's committed data and the evaluations its rows
    /// keep, as of its Day and clock.
    struct Source: ReminderSource {
        let data: DataSet
        let boundary: DayBoundary
        let now: Instant
        let today: Day
        let evaluations: [GoalID: GoalEvaluation]

        func evaluation(of goal: GoalID) -> GoalEvaluation? { evaluations[goal] }

        @MainActor init(_ goals: GoalStore) {
            data = goals.committed
            boundary = goals.boundary
            now = goals.now
            today = goals.day
            evaluations = goals.evaluations
        }

        /// No goal yet, as of `goals`' Day: what a keeper is first made from, to check its Days.
        @MainActor init(emptyAs goals: GoalStore) {
            data = DataSet()
            boundary = goals.boundary
            now = goals.now
            today = goals.day
            evaluations = [:]
        }
    }

    /// The reminders of `goals`' person over `days` Days (1 ... 31), with the snoozes the
    /// database keeps, planned off the main actor.
    ///
    /// - Throws: ``ReminderStoreError``: `model` with ``ModelError/Code/invalidReminder`` for
    ///   `days` outside 1 ... 31; `store` when the snoozes cannot be read.
    public convenience init(goals: GoalStore, database: RitualDatabase, days: Int = 7) async throws(ReminderStoreError)
    {
        let latest: DatabaseChange
        do { latest = try await database.mainState() } catch { throw .store(error) }
        await goals.lane.idle()
        try self.init(goals: goals, database: database, days: days, from: latest)
        await lane.idle()
    }

    /// The reminders as of `latest`, the state the main actor's stores were last given: the plan
    /// is made by the lane's first job, off the main actor.
    ///
    /// - Throws: as ``init(goals:database:days:)``.
    init(goals: GoalStore, database: RitualDatabase, days: Int, from latest: DatabaseChange) throws(ReminderStoreError)
    {
        self.goals = goals
        self.database = database
        let snoozes: [Snooze]
        do {
            snoozes = try Self.snoozes(from: latest.deviceValues[Self.snoozesKey], path: database.path)
        } catch {
            throw .store(error)
        }
        do {
            // No goal yet: the Days are checked, and the whole plan is made off the main actor.
            keeper = try ReminderKeeper(source: Source(emptyAs: goals), days: days, snoozes: snoozes)
        } catch {
            throw .model(error)
        }
        plan = keeper.plan
        observation = database.observeOnMain { [weak self] change in
            guard let self else { return }
            await self.lane.run { await self.replan(touching: change.changes.map { $0.affectedGoals }) }
        }
        lane.enqueue { [weak self] in
            guard let self else { return }
            // The goal store's rows are evaluated off the main actor too: the plan reads them.
            await self.goals.lane.idle()
            let (next, _, plan) = await Self.planned(self.keeper, Source(self.goals), touching: nil)
            self.keeper = next
            self.plan = plan
        }
    }

    /// Every difference the plan makes from now on, each once: cancel its ids, then add its
    /// notifications.
    public func changes() -> AsyncStream<ReminderChange> { heard.stream() }

    /// Snoozes `goal`'s reminder at `now` (REMIND-8): kept in the database, then planned.
    ///
    /// - Throws: ``ReminderStoreError/store(_:)`` when the snooze cannot be kept; the plan is as
    ///   it was.
    public func snooze(_ goal: GoalID, at now: Instant = .now) async throws(ReminderStoreError) {
        let database = database
        let kept: Result<Void, StoreError> = await lane.run {
            let (keeper, source) = (self.keeper, Source(self.goals))
            let (next, change, plan, bytes) = await offMain {
                var next = keeper
                let change = next.snooze(Snooze(goal: goal, at: now), source: source)
                // A snooze older than a day has long fired: it is not kept.
                let kept = next.snoozes.filter {
                    $0.at.millisecondsSince1970 >= now.millisecondsSince1970 - 86_400_000
                }
                return (next, change, next.plan, Self.bytes(of: kept))
            }
            do throws(StoreError) {
                try await database.run { (database) throws(StoreError) in
                    try database.setDeviceValues([Self.snoozesKey: bytes])
                }
            } catch {
                return .failure(error)
            }
            self.take(next, change, plan)
            return .success(())
        }
        do { try kept.get() } catch { throw .store(error) }
        await database.main.settled()
    }

    /// Moves the plan's clock to `now`: what it has passed leaves the plan, and a new Day plans
    /// every goal again, off the main actor. The goal store's Day moves first.
    public func refresh(now: Instant = .now) async {
        await goals.refresh(now: now)
        await lane.run { await self.replan(touching: []) }
    }

    /// Plans again, off the main actor, after a change that touched `goals` (nil: any may have).
    private func replan(touching goals: Set<GoalID>?) async {
        let (next, change, plan) = await Self.planned(keeper, Source(self.goals), touching: goals)
        take(next, change, plan)
    }

    /// `keeper` brought up to date with `source`, the difference and the plan, worked out off the
    /// main actor.
    nonisolated private static func planned(_ keeper: ReminderKeeper, _ source: Source, touching goals: Set<GoalID>?)
        async -> (ReminderKeeper, ReminderChange, ReminderPlan)
    {
        await offMain {
            var next = keeper
            let change = next.refresh(source, touching: goals)
            return (next, change, next.plan)
        }
    }

    /// Shows the keeper's new plan (`plan`, worked out with it) and tells what changed, when
    /// anything did.
    private func take(_ next: ReminderKeeper, _ change: ReminderChange, _ plan: ReminderPlan) {
        keeper = next
        guard !change.isEmpty else { return }
        self.plan = plan
        lastChange = change
        heard.notify(change)
    }

    /// The snoozes as the device keeps them: a line `goal-id milliseconds` each.
    nonisolated static func bytes(of snoozes: [Snooze]) -> [UInt8] {
        Array(snoozes.map { "\($0.goal) \($0.at.millisecondsSince1970)" }.joined(separator: "\n").utf8)
    }

    /// The snoozes a device value holds.
    ///
    /// - Throws: ``StoreError/Code/corrupt`` for a line that does not read.
    static func snoozes(from bytes: [UInt8]?, path: String) throws(StoreError) -> [Snooze] {
        guard let bytes, !bytes.isEmpty else { return [] }
        var snoozes: [Snooze] = []
        for (index, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n").enumerated() {
            let corrupt = StoreError(.corrupt, "the kept snooze on line \(index + 1) does not read", path: path)
            let parts = line.split(separator: " ")
            guard parts.count == 2, let ms = Int64(parts[1]) else { throw corrupt }
            do {
                snoozes.append(Snooze(goal: try GoalID(String(parts[0])), at: try Instant(millisecondsSince1970: ms)))
            } catch {
                throw corrupt
            }
        }
        return snoozes
    }
}

/// Why the reminder store could not start or keep a snooze.
public enum ReminderStoreError: Error, Hashable, Sendable {
    /// A setting outside the rules (REMIND-1 ... REMIND-13).
    case model(ModelError)
    /// The database could not be read or written.
    case store(StoreError)
}
