import GlowAuth
import GlowProtocol
import GlowServer

extension ServiceHandler {
    /// The answer to `request` when `limiter` lets its client call now, else `429 throttled` with
    /// the wait (SERVER-11). The client is the address the account throttles count by.
    public func respond(to request: HTTPRequest, limitedBy limiter: ClientLimiter) -> HTTPResponse {
        Self.throttled(clientKey(request), by: limiter, now: clock.now()) ?? respond(to: request)
    }

    /// SERVER-11 before anything else: `429 throttled` with the wait when `limiter` does not let
    /// the request's client call now, nil (the call counted) when it does. It needs nothing but
    /// the request's headers and peer, so a server can ask it before reading the body
    /// (`HTTPServer`'s `screen`), and answer a flood without a handler thread.
    public static func screen(_ request: HTTPRequest, limitedBy limiter: ClientLimiter, settings: Settings)
        -> HTTPResponse?
    {
        throttled(
            clientKey(request, trustForwardedFor: settings.trustForwardedFor), by: limiter,
            now: SystemAuthClock().now())
    }

    /// SERVER-11's rate of connections: whether a new connection from the peer `address` may be
    /// taken in, counted by `limiter` (a limiter of its own, apart from the calls'). Behind a
    /// proxy the server trusts every connection is the proxy's, and a Unix socket's peers are the
    /// host's own: neither is counted.
    public static func admitsConnection(from address: String, limitedBy limiter: ClientLimiter, settings: Settings)
        -> Bool
    {
        guard !settings.trustForwardedFor, address != "unix", !address.isEmpty else { return true }
        return limiter.admit(ClientLimit.client(address), now: Int64(clamping: milliseconds(SystemAuthClock().now())))
            == nil
    }

    /// The answer of a server whose service has not started because its database has not answered
    /// yet: `503 storage_failed` with `Retry-After` (SERVER-7), health included.
    public static func starting(_ request: HTTPRequest) -> HTTPResponse {
        refusal(
            "storage_failed", "the server is starting: its database does not answer yet", rule: "SERVER-7",
            location: "")
    }

    /// `429 throttled` with the wait when `limiter` does not let `client` call at `now` (seconds
    /// since 1970); nil when it does, the call counted.
    static func throttled(_ client: String, by limiter: ClientLimiter, now: Double) -> HTTPResponse? {
        guard let wait = limiter.admit(client, now: Int64(milliseconds(now))) else { return nil }
        return refusal(
            "throttled", "this client calls more often than the server takes (\(limiter.limit))", rule: "SERVER-11",
            location: "client \(client.quoted())", retryAfter: wait)
    }
}
