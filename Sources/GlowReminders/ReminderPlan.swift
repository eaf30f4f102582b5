import GlowModel
import GlowStreaks

/// One local notification of a plan (REMIND-9): what an app hands its platform's notification
/// centre, with a text key and arguments to put in the person's language.
public struct PlannedNotification: Hashable, Sendable {
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

    /// Stable across plans: `due/GOAL/DAY/HH:MM`, `risk/GOAL/DAY` or `snooze/GOAL/AT`.
    public let id: String
    /// When it fires.
    public let at: Instant
    /// Its goal.
    public let goal: GoalID
    /// What it is for.
    public let kind: Kind
    /// The Day it serves (REMIND-3).
    public let day: Day
    /// `goal/GOAL`, so a notification centre groups a goal's notifications.
    public let thread: String
    /// The text's key: `reminder.due`, `reminder.streakAtRisk` or `reminder.snooze`.
    public let key: String
    /// The text's arguments: the title and emoji, and for a nudge the streak's length.
    public let arguments: [String]

    /// Plan order (REMIND-10): instant, then kind, then identifier as UTF-8 bytes.
    static func precedes(_ a: Self, _ b: Self) -> Bool {
        if a.at != b.at { return a.at < b.at }
        if a.kind != b.kind { return a.kind.rank < b.kind.rank }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
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
    public func change(from previous: ReminderPlan) -> ReminderChange {
        let kept = Set(notifications)
        let had = Set(previous.notifications)
        return ReminderChange(
            cancel: previous.notifications.filter { !kept.contains($0) }.map(\.id),
            add: notifications.filter { !had.contains($0) })
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
    /// The plan for `data` at `now` under `boundary`, covering `days` Days (1 ... 31) from today.
    ///
    /// - Parameters:
    ///   - settings: each goal's reminder settings; a goal without any has no reminders of its own.
    ///   - person: the nudge, quiet hours and snooze length.
    ///   - snoozes: the snoozes the person asked for.
    /// - Throws: ``ReminderError`` for a number of Days outside 1 ... 31.
    /// - Complexity: one evaluation of each goal with settings, a nudge or a snooze (two for a
    ///   goal whose streak may be at risk), then O(g × d × t) for g goals, d Days and t times.
    public static func plan(
        data: DataSet, boundary: DayBoundary, now: Instant, days: Int = 7, settings: [GoalID: GoalReminders],
        person: PersonReminders, snoozes: [Snooze] = []
    ) throws(ReminderError) -> ReminderPlan {
        guard (1...31).contains(days) else {
            throw ReminderError("a plan covers 1 ... 31 Days, not \(days)", path: "days")
        }
        let today = boundary.day(containing: now)
        let lastDay = Day(unchecked: Swift.min(today.daysSince1970 + days - 1, Day.max.daysSince1970))
        var placer = Placer(boundary: boundary, now: now, quiet: person.quietHours)
        var all: [PlannedNotification] = []
        let snoozed = Dictionary(grouping: snoozes, by: \.goal)
        for goal in data.sortedGoals where !goal.deleted {
            let own = settings[goal.id]
            let nudges = person.streakAtRisk != nil && own?.enabled != false && goal.kind.isRecurring
            guard own?.enabled == true || nudges || snoozed[goal.id] != nil else { continue }
            let history = data.history(of: goal.id)
            let evaluation = GoalEvaluation(goal: goal, history: history, weekStart: boundary.weekStart, today: today)
            func notification(
                _ kind: PlannedNotification.Kind, _ id: String, at: Instant, day: Day, extra: [String] = []
            )
                -> PlannedNotification
            {
                PlannedNotification(
                    id: id, at: at, goal: goal.id, kind: kind, day: day, thread: "goal/\(goal.id)",
                    key: "reminder.\(kind.rawValue)", arguments: [goal.title, goal.emoji ?? ""] + extra)
            }
            // REMIND-5: each allowed Day the goal still waits for, at each time.
            if let own, own.enabled {
                for number in today.daysSince1970...lastDay.daysSince1970 {
                    let day = Day(unchecked: number)
                    if let weekdays = own.weekdays, !weekdays.contains(day.weekday) { continue }
                    guard Self.waits(evaluation.status(on: day), today: day == today) else { continue }
                    for minute in own.times {
                        guard let at = placer.instant(of: minute, serving: day) else { continue }
                        let id = "due/\(goal.id)/\(day)/\(Self.clock(minute))"
                        all.append(notification(.due, id, at: at, day: day))
                    }
                }
            }
            // REMIND-6: tonight's nudge, when leaving today as it is would break the streak.
            if nudges, let risk = person.streakAtRisk, Self.waits(evaluation.status(on: today), today: true),
                let streak = evaluation.currentStreak, streak.length >= risk.minimumStreak, today < Day.max
            {
                let tomorrow = GoalEvaluation(
                    goal: goal, history: history, weekStart: boundary.weekStart, today: today.advanced(by: 1))
                if tomorrow.currentStreak?.start != streak.start,
                    let at = placer.instant(of: risk.minute, serving: today)
                {
                    all.append(
                        notification(
                            .streakAtRisk, "risk/\(goal.id)/\(today)", at: at, day: today, extra: ["\(streak.length)"]))
                }
            }
            // REMIND-8: a snooze waits its length, quiet hours or not.
            for snooze in snoozed[goal.id] ?? [] {
                let (at, overflow) = snooze.at.millisecondsSince1970.addingReportingOverflow(
                    Int64(person.snoozeMinutes) * 60_000)
                guard !overflow, at <= Instant.max.millisecondsSince1970, at > now.millisecondsSince1970 else {
                    continue
                }
                let served = boundary.day(containing: snooze.at)
                let status = evaluation.status(on: served)
                guard status != .done, status != .skipped else { continue }
                all.append(
                    notification(
                        .snooze, "snooze/\(goal.id)/\(snooze.at.millisecondsSince1970)",
                        at: Instant(unchecked: at), day: served))
            }
        }
        // REMIND-10: the soonest 64.
        all.sort(by: PlannedNotification.precedes)
        return ReminderPlan(
            notifications: Array(all.prefix(ReminderPlan.limit)), leftOut: Array(all.dropFirst(ReminderPlan.limit)))
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

    /// `HH:MM` of a minute of the day.
    static func clock(_ minute: Int) -> String {
        let hours = minute / 60
        let minutes = minute % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }
}

/// Where the minutes of a Day fall (REMIND-3, REMIND-4, REMIND-7), with each Day's instants
/// worked out once.
struct Placer {
    let boundary: DayBoundary
    let now: Instant
    let quiet: PersonReminders.QuietHours?
    private var ends: [Day: Instant] = [:]

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
        var at = boundary.instant(atOrAfter: minute, on: date)
        if let quiet {
            let (wallDate, wallMinute) = boundary.wallClock(at: at)
            if quiet.contains(wallMinute) {
                var moved = boundary.instant(atOrAfter: quiet.end, on: wallDate)
                if moved <= at, wallDate < Day.max {
                    moved = boundary.instant(atOrAfter: quiet.end, on: Day(unchecked: wallDate.daysSince1970 + 1))
                }
                guard moved > at, moved < end(of: day) else { return nil }
                at = moved
            }
        }
        return at > now ? at : nil
    }

    /// The first instant after `day`.
    private mutating func end(of day: Day) -> Instant {
        if let end = ends[day] { return end }
        let end = boundary.instants(of: day).upperBound
        ends[day] = end
        return end
    }
}
