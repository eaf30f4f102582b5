import GlowCore
import GlowModel

/// A refused reminder setting (REMIND-1): the code, what was wrong, and which setting.
public struct ReminderError: CodedError {
    /// A stable code.
    public typealias Code = ErrorCode<ReminderError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The setting, as a path: `settings.G.times[2]`, `person.quietHours`, `days`.
    public let path: String

    init(_ message: String, path: String) {
        code = .invalidReminder
        self.message = message
        self.path = path
    }

    /// The same error for a setting found under `prefix` (`settings.G.`, `person.`).
    public func under(_ prefix: String) -> ReminderError { ReminderError(message, path: prefix + path) }

    /// The rule every setting follows.
    public var rule: String? { "REMIND-1" }
    /// `at settings.G.times[2]`.
    public var location: String? { "at \(path)" }
}

extension ErrorCode where Domain == ReminderError {
    /// A setting outside the bounds of REMIND-1.
    public static var invalidReminder: Self { Self("invalid_reminder") }
}

/// A goal's reminder settings (REMIND-1): the times of day, the weekdays they are limited to, and
/// whether they are on.
public struct GoalReminders: Hashable, Sendable {
    /// Minutes past local midnight, distinct, in increasing order.
    public let times: [Int]
    /// The weekdays the reminders are limited to; nil for every Day the goal is due.
    public let weekdays: Set<Weekday>?
    /// Whether the reminders are on.
    public let enabled: Bool

    /// Settings of one to eight distinct times, each 0 ... 1439.
    ///
    /// - Throws: ``ReminderError`` naming the time or the weekdays that break REMIND-1.
    public init(times: [Int], weekdays: Set<Weekday>? = nil, enabled: Bool = true) throws(ReminderError) {
        guard (1...8).contains(times.count) else {
            throw ReminderError("a goal has one to eight reminder times, not \(times.count)", path: "times")
        }
        for (index, minute) in times.enumerated() where !(0..<1440).contains(minute) {
            throw ReminderError("a time is a minute of the day, 0 ... 1439, not \(minute)", path: "times[\(index)]")
        }
        guard Set(times).count == times.count else {
            throw ReminderError("a reminder time is given twice", path: "times")
        }
        if let weekdays, weekdays.isEmpty {
            throw ReminderError("limited to no weekday, the reminders would never fire", path: "weekdays")
        }
        self.times = times.sorted()
        self.weekdays = weekdays
        self.enabled = enabled
    }
}

/// A person's reminder settings (REMIND-1): the evening nudge for a streak at risk, quiet hours
/// and the snooze length.
public struct PersonReminders: Hashable, Sendable {
    /// The evening nudge: at `minute`, for streaks at least `minimumStreak` long.
    public struct StreakAtRisk: Hashable, Sendable {
        /// Minutes past local midnight.
        public let minute: Int
        /// The shortest current streak worth a nudge.
        public let minimumStreak: Int

        /// A nudge at `minute` (0 ... 1439) for streaks of `minimumStreak` (at least 1) or more.
        public init(minute: Int, minimumStreak: Int) throws(ReminderError) {
            guard (0..<1440).contains(minute) else {
                throw ReminderError(
                    "the nudge's time is a minute of the day, not \(minute)", path: "streakAtRisk.minute")
            }
            guard minimumStreak >= 1 else {
                throw ReminderError(
                    "a streak worth a nudge is at least 1 long, not \(minimumStreak)",
                    path: "streakAtRisk.minimumStreak")
            }
            self.minute = minute
            self.minimumStreak = minimumStreak
        }
    }

    /// Minutes of the day when nothing but a snooze may fire: from `start` up to `end`, across
    /// midnight when `start` is after `end` (REMIND-7).
    public struct QuietHours: Hashable, Sendable {
        /// The first quiet minute.
        public let start: Int
        /// The first minute after the quiet hours.
        public let end: Int

        /// Quiet hours from `start` up to `end`, two different minutes of the day.
        public init(start: Int, end: Int) throws(ReminderError) {
            for (name, minute) in [("start", start), ("end", end)] where !(0..<1440).contains(minute) {
                throw ReminderError("quiet hours are minutes of the day, not \(minute)", path: "quietHours.\(name)")
            }
            guard start != end else {
                throw ReminderError("quiet hours that start where they end are no hours", path: "quietHours")
            }
            self.start = start
            self.end = end
        }

        /// Whether the wall-clock minute `minute` is quiet.
        public func contains(_ minute: Int) -> Bool {
            start < end ? (start..<end).contains(minute) : minute >= start || minute < end
        }
    }

    /// The evening nudge, nil for none.
    public let streakAtRisk: StreakAtRisk?
    /// Quiet hours, nil for none.
    public let quietHours: QuietHours?
    /// How long a snooze waits, 1 ... 1440 minutes.
    public let snoozeMinutes: Int

    /// Settings with a snooze of `snoozeMinutes` (1 ... 1440).
    public init(streakAtRisk: StreakAtRisk? = nil, quietHours: QuietHours? = nil, snoozeMinutes: Int = 10)
        throws(ReminderError)
    {
        guard (1...1440).contains(snoozeMinutes) else {
            throw ReminderError("a snooze is 1 ... 1440 minutes, not \(snoozeMinutes)", path: "snoozeMinutes")
        }
        self.streakAtRisk = streakAtRisk
        self.quietHours = quietHours
        self.snoozeMinutes = snoozeMinutes
    }
}

/// A snooze the person asked for (REMIND-8): the goal and the instant they asked.
public struct Snooze: Hashable, Sendable {
    /// The goal.
    public let goal: GoalID
    /// When the person asked.
    public let at: Instant

    /// A snooze of `goal` asked for at `at`.
    public init(goal: GoalID, at: Instant) {
        self.goal = goal
        self.at = at
    }
}
