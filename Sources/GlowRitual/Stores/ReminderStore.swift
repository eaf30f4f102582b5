import GlowCore
import GlowModel
import GlowReminders
import GlowStorage
import GlowStreaks
import Observation

/// The person's local notifications of the coming Days (Spec/reminders.md), kept current over the
/// durable goal store: each committed change re-plans only the goals it touched (REMIND-11), and
/// says what to cancel and what to add, so an app hands the platform's scheduler the difference
/// and never the whole plan again. Snoozes are kept in the database beside the device's other
/// values, so a relaunch plans them as before.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class ReminderStore {
    /// The plan as of the last change: the notifications to have scheduled, in order.
    public private(set) var plan: ReminderPlan
    /// The last difference the plan made: what to cancel and add; nil before the first change.
    public private(set) var lastChange: ReminderChange?

    /// The device value that keeps the snoozes.
    static let snoozesKey = "reminders.snoozes"

    @ObservationIgnored private var keeper: ReminderKeeper
    @ObservationIgnored private let goals: GoalStore
    @ObservationIgnored private let database: RitualDatabase
    @ObservationIgnored private var observation: DatabaseObservation? = nil
    @ObservationIgnored private let heard = ChangeObservers<ReminderChange>()

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
            evaluations = Dictionary(uniqueKeysWithValues: goals.rows.map { ($0.id, $0.evaluation) })
        }
    }

    /// The reminders of `goals`' person over `days` Days (1 ... 31), with the snoozes the
    /// database keeps.
    ///
    /// - Throws: ``ReminderStoreError``: `model` with ``ModelError/Code/invalidReminder`` for
    ///   `days` outside 1 ... 31; `store` when the snoozes cannot be read.
    public init(goals: GoalStore, database: RitualDatabase, days: Int = 7) throws(ReminderStoreError) {
        self.goals = goals
        self.database = database
        let snoozes: [Snooze]
        do {
            snoozes = try Self.snoozes(from: try database.deviceValue(Self.snoozesKey), path: database.path)
        } catch {
            throw .store(error)
        }
        do {
            keeper = try ReminderKeeper(source: Source(goals), days: days, snoozes: snoozes)
        } catch {
            throw .model(error)
        }
        plan = keeper.plan
        observation = goals.heard.add { [weak self] change in
            MainActor.assumeIsolated { self?.apply(change) }
        }
    }

    /// Every difference the plan makes from now on, each once: cancel its ids, then add its
    /// notifications.
    public func changes() -> AsyncStream<ReminderChange> { heard.stream() }

    /// Snoozes `goal`'s reminder at `now` (REMIND-8): kept in the database, then planned.
    ///
    /// - Throws: ``ReminderStoreError/store(_:)`` when the snooze cannot be kept; the plan is as
    ///   it was.
    public func snooze(_ goal: GoalID, at now: Instant = .now) throws(ReminderStoreError) {
        var next = keeper
        let change = next.snooze(Snooze(goal: goal, at: now), source: Source(goals))
        // A snooze older than a day has long fired: it is not kept.
        let kept = next.snoozes.filter { $0.at.millisecondsSince1970 >= now.millisecondsSince1970 - 86_400_000 }
        do { try database.setDeviceValue(Self.bytes(of: kept), for: Self.snoozesKey) } catch { throw .store(error) }
        take(next, change)
    }

    /// Moves the plan's clock to `now`: what it has passed leaves the plan, and a new Day plans
    /// every goal again. The goal store's Day moves first.
    public func refresh(now: Instant = .now) {
        goals.refresh(now: now)
        var next = keeper
        let change = next.refresh(Source(goals), touching: [])
        take(next, change)
    }

    /// Takes in a committed change the goal store shows.
    private func apply(_ change: DatabaseChange) {
        var next = keeper
        let difference = next.refresh(Source(goals), touching: change.changes.map { $0.affectedGoals })
        take(next, difference)
    }

    /// Shows the keeper's new plan and tells what changed, when anything did.
    private func take(_ next: ReminderKeeper, _ change: ReminderChange) {
        keeper = next
        guard !change.isEmpty else { return }
        plan = next.plan
        lastChange = change
        heard.notify(change)
    }

    /// The snoozes as the device keeps them: a line `goal-id milliseconds` each.
    static func bytes(of snoozes: [Snooze]) -> [UInt8] {
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
