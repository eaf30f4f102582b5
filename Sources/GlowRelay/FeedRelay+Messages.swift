import GlowCore
import GlowFeed
import GlowProtocol
import GlowWire

extension FeedRelay {
    /// Answers one request's bytes from `person` (authenticated by the transport) with the
    /// response's bytes, over any transport: an HTTP body, a WebSocket frame (FEED-29). Bytes
    /// that are not a request, and requests the relay refuses, get an `error` response naming
    /// the problem; nothing is changed by them.
    public func handle(_ request: [UInt8], from person: String, now: Int64, limits: WireLimits = .default)
        -> [UInt8]
    {
        respond(to: request, from: person, now: now, limits: limits).wireEncoded()
    }

    /// The typed answer to one request's bytes.
    public func respond(to request: [UInt8], from person: String, now: Int64, limits: WireLimits = .default)
        -> RelayResponse
    {
        StoreReading.answer(unconfirmed: respond(to: request, from: person, now: now, limits: limits, confirming: nil))
    }

    /// The typed answer to one request's bytes from `person`, given in a transaction that first
    /// confirms `reading`, the read that authenticated `person` (``StoreReading``): nil, with
    /// nothing done, when the store the reading is of changed since; the caller reads it again.
    public func respond(
        to request: [UInt8], from person: String, now: Int64, limits: WireLimits = .default,
        confirming reading: StoreReading?
    ) -> RelayResponse? {
        let decoded: RelayRequest
        do {
            decoded = try RelayRequest(wire: request, limits: limits)
        } catch {
            return .error(
                code: error.code.description, message: "at offset \(error.offset): \(error.message)",
                rule: error.rule ?? "FEED-29")
        }
        switch decoded {
        case .submit(let delta):
            do {
                return try accept(delta, from: person, now: now, confirming: reading).map { .submitted($0.sequence) }
            } catch {
                return .error(code: error.code.description, message: error.message, rule: error.rule ?? "")
            }
        case .changes(let cursor):
            return answer { () throws(FeedError) in
                try changes(for: person, asking: .since(cursor), confirming: reading)
            }
        case .page(let page):
            return answer { () throws(FeedError) in try changes(for: person, asking: .page(page), confirming: reading) }
        }
    }

    /// A `changes` response with the answer `body` gives, or the `error` it throws.
    private func answer(_ body: () throws(FeedError) -> RelayAnswer?) -> RelayResponse? {
        do {
            return try body().map { .changes($0.delta, cursor: $0.cursor, next: $0.next) }
        } catch {
            return .error(code: error.code.description, message: error.message, rule: error.rule ?? "")
        }
    }
}
