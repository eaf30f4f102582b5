/// The one error type of GlowAuth: a stable code and a message a person can act on. A message
/// never holds a secret: no password, token or hash appears in it.
public struct AuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code, as the corpus spells it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate let text: String

        /// The code's text.
        public var description: String { text }

        /// A password longer than the policy accepts (AUTH-1, AUTH-6).
        public static let passwordTooLong = Code(text: "password_too_long")
        /// A password shorter than the policy's minimum (AUTH-5).
        public static let passwordTooShort = Code(text: "password_too_short")
        /// A password with a control character (AUTH-4).
        public static let passwordForbiddenCharacter = Code(text: "password_forbidden_character")
        /// A password on the blocklist of common and breached passwords (AUTH-7).
        public static let passwordCommon = Code(text: "password_common")
        /// A password that contains the service's name or the e-mail's local part (AUTH-8).
        public static let passwordContainsContext = Code(text: "password_contains_context")
        /// Argon2 parameters, salt or tag length outside AUTH-13.
        public static let invalidHashParameters = Code(text: "invalid_hash_parameters")
        /// A stored hash that is not the PHC form of AUTH-14.
        public static let malformedHash = Code(text: "malformed_hash")
        /// A stored hash of another algorithm or version, or beyond AUTH-13's bounds.
        public static let unsupportedHash = Code(text: "unsupported_hash")
        /// A move the sign-in flow does not have (AUTH-20).
        public static let invalidTransition = Code(text: "invalid_transition")
        /// A stored sign-in state that is none of AUTH-18's (AUTH-21).
        public static let invalidState = Code(text: "invalid_state")
        /// A policy outside what the standard allows (AUTH-5).
        public static let invalidPolicy = Code(text: "invalid_policy")
    }

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    init(_ code: Code, _ message: String, rule: String? = nil) {
        self.code = code
        self.message = message
        self.rule = rule
    }

    /// `code: message [rule]`.
    public var description: String { "\(code): \(message)" + (rule.map { " [\($0)]" } ?? "") }
}
