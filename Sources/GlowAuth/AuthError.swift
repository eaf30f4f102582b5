import GlowCore

/// The one error type of GlowAuth: a stable code and a message a person can act on. A message
/// never holds a secret: no password, token or hash appears in it.
public struct AuthError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<AuthError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    /// For ``Code/throttled``: how many seconds to wait before trying again.
    public let retryAfter: Double?

    package init(_ code: Code, _ message: String, rule: String? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.rule = rule
        self.retryAfter = retryAfter
    }

}

extension AuthError {
    /// An account store could not keep what an update changed (``AccountStore``).
    public static func storage(_ message: String) -> AuthError {
        AuthError(.storageFailed, message, rule: "AUTH-35")
    }
}

extension ErrorCode where Domain == AuthError {
    /// A password longer than the policy accepts (AUTH-1, AUTH-6).
    public static var passwordTooLong: Self { Self("password_too_long") }
    /// A password shorter than the policy's minimum (AUTH-5).
    public static var passwordTooShort: Self { Self("password_too_short") }
    /// A password with a control character (AUTH-4).
    public static var passwordForbiddenCharacter: Self { Self("password_forbidden_character") }
    /// A password on the blocklist of common and breached passwords (AUTH-7).
    public static var passwordCommon: Self { Self("password_common") }
    /// A password that contains the service's name or the e-mail's local part (AUTH-8).
    public static var passwordContainsContext: Self { Self("password_contains_context") }
    /// Argon2 parameters, salt or tag length outside AUTH-13.
    public static var invalidHashParameters: Self { Self("invalid_hash_parameters") }
    /// A stored hash that is not the PHC form of AUTH-14.
    public static var malformedHash: Self { Self("malformed_hash") }
    /// A stored hash of another algorithm or version, or beyond AUTH-13's bounds.
    public static var unsupportedHash: Self { Self("unsupported_hash") }
    /// An account store could not keep a change; the change did not happen.
    public static var storageFailed: Self { Self("storage_failed") }
    /// The service was hashing as many passwords as it does at once for longer than a call waits
    /// (AUTH-12): try again after the wait given.
    public static var busy: Self { Self("busy") }
    /// The service has taken as many sign-ups in the last hour as it takes from everyone together
    /// (AUTH-36): try again after the wait given.
    public static var signUpsFull: Self { Self("sign_ups_full") }
    /// A policy outside what the standard allows (AUTH-5).
    public static var invalidPolicy: Self { Self("invalid_policy") }
    /// A provider or verifier configured with nothing to trust (AUTH-23, AUTH-30).
    public static var invalidProvider: Self { Self("invalid_provider") }
    /// An ID token longer than AUTH-22 reads.
    public static var tokenTooLarge: Self { Self("token_too_large") }
    /// An ID token that is not a compact JWS of two JSON objects (AUTH-22).
    public static var malformedToken: Self { Self("malformed_token") }
    /// An algorithm the provider does not sign with: `none`, HMAC, or anything unknown (AUTH-23).
    public static var algorithmNotAllowed: Self { Self("algorithm_not_allowed") }
    /// A header that brings its own key: `jwk`, `jku`, `x5u`, `x5c` (AUTH-24).
    public static var embeddedKeyRejected: Self { Self("embedded_key_rejected") }
    /// A header with critical extensions (AUTH-24).
    public static var unsupportedHeader: Self { Self("unsupported_header") }
    /// No key of the token's `kid`, even after one refresh (AUTH-25, AUTH-27).
    public static var unknownKey: Self { Self("unknown_key") }
    /// A key whose type, `alg` or `use` does not fit the token's algorithm (AUTH-25).
    public static var keyMismatch: Self { Self("key_mismatch") }
    /// A key whose members do not make a usable public key (AUTH-25).
    public static var invalidKey: Self { Self("invalid_key") }
    /// A key set that cannot be read (AUTH-26).
    public static var malformedKeySet: Self { Self("malformed_key_set") }
    /// A key set that could not be fetched when one was needed (AUTH-27).
    public static var keySetUnavailable: Self { Self("key_set_unavailable") }
    /// A signature that does not verify (AUTH-28).
    public static var badSignature: Self { Self("bad_signature") }
    /// An issuer that is not the provider's (AUTH-29).
    public static var wrongIssuer: Self { Self("wrong_issuer") }
    /// A token not issued to this app (AUTH-30).
    public static var wrongAudience: Self { Self("wrong_audience") }
    /// A token also issued to an audience the app does not trust (AUTH-30).
    public static var untrustedAudience: Self { Self("untrusted_audience") }
    /// A missing or foreign authorized party (AUTH-30).
    public static var wrongAuthorizedParty: Self { Self("wrong_authorized_party") }
    /// A token past its `exp` and the leeway (AUTH-31).
    public static var tokenExpired: Self { Self("token_expired") }
    /// A token issued, or valid, only in the future beyond the leeway (AUTH-31).
    public static var tokenNotYetValid: Self { Self("token_not_yet_valid") }
    /// A nonce that is not the one the sign-in sent (AUTH-32).
    public static var nonceMismatch: Self { Self("nonce_mismatch") }
    /// A required claim that is absent (AUTH-33).
    public static var missingClaim: Self { Self("missing_claim") }
    /// A claim of the wrong type or size (AUTH-33).
    public static var invalidClaim: Self { Self("invalid_claim") }
    /// A provider the service was not configured with (AUTH-35).
    public static var unknownProvider: Self { Self("unknown_provider") }
    /// Text that is not an e-mail address (AUTH-36).
    public static var invalidEmail: Self { Self("invalid_email") }
    /// A sign-up token that is unknown, used, or whose address was registered since (AUTH-36).
    public static var signUpTokenInvalid: Self { Self("signup_token_invalid") }
    /// A sign-up token past its day (AUTH-36).
    public static var signUpTokenExpired: Self { Self("signup_token_expired") }
    /// An access or refresh token of no live session (AUTH-38).
    public static var invalidSession: Self { Self("invalid_session") }
    /// An access token past its lifetime, or a session past its end (AUTH-38).
    public static var sessionExpired: Self { Self("session_expired") }
    /// A used refresh token presented again: its family has ended (AUTH-38).
    public static var refreshTokenReused: Self { Self("refresh_token_reused") }
    /// An address and password that do not match, or an address without an account (AUTH-39).
    public static var invalidCredentials: Self { Self("invalid_credentials") }
    /// Too many failed attempts under one key for now (AUTH-39).
    public static var throttled: Self { Self("throttled") }
    /// A reset token that is unknown, used, or made before the last password change (AUTH-40).
    public static var resetTokenInvalid: Self { Self("reset_token_invalid") }
    /// A reset token past its hour (AUTH-40).
    public static var resetTokenExpired: Self { Self("reset_token_expired") }
    /// A new password equal to the current one (AUTH-40).
    public static var passwordUnchanged: Self { Self("password_unchanged") }
    /// A sensitive change without a recent sign-in (AUTH-41).
    public static var reauthenticationRequired: Self { Self("reauthentication_required") }
    /// A deletion without the person's explicit confirmation (AUTH-42).
    public static var confirmationRequired: Self { Self("confirmation_required") }
    /// A deletion whose data could not be erased; nothing was deleted (AUTH-42).
    public static var deletionFailed: Self { Self("deletion_failed") }
    /// A sign-in nonce the service did not issue, already used or expired, or none (AUTH-46).
    public static var nonceInvalid: Self { Self("nonce_invalid") }
    /// A device name longer than 64 bytes or with a control character (AUTH-47).
    public static var invalidDevice: Self { Self("invalid_device") }
    /// A session id that is no live session of the caller's account (AUTH-47).
    public static var sessionNotFound: Self { Self("session_not_found") }
    /// An identity linked to another account (AUTH-48).
    public static var identityInUse: Self { Self("identity_in_use") }
    /// A provider with no identity on the account (AUTH-48).
    public static var identityNotFound: Self { Self("identity_not_found") }
    /// A change that would leave the account with no way to sign in (AUTH-48).
    public static var lastSignInMethod: Self { Self("last_sign_in_method") }
    /// A new address the account already holds (AUTH-49).
    public static var emailUnchanged: Self { Self("email_unchanged") }
    /// An address-change or undo token that is unknown, used, expired, another account's, or
    /// whose address was proven since (AUTH-49).
    public static var emailChangeInvalid: Self { Self("email_change_invalid") }
    /// A TOTP secret that is not base32 (AUTH-50).
    public static var invalidSecret: Self { Self("invalid_secret") }
    /// A sign-in or step-up of an account with a second factor, without a code (AUTH-51).
    public static var secondFactorRequired: Self { Self("second_factor_required") }
    /// A code or recovery code that is wrong, used or out of its window (AUTH-51).
    public static var invalidSecondFactor: Self { Self("invalid_second_factor") }
    /// Enrolling an account that already has a second factor (AUTH-51).
    public static var secondFactorEnrolled: Self { Self("second_factor_enrolled") }
    /// Confirming, turning off or renewing a second factor the account does not have (AUTH-51).
    public static var noSecondFactor: Self { Self("no_second_factor") }
}
