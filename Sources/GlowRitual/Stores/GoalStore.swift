import Foundation
import GlowModel
import GlowStorage
import GlowStreaks
import Observation

/// One goal as the Today and Overview screens show it. Each row is observable on its own, so a
/// tap re-evaluates and notifies its goal's row and no other; a property is set only when its
/// value changes, so an observer hears exactly what changed.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class GoalRow: Identifiable {
    /// The goal's id.
    public let id: GoalID
    /// The goal as stored.
    public private(set) var goal: Goal
    /// Its status on the store's Day: pending, partial, done or skipped.
    public private(set) var status: DayStatus
    /// Whether it is on the Day's Today list (STREAK-22).
    public private(set) var isOnToday: Bool
    /// Today's share of the Day's target (or the completion), in thousandths.
    public private(set) var thousandths: Int
    /// The current streak in Days.
    public private(set) var currentStreak: Int
    /// The longest streak in Days.
    public private(set) var longestStreak: Int
    /// The goal's strength in thousandths (STREAK-27), nil for one-off kinds.
    public private(set) var strength: Int?
    /// Why the strength moved this week, as a line beside it: "up 6.0 points this week: 6 of 7
    /// done" (STREAK-29); nil for one-off kinds.
    public private(set) var strengthWeek: String?
    /// How often this row was evaluated: a tap on another goal leaves it as it is.
    public private(set) var evaluations = 0
    /// The evaluation the row shows, kept so a tap on a recent Day resumes its walk.
    @ObservationIgnored private(set) var evaluation: GoalEvaluation

    init(_ evaluation: GoalEvaluation) {
        id = evaluation.goal.id
        goal = evaluation.goal
        status = evaluation.status(on: evaluation.today)
        isOnToday = evaluation.isOnToday
        thousandths = TodayQuery.item(evaluation)?.thousandths ?? 0
        currentStreak = evaluation.currentStreak?.length ?? 0
        longestStreak = evaluation.longestStreak?.length ?? 0
        strength = evaluation.strength?.thousandths
        strengthWeek = evaluation.strength?.weekSummary(last7: evaluation.consistency(lastDays: 7))
        evaluations = 1
        self.evaluation = evaluation
    }

    /// Shows `evaluation`, a new one of the goal.
    func update(_ evaluation: GoalEvaluation) {
        self.evaluation = evaluation
        show()
    }

    /// Takes in a change to the goal's check-ins on `days`, the goal itself unchanged: the kept
    /// evaluation resumes its walk when it can (``GoalEvaluation/update(checkInsChangedOn:history:)``).
    func update(checkInsChangedOn days: [Day], history: CheckInHistory) {
        evaluation.update(checkInsChangedOn: days, history: history)
        show()
    }

    private func show() {
        evaluations += 1
        func set<Value: Equatable>(_ path: ReferenceWritableKeyPath<GoalRow, Value>, _ value: Value) {
            if self[keyPath: path] != value { self[keyPath: path] = value }
        }
        set(\.goal, evaluation.goal)
        set(\.status, evaluation.status(on: evaluation.today))
        set(\.isOnToday, evaluation.isOnToday)
        set(\.thousandths, TodayQuery.item(evaluation)?.thousandths ?? 0)
        set(\.currentStreak, evaluation.currentStreak?.length ?? 0)
        set(\.longestStreak, evaluation.longestStreak?.length ?? 0)
        set(\.strength, evaluation.strength?.thousandths)
        set(\.strengthWeek, evaluation.strength?.weekSummary(last7: evaluation.consistency(lastDays: 7)))
    }
}

/// Why a goal could not be added or changed.
public enum GoalStoreError: Error, Hashable, Sendable {
    /// The draft breaks the rules of a goal: each issue names its field (MODEL-45).
    case invalid([DraftIssue])
    /// The change was refused or could not be stored.
    case store(StoreError)
}

/// The goals of the app (issue 17): Today, the Overview's rows, adding from a draft or a
/// template, editing, archiving, deleting, tapping, undoing and filling in past Days, each
/// change committed to the database, on its executor, before the method returns.
///
/// The store hears every change committed to its database, whoever made it (this store, another
/// store on the same database, another process once the database reads it): each is applied
/// once, re-evaluating only the goals it touched. Evaluating every goal (at the start, on a new
/// Day, after another connection's commit or a week-start edit) is done off the main actor; the
/// rows show the last evaluation finished until then.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class GoalStore {
    /// Every live goal's row, in display order (creation, then id).
    public private(set) var rows: [GoalRow] = []
    /// The rows on the Day's Today list.
    public private(set) var today: [GoalRow] = []
    /// The Day the rows are evaluated for.
    public private(set) var day: Day
    /// The person's day boundary (UTC without a profile).
    public private(set) var boundary: DayBoundary

    @ObservationIgnored private let database: RitualDatabase
    @ObservationIgnored private let device: DeviceID
    @ObservationIgnored private var byID: [GoalID: GoalRow] = [:]
    /// Each row's evaluation, kept with the rows (what a reminder plan reads), so that handing them
    /// off the main actor shares this dictionary instead of copying every goal's evaluation.
    @ObservationIgnored private(set) var evaluations: [GoalID: GoalEvaluation] = [:]
    /// The data as last committed.
    @ObservationIgnored private var data: DataSet
    @ObservationIgnored private var observation: DatabaseObservation?
    /// The store's changes and new Days, one after another.
    @ObservationIgnored let lane = MainLane()
    /// Who hears each change once the store shows it.
    @ObservationIgnored let heard = ChangeObservers<DatabaseChange>()
    /// The instant the store's Day was last set from.
    @ObservationIgnored private(set) var now: Instant

    /// The goals of `database`, as of the Day `now` falls on for the person, evaluated off the
    /// main actor.
    ///
    /// - Throws: ``StoreError`` when the database's data cannot be read.
    public convenience init(database: RitualDatabase, device: DeviceID, now: Instant = .now) async throws(StoreError) {
        self.init(database: database, device: device, now: now, from: try await database.mainState())
        await lane.idle()
    }

    /// The goals as of `latest`, the state the main actor's stores were last given: the rows are
    /// made by the lane's first job, off the main actor.
    init(database: RitualDatabase, device: DeviceID, now: Instant, from latest: DatabaseChange) {
        self.database = database
        self.device = device
        data = latest.data
        boundary = latest.data.dayBoundary
        day = latest.data.dayBoundary.day(containing: now)
        self.now = now
        observation = database.observeOnMain { [weak self] change in
            guard let self else { return }
            await self.lane.run { await self.apply(change) }
        }
        lane.enqueue { [weak self] in await self?.rebuild() }
    }

    /// The row of a goal.
    public func row(_ id: GoalID) -> GoalRow? { byID[id] }

    /// The person's data as last committed.
    public var committed: DataSet { data }

    /// Every change committed to the database from now on (the store's own, another store's,
    /// another process's once read), each after the store shows it: reading ``rows`` in the loop
    /// sees the change.
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// The Overview as of the store's Day (STREAK-23): every live goal's streaks, consistency and
    /// grid of the last `weeks` weeks, from the evaluations the rows keep. A query over the
    /// committed data: an Overview screen reads it again when ``rows`` or a row it shows changes.
    ///
    /// - Complexity: O(g × w) for g goals and w weeks: no goal is evaluated again.
    public func overview(weeks: Int = 12) -> [OverviewItem] {
        rows.map { OverviewQuery.item($0.evaluation, weeks: weeks) }
    }

    // MARK: Changes

    /// Taps `goal` at `instant` (MODEL-57): committed, and shown, when this returns.
    public func tap(_ tap: CheckInTap, goal: GoalID, at instant: Instant = .now) async throws(StoreError) {
        let device = device
        try await commit { (data) throws(ModelError) in
            try data.tap(tap, goal: goal, at: instant, device: device, boundary: data.dayBoundary)
        }
    }

    /// Fills in a past Day (MODEL-58).
    public func backfill(_ tap: CheckInTap, goal: GoalID, on day: Day, at instant: Instant = .now)
        async throws(StoreError)
    {
        let device = device
        try await commit { (data) throws(ModelError) in
            try data.tap(tap, goal: goal, on: day, at: instant, device: device, boundary: data.dayBoundary)
        }
    }

    /// Undoes a goal's entry of `day` (the store's Day by default, MODEL-59).
    public func undo(goal: GoalID, on day: Day? = nil, at instant: Instant = .now) async throws(StoreError) {
        let (device, day) = (self.device, day ?? self.day)
        try await commit { (data) throws(ModelError) in
            try data.undo(goal: goal, on: day, at: instant, device: device)
        }
    }

    /// Adds a goal from a draft, checked field by field first (MODEL-45).
    ///
    /// - Throws: ``GoalStoreError/invalid(_:)`` with every issue of the draft, nothing stored.
    @discardableResult
    public func add(_ draft: GoalDraft, at instant: Instant = .now) async throws(GoalStoreError) -> Goal {
        let issues = draft.validate(today: day)
        guard issues.isEmpty else { throw .invalid(issues) }
        let goal: Goal
        do {
            goal = try draft.makeGoal(id: GoalID(UUID()), today: day, now: instant)
        } catch {
            throw .invalid([DraftIssue(error)])
        }
        do {
            try await commit { (data) throws(ModelError) in try data.add(goal) }
        } catch {
            throw .store(error)
        }
        return goal
    }

    /// Adds a goal from an Inspiration template: its draft, as the person may have changed it.
    @discardableResult
    public func add(
        template: GoalTemplate, at instant: Instant = .now, changing change: (inout GoalDraft) -> Void = { _ in }
    ) async throws(GoalStoreError) -> Goal {
        var draft = template.draft
        draft.templateID = template.id
        change(&draft)
        return try await add(draft, at: instant)
    }

    /// Edits a goal (MODEL-46); `change` runs on the database's executor, on the goal as committed.
    public func edit(
        _ goal: GoalID, at instant: Instant = .now, _ change: @escaping @Sendable (inout Goal.Changes) throws -> Void
    ) async throws(StoreError) {
        try await commit { (data) throws(ModelError) in try data.editGoal(goal, at: instant, change) }
    }

    /// Archives a goal from `day` on (MODEL-47).
    public func archive(_ goal: GoalID, from day: Day? = nil, at instant: Instant = .now) async throws(StoreError) {
        let day = day ?? self.day
        try await commit { (data) throws(ModelError) in try data.archiveGoal(goal, from: day, at: instant) }
    }

    /// Deletes a goal: a tombstone that no older bundle can bring back (BUNDLE-23).
    public func delete(_ goal: GoalID, at instant: Instant = .now) async throws(StoreError) {
        try await commit { (data) throws(ModelError) in try data.deleteGoal(goal, at: instant) }
    }

    /// Moves the store to the Day `now` falls on (the app calls this when a new Day begins): every
    /// goal is evaluated again for it, off the main actor.
    public func refresh(now: Instant = .now) async {
        await lane.run {
            if now > self.now { self.now = now }
            let next = self.boundary.day(containing: now)
            guard next != self.day else { return }
            self.day = next
            await self.rebuild()
        }
    }

    // MARK: Re-evaluation

    /// Commits a change on the database's executor; the store shows it before this returns.
    private func commit(_ edit: @escaping @Sendable (inout DataSet) throws -> DataSet.Changes) async throws(StoreError)
    {
        _ = try await database.runShown { (database) throws(StoreError) in try database.perform(edit) }
    }

    /// Takes in a committed change: only the goals it touched are evaluated again, unless the
    /// profile (the week start) changed or anything may have (another connection's commits),
    /// when every goal is, off the main actor.
    private func apply(_ change: DatabaseChange) async {
        data = change.data
        if boundary != data.dayBoundary { boundary = data.dayBoundary }
        guard let changes = change.changes, !changes.profile else {
            await rebuild()
            heard.notify(change)
            return
        }
        defer { heard.notify(change) }
        var membership = false
        for id in changes.affectedGoals {
            guard let goal = data.goals[id], !goal.deleted else {
                membership = membership || byID[id] != nil
                continue
            }
            if let row = byID[id] {
                let wasOnToday = row.isOnToday
                // Let go of the kept copy first, so the row's evaluation changes in place.
                evaluations[id] = nil
                if changes.goals.contains(id) {
                    row.update(
                        GoalEvaluation(
                            goal: goal, history: data.history(of: id), weekStart: boundary.weekStart, today: day))
                } else {
                    // Only its check-ins changed: a tap on a recent Day resumes the goal's walk.
                    row.update(checkInsChangedOn: changes.days[id] ?? [], history: data.history(of: id))
                }
                evaluations[id] = row.evaluation
                membership = membership || row.isOnToday != wasOnToday
            } else {
                membership = true
            }
        }
        // Only the lists' members changed: the touched rows are already up to date.
        if membership { show(reevaluated: [:]) }
    }

    /// Evaluates every goal again, off the main actor, then shows them: rows already made are
    /// reused, so observers of a row stay attached to it.
    private func rebuild() async {
        let (data, day) = (data, day)
        let evaluations = await offMain {
            TodayQuery.evaluations(data, weekStart: data.dayBoundary.weekStart, today: day)
        }
        show(reevaluated: Dictionary(evaluations.map { ($0.goal.id, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Builds the lists again from the committed data: a goal in `reevaluated` shows that
    /// evaluation; a row already made is reused as it is; a new goal without one is evaluated here
    /// (one goal, as a change adds it).
    private func show(reevaluated: [GoalID: GoalEvaluation]) {
        let data = data
        let weekStart = data.dayBoundary.weekStart
        var next: [GoalID: GoalRow] = [:]
        var evaluations = self.evaluations
        self.evaluations = [:]
        // TodayQuery.order's order (creation, then id), sorting keys rather than whole goals.
        let keys = data.goals.values.lazy.filter { !$0.deleted }.map { ($0.createdAt, $0.id) }.sorted { $0 < $1 }
        let ordered = keys.map { _, id -> GoalRow in
            let row: GoalRow
            if let existing = byID[id] {
                if let evaluation = reevaluated[id] {
                    evaluations[id] = nil
                    existing.update(evaluation)
                    evaluations[id] = existing.evaluation
                }
                row = existing
            } else {
                guard let goal = data.goals[id] else { preconditionFailure("a key of a goal held") }
                row = GoalRow(
                    reevaluated[id]
                        ?? GoalEvaluation(goal: goal, history: data.history(of: id), weekStart: weekStart, today: day))
                evaluations[id] = row.evaluation
            }
            next[id] = row
            return row
        }
        for id in byID.keys where next[id] == nil { evaluations[id] = nil }
        self.evaluations = evaluations
        byID = next
        if rows.map(\.id) != ordered.map(\.id) { rows = ordered }
        let onToday = ordered.filter(\.isOnToday)
        if today.map(\.id) != onToday.map(\.id) { today = onToday }
    }
}
