import GlowAuth
import GlowFeed
import GlowRelay

/// Erases a person's feed data at the relay, and their sync log, when their account is deleted
/// (AUTH-42, FEED-31, SYNC-11):
/// every item they published is withdrawn, every stance they took is set to none and every
/// reaction they made is turned off, each by a write stamped after everything they wrote (FEED-1),
/// so devices that held them learn of it at their next pull as of any other change; and the
/// relay takes nothing more from them. Erasing twice changes nothing.
public struct RelayEraser: AccountEraser {
    private let relay: FeedRelay
    private let sync: SyncLog?
    private let clock: any AuthClock

    /// An eraser over `relay` and `sync` (people's sync logs, SYNC-11), stamping its writes by
    /// `clock`.
    public init(relay: FeedRelay, sync: SyncLog? = nil, clock: any AuthClock = SystemAuthClock()) {
        self.relay = relay
        self.sync = sync
        self.clock = clock
    }

    /// Erases the account's person at the relay (FEED-31): what they wrote withdrawn, their
    /// devices removed, and the person closed, in one change of the relay's state, so a write of
    /// theirs authenticated before the deletion and reaching the relay after it is refused.
    ///
    /// - Throws: ``FeedError`` when the relay cannot be read or keep the erasure: the account
    ///   service then refuses the deletion (`deletion_failed`) and deletes nothing.
    public func eraseData(of account: AccountID) throws {
        try relay.erase(account.rawValue, now: Int64(ServiceHandler.milliseconds(clock.now())))
        // SYNC-11: the person's log goes with the rest; erasing an erased log changes nothing.
        try sync?.erase(account.rawValue)
    }
}

/// The provider-token revoker of a server that signs in with no provider: it never holds a
/// provider's refresh token, and refuses should it ever be asked to revoke one.
public struct UnconfiguredRevoker: ProviderTokenRevoker {
    /// The revoker.
    public init() {}

    /// Refuses: no provider is configured here.
    public func revoke(_ token: SecretToken, provider: String) async throws {
        throw AuthError(
            .unknownProvider, "this server signs in with no provider, so it revokes no token of \(provider)")
    }
}
