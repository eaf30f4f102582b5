import GlowModel
import GlowReminders
import GlowStreaks
import Testing

/// Reminder plans over random data (REMIND-5 ... REMIND-11): what the corpus shows case by case,
/// held here for many people at once.
@Suite("Reminder plans")
struct ReminderPlanTests {
    /// Issue 45 item 7, as an app writes it: a SwiftUI `List` or `ForEach` takes a plan's
    /// notifications by their own ids, and their instants go to the platform as `Date`s.
    @Test("a plan's notifications are Identifiable by their ids, and their instants are Dates")
    func identifiable() throws {
        func ids<Element: Identifiable>(_ elements: [Element]) -> [Element.ID] { elements.map(\.id) }
        var random = SeededRandom(seed: 45)
        let plan = try Self.person(&random).plan()
        #expect(!plan.notifications.isEmpty)
        #expect(ids(plan.notifications) == plan.notifications.map { $0.id as String })
        #expect(Set(ids(plan.notifications)).count == plan.notifications.count, "ids repeat")
        for notification in plan.notifications {
            #expect(Instant(notification.at.date) == notification.at)
        }
    }

    static let phone = DeviceID(high: 0xA, low: 1)
    static let start = try! Day(iso: "2026-01-01")
    static let created = try! Instant(rfc3339: "2026-01-01T09:00:00Z")
    static let zones = ["Europe/London", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Asia/Kolkata"]
    static let kinds: [(GoalKind, ScheduleRule?)] = [
        (.tally(TallyConfig(dailyTarget: 3, unit: "glasses")), .daily),
        (.streak, .daily),
        (.streak, .timesPerWeek(3)),
        (.streak, .weekdays([.monday, .wednesday, .friday])),
        (.value(ValueConfig(unit: "kg", target: nil)), .everyNDays(2)),
        (.single, nil),
    ]

    /// A person with every kind of goal, some history, random settings (kept in the goals and the
    /// profile) and a random now.
    struct Person {
        var data: DataSet
        var boundary: DayBoundary
        var now: Instant

        func plan(days: Int = 7) throws -> ReminderPlan {
            try ReminderPlanner.plan(data: data, boundary: boundary, now: now, days: days)
        }
    }

    static func person(_ random: inout SeededRandom) throws -> Person {
        let zone = zones[Int(random.next() % UInt64(zones.count))]
        let boundary = try DayBoundary(
            timeZone: TimeZoneID(zone), dayStartMinutes: [0, 180, 240][Int(random.next() % 3)])
        var data = DataSet()
        for (index, (kind, rule)) in kinds.enumerated() {
            let id = GoalID(high: 1, low: UInt64(index + 1))
            let times = Set((0..<(1 + random.next() % 3)).map { _ in Int(random.next() % 1440) })
            try data.add(
                Goal(
                    id: id, title: "Goal \(index)", kind: kind,
                    schedule: try rule.map { try Schedule($0, from: start) },
                    startDay: start,
                    forgiveness: random.next() % 3 == 0 && kind.isRecurring
                        ? Forgiveness(allowance: 1, period: .week) : nil,
                    reminders: try GoalReminders(times: Array(times), enabled: random.next() % 5 != 0),
                    createdAt: created, modifiedAt: created))
        }
        // Up to three months of history, then now somewhere in the fourth.
        let now = try created.adding(milliseconds: Int64(90 + random.next() % 30) * 86_400_000)
        let today = boundary.day(containing: now)
        for (index, (kind, _)) in kinds.enumerated() {
            for back in 1...60 where random.next() % 3 != 0 {
                let day = today.advanced(by: -back)
                let tap: CheckInTap = kind.isRecurring && random.next() % 8 == 0 ? .skip : Self.tap(kind)
                _ = try data.tap(
                    tap, goal: GoalID(high: 1, low: UInt64(index + 1)), on: day, at: now, device: phone,
                    boundary: boundary)
            }
        }
        let quiet = random.next() % 2 == 0 ? try PersonReminders.QuietHours(start: 1320, end: 420) : nil
        let risk = try PersonReminders.StreakAtRisk(minute: 1260, minimumStreak: 1 + Int(random.next() % 3))
        try data.setProfile(
            Profile(
                userID: UserID(high: 2, low: 1), displayName: "Mia", boundary: boundary,
                reminders: try PersonReminders(streakAtRisk: risk, quietHours: quiet), createdAt: created,
                modifiedAt: created))
        return Person(data: data, boundary: boundary, now: now)
    }

    static func tap(_ kind: GoalKind) -> CheckInTap {
        switch kind {
        case .tally: .count(3)
        case .value: .value(try! Amount(parsing: "70"))
        default: .done
        }
    }

    /// Plan order as REMIND-10 states it.
    static func ordered(_ a: PlannedNotification, _ b: PlannedNotification) -> Bool {
        let ranks: [PlannedNotification.Kind: Int] = [.streakAtRisk: 0, .due: 1, .snooze: 2]
        if a.at != b.at { return a.at < b.at }
        if a.kind != b.kind { return ranks[a.kind]! < ranks[b.kind]! }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    @Test("a change applied to the previous plan gives the new one; a tap touches only its goal")
    func changes() throws {
        var changed = 0
        for seed in 0..<40 {
            var random = SeededRandom(seed: UInt64(seed))
            var person = try Self.person(&random)
            // Two Days: at most 6 goals × 3 times × 2 Days, under the limit, so a tap frees nothing.
            let before = try person.plan(days: 2)
            // A tap today on a random goal.
            let index = Int(random.next() % UInt64(Self.kinds.count))
            let tapped = GoalID(high: 1, low: UInt64(index + 1))
            _ = try person.data.tap(
                Self.tap(Self.kinds[index].0), goal: tapped, at: person.now, device: Self.phone,
                boundary: person.boundary)
            let after = try person.plan(days: 2)
            let change = after.change(from: before)
            let cancelled = Set(change.cancel)
            let applied = (before.notifications.filter { !cancelled.contains($0.id) } + change.add).sorted(
                by: Self.ordered)
            #expect(applied == after.notifications, "seed \(seed)")
            #expect(before.leftOut.isEmpty && after.leftOut.isEmpty)
            let touched = Set(change.add.map(\.goal)).union(
                before.notifications.filter { cancelled.contains($0.id) }.map(\.goal))
            #expect(touched.isSubset(of: [tapped]), "seed \(seed): a tap on \(tapped) touched \(touched)")
            if !change.isEmpty { changed += 1 }
            // The change from a plan to itself is nothing.
            #expect(after.change(from: after).isEmpty)
        }
        // Most taps finish a goal's Day and so cancel something: the checks above had work to do.
        #expect(changed >= 10, "only \(changed) of 40 taps changed a plan")
    }

    @Test(
        "every plan is ordered, after now, at most 64, with unique identifiers, and the same twice", arguments: 0..<40)
    func shape(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(1_000 + seed))
        let person = try Self.person(&random)
        let plan = try person.plan(days: 31)
        #expect(plan.notifications.count <= ReminderPlan.limit)
        #expect(plan.leftOut.isEmpty || plan.notifications.count == ReminderPlan.limit)
        let all = plan.notifications + plan.leftOut
        #expect(all == all.sorted(by: Self.ordered))
        #expect(Set(all.map(\.id)).count == all.count)
        #expect(all.allSatisfy { $0.at > person.now })
        #expect(try person.plan(days: 31) == plan)
        // Nothing for a Day its goal no longer waits for: done today means no due reminder today.
        let today = person.boundary.day(containing: person.now)
        for notification in all where notification.kind == .due && notification.day == today {
            let goal = try #require(person.data.goals[notification.goal])
            let status = GoalEvaluation(
                goal: goal, history: person.data.history(of: goal.id), weekStart: person.boundary.weekStart,
                today: today
            ).status(on: today)
            #expect(status == .pending || { if case .partial = status { true } else { false } }(), "\(status)")
        }
    }

    @Test(
        "settings outside REMIND-1 are refused by name",
        arguments: [
            ([], nil, "times"), ([1440], nil, "times[0]"), ([60, 60], nil, "times"), ([60], Set<Weekday>(), "weekdays"),
        ] as [([Int], Set<Weekday>?, String)])
    func refused(_ times: [Int], _ weekdays: Set<Weekday>?, _ path: String) {
        #expect {
            _ = try GoalReminders(times: times, weekdays: weekdays)
        } throws: { error in
            (error as? ModelError).map { $0.code == .invalidReminder && $0.path == path } ?? false
        }
    }

    @Test("a keeper beside a tracker always holds the plan made afresh, and its changes lead from plan to plan")
    func keeper() throws {
        for seed in 0..<12 {
            var random = SeededRandom(seed: UInt64(2_000 + seed))
            let person = try Self.person(&random)
            var tracker = try Tracker(data: person.data, now: person.now, boundary: person.boundary)
            var snoozes: [Snooze] = []
            var keeper = try ReminderKeeper(tracker: tracker)
            var clock = person.now
            for step in 0..<30 {
                let before = keeper.plan
                let goal = GoalID(high: 1, low: UInt64(1 + random.next() % UInt64(Self.kinds.count)))
                let change: ReminderChange
                switch random.next() % 7 {
                case 0:
                    // New settings for a goal, or none: an edit of the goal.
                    let fresh = random.next() % 4 == 0 ? nil : try GoalReminders(times: [Int(random.next() % 1440)])
                    let update = try tracker.editGoal(goal, at: clock) { $0.reminders = fresh }
                    change = keeper.refresh(tracker, after: update)
                case 6:
                    // The person moves the nudge or the quiet hours: an edit of the profile.
                    let reminders = try PersonReminders(
                        streakAtRisk: random.next() % 3 == 0
                            ? nil : try .init(minute: Int(random.next() % 1440), minimumStreak: 1),
                        quietHours: random.next() % 2 == 0 ? nil : try .init(start: 1380, end: 360))
                    let update = try tracker.editProfile(at: clock) { $0.reminders = reminders }
                    change = keeper.refresh(tracker, after: update)
                case 1:
                    let snooze = Snooze(goal: goal, at: clock)
                    snoozes.append(snooze)
                    change = keeper.snooze(snooze, tracker: tracker)
                default:
                    // The clock moves on up to nine hours, so Days turn; then a tap on the goal.
                    clock = try clock.adding(milliseconds: Int64(random.next() % 540) * 60_000)
                    let index = Int(goal.low) - 1
                    let update = try tracker.tap(
                        Self.tap(Self.kinds[index].0), goal: goal, at: clock, device: Self.phone)
                    change = keeper.refresh(tracker, after: update)
                }
                let fresh = try ReminderPlanner.plan(
                    data: tracker.data, boundary: tracker.boundary, now: tracker.now, snoozes: snoozes)
                #expect(keeper.plan == fresh, "seed \(seed), step \(step)")
                let cancelled = Set(change.cancel)
                let applied = (before.notifications.filter { !cancelled.contains($0.id) } + change.add).sorted(
                    by: Self.ordered)
                #expect(applied == keeper.plan.notifications, "seed \(seed), step \(step)")
            }
        }
    }
}
