import GlowModel
import GlowStreaks
import GlowWire

/// A structure-aware harness: the input is read as a stream of 64-bit numbers that choose a valid
/// goal at the edges of what the model allows (start in year 1 or 9999, the largest targets and
/// amounts, every schedule) and a well-formed `CheckInBlock` for it whose field values are
/// hostile (extreme Days, gaps, seconds, deltas, log numbers, unknown zones). The block is
/// decoded; when it decodes, the goal is evaluated as of an extreme Day and every answer asked
/// for, so arithmetic that could overflow anywhere on the way is reached. Plain byte mutation
/// rarely builds such blocks: a campaign of 68 million runs of it found none of these traps.
enum HostileBlock {
    /// Numbers read from the input, 8 bytes at a time, little-endian; zeros once it runs out.
    struct Numbers {
        let bytes: [UInt8]
        var offset = 0

        mutating func next() -> UInt64 {
            var value: UInt64 = 0
            for shift in 0..<8 where offset + shift < bytes.count {
                value |= UInt64(bytes[offset + shift]) << (8 * shift)
            }
            offset += 8
            return value
        }

        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

        /// A value at an edge most of the time, any value otherwise.
        mutating func extreme() -> UInt64 {
            let edges: [UInt64] = [0, 1, 2, 1 << 31, 1 << 32, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, .max - 1]
            let choice = next()
            return choice % 4 == 0 ? next() : edges[Int(choice / 4 % UInt64(edges.count))]
        }

        /// A Day at an edge of the supported years, or anywhere in them.
        mutating func day() -> Day {
            let span = Day.max.daysSince1970 - Day.min.daysSince1970 + 1
            switch below(5) {
            case 0: return Day.min
            case 1: return Day.max
            case 2: return try! Day(daysSince1970: below(200) + 20_000)
            default: return try! Day(daysSince1970: Day.min.daysSince1970 + below(span))
            }
        }
    }

    static let goalID = GoalID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_0001)
    static let items = (1...3).map { SubgoalItemID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_0100 + $0) }

    static func run(_ input: [UInt8]) {
        var numbers = Numbers(bytes: input)
        let goal = makeGoal(&numbers)
        let bytes = makeBlock(&numbers)
        let today = numbers.day()
        let weekStart = Weekday.allCases[numbers.below(7)]
        guard let block = try? CheckInBlock(wire: bytes) else { return }
        let rewritten = block.wireEncoded()
        precondition((try? CheckInBlock(wire: rewritten)) == block, "a decoded block does not read back")
        let evaluation = GoalEvaluation(goal: goal, checkIns: block.checkIns, weekStart: weekStart, today: today)
        // The columns must tell evaluation what the check-ins built from them tell it.
        let columns = GoalEvaluation(goal: goal, history: block.history, weekStart: weekStart, today: today)
        precondition(
            columns.currentStreak == evaluation.currentStreak && columns.longestStreak == evaluation.longestStreak
                && columns.milestones == evaluation.milestones && columns.completion == evaluation.completion,
            "evaluating the columns differs from evaluating the check-ins")
        // A walk resumed from its checkpoint over the same history must end where the whole walk
        // did (STREAK-26), at the edges of the calendar too.
        var resumed = columns
        resumed.update(checkInsChangedOn: [today], history: block.history)
        precondition(
            resumed.currentStreak == columns.currentStreak && resumed.longestStreak == columns.longestStreak
                && resumed.milestones == columns.milestones && resumed.strength == columns.strength
                && resumed.consistency(lastDays: 30) == columns.consistency(lastDays: 30),
            "a resumed walk differs from the whole walk")
        let from = try? today.adding(days: -3)
        let to = try? today.adding(days: 3)
        _ = evaluation.statuses(in: (from ?? today)...(to ?? today))
        for window in [7, 30, 365, nil, Int.max, Int.min] as [Int?] { _ = evaluation.consistency(lastDays: window) }
        for checkIn in block.checkIns.prefix(8) {
            _ = evaluation.status(on: checkIn.day)
            _ = evaluation.level(on: checkIn.day)
        }
        _ = (evaluation.isOnToday, evaluation.milestones, evaluation.completion, evaluation.longestStreak)
        _ = TodayQuery.items(goals: [goal], checkIns: block.checkIns, weekStart: weekStart, today: today)
        _ = OverviewQuery.items(
            goals: [goal], checkIns: block.checkIns, weekStart: weekStart, today: today, weeks: numbers.below(60))
    }

    /// A valid goal at the edges of the model, or a daily streak when the numbers make none.
    static func makeGoal(_ numbers: inout Numbers) -> Goal {
        let start = numbers.day()
        let created = Instant.epoch
        let kind: GoalKind
        switch numbers.below(7) {
        case 0: kind = .single
        case 1:
            let config = SubgoalsConfig(
                items: items.prefix(1 + numbers.below(3)).map { SubgoalItem(id: $0, title: "Item") },
                recurring: numbers.below(2) == 0)
            kind = .subgoals(config)
        case 2:
            let target = numbers.below(2) == 0 ? Amount.limit : Int64(1 + numbers.below(1000))
            kind = .progress(ProgressConfig(target: try! Amount(thousandths: target), unit: "m"))
        case 3:
            let amount = try! Amount(thousandths: Int64(numbers.below(3)) * Amount.limit / 2)
            kind = .value(
                ValueConfig(
                    unit: "m",
                    target: ValueTarget(comparison: numbers.below(2) == 0 ? .atLeast : .atMost, amount: amount)))
        case 4: kind = .tally(TallyConfig(dailyTarget: 1 + numbers.below(10_000), unit: "x"))
        case 5: kind = .countdown(CountdownConfig(targetDay: numbers.day()))
        default: kind = .streak
        }
        let rules: [ScheduleRule] = [
            .daily, .everyNDays(1 + numbers.below(366)), .timesPerWeek(1 + numbers.below(7)),
            .timesPerMonth(1 + numbers.below(31)), .weekdays([Weekday.allCases[numbers.below(7)]]),
        ]
        let rule = rules[numbers.below(rules.count)]
        let forgiveness: Forgiveness? =
            numbers.below(2) == 0
            ? nil : Forgiveness(allowance: 1 + numbers.below(3), period: numbers.below(2) == 0 ? .week : .month)
        let schedule = kind.isRecurring ? try? Schedule(rule, from: start) : nil
        let goal = try? Goal(
            id: goalID, title: "Hostile", kind: kind, schedule: schedule, startDay: start,
            forgiveness: kind.isRecurring ? forgiveness : nil, createdAt: created, modifiedAt: created)
        return goal
            ?? (try! Goal(
                id: goalID, title: "Hostile", kind: .streak, schedule: Schedule(.daily, from: start), startDay: start,
                createdAt: created, modifiedAt: created))
    }

    /// A well-formed block message of up to 8 entries whose values come from the numbers.
    static func makeBlock(_ numbers: inout Numbers) -> [UInt8] {
        let count = numbers.below(9)
        let columns = numbers.next()  // which optional columns are present
        var writer = WireWriter()
        writer.bytes(1, goalID.bytes)
        writer.uint(2, UInt64(count))
        writer.sint(3, Int64(bitPattern: numbers.extreme()))
        func column(_ bit: Int, _ field: UInt32, _ length: Int, _ value: (inout Numbers) -> UInt64) {
            guard columns >> bit & 1 == 1 else { return }
            writer.packed(field, (0..<length).map { _ in value(&numbers) })
        }
        column(0, 4, Swift.max(0, count - 1)) { $0.below(3) == 0 ? $0.extreme() : UInt64($0.below(400)) }
        column(1, 5, count) { UInt64($0.below(7)) }
        column(2, 6, count) { $0.extreme() }
        if columns >> 3 & 1 == 1 { for item in items { writer.presentBytes(7, item.bytes) } }
        column(4, 8, count * 2) { UInt64($0.below(4)) }
        column(5, 9, count) { $0.extreme() }
        column(6, 10, count) { $0.below(2) == 0 ? $0.extreme() : UInt64($0.below(1000)) }
        column(7, 11, count) { $0.extreme() }
        column(8, 12, count) { $0.extreme() }
        let zones = ["UTC", "Europe/London", "Mars/Olympus_Mons", "GMT+5", ""]
        for zone in zones.prefix(1 + numbers.below(zones.count)) { writer.presentString(13, zone) }
        column(9, 14, count) { UInt64($0.below(6)) }
        writer.presentBytes(15, DeviceID(high: 1, low: 1).bytes)
        column(10, 17, numbers.below(3)) { UInt64($0.below(4)) }
        if columns >> 11 & 1 == 1 {
            writer.packed(18, [UInt64(numbers.below(Swift.max(1, count)))])
            writer.presentString(19, String(repeating: "é", count: numbers.below(600)))
        }
        return writer.bytes
    }
}
