/// A stable, machine-readable error code, as the corpus spells it (`invalid_day`, `truncated`).
///
/// `Domain` is the error type the code belongs to, so one module's codes never compare equal to
/// another's even when their text is the same (`ModelError`'s `duplicate_id` is not
/// `BundleError`'s). Each error type declares its codes as static members of
/// `ErrorCode<ItsType>`, which is why a code reads `.invalidDay` wherever the type is known.
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// The code's stable text.
    public let description: String

    /// The code spelled `text`; only the module that owns `Domain` makes codes.
    package init(_ text: String) { description = text }
}

/// The shape every error of the SDK shares: a stable code, a sentence a person can act on, the
/// spec rule that was broken, and where the problem is.
///
/// Each module keeps one error type of this shape (``ErrorCode`` keeps their codes apart), and
/// all of them print the same way: `code at where: message [RULE-1]`.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is.
    var code: ErrorCode<Self> { get }
    /// A sentence a person can act on.
    var message: String { get }
    /// The spec rule that was broken, when one was.
    var rule: String? { get }
    /// Where the problem is, as a phrase that follows the code (`at offset 12`,
    /// `at $.goals[0].title`, `in /path/db.sqlite`); `nil` when the error has no place.
    var location: String? { get }
}

extension CodedError {
    /// No place, for error types that have none.
    public var location: String? { nil }

    /// `code at where: message [RULE-1]`, each part present only when known.
    public var description: String {
        var text = code.description
        if let location { text += " \(location)" }
        text += ": \(message)"
        if let rule { text += " [\(rule)]" }
        return text
    }
}
