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

/// The key sets of the providers a verifier trusts, kept as long as their servers allow
/// (AUTH-27): fetched when first needed or when expired, and fetched again once when a token
/// names a key the set does not have, unless the set is younger than
/// ``KeySetCache/refreshInterval``, so that tokens with made-up key ids cannot make the service
/// hammer a provider.
public actor KeySetCache {
    /// How long a set is kept when its server does not say, in seconds.
    public static let defaultLifetime = 3_600
    /// The shortest and longest time a set is kept, whatever its server says.
    public static let lifetimes = 60...86_400
    /// How old a set must be before an unknown key id fetches it again, in seconds.
    public static let refreshInterval = 60.0

    private let fetcher: any KeySetFetcher
    private var entries: [String: (set: JSONWebKeySet, fetchedAt: Double, lifetime: Int)] = [:]
    /// How many times a set was fetched, successfully or not.
    public private(set) var fetchCount = 0

    /// An empty cache that fetches through `fetcher`.
    public init(fetcher: any KeySetFetcher) {
        self.fetcher = fetcher
    }

    /// The key `kid` of `provider`'s set at time `now` (seconds since 1970).
    ///
    /// - Throws: ``AuthError/Code/keySetUnavailable`` when a needed fetch fails;
    ///   ``AuthError/Code/malformedKeySet`` when the fetched set cannot be read;
    ///   ``AuthError/Code/unknownKey`` when neither the set nor its one refresh has `kid`.
    func key(_ kid: String, of provider: IdentityProvider, at now: Double) async throws(AuthError) -> JSONWebKeySet.Key
    {
        var fetchedNow = false
        var entry = entries[provider.keySetURL]
        if entry == nil || now >= entry!.fetchedAt + Double(entry!.lifetime) || now < entry!.fetchedAt {
            entry = try await fetch(provider, at: now)
            fetchedNow = true
        }
        if let key = entry!.set.keys[kid] { return key }
        if !fetchedNow && now - entry!.fetchedAt >= Self.refreshInterval {
            entry = try await fetch(provider, at: now)
            if let key = entry!.set.keys[kid] { return key }
        }
        throw AuthError(.unknownKey, "\(provider)'s key set has no key '\(kid)'", rule: "AUTH-27")
    }

    private func fetch(_ provider: IdentityProvider, at now: Double) async throws(AuthError) -> (
        set: JSONWebKeySet, fetchedAt: Double, lifetime: Int
    ) {
        fetchCount += 1
        let response: KeySetResponse
        do {
            response = try await fetcher.fetchKeySet(from: provider.keySetURL)
        } catch {
            throw AuthError(.keySetUnavailable, "\(provider)'s key set could not be fetched: \(error)", rule: "AUTH-27")
        }
        let set = try JSONWebKeySet(json: response.body)
        let lifetime = min(
            max(response.maxAge ?? Self.defaultLifetime, Self.lifetimes.lowerBound), Self.lifetimes.upperBound)
        let entry = (set: set, fetchedAt: now, lifetime: lifetime)
        entries[provider.keySetURL] = entry
        return entry
    }
}
