import GlowModel
import GlowStreaks
import Testing

/// The tracker keeps Today, Overview and milestones current as data changes (STREAK-26); after
/// every change its answers must equal a full evaluation of the same data.
@Suite("Tracker")
struct TrackerTests {
    static let person = UserID(high: 0xE, low: 1)
    static let phone = DeviceID(high: 0xA, low: 1)
    static let watch = DeviceID(high: 0xA, low: 2)
    static let boundary = try! DayBoundary(timeZone: TimeZoneID("Europe/Berlin"), dayStartMinutes: 240)
    static let start = try! Day(iso: "2025-01-01")
    static let created = try! Instant(rfc3339: "2025-01-01T09:00:00Z")
    static let items = [
        SubgoalItem(id: SubgoalItemID(high: 5, low: 1), title: "Stretch"),
        SubgoalItem(id: SubgoalItemID(high: 5, low: 2), title: "Breathe"),
    ]

    static let kinds: [(GoalKind, ScheduleRule?)] = [
        (.tally(TallyConfig(dailyTarget: 3, unit: "glasses")), .daily),
        (.streak, .daily),
        (.streak, .timesPerWeek(3)),
        (.subgoals(SubgoalsConfig(items: items, recurring: true)), .weekdays([.monday, .wednesday, .friday])),
        (.progress(ProgressConfig(target: try! Amount(parsing: "20"), unit: "km")), nil),
        (.value(ValueConfig(unit: "kg", target: nil)), .everyNDays(2)),
        (.single, nil),
    ]

    static func goal(_ index: Int, _ random: inout SeededRandom) -> Goal {
        let (kind, rule) = kinds[index % kinds.count]
        let forgiveness = random.next() % 3 == 0 ? Forgiveness(allowance: 1, period: .week) : nil
        return try! Goal(
            id: GoalID(high: 1, low: UInt64(index)), title: "Goal \(index)", kind: kind,
            schedule: try rule.map { try Schedule($0, from: start) }, startDay: start,
            forgiveness: kind.isRecurring ? forgiveness : nil,
            createdAt: created.adding(milliseconds: Int64(random.next() % 4) * 1000),
            modifiedAt: created.adding(milliseconds: 5000))
    }

    static func data(_ random: inout SeededRandom) -> DataSet {
        var data = DataSet()
        try! data.setProfile(
            Profile(userID: person, displayName: "Mia", boundary: boundary, createdAt: created, modifiedAt: created))
        for index in 0..<kinds.count { try! data.add(goal(index, &random)) }
        return data
    }

    /// A tap that fits `goal`'s kind (most of the time: some do not, and must be refused).
    static func tap(for goal: Goal, _ random: inout SeededRandom) -> CheckInTap {
        let roll = random.next() % 10
        if roll == 0 { return .skip }
        switch goal.kind {
        case .tally: return .count(Int(random.next() % 4) - (roll == 1 ? 3 : 0))
        case .streak, .single: return .done
        case .subgoals: return (roll < 7 ? CheckInTap.check : CheckInTap.uncheck)([items[Int(random.next() % 2)].id])
        case .progress: return .add(try! Amount(thousandths: Int64(random.next() % 9000) - 1000))
        case .value: return .value(try! Amount(thousandths: Int64(random.next() % 90_000)))
        case .countdown: return .done
        }
    }

    /// One random change to `tracker` (and sometimes to the watch's copy, merged later).
    static func step(_ tracker: inout Tracker, watch: inout DataSet, clock: inout Instant, _ random: inout SeededRandom)
        throws -> Tracker.Update
    {
        clock = try clock.adding(milliseconds: Int64(random.next() % (30 * 3_600_000)))
        let goals = tracker.data.sortedGoals
        let goal = goals[Int(random.next() % UInt64(goals.count))]
        let pastDay = try tracker.today.adding(days: -Int(random.next() % 20))
        switch random.next() % 16 {
        case 0..<6: return try tracker.tap(tap(for: goal, &random), goal: goal.id, at: clock, device: phone)
        case 6..<8:
            return try tracker.tap(tap(for: goal, &random), goal: goal.id, on: pastDay, at: clock, device: phone)
        case 8: return try tracker.undo(goal: goal.id, on: pastDay, at: clock, device: phone)
        case 9: return try tracker.setNote("note \(random.next() % 3)", goal: goal.id, on: pastDay, at: clock)
        case 10:
            return goal.archived
                ? try tracker.unarchiveGoal(goal.id, from: tracker.today, at: clock)
                : try tracker.archiveGoal(goal.id, from: tracker.today, at: clock)
        case 11:
            return random.next() % 4 == 0
                ? try tracker.deleteGoal(goal.id, at: clock)
                : try tracker.editGoal(goal.id, at: clock) { $0.emoji = "✨" }
        case 12:
            let watchTap = tap(for: goal, &random)
            _ = try? watch.tap(watchTap, goal: goal.id, on: pastDay, at: clock, device: Self.watch, boundary: boundary)
            return try tracker.merge(watch)
        case 13:
            let weekStart: Weekday = random.next() % 2 == 0 ? .monday : .sunday
            return try tracker.editProfile(at: clock) { (fields: inout Profile.Changes) throws(ModelError) in
                fields.boundary = try DayBoundary(
                    timeZone: boundary.timeZone, dayStartMinutes: 240, weekStart: weekStart)
            }
        default: return tracker.advance(to: clock)
        }
    }

    @Test("after every change Today, Overview and milestones equal a full evaluation", arguments: 0..<120)
    func incrementalEqualsFull(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let data = Self.data(&random)
        var clock = try Self.created.adding(milliseconds: Int64(random.next() % 90) * 86_400_000)
        var tracker = try Tracker(data: data, now: clock)
        var watch = data
        var known = Set(tracker.milestones.map(\.id))
        for _ in 0..<40 {
            let before = tracker
            let update: Tracker.Update
            do {
                update = try Self.step(&tracker, watch: &watch, clock: &clock, &random)
            } catch let error as ModelError {
                // A refused change leaves the data as it was (the clock may not have moved at all).
                #expect(tracker.data == before.data, "\(error)")
                continue
            }
            #expect(tracker.todayItems == TodayQuery.items(tracker.data, boundary: tracker.boundary, now: tracker.now))
            #expect(
                tracker.overview(weeks: 3)
                    == OverviewQuery.items(tracker.data, boundary: tracker.boundary, now: tracker.now, weeks: 3))
            for id in update.revokedMilestones { #expect(known.remove(id) != nil, "revoked \(id) was never new") }
            for milestone in update.newMilestones {
                #expect(known.insert(milestone.id).inserted, "\(milestone.id) was new twice")
            }
            let full = tracker.data.goals.values.filter { !$0.deleted }.flatMap {
                GoalEvaluation(
                    goal: $0, checkIns: tracker.data.checkIns(of: $0.id), weekStart: tracker.boundary.weekStart,
                    today: tracker.today
                ).milestones.map(\.id)
            }
            #expect(known == Set(full))
            #expect(update.newDay == (tracker.today != before.today))
        }
    }

    @Test("a tap re-evaluates its goal alone and reports the milestone it reaches once")
    func milestoneOnce() throws {
        var random = SeededRandom(seed: 1)
        var tracker = try Tracker(data: Self.data(&random), now: try Instant(rfc3339: "2025-01-01T12:00:00Z"))
        let streak = GoalID(high: 1, low: 1)
        try tracker.editGoal(streak, at: Self.created) { $0.forgiveness = nil }  // a missed Day breaks it
        var reached: [Milestone] = []
        for offset in 0..<7 {
            let at = try Instant(rfc3339: "2025-01-01T12:00:00Z").adding(milliseconds: Int64(offset) * 86_400_000)
            let update = try tracker.tap(.done, goal: streak, at: at, device: Self.phone)
            #expect(update.changes.affectedGoals == [streak])
            reached += update.newMilestones
        }
        #expect(reached.map(\.id.milestone) == [3, 7])
        #expect(tracker.todayItems.first { $0.goalID == streak }?.streak == 7)
        // Undoing the third Day breaks the streak: both milestones go, and the two runs left are
        // too short for any.
        let undo = try tracker.undo(
            goal: streak, on: try Day(iso: "2025-01-03"), at: try Instant(rfc3339: "2025-01-07T13:00:00Z"),
            device: Self.phone)
        #expect(undo.revokedMilestones.map(\.milestone) == [3, 7])
        #expect(undo.newMilestones.map(\.id.milestone) == [3])  // the run of 4 from the 4th
        #expect(tracker.todayItems.first { $0.goalID == streak }?.streak == 4)
    }

    @Test("deleting a goal takes it off both lists and revokes its milestones")
    func deleteRevokes() throws {
        var random = SeededRandom(seed: 2)
        var tracker = try Tracker(data: Self.data(&random), now: try Instant(rfc3339: "2025-01-01T12:00:00Z"))
        let streak = GoalID(high: 1, low: 1)
        for offset in 0..<3 {
            let at = try Instant(rfc3339: "2025-01-01T12:00:00Z").adding(milliseconds: Int64(offset) * 86_400_000)
            try tracker.tap(.done, goal: streak, at: at, device: Self.phone)
        }
        let update = try tracker.deleteGoal(streak, at: try Instant(rfc3339: "2025-01-03T13:00:00Z"))
        #expect(update.revokedMilestones.map(\.milestone) == [3])
        #expect(!tracker.todayItems.contains { $0.goalID == streak })
        #expect(!tracker.overview().contains { $0.goalID == streak })
        #expect(tracker.evaluation(of: streak) == nil)
    }

    @Test("a new Day re-evaluates every goal; the clock never goes back")
    func newDay() throws {
        var random = SeededRandom(seed: 3)
        let noon = try Instant(rfc3339: "2025-01-05T12:00:00Z")
        var tracker = try Tracker(data: Self.data(&random), now: noon)
        #expect(tracker.advance(to: try Instant(rfc3339: "2025-01-05T23:00:00Z")).isEmpty)
        // 03:30 UTC is 04:30 in Berlin, past the 04:00 day start: the 6th.
        let update = tracker.advance(to: try Instant(rfc3339: "2025-01-06T03:30:00Z"))
        let sixth = try Day(iso: "2025-01-06")
        #expect(update.newDay && tracker.today == sixth)
        #expect(!tracker.advance(to: noon).newDay)
        #expect(tracker.today == sixth)
    }

    @Test("a tracker needs a day boundary; another person's data is refused")
    func refusals() throws {
        #expect(throws: ModelError.self) { try Tracker(data: DataSet(), now: Self.created) }
        let empty = try Tracker(data: DataSet(), now: Self.created, boundary: Self.boundary)
        #expect(empty.todayItems.isEmpty && empty.today == Self.start)
        var random = SeededRandom(seed: 4)
        var tracker = try Tracker(data: Self.data(&random), now: Self.created)
        var stranger = DataSet()
        try stranger.setProfile(
            Profile(
                userID: UserID(high: 0xE, low: 2), displayName: "Noor", boundary: Self.boundary,
                createdAt: Self.created, modifiedAt: Self.created))
        let before = tracker.data
        do {
            try tracker.merge(stranger)
            Issue.record("another person's data merged")
        } catch {
            #expect(error.code == .invalidProfile)
        }
        #expect(tracker.data == before)
    }
}
