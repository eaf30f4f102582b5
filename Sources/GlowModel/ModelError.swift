/// The one error type GlowModel throws: a stable code, the place the problem was found, and a
/// message a person can act on.
///
/// Codes are stable strings (`invalid_day`, `invalid_json`, ...) that the conformance corpus
/// names; compare errors by ``code``. Context (the JSON path or field, the spec rule) travels
/// with the error so a report can point at the exact input that was wrong.
public struct ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Storage: String, Hashable, Sendable {
            case invalidDay = "invalid_day"
            case dayOutOfRange = "day_out_of_range"
            case invalidInstant = "invalid_instant"
            case invalidTimeZone = "invalid_time_zone"
            case invalidDayStart = "invalid_day_start"
            case invalidUUID = "invalid_uuid"
            case invalidAmount = "invalid_amount"
            case invalidSchedule = "invalid_schedule"
            case invalidGoal = "invalid_goal"
            case invalidCheckIn = "invalid_check_in"
            case invalidProfile = "invalid_profile"
            case draftInvalid = "draft_invalid"
            case invalidJSON = "invalid_json"
            case unknownEnumCase = "unknown_enum_case"
            case duplicateID = "duplicate_id"
            case notFound = "not_found"
            case goalDeleted = "goal_deleted"
        }

        fileprivate let storage: Storage

        /// The code's stable text, as the corpus and other implementations spell it.
        public var description: String { storage.rawValue }

        /// Text that is not a valid `YYYY-MM-DD` civil date, or a year/month/day that does not exist.
        public static let invalidDay = Code(storage: .invalidDay)
        /// Day arithmetic that would leave the supported years 1...9999.
        public static let dayOutOfRange = Code(storage: .dayOutOfRange)
        /// Text that is not an RFC 3339 instant, or an instant outside years 1...9999.
        public static let invalidInstant = Code(storage: .invalidInstant)
        /// A time-zone identifier that is not an IANA zone known to this system.
        public static let invalidTimeZone = Code(storage: .invalidTimeZone)
        /// A day-start offset outside 0 ..< 1440 minutes.
        public static let invalidDayStart = Code(storage: .invalidDayStart)
        /// Text that is not a UUID in 8-4-4-4-12 hexadecimal form.
        public static let invalidUUID = Code(storage: .invalidUUID)
        /// Text that is not a decimal amount with at most three fraction digits, or one out of range.
        public static let invalidAmount = Code(storage: .invalidAmount)
        /// A schedule whose rules or history break the schedule rules.
        public static let invalidSchedule = Code(storage: .invalidSchedule)
        /// A goal whose fields contradict each other.
        public static let invalidGoal = Code(storage: .invalidGoal)
        /// A check-in that does not fit its goal, or whose fields contradict each other.
        public static let invalidCheckIn = Code(storage: .invalidCheckIn)
        /// A profile whose fields are out of range.
        public static let invalidProfile = Code(storage: .invalidProfile)
        /// A goal draft that failed validation; ``ModelError/issues`` lists every problem.
        public static let draftInvalid = Code(storage: .draftInvalid)
        /// JSON that does not follow the documented mapping (missing key, wrong type, ...).
        public static let invalidJSON = Code(storage: .invalidJSON)
        /// An enum name in JSON that this version does not know.
        public static let unknownEnumCase = Code(storage: .unknownEnumCase)
        /// Two records of a data set with the same identity (goal id, or goal and Day).
        public static let duplicateID = Code(storage: .duplicateID)
        /// A change to a record the data set does not hold: a goal it lacks, a Day with no entry
        /// to undo or annotate, a profile it has none of.
        public static let notFound = Code(storage: .notFound)
        /// A change to a goal that was deleted (on this device or another): its tombstone takes
        /// no taps and no edits.
        public static let goalDeleted = Code(storage: .goalDeleted)
    }

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// Where the problem is: a JSON path such as `$.schedule[1].rule.weekdays`, or a field name.
    public let path: String?
    /// The spec rule that was broken, such as `MODEL-3`, when one applies.
    public let rule: String?
    /// For ``Code/draftInvalid``: every problem found in the draft, in field order.
    public let issues: [DraftIssue]

    package init(_ code: Code, _ message: String, path: String? = nil, rule: String? = nil, issues: [DraftIssue] = []) {
        self.code = code
        self.message = message
        self.path = path
        self.rule = rule
        self.issues = issues
    }

    /// A copy of this error located under `base` (a JSON path such as `$.goals[2]`): a path
    /// relative to the value that failed (`title`, `[1].effective`) is appended to it.
    package func at(_ base: String) -> ModelError {
        let full: String
        switch path {
        case nil: full = base
        case let relative? where relative.hasPrefix("$"): full = relative
        case let relative? where relative.hasPrefix("["): full = base + relative
        case let relative?: full = base + "." + relative
        }
        return ModelError(code, message, path: full, rule: rule, issues: issues)
    }

    /// `code: message (at path) [rule]`.
    public var description: String {
        var text = "\(code): \(message)"
        if let path { text += " (at \(path))" }
        if let rule { text += " [\(rule)]" }
        return text
    }
}
