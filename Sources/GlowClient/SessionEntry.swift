import GlowModel

/// One of the person's sessions as the server lists them (AUTH-47): its public id, the device it
/// was signed in on, when, when it was last used, and whether it is the one asking.
public struct SessionEntry: Hashable, Sendable {
    /// The session's public id, which ``SessionKeeper/revokeSession(id:)`` takes.
    public let id: String
    /// The device the sign-in named, or nil.
    public let device: String?
    /// When it signed in.
    public let signedInAt: Instant
    /// When it was last used.
    public let lastUsedAt: Instant
    /// Whether it is the session that asked.
    public let isCurrent: Bool
}
