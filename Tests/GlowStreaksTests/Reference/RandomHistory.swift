import GlowModel

/// Random goals and histories for the differential tests: every kind and schedule, schedule
/// changes, skips, forgiveness, archive and end Days, tombstones and backfills, several devices,
/// and check-ins whose Day comes from an instant under zones with daylight saving and a day start.
struct RandomHistory {
    let goal: Goal
    let checkIns: [CheckIn]
    let today: Day
    let weekStart: Weekday

    static let zones = ["Europe/London", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC"].map {
        try! TimeZoneID($0)
    }
    static let devices = (1...3).map { DeviceID(high: 0xD, low: UInt64($0)) }

    init(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        func chance(_ percent: Int) -> Bool { below(100) < percent }
        let start = try! Day(iso: "2024-01-01").adding(days: below(366))
        // Mostly short histories; some long ones, and some spanning years with a sparse history,
        // whose long runs of empty Days the evaluator counts rather than visits.
        let span = [90, 90, 90, 90, 90, 420, 1500, 4000][below(8)]
        today = start.advanced(by: below(span) - 6)
        weekStart = Weekday.allCases[below(7)]
        let kind = Self.kind(&random, start: start)
        var schedule: Schedule? = nil
        if kind.isRecurring {
            schedule = try! Schedule(Self.rule(&random), from: start)
            for _ in 0..<below(3) {
                let from = start.advanced(by: 1 + below(80))
                try? schedule!.change(to: Self.rule(&random), from: from)
            }
        }
        var archive: [ArchivePeriod] = []
        if chance(25) {
            var from = start.advanced(by: below(40))
            for _ in 0..<(1 + below(2)) {
                let until = from.advanced(by: 1 + below(20))
                archive.append(ArchivePeriod(from: from, until: until))
                from = until.advanced(by: below(15))
            }
            if chance(30) { archive[archive.count - 1] = ArchivePeriod(from: archive[archive.count - 1].from) }
        }
        var forgiveness: Forgiveness? = nil
        if kind.isRecurring && chance(50) {
            forgiveness =
                chance(50)
                ? Forgiveness(allowance: 1 + below(3), period: .week)
                : Forgiveness(allowance: 1 + below(10), period: .month)
        }
        let created = try! Instant(millisecondsSince1970: Int64(start.daysSince1970) * 86_400_000)
        goal = try! Goal(
            id: GoalID(high: 0x0193_0000_0000_7000, low: 0x8000_0000_0000_0000 | seed), title: "Goal \(seed)",
            kind: kind, schedule: schedule, startDay: start,
            endDay: chance(15) ? start.advanced(by: below(120)) : nil, archiveHistory: archive,
            forgiveness: forgiveness, createdAt: created, modifiedAt: created, deleted: chance(3))
        checkIns = Self.checkIns(&random, goal: goal, today: today)
    }

    static func kind(_ random: inout SeededRandom, start: Day) -> GoalKind {
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let items = (0..<(1 + below(4))).map {
            SubgoalItem(id: SubgoalItemID(high: 0x1, low: UInt64($0)), title: "Item \($0)")
        }
        switch below(9) {
        case 0: return .single
        case 1, 2: return .subgoals(SubgoalsConfig(items: items, recurring: below(3) != 0))
        case 3: return .progress(ProgressConfig(target: try! Amount(thousandths: Int64(1 + below(20_000))), unit: "km"))
        case 4:
            let target: ValueTarget? =
                below(3) == 0
                ? nil
                : ValueTarget(
                    comparison: below(2) == 0 ? .atLeast : .atMost, amount: try! Amount(thousandths: Int64(below(5000)))
                )
            return .value(ValueConfig(unit: "min", target: target))
        case 5: return .tally(TallyConfig(dailyTarget: 1 + below(5), unit: "glasses"))
        case 6: return .countdown(CountdownConfig(targetDay: start.advanced(by: below(60))))
        default: return .streak
        }
    }

    static func rule(_ random: inout SeededRandom) -> ScheduleRule {
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        switch below(5) {
        case 0: return .daily
        case 1:
            var days = Set(Weekday.allCases.filter { _ in below(2) == 0 })
            if days.isEmpty { days = [Weekday.allCases[below(7)]] }
            return .weekdays(days)
        case 2: return .everyNDays(2 + below(5))
        case 3: return .timesPerWeek(1 + below(7))
        default: return .timesPerMonth(1 + below(12))
        }
    }

    /// Taps, undos and backfills from several devices; a Day's check-ins may disagree, as they do
    /// in unmerged data, and some logs no longer fit the goal (an edited kind, a removed item).
    static func checkIns(_ random: inout SeededRandom, goal: Goal, today: Day) -> [CheckIn] {
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        var result: [CheckIn] = []
        let span = Swift.max(1, goal.startDay.days(to: today) + 12)
        // Long histories come in bursts of a few Days apart by long gaps, so streaks meet gaps.
        var offsets: [Int] = []
        if span > 500 {
            for _ in 0..<(1 + below(6)) {
                let first = below(span) - 4
                offsets += (first..<(first + 1 + below(12))).filter { $0 < span }
            }
            offsets.sort()
        } else {
            let density = 20 + below(80)
            offsets = (-4..<span).filter { _ in below(100) < density }
        }
        for offset in offsets {
            let zone = zones[below(zones.count)]
            let dayStart = [0, 180, 300][below(3)]
            let boundary = try! DayBoundary(timeZone: zone, dayStartMinutes: dayStart)
            let noon = Int64(goal.startDay.daysSince1970 + offset) * 86_400_000 + 43_200_000
            let at = try! Instant(millisecondsSince1970: noon + Int64(below(24 * 60) - 12 * 60) * 60_000)
            let day = boundary.day(containing: at)
            for copy in 0..<(below(10) == 0 ? 2 + below(2) : 1) {
                let modified = try! at.adding(milliseconds: Int64(below(3)) * 60_000 * Int64(copy + 1))
                let checkIn = try! CheckIn(
                    goalID: below(40) == 0 ? GoalID(high: 9, low: 9) : goal.id, day: day, log: log(&random, goal.kind),
                    firstRecordedAt: at, lastRecordedAt: at, timeZone: zone, deviceID: devices[below(devices.count)],
                    modifiedAt: modified)
                result.append(below(8) == 0 ? checkIn.deleting(at: modified) : checkIn)
            }
        }
        // Backfills arrive late: shuffle part of the history.
        for index in result.indices where below(10) == 0 {
            result.swapAt(index, below(result.count))
        }
        return result
    }

    static func log(_ random: inout SeededRandom, _ kind: GoalKind) -> CheckInLog {
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        if below(25) == 0 { return [.done, .skip, .tally(2), .value(.zero)][below(4)] }  // may not fit
        if below(7) == 0 { return .skip }
        switch kind {
        case .single, .streak, .countdown: return .done
        case .tally(let config): return .tally(below(config.dailyTarget + 2))
        case .value: return .value(try! Amount(thousandths: Int64(below(7000) - 1000)))
        case .progress(let config):
            return .amount(try! Amount(thousandths: config.target.thousandths / Int64(1 + below(4)) - Int64(below(3))))
        case .subgoals(let config):
            var items = Set(config.items.map(\.id).filter { _ in below(2) == 0 })
            if below(6) == 0 { items.insert(SubgoalItemID(high: 0x2, low: 99)) }  // an item removed since
            return .items(items)
        }
    }
}
