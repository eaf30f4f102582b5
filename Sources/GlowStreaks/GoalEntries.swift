import GlowCore
import GlowModel

/// A goal's entries (STREAK-3), sparse: only the Days that have one, in Day order, with what each
/// amounts to. Gathered in one pass over any number of check-ins; memory follows the check-ins,
/// never the number of calendar Days between the start Day and today.
struct GoalEntries: Sendable {
    /// The Days with an entry, ascending.
    private(set) var days: [Day] = []
    /// For recurring kinds: each Day's outcome (STREAK-5 ... STREAK-8).
    private(set) var outcomes: [DayOutcome] = []
    /// For one-off kinds: each Day's log, whose progress accumulates (STREAK-13).
    private(set) var logs: [CheckInLog] = []

    /// The index of the first entry on or after `day`.
    func firstIndex(atOrAfter day: Day) -> Int {
        days.partitioningIndex { $0 >= day }
    }

    /// The outcome of `day`: its entry's, or none.
    func outcome(on day: Day) -> DayOutcome {
        let index = firstIndex(atOrAfter: day)
        return index < days.count && days[index] == day ? outcomes[index] : .none
    }

    /// The index of `day`'s entry, if it has one.
    func index(of day: Day) -> Int? {
        let index = firstIndex(atOrAfter: day)
        return index < days.count && days[index] == day ? index : nil
    }

    var count: Int { days.count }

    fileprivate mutating func append(_ day: Day, outcome: DayOutcome) {
        days.append(day)
        outcomes.append(outcome)
    }

    fileprivate mutating func append(_ day: Day, log: CheckInLog) {
        days.append(day)
        logs.append(log)
    }
}

/// Collects one goal's check-ins and resolves them into ``GoalEntries`` (STREAK-3): the check-ins
/// that name one Day are merged (MODEL-54), and the Day's entry is the merged check-in's log
/// unless it is undone. Only Days in the goal's life up to `through` are kept.
struct EntryCollector {
    let goal: Goal
    let through: Day
    private var candidates: [(day: Day, order: Int, checkIn: CheckIn)] = []
    private var sorted = true

    init(goal: Goal, today: Day) {
        self.goal = goal
        through = Swift.min(today, goal.endDay ?? today)
    }

    /// Offers a check-in; one of another goal or outside the judged Days is ignored.
    mutating func add(_ checkIn: CheckIn) {
        guard checkIn.goalID == goal.id, !goal.deleted, checkIn.day >= goal.startDay, checkIn.day <= through
        else { return }
        if let last = candidates.last, last.day > checkIn.day { sorted = false }
        candidates.append((checkIn.day, candidates.count, checkIn))
    }

    /// The resolved entries. Entries on archived Days are left out (STREAK-1).
    func entries() -> GoalEntries {
        var list = candidates
        if !sorted { list.sort { ($0.day, $0.order) < ($1.day, $1.order) } }
        var builder = EntryBuilder(goal: goal)
        var index = 0
        while index < list.count {
            var merged = list[index].checkIn
            var next = index + 1
            while next < list.count, list[next].day == list[index].day {
                merged = merged.merging(list[next].checkIn)
                next += 1
            }
            builder.add(merged.day, deleted: merged.deleted) { merged.log }
            index = next
        }
        return builder.entries
    }
}

extension GoalEntries {
    /// The entries of a goal's history (STREAK-3), read from its columns: one per Day already, so
    /// nothing is merged and no check-in is built. Only Days in the goal's life from `from` (the
    /// start Day when nil) up to `today` are kept.
    ///
    /// - Complexity: O(log c + k) for c check-ins, k of them on the Days kept.
    init(goal: Goal, history: CheckInHistory, from: Day? = nil, today: Day) {
        let through = Swift.min(today, goal.endDay ?? today)
        let from = Swift.max(goal.startDay, from ?? goal.startDay)
        guard history.goalID == goal.id, !goal.deleted, from <= through else { return }
        let first = history.firstIndex(atOrAfter: from)
        let end = history.firstIndex(atOrAfter: through) + (history.index(of: through) == nil ? 0 : 1)
        let outcomeOf = goal.kind.isRecurring ? DayOutcome.evaluator(for: goal.kind) : nil
        let archived = goal.archiveHistory
        // The entries that count: not undone, not on an archived Day. Usually all of them.
        var (kept, keptDays) = history.liveEntries(in: first..<end)
        if !archived.isEmpty {
            var archive = 0
            var (inLife, lifeDays): ([Int], [Day]) = ([], [])
            for (index, day) in zip(kept, keptDays) {
                // Archive periods are in order and apart (MODEL-47), like the Days.
                while archive < archived.count, let until = archived[archive].until, until <= day { archive += 1 }
                guard !(archive < archived.count && archived[archive].contains(day)) else { continue }
                inLife.append(index)
                lifeDays.append(day)
            }
            (kept, keptDays) = (inLife, lifeDays)
        }
        days = keptDays
        guard let outcomeOf else {
            logs = kept.map { history.log(at: $0) }
            return
        }
        // A goal's Days repeat a few logs (done, the same count): each distinct log is judged
        // once, and its outcome shared by every Day that has it.
        outcomes = history.judgedByLog(kept) { outcomeOf(history.log(at: $0)) }
    }

    /// Replaces the entries on `day` and later with `tail`, whose Days are all on or after it.
    ///
    /// - Complexity: O(log n + k) for the k entries replaced and added.
    mutating func replaceTail(from day: Day, with tail: GoalEntries) {
        let index = firstIndex(atOrAfter: day)
        days.removeSubrange(index...)
        days += tail.days
        // Outcomes for recurring kinds, logs for one-off kinds: the other list is empty.
        outcomes.removeSubrange(Swift.min(index, outcomes.count)...)
        outcomes += tail.outcomes
        logs.removeSubrange(Swift.min(index, logs.count)...)
        logs += tail.logs
    }
}

/// Turns one goal's Days, in order and one each, into ``GoalEntries``: an undone Day and a Day
/// the goal was archived on have no entry (STREAK-1, STREAK-3).
private struct EntryBuilder {
    private(set) var entries = GoalEntries()
    private let outcomeOf: (@Sendable (CheckInLog) -> DayOutcome)?
    private let archived: [ArchivePeriod]
    private var archive = 0

    init(goal: Goal) {
        outcomeOf = goal.kind.isRecurring ? DayOutcome.evaluator(for: goal.kind) : nil
        archived = goal.archiveHistory
    }

    /// Adds `day`'s entry; `log` is read only when the Day has one.
    mutating func add(_ day: Day, deleted: Bool, log: () -> CheckInLog) {
        // Archive periods are in order and apart (MODEL-47), like the Days: walk them beside.
        while archive < archived.count, let until = archived[archive].until, until <= day { archive += 1 }
        let isArchived = archive < archived.count && archived[archive].contains(day)
        guard !deleted, !isArchived else { return }
        if let outcomeOf {
            entries.append(day, outcome: outcomeOf(log()))
        } else {
            entries.append(day, log: log())
        }
    }
}
