import GlowModel
import GlowProtocol

/// The account's calls of SERVER-2 made as the session's person (AUTH-41 ... AUTH-49), one typed
/// method each. A call that needs a recent proof of who is asking (changing the password or the
/// address, deleting the account) follows ``stepUp(password:code:)``.
extension SessionKeeper {
    /// The person's sessions (AUTH-47), this one marked.
    ///
    /// - Throws: ``ServiceFailure``: `signed_out`; the server's refusal.
    public func sessions() async throws(ServiceFailure) -> [SessionEntry] {
        let answer = try await call("sessions")
        var entries: [SessionEntry] = []
        for value in answer.list("sessions") {
            guard case .message(let entry) = value, !entry.string("id").isEmpty else {
                throw ServiceFailure(.malformedResponse, "an entry of the list is not a SessionEntry", call: "sessions")
            }
            entries.append(
                SessionEntry(
                    id: entry.string("id"), device: entry.text("device"),
                    signedInAt: try .answered(entry.unsigned("signed_in_at"), field: "signed_in_at", call: "sessions"),
                    lastUsedAt: try .answered(entry.unsigned("last_used_at"), field: "last_used_at", call: "sessions"),
                    isCurrent: entry.bool("current")))
        }
        return entries
    }

    /// Ends the person's session `id` (one of ``sessions()``), on whatever device holds it.
    ///
    /// - Throws: ``ServiceFailure``: `session_not_found`; the server's refusal.
    public func revokeSession(id: String) async throws(ServiceFailure) {
        _ = try await call("revoke-session", ProtocolMessage("RevokeSessionRequest").with("id", id))
    }

    /// Ends every session of the person, this one included: the device forgets it.
    ///
    /// - Throws: ``ServiceFailure``: the server's refusal; the session is then as it was.
    public func signOutEverywhere() async throws(ServiceFailure) {
        _ = try await call("sign-out-everywhere")
        end()
    }

    /// Proves who is asking again (AUTH-41): the password, and the second factor's code (TOTP or a
    /// recovery code, AUTH-51) when the account has one; what asks for it is allowed for the next
    /// five minutes.
    ///
    /// - Throws: ``ServiceFailure``: `invalid_credentials`, `second_factor_required`,
    ///   `invalid_second_factor`, `throttled`.
    public func stepUp(password: String, code: String? = nil) async throws(ServiceFailure) {
        _ = try await call(
            "step-up", ProtocolMessage("StepUpRequest").with("password", password).with("code", code ?? ""))
    }

    /// Changes the password, after ``stepUp(password:code:)``; the person's other sessions end, and
    /// the address is told (AUTH-40).
    ///
    /// - Throws: ``ServiceFailure``: `reauthentication_required`, the password policy's refusals.
    public func changePassword(to newPassword: String) async throws(ServiceFailure) {
        _ = try await call(
            "change-password", ProtocolMessage("ChangePasswordRequest").with("new_password", newPassword))
    }

    /// Asks to move the account to `newEmail`, after ``stepUp(password:code:)``: the new address is
    /// mailed a link (``ServiceLink/confirmEmailChange(token:)``) that this person confirms
    /// (AUTH-49).
    ///
    /// - Throws: ``ServiceFailure``: `reauthentication_required`, `invalid_email`, `throttled`.
    public func changeEmail(to newEmail: String) async throws(ServiceFailure) {
        _ = try await call("change-email", ProtocolMessage("ChangeEmailRequest").with("new_email", newEmail))
    }

    /// Confirms the move to a new address with the token of its mailed link; the old address is
    /// told, with a link that undoes it for a week (``ServiceClient/undoEmailChange(token:)``).
    ///
    /// - Throws: ``ServiceFailure``: `email_change_token_invalid`.
    public func confirmEmailChange(token: String) async throws(ServiceFailure) {
        _ = try await call("confirm-email-change", ProtocolMessage("TokenRequest").with("token", token))
    }

    /// Deletes the account and erases the person's data on the server (AUTH-42), after
    /// ``stepUp(password:code:)`` when the account asks for it: the device forgets the session.
    ///
    /// - Throws: ``ServiceFailure``: `reauthentication_required`; the server's refusal, and the
    ///   account is then as it was.
    public func deleteAccount() async throws(ServiceFailure) {
        _ = try await call("delete-account", ProtocolMessage("DeleteAccountRequest").with("confirmed", .bool(true)))
        end()
    }
}
