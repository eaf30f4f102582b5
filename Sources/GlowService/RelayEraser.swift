import GlowAuth
import GlowFeed
import GlowRelay

/// Erases a person's feed data at the relay when their account is deleted (AUTH-42): every item
/// they published is withdrawn, every stance they took is set to none and every reaction they
/// made is turned off, each by a write stamped after everything they wrote (FEED-1), so devices
/// that held them learn of it at their next pull as of any other change. What is already
/// withdrawn, none or off is left alone, so erasing twice changes nothing.
public struct RelayEraser: AccountEraser {
    private let relay: FeedRelay
    private let clock: any AuthClock

    /// An eraser over `relay`, stamping its writes by `clock`.
    public init(relay: FeedRelay, clock: any AuthClock = SystemAuthClock()) {
        self.relay = relay
        self.clock = clock
    }

    /// Withdraws what the account's person wrote to the relay, and removes their devices.
    ///
    /// - Throws: ``FeedError`` when the relay cannot be read or keep the withdrawals: the
    ///   account service then refuses the deletion (`deletion_failed`) and deletes nothing.
    public func eraseData(of account: AccountID) throws {
        let person = account.rawValue
        let now = Int64(ServiceHandler.milliseconds(clock.now()))
        let written = try relay.replica.authored(by: person, since: nil)
        let latest = written.latestStamp?.wall ?? 0
        let stamp = try Stamp(
            wall: min(max(now, latest + 1), Stamp.maximumWall), counter: 0, device: "glow-server")
        var withdrawal = FeedReplica()
        for (id, register) in written.items where register.value != nil {
            withdrawal.writeItem(nil, id: id, at: stamp)
        }
        for (key, register) in written.stances where register.stance != .none {
            withdrawal.writeStance(.none, from: key.from, to: key.to, at: stamp)
        }
        for (key, register) in written.reactions where register.value {
            withdrawal.writeReaction(false, item: key.item, reactor: key.reactor, kind: key.kind, at: stamp)
        }
        try relay.submit(withdrawal, from: person, now: now)
        // Nothing more is pushed to a deleted account's devices (SERVER-12).
        try relay.removeDevices(of: person)
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
