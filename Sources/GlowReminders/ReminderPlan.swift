import GlowModel
import GlowStreaks

/// One local notification of a plan (REMIND-9): what an app hands its platform's notification
/// centre, with a text key and arguments to put in the person's language.
public struct PlannedNotification: Hashable, Sendable, Identifiable {
    /// What the notification is for.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A streak would break tonight (REMIND-6).
        case streakAtRisk
        /// A goal reminder at one of its times (REMIND-5).
        case due
        /// A snooze the person asked for (REMIND-8).
        case snooze

        /// The order of kinds among notifications at one instant (REMIND-10).
        var rank: Int {
            switch self {
            case .streakAtRisk: 0
            case .due: 1
            case .snooze: 2
            }
        }
    }

    /// When it fires.
    public let at: Instant
    /// Its goal.
    public let goal: GoalID
    /// What it is for.
    public let kind: Kind
    /// The Day it serves (REMIND-3).
    public let day: Day
    /// For a goal reminder, the setting's minute of the day; for a nudge, the streak's length;
    /// for a snooze, the instant it was asked for in milliseconds since 1970.
    let detail: Int64
    /// The goal's title.
    public let title: String
    /// The goal's emoji, empty for none.
    public let emoji: String

    /// For a nudge, the length of the streak at risk; nil for the other kinds.
    public var streakLength: Int? { kind == .streakAtRisk ? Int(detail) : nil }

    init(kind: Kind, goal: GoalID, day: Day, at: Instant, detail: Int64, title: String, emoji: String) {
        self.kind = kind
        self.goal = goal
        self.day = day
        self.at = at
        self.detail = detail
        self.title = title
        self.emoji = emoji
    }

    /// Stable across plans: `due/GOAL/DAY/HH:MM`, `risk/GOAL/DAY` or `snooze/GOAL/AT`.
    public var id: String {
        switch kind {
        case .due: "due/\(goal)/\(day)/\(ReminderPlanner.clock(Int(detail)))"
        case .streakAtRisk: "risk/\(goal)/\(day)"
        case .snooze: "snooze/\(goal)/\(detail)"
        }
    }

    /// `goal/GOAL`, so a notification centre groups a goal's notifications.
    public var thread: String { "goal/\(goal)" }
    /// The text's key: `reminder.due`, `reminder.streakAtRisk` or `reminder.snooze`.
    public var key: String { "reminder.\(kind.rawValue)" }
    /// The text's arguments: the title and emoji, and for a nudge the streak's length.
    public var arguments: [String] { kind == .streakAtRisk ? [title, emoji, "\(detail)"] : [title, emoji] }

    /// Plan order (REMIND-10): instant, then kind, then identifier as UTF-8 bytes.
    ///
    /// Of one instant and kind, identifiers differ first in the goal's (lower-case hexadecimal
    /// of fixed width, so in the order of its 128 bits), then the Day's (`YYYY-MM-DD`, in Day
    /// order), then the minute's (`HH:MM`); two snoozes of one goal at one instant are one. So the
    /// order compares those numbers, never building the text.
    static func precedes(_ a: Self, _ b: Self) -> Bool {
        if a.at != b.at { return a.at < b.at }
        if a.kind != b.kind { return a.kind.rank < b.kind.rank }
        if a.goal.high != b.goal.high { return a.goal.high < b.goal.high }
        if a.goal.low != b.goal.low { return a.goal.low < b.goal.low }
        if a.day != b.day { return a.day < b.day }
        return a.detail < b.detail
    }

    /// `items` in plan order, sorted by their order's numbers alone, so the sort moves small keys
    /// rather than notifications.
    static func inPlanOrder(_ items: [PlannedNotification]) -> [PlannedNotification] {
        items.indices.map { OrderKey(items[$0], index: $0) }.sorted().map { items[$0.index] }
    }

    /// The numbers plan order compares (``precedes(_:_:)``), and where the notification is.
    struct OrderKey: Comparable {
        let at: Int64
        let rank: Int
        let high: UInt64
        let low: UInt64
        let day: Int
        let detail: Int64
        let index: Int

        init(_ item: PlannedNotification, index: Int) {
            at = item.at.millisecondsSince1970
            rank = item.kind.rank
            high = item.goal.high
            low = item.goal.low
            day = item.day.daysSince1970
            detail = item.detail
            self.index = index
        }

        static func < (a: Self, b: Self) -> Bool {
            (a.at, a.rank, a.high, a.low, a.day, a.detail) < (b.at, b.rank, b.high, b.low, b.day, b.detail)
        }
    }
}

/// The local notifications to schedule for the coming Days (REMIND-2 ... REMIND-10): at most
/// ``limit``, and those the limit left out.
public struct ReminderPlan: Hashable, Sendable {
    /// The most notifications a plan holds: iOS keeps no more pending for an app.
    public static let limit = 64

    /// The notifications to schedule, in plan order.
    public let notifications: [PlannedNotification]
    /// The notifications past the limit, in plan order: plan again before the first fires.
    public let leftOut: [PlannedNotification]

    /// What an app changes in its notification centre to go from `previous` to this plan
    /// (REMIND-11): cancel what differs or went, add what differs or came.
    ///
    /// - Complexity: O(n) for n notifications: both plans are in plan order, where a notification
    ///   unchanged in content keeps its place, so one walk through both finds every difference.
    public func change(from previous: ReminderPlan) -> ReminderChange {
        Self.change(from: previous.notifications, to: notifications)
    }

    /// The change from `old` to `new`, both in plan order (REMIND-11).
    static func change(from old: [PlannedNotification], to new: [PlannedNotification]) -> ReminderChange {
        var cancel: [String] = []
        var add: [PlannedNotification] = []
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && PlannedNotification.precedes(old[i], new[j])) {
                cancel.append(old[i].id)
                i += 1
            } else if i == old.count || PlannedNotification.precedes(new[j], old[i]) {
                add.append(new[j])
                j += 1
            } else {
                // The same instant, kind and identifier: kept when the rest is the same too.
                if old[i] != new[j] {
                    cancel.append(old[i].id)
                    add.append(new[j])
                }
                i += 1
                j += 1
            }
        }
        return ReminderChange(cancel: cancel, add: add)
    }

    /// A plan of `all`, in plan order: the first ``limit`` and the rest.
    init(ordered all: some Collection<PlannedNotification>) {
        notifications = Array(all.prefix(Self.limit))
        leftOut = Array(all.dropFirst(Self.limit))
    }
}

/// The difference between two plans (REMIND-11).
public struct ReminderChange: Hashable, Sendable {
    /// The identifiers to cancel, in the previous plan's order.
    public let cancel: [String]
    /// The notifications to add, in the new plan's order.
    public let add: [PlannedNotification]

    /// Whether nothing changes.
    public var isEmpty: Bool { cancel.isEmpty && add.isEmpty }
}

/// Makes reminder plans (REMIND-2 ... REMIND-10).
public enum ReminderPlanner {
    /// The plan for `data` at `now` under `boundary`, covering `days` Days (1 ... 31) from today:
    /// each goal's reminders are its own settings (``Goal/reminders``), and the nudge, quiet hours
    /// and snooze length the profile's (``Profile/reminders``).
    ///
    /// - Parameters:
    ///   - person: settings to plan with instead of the profile's (a data set without a profile
    ///     has ``PersonReminders/standard``).
    ///   - snoozes: the snoozes the person asked for.
    /// - Throws: ``ModelError/Code/invalidReminder`` at `days` for a number of Days outside
    ///   1 ... 31.
    /// - Complexity: one evaluation of each goal with settings, a nudge or a snooze (two for a
    ///   goal whose streak may be at risk), then O(g × d × t) for g goals, d Days and t times.
    ///   An app that keeps a ``Tracker`` plans from its evaluations with ``ReminderKeeper``.
    public static func plan(
        data: DataSet, boundary: DayBoundary, now: Instant, days: Int = 7, person: PersonReminders? = nil,
        snoozes: [Snooze] = []
    ) throws(ModelError) -> ReminderPlan {
        var context = try Context(
            boundary: boundary, now: now, days: days, person: person ?? data.profile?.reminders ?? .standard,
            snoozes: snoozes)
        var all: [PlannedNotification] = []
        for goal in data.sortedGoals where context.plans(goal) {
            let evaluation = GoalEvaluation(
                goal: goal, history: data.history(of: goal.id), weekStart: boundary.weekStart, today: context.today)
            all += context.notifications(goal, evaluation)
        }
        return context.plan(all)
    }

    /// Whether a Day with `status` still waits for the goal (REMIND-5): pending or partly done
    /// today, upcoming after it.
    static func waits(_ status: DayStatus, today: Bool) -> Bool {
        switch status {
        case .pending, .partial: today
        case .upcoming: !today
        default: false
        }
    }

    /// `HH:MM` of a minute of the day (0 ..< 1440).
    public static func clock(_ minute: Int) -> String {
        let hours = minute / 60
        let minutes = minute % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }
}

/// What one plan is made under, and one goal's notifications from its evaluation: the planner
/// and the keeper share it, so a kept plan is always the plan made afresh.
struct Context: Sendable {
    let person: PersonReminders
    let days: Int
    var snoozes: [GoalID: [Snooze]]
    let today: Day
    let lastDay: Day
    var placer: Placer

    init(
        boundary: DayBoundary, now: Instant, days: Int, person: PersonReminders, snoozes: [Snooze]
    ) throws(ModelError) {
        guard (1...31).contains(days) else {
            throw ModelError(
                .invalidReminder, "a plan covers 1 ... 31 Days, not \(days)", path: "days", rule: "REMIND-1")
        }
        self.init(boundary: boundary, now: now, checkedDays: days, person: person, snoozes: snoozes)
    }

    /// A context for a number of Days already checked to be 1 ... 31.
    init(
        boundary: DayBoundary, now: Instant, checkedDays days: Int, person: PersonReminders, snoozes: [Snooze]
    ) {
        self.person = person
        self.days = days
        // REMIND-8: snoozes of one goal asked at one instant are one.
        self.snoozes = Dictionary(grouping: Set(snoozes), by: \.goal).mapValues { $0.sorted { $0.at < $1.at } }
        today = boundary.day(containing: now)
        lastDay = Day(unchecked: Swift.min(today.daysSince1970 + days - 1, Day.max.daysSince1970))
        placer = Placer(boundary: boundary, now: now, quiet: person.quietHours)
    }

    /// Whether `goal` can have notifications: not deleted, and with settings that are on, a
    /// nudge, or a snooze.
    func plans(_ goal: Goal) -> Bool {
        guard !goal.deleted else { return false }
        return goal.reminders?.enabled == true || nudges(goal) || snoozes[goal.id] != nil
    }

    private func nudges(_ goal: Goal) -> Bool {
        person.streakAtRisk != nil && goal.reminders?.enabled != false && goal.kind.isRecurring
    }

    /// `goal`'s notifications (REMIND-5, REMIND-6, REMIND-8), from its evaluation as of today.
    mutating func notifications(_ goal: Goal, _ evaluation: GoalEvaluation) -> [PlannedNotification] {
        guard plans(goal) else { return [] }
        var out: [PlannedNotification] = []
        let emoji = goal.emoji ?? ""
        func notification(_ kind: PlannedNotification.Kind, at: Instant, day: Day, detail: Int64)
            -> PlannedNotification
        {
            PlannedNotification(
                kind: kind, goal: goal.id, day: day, at: at, detail: detail, title: goal.title, emoji: emoji)
        }
        // REMIND-5: each allowed Day the goal still waits for, at each time.
        if let own = goal.reminders, own.enabled {
            for (offset, status) in evaluation.statuses(of: today...lastDay).enumerated() {
                let day = Day(unchecked: today.daysSince1970 + offset)
                if let weekdays = own.weekdays, !weekdays.contains(day.weekday) { continue }
                guard ReminderPlanner.waits(status, today: day == today) else { continue }
                for minute in own.times {
                    guard let at = placer.instant(of: minute, serving: day) else { continue }
                    out.append(notification(.due, at: at, day: day, detail: Int64(minute)))
                }
            }
        }
        // REMIND-6: tonight's nudge, when leaving today as it is would break the streak.
        if nudges(goal), let risk = person.streakAtRisk, let streak = evaluation.currentStreak,
            streak.length >= risk.minimumStreak, evaluation.breaksTonight,
            let at = placer.instant(of: risk.minute, serving: today)
        {
            out.append(notification(.streakAtRisk, at: at, day: today, detail: Int64(streak.length)))
        }
        // REMIND-8: a snooze waits its length, quiet hours or not.
        for snooze in snoozes[goal.id] ?? [] {
            let (at, overflow) = snooze.at.millisecondsSince1970.addingReportingOverflow(
                Int64(person.snoozeMinutes) * 60_000)
            guard !overflow, at <= Instant.max.millisecondsSince1970, at > placer.now.millisecondsSince1970 else {
                continue
            }
            let served = placer.boundary.day(containing: snooze.at)
            let status = evaluation.status(on: served)
            guard status != .done, status != .skipped else { continue }
            out.append(
                notification(.snooze, at: Instant(unchecked: at), day: served, detail: snooze.at.millisecondsSince1970))
        }
        return out
    }

    /// REMIND-10: those still after now, in plan order, the soonest 64 planned.
    func plan(_ notifications: [PlannedNotification]) -> ReminderPlan {
        let now = placer.now
        return ReminderPlan(ordered: PlannedNotification.inPlanOrder(notifications.filter { $0.at > now }))
    }
}

/// Where the minutes of a Day fall (REMIND-3, REMIND-4, REMIND-7), each wall-clock reading's
/// instant worked out once.
struct Placer: Sendable {
    let boundary: DayBoundary
    var now: Instant
    let quiet: PersonReminders.QuietHours?
    /// The instant of each local wall-clock reading asked about (seconds since 1970, local),
    /// with the reading the clock shows at that instant (another one in a gap).
    private var instants: [Int64: Reading] = [:]

    struct Reading: Sendable {
        let at: Instant
        let date: Day
        let minute: Int
    }

    init(boundary: DayBoundary, now: Instant, quiet: PersonReminders.QuietHours?) {
        self.boundary = boundary
        self.now = now
        self.quiet = quiet
    }

    /// The instant of `minute` for `day`, moved out of quiet hours; nil when quiet hours drop it
    /// or it is not after now.
    mutating func instant(of minute: Int, serving day: Day) -> Instant? {
        // REMIND-3: a time before the day start falls on the next calendar date.
        let date =
            minute >= boundary.dayStartMinutes || day == Day.max ? day : Day(unchecked: day.daysSince1970 + 1)
        let reading = instant(minute, on: date)
        var at = reading.at
        if let quiet, quiet.contains(reading.minute) {
            var moved = instant(quiet.end, on: reading.date).at
            if moved <= at, reading.date < Day.max {
                moved = instant(quiet.end, on: Day(unchecked: reading.date.daysSince1970 + 1)).at
            }
            // The Day ends where the next one starts: its day start on the next date.
            let end =
                day < Day.max
                ? instant(boundary.dayStartMinutes, on: Day(unchecked: day.daysSince1970 + 1)).at
                : boundary.instants(of: day).upperBound
            guard moved > at, moved < end else { return nil }
            at = moved
        }
        return at > now ? at : nil
    }

    /// The earliest instant whose wall clock reads at or after `minute` on `date` (REMIND-4).
    ///
    /// Most readings lie a day away from any change of offset: when the offset is the same 15
    /// hours before and 13 hours after the reading (the window where its instant can lie) and
    /// at the instant it gives, that instant is the answer. Otherwise the boundary works it out
    /// exactly, through the gap or the overlap.
    private mutating func instant(_ minute: Int, on date: Day) -> Reading {
        let local = Int64(date.daysSince1970) * 86_400 + Int64(minute) * 60
        if let known = instants[local] { return known }
        let zone = boundary.timeZone
        let offset = Int64(zone.offsetSeconds(at: local - 15 * 3600))
        let candidate = local - offset
        let reading: Reading
        let limits = Instant.min.millisecondsSince1970...Instant.max.millisecondsSince1970
        if Int64(zone.offsetSeconds(at: local + 13 * 3600)) == offset,
            Int64(zone.offsetSeconds(at: candidate)) == offset, limits.contains(candidate * 1000)
        {
            // One offset throughout: the clock reads exactly what was asked.
            reading = Reading(at: Instant(unchecked: candidate * 1000), date: date, minute: minute)
        } else {
            let at = boundary.instant(atOrAfter: minute, on: date)
            let (wallDate, wallMinute) = boundary.wallClock(at: at)
            reading = Reading(at: at, date: wallDate, minute: wallMinute)
        }
        instants[local] = reading
        return reading
    }
}
