import Foundation
import GlowModel
import GlowProtocol

/// The calls of SERVER-2 made without a session (AUTH-35 ... AUTH-49), one typed method each; the
/// session's calls are ``SessionKeeper``'s.
extension ServiceClient {
    /// Whether the server answers and reads its database (SERVER-7).
    ///
    /// - Throws: ``ServiceFailure``: `storage_failed` (503) while its database does not answer;
    ///   `network`.
    public func health() async throws(ServiceFailure) -> ServerHealth {
        let answer = try await call("health")
        return ServerHealth(
            status: answer.string("status"), protocolVersion: answer.unsigned("protocol"),
            server: answer.string("server"))
    }

    /// Starts a sign-up; the server mails the confirmation (SERVER-8), whose link
    /// (``ServiceLink/confirmSignUp(token:)``) the app opens.
    ///
    /// - Throws: ``ServiceFailure``: the password policy's refusals (`password_too_short`, ...),
    ///   `invalid_email`, `throttled`.
    public func signUp(email: String, password: String) async throws(ServiceFailure) {
        _ = try await call("sign-up", ProtocolMessage("SignUpRequest").with("email", email).with("password", password))
    }

    /// Confirms a sign-up with the mailed token and the password chosen with it.
    ///
    /// - Returns: the new account's session.
    /// - Throws: ``ServiceFailure``: `signup_token_invalid`, `invalid_credentials`.
    public func confirmSignUp(token: String, password: String, device: String? = nil) async throws(ServiceFailure)
        -> ClientSession
    {
        try ClientSession(
            tokens: try await call(
                "confirm-sign-up",
                ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", password)
                    .with("device", device ?? "")))
    }

    /// Signs in with an address and a password, and the second factor's code (TOTP or a recovery
    /// code, AUTH-51) when the account has one.
    ///
    /// - Throws: ``ServiceFailure``: `invalid_credentials`, `second_factor_required`,
    ///   `invalid_second_factor`, `throttled`.
    public func signIn(email: String, password: String, device: String? = nil, code: String? = nil)
        async throws(ServiceFailure) -> ClientSession
    {
        try ClientSession(
            tokens: try await call(
                "sign-in",
                ProtocolMessage("SignInRequest").with("email", email).with("password", password)
                    .with("device", device ?? "").with("code", code ?? "")))
    }

    /// A single-use nonce for a provider's sign-in (AUTH-46): given to Sign in with Apple (hashed,
    /// as Apple asks) or Google before it issues the ID token, then to
    /// ``signIn(provider:idToken:nonce:device:providerRefreshToken:)``.
    ///
    /// - Throws: ``ServiceFailure``: `throttled` past 30 nonces a client in 10 minutes.
    public func signInNonce() async throws(ServiceFailure) -> SignInNonce {
        let answer = try await call("sign-in-nonce")
        return SignInNonce(
            nonce: answer.string("nonce"),
            expiry: try Instant.answered(answer.unsigned("expires_at"), field: "expires_at", call: "sign-in-nonce"))
    }

    /// Signs in with a provider's ID token (`provider-sign-in`, AUTH-22 ... AUTH-35), for the nonce
    /// the server issued; `providerRefreshToken` is Apple's, for its revocation when the account
    /// is deleted.
    ///
    /// - Returns: the session: of the account the identity is linked to, one it links to by its
    ///   proven address, or a new one.
    /// - Throws: ``ServiceFailure``: `nonce_invalid`, `unknown_provider` (not configured on the
    ///   server), the ID token's refusal (`token_expired`, ...), `key_set_unavailable`.
    public func signIn(
        provider: SignInProvider, idToken: String, nonce: String?, device: String? = nil,
        providerRefreshToken: String? = nil
    ) async throws(ServiceFailure) -> ClientSession {
        try ClientSession(
            tokens: try await call(
                "provider-sign-in",
                ProtocolMessage("ProviderSignInRequest").with("provider", provider.rawValue).with("id_token", idToken)
                    .with("nonce", nonce ?? "").with("device", device ?? "")
                    .with("provider_refresh_token", providerRefreshToken ?? "")))
    }

    /// The next pair of tokens for a refresh token, which is used up.
    ///
    /// - Throws: ``ServiceFailure``: `invalid_session`, `refresh_token_reused` (which ends the
    ///   session everywhere).
    public func refresh(_ refreshToken: String) async throws(ServiceFailure) -> ClientSession {
        try ClientSession(
            tokens: try await call("refresh", ProtocolMessage("RefreshRequest").with("refresh_token", refreshToken)))
    }

    /// Asks for a password reset: the server mails a link (``ServiceLink/resetPassword(token:)``)
    /// to the address when it has an account, and answers the same either way (AUTH-40).
    ///
    /// - Throws: ``ServiceFailure``: `invalid_email`, `throttled`.
    public func requestPasswordReset(email: String) async throws(ServiceFailure) {
        _ = try await call("request-reset", ProtocolMessage("ResetRequest").with("email", email))
    }

    /// Sets a new password with a reset's mailed token, which is used up; every session of the
    /// account ends.
    ///
    /// - Throws: ``ServiceFailure``: `reset_token_invalid`, the password policy's refusals.
    public func confirmPasswordReset(token: String, newPassword: String) async throws(ServiceFailure) {
        _ = try await call(
            "confirm-reset",
            ProtocolMessage("ConfirmResetRequest").with("token", token).with("new_password", newPassword))
    }

    /// Undoes a change of address from the old address's mailed link
    /// (``ServiceLink/undoEmailChange(token:)``), within a week (AUTH-49).
    ///
    /// - Throws: ``ServiceFailure``: `email_change_token_invalid`.
    public func undoEmailChange(token: String) async throws(ServiceFailure) {
        _ = try await call("undo-email-change", ProtocolMessage("TokenRequest").with("token", token))
    }
}

extension Instant {
    /// The instant of a time a server answered in `field` (milliseconds since 1970).
    ///
    /// - Throws: ``ServiceFailure`` `malformed_response` for one outside years 1 ... 9999.
    static func answered(_ milliseconds: UInt64, field: String, call: String) throws(ServiceFailure) -> Instant {
        do {
            return try Instant(millisecondsSince1970: Int64(clamping: milliseconds))
        } catch {
            throw ServiceFailure(.malformedResponse, "\(field) is not a time: \(error.message)", call: call)
        }
    }
}
