import Foundation
import GlowModel
import GlowProtocol
import Synchronization

/// A device's session with a server: its tokens, the calls made as its person, and the refresh
/// an expired access token needs (one, then the call once more). Every new pair of tokens is
/// handed to `keep` before it is used, so a device that stops at any moment holds the pair the
/// server last gave it.
public final class SessionKeeper: Sendable {
    /// The server.
    public let client: ServiceClient
    private let current: Mutex<ClientSession?>
    /// Serialises refreshes: a refresh token works once, so two calls that find the access
    /// token expired must not both spend it.
    private let refreshing = Mutex(())
    private let keep: @Sendable (ClientSession?) -> Void

    /// A keeper of `session` (nil: signed out) with `client`, telling `keep` of each change.
    public init(
        client: ServiceClient, session: ClientSession?, keep: @escaping @Sendable (ClientSession?) -> Void = { _ in }
    ) {
        self.client = client
        self.current = Mutex(session)
        self.keep = keep
    }

    /// The session held, or nil when signed out.
    public var session: ClientSession? { current.withLock { $0 } }

    /// Holds `session` from now on (after a sign-in).
    public func hold(_ session: ClientSession?) {
        keep(session)
        current.withLock { $0 = session }
    }

    /// Calls `name` as the session's person; an expired access token is refreshed once.
    ///
    /// - Throws: ``ServiceFailure``: `signed_out` without a session; the server's refusal.
    public func call(_ name: String, _ request: ProtocolMessage = ProtocolMessage("Done")) async throws(ServiceFailure)
        -> ProtocolMessage
    {
        guard let session = session else {
            throw ServiceFailure(.signedOut, "no one is signed in on this device", call: name)
        }
        do {
            return try await client.call(name, request, accessToken: session.accessToken)
        } catch  where error.code == .sessionExpired {
            let renewed = try await renew(after: session)
            return try await client.call(name, request, accessToken: renewed.accessToken)
        }
    }

    /// The session after `stale`: renewed once by whoever finds it expired first.
    private func renew(after stale: ClientSession) async throws(ServiceFailure) -> ClientSession {
        if let newer = session, newer.accessToken != stale.accessToken { return newer }
        let renewed = try await client.refresh(stale.refreshToken)
        hold(renewed)
        return renewed
    }

    /// The relay transport of the activity store (FEED-29): each request's bytes to `relay`, as
    /// this session's person.
    public var relayTransport: @Sendable ([UInt8]) async throws -> [UInt8] {
        { [self] bytes in
            guard let type = ProtocolSchema.type("RelayRequest") else { preconditionFailure("declared") }
            let request = try ProtocolMessage(type, wire: bytes)
            return try await call("relay", request).wireEncoded()
        }
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
        hold(nil)
    }
}
