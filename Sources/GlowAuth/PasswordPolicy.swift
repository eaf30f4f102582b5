import Foundation

/// What a password must be (AUTH-1 ... AUTH-10), after NIST SP 800-63B Rev. 4: long, any
/// characters but controls, no composition rules, not on the blocklist, without the service's
/// name or the e-mail's local part, and never truncated.
public struct PasswordPolicy: Hashable, Sendable {
    /// The least minimum a policy may set (AUTH-5).
    public static let leastMinimum = 8
    /// The default minimum: NIST's for a password that is the only factor (AUTH-5).
    public static let defaultMinimum = 15
    /// The longest password accepted, in code points after normalisation (AUTH-6).
    public static let maximumLength = 4_096
    /// The most UTF-8 bytes looked at: a longer password is refused unread (AUTH-1).
    public static let byteLimit = 16_384
    /// The service's name, as AUTH-8 looks for it.
    public static let serviceName = "glowritual"

    /// The shortest password accepted, in code points after normalisation.
    public let minimumLength: Int

    /// A policy with `minimumLength`.
    ///
    /// - Throws: ``AuthError/Code/invalidPolicy`` outside 8 ... 64.
    public init(minimumLength: Int = PasswordPolicy.defaultMinimum) throws(AuthError) {
        guard (PasswordPolicy.leastMinimum...64).contains(minimumLength) else {
            throw AuthError(
                .invalidPolicy, "a minimum length of \(minimumLength) is outside 8...64", rule: "AUTH-5")
        }
        self.minimumLength = minimumLength
    }

    /// The password as it will be kept and hashed, when it passes every rule.
    ///
    /// - Parameter email: the account's e-mail address, whose local part the password must not
    ///   contain (AUTH-8).
    /// - Throws: ``AuthError`` with the code of the first rule that fails, in the order of AUTH-9.
    public func check(_ password: String, email: String? = nil) throws(AuthError) -> Password {
        // AUTH-1: the size is known without reading the characters.
        guard password.utf8.count <= PasswordPolicy.byteLimit else {
            throw AuthError(
                .passwordTooLong, "the password is longer than \(PasswordPolicy.byteLimit) bytes", rule: "AUTH-1")
        }
        // AUTH-2: one form, whichever keyboard typed it.
        let normalized = password.precomposedStringWithCompatibilityMapping
        let scalars = Array(normalized.unicodeScalars)
        // AUTH-4
        if let index = scalars.firstIndex(where: PasswordPolicy.isControl) {
            throw AuthError(
                .passwordForbiddenCharacter,
                "the password has a control character (U+\(String(scalars[index].value, radix: 16, uppercase: true).leftPadded(4))) at position \(index + 1)",
                rule: "AUTH-4")
        }
        // AUTH-3 counts; AUTH-5 and AUTH-6 bound.
        guard scalars.count >= minimumLength else {
            throw AuthError(
                .passwordTooShort,
                "the password has \(scalars.count) characters; at least \(minimumLength) are needed", rule: "AUTH-5")
        }
        guard scalars.count <= PasswordPolicy.maximumLength else {
            throw AuthError(
                .passwordTooLong,
                "the password has \(scalars.count) characters; at most \(PasswordPolicy.maximumLength) are accepted",
                rule: "AUTH-6")
        }
        // AUTH-7
        let folded = scalars.map(PasswordPolicy.asciiLowercased)
        if Blocklist.entries.contains(String(String.UnicodeScalarView(folded))) {
            throw AuthError(.passwordCommon, "the password is one of the most common passwords", rule: "AUTH-7")
        }
        // AUTH-8
        let spaceless = folded.filter { $0 != " " }
        var words = [Array(PasswordPolicy.serviceName.unicodeScalars)]
        if let email, let at = email.unicodeScalars.lastIndex(of: "@") {
            let local = email.unicodeScalars[..<at].map(PasswordPolicy.asciiLowercased)
            if local.count >= 4 { words.append(local) }
        }
        for word in words where PasswordPolicy.contains(spaceless, word) {
            throw AuthError(
                .passwordContainsContext,
                word == words[0]
                    ? "the password contains the app's name" : "the password contains the e-mail address's name",
                rule: "AUTH-8")
        }
        return Password(normalized: normalized, length: scalars.count)
    }

    /// Whether `scalar` is a control character AUTH-4 refuses.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x1F || (0x7F...0x9F).contains(scalar.value)
    }

    /// `scalar` with A-Z as a-z, and every other code point as it is (AUTH-7).
    static func asciiLowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }

    /// Whether `haystack` holds `needle` as a run of code points.
    static func contains(_ haystack: [Unicode.Scalar], _ needle: [Unicode.Scalar]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}

/// A password that passed a ``PasswordPolicy``: its normalised form, which is what is hashed
/// (AUTH-10). Its descriptions never show it.
public struct Password: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The normalised password (AUTH-2), whole.
    public let normalized: String
    /// Its length in code points.
    public let length: Int

    init(normalized: String, length: Int) {
        self.normalized = normalized
        self.length = length
    }

    /// A password already normalised, taken as it is (for hashing one that was checked before).
    init(normalized: String) {
        self.init(normalized: normalized, length: normalized.unicodeScalars.count)
    }

    /// No children: `dump` shows the description only.
    public var customMirror: Mirror { Mirror(self, children: []) }

    /// `Password(<n> characters)`: never the password.
    public var description: String { "Password(\(length) characters)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
}

extension String {
    /// The string with zeros before it up to `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
