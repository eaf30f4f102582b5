/// One problem found while validating a goal draft or a goal: the field it concerns, a stable
/// code and a message for the person filling in the form (MODEL-45).
public struct DraftIssue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A stable issue code, as the corpus spells it.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The code's text, such as `title_empty`.
        public let rawValue: String

        /// A code with this text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's text.
        public var description: String { rawValue }

        /// The title is empty or only white space.
        public static let titleEmpty = Code(rawValue: "title_empty")
        /// The title is longer than 80 characters.
        public static let titleTooLong = Code(rawValue: "title_too_long")
        /// The emoji is not exactly one emoji character.
        public static let emojiInvalid = Code(rawValue: "emoji_invalid")
        /// The note is longer than 500 characters.
        public static let noteTooLong = Code(rawValue: "note_too_long")
        /// A unit is longer than 24 characters.
        public static let unitTooLong = Code(rawValue: "unit_too_long")
        /// A target that must be positive is zero or negative.
        public static let targetNotPositive = Code(rawValue: "target_not_positive")
        /// A target that may be zero is negative.
        public static let targetNegative = Code(rawValue: "target_negative")
        /// A tally's daily target is above 10,000.
        public static let targetTooLarge = Code(rawValue: "target_too_large")
        /// A countdown's target Day is before today.
        public static let countdownInPast = Code(rawValue: "countdown_in_past")
        /// A countdown's target Day is before the start Day.
        public static let countdownBeforeStart = Code(rawValue: "countdown_before_start")
        /// A weekdays schedule chooses no weekday.
        public static let weekdaysEmpty = Code(rawValue: "weekdays_empty")
        /// N per week is outside 1...7, or N per month outside 1...31.
        public static let timesOutOfRange = Code(rawValue: "times_out_of_range")
        /// Every N days has N outside 1...366.
        public static let intervalOutOfRange = Code(rawValue: "interval_out_of_range")
        /// The end Day is before the start Day.
        public static let endBeforeStart = Code(rawValue: "end_before_start")
        /// A recurring kind has no schedule.
        public static let scheduleMissing = Code(rawValue: "schedule_missing")
        /// A one-off kind has a schedule.
        public static let scheduleNotAllowed = Code(rawValue: "schedule_not_allowed")
        /// The schedule's first rule does not take effect on the start Day.
        public static let scheduleStartMismatch = Code(rawValue: "schedule_start_mismatch")
        /// A checklist has no items, or more than 50.
        public static let itemCountOutOfRange = Code(rawValue: "item_count_out_of_range")
        /// A checklist item's title is empty or longer than 80 characters.
        public static let itemTitleInvalid = Code(rawValue: "item_title_invalid")
        /// Two checklist items share an id.
        public static let itemDuplicate = Code(rawValue: "item_duplicate")
        /// Archive periods are empty, open before the last, out of order or overlapping.
        public static let archiveInvalid = Code(rawValue: "archive_invalid")
        /// A forgiveness allowance is outside 1...3 per week or 1...10 per month.
        public static let forgivenessOutOfRange = Code(rawValue: "forgiveness_out_of_range")
        /// The goal was modified before it was created.
        public static let modifiedBeforeCreated = Code(rawValue: "modified_before_created")
    }

    /// The field, as a path relative to the draft or goal: `title`, `kind.dailyTarget`, `schedule`.
    public let field: String
    /// What is wrong.
    public let code: Code
    /// A sentence for the person filling in the form.
    public let message: String

    /// An issue.
    public init(_ field: String, _ code: Code, _ message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    /// The issue a model error about a draft is: its field (the error's path), its code and its
    /// message, so a form shows a refusal that came from making the goal as it shows the others.
    public init(_ error: ModelError) {
        self.init(error.path ?? "", Code(rawValue: error.code.description), error.message)
    }

    /// `field: code (message)`.
    public var description: String { "\(field): \(code) (\(message))" }
}
