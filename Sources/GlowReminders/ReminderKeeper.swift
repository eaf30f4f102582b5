import GlowModel
import GlowStreaks

/// A reminder plan kept current beside a ``Tracker`` (REMIND-11): each change re-plans only the
/// goals it touched, from the evaluations the tracker already keeps, and says what to cancel and
/// add. The plan always equals ``ReminderPlanner/plan(data:boundary:now:days:settings:person:snoozes:)``
/// of the tracker's data, boundary and clock.
///
/// ```swift
/// let update = try tracker.tap(.done, goal: id, at: .now, device: phone)
/// let change = keeper.refresh(tracker, after: update)   // cancel change.cancel, add change.add
/// ```
public struct ReminderKeeper: Sendable {
    /// The plan as of the tracker's last change.
    public private(set) var plan: ReminderPlan
    private var context: Context
    /// Every goal's notifications after the clock, in plan order, the limit not yet applied.
    private var all: [PlannedNotification] = []

    /// A plan for `tracker`'s data over `days` Days (1 ... 31).
    ///
    /// - Throws: ``ReminderError`` for a number of Days outside 1 ... 31.
    public init(
        tracker: Tracker, settings: [GoalID: GoalReminders], person: PersonReminders, days: Int = 7,
        snoozes: [Snooze] = []
    ) throws(ReminderError) {
        context = try Context(
            boundary: tracker.boundary, now: tracker.now, days: days, settings: settings, person: person,
            snoozes: snoozes)
        plan = ReminderPlan(ordered: [])
        replan(tracker, goals: Set(tracker.data.goals.keys))
    }

    /// Brings the plan up to date after `update` of `tracker`: the goals it touched, or every goal
    /// on a new Day or under a new boundary.
    ///
    /// - Complexity: the touched goals' notifications, then a merge of all of them.
    public mutating func refresh(_ tracker: Tracker, after update: Tracker.Update) -> ReminderChange {
        let previous = plan
        if tracker.boundary != context.placer.boundary || tracker.today != context.today {
            rebuild(tracker)
        } else {
            context.placer.now = tracker.now
            replan(tracker, goals: update.changes.affectedGoals)
        }
        return plan.change(from: previous)
    }

    /// Gives `goal` new settings (nil: none) and re-plans it.
    public mutating func setSettings(_ settings: GoalReminders?, for goal: GoalID, tracker: Tracker) -> ReminderChange {
        let previous = plan
        context.settings[goal] = settings
        context.placer.now = tracker.now
        replan(tracker, goals: [goal])
        return plan.change(from: previous)
    }

    /// Adds a snooze the person asked for (REMIND-8) and re-plans its goal.
    public mutating func snooze(_ snooze: Snooze, tracker: Tracker) -> ReminderChange {
        let previous = plan
        if context.snoozes[snooze.goal]?.contains(snooze) != true {
            context.snoozes[snooze.goal, default: []].append(snooze)
        }
        context.placer.now = tracker.now
        replan(tracker, goals: [snooze.goal])
        return plan.change(from: previous)
    }

    /// A new Day or boundary: every goal again, under a new context.
    private mutating func rebuild(_ tracker: Tracker) {
        // The settings, person and Days were checked when the keeper was made.
        let fresh = Context(
            boundary: tracker.boundary, now: tracker.now, checkedDays: context.days, settings: context.settings,
            person: context.person, snoozes: context.snoozes.values.flatMap { $0 })
        context = fresh
        all = []
        replan(tracker, goals: Set(tracker.data.goals.keys))
    }

    /// Plans `goals` again and merges them with the rest, which keep their order; then drops
    /// what the clock has passed (they lead the order) and applies the limit.
    ///
    /// - Complexity: the goals' notifications, then O(n) for n notifications in all.
    private mutating func replan(_ tracker: Tracker, goals: Set<GoalID>) {
        var fresh: [PlannedNotification] = []
        for id in goals {
            if let goal = tracker.data.goals[id], let evaluation = tracker.evaluation(of: id) {
                fresh += context.notifications(goal, evaluation, history: tracker.data.history(of: id))
            }
        }
        fresh.sort(by: PlannedNotification.precedes)
        var merged: [PlannedNotification] = []
        merged.reserveCapacity(all.count + fresh.count)
        var next = fresh.startIndex
        for notification in all where !goals.contains(notification.goal) {
            while next < fresh.endIndex, PlannedNotification.precedes(fresh[next], notification) {
                merged.append(fresh[next])
                next += 1
            }
            merged.append(notification)
        }
        merged += fresh[next...]
        let now = context.placer.now
        let past = merged.firstIndex { $0.at > now } ?? merged.endIndex
        merged.removeFirst(past)
        all = merged
        plan = ReminderPlan(ordered: all)
    }
}
