import GlowCore
import GlowCrypto

/// A secret the account service hands out or takes in: an access, refresh, reset or sign-up
/// token, or a provider's refresh token. Its descriptions, its reflection and its encodings in
/// logs never show it; only ``reveal`` does, for the one place that must send it (a response
/// body, an e-mail link, a keychain).
public struct SecretToken: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let text: String

    /// A secret of this text.
    public init(_ text: String) {
        self.text = text
    }

    /// A new secret of 256 bits from the system's cryptographically secure generator, as 43
    /// base64url characters (AUTH-37).
    package static func random() -> SecretToken {
        SecretToken(Base64.url.encode(Crypto.randomBytes(32)))
    }

    /// The secret itself.
    public func reveal() -> String { text }

    /// The SHA-256 of the secret, as it is stored: a stolen store gives no usable token.
    package var storedHash: String { Crypto.hex(Crypto.sha256(Array(text.utf8))) }

    /// Never the secret.
    public var description: String { "SecretToken(redacted)" }
    /// Never the secret.
    public var debugDescription: String { description }
    /// No children: `dump` shows the description only.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension SecretToken: Codable {
    /// Reads a secret a store kept (an account store must keep a provider's refresh token to
    /// revoke it later); descriptions and mirrors still never show it.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the secret's text, for a store.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(reveal())
    }
}

/// An account's stable identifier: 128 random bits in hexadecimal.
public struct AccountID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The identifier's text.
    public let rawValue: String

    /// The id of this text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    static func random() -> AccountID {
        AccountID(rawValue: Crypto.hex(Crypto.randomBytes(16)))
    }

    /// The id's text.
    public var description: String { rawValue }

    /// Ordered by text, for stable listings.
    public static func < (a: AccountID, b: AccountID) -> Bool { a.rawValue < b.rawValue }
}

/// A signed-in session as its holder sees it: a short-lived access token to present with each
/// request, and a refresh token to get the next pair (AUTH-38).
public struct Session: Sendable, Hashable, CustomStringConvertible {
    /// Whose session it is.
    public let account: AccountID
    /// The session family's public id, as ``AccountService/sessions(accessToken:)`` lists it and
    /// ``AccountService/revokeSession(accessToken:id:)`` takes it (AUTH-47).
    public let id: String
    /// The token to present with requests, until ``accessExpiresAt``.
    public let accessToken: SecretToken
    /// The token that gets the next pair, once, until ``refreshExpiresAt``.
    public let refreshToken: SecretToken
    /// When the access token stops working, in seconds since 1970.
    public let accessExpiresAt: Double
    /// When the session ends unless it signs in again, in seconds since 1970.
    public let refreshExpiresAt: Double

    /// The account and the expiries; never a token.
    public var description: String {
        "Session(\(id), account: \(account), access until \(accessExpiresAt), refresh until \(refreshExpiresAt))"
    }
}

/// One live session family of an account, as a person sees it in a list of their devices
/// (AUTH-47): nothing in it opens the session.
public struct SessionInfo: Sendable, Hashable {
    /// The family's public id: 32 lowercase hexadecimal digits, the same for its whole life.
    public let id: String
    /// The device named at its sign-in, if one was.
    public let device: String?
    /// When it signed in, in seconds since 1970.
    public let signedInAt: Double
    /// Its sign-in or its last refresh, in seconds since 1970.
    public let lastUsedAt: Double
    /// Whether it is the session that asked.
    public let isCurrent: Bool

    /// AUTH-47's order: sign-in time, then device (none first, then by UTF-8 bytes), then id.
    static func listOrder(_ a: SessionInfo, _ b: SessionInfo) -> Bool {
        if a.signedInAt != b.signedInAt { return a.signedInAt < b.signedInAt }
        if a.device != b.device {
            guard let first = a.device else { return true }
            guard let second = b.device else { return false }
            return first.utf8.lexicographicallyPrecedes(second.utf8)
        }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }
}

/// An account's ways to sign in (AUTH-48).
public struct SignInMethods: Sendable, Hashable {
    /// Whether it has a password.
    public let hasPassword: Bool
    /// The providers of its linked identities, in byte order: `apple`, `google`.
    public let providers: [String]
}

/// A second factor being enrolled (AUTH-51): the secret to show (as text and as a QR code of
/// ``uri``) once, for the person's authenticator app. Its description shows neither.
public struct SecondFactorEnrollment: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The secret in RFC 4648 base32.
    public let secret: SecretToken
    /// The `otpauth://totp/` URI authenticator apps read.
    public let uri: SecretToken

    /// Never the secret.
    public var description: String { "SecondFactorEnrollment(redacted)" }
    /// Nothing: the secret shows only through ``secret``.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Recovery codes (AUTH-51), shown once: each signs in or steps up once in place of a code.
public struct RecoveryCodes: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The codes, `abcd-efgh-ijkl-mnop`.
    public let codes: [SecretToken]

    /// How many, never which.
    public var description: String { "RecoveryCodes(\(codes.count) codes)" }
    /// Nothing: the codes show only through ``codes``.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
