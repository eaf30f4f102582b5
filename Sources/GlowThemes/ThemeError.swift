/// The one error type of GlowThemes: a stable code and a message a person can act on.
public struct ThemeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code, as the corpus spells it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate let text: String

        /// The code's text.
        public var description: String { text }

        /// A colour that is not `#RGB`, `#RRGGBB` or `#RRGGBBAA` hexadecimal.
        public static let invalidColor = Code(text: "invalid_color")
        /// A mode other than `light` or `dark`.
        public static let invalidMode = Code(text: "invalid_mode")
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
