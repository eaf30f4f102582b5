import GlowCore

/// A key set as a provider's server answers it: the body, and the `max-age` of its
/// `Cache-Control` header when it has one.
public struct KeySetResponse: Sendable {
    /// The JSON body.
    public let body: [UInt8]
    /// How long the set may be kept, in seconds, when the server said.
    public let maxAge: Int?

    /// A response of `body`, to keep `maxAge` seconds when the server said.
    public init(body: [UInt8], maxAge: Int?) {
        self.body = body
        self.maxAge = maxAge
    }

    /// A response with the `max-age` of a `Cache-Control` header value, when it has a valid one.
    public init(body: [UInt8], cacheControl: String?) {
        var maxAge: Int?
        for directive in (cacheControl ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map(Self.trimmed)
            if parts.count == 2, parts[0].lowercased() == "max-age",
                parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) })
            {
                // A number too long for Int is as good as "a very long time": AUTH-27 caps it.
                maxAge = Int(parts[1]) ?? Int.max
            }
        }
        self.init(body: body, maxAge: maxAge)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}

/// Fetches a provider's key set: over HTTPS in an app or a server, from fixtures in tests.
public protocol KeySetFetcher: Sendable {
    /// The key set at `url`.
    func fetchKeySet(from url: String) async throws -> KeySetResponse
}

/// Fetches a provider's key set while the caller waits: a server with a blocking HTTP client, a
/// command-line tool reading a file, a test's fixtures.
public protocol BlockingKeySetFetcher: Sendable {
    /// The key set at `url`.
    func fetchKeySet(from url: String) throws -> KeySetResponse
}

/// The key sets of the providers a verifier trusts, kept as long as their servers allow
/// (AUTH-27): fetched when first needed or when expired, and fetched again once when a token
/// names a key the set does not have, unless the set is younger than
/// ``KeySetCache/refreshInterval``, so that tokens with made-up key ids cannot make the service
/// hammer a provider. Safe to share between threads and tasks.
public final class KeySetCache: Sendable {
    /// How long a set is kept when its server does not say, in seconds.
    public static let defaultLifetime = 3_600
    /// The shortest and longest time a set is kept, whatever its server says.
    public static let lifetimes = 60...86_400
    /// How old a set must be before an unknown key id fetches it again, in seconds.
    public static let refreshInterval = 60.0

    private enum Source {
        case waiting(any KeySetFetcher)
        case blocking(any BlockingKeySetFetcher)
    }

    private struct Entry {
        let set: JSONWebKeySet
        let fetchedAt: Double
        let lifetime: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var fetchCount = 0
    }

    private let source: Source
    private let state = Locked(State())

    /// An empty cache that fetches through `fetcher`.
    public init(fetcher: any KeySetFetcher) {
        source = .waiting(fetcher)
    }

    /// An empty cache that fetches through `fetcher`, which blocks until it has an answer; such a
    /// cache also serves ``IDTokenVerifier/verifySynchronously(_:nonce:at:)``.
    public init(blockingFetcher fetcher: any BlockingKeySetFetcher) {
        source = .blocking(fetcher)
    }

    /// How many times a set was fetched, successfully or not.
    public var fetchCount: Int { state.withLock { $0.fetchCount } }

    /// What the cache needs before it can answer for `kid`.
    private enum Need {
        case key(JSONWebKeySet.Key)
        case fetch
        case unknown
    }

    /// AUTH-27's decision, given whether a set was already fetched for this token.
    private func need(_ kid: String, of provider: IdentityProvider, at now: Double, fetched: Bool) -> Need {
        guard let entry = state.withLock({ $0.entries[provider.keySetURL] }),
            now < entry.fetchedAt + Double(entry.lifetime), now >= entry.fetchedAt
        else { return fetched ? .unknown : .fetch }
        if let key = entry.set.key(kid) { return .key(key) }
        return !fetched && now - entry.fetchedAt >= Self.refreshInterval ? .fetch : .unknown
    }

    /// The key `kid` of `provider`'s set at time `now` (seconds since 1970).
    ///
    /// - Throws: ``AuthError/Code/keySetUnavailable`` when a needed fetch fails;
    ///   ``AuthError/Code/malformedKeySet`` when the fetched set cannot be read;
    ///   ``AuthError/Code/unknownKey`` when neither the set nor its one refresh has `kid`.
    func key(_ kid: String, of provider: IdentityProvider, at now: Double) async throws(AuthError) -> JSONWebKeySet.Key
    {
        guard case .waiting(let fetcher) = source else { return try keyNow(kid, of: provider, at: now) }
        if let key = try lookUp(kid, of: provider, at: now, fetched: false) { return key }
        let response: Result<KeySetResponse, any Error>
        do { response = .success(try await fetcher.fetchKeySet(from: provider.keySetURL)) } catch {
            response = .failure(error)
        }
        return try afterFetch(response, kid, of: provider, at: now)
    }

    /// The same, for a cache with a blocking fetcher.
    ///
    /// - Throws: as ``key(_:of:at:)``; ``AuthError/Code/keySetUnavailable`` when the cache's
    ///   fetcher can only be awaited.
    func keyNow(_ kid: String, of provider: IdentityProvider, at now: Double) throws(AuthError) -> JSONWebKeySet.Key {
        guard case .blocking(let fetcher) = source else {
            throw AuthError(
                .keySetUnavailable, "this key-set cache fetches asynchronously: verify with the async method",
                rule: "AUTH-27")
        }
        if let key = try lookUp(kid, of: provider, at: now, fetched: false) { return key }
        return try afterFetch(Result { try fetcher.fetchKeySet(from: provider.keySetURL) }, kid, of: provider, at: now)
    }

    /// The key when AUTH-27 decides without fetching; nil when the set must be fetched first.
    private func lookUp(_ kid: String, of provider: IdentityProvider, at now: Double, fetched: Bool)
        throws(AuthError) -> JSONWebKeySet.Key?
    {
        switch need(kid, of: provider, at: now, fetched: fetched) {
        case .key(let key): return key
        case .unknown: throw Self.unknown(kid, provider)
        case .fetch: return nil
        }
    }

    /// Keeps the one fetch a token may cause, then decides again: with the set fetched, the key
    /// is there or unknown (AUTH-27 fetches once per token).
    private func afterFetch(
        _ response: Result<KeySetResponse, any Error>, _ kid: String, of provider: IdentityProvider, at now: Double
    ) throws(AuthError) -> JSONWebKeySet.Key {
        try keep(response, of: provider, at: now)
        guard let key = try lookUp(kid, of: provider, at: now, fetched: true) else { throw Self.unknown(kid, provider) }
        return key
    }

    /// Counts a fetch and keeps its set, or says why it cannot: a failed fetch or a set that
    /// breaks AUTH-26 leaves the set held before in place.
    private func keep(_ response: Result<KeySetResponse, any Error>, of provider: IdentityProvider, at now: Double)
        throws(AuthError)
    {
        state.withLock { $0.fetchCount += 1 }
        let body: [UInt8]
        let maxAge: Int?
        switch response {
        case .success(let answer):
            body = answer.body
            maxAge = answer.maxAge
        case .failure(let error):
            throw AuthError(.keySetUnavailable, "\(provider)'s key set could not be fetched: \(error)", rule: "AUTH-27")
        }
        let set = try JSONWebKeySet(json: body)
        let lifetime = min(max(maxAge ?? Self.defaultLifetime, Self.lifetimes.lowerBound), Self.lifetimes.upperBound)
        state.withLock { $0.entries[provider.keySetURL] = Entry(set: set, fetchedAt: now, lifetime: lifetime) }
    }

    private static func unknown(_ kid: String, _ provider: IdentityProvider) -> AuthError {
        AuthError(.unknownKey, "\(provider)'s key set has no key \(kid.quoted())", rule: "AUTH-27")
    }
}
