import GlowProtocol
import GlowServer

extension ServiceHandler {
    /// The answer to `request` when `limiter` lets its client call now, else `429 throttled` with
    /// the wait (SERVER-11). The client is the address the account throttles count by.
    public func respond(to request: HTTPRequest, limitedBy limiter: ClientLimiter) -> HTTPResponse {
        let client = clientKey(request)
        let now = Int64(Self.milliseconds(clock.now()))
        guard let wait = limiter.admit(client, now: now) else { return respond(to: request) }
        return Self.refusal(
            "throttled", "this client calls more often than the server takes (\(limiter.limit))", rule: "SERVER-11",
            location: "client \(client.quoted())", retryAfter: wait)
    }
}
