/// The type of one field of a server message, as `Spec/glow.proto` declares it.
public indirect enum ProtocolFieldType: Sendable, Hashable {
    /// UTF-8 text.
    case string
    /// Bytes.
    case bytes
    /// True or false.
    case bool
    /// An unsigned 32-bit number.
    case uint32
    /// An unsigned 64-bit number.
    case uint64
    /// A signed 32-bit number, zigzag-encoded.
    case sint32
    /// A signed 64-bit number, zigzag-encoded.
    case sint64
    /// An enum, carried as its number.
    case enumeration
    /// A message of the named type.
    case message(String)
}

/// One field of a server message: its name in `glow.proto`, its number and type, whether it
/// repeats, and whether it is `optional` (its presence is kept, a default value included).
public struct ProtocolField: Sendable, Hashable {
    /// The field's name in `glow.proto`.
    public let name: String
    /// Its number.
    public let number: UInt32
    /// Its type.
    public let type: ProtocolFieldType
    /// Whether it repeats (message and bytes fields do here).
    public let repeated: Bool
    /// Whether it keeps its presence: `optional`, or a scalar member of a `oneof`.
    public let optional: Bool

    init(_ name: String, _ number: UInt32, _ type: ProtocolFieldType, repeated: Bool = false, optional: Bool = false) {
        self.name = name
        self.number = number
        self.type = type
        self.repeated = repeated
        self.optional = optional
    }
}

/// A message type of the server's protocol (SERVER-2): its name and fields.
public struct ProtocolMessageType: Sendable, Hashable {
    /// The message's name in `glow.proto`.
    public let name: String
    /// Its fields, in number order.
    public let fields: [ProtocolField]

    init(_ name: String, _ fields: [ProtocolField]) {
        self.name = name
        self.fields = fields.sorted { $0.number < $1.number }
    }

    /// The field named `name`.
    public func field(named name: String) -> ProtocolField? {
        fields.first { $0.name == name }
    }

    /// The field numbered `number`.
    public func field(numbered number: UInt32) -> ProtocolField? {
        fields.first { $0.number == number }
    }
}

/// The messages the server's protocol carries, as `Spec/glow.proto` declares them: the calls'
/// requests and responses (section 9), and the relay's messages with the feed's registers inside
/// them (section 8), so a script of exchanges can write any of them as JSON. A test compares
/// this table with `glow.proto`.
public enum ProtocolSchema {
    /// Every message type, by name.
    public static let types: [String: ProtocolMessageType] = Dictionary(
        uniqueKeysWithValues: (serverTypes + feedTypes).map { ($0.name, $0) })

    /// The type named `name`.
    public static func type(_ name: String) -> ProtocolMessageType? { types[name] }

    static let serverTypes: [ProtocolMessageType] = [
        ProtocolMessageType(
            "ServiceError",
            [
                .init("code", 1, .string), .init("message", 2, .string), .init("rule", 3, .string),
                .init("location", 4, .string), .init("retry_after_seconds", 5, .uint32),
            ]),
        ProtocolMessageType("Done", []),
        ProtocolMessageType(
            "Health", [.init("status", 1, .string), .init("protocol", 2, .uint32), .init("server", 3, .string)]),
        ProtocolMessageType("SignUpRequest", [.init("email", 1, .string), .init("password", 2, .string)]),
        ProtocolMessageType(
            "ConfirmSignUpRequest",
            [.init("token", 1, .string), .init("password", 2, .string), .init("device", 3, .string)]),
        ProtocolMessageType(
            "SignInRequest",
            [
                .init("email", 1, .string), .init("password", 2, .string), .init("device", 3, .string),
                .init("code", 4, .string),
            ]),
        ProtocolMessageType("SignInNonce", [.init("nonce", 1, .string), .init("expires_at", 2, .uint64)]),
        ProtocolMessageType(
            "ProviderSignInRequest",
            [
                .init("provider", 1, .string), .init("id_token", 2, .string), .init("nonce", 3, .string),
                .init("device", 4, .string), .init("provider_refresh_token", 5, .string),
            ]),
        ProtocolMessageType("RefreshRequest", [.init("refresh_token", 1, .string)]),
        ProtocolMessageType(
            "SessionTokens",
            [
                .init("account", 1, .string), .init("session", 2, .string), .init("access_token", 3, .string),
                .init("refresh_token", 4, .string), .init("access_expires_at", 5, .uint64),
                .init("refresh_expires_at", 6, .uint64),
            ]),
        ProtocolMessageType(
            "SessionEntry",
            [
                .init("id", 1, .string), .init("device", 2, .string), .init("signed_in_at", 3, .uint64),
                .init("last_used_at", 4, .uint64), .init("current", 5, .bool),
            ]),
        ProtocolMessageType("SessionList", [.init("sessions", 1, .message("SessionEntry"), repeated: true)]),
        ProtocolMessageType("RevokeSessionRequest", [.init("id", 1, .string)]),
        ProtocolMessageType("StepUpRequest", [.init("password", 1, .string), .init("code", 2, .string)]),
        ProtocolMessageType("ChangePasswordRequest", [.init("new_password", 1, .string)]),
        ProtocolMessageType("ResetRequest", [.init("email", 1, .string)]),
        ProtocolMessageType(
            "ConfirmResetRequest", [.init("token", 1, .string), .init("new_password", 2, .string)]),
        ProtocolMessageType("ChangeEmailRequest", [.init("new_email", 1, .string)]),
        ProtocolMessageType("TokenRequest", [.init("token", 1, .string)]),
        ProtocolMessageType("DeleteAccountRequest", [.init("confirmed", 1, .bool)]),
        ProtocolMessageType(
            "RegisterDeviceRequest",
            [
                .init("token", 1, .string), .init("time_zone", 2, .string),
                .init("quiet_start", 3, .uint32, optional: true), .init("quiet_end", 4, .uint32, optional: true),
                .init("proof", 5, .string),
            ]),
        ProtocolMessageType("RemoveDeviceRequest", [.init("token", 1, .string)]),
        // A person's own data between their devices (Spec/sync.md 11.4).
        ProtocolMessageType(
            "SyncHead", [.init("device", 1, .bytes), .init("sequence", 2, .uint64), .init("hash", 3, .bytes)]),
        ProtocolMessageType(
            "SyncPushRequest", [.init("device", 1, .bytes), .init("records", 2, .bytes, repeated: true)]),
        ProtocolMessageType("SyncPushResponse", [.init("acknowledged", 1, .uint64)]),
        ProtocolMessageType(
            "SyncPullRequest",
            [.init("device", 1, .bytes), .init("cursor", 2, .uint64), .init("max_bytes", 3, .uint32)]),
        ProtocolMessageType(
            "SyncPullResponse",
            [
                .init("records", 1, .bytes, repeated: true), .init("heads", 2, .message("SyncHead"), repeated: true),
                .init("cursor", 3, .uint64), .init("more", 4, .bool),
            ]),
        ProtocolMessageType("SyncPairOffer", [.init("slot", 1, .bytes), .init("sealed", 2, .bytes)]),
        ProtocolMessageType("SyncPairTake", [.init("slot", 1, .bytes)]),
    ]

    static let feedTypes: [ProtocolMessageType] = [
        ProtocolMessageType(
            "FeedStamp", [.init("wall", 1, .sint64), .init("counter", 2, .uint32), .init("device", 3, .string)]),
        ProtocolMessageType(
            "FeedItem",
            [
                .init("owner", 1, .string), .init("kind", 2, .enumeration), .init("goal", 3, .string),
                .init("time", 4, .sint64), .init("title", 5, .string), .init("emoji", 6, .string),
                .init("goal_kind", 7, .string), .init("day", 8, .sint32, optional: true),
                .init("streak", 9, .uint32, optional: true), .init("milestone", 10, .uint32, optional: true),
                .init("streak_start", 11, .sint32, optional: true),
            ]),
        ProtocolMessageType(
            "FeedStanceRegister",
            [
                .init("from", 1, .string), .init("to", 2, .string), .init("stance", 3, .enumeration),
                .init("stamp", 4, .message("FeedStamp")), .init("last_no", 5, .message("FeedStamp")),
            ]),
        ProtocolMessageType(
            "FeedItemRegister",
            [.init("id", 1, .string), .init("stamp", 2, .message("FeedStamp")), .init("item", 3, .message("FeedItem"))]),
        ProtocolMessageType(
            "FeedVisibilityRegister",
            [
                .init("owner", 1, .string), .init("goal", 2, .string), .init("visibility", 3, .enumeration),
                .init("stamp", 4, .message("FeedStamp")),
            ]),
        ProtocolMessageType(
            "FeedReactionRegister",
            [
                .init("item", 1, .string), .init("reactor", 2, .string), .init("kind", 3, .enumeration),
                .init("on", 4, .bool), .init("stamp", 5, .message("FeedStamp")),
            ]),
        ProtocolMessageType("FeedTime", [.init("key", 1, .string), .init("time", 2, .sint64)]),
        ProtocolMessageType(
            "FeedDelta",
            [
                .init("stances", 1, .message("FeedStanceRegister"), repeated: true),
                .init("items", 2, .message("FeedItemRegister"), repeated: true),
                .init("visibility", 3, .message("FeedVisibilityRegister"), repeated: true),
                .init("reactions", 4, .message("FeedReactionRegister"), repeated: true),
                .init("seen", 5, .message("FeedTime"), repeated: true),
                .init("receipts", 6, .message("FeedTime"), repeated: true),
            ]),
        // The oneof members of the relay's messages are fields with presence.
        ProtocolMessageType(
            "RelayRequest",
            [
                .init("submit", 1, .message("FeedDelta")), .init("changes_since", 2, .uint64, optional: true),
                .init("changes_page", 3, .message("RelayPage")),
            ]),
        ProtocolMessageType(
            "RelayPage", [.init("since", 1, .uint64), .init("after", 2, .uint64), .init("until", 3, .uint64)]),
        ProtocolMessageType(
            "RelayChanges",
            [
                .init("delta", 1, .message("FeedDelta")), .init("cursor", 2, .uint64), .init("more", 3, .bool),
                .init("next", 4, .message("RelayPage"), optional: true),
            ]),
        ProtocolMessageType(
            "RelayError", [.init("code", 1, .string), .init("message", 2, .string), .init("rule", 3, .string)]),
        ProtocolMessageType(
            "RelayResponse",
            [
                .init("submitted", 1, .uint64, optional: true), .init("changes", 2, .message("RelayChanges")),
                .init("error", 3, .message("RelayError")),
            ]),
    ]
}
