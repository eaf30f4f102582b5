import GlowModel
import GlowStreaks

/// A deliberately naive evaluator written from `Spec/streaks.md`, rule by rule, to check
/// ``GoalEvaluation`` against (issue 13: a reference that does not lean on the SDK's code).
///
/// Every Day from the start Day to today is judged from scratch, in order; nothing is cached,
/// nothing is clever, nothing is unsafe. It is slow on purpose: the differential tests keep the
/// histories short. Each step cites the rule it follows, so a disagreement can be settled by
/// reading the spec.
struct ReferenceEvaluator {
    let goal: Goal
    let weekStart: Weekday
    let today: Day
    /// The entry of each Day that has one (STREAK-3).
    private(set) var entries: [Day: CheckInLog] = [:]
    /// The status of each Day from the start Day to today (STREAK-9 ... STREAK-13).
    private(set) var statuses: [Day: DayStatus] = [:]
    /// The units in time order (STREAK-14): a counting unit's first and last Day, or a break.
    private(set) var units: [(counts: Bool, first: Day, last: Day)] = []
    /// Judged units for consistency (STREAK-18): the Day each is judged on, and whether done.
    private(set) var judged: [(day: Day, done: Bool)] = []
    /// Periods of N-per-period rules that are met, by their first Day (for future statuses).
    private(set) var metPeriods: Set<Day> = []
    private(set) var completion: Completion?
    /// Strength units (STREAK-27): the Day, the value in thousandths and the rule in force.
    private(set) var strengthUnits: [(day: Day, value: Int, rule: ScheduleRule)] = []

    init(goal: Goal, checkIns: [CheckIn], weekStart: Weekday, today: Day) {
        self.goal = goal
        self.weekStart = weekStart
        self.today = today
        entries = Self.entries(goal: goal, checkIns: checkIns, today: today)
        guard !goal.deleted else { return }  // STREAK-25
        if goal.kind.isRecurring {
            judgeRecurring()
        } else {
            judgeOneOff()
        }
    }

    // MARK: - STREAK-1, STREAK-3

    /// STREAK-1: in the life when not deleted, within start ... end, and not archived.
    func inLife(_ day: Day) -> Bool {
        if goal.deleted { return false }
        if day < goal.startDay { return false }
        if let end = goal.endDay, day > end { return false }
        for period in goal.archiveHistory where period.contains(day) { return false }
        return true
    }

    /// STREAK-3 with MODEL-52 ... MODEL-54: the check-ins of a Day merge into one record of every
    /// tap (one version of each tap, the later); the Day's entry is what the taps after the last
    /// undo add up to, and none when no tap is visible.
    static func entries(goal: Goal, checkIns: [CheckIn], today: Day) -> [Day: CheckInLog] {
        var taps: [Day: [String: Tap]] = [:]
        for checkIn in checkIns where checkIn.goalID == goal.id {
            for tap in checkIn.taps {
                let id = "\(tap.deviceID)#\(tap.sequence)"
                if let held = taps[checkIn.day]?[id], !laterVersion(tap, than: held) { continue }
                taps[checkIn.day, default: [:]][id] = tap
            }
        }
        var result: [Day: CheckInLog] = [:]
        for (day, byID) in taps where day <= today {
            // MODEL-53: by instant, an undo after the taps of its instant, then device, sequence.
            let ordered = byID.values.sorted { a, b in
                if a.at != b.at { return a.at < b.at }
                if a.action.isUndo != b.action.isUndo { return !a.action.isUndo }
                if a.deviceID != b.deviceID { return a.deviceID < b.deviceID }
                return a.sequence < b.sequence
            }
            var log: CheckInLog? = nil
            for tap in ordered { log = tap.action.isUndo ? nil : apply(tap.action, to: log) }
            if let log { result[day] = log }
        }
        return result
    }

    /// MODEL-54: of two versions of one tap, the later `at`, then `firstAt`, then the greater
    /// canonical JSON.
    static func laterVersion(_ a: Tap, than b: Tap) -> Bool {
        if a.at != b.at { return a.at > b.at }
        if a.firstAt != b.firstAt { return a.firstAt > b.firstAt }
        return CanonicalJSON.bytes(b).lexicographicallyPrecedes(CanonicalJSON.bytes(a))
    }

    /// MODEL-35: a tap applied to a log.
    static func apply(_ action: Tap.Action, to log: CheckInLog?) -> CheckInLog? {
        switch (log, action) {
        case (.amount(let old)?, .add(let added)):
            let sum = Swift.min(Amount.limit, Swift.max(-Amount.limit, old.thousandths + added.thousandths))
            return .amount(try! Amount(thousandths: sum))
        case (.tally(let old)?, .count(let delta)): return .tally(tally(old, delta))
        case (.items(let old)?, .check(let items)): return .items(old.union(items))
        case (.items(let old)?, .uncheck(let items)): return .items(old.subtracting(items))
        case (_, .done): return .done
        case (_, .skip): return .skip
        case (_, .add(let added)): return .amount(added)
        case (_, .count(let delta)): return .tally(tally(0, delta))
        case (_, .check(let items)): return .items(items)
        case (_, .uncheck): return .items([])
        case (_, .value(let value)): return .value(value)
        case (_, .undo): return nil
        }
    }

    /// A tally within 0 ... 2^32 − 1 (MODEL-35), in wide arithmetic so nothing overflows.
    static func tally(_ count: Int, _ delta: Int) -> Int {
        let sum = Double(count) + Double(delta)
        if sum <= 0 { return 0 }
        if sum >= Double(CheckIn.tallyLimit) { return CheckIn.tallyLimit }
        return count + delta
    }

    /// The entry of `day` if it counts: live, in the life, not after today (STREAK-3).
    func entry(_ day: Day) -> CheckInLog? {
        inLife(day) && day <= today ? entries[day] : nil
    }

    // MARK: - STREAK-5 ... STREAK-8

    enum Outcome: Equatable {
        case none
        case done
        case partial(Int)
        case skipped
        case failed
    }

    /// STREAK-6: floor(1000 × amount / target), at least 1 when positive, exact (no overflow).
    static func fraction(_ amount: Int64, _ target: Int64) -> Int64 {
        let whole = amount / target
        let rest = amount % target
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1000)
        if overflow { return Int64.max }
        let (sum, overflow2) = scaled.addingReportingOverflow(rest * 1000 / target)
        return overflow2 ? Int64.max : Swift.max(amount > 0 ? 1 : 0, sum)
    }

    /// The outcome of a recurring goal's Day (STREAK-5, STREAK-7, STREAK-8).
    func outcome(_ day: Day) -> Outcome {
        guard let log = entry(day) else { return .none }
        switch (goal.kind, log) {
        case (.streak, .done): return .done
        case (.streak, .skip), (.tally, .skip), (.value, .skip): return .skipped
        case (.subgoals(let config), .skip): return config.recurring ? .skipped : .none
        case (.tally(let config), .tally(let count)):
            if count >= config.dailyTarget { return .done }
            if count == 0 { return .none }
            return .partial(Int(Self.fraction(Int64(count), Int64(config.dailyTarget))))
        case (.subgoals(let config), .items(let items)):
            // STREAK-5: only the goal's current items count; unknown ones are ignored.
            var checked = 0
            for item in config.items where items.contains(item.id) { checked += 1 }
            if checked == config.items.count { return .done }
            if checked == 0 { return .none }
            return .partial(Int(Self.fraction(Int64(checked), Int64(config.items.count))))
        case (.value(let config), .value(let value)):
            guard let target = config.target else { return .done }
            switch target.comparison {
            case .atLeast:
                if value >= target.amount { return .done }
                if value.thousandths > 0 {
                    return .partial(Int(Self.fraction(value.thousandths, target.amount.thousandths)))
                }
                return .failed
            case .atMost:
                return value <= target.amount ? .done : .failed
            }
        default:
            return .none  // STREAK-8: a log that does not fit the kind
        }
    }

    /// STREAK-23: the Overview intensity of an outcome.
    static func level(_ outcome: Outcome) -> Int {
        switch outcome {
        case .done: return 4
        case .partial(let f): return 1 + f * 3 / 1000
        default: return 0
        }
    }

    // MARK: - Schedules

    /// STREAK-4: the schedule entry in force on `day`, and its index.
    func scheduleEntry(_ day: Day) -> (index: Int, entry: Schedule.Entry) {
        let entries = goal.schedule!.entries
        var index = 0
        for (i, entry) in entries.enumerated() where entry.effective <= day { index = i }
        return (index, entries[index])
    }

    /// STREAK-2: whether a day-based rule falls on `day`; nil for a period rule.
    func falls(_ day: Day) -> Bool? {
        let (_, entry) = scheduleEntry(day)
        switch entry.rule {
        case .daily: return true
        case .weekdays(let days): return days.contains(day.weekday)
        case .everyNDays(let n):
            let distance = entry.effective.days(to: day)
            return ((distance % n) + n) % n == 0
        case .timesPerWeek, .timesPerMonth: return nil
        }
    }

    // MARK: - Recurring kinds: STREAK-9 ... STREAK-12, STREAK-17

    private mutating func judgeRecurring() {
        guard goal.startDay <= today else { return }
        var forgivenIn: [Day: Int] = [:]
        var day = goal.startDay
        let last = Swift.min(today, goal.endDay ?? today)
        while day <= last {
            if !inLife(day) {
                statuses[day] = .notDue
            } else if let due = falls(day) {
                if due {
                    judgeDueDay(day, forgivenIn: &forgivenIn)
                } else {
                    statuses[day] = .notDue  // STREAK-19
                }
            } else {
                // STREAK-12: a period is judged as a whole, once, at its first Day in the life; that
                // gives every Day of it up to today a status.
                if statuses[day] == nil { judgePeriod(period(containing: day)) }
            }
            if day == Day.max { break }
            day = day.advanced(by: 1)
        }
    }

    /// STREAK-10, STREAK-11, STREAK-17.
    private mutating func judgeDueDay(_ day: Day, forgivenIn: inout [Day: Int]) {
        let outcome = outcome(day)
        switch outcome {
        case .done:
            statuses[day] = .done
            units.append((true, day, day))
            judged.append((day, true))
            strengthUnits.append((day, 1000, scheduleEntry(day).entry.rule))
        case .skipped:
            statuses[day] = .skipped
        case .partial(let f) where day == today:
            statuses[day] = .partial(thousandths: f)
        case .none where day == today, .failed where day == today:
            statuses[day] = .pending
        case .none, .failed, .partial:
            judged.append((day, false))
            if let forgiveness = goal.forgiveness {
                let period = forgiveness.period == .week ? day.week(startingOn: weekStart) : day.calendarMonth
                let used = forgivenIn[period.lowerBound, default: 0]
                if used < forgiveness.allowance {
                    forgivenIn[period.lowerBound] = used + 1
                    statuses[day] = .forgiven
                    return
                }
            }
            if case .partial(let f) = outcome {
                statuses[day] = .partial(thousandths: f)
                strengthUnits.append((day, f, scheduleEntry(day).entry.rule))
            } else {
                statuses[day] = .missed
                strengthUnits.append((day, 0, scheduleEntry(day).entry.rule))
            }
            units.append((false, day, day))
        }
    }

    /// STREAK-12: the calendar period containing `day`, cut to its schedule entry's span and to
    /// the goal's start and end Days, with its target N.
    func period(containing day: Day) -> (days: ClosedRange<Day>, n: Int) {
        let (index, entry) = scheduleEntry(day)
        var calendar: ClosedRange<Day>
        let n: Int
        switch entry.rule {
        case .timesPerWeek(let times):
            calendar = day.week(startingOn: weekStart)
            n = times
        case .timesPerMonth(let times):
            calendar = day.calendarMonth
            n = times
        default: fatalError("not a period rule")
        }
        var first = Swift.max(calendar.lowerBound, entry.effective, goal.startDay)
        var last = calendar.upperBound
        let entries = goal.schedule!.entries
        if index + 1 < entries.count { last = Swift.min(last, entries[index + 1].effective.advanced(by: -1)) }
        if let end = goal.endDay { last = Swift.min(last, end) }
        first = Swift.min(first, last)
        calendar = first...last
        return (calendar, n)
    }

    private mutating func judgePeriod(_ period: (days: ClosedRange<Day>, n: Int)) {
        var lifeDays = 0
        var doneDays: [Day] = []
        var skipped = 0
        var progress = 0  // STREAK-27: 1000 per done Day, f per partly done one
        for day in period.days {
            guard inLife(day) else { continue }
            lifeDays += 1
            guard day <= today else { continue }
            switch outcome(day) {
            case .done:
                doneDays.append(day)
                progress += 1000
            case .skipped: skipped += 1
            case .partial(let f): progress += f
            default: break
            }
        }
        let target = Swift.min(period.n, lifeDays)
        let open = period.days.upperBound >= today
        let met = target > 0 && doneDays.count >= target
        let excused = !met && skipped > 0 && doneDays.count + skipped >= target
        if met { metPeriods.insert(period.days.lowerBound) }
        for day in period.days where day <= today {
            guard inLife(day) else {
                statuses[day] = .notDue
                continue
            }
            switch outcome(day) {
            case .done: statuses[day] = .done
            case .skipped: statuses[day] = .skipped
            case .partial(let f): statuses[day] = .partial(thousandths: f)
            case .none, .failed:
                if day == today {
                    statuses[day] = met ? .notDue : .pending
                } else if !open && !met && !excused && target > 0 {
                    statuses[day] = .missed
                } else {
                    statuses[day] = .notDue
                }
            }
        }
        guard target > 0 else { return }
        let rule = scheduleEntry(period.days.lowerBound).entry.rule
        if met {
            units.append((true, doneDays[0], doneDays[target - 1]))
            judged.append((doneDays[target - 1], true))
            strengthUnits.append((doneDays[target - 1], 1000, rule))
        } else if !open && !excused {
            units.append((false, period.days.upperBound, period.days.upperBound))
            judged.append((period.days.upperBound, false))
            strengthUnits.append((period.days.upperBound, Swift.min(1000, progress / target), rule))
        }
    }

    // MARK: - One-off kinds: STREAK-13

    private mutating func judgeOneOff() {
        if case .countdown(let config) = goal.kind {
            judgeCountdown(config)
            return
        }
        let target: Int64
        switch goal.kind {
        case .subgoals(let config): target = Int64(config.items.count)
        case .progress(let config): target = config.target.thousandths
        default: target = 1
        }
        var progress: Int64 = 0
        var checked: Set<SubgoalItemID> = []
        var completedOn: Day? = nil
        var dayProgress: [Day: Int64] = [:]
        var day = goal.startDay
        let last = Swift.min(today, goal.endDay ?? today)
        while goal.startDay <= today && day <= last {
            if let log = entry(day) {
                var fits = true
                switch (goal.kind, log) {
                case (.single, .done): progress = 1
                case (.subgoals(let config), .items(let items)):
                    for item in config.items where items.contains(item.id) { checked.insert(item.id) }
                    progress = Int64(checked.count)
                case (.progress, .amount(let amount)):
                    // STREAK-6: saturating sum.
                    let (sum, overflow) = progress.addingReportingOverflow(amount.thousandths)
                    progress = overflow ? (amount.thousandths > 0 ? Int64.max : Int64.min) : sum
                default: fits = false  // STREAK-8, STREAK-13: as a Day without an entry
                }
                if progress >= target {
                    if completedOn == nil { completedOn = day }
                } else {
                    completedOn = nil
                }
                if fits { dayProgress[day] = progress }
            }
            if day == Day.max { break }
            day = day.advanced(by: 1)
        }
        day = goal.startDay
        while goal.startDay <= today && day <= last {
            if !inLife(day) {
                statuses[day] = .notDue
            } else if let completedOn, day >= completedOn {
                statuses[day] = day == completedOn ? .done : .notDue
            } else if let value = dayProgress[day], value > 0 {
                statuses[day] = .partial(thousandths: Int(Swift.min(999, Self.fraction(value, target))))
            } else if day == today {
                statuses[day] = .pending
            } else {
                statuses[day] = .notDue
            }
            if day == Day.max { break }
            day = day.advanced(by: 1)
        }
        let fraction = Self.fraction(Swift.max(0, progress), target)
        completion = Completion(done: completedOn != nil, doneOn: completedOn, thousandths: Int(fraction))
    }

    private mutating func judgeCountdown(_ config: CountdownConfig) {
        let span = goal.startDay.days(to: config.targetDay)
        let elapsed = goal.startDay.days(to: today)
        let share = span <= 0 ? 1000 : Swift.min(1000, Swift.max(0, elapsed * 1000 / span))
        let done = today >= config.targetDay
        completion = Completion(
            done: done, doneOn: done ? config.targetDay : nil, thousandths: share,
            daysLeft: today.days(to: config.targetDay))
        var day = goal.startDay
        while goal.startDay <= today && day <= today {
            if inLife(day) && day == config.targetDay {
                statuses[day] = .done
            } else if inLife(day) && day == today && today < config.targetDay {
                statuses[day] = .pending
            } else {
                statuses[day] = .notDue
            }
            if day == Day.max { break }
            day = day.advanced(by: 1)
        }
    }

    // MARK: - Answers

    /// STREAK-9: the status of any Day.
    func status(on day: Day) -> DayStatus {
        if day <= today { return statuses[day] ?? .notDue }
        guard inLife(day) else { return .notDue }
        switch goal.kind {
        case .countdown(let config): return day == config.targetDay ? .upcoming : .notDue
        case _ where !goal.kind.isRecurring: return completion?.done == true ? .notDue : .upcoming
        default:
            if let due = falls(day) { return due ? .upcoming : .notDue }
            return metPeriods.contains(period(containing: day).days.lowerBound) ? .notDue : .upcoming
        }
    }

    /// STREAK-23: the Overview intensity of any Day.
    func level(on day: Day) -> Int {
        guard inLife(day), day <= today, !goal.deleted else { return 0 }
        if goal.kind.isRecurring { return Self.level(outcome(day)) }
        switch status(on: day) {
        case .done: return 4
        case .partial(let f): return 1 + f * 3 / 1000
        default: return 0
        }
    }

    /// STREAK-14, STREAK-15: the streak after the last break, if it counts anything.
    var currentStreak: Streak? {
        streaks(closingWithCurrent: true).current
    }

    /// STREAK-16: the longest streak, the earliest of equals.
    var longestStreak: Streak? {
        var longest: Streak? = nil
        for streak in streaks(closingWithCurrent: true).all where streak.length > (longest?.length ?? 0) {
            longest = streak
        }
        return longest
    }

    /// STREAK-20: every milestone of every streak, in order of reaching.
    var milestones: [Milestone] {
        var result: [Milestone] = []
        var run: [(first: Day, last: Day)] = []
        func close() { run = [] }
        for unit in units {
            guard unit.counts else {
                close()
                continue
            }
            run.append((unit.first, unit.last))
            if Milestone.thresholds.contains(run.count) {
                result.append(
                    Milestone(
                        id: Milestone.ID(goalID: goal.id, milestone: run.count, streakStart: run[0].first),
                        reachedOn: unit.last))
            }
        }
        return result
    }

    private func streaks(closingWithCurrent: Bool) -> (all: [Streak], current: Streak?) {
        var all: [Streak] = []
        var length = 0
        var first: Day? = nil
        var last: Day? = nil
        for unit in units {
            if unit.counts {
                if length == 0 { first = unit.first }
                length += 1
                last = unit.last
            } else {
                if length > 0 { all.append(Streak(length: length, start: first!, end: last!)) }
                length = 0
            }
        }
        let current = length > 0 ? Streak(length: length, start: first!, end: last!) : nil
        if let current { all.append(current) }
        return (all, current)
    }

    /// STREAK-18: consistency over the last `days` Days, or since the start Day.
    func consistency(lastDays days: Int?) -> Consistency? {
        guard goal.kind.isRecurring, !goal.deleted else { return nil }
        let from: Day
        if let days {
            let back = today.daysSince1970 - (days - 1)
            from = back < Day.min.daysSince1970 ? Day.min : (try! Day(daysSince1970: back))
        } else {
            from = goal.startDay
        }
        var done = 0
        var due = 0
        for judgement in judged where judgement.day >= from && judgement.day <= today {
            due += 1
            if judgement.done { done += 1 }
        }
        return Consistency(done: done, due: due)
    }

    /// STREAK-22: whether the goal is on the Today list.
    var isOnToday: Bool {
        guard !goal.deleted, inLife(today) else { return false }
        if case .countdown(let config) = goal.kind { return today <= config.targetDay }
        return status(on: today) != .notDue
    }

    // MARK: - Strength: STREAK-27 ... STREAK-29

    /// STREAK-27: S after each unit, in Day order, from 0; nil for kinds without a strength.
    var strengthScores: [(day: Day, before: Int64, after: Int64, value: Int)]? {
        guard goal.kind.isRecurring, !goal.deleted else { return nil }
        var s: Int64 = 0
        var result: [(day: Day, before: Int64, after: Int64, value: Int)] = []
        var multipliers: [ScheduleRule: Int64] = [:]
        for unit in strengthUnits.sorted(by: { $0.day < $1.day }) {
            let m = multipliers[unit.rule] ?? Self.multiplier(unit.rule)
            multipliers[unit.rule] = m
            let v = Int64(unit.value) * (1 << 30) / 1000
            let after = (s * m + v * ((1 << 30) - m)) / (1 << 30)
            result.append((unit.day, s, after, unit.value))
            s = after
        }
        return result
    }

    /// STREAK-29: the moves, from the scores of ``strengthScores``: the unit of the last 30 Days
    /// with the greatest positive change of the reported strength, then the one with the most
    /// negative, of equals the later Day.
    static func strengthMoves(today: Day, _ scores: [(day: Day, before: Int64, after: Int64, value: Int)])
        -> [(day: Day, before: Int64, after: Int64, value: Int)]
    {
        func reported(_ unit: (day: Day, before: Int64, after: Int64, value: Int)) -> Int {
            Int(unit.after * 1000 / (1 << 30)) - Int(unit.before * 1000 / (1 << 30))
        }
        let window = scores.filter { $0.day >= today.advanced(by: -29) }
        let lift = window.filter { reported($0) > 0 }.max { (reported($0), $0.day) < (reported($1), $1.day) }
        let drop = window.filter { reported($0) < 0 }.max { (-reported($0), $0.day) < (-reported($1), $1.day) }
        return [lift, drop].compactMap { $0 }
    }

    /// STREAK-29: S through `day`, from the scores of ``strengthScores``.
    static func strength(through day: Day, _ scores: [(day: Day, before: Int64, after: Int64, value: Int)]) -> Int64 {
        scores.last { $0.day <= day }?.after ?? 0
    }

    /// STREAK-28, step by step: the weight R = a / b, the exponent E by searching for the greatest
    /// E with 169 × b × E² ≤ 2^60 × a (compared in 128 bits), the ladder, and the bits of E.
    static func multiplier(_ rule: ScheduleRule) -> Int64 {
        let (a, b): (UInt64, UInt64)
        switch rule {
        case .daily: (a, b) = (1, 1)
        case .weekdays(let days): (a, b) = (7, UInt64(days.count))
        case .everyNDays(let n): (a, b) = (UInt64(n), 1)
        case .timesPerWeek(let n): (a, b) = (7 * UInt64(n), 1)
        case .timesPerMonth(let n): (a, b) = (30 * UInt64(n), 1)
        }
        func fits(_ e: UInt64) -> Bool {
            let square = e.multipliedFullWidth(by: e)  // e < 2^32, so the square fits in 64 bits
            let left = (169 * b).multipliedFullWidth(by: square.low)
            let right = a.multipliedFullWidth(by: 1 << 60)
            return left.high < right.high || (left.high == right.high && left.low <= right.low)
        }
        var (low, high): (UInt64, UInt64) = (0, 1 << 32)  // fits(low), not fits(high)
        while high - low > 1 {
            let middle = (low + high) / 2
            if fits(middle) { low = middle } else { high = middle }
        }
        let e = low
        func root(_ x: UInt64) -> UInt64 {
            var (low, high): (UInt64, UInt64) = (0, 1 << 32)
            while high - low > 1 {
                let middle = (low + high) / 2
                if middle * middle <= x { low = middle } else { high = middle }
            }
            return low
        }
        var ladder: [UInt64] = [1 << 29]
        for i in 1...30 { ladder.append(root(ladder[i - 1] * (1 << 30))) }
        var m: UInt64 = (1 << 30) / (1 << (e / (1 << 30)))
        for i in 1...30 where (e / (1 << (30 - i))) % 2 == 1 {
            m = m * ladder[i] / (1 << 30)
        }
        return Int64(m)
    }
}
