/// A call of the server's protocol (SERVER-1, SERVER-2): its name, method, request and
/// response types, and whether it needs a session's access token.
public struct ServiceCall: Sendable, Hashable {
    /// The name after `/v1/`.
    public let name: String
    /// `GET` for `health`, `POST` for the rest.
    public let method: String
    /// The request message's type; nil for a call without a body.
    public let request: ProtocolMessageType?
    /// The response message's type.
    public let response: ProtocolMessageType
    /// Whether the call needs `Authorization: Bearer ACCESS_TOKEN` (SERVER-3).
    public let needsSession: Bool

    init(_ name: String, _ request: String?, _ response: String, session: Bool = false, method: String = "POST") {
        guard let responseType = ProtocolSchema.type(response) else {
            preconditionFailure("\(response) is not a message of the server's protocol")
        }
        self.name = name
        self.method = method
        self.request = request.map { name in
            guard let type = ProtocolSchema.type(name) else {
                preconditionFailure("\(name) is not a message of the server's protocol")
            }
            return type
        }
        self.response = responseType
        self.needsSession = session
    }

    /// The path: `/v1/NAME`.
    public var path: String { ServiceCalls.prefix + name }
}

/// The calls of SERVER-2's table and the statuses of SERVER-6.
public enum ServiceCalls {
    /// The version of the protocol this package speaks (SERVER-7's `protocol`).
    public static let protocolVersion: UInt64 = 1
    /// What every call's path starts with.
    public static let prefix = "/v1/"
    /// The media type of every body (SERVER-2).
    public static let contentType = "application/x-protobuf"

    /// Every call, in the table's order.
    public static let all: [ServiceCall] = [
        ServiceCall("health", nil, "Health", method: "GET"),
        ServiceCall("sign-up", "SignUpRequest", "Done"),
        ServiceCall("confirm-sign-up", "ConfirmSignUpRequest", "SessionTokens"),
        ServiceCall("sign-in", "SignInRequest", "SessionTokens"),
        ServiceCall("sign-in-nonce", "Done", "SignInNonce"),
        ServiceCall("provider-sign-in", "ProviderSignInRequest", "SessionTokens"),
        ServiceCall("refresh", "RefreshRequest", "SessionTokens"),
        ServiceCall("request-reset", "ResetRequest", "Done"),
        ServiceCall("confirm-reset", "ConfirmResetRequest", "Done"),
        ServiceCall("undo-email-change", "TokenRequest", "Done"),
        ServiceCall("sessions", "Done", "SessionList", session: true),
        ServiceCall("revoke-session", "RevokeSessionRequest", "Done", session: true),
        ServiceCall("sign-out", "Done", "Done", session: true),
        ServiceCall("sign-out-everywhere", "Done", "Done", session: true),
        ServiceCall("step-up", "StepUpRequest", "Done", session: true),
        ServiceCall("change-password", "ChangePasswordRequest", "Done", session: true),
        ServiceCall("change-email", "ChangeEmailRequest", "Done", session: true),
        ServiceCall("confirm-email-change", "TokenRequest", "Done", session: true),
        ServiceCall("delete-account", "DeleteAccountRequest", "Done", session: true),
        ServiceCall("relay", "RelayRequest", "RelayResponse", session: true),
        ServiceCall("register-device", "RegisterDeviceRequest", "Done", session: true),
        ServiceCall("remove-device", "RemoveDeviceRequest", "Done", session: true),
        ServiceCall("sync-push", "SyncPushRequest", "SyncPushResponse", session: true),
        ServiceCall("sync-pull", "SyncPullRequest", "SyncPullResponse", session: true),
        ServiceCall("sync-pair-offer", "SyncPairOffer", "Done", session: true),
        ServiceCall("sync-pair-take", "SyncPairTake", "SyncPairOffer", session: true),
    ]

    private static let byPath = Dictionary(uniqueKeysWithValues: all.map { ($0.path, $0) })
    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The call at `path`, compared exactly (SERVER-1).
    public static func call(path: String) -> ServiceCall? { byPath[path] }

    /// The call named `name`.
    public static func call(named name: String) -> ServiceCall? { byName[name] }

    /// The status of a refusal with `code` (SERVER-6): 400 for every code the table does not
    /// name.
    public static func status(for code: String) -> Int {
        statuses[code] ?? 400
    }

    private static let statuses: [String: Int] = [
        "unauthenticated": 401, "invalid_session": 401, "session_expired": 401, "refresh_token_reused": 401,
        "invalid_credentials": 401, "second_factor_required": 401, "invalid_second_factor": 401,
        "person_erased": 401,
        "reauthentication_required": 403, "not_author": 403, "own_item": 403,
        "unknown_call": 404, "session_not_found": 404, "identity_not_found": 404, "sync_pairing_not_found": 404,
        "method_not_allowed": 405,
        "identity_in_use": 409, "last_sign_in_method": 409, "second_factor_enrolled": 409, "token_held": 409,
        "sync_wrong_key": 409, "sync_conflict": 409, "sync_out_of_order": 409, "sync_snapshot_stale": 409,
        "sync_device_limit": 409,
        "sync_pairing_limit": 409,
        "sync_quota_exceeded": 507, "sync_server_full": 507, "sign_ups_full": 507,
        "body_too_large": 413, "unsupported_media_type": 415, "throttled": 429,
        "storage_failed": 503, "key_set_unavailable": 503, "busy": 503, "numbering_behind": 503,
        "internal": 500,
    ]
}
