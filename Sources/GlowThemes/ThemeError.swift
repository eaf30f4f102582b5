import GlowCore

/// The one error type of GlowThemes: a stable code and a message a person can act on.
public struct ThemeError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<ThemeError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    package init(_ code: Code, _ message: String, rule: String? = nil) {
        self.code = code
        self.message = message
        self.rule = rule
    }

}

extension ErrorCode where Domain == ThemeError {
    /// A colour that is not `#RGB`, `#RRGGBB` or `#RRGGBBAA` hexadecimal.
    public static var invalidColor: Self { Self("invalid_color") }
    /// A mode other than `light` or `dark`.
    public static var invalidMode: Self { Self("invalid_mode") }
}
