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
        /// An account store could not keep a change; the change did not happen.
        public static let storageFailed = Code(text: "storage_failed")
        /// A stored sign-in state that is none of AUTH-18's (AUTH-21).
        public static let invalidState = Code(text: "invalid_state")
        /// A policy outside what the standard allows (AUTH-5).
        public static let invalidPolicy = Code(text: "invalid_policy")
        /// A provider or verifier configured with nothing to trust (AUTH-23, AUTH-30).
        public static let invalidProvider = Code(text: "invalid_provider")
        /// An ID token longer than AUTH-22 reads.
        public static let tokenTooLarge = Code(text: "token_too_large")
        /// An ID token that is not a compact JWS of two JSON objects (AUTH-22).
        public static let malformedToken = Code(text: "malformed_token")
        /// An algorithm the provider does not sign with: `none`, HMAC, or anything unknown (AUTH-23).
        public static let algorithmNotAllowed = Code(text: "algorithm_not_allowed")
        /// A header that brings its own key: `jwk`, `jku`, `x5u`, `x5c` (AUTH-24).
        public static let embeddedKeyRejected = Code(text: "embedded_key_rejected")
        /// A header with critical extensions (AUTH-24).
        public static let unsupportedHeader = Code(text: "unsupported_header")
        /// No key of the token's `kid`, even after one refresh (AUTH-25, AUTH-27).
        public static let unknownKey = Code(text: "unknown_key")
        /// A key whose type, `alg` or `use` does not fit the token's algorithm (AUTH-25).
        public static let keyMismatch = Code(text: "key_mismatch")
        /// A key whose members do not make a usable public key (AUTH-25).
        public static let invalidKey = Code(text: "invalid_key")
        /// A key set that cannot be read (AUTH-26).
        public static let malformedKeySet = Code(text: "malformed_key_set")
        /// A key set that could not be fetched when one was needed (AUTH-27).
        public static let keySetUnavailable = Code(text: "key_set_unavailable")
        /// A signature that does not verify (AUTH-28).
        public static let badSignature = Code(text: "bad_signature")
        /// An issuer that is not the provider's (AUTH-29).
        public static let wrongIssuer = Code(text: "wrong_issuer")
        /// A token not issued to this app (AUTH-30).
        public static let wrongAudience = Code(text: "wrong_audience")
        /// A token also issued to an audience the app does not trust (AUTH-30).
        public static let untrustedAudience = Code(text: "untrusted_audience")
        /// A missing or foreign authorized party (AUTH-30).
        public static let wrongAuthorizedParty = Code(text: "wrong_authorized_party")
        /// A token past its `exp` and the leeway (AUTH-31).
        public static let tokenExpired = Code(text: "token_expired")
        /// A token issued, or valid, only in the future beyond the leeway (AUTH-31).
        public static let tokenNotYetValid = Code(text: "token_not_yet_valid")
        /// A nonce that is not the one the sign-in sent (AUTH-32).
        public static let nonceMismatch = Code(text: "nonce_mismatch")
        /// A required claim that is absent (AUTH-33).
        public static let missingClaim = Code(text: "missing_claim")
        /// A claim of the wrong type or size (AUTH-33).
        public static let invalidClaim = Code(text: "invalid_claim")
        /// A provider the service was not configured with (AUTH-35).
        public static let unknownProvider = Code(text: "unknown_provider")
        /// Text that is not an e-mail address (AUTH-36).
        public static let invalidEmail = Code(text: "invalid_email")
        /// A sign-up token that is unknown, used, or whose address was registered since (AUTH-36).
        public static let signUpTokenInvalid = Code(text: "signup_token_invalid")
        /// A sign-up token past its day (AUTH-36).
        public static let signUpTokenExpired = Code(text: "signup_token_expired")
        /// An access or refresh token of no live session (AUTH-38).
        public static let invalidSession = Code(text: "invalid_session")
        /// An access token past its lifetime, or a session past its end (AUTH-38).
        public static let sessionExpired = Code(text: "session_expired")
        /// A used refresh token presented again: its family has ended (AUTH-38).
        public static let refreshTokenReused = Code(text: "refresh_token_reused")
        /// An address and password that do not match, or an address without an account (AUTH-39).
        public static let invalidCredentials = Code(text: "invalid_credentials")
        /// Too many failed attempts under one key for now (AUTH-39).
        public static let throttled = Code(text: "throttled")
        /// A reset token that is unknown, used, or made before the last password change (AUTH-40).
        public static let resetTokenInvalid = Code(text: "reset_token_invalid")
        /// A reset token past its hour (AUTH-40).
        public static let resetTokenExpired = Code(text: "reset_token_expired")
        /// A new password equal to the current one (AUTH-40).
        public static let passwordUnchanged = Code(text: "password_unchanged")
        /// A sensitive change without a recent sign-in (AUTH-41).
        public static let reauthenticationRequired = Code(text: "reauthentication_required")
        /// A deletion without the person's explicit confirmation (AUTH-42).
        public static let confirmationRequired = Code(text: "confirmation_required")
        /// A deletion whose data could not be erased; nothing was deleted (AUTH-42).
        public static let deletionFailed = Code(text: "deletion_failed")
    }

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    /// For ``Code/throttled``: how many seconds to wait before trying again.
    public let retryAfter: Double?

    init(_ code: Code, _ message: String, rule: String? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.rule = rule
        self.retryAfter = retryAfter
    }

    /// `code: message [rule]`.
    public var description: String { "\(code): \(message)" + (rule.map { " [\($0)]" } ?? "") }
}

extension AuthError {
    /// An account store could not keep what an update changed (``AccountStore``).
    public static func storage(_ message: String) -> AuthError {
        AuthError(.storageFailed, message, rule: "AUTH-35")
    }
}
