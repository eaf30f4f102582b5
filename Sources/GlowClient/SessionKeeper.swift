import Foundation
import GlowCore
import GlowModel
import GlowProtocol
import GlowWire

/// A device's session with a server, for one person: its tokens, the calls made as its person, and
/// the refresh an expired access token needs (before a call when the access token's expiry has
/// passed, and after a call the server answered `session_expired`: one, then the call once more).
/// Every new pair of tokens is handed to `keep` before it is used, so a device that stops at any
/// moment holds the pair the server last gave it.
///
/// The keeper's person never changes; once the server refuses the session (it was ended
/// elsewhere: `invalid_session`) or its refresh (its refresh token expired or was spent), or the
/// device signs out, the keeper holds no session, `keep` hears nil, and every call is refused with
/// `signed_out`.
public final class SessionKeeper: Sendable {
    /// The server.
    public let client: ServiceClient
    /// The person the session is of.
    public let account: PersonID
    private let current: Locked<ClientSession?>
    /// The refresh under way: a refresh token works once, so two calls that find the access token
    /// expired wait for one refresh rather than both spend it.
    private let refreshing = Locked<Task<ClientSession, any Error>?>(nil)
    private let keep: @Sendable (ClientSession?) -> Void
    private let latest: @Sendable () -> ClientSession?

    /// A keeper of `session` with `client`, telling `keep` of each new pair and of the end. Before
    /// it spends a refresh token it asks `latest` for the pair kept last: another process on the
    /// same secrets (an app's widget) may have renewed the session already, and that pair is used
    /// instead of spending a refresh token used up (whose second use ends the session, AUTH-37).
    public init(
        client: ServiceClient, session: ClientSession, keep: @escaping @Sendable (ClientSession?) -> Void = { _ in },
        latest: @escaping @Sendable () -> ClientSession? = { nil }
    ) {
        self.client = client
        self.account = session.account
        self.current = Locked(session)
        self.keep = keep
        self.latest = latest
    }

    /// The session held, or nil once it ended.
    public var session: ClientSession? { current.withLock { $0 } }

    /// Forgets the session on this device (the server is not asked: ``signOut()`` asks it);
    /// `keep` hears nil.
    public func end() {
        keep(nil)
        current.withLock { $0 = nil }
    }

    /// Holds `renewed`, kept first.
    private func hold(_ renewed: ClientSession) {
        keep(renewed)
        current.withLock { $0 = renewed }
    }

    /// Calls `name` as the session's person; an expired access token is refreshed once. The
    /// package's own way to any call: an app calls the typed methods, each named for its call.
    ///
    /// - Throws: ``ServiceFailure``: `signed_out` without a session; the server's refusal.
    package func call(_ name: String, _ request: ProtocolMessage = ProtocolMessage("Done"))
        async throws(ServiceFailure) -> ProtocolMessage
    {
        guard var session = session else {
            throw ServiceFailure(.signedOut, "no one is signed in on this device", call: name)
        }
        // An access token past its expiry is renewed before the call, not after its refusal.
        if session.accessExpiresAt <= UInt64(clamping: Instant.now.millisecondsSince1970) {
            session = try await renew(after: session)
        }
        do {
            return try await client.call(name, request, accessToken: session.accessToken)
        } catch  where error.code == .sessionExpired {
            let renewed = try await renew(after: session)
            return try await client.call(name, request, accessToken: renewed.accessToken)
        } catch  where error.code == .invalidSession {
            // Ended on the server (a sign-out elsewhere, a revocation): over on this device too.
            end()
            throw error
        }
    }

    /// The session after `stale`: renewed once, by the refresh under way when there is one.
    private func renew(after stale: ClientSession) async throws(ServiceFailure) -> ClientSession {
        if let newer = session, newer.accessToken != stale.accessToken { return newer }
        let refresh = refreshing.withLock { running -> Task<ClientSession, any Error> in
            if let running { return running }
            let started = Task { try await self.refresh(after: stale) }
            running = started
            return started
        }
        defer { refreshing.withLock { if $0 == refresh { $0 = nil } } }
        do {
            return try await refresh.value
        } catch let failure as ServiceFailure {
            throw failure
        } catch {
            throw ServiceFailure(.network, "the refresh did not finish: \(error)", call: "refresh")
        }
    }

    /// The session after `stale`: taken from what another process kept, or renewed by the
    /// server. A refresh the server refuses ends the session.
    private func refresh(after stale: ClientSession) async throws(ServiceFailure) -> ClientSession {
        if let kept = latest(), kept.account == account, kept.refreshToken != stale.refreshToken,
            kept.accessExpiresAt > UInt64(clamping: Instant.now.millisecondsSince1970)
        {
            current.withLock { $0 = kept }
            return kept
        }
        do {
            let renewed = try await client.refresh(stale.refreshToken)
            hold(renewed)
            return renewed
        } catch  where error.status == 401 {
            // The server holds the session no more (ended elsewhere, its refresh token expired or
            // spent): it is over on this device too.
            end()
            throw error
        }
    }

    /// Asks the relay as this session's person (FEED-25 ... FEED-29): its writes accepted, or the
    /// changes since a cursor.
    ///
    /// - Returns: the relay's answer; a refusal of the relay's own comes back as a ``ServiceFailure``
    ///   with its code (SERVER-5).
    /// - Throws: ``ServiceFailure``: `signed_out`; the server's refusal; `malformed_response` for an
    ///   answer that is not a `RelayResponse`.
    public func relay(_ request: RelayRequest) async throws(ServiceFailure) -> RelayResponse {
        guard let type = ProtocolSchema.type("RelayRequest") else { preconditionFailure("declared") }
        let message: ProtocolMessage
        do {
            message = try ProtocolMessage(type, wire: request.wireEncoded())
        } catch {
            preconditionFailure("a relay request reads as itself: \(error)")
        }
        let answer = try await call("relay", message)
        do {
            return try RelayResponse(wire: answer.wireEncoded())
        } catch {
            throw ServiceFailure(.malformedResponse, "the answer is not a RelayResponse: \(error)", call: "relay")
        }
    }

    /// The relay transport of the activity store (FEED-29): each request's bytes to ``relay(_:)``,
    /// as this session's person.
    public var relayTransport: @Sendable ([UInt8]) async throws -> [UInt8] {
        { [self] bytes in try await relay(try RelayRequest(wire: bytes)).wireEncoded() }
    }

    /// Registers this device for pushes of friends' activity (SERVER-12): the platform's `token`,
    /// the zone its person lives in, and the quiet hours when nothing may arrive (the profile's,
    /// ``Profile/reminders``). Registering again replaces what the server held for the token.
    ///
    /// When another account holds the token (a phone passed on), the server answers
    /// `token_held` and sends the token a background push whose payload's `glow-proof` is a code
    /// (``proofCode(inPushPayload:)``); register again with that code as `proof` (REMIND-14).
    ///
    /// - Throws: ``ServiceFailure``: `token_held` as above, `invalid_reminder` for a token outside
    ///   REMIND-14, `invalid_time_zone` for a zone the server does not know, or its other refusals.
    public func registerDevice(
        token: String, timeZone: TimeZoneID, quietHours: PersonReminders.QuietHours? = nil, proof: String? = nil
    ) async throws(ServiceFailure) {
        var request = ProtocolMessage("RegisterDeviceRequest").with("token", token)
            .with("time_zone", timeZone.identifier)
        if let proof { request = request.with("proof", proof) }
        if let quietHours {
            request = request.with("quiet_start", .unsigned(UInt64(quietHours.start)))
                .with("quiet_end", .unsigned(UInt64(quietHours.end)))
        }
        _ = try await call("register-device", request)
    }

    /// The code of a proof push (REMIND-18) in a push's payload, as the platform hands it to the
    /// app (`userInfo`, as JSON): its `glow-proof` text; nil for any other push.
    public static func proofCode(inPushPayload payload: [AnyHashable: Any]) -> String? {
        payload["glow-proof"] as? String
    }

    /// Takes this device's push `token` back from the server (the person turned pushes off).
    ///
    /// - Throws: ``ServiceFailure``: the server's refusal.
    public func removeDevice(token: String) async throws(ServiceFailure) {
        _ = try await call("remove-device", ProtocolMessage("RemoveDeviceRequest").with("token", token))
    }

    /// Signs out: the server ends the session, and the device forgets it.
    public func signOut() async throws(ServiceFailure) {
        _ = try await call("sign-out")
        end()
    }
}
