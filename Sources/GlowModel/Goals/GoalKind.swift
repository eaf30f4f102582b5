/// What a goal measures, with that kind's configuration (MODEL-20 ... MODEL-26).
public enum GoalKind: Hashable, Sendable {
    /// A one-off goal, done once (MODEL-20).
    case single
    /// A checklist of items, one-off or recurring (MODEL-21).
    case subgoals(SubgoalsConfig)
    /// A cumulative amount toward a target, summed across days (MODEL-22).
    case progress(ProgressConfig)
    /// A measured number logged per day, with an optional daily target (MODEL-23).
    case value(ValueConfig)
    /// A count per day toward a daily target (MODEL-24).
    case tally(TallyConfig)
    /// Counting down to a target Day (MODEL-25).
    case countdown(CountdownConfig)
    /// A daily habit, done or not done (MODEL-26).
    case streak

    /// The kind's stable name, as JSON spells it.
    public var name: Name {
        switch self {
        case .single: .single
        case .subgoals: .subgoals
        case .progress: .progress
        case .value: .value
        case .tally: .tally
        case .countdown: .countdown
        case .streak: .streak
        }
    }

    /// Whether the kind repeats on a schedule (and so needs one) rather than being done once (MODEL-27).
    public var isRecurring: Bool {
        switch self {
        case .single, .progress, .countdown: false
        case .subgoals(let config): config.recurring
        case .value, .tally, .streak: true
        }
    }

    /// The names of the goal kinds.
    public enum Name: String, CaseIterable, Hashable, Sendable, Codable {
        /// ``GoalKind/single``.
        case single
        /// ``GoalKind/subgoals(_:)``.
        case subgoals
        /// ``GoalKind/progress(_:)``.
        case progress
        /// ``GoalKind/value(_:)``.
        case value
        /// ``GoalKind/tally(_:)``.
        case tally
        /// ``GoalKind/countdown(_:)``.
        case countdown
        /// ``GoalKind/streak``.
        case streak

        /// Decodes a kind name; an unknown one is an unknown enum case.
        public init(from decoder: any Decoder) throws {
            self = try decodeEnumName(Name.self, from: decoder)
        }
    }
}

/// One checklist item of a subgoals goal; its id is stable so check-ins can name it.
public struct SubgoalItem: Hashable, Sendable, Codable {
    /// The item's identifier, unique within its goal.
    public var id: SubgoalItemID
    /// What to do, 1...80 characters.
    public var title: String
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case id
        case title
    }

    /// An item.
    public init(id: SubgoalItemID, title: String) {
        self.id = id
        self.title = title
    }
}

/// The configuration of a subgoals goal.
public struct SubgoalsConfig: Hashable, Sendable, Codable {
    /// The checklist, 1...50 items, in display order.
    public var items: [SubgoalItem]
    /// Whether the checklist repeats on a schedule (true) or is done once (false).
    public var recurring: Bool
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case items
        case recurring
    }

    /// A checklist configuration.
    public init(items: [SubgoalItem], recurring: Bool) {
        self.items = items
        self.recurring = recurring
    }
}

/// The configuration of a progress goal: reach `target` in total.
public struct ProgressConfig: Hashable, Sendable, Codable {
    /// The total to reach; positive.
    public var target: Amount
    /// The unit shown beside amounts, such as `km` or `pages`; up to 24 characters, may be empty.
    public var unit: String
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case target
        case unit
    }

    /// A progress configuration.
    public init(target: Amount, unit: String) {
        self.target = target
        self.unit = unit
    }
}

/// How a logged value is compared with its daily target.
public enum Comparison: String, CaseIterable, Hashable, Sendable, Codable {
    /// The day is done when the value is at least the target.
    case atLeast
    /// The day is done when the value is at most the target.
    case atMost

    /// Decodes `atLeast` or `atMost`.
    public init(from decoder: any Decoder) throws {
        self = try decodeEnumName(Comparison.self, from: decoder)
    }
}

/// A value goal's daily target.
public struct ValueTarget: Hashable, Sendable, Codable {
    /// How the day's value is compared with ``amount``.
    public var comparison: Comparison
    /// The target; zero or more (at most 0 minutes of doom-scrolling is a fair goal).
    public var amount: Amount
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case comparison
        case amount
    }

    /// A target.
    public init(comparison: Comparison, amount: Amount) {
        self.comparison = comparison
        self.amount = amount
    }
}

/// The configuration of a value goal.
public struct ValueConfig: Hashable, Sendable, Codable {
    /// The unit shown beside values, such as `kg` or `hours`; up to 24 characters, may be empty.
    public var unit: String
    /// The daily target, or nil when values are only recorded.
    public var target: ValueTarget?
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case unit
        case target
    }

    /// A value configuration.
    public init(unit: String, target: ValueTarget?) {
        self.unit = unit
        self.target = target
    }
}

/// The configuration of a tally goal.
public struct TallyConfig: Hashable, Sendable, Codable {
    /// The count that completes a day, 1...10,000.
    public var dailyTarget: Int
    /// The unit shown beside counts, such as `glasses`; up to 24 characters, may be empty.
    public var unit: String
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case dailyTarget
        case unit
    }

    /// A tally configuration.
    public init(dailyTarget: Int, unit: String) {
        self.dailyTarget = dailyTarget
        self.unit = unit
    }
}

/// The configuration of a countdown goal.
public struct CountdownConfig: Hashable, Sendable, Codable {
    /// The Day being counted down to.
    public var targetDay: Day
    /// Fields of the binary form this version does not know (MODEL-49).
    public var unknownFields = UnknownFields()

    private enum CodingKeys: String, CodingKey {
        case targetDay
    }

    /// A countdown configuration.
    public init(targetDay: Day) {
        self.targetDay = targetDay
    }
}

extension GoalKind: Codable {
    private enum CodingKeys: String, CodingKey {
        case type
        case items
        case recurring
        case target
        case unit
        case dailyTarget
        case targetDay
    }

    /// Decodes `{"type": NAME, ...configuration}` (MODEL-42).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Name.self, forKey: .type) {
        case .single: self = .single
        case .streak: self = .streak
        case .subgoals: self = .subgoals(try SubgoalsConfig(from: decoder))
        case .progress: self = .progress(try ProgressConfig(from: decoder))
        case .value: self = .value(try ValueConfig(from: decoder))
        case .tally: self = .tally(try TallyConfig(from: decoder))
        case .countdown: self = .countdown(try CountdownConfig(from: decoder))
        }
    }

    /// Encodes `{"type": NAME, ...configuration}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .type)
        switch self {
        case .single, .streak: break
        case .subgoals(let config): try config.encode(to: encoder)
        case .progress(let config): try config.encode(to: encoder)
        case .value(let config): try config.encode(to: encoder)
        case .tally(let config): try config.encode(to: encoder)
        case .countdown(let config): try config.encode(to: encoder)
        }
    }
}
