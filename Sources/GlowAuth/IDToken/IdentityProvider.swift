/// An OpenID Connect provider whose ID tokens sign people in (AUTH-23, AUTH-29, AUTH-32):
/// where its keys are, which issuers and algorithms it uses, and how it carries the nonce.
public struct IdentityProvider: Sendable, Hashable, CustomStringConvertible {
    /// A short stable name: `apple`, `google`, or one a service chooses.
    public let id: String
    /// The exact `iss` values its tokens carry.
    public let issuers: Set<String>
    /// The URL of its JSON Web Key Set.
    public let keySetURL: String
    /// The JWS algorithms accepted from it: `RS256`, `ES256` or both.
    public let algorithms: Set<String>
    /// Whether its `nonce` claim is the lowercase hexadecimal SHA-256 of the raw nonce (Apple),
    /// rather than the raw nonce itself.
    public let hashesNonce: Bool
    /// The e-mail domain of its relay addresses, which never link to an account by e-mail.
    public let relayDomain: String?

    /// The algorithms this service can verify.
    public static let supportedAlgorithms: Set<String> = ["RS256", "ES256"]

    /// A provider.
    ///
    /// - Throws: ``AuthError/Code/invalidProvider`` without an issuer, without an algorithm, or
    ///   with an algorithm other than RS256 and ES256.
    public init(
        id: String, issuers: Set<String>, keySetURL: String, algorithms: Set<String> = ["RS256"],
        hashesNonce: Bool = false, relayDomain: String? = nil
    ) throws(AuthError) {
        guard !issuers.isEmpty, !algorithms.isEmpty, algorithms.isSubset(of: Self.supportedAlgorithms) else {
            throw AuthError(
                .invalidProvider,
                "a provider needs at least one issuer and algorithms among RS256 and ES256, not \(algorithms.sorted())",
                rule: "AUTH-23")
        }
        self.id = id
        self.issuers = issuers
        self.keySetURL = keySetURL
        self.algorithms = algorithms
        self.hashesNonce = hashesNonce
        self.relayDomain = relayDomain
    }

    /// Sign in with Apple: issuer `https://appleid.apple.com`, RS256, the nonce hashed, relay
    /// addresses at `privaterelay.appleid.com`.
    public static let apple = try! IdentityProvider(
        id: "apple", issuers: ["https://appleid.apple.com"], keySetURL: "https://appleid.apple.com/auth/keys",
        hashesNonce: true, relayDomain: "privaterelay.appleid.com")

    /// Google: both of its issuer spellings, RS256, the nonce as sent.
    public static let google = try! IdentityProvider(
        id: "google", issuers: ["https://accounts.google.com", "accounts.google.com"],
        keySetURL: "https://www.googleapis.com/oauth2/v3/certs")

    /// The provider's id.
    public var description: String { id }
}

/// What a verified ID token says about the person (AUTH-33).
public struct VerifiedIdentity: Sendable, Hashable {
    /// The provider that vouches for it.
    public let provider: String
    /// The provider's stable identifier of the person (`sub`).
    public let subject: String
    /// The e-mail address, when the token has one.
    public let email: String?
    /// Whether the provider verified the address.
    public let emailVerified: Bool
    /// Whether the address is a relay address (Apple's private relay).
    public let isPrivateRelay: Bool
    /// When the token was issued and when it expires, in seconds since 1970.
    public let issuedAt: Double
    /// When it expires, in seconds since 1970.
    public let expiresAt: Double

    /// Whether this identity may be linked to an existing account with the same address: only
    /// a verified address that is not a relay address.
    public var mayLinkByEmail: Bool { email != nil && emailVerified && !isPrivateRelay }
}
