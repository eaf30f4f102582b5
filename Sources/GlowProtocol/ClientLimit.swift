import GlowCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// How often one client may call a server (SERVER-11): a burst at once, then one call every
/// interval, by the generic cell rate algorithm in whole milliseconds.
public struct ClientLimit: Sendable, Hashable, CustomStringConvertible {
    /// Milliseconds between calls once the burst is spent; 0 turns the limit off.
    public let intervalMilliseconds: Int64
    /// Calls a client may make at once (at least 1).
    public let burst: Int64
    /// How far ahead of now a client's `due` may be and its call still be served: `(B − 1) × I`.
    let tolerance: Int64

    /// glow-server's default: 20 calls a second, 200 at once.
    public static let standard = Self(checkedInterval: 50, burst: 200)
    /// No limit.
    public static let off = Self(checkedInterval: 0, burst: 1)

    /// A limit, or nil when the interval is negative, the burst is less than 1, or
    /// `(burst − 1) × interval` passes 2^63 − 1 milliseconds.
    public init?(intervalMilliseconds: Int64, burst: Int64) {
        guard intervalMilliseconds >= 0, burst >= 1 else { return nil }
        let (tolerance, overflow) = (burst - 1).multipliedReportingOverflow(by: intervalMilliseconds)
        guard !overflow else { return nil }
        self.intervalMilliseconds = intervalMilliseconds
        self.burst = burst
        self.tolerance = tolerance
    }

    private init(checkedInterval: Int64, burst: Int64) {
        intervalMilliseconds = checkedInterval
        self.burst = burst
        tolerance = (burst - 1) * checkedInterval
    }

    /// Whether the limit is off (an interval of 0).
    public var isOff: Bool { intervalMilliseconds == 0 }

    /// The limit in words, for messages: "200 calls at once, then one every 50 ms".
    public var description: String {
        isOff ? "no limit" : "\(burst) calls at once, then one every \(intervalMilliseconds) ms"
    }

    /// SERVER-11 for one request at `now` from a client whose `due` is `due` (nil: none): the
    /// client's next `due` when the request is served, or the whole seconds it must wait when
    /// it is not (its `due` then stays). Saturates rather than traps at the ends of `Int64`.
    public func decide(due: Int64?, now: Int64) -> Decision {
        let start = max(due ?? now, now)
        let ahead = start.subtractingSaturated(now)
        guard ahead > tolerance else {
            return .served(due: start.addingSaturated(intervalMilliseconds))
        }
        let wait = ahead - tolerance
        return .refused(retryAfterSeconds: UInt64(wait / 1_000) + (wait % 1_000 == 0 ? 0 : 1))
    }

    /// What SERVER-11 decides for one request.
    public enum Decision: Sendable, Hashable {
        /// Served; the client's `due` becomes this.
        case served(due: Int64)
        /// Refused with `429`; the client may call again after this many seconds.
        case refused(retryAfterSeconds: UInt64)
    }

    /// The client an address is (SERVER-11): an IPv6 address by its first 64 bits, an
    /// IPv4-mapped one as its IPv4 address, an IPv4 address whole, other text as itself.
    public static func client(_ address: String) -> String {
        var v6 = in6_addr()
        if address.utf8.contains(UInt8(ascii: ":")), inet_pton(AF_INET6, address, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return "4 " + bytes[12...].map { String($0) }.joined(separator: ".")
            }
            return "6 " + bytes[0..<8].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return "4 " + withUnsafeBytes(of: v4) { $0.map { String($0) } }.joined(separator: ".")
        }
        return "= " + address
    }
}

/// SERVER-11 kept for every client of a server: each client's `due`, in memory, for at most
/// `capacity` clients. A client whose `due` has passed is forgotten first, as the rule allows;
/// when that is not enough, those whose `due` is soonest.
public final class ClientLimiter: Sendable {
    /// The limit every client is held to.
    public let limit: ClientLimit
    /// The most clients remembered at once.
    public let capacity: Int
    private let shards: [Shard]

    private final class Shard: Sendable {
        let dues = Locked<[String: Int64]>([:])
    }

    /// A limiter holding clients to `limit`, remembering at most `capacity` of them (at least 16).
    public init(limit: ClientLimit, capacity: Int = 100_000) {
        self.limit = limit
        let count = 16
        self.capacity = max(capacity, count)
        shards = (0..<count).map { _ in Shard() }
    }

    /// SERVER-11 for a request from `address` at `now` (milliseconds since 1970): nil when it is
    /// served, or the whole seconds the client must wait.
    public func admit(_ address: String, now: Int64) -> UInt64? {
        if limit.isOff { return nil }
        let client = ClientLimit.client(address)
        let shard = shards[Int(UInt(bitPattern: client.hashValue) % UInt(shards.count))]
        let most = capacity / shards.count
        return shard.dues.withLock { dues in
            switch limit.decide(due: dues[client], now: now) {
            case .refused(let seconds):
                return seconds
            case .served(let due):
                dues[client] = due
                if dues.count > most { Self.forget(&dues, now: now, keeping: most) }
                return nil
            }
        }
    }

    /// The clients remembered now (for tests and figures).
    public var remembered: Int {
        shards.reduce(0) { sum, shard in sum + shard.dues.withLock { $0.count } }
    }

    /// Forgets every client whose `due` has passed; when more than half of `most` remain, those
    /// whose `due` is soonest until half remain, so forgetting is rare.
    private static func forget(_ dues: inout [String: Int64], now: Int64, keeping most: Int) {
        dues = dues.filter { $0.value > now }
        let half = max(most / 2, 1)
        guard dues.count > half else { return }
        let latest = dues.sorted { $0.value > $1.value }.prefix(half)
        dues = Dictionary(uniqueKeysWithValues: latest.map { ($0.key, $0.value) })
    }
}

extension Int64 {
    fileprivate func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    fileprivate func subtractingSaturated(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
