import GlowModel

/// One N-per-period period, judged (STREAK-12): the calendar week or month cut to its schedule
/// entry's span and to the goal's start and end Days.
struct PeriodJudgement {
    /// The period's Days.
    let days: ClosedRange<Day>
    /// N, or the number of its Days in the life when smaller; 0 means the period is ignored.
    let target: Int
    /// Whether its last Day is today or later.
    let open: Bool
    /// Whether it has at least `target` done Days.
    let met: Bool
    /// Whether it is closed, not met, and skips make up the difference.
    let excused: Bool
    /// The first done Day, and the Day the target was reached, when met.
    let counted: (first: Day, last: Day)?
    let today: Day
    /// The outcomes of its Days up to today that are in the life.
    let outcomes: [(day: Day, outcome: DayOutcome)]

    /// Whether the period breaks a streak: closed, neither met nor excused, with a target.
    var missed: Bool { target > 0 && !open && !met && !excused }

    /// The value of a missed period as a strength unit: its done and partly done Days' thousandths
    /// over the target, at most 1000 (STREAK-27).
    var strengthValue: Int {
        var sum = 0
        for (_, outcome) in outcomes {
            switch outcome {
            case .done: sum += 1000
            case .partial(let thousandths): sum += thousandths
            case .none, .skipped, .failed: break
            }
        }
        return target > 0 ? Swift.min(1000, sum / target) : 0
    }

    /// The status of one of its Days in the life, on or before today.
    func status(of day: Day) -> DayStatus {
        let outcome = outcomes.first { $0.day == day }?.outcome ?? .none
        switch outcome {
        case .done: return .done
        case .skipped: return .skipped
        case .partial(let thousandths): return .partial(thousandths: thousandths)
        case .none, .failed:
            if day == today { return met ? .notDue : .pending }
            return missed ? .missed : .notDue
        }
    }
}

extension GoalEvaluation {
    // MARK: - Recurring kinds

    /// Walks the goal's life in order, one schedule entry at a time, turning Days and periods
    /// into streak units and judgements (STREAK-10 ... STREAK-17); from `resuming` on, with its
    /// state, when given. On the way it keeps the first checkpoint at or after the window of Days
    /// a tap may change cheaply (``WalkCheckpoint``).
    ///
    /// - Returns: when resuming, the milestones the walk had reached after the checkpoint
    ///   before, which this walk replaced; none otherwise.
    @discardableResult
    mutating func walkRecurring(resuming: WalkCheckpoint? = nil) -> [Milestone] {
        guard let schedule = goal.schedule, goal.startDay <= judgedThrough else { return [] }
        var tracker = StreakTracker(goalID: goal.id)
        var forgiveness = ForgivenessState(goal.forgiveness, weekStart: weekStart)
        var replaced: [Milestone] = []
        if let resuming {
            (tracker, forgiveness, replaced) = rewind(to: resuming)
        }
        let window = WalkCheckpoint.window(today: today).daysSince1970
        for index in (resuming?.entry ?? 0)..<schedule.entries.count {
            let entry = schedule.entries[index]
            var first = Swift.max(entry.effective, goal.startDay).daysSince1970
            if let resuming, index == resuming.entry { first = resuming.day.daysSince1970 }
            var last = goal.endDay?.daysSince1970 ?? Day.max.daysSince1970
            if index + 1 < schedule.entries.count {
                last = Swift.min(last, schedule.entries[index + 1].effective.daysSince1970 - 1)
            }
            guard first <= last, first <= judgedThrough.daysSince1970 else { continue }
            let multiplier = Strength.multiplier(for: entry.rule)
            if case .period = rules[index].kind {
                walkPeriods(
                    first: first, last: last, entry: index, multiplier: multiplier, tracker: &tracker,
                    forgiveness: forgiveness)
            } else {
                // Day by day, but only through today, and in the pieces the archive leaves.
                var pieceStart = first
                let end = Swift.min(last, judgedThrough.daysSince1970)
                while pieceStart <= end {
                    let next = archivePeriod(atOrAfter: Day(unchecked: pieceStart))
                    if let next, next.from.daysSince1970 <= pieceStart {
                        guard let until = next.until else { break }
                        pieceStart = until.daysSince1970
                        continue
                    }
                    let pieceEnd = Swift.min(end, (next?.from.daysSince1970 ?? Int.max) - 1)
                    if checkpoint == nil, window <= pieceEnd {
                        // The piece reaches the window: walked in two, the checkpoint between.
                        if pieceStart < window {
                            walkDays(
                                first: pieceStart, last: window - 1, rule: rules[index], multiplier: multiplier,
                                tracker: &tracker, forgiveness: &forgiveness)
                            pieceStart = window
                        }
                        keepCheckpoint(at: pieceStart, entry: index, tracker: tracker, forgiveness: forgiveness)
                    }
                    walkDays(
                        first: pieceStart, last: pieceEnd, rule: rules[index], multiplier: multiplier,
                        tracker: &tracker, forgiveness: &forgiveness)
                    pieceStart = pieceEnd + 1
                }
            }
        }
        currentStreak = tracker.current
        tracker.breakRun()
        longestStreak = tracker.longest
        milestones = tracker.milestones
        return replaced
    }

    /// Keeps the walk's state before Day `day` of schedule entry `entry` as the checkpoint, unless
    /// one is kept already.
    private mutating func keepCheckpoint(
        at day: Int, entry: Int, tracker: StreakTracker, forgiveness: ForgivenessState
    ) {
        guard checkpoint == nil else { return }
        let (saved, milestoneCount) = tracker.withoutMilestones
        checkpoint = WalkCheckpoint(
            day: Day(unchecked: day), entry: entry, tracker: saved, milestoneCount: milestoneCount,
            forgiveness: forgiveness, judgements: judgements.mark, meter: meter.mark)
    }

    /// Puts the judgements, strength and milestones back as they were at `checkpoint`, and returns
    /// its streak and forgiveness state with the milestones reached after it.
    private mutating func rewind(
        to checkpoint: WalkCheckpoint
    ) -> (StreakTracker, ForgivenessState, [Milestone]) {
        self.checkpoint = checkpoint
        judgements.rewind(to: checkpoint.judgements)
        meter.rewind(to: checkpoint.meter)
        // Taken out of `self` first, so the list is not shared and shrinks in place.
        var kept = milestones
        milestones = []
        let replaced = Array(kept[checkpoint.milestoneCount...])
        kept.removeLast(kept.count - checkpoint.milestoneCount)
        var tracker = checkpoint.tracker
        tracker.restore(milestones: kept)
        return (tracker, checkpoint.forgiveness, replaced)
    }

    /// The Days `first ... last` (all in the life, none after today) under a day-based rule:
    /// each entry is judged, and the empty Days between entries are counted (STREAK-10, STREAK-11,
    /// STREAK-17).
    private mutating func walkDays(
        first: Int, last: Int, rule: CompactRule, multiplier: Int64, tracker: inout StreakTracker,
        forgiveness: inout ForgivenessState
    ) {
        var cursor = first
        var index = entries.firstIndex(atOrAfter: Day(unchecked: first))
        // Local copies: `judge` changes `self`, so reading through it would reload each time.
        let (days, outcomes) = (entries.days, entries.outcomes)
        while index < days.count, days[index].daysSince1970 <= last {
            let day = days[index]
            if cursor < day.daysSince1970 {
                emptyDays(
                    cursor, day.daysSince1970 - 1, rule: rule, multiplier: multiplier, tracker: &tracker,
                    forgiveness: &forgiveness)
            }
            if rule.falls(on: day) == true {
                judge(day, outcomes[index], multiplier: multiplier, tracker: &tracker, forgiveness: &forgiveness)
            }
            cursor = day.daysSince1970 + 1
            index += 1
        }
        // Today without an entry is pending: it neither counts nor breaks (STREAK-11).
        emptyDays(
            cursor, Swift.min(last, today.daysSince1970 - 1), rule: rule, multiplier: multiplier, tracker: &tracker,
            forgiveness: &forgiveness)
    }

    /// A due Day with an entry (STREAK-10, STREAK-11, STREAK-17, STREAK-27).
    private mutating func judge(
        _ day: Day, _ outcome: DayOutcome, multiplier: Int64, tracker: inout StreakTracker,
        forgiveness: inout ForgivenessState
    ) {
        switch outcome {
        case .done:
            tracker.count(first: day, last: day)
            judgements.point(day, done: true)
            meter.unit(day, value: 1000, multiplier: multiplier)
        case .skipped:
            break
        case .none, .failed, .partial:
            guard day < today else { return }  // today is pending or partly done: neutral
            judgements.point(day, done: false)
            guard !forgiveness.forgive(day) else { return }  // forgiven: neutral, and no strength unit
            tracker.breakRun()
            if case .partial(let thousandths) = outcome {
                meter.unit(day, value: thousandths, multiplier: multiplier)
            } else {
                meter.unit(day, value: 0, multiplier: multiplier)
            }
        }
    }

    /// Days `first ... last`, all before today and without an entry: every due Day among them is
    /// missed, judged, and breaks the streak unless forgiven; each one not forgiven is a strength
    /// unit of value 0. Counted, not visited, except on the Days whose units strength records one
    /// by one (at most ``Strength/recordedDays``).
    private mutating func emptyDays(
        _ first: Int, _ last: Int, rule: CompactRule, multiplier: Int64, tracker: inout StreakTracker,
        forgiveness: inout ForgivenessState
    ) {
        guard first <= last else { return }
        let range = Day(unchecked: first)...Day(unchecked: last)
        guard rule.count(from: range.lowerBound, through: range.upperBound) > 0 else { return }
        judgements.run(Judgements.Run(first: range.lowerBound, last: range.upperBound, shape: .days(rule)))
        let recorded = meter.recordedFrom.daysSince1970
        if first < recorded {
            let counted = Day(unchecked: first)...Day(unchecked: Swift.min(last, recorded - 1))
            let broken = forgiveness.forgiveAll(in: counted, rule: rule, countingUpTo: StrengthMeter.zeroLimit)
            if broken > 0 { tracker.breakRun() }
            meter.zeros(broken, multiplier: multiplier)
        }
        let from = Swift.max(first, recorded)
        guard from <= last else { return }
        for number in from...last {
            let day = Day(unchecked: number)
            guard rule.falls(on: day) == true, !forgiveness.forgive(day) else { continue }
            tracker.breakRun()
            meter.unit(day, value: 0, multiplier: multiplier)
        }
    }

    /// Whether `day`, a Day that breaks before today, is forgiven: fewer than the allowance of
    /// breaking due Days came before it in its calendar period (STREAK-17).
    func isForgiven(_ day: Day) -> Bool {
        guard let forgiveness = goal.forgiveness else { return false }
        let period = ForgivenessState.bounds(of: day, forgiveness.period, weekStart: weekStart)
        var before = 0
        var other = Swift.max(period.lowerBound, goal.startDay)
        while other < day {
            if isInLife(other), rules[scheduleIndex(on: other)].falls(on: other) == true,
                entries.outcome(on: other).breaks
            {
                before += 1
            }
            other = Day(unchecked: other.daysSince1970 + 1)
        }
        return before < forgiveness.allowance
    }

    // MARK: - N per period

    /// The periods of one schedule entry's span `first ... last`, up to the one holding today
    /// (STREAK-12). Periods with an entry or a boundary are judged one by one; a run of whole,
    /// empty, closed periods is counted: each is missed.
    private mutating func walkPeriods(
        first: Int, last: Int, entry: Int, multiplier: Int64, tracker: inout StreakTracker,
        forgiveness: ForgivenessState
    ) {
        let byWeek = rules[entry].kind == .period(week: true)
        let window = WalkCheckpoint.window(today: today).daysSince1970
        var start = first
        while start <= last, start <= today.daysSince1970 {
            let calendar = bounds(of: Day(unchecked: start), byWeek: byWeek)
            let periodLast = Swift.min(calendar.upperBound.daysSince1970, last)
            // The first period that reaches the window: a tap on its Days is judged again from here.
            if checkpoint == nil, periodLast >= window {
                keepCheckpoint(at: start, entry: entry, tracker: tracker, forgiveness: forgiveness)
            }
            // A period wholly inside an archive has no Day in the life (target 0, STREAK-12): the
            // archive is passed over at once, to the period where it ends, so a goal archived
            // for millennia costs what an ordinary one does.
            if let archive = archivePeriod(atOrAfter: Day(unchecked: start)), archive.from.daysSince1970 <= start,
                archive.until.map({ $0.daysSince1970 > periodLast }) ?? true
            {
                guard let until = archive.until else { break }
                // The period holding `until`, or the Day after this one when the schedule entry
                // ends first (its calendar period may still hold `until`): always forward.
                start = Swift.max(bounds(of: until, byWeek: byWeek).lowerBound.daysSince1970, periodLast + 1)
                continue
            }
            if start == calendar.lowerBound.daysSince1970, periodLast == calendar.upperBound.daysSince1970,
                !byWeek || calendar.count == 7, let empty = emptyPeriods(from: start, last: last, byWeek: byWeek),
                case let count = Swift.min(
                    empty, periodsEnding(from: start, before: meter.recordedFrom, byWeek: byWeek)),
                count > 0
            {
                let runLast = advance(Day(unchecked: start), by: count, byWeek: byWeek).daysSince1970 - 1
                judgements.run(
                    Judgements.Run(
                        first: Day(unchecked: start), last: Day(unchecked: runLast), shape: byWeek ? .weeks : .months))
                tracker.breakRun()
                meter.zeros(count, multiplier: multiplier)
                start = runLast + 1
                continue
            }
            let judged = period(containing: Day(unchecked: start), entry: entry)
            if let counted = judged.counted {
                tracker.count(first: counted.first, last: counted.last)
                judgements.point(counted.last, done: true)
                meter.unit(counted.last, value: 1000, multiplier: multiplier)
            } else if judged.missed {
                tracker.breakRun()
                judgements.point(judged.days.upperBound, done: false)
                meter.unit(judged.days.upperBound, value: judged.strengthValue, multiplier: multiplier)
            }
            start = judged.days.upperBound.daysSince1970 + 1
        }
    }

    /// How many whole calendar periods from `start` (a period's first Day) are empty: no entry,
    /// no archived Day, within the span, and over before today.
    private func emptyPeriods(from start: Int, last: Int, byWeek: Bool) -> Int? {
        var limit = Swift.min(last, today.daysSince1970 - 1)
        let nextEntry = entries.firstIndex(atOrAfter: Day(unchecked: start))
        if nextEntry < entries.count { limit = Swift.min(limit, entries.days[nextEntry].daysSince1970 - 1) }
        if let archive = archivePeriod(atOrAfter: Day(unchecked: start)) {
            limit = Swift.min(limit, archive.from.daysSince1970 - 1)
        }
        guard limit >= start else { return nil }
        let limitDay = Day(unchecked: limit)
        if byWeek { return (limit - start + 1) / 7 }
        let months = Self.monthIndex(limitDay) - Self.monthIndex(Day(unchecked: start))
        return limitDay == limitDay.calendarMonth.upperBound ? months + 1 : months
    }

    /// How many whole calendar periods from `start` (a period's first Day) end before `day`: a run
    /// of empty periods stops there, so strength meets the recorded Days' units one by one.
    private func periodsEnding(from start: Int, before day: Day, byWeek: Bool) -> Int {
        if byWeek { return Swift.max(0, (day.daysSince1970 - start) / 7) }
        return Swift.max(0, Self.monthIndex(day) - Self.monthIndex(Day(unchecked: start)))
    }

    /// The first Day `count` calendar periods after `day`, a period's first Day.
    private func advance(_ day: Day, by count: Int, byWeek: Bool) -> Day {
        if byWeek { return Day(unchecked: day.daysSince1970 + 7 * count) }
        let index = Self.monthIndex(day) + count
        return (try? Day(year: index / 12, month: index % 12 + 1, day: 1)) ?? Day(unchecked: Day.max.daysSince1970 + 1)
    }

    /// The calendar week (by the week start) or month containing `day`.
    func bounds(of day: Day, byWeek: Bool) -> ClosedRange<Day> {
        byWeek ? day.week(startingOn: weekStart) : day.calendarMonth
    }

    /// The period of an N-per-period entry that contains `day`, judged (STREAK-12).
    ///
    /// - Complexity: O(31 log c).
    func period(containing day: Day, entry: Int) -> PeriodJudgement {
        let schedule = goal.schedule!
        let rule = schedule.entries[entry].rule
        let byWeek: Bool
        let n: Int
        switch rule {
        case .timesPerWeek(let times): (byWeek, n) = (true, times)
        case .timesPerMonth(let times): (byWeek, n) = (false, times)
        case .daily, .weekdays, .everyNDays: preconditionFailure("a day-based rule has no periods")
        }
        let calendar = bounds(of: day, byWeek: byWeek)
        var first = Swift.max(calendar.lowerBound, schedule.entries[entry].effective, goal.startDay)
        var last = calendar.upperBound
        if entry + 1 < schedule.entries.count {
            last = Swift.min(last, Day(unchecked: schedule.entries[entry + 1].effective.daysSince1970 - 1))
        }
        if let end = goal.endDay { last = Swift.min(last, end) }
        first = Swift.min(first, last)
        var lifeDays = 0
        var outcomes: [(day: Day, outcome: DayOutcome)] = []
        var done: [Day] = []
        var skips = 0
        for number in first.daysSince1970...last.daysSince1970 {
            let other = Day(unchecked: number)
            guard isInLife(other) else { continue }
            lifeDays += 1
            guard other <= today else { continue }
            let outcome = entries.outcome(on: other)
            outcomes.append((other, outcome))
            if outcome == .done { done.append(other) }
            if outcome == .skipped { skips += 1 }
        }
        let target = Swift.min(n, lifeDays)
        let open = last >= today
        let met = target > 0 && done.count >= target
        return PeriodJudgement(
            days: first...last, target: target, open: open, met: met,
            excused: !met && !open && skips > 0 && done.count + skips >= target,
            counted: met ? (done[0], done[target - 1]) : nil, today: today, outcomes: outcomes)
    }
}

/// Forgiveness as the walk meets breaking Days (STREAK-17): how many Days the current calendar
/// period has forgiven.
struct ForgivenessState {
    let allowance: Int?
    let period: Forgiveness.Period
    let weekStart: Weekday
    private var current: Day?
    private var used = 0

    init(_ forgiveness: Forgiveness?, weekStart: Weekday) {
        allowance = forgiveness?.allowance
        period = forgiveness?.period ?? .week
        self.weekStart = weekStart
    }

    /// The calendar week or month of `day`.
    static func bounds(of day: Day, _ period: Forgiveness.Period, weekStart: Weekday) -> ClosedRange<Day> {
        period == .week ? day.week(startingOn: weekStart) : day.calendarMonth
    }

    /// Forgives one breaking Day if the allowance of its period is not used up.
    mutating func forgive(_ day: Day) -> Bool {
        guard let allowance else { return false }
        let first = Self.bounds(of: day, period, weekStart: weekStart).lowerBound
        if first != current {
            current = first
            used = 0
        }
        guard used < allowance else { return false }
        used += 1
        return true
    }

    /// Forgives the breaking Days of `range` (the Days the rule falls on, in order) as far as the
    /// allowances go, and returns how many are left unforgiven, counted exactly up to `limit`
    /// (beyond it, `limit`). Periods whose Days are all forgiven are not visited one by one, nor
    /// are the periods after the count reached its limit: only the last period's count matters
    /// then. Periods that may or may not break are visited until the count reaches its limit: at
    /// worst every month of the calendar (about 120,000 constant-time steps, as for a rule due
    /// every 30 Days with one Day forgiven a month), never one step per Day.
    mutating func forgiveAll(in range: ClosedRange<Day>, rule: CompactRule, countingUpTo limit: Int) -> Int {
        guard let allowance else {
            return Swift.min(limit, rule.count(from: range.lowerBound, through: range.upperBound))
        }
        let (_, most) = rule.dueBounds(inWholePeriodsOf: period)
        var first = range.lowerBound
        var broken = 0
        while true {
            let bounds = Self.bounds(of: first, period, weekStart: weekStart)
            let last = Swift.min(range.upperBound, bounds.upperBound)
            if bounds.lowerBound != current {
                current = bounds.lowerBound
                used = 0
                // A whole period that ends before the range does, and that either breaks nothing
                // or cannot matter to a count already at its limit: on to the range's last period.
                let whole = first == bounds.lowerBound && last < range.upperBound
                if whole, most <= allowance || broken >= limit {
                    first = Self.bounds(of: range.upperBound, period, weekStart: weekStart).lowerBound
                    continue
                }
            }
            let due = rule.count(from: first, through: last)
            if due > allowance - used {
                broken = Swift.min(limit, broken + due - (allowance - used))
                used = allowance
            } else {
                used += due
            }
            if last == range.upperBound { return broken }
            first = Day(unchecked: last.daysSince1970 + 1)
        }
    }
}
