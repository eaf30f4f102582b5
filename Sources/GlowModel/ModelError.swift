import GlowCore

/// The one error type GlowModel throws: a stable code, the place the problem was found, and a
/// message a person can act on.
///
/// Codes are stable strings (`invalid_day`, `invalid_json`, ...) that the conformance corpus
/// names; compare errors by ``code``. Context (the JSON path or field, the spec rule) travels
/// with the error so a report can point at the exact input that was wrong.
public struct ModelError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<ModelError>

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

    /// `at $.goals[0].title`, when the problem has a place in the input.
    public var location: String? { path.map { "at \($0)" } }
}

extension ErrorCode where Domain == ModelError {
    /// Text that is not a valid `YYYY-MM-DD` civil date, or a year/month/day that does not exist.
    public static var invalidDay: Self { Self("invalid_day") }
    /// Day arithmetic that would leave the supported years 1...9999.
    public static var dayOutOfRange: Self { Self("day_out_of_range") }
    /// Text that is not an RFC 3339 instant, or an instant outside years 1...9999.
    public static var invalidInstant: Self { Self("invalid_instant") }
    /// A time-zone identifier that is not an IANA zone known to this system.
    public static var invalidTimeZone: Self { Self("invalid_time_zone") }
    /// A day-start offset outside 0 ..< 1440 minutes.
    public static var invalidDayStart: Self { Self("invalid_day_start") }
    /// Text that is not a UUID in 8-4-4-4-12 hexadecimal form.
    public static var invalidUUID: Self { Self("invalid_uuid") }
    /// Text that is not a decimal amount with at most three fraction digits, or one out of range.
    public static var invalidAmount: Self { Self("invalid_amount") }
    /// A schedule whose rules or history break the schedule rules.
    public static var invalidSchedule: Self { Self("invalid_schedule") }
    /// A goal whose fields contradict each other.
    public static var invalidGoal: Self { Self("invalid_goal") }
    /// A check-in that does not fit its goal, or whose fields contradict each other.
    public static var invalidCheckIn: Self { Self("invalid_check_in") }
    /// A profile whose fields are out of range.
    public static var invalidProfile: Self { Self("invalid_profile") }
    /// A goal draft that failed validation; ``ModelError/issues`` lists every problem.
    public static var draftInvalid: Self { Self("draft_invalid") }
    /// JSON that does not follow the documented mapping (missing key, wrong type, ...).
    public static var invalidJSON: Self { Self("invalid_json") }
    /// An enum name in JSON that this version does not know.
    public static var unknownEnumCase: Self { Self("unknown_enum_case") }
    /// Two records of a data set with the same identity (goal id, or goal and Day).
    public static var duplicateID: Self { Self("duplicate_id") }
    /// A change to a record the data set does not hold: a goal it lacks, a Day with no entry
    /// to undo or annotate, a profile it has none of.
    public static var notFound: Self { Self("not_found") }
    /// A change to a goal that was deleted (on this device or another): its tombstone takes
    /// no taps and no edits.
    public static var goalDeleted: Self { Self("goal_deleted") }
    /// An edit's closure threw an error that is not a ``ModelError`` (its own check, a
    /// cancellation); the value it edited is unchanged.
    public static var editFailed: Self { Self("edit_failed") }
}

extension ModelError {
    /// Runs the body of an edit closure (``Goal/edit(at:_:)`` and every other mutator that takes
    /// one): the closure is written with plain `try` of any model call and no typed parameter, and
    /// what it throws reaches the caller as a ``ModelError``: a model error as it was, any other
    /// error as ``Code/editFailed`` naming it.
    package static func editing<T>(_ body: () throws -> T) throws(ModelError) -> T {
        do {
            return try body()
        } catch let error as ModelError {
            throw error
        } catch {
            throw ModelError(.editFailed, "the edit threw \(error); nothing was changed")
        }
    }
}
