import GlowCore

extension ErrorCode where Domain == ModelError {
    /// A reminder setting outside the bounds of REMIND-1.
    public static var invalidReminder: Self { Self("invalid_reminder") }
}

extension ModelError {
    /// A setting that breaks REMIND-1, at `path` relative to the settings (`times[2]`).
    static func reminder(_ message: String, path: String) -> ModelError {
        ModelError(.invalidReminder, message, path: path, rule: "REMIND-1")
    }
}

/// A goal's reminder settings (REMIND-1): the times of day, the weekdays they are limited to, and
/// whether they are on. A goal keeps them in its record (MODEL-19), so they travel and merge with
/// it.
public struct GoalReminders: Hashable, Sendable {
    /// Minutes past local midnight, distinct, in increasing order.
    public let times: [Int]
    /// The weekdays the reminders are limited to; nil for every Day the goal is due.
    public let weekdays: Set<Weekday>?
    /// Whether the reminders are on.
    public let enabled: Bool
    /// Fields of the binary form this version does not know (MODEL-49).
    public package(set) var unknownFields = UnknownFields()

    /// Settings of one to eight distinct times, each 0 ... 1439.
    ///
    /// - Throws: ``ModelError/Code/invalidReminder`` naming the time or the weekdays that break
    ///   REMIND-1 (`times[2]`, `weekdays`).
    public init(times: [Int], weekdays: Set<Weekday>? = nil, enabled: Bool = true) throws(ModelError) {
        guard (1...8).contains(times.count) else {
            throw .reminder("a goal has one to eight reminder times, not \(times.count)", path: "times")
        }
        for (index, minute) in times.enumerated() where !(0..<1440).contains(minute) {
            throw .reminder("a time is a minute of the day, 0 ... 1439, not \(minute)", path: "times[\(index)]")
        }
        guard Set(times).count == times.count else {
            throw .reminder("a reminder time is given twice", path: "times")
        }
        if let weekdays, weekdays.isEmpty {
            throw .reminder("limited to no weekday, the reminders would never fire", path: "weekdays")
        }
        self.times = times.sorted()
        self.weekdays = weekdays
        self.enabled = enabled
    }
}

extension GoalReminders: Codable {
    private enum CodingKeys: String, CodingKey {
        case times
        case weekdays
        case enabled
    }

    /// Decodes `{"times": [...], "weekdays": [...], "enabled": ...}`: `weekdays` may be absent
    /// (every due Day) and come in any order without repeats; `enabled` defaults to true.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let weekdays = try c.decodeIfPresent([Weekday].self, forKey: .weekdays)
        if let weekdays, Set(weekdays).count != weekdays.count {
            throw decodingFailure(
                .reminder("a weekday is listed twice", path: "weekdays"), at: c.codingPath)
        }
        let times = try c.decode([Int].self, forKey: .times)
        let enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        self = try validated(at: c.codingPath) {
            try Self(times: times, weekdays: weekdays.map(Set.init), enabled: enabled)
        }
    }

    /// Encodes the times in increasing order, the weekdays Monday first, and `enabled` always.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(times, forKey: .times)
        try c.encodeIfPresent(weekdays?.sorted(), forKey: .weekdays)
        try c.encode(enabled, forKey: .enabled)
    }
}

/// A person's reminder settings (REMIND-1): the evening nudge for a streak at risk, quiet hours
/// and the snooze length. A profile keeps them in its record (MODEL-37).
public struct PersonReminders: Hashable, Sendable {
    /// The evening nudge: at `minute`, for streaks at least `minimumStreak` long.
    public struct StreakAtRisk: Hashable, Sendable, Encodable {
        /// Minutes past local midnight.
        public let minute: Int
        /// The shortest current streak worth a nudge.
        public let minimumStreak: Int

        /// A nudge at `minute` (0 ... 1439) for streaks of `minimumStreak` (1 ... 100,000) or more.
        ///
        /// - Throws: ``ModelError/Code/invalidReminder`` at `streakAtRisk.minute` or
        ///   `streakAtRisk.minimumStreak`.
        public init(minute: Int, minimumStreak: Int) throws(ModelError) {
            guard (0..<1440).contains(minute) else {
                throw .reminder("the nudge's time is a minute of the day, not \(minute)", path: "streakAtRisk.minute")
            }
            guard (1...100_000).contains(minimumStreak) else {
                throw .reminder(
                    "a streak worth a nudge is 1 ... 100,000 Days long, not \(minimumStreak)",
                    path: "streakAtRisk.minimumStreak")
            }
            self.minute = minute
            self.minimumStreak = minimumStreak
        }
    }

    /// Minutes of the day when nothing but a snooze may fire: from `start` up to `end`, across
    /// midnight when `start` is after `end` (REMIND-7).
    public struct QuietHours: Hashable, Sendable, Encodable {
        /// The first quiet minute.
        public let start: Int
        /// The first minute after the quiet hours.
        public let end: Int

        /// Quiet hours from `start` up to `end`, two different minutes of the day.
        ///
        /// - Throws: ``ModelError/Code/invalidReminder`` at `quietHours`, `quietHours.start` or
        ///   `quietHours.end`.
        public init(start: Int, end: Int) throws(ModelError) {
            for (name, minute) in [("start", start), ("end", end)] where !(0..<1440).contains(minute) {
                throw .reminder("quiet hours are minutes of the day, not \(minute)", path: "quietHours.\(name)")
            }
            guard start != end else {
                throw .reminder("quiet hours that start where they end are no hours", path: "quietHours")
            }
            self.start = start
            self.end = end
        }

        /// Whether the wall-clock minute `minute` is quiet.
        public func contains(_ minute: Int) -> Bool {
            start < end ? (start..<end).contains(minute) : minute >= start || minute < end
        }
    }

    /// The snooze length a person has until they choose one.
    public static let defaultSnoozeMinutes = 10

    /// The evening nudge, nil for none.
    public let streakAtRisk: StreakAtRisk?
    /// Quiet hours, nil for none.
    public let quietHours: QuietHours?
    /// How long a snooze waits, 1 ... 1440 minutes.
    public let snoozeMinutes: Int
    /// Fields of the binary form this version does not know (MODEL-49).
    public package(set) var unknownFields = UnknownFields()

    /// Settings with a snooze of `snoozeMinutes` (1 ... 1440).
    ///
    /// - Throws: ``ModelError/Code/invalidReminder`` at `snoozeMinutes`.
    public init(
        streakAtRisk: StreakAtRisk? = nil, quietHours: QuietHours? = nil,
        snoozeMinutes: Int = PersonReminders.defaultSnoozeMinutes
    ) throws(ModelError) {
        guard (1...1440).contains(snoozeMinutes) else {
            throw .reminder("a snooze is 1 ... 1440 minutes, not \(snoozeMinutes)", path: "snoozeMinutes")
        }
        self.streakAtRisk = streakAtRisk
        self.quietHours = quietHours
        self.snoozeMinutes = snoozeMinutes
    }

    /// No nudge, no quiet hours, a ten-minute snooze: what a profile has until the person
    /// chooses.
    public static let standard = PersonReminders(checkedSnooze: defaultSnoozeMinutes)

    private init(checkedSnooze: Int) {
        streakAtRisk = nil
        quietHours = nil
        snoozeMinutes = checkedSnooze
    }

    /// Whether these are the settings of a person who chose none (``standard``, with no unknown
    /// fields): a profile then writes none.
    public var isStandard: Bool { self == .standard }
}

extension PersonReminders: Codable {
    private enum CodingKeys: String, CodingKey {
        case streakAtRisk
        case quietHours
        case snoozeMinutes
    }

    /// Decodes `{"streakAtRisk": ..., "quietHours": ..., "snoozeMinutes": ...}`, each optional
    /// (a ten-minute snooze unless given).
    public init(from decoder: any Decoder) throws {
        // Read as numbers first, then checked together, so a refusal is named from here on
        // (`streakAtRisk.minute`) as the initialisers name it.
        struct Risk: Decodable {
            let minute: Int
            let minimumStreak: Int
        }
        struct Quiet: Decodable {
            let start: Int
            let end: Int
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let risk = try c.decodeIfPresent(Risk.self, forKey: .streakAtRisk)
        let quiet = try c.decodeIfPresent(Quiet.self, forKey: .quietHours)
        let snooze = try c.decodeIfPresent(Int.self, forKey: .snoozeMinutes) ?? Self.defaultSnoozeMinutes
        self = try validated(at: c.codingPath) {
            try Self(
                streakAtRisk: try risk.map { try StreakAtRisk(minute: $0.minute, minimumStreak: $0.minimumStreak) },
                quietHours: try quiet.map { try QuietHours(start: $0.start, end: $0.end) }, snoozeMinutes: snooze)
        }
    }

    /// Encodes the nudge and quiet hours when set, and the snooze length always.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(streakAtRisk, forKey: .streakAtRisk)
        try c.encodeIfPresent(quietHours, forKey: .quietHours)
        try c.encode(snoozeMinutes, forKey: .snoozeMinutes)
    }
}
