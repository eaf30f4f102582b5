import GlowCore

/// When a recurring goal is due (MODEL-28 ... MODEL-32).
public enum ScheduleRule: Hashable, Sendable {
    /// Every Day.
    case daily
    /// The chosen weekdays; at least one.
    case weekdays(Set<Weekday>)
    /// N times (1...7) in each calendar week, weeks beginning on the profile's week start.
    case timesPerWeek(Int)
    /// N times (1...31) in each calendar month.
    case timesPerMonth(Int)
    /// Every N Days (1...366), counted from the Day the rule took effect (MODEL-31).
    case everyNDays(Int)

    /// The rule's stable name, as JSON spells it.
    public var name: Name {
        switch self {
        case .daily: .daily
        case .weekdays: .weekdays
        case .timesPerWeek: .timesPerWeek
        case .timesPerMonth: .timesPerMonth
        case .everyNDays: .everyNDays
        }
    }

    /// The names of the schedule rules.
    public enum Name: String, CaseIterable, Hashable, Sendable, Codable {
        /// ``ScheduleRule/daily``.
        case daily
        /// ``ScheduleRule/weekdays(_:)``.
        case weekdays
        /// ``ScheduleRule/timesPerWeek(_:)``.
        case timesPerWeek
        /// ``ScheduleRule/timesPerMonth(_:)``.
        case timesPerMonth
        /// ``ScheduleRule/everyNDays(_:)``.
        case everyNDays

        /// Decodes a rule name; an unknown one is an unknown enum case.
        public init(from decoder: any Decoder) throws {
            self = try decodeEnumName(Name.self, from: decoder)
        }
    }

    /// Every problem with the rule's numbers, as draft issues under `field` (MODEL-29).
    public func issues(field: String) -> [DraftIssue] {
        switch self {
        case .daily:
            return []
        case .weekdays(let days):
            return days.isEmpty ? [DraftIssue(field, .weekdaysEmpty, "choose at least one weekday")] : []
        case .timesPerWeek(let times):
            return (1...7).contains(times)
                ? [] : [DraftIssue(field, .timesOutOfRange, "times per week must be 1...7, not \(times)")]
        case .timesPerMonth(let times):
            return (1...31).contains(times)
                ? [] : [DraftIssue(field, .timesOutOfRange, "times per month must be 1...31, not \(times)")]
        case .everyNDays(let interval):
            return (1...366).contains(interval)
                ? [] : [DraftIssue(field, .intervalOutOfRange, "every N days needs N in 1...366, not \(interval)")]
        }
    }
}

extension ScheduleRule: Codable {
    private enum CodingKeys: String, CodingKey {
        case type
        case weekdays
        case times
        case interval
    }

    /// Decodes `{"type": NAME, ...}`; weekdays may come in any order, duplicates are an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Name.self, forKey: .type) {
        case .daily: self = .daily
        case .weekdays:
            let list = try container.decode([Weekday].self, forKey: .weekdays)
            let set = Set(list)
            guard set.count == list.count else {
                throw DecodingError.dataCorruptedError(
                    forKey: .weekdays, in: container, debugDescription: "a weekday is listed twice")
            }
            self = .weekdays(set)
        case .timesPerWeek: self = .timesPerWeek(try container.decode(Int.self, forKey: .times))
        case .timesPerMonth: self = .timesPerMonth(try container.decode(Int.self, forKey: .times))
        case .everyNDays: self = .everyNDays(try container.decode(Int.self, forKey: .interval))
        }
    }

    /// Encodes `{"type": NAME, ...}` with weekdays Monday first.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .type)
        switch self {
        case .daily: break
        case .weekdays(let days): try container.encode(days.sorted(), forKey: .weekdays)
        case .timesPerWeek(let times), .timesPerMonth(let times): try container.encode(times, forKey: .times)
        case .everyNDays(let interval): try container.encode(interval, forKey: .interval)
        }
    }
}

/// A recurring goal's schedule with its history: each rule is in force from its effective Day
/// until the next rule's, so past Days are judged by the rule in force then (MODEL-30).
public struct Schedule: Hashable, Sendable {
    /// One rule and the Day it took effect.
    public struct Entry: Hashable, Sendable, Codable {
        /// The first Day the rule is in force.
        public var effective: Day
        /// The rule.
        public var rule: ScheduleRule
        /// Fields of the binary form this version does not know (MODEL-49).
        public var unknownFields = UnknownFields()

        private enum CodingKeys: String, CodingKey {
            case effective
            case rule
        }

        /// An entry.
        public init(effective: Day, rule: ScheduleRule) {
            self.effective = effective
            self.rule = rule
        }
    }

    /// The entries, strictly increasing by effective Day; never empty.
    public private(set) var entries: [Entry]

    /// A schedule with one rule from `start`.
    ///
    /// - Throws: ``ModelError/Code/invalidSchedule`` when the rule's numbers are out of range.
    public init(_ rule: ScheduleRule, from start: Day) throws(ModelError) {
        try self.init(entries: [Entry(effective: start, rule: rule)])
    }

    /// A schedule from its history.
    ///
    /// - Throws: ``ModelError/Code/invalidSchedule`` when empty, out of order, or a rule is invalid.
    public init(entries: [Entry]) throws(ModelError) {
        guard !entries.isEmpty else {
            throw ModelError(.invalidSchedule, "a schedule needs at least one rule", rule: "MODEL-30")
        }
        for (index, entry) in entries.enumerated() {
            if index > 0, entry.effective <= entries[index - 1].effective {
                throw ModelError(
                    .invalidSchedule, "schedule entries must be in strictly increasing effective order",
                    path: "[\(index)].effective", rule: "MODEL-30")
            }
            if let issue = entry.rule.issues(field: "[\(index)].rule").first {
                throw ModelError(.invalidSchedule, issue.message, path: issue.field, rule: "MODEL-29")
            }
        }
        self.entries = entries
    }

    /// The rule in force on `day` and the Day it took effect; before the first entry, the first
    /// entry (a goal is never due before its start Day anyway).
    public func entry(on day: Day) -> Entry {
        entries[index(on: day)]
    }

    /// The index of ``entry(on:)`` in ``entries``: the last entry effective on or before `day`,
    /// or the first.
    public func index(on day: Day) -> Int {
        Swift.max(0, entries.partitioningIndex { $0.effective > day } - 1)
    }

    /// Changes the rule from `day` on: entries effective on or after `day` are replaced, earlier
    /// ones keep judging their Days (MODEL-30).
    ///
    /// - Throws: ``ModelError/Code/invalidSchedule`` when the rule is invalid or `day` precedes
    ///   the first entry.
    public mutating func change(to rule: ScheduleRule, from day: Day) throws(ModelError) {
        guard day >= entries[0].effective else {
            throw ModelError(
                .invalidSchedule, "a change cannot take effect before the schedule's first Day \(entries[0].effective)",
                rule: "MODEL-30")
        }
        var kept = entries.filter { $0.effective < day }
        kept.append(Entry(effective: day, rule: rule))
        try self = Schedule(entries: kept)
    }
}

extension Schedule: Codable {
    /// Decodes the array of entries.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let entries = try container.decode([Entry].self)
        do {
            try self.init(entries: entries)
        } catch {
            throw decodingFailure(error, at: container.codingPath)
        }
    }

    /// Encodes the array of entries.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}
