import GlowCore
import GlowModel

/// Everything GlowStreaks knows about one goal as of one Day: the status of every Day, streaks,
/// milestones, consistency and, for one-off kinds, completion (STREAK-1 ... STREAK-23).
///
/// Built in one walk over the goal's entries: runs of Days without an entry are judged by
/// arithmetic, never visited one by one, so a goal started in year 1, or a question about
/// 9999-12-31, costs what an ordinary goal does. Statuses and intensities are answered on demand
/// from the entries, looking at no more than the calendar period around the Day asked about.
/// - Complexity: O(c + e + a + p) to build, for c check-ins, e schedule entries, a archive periods
///   and p calendar periods that hold an entry or a boundary; memory O(c + e).
public struct GoalEvaluation: Sendable {
    /// The goal.
    public let goal: Goal
    /// The Day this evaluation is as of.
    public let today: Day
    /// The first Day of a week, for N-per-week schedules and weekly forgiveness.
    public let weekStart: Weekday

    /// The current streak, if one is running (STREAK-15).
    public internal(set) var currentStreak: Streak?
    /// The longest streak so far, the earliest of equals (STREAK-16).
    public internal(set) var longestStreak: Streak?
    /// Every milestone reached by any streak so far, in order of reaching (STREAK-20).
    public internal(set) var milestones: [Milestone] = []
    /// Completion, for one-off kinds (single, one-off subgoals, progress, countdown).
    public internal(set) var completion: Completion?
    /// Strength, for recurring kinds (STREAK-27): nil for one-off kinds and deleted goals.
    public internal(set) var strength: Strength?

    /// The last Day judged: today, or the end Day if earlier.
    let judgedThrough: Day
    /// The goal's entries (STREAK-3).
    var entries: GoalEntries
    /// The schedule's rules, one per entry, reduced to arithmetic.
    let rules: [CompactRule]
    /// Judged units, for consistency (STREAK-18).
    var judgements = Judgements()
    /// For one-off kinds: the status of each entry's Day, beside ``entries``.
    var entryStatuses: [DayStatus] = []
    /// For recurring kinds: the strength as the walk meets the units.
    var meter: StrengthMeter
    /// For recurring kinds: where a change to recent Days resumes the walk (STREAK-26).
    var checkpoint: WalkCheckpoint?

    /// Evaluates `goal` as of `today`.
    ///
    /// - Parameters:
    ///   - checkIns: the goal's check-ins, in any order; other goals' are ignored, and of several
    ///     for one Day the rule of STREAK-3 picks the one that counts.
    ///   - weekStart: the profile's week start.
    ///   - today: the Day it is for the person (``DayBoundary/day(containing:)`` of now).
    public init(goal: Goal, checkIns: some Sequence<CheckIn>, weekStart: Weekday, today: Day) {
        var collector = EntryCollector(goal: goal, today: today)
        for checkIn in checkIns { collector.add(checkIn) }
        self.init(goal: goal, entries: collector.entries(), weekStart: weekStart, today: today)
    }

    /// Evaluates `goal` as of `today` from its history's columns: no check-in is built.
    ///
    /// - Parameters:
    ///   - history: the goal's check-ins (``DataSet/history(of:)``); another goal's history
    ///     counts as none.
    ///   - weekStart: the profile's week start.
    ///   - today: the Day it is for the person.
    public init(goal: Goal, history: CheckInHistory, weekStart: Weekday, today: Day) {
        self.init(
            goal: goal, entries: GoalEntries(goal: goal, history: history, today: today), weekStart: weekStart,
            today: today)
    }

    init(goal: Goal, entries: GoalEntries, weekStart: Weekday, today: Day) {
        self.goal = goal
        self.today = today
        self.weekStart = weekStart
        self.entries = entries
        judgedThrough = Swift.min(today, goal.endDay ?? today)
        rules = goal.schedule?.entries.map { CompactRule($0.rule, effective: $0.effective) } ?? []
        meter = StrengthMeter(today: today)
        guard !goal.deleted else { return }  // STREAK-25
        if case .countdown(let config) = goal.kind {
            completion = countdownCompletion(config)
        } else if goal.kind.isRecurring {
            judgements.reservePoints(entries.count)
            walkRecurring()
            strength = meter.strength(today: today)
        } else {
            walkOneOff()
        }
    }

    // MARK: - Answers

    /// The status of `day` (STREAK-9 ... STREAK-13, STREAK-19), for any Day.
    ///
    /// - Complexity: O(log c) for most Days; O(31 log c) for a Day whose answer depends on its
    ///   calendar period (forgiveness, N-per-period rules).
    public func status(on day: Day) -> DayStatus {
        guard isInLife(day) else { return .notDue }
        if day > today { return futureStatus(day) }
        if case .countdown(let config) = goal.kind {
            if day == config.targetDay { return .done }
            return day == today && today < config.targetDay ? .pending : .notDue
        }
        guard goal.kind.isRecurring else { return oneOffStatus(day) }
        let index = scheduleIndex(on: day)
        guard let due = rules[index].falls(on: day) else {
            return period(containing: day, entry: index).status(of: day)
        }
        guard due else { return .notDue }
        let outcome = entries.outcome(on: day)
        switch outcome {
        case .done: return .done
        case .skipped: return .skipped
        case .partial(let thousandths):
            if day == today { return .partial(thousandths: thousandths) }
            return isForgiven(day) ? .forgiven : .partial(thousandths: thousandths)
        case .none, .failed:
            if day == today { return .pending }
            return isForgiven(day) ? .forgiven : .missed
        }
    }

    /// The statuses of every Day in `range`, in order.
    public func statuses(in range: ClosedRange<Day>) -> [DayStatus] {
        range.map { status(on: $0) }
    }

    /// The Overview intensity of `day`, 0...4 (STREAK-23).
    public func level(on day: Day) -> Int {
        guard day <= judgedThrough, isInLife(day) else { return 0 }
        if goal.kind.isRecurring { return entries.outcome(on: day).level }
        switch status(on: day) {
        case .done: return 4
        case .partial(let thousandths): return DayOutcome.level(thousandths: thousandths)
        default: return 0
        }
    }

    /// The completion rate of the last `days` Days up to today, or since the start Day when
    /// `days` is nil; nil for one-off kinds (STREAK-18).
    ///
    /// - Complexity: O(log c).
    public func consistency(lastDays days: Int?) -> Consistency? {
        guard goal.kind.isRecurring, !goal.deleted else { return nil }
        let from: Day
        if let days {
            let (back, overflow) = today.daysSince1970.subtractingReportingOverflow(Swift.max(1, days) - 1)
            from = overflow ? Day.min : Day(unchecked: Swift.max(back, Day.min.daysSince1970))
        } else {
            from = goal.startDay
        }
        return judgements.count(from: from, through: today)
    }

    /// Whether the goal belongs in today's list (STREAK-22).
    public var isOnToday: Bool {
        guard !goal.deleted, isInLife(today) else { return false }
        if case .countdown(let config) = goal.kind { return today <= config.targetDay }
        return status(on: today) != .notDue
    }

    // MARK: - The goal's Days

    /// Whether `day` is in the goal's life: from the start Day to the end Day, not archived
    /// (STREAK-1).
    ///
    /// - Complexity: O(log a) for a archive periods.
    func isInLife(_ day: Day) -> Bool {
        guard !goal.deleted, day >= goal.startDay, goal.endDay.map({ day <= $0 }) ?? true else { return false }
        return archivePeriod(atOrAfter: day).map { !$0.contains(day) } ?? true
    }

    /// The first archive period that ends after `day` (or is open), if any.
    func archivePeriod(atOrAfter day: Day) -> ArchivePeriod? {
        let history = goal.archiveHistory
        let index = history.partitioningIndex { period in period.until.map { $0 > day } ?? true }
        return index < history.count ? history[index] : nil
    }

    /// The index of the schedule entry in force on `day` (STREAK-4).
    func scheduleIndex(on day: Day) -> Int {
        goal.schedule?.index(on: day) ?? 0
    }

    /// The status of a Day after today (STREAK-9).
    func futureStatus(_ day: Day) -> DayStatus {
        if case .countdown(let config) = goal.kind { return day == config.targetDay ? .upcoming : .notDue }
        guard goal.kind.isRecurring else { return completion?.done == true ? .notDue : .upcoming }
        let index = scheduleIndex(on: day)
        if let due = rules[index].falls(on: day) { return due ? .upcoming : .notDue }
        return period(containing: day, entry: index).met ? .notDue : .upcoming
    }

    /// The month number of `day` counted from year 0, for arithmetic on runs of months.
    static func monthIndex(_ day: Day) -> Int {
        let (year, month, _) = day.components
        return year * 12 + month - 1
    }
}

extension GoalEvaluation {
    /// The status of each of `days`, as ``status(on:)`` gives it, judging each N-per-period
    /// period once however many of its Days are asked about.
    ///
    /// - Complexity: O(d log c) for d Days, and O(31 log c) per period of an N-per-period rule.
    public func statuses(of days: ClosedRange<Day>) -> [DayStatus] {
        var judged: (entry: Int, period: PeriodJudgement)?
        return (days.lowerBound.daysSince1970...days.upperBound.daysSince1970).map { number in
            let day = Day(unchecked: number)
            // A future Day of an N-per-period rule waits unless its period is met (STREAK-12).
            guard day > today, goal.kind.isRecurring, isInLife(day) else { return status(on: day) }
            let entry = scheduleIndex(on: day)
            guard rules[entry].falls(on: day) == nil else { return status(on: day) }
            if let known = judged, known.entry == entry, known.period.days.contains(day) {
                return known.period.met ? .notDue : .upcoming
            }
            let period = period(containing: day, entry: entry)
            judged = (entry, period)
            return period.met ? .notDue : .upcoming
        }
    }

    /// Whether leaving today as it stands would break the current streak tonight: today waits
    /// (pending or partly done) and an evaluation as of the next Day, with nothing more recorded,
    /// would hold no current streak starting where this one does (REMIND-6). A Day that
    /// forgiveness would forgive (STREAK-17) breaks nothing, and neither does a period that stays
    /// open or that skips excuse.
    ///
    /// - Complexity: O(p log c), p the Days of today's forgiveness period or N-per-period period.
    public var breaksTonight: Bool {
        guard goal.kind.isRecurring, currentStreak != nil, today < Day.max else { return false }
        switch status(on: today) {
        case .pending, .partial: break
        default: return false
        }
        let index = scheduleIndex(on: today)
        if rules[index].falls(on: today) != nil {
            // A day-based rule: tonight today is missed or partly done, a break unless forgiven.
            return !isForgiven(today)
        }
        // N per period: the period breaks tonight when it ends today unmet, unless skips excuse
        // it once it is closed (STREAK-12).
        let period = period(containing: today, entry: index)
        guard period.days.upperBound == today, period.target > 0, !period.met else { return false }
        let done = period.outcomes.filter { $0.outcome == .done }.count
        let skips = period.outcomes.filter { $0.outcome == .skipped }.count
        return !(skips > 0 && done + skips >= period.target)
    }
}
