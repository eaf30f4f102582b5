import GlowModel

/// A person's data with its Today list, Overview and milestones kept current as it changes
/// (STREAK-26): what an app holds while it runs.
///
/// Every change goes through the data set's validating mutations (MODEL-56 ... MODEL-61) or its
/// merge, so local edits and imported data follow the same rules; the tracker then re-evaluates
/// only the goals the change touched. A tap re-evaluates its goal alone, and for a recurring goal
/// a tap on one of the last seven Days (or on the N-per-period period that reaches them) resumes
/// the goal's walk from a checkpoint kept before them: its streaks, consistency and strength
/// cost the same whether the goal is a week or ten years old. A tap further back, an edit of the
/// goal, a new Day, or a profile whose day boundary changed evaluates the goals concerned from
/// their start. The answers always equal a full evaluation of the data as of ``today``
/// (``TodayQuery/items(_:boundary:now:)``).
///
/// Each change returns an ``Update``: what changed in the data, and the milestones it reached or
/// revoked (STREAK-21), so a UI refreshes only what changed and a feed announces each milestone
/// once.
public struct Tracker: Sendable {
    /// The person's data.
    public private(set) var data: DataSet
    /// The day boundary in force: the profile's, or the one given when the data has no profile.
    public private(set) var boundary: DayBoundary
    /// The latest instant the tracker was told of; it never goes back.
    public private(set) var now: Instant
    /// The Day of ``now`` under ``boundary``: the Day Today is about.
    public private(set) var today: Day
    /// The evaluation of every live goal as of ``today``.
    private var evaluations: [GoalID: GoalEvaluation] = [:]
    /// Each live goal's Today item, nil when it is not on the list: kept beside its evaluation,
    /// so the list after a tap costs a lookup per goal.
    private var items: [GoalID: TodayItem?] = [:]
    /// The live goals in display order (STREAK-22).
    private var order: [GoalID] = []
    /// The instants of ``today`` under ``boundary``.
    private var todayInstants: Range<Instant>

    /// What one change did.
    public struct Update: Hashable, Sendable {
        /// The records that changed (MODEL-62).
        public var changes = DataSet.Changes()
        /// Milestones reached that the tracker did not know before, by goal identifier, then in
        /// order of reaching.
        public var newMilestones: [Milestone] = []
        /// Milestones known before that no streak reaches any more (STREAK-21), by goal, then
        /// streak start, then milestone.
        public var revokedMilestones: [Milestone.ID] = []
        /// Whether ``Tracker/today`` moved (every goal was evaluated again).
        public var newDay = false

        /// Whether nothing changed.
        public var isEmpty: Bool {
            changes.isEmpty && newMilestones.isEmpty && revokedMilestones.isEmpty && !newDay
        }
    }

    /// A tracker of `data` at `now`.
    ///
    /// - Parameter boundary: the day boundary for data without a profile; a profile's own
    ///   boundary always wins.
    /// - Throws: ``ModelError/Code/notFound`` when the data has no profile and no boundary is given.
    public init(data: DataSet, now: Instant, boundary: DayBoundary? = nil) throws(ModelError) {
        guard let chosen = data.profile?.boundary ?? boundary else {
            throw ModelError(
                .notFound, "the data has no profile, so the tracker needs a day boundary", path: "profile",
                rule: "STREAK-26")
        }
        self.data = data
        self.boundary = chosen
        self.now = now
        today = chosen.day(containing: now)
        todayInstants = chosen.instants(of: today)
        _ = evaluate(Set(data.goals.keys))
    }

    /// The Today list (STREAK-22).
    ///
    /// - Complexity: O(g) for g goals: the items are kept.
    public var todayItems: [TodayItem] {
        order.compactMap { items[$0]! }
    }

    /// The Overview, with a grid of the last `weeks` calendar weeks (STREAK-23).
    public func overview(weeks: Int = 12) -> [OverviewItem] {
        order.map { OverviewQuery.item(evaluations[$0]!, weeks: weeks) }
    }

    /// The evaluation of a live goal as of ``today``; nil for a goal that is deleted or not held.
    public func evaluation(of goal: GoalID) -> GoalEvaluation? { evaluations[goal] }

    /// Every milestone the live goals' streaks reach, by goal in display order.
    public var milestones: [Milestone] { order.flatMap { evaluations[$0]!.milestones } }

    // MARK: - Changes

    /// Moves the clock to `instant` (never back); on a new Day every goal is evaluated again.
    @discardableResult
    public mutating func advance(to instant: Instant) -> Update {
        refresh(DataSet.Changes(), clock: instant)
    }

    /// Records a tap now (``DataSet/tap(_:goal:at:device:boundary:)``); moves the clock to `instant`.
    @discardableResult
    public mutating func tap(_ tap: CheckInTap, goal: GoalID, at instant: Instant, device: DeviceID)
        throws(ModelError) -> Update
    {
        refresh(try data.tap(tap, goal: goal, at: instant, device: device, boundary: boundary), clock: instant)
    }

    /// Fills in a past Day (``DataSet/tap(_:goal:on:at:device:boundary:)``).
    @discardableResult
    public mutating func tap(_ tap: CheckInTap, goal: GoalID, on day: Day, at instant: Instant, device: DeviceID)
        throws(ModelError) -> Update
    {
        refresh(try data.tap(tap, goal: goal, on: day, at: instant, device: device, boundary: boundary), clock: instant)
    }

    /// Undoes a Day (``DataSet/undo(goal:on:at:device:)``).
    @discardableResult
    public mutating func undo(goal: GoalID, on day: Day, at instant: Instant, device: DeviceID) throws(ModelError)
        -> Update
    {
        refresh(try data.undo(goal: goal, on: day, at: instant, device: device), clock: instant)
    }

    /// Sets or removes a Day's note (``DataSet/setNote(_:goal:on:at:)``).
    @discardableResult
    public mutating func setNote(_ note: String?, goal: GoalID, on day: Day, at instant: Instant) throws(ModelError)
        -> Update
    {
        refresh(try data.setNote(note, goal: goal, on: day, at: instant), clock: instant)
    }

    /// Adds a goal (``DataSet/add(_:)``).
    @discardableResult
    public mutating func add(_ goal: Goal) throws(ModelError) -> Update {
        refresh(try data.add(goal), clock: nil)
    }

    /// Edits a goal (``DataSet/editGoal(_:at:_:)``).
    @discardableResult
    public mutating func editGoal(
        _ id: GoalID, at instant: Instant, _ change: (inout Goal.Changes) throws -> Void
    ) throws(ModelError) -> Update {
        refresh(try data.editGoal(id, at: instant, change), clock: instant)
    }

    /// Archives a goal (``DataSet/archiveGoal(_:from:at:)``).
    @discardableResult
    public mutating func archiveGoal(_ id: GoalID, from day: Day, at instant: Instant) throws(ModelError) -> Update {
        refresh(try data.archiveGoal(id, from: day, at: instant), clock: instant)
    }

    /// Unarchives a goal (``DataSet/unarchiveGoal(_:from:at:)``).
    @discardableResult
    public mutating func unarchiveGoal(_ id: GoalID, from day: Day, at instant: Instant) throws(ModelError) -> Update {
        refresh(try data.unarchiveGoal(id, from: day, at: instant), clock: instant)
    }

    /// Deletes a goal (``DataSet/deleteGoal(_:at:)``): it leaves both lists, and its milestones
    /// are revoked.
    @discardableResult
    public mutating func deleteGoal(_ id: GoalID, at instant: Instant) throws(ModelError) -> Update {
        refresh(try data.deleteGoal(id, at: instant), clock: instant)
    }

    /// Edits the profile (``DataSet/editProfile(at:_:)``); a new day boundary re-evaluates every goal.
    @discardableResult
    public mutating func editProfile(at instant: Instant, _ change: (inout Profile.Changes) throws -> Void)
        throws(ModelError) -> Update
    {
        refresh(try data.editProfile(at: instant, change), clock: instant)
    }

    /// Merges another device's data (``DataSet/merge(_:)``), as an import does.
    ///
    /// - Throws: ``ModelError/Code/invalidProfile`` when `other` holds another person's profile;
    ///   nothing changes then.
    @discardableResult
    public mutating func merge(_ other: DataSet) throws(ModelError) -> Update {
        if let theirs = data.otherPerson(in: other) {
            throw ModelError(
                .invalidProfile, "the data belongs to user \(theirs), this tracker's to \(data.profile!.userID)",
                path: "profile.userID", rule: "MODEL-61")
        }
        return refresh(data.merge(other), clock: nil)
    }

    // MARK: - Evaluation

    /// Brings the evaluations up to date after `changes`, with the clock moved to `clock`.
    private mutating func refresh(_ changes: DataSet.Changes, clock: Instant?) -> Update {
        let newBoundary = data.profile?.boundary ?? boundary
        var newToday = today
        if let clock, clock > now {
            now = clock
            // Today's instants are worked out once per Day: most changes happen within it.
            if !todayInstants.contains(now) { newToday = newBoundary.day(containing: now) }
        }
        if newBoundary != boundary { newToday = newBoundary.day(containing: now) }
        if newToday != today || newBoundary != boundary { todayInstants = newBoundary.instants(of: newToday) }
        var update = Update(changes: changes)
        update.newDay = newToday != today
        let everything = newBoundary != boundary || update.newDay
        boundary = newBoundary
        today = newToday
        let (new, revoked) = evaluate(
            everything ? Set(data.goals.keys) : changes.affectedGoals, changedDays: everything ? [:] : changes.days,
            changedGoals: changes.goals)
        update.newMilestones = new
        update.revokedMilestones = revoked
        return update
    }

    /// Evaluates `goals` again; returns the milestones that appeared and disappeared.
    ///
    /// A goal whose record is as it was (not in `changedGoals`) and whose check-ins changed only
    /// on recent Days (`changedDays`) resumes its walk from its checkpoint (``WalkCheckpoint``):
    /// a tap costs the same for a goal kept for a week or for years.
    private mutating func evaluate(
        _ goals: Set<GoalID>, changedDays: [GoalID: [Day]] = [:], changedGoals: Set<GoalID> = []
    ) -> ([Milestone], [Milestone.ID]) {
        var new: [Milestone] = []
        var revoked: [Milestone.ID] = []
        var orderChanged = false
        for id in goals.sorted() {
            if !changedGoals.contains(id), let day = changedDays[id]?.first, var evaluation = evaluations[id] {
                // Taken out first, so the evaluation's lists are not shared and change in place.
                evaluations[id] = nil
                if let before = evaluation.resume(history: data.history(of: id), changedFrom: day) {
                    evaluations[id] = evaluation
                    items[id] = TodayQuery.item(evaluation)
                    // Only the milestones after the checkpoint can have changed.
                    let after = evaluation.milestonesAfterCheckpoint
                    if !before.elementsEqual(after) {
                        let (reached, lost) = Milestone.changes(
                            announced: Set(before.map(\.id)), current: Array(after))
                        new += reached
                        revoked += lost
                    }
                    continue
                }
                evaluations[id] = evaluation
            }
            let before = evaluations[id]
            if let goal = data.goals[id], !goal.deleted {
                let after = GoalEvaluation(
                    goal: goal, history: data.history(of: id), weekStart: boundary.weekStart, today: today)
                evaluations[id] = after
                items[id] = TodayQuery.item(after)
                orderChanged = orderChanged || before == nil || before!.goal.createdAt != goal.createdAt
                // Most changes leave the milestones as they were: compared before any set is built.
                if before?.milestones != after.milestones {
                    let (reached, lost) = Milestone.changes(
                        announced: Set(before?.milestones.map(\.id) ?? []), current: after.milestones)
                    new += reached
                    revoked += lost
                }
            } else if let before {
                evaluations[id] = nil
                items[id] = nil
                orderChanged = true
                revoked += Milestone.changes(announced: Set(before.milestones.map(\.id)), current: []).revoked
            }
        }
        if orderChanged {
            order = TodayQuery.order(evaluations.values.map(\.goal)).map(\.id)
        }
        return (new, revoked)
    }
}
