import GlowCore
import GlowModel
import GlowStreaks

/// What a reminder plan is made from: a person's data, its day boundary and clock, and the
/// evaluation of each live goal as of the clock's Day. A ``Tracker`` is one; an app's durable
/// goal store is another.
public protocol ReminderSource {
    /// The person's data.
    var data: DataSet { get }
    /// The day boundary in force.
    var boundary: DayBoundary { get }
    /// The clock: notifications at or before it are past.
    var now: Instant { get }
    /// The Day of ``now`` under ``boundary``.
    var today: Day { get }
    /// The evaluation of a live goal as of ``today``; nil for a goal that is not live.
    func evaluation(of goal: GoalID) -> GoalEvaluation?
}

extension Tracker: ReminderSource {}

/// A reminder plan kept current beside a ``Tracker`` or any other ``ReminderSource``
/// (REMIND-11): each change re-plans only the goals it touched, from the evaluations the source
/// already keeps, and says what to cancel and add. The plan always equals
/// ``ReminderPlanner/plan(data:boundary:now:days:person:snoozes:)`` of the source's data,
/// boundary and clock.
///
/// ```swift
/// let update = try tracker.tap(.done, goal: id, at: .now, device: phone)
/// let change = keeper.refresh(tracker, after: update)   // cancel change.cancel, add change.add
/// ```
public struct ReminderKeeper: Sendable {
    /// The plan as of the tracker's last change.
    public var plan: ReminderPlan { ReminderPlan(ordered: merged(limit: nil)) }
    private var context: Context
    /// Each goal's notifications in plan order (some perhaps passed by the clock since), with
    /// their order's numbers, which the merge compares.
    private var lists: [GoalID: List] = [:]

    private struct List {
        let items: [PlannedNotification]
        let keys: [PlannedNotification.OrderKey]

        init(_ ordered: [PlannedNotification]) {
            items = ordered
            keys = ordered.indices.map { PlannedNotification.OrderKey(ordered[$0], index: $0) }
        }
    }
    /// The plan's notifications: the first of all the lists after the clock, up to the limit.
    private var front: [PlannedNotification] = []

    /// A plan for `tracker`'s data over `days` Days (1 ... 31), with the goals' own settings and
    /// the profile's nudge, quiet hours and snooze length.
    ///
    /// - Throws: ``ModelError/Code/invalidReminder`` at `days` for a number of Days outside
    ///   1 ... 31.
    public init(tracker: Tracker, days: Int = 7, snoozes: [Snooze] = []) throws(ModelError) {
        try self.init(source: tracker, days: days, snoozes: snoozes)
    }

    /// A plan for `source`'s data over `days` Days (1 ... 31), as ``init(tracker:days:snoozes:)``.
    ///
    /// - Throws: ``ModelError/Code/invalidReminder`` at `days` for a number of Days outside
    ///   1 ... 31.
    public init(source: some ReminderSource, days: Int = 7, snoozes: [Snooze] = []) throws(ModelError) {
        context = try Context(
            boundary: source.boundary, now: source.now, days: days, person: Self.person(source), snoozes: snoozes)
        replan(source, goals: Set(source.data.goals.keys))
    }

    /// The snoozes the plan holds, oldest first within each goal.
    public var snoozes: [Snooze] { context.snoozes.keys.sorted().flatMap { context.snoozes[$0] ?? [] } }

    /// Brings the plan up to date after `update` of `tracker`: the goals it touched (a goal's
    /// edited settings among them), or every goal on a new Day, under a new boundary or with the
    /// profile's reminder settings changed.
    ///
    /// - Complexity: the touched goals' notifications, then the plan's first 64 taken from every
    ///   goal's list through a heap.
    public mutating func refresh(_ tracker: Tracker, after update: Tracker.Update) -> ReminderChange {
        refresh(tracker, touching: update.changes.affectedGoals)
    }

    /// Brings the plan up to date after a change to `source` that touched `goals` (nil: any goal
    /// may have changed), or every goal on a new Day, under a new boundary or with the profile's
    /// reminder settings changed. With no goal touched, it only drops what the clock has passed.
    ///
    /// - Complexity: as ``refresh(_:after:)``.
    public mutating func refresh(_ source: some ReminderSource, touching goals: Set<GoalID>?) -> ReminderChange {
        let previous = front
        if source.boundary != context.placer.boundary || source.today != context.today
            || Self.person(source) != context.person
        {
            rebuild(source)
        } else if let goals {
            context.placer.now = source.now
            replan(source, goals: goals)
        } else {
            rebuild(source)
        }
        return ReminderPlan.change(from: previous, to: front)
    }

    /// Adds a snooze the person asked for (REMIND-8) and re-plans its goal.
    public mutating func snooze(_ snooze: Snooze, tracker: Tracker) -> ReminderChange {
        self.snooze(snooze, source: tracker)
    }

    /// Adds a snooze the person asked for (REMIND-8) and re-plans its goal from `source`.
    public mutating func snooze(_ snooze: Snooze, source tracker: some ReminderSource) -> ReminderChange {
        let previous = front
        if context.snoozes[snooze.goal]?.contains(snooze) != true {
            context.snoozes[snooze.goal, default: []].append(snooze)
        }
        context.placer.now = tracker.now
        replan(tracker, goals: [snooze.goal])
        return ReminderPlan.change(from: previous, to: front)
    }

    /// The nudge, quiet hours and snooze length of `tracker`'s profile.
    private static func person(_ tracker: some ReminderSource) -> PersonReminders {
        tracker.data.profile?.reminders ?? .standard
    }

    /// A new Day, boundary or person's settings: every goal again, under a new context.
    private mutating func rebuild(_ tracker: some ReminderSource) {
        // The Days were checked when the keeper was made.
        let fresh = Context(
            boundary: tracker.boundary, now: tracker.now, checkedDays: context.days, person: Self.person(tracker),
            snoozes: context.snoozes.values.flatMap { $0 })
        context = fresh
        lists = [:]
        replan(tracker, goals: Set(tracker.data.goals.keys))
    }

    /// Plans `goals` again, then takes the plan's notifications from the front of every list.
    ///
    /// - Complexity: the goals' notifications, then O(k log g) for the first k of g lists.
    private mutating func replan(_ tracker: some ReminderSource, goals: Set<GoalID>) {
        for id in goals {
            if let goal = tracker.data.goals[id], let evaluation = tracker.evaluation(of: id) {
                let made = context.notifications(goal, evaluation)
                lists[id] = made.isEmpty ? nil : List(PlannedNotification.inPlanOrder(made))
            } else {
                lists[id] = nil
            }
        }
        front = merged(limit: ReminderPlan.limit)
    }

    /// The notifications of all lists after the clock, in plan order, the first `limit` of them
    /// (all when nil): a merge of the lists through a heap of their next notifications, which
    /// compares the order's numbers and copies only the notifications taken.
    private func merged(limit: Int?) -> [PlannedNotification] {
        let now = context.placer.now.millisecondsSince1970
        var heads: [List] = []
        var next: [Int] = []
        for list in lists.values {
            // What the clock has passed leads each list.
            let first = list.keys.partitioningIndex { $0.at > now }
            if first < list.keys.count {
                heads.append(list)
                next.append(first)
            }
        }
        var heap = Array(heads.indices)
        func before(_ a: Int, _ b: Int) -> Bool { heads[a].keys[next[a]] < heads[b].keys[next[b]] }
        func sink(_ start: Int) {
            var parent = start
            while true {
                var smallest = parent
                let left = 2 * parent + 1
                if left < heap.count, before(heap[left], heap[smallest]) { smallest = left }
                if left + 1 < heap.count, before(heap[left + 1], heap[smallest]) { smallest = left + 1 }
                guard smallest != parent else { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { sink(index) }
        var out: [PlannedNotification] = []
        out.reserveCapacity(Swift.min(limit ?? 0, ReminderPlan.limit))
        while let top = heap.first, out.count < (limit ?? Int.max) {
            out.append(heads[top].items[next[top]])
            next[top] += 1
            if next[top] == heads[top].keys.count {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { sink(0) }
        }
        return out
    }
}
