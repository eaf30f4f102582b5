import GlowCore
import GlowCrypto

/// Verifies the OpenID Connect ID tokens of one provider for one app (AUTH-22 ... AUTH-34): the
/// compact JWS form, the algorithm, the key from the provider's set, the signature, then the
/// claims, in that order, so that nothing an unsigned token says is believed or reported.
public struct IDTokenVerifier: Sendable {
    /// The largest token read, in bytes.
    public static let byteLimit = 16_384
    /// The clock skew allowed on `exp`, `iat` and `nbf`, in seconds.
    public static let leeway = 60.0
    /// The longest `sub` accepted, in bytes.
    public static let subjectLimit = 255
    /// Header members that would let a token bring its own key, or change how it must be read.
    static let embeddedKeyHeaders = ["jwk", "jku", "x5u", "x5c"]

    /// The provider whose tokens this verifies.
    public let provider: IdentityProvider
    /// The app's client ids at the provider: the audiences it accepts.
    public let clientIDs: Set<String>
    /// Where the provider's keys come from.
    public let keys: KeySetCache

    /// A verifier of `provider`'s tokens issued to `clientIDs`.
    ///
    /// - Throws: ``AuthError/Code/invalidProvider`` without a client id.
    public init(provider: IdentityProvider, clientIDs: Set<String>, keys: KeySetCache) throws(AuthError) {
        guard !clientIDs.isEmpty, !clientIDs.contains("") else {
            throw AuthError(.invalidProvider, "a verifier needs at least one non-empty client id", rule: "AUTH-30")
        }
        self.provider = provider
        self.clientIDs = clientIDs
        self.keys = keys
    }

    /// What `token` says about the person, once every rule holds at time `now` (seconds since
    /// 1970). `nonce` is the raw nonce the app sent with its request, when it sent one (AUTH-32).
    ///
    /// - Throws: the ``AuthError`` of the first rule the token breaks, in AUTH-34's order.
    public func verify(_ token: String, nonce: String?, at now: Double) async throws(AuthError) -> VerifiedIdentity {
        let parsed = try Self.parse(token, provider: provider)
        let key = try await keys.key(parsed.kid, of: provider, at: now)
        try Self.checkSignature(parsed, key: key)
        return try claims(parsed.payload, nonce: nonce, now: now)
    }

    /// The same verification while the caller waits, for a verifier whose cache has a blocking
    /// fetcher (``KeySetCache/init(blockingFetcher:)``): a server without Swift concurrency, a
    /// command-line tool.
    ///
    /// - Throws: as ``verify(_:nonce:at:)``; ``AuthError/Code/keySetUnavailable`` when the cache's
    ///   fetcher can only be awaited.
    public func verifySynchronously(_ token: String, nonce: String?, at now: Double) throws(AuthError)
        -> VerifiedIdentity
    {
        let parsed = try Self.parse(token, provider: provider)
        let key = try keys.keyNow(parsed.kid, of: provider, at: now)
        try Self.checkSignature(parsed, key: key)
        return try claims(parsed.payload, nonce: nonce, now: now)
    }

    /// The same verification against a key set the caller holds (a server that refreshes keys
    /// on its own schedule): a `kid` the set does not have is ``AuthError/Code/unknownKey``, and
    /// nothing is fetched.
    public func verify(_ token: String, nonce: String?, at now: Double, keySet: JSONWebKeySet) throws(AuthError)
        -> VerifiedIdentity
    {
        let parsed = try Self.parse(token, provider: provider)
        guard let key = keySet.key(parsed.kid) else {
            throw AuthError(.unknownKey, "the key set has no key \(parsed.kid.quoted())", rule: "AUTH-25")
        }
        try Self.checkSignature(parsed, key: key)
        return try claims(parsed.payload, nonce: nonce, now: now)
    }

    /// A token split and read as far as its signature: AUTH-22 ... AUTH-24.
    struct Parsed {
        let algorithm: String
        let kid: String
        let payload: JOSEJSON
        let signingInput: [UInt8]
        let signature: [UInt8]
    }

    static func parse(_ token: String, provider: IdentityProvider) throws(AuthError) -> Parsed {
        guard token.utf8.count <= byteLimit else {
            throw AuthError(
                .tokenTooLarge, "the token is \(token.utf8.count) bytes, more than \(byteLimit)", rule: "AUTH-22")
        }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw malformed("it has \(parts.count) parts, not 3") }
        guard let headerBytes = Base64.url.decode(Substring(parts[0])) else {
            throw malformed("its header is not base64url")
        }
        guard let payloadBytes = Base64.url.decode(Substring(parts[1])) else {
            throw malformed("its payload is not base64url")
        }
        guard let signature = Base64.url.decode(Substring(parts[2])), !signature.isEmpty else {
            throw malformed("its signature is empty or not base64url")
        }
        let header = try object(headerBytes, "header")
        let payload = try object(payloadBytes, "payload")
        guard let algorithm = header["alg"]?.string else { throw malformed("its header has no string 'alg'") }
        guard provider.algorithms.contains(where: { $0.isExactly(algorithm) }) else {
            throw AuthError(
                .algorithmNotAllowed,
                "the algorithm \(algorithm.quoted(limit: 32)) is not one \(provider) signs with (\(provider.algorithms.sorted().joined(separator: ", ")))",
                rule: "AUTH-23")
        }
        if let name = embeddedKeyHeaders.first(where: { header[$0] != nil }) {
            throw AuthError(
                .embeddedKeyRejected,
                "the header's '\(name)' would name its own key; only \(provider)'s key set is trusted",
                rule: "AUTH-24")
        }
        if header["crit"] != nil {
            throw AuthError(
                .unsupportedHeader,
                "the header has critical extensions ('crit'), which this service does not implement", rule: "AUTH-24")
        }
        guard let kid = header["kid"]?.string else {
            throw AuthError(.unknownKey, "the header has no string 'kid' to select a key by", rule: "AUTH-25")
        }
        return Parsed(
            algorithm: algorithm, kid: kid, payload: payload,
            signingInput: Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1]), signature: signature)
    }

    static func checkSignature(_ token: Parsed, key: JSONWebKeySet.Key) throws(AuthError) {
        // AUTH-43: every comparison of the header and the key is of bytes.
        let type = token.algorithm.isExactly("ES256") ? "EC" : "RSA"
        guard key.type.isExactly(type), key.algorithm.map({ $0.isExactly(token.algorithm) }) ?? true,
            key.use.map({ $0.isExactly("sig") }) ?? true
        else {
            throw AuthError(
                .keyMismatch,
                "the key \(key.kid.quoted()) (\(key.type.quoted()), alg \(key.algorithm?.quoted() ?? "unset"), use \(key.use?.quoted() ?? "unset")) cannot verify \(token.algorithm.quoted(limit: 32))",
                rule: "AUTH-25")
        }
        let publicKey = try key.key.get()
        let valid: Bool
        if type == "EC" {
            valid =
                Crypto.derSignature(raw: token.signature).map {
                    publicKey.verifySHA256(signature: $0, message: token.signingInput)
                } ?? false
        } else {
            valid =
                token.signature.count == (publicKey.bits + 7) / 8
                && publicKey.verifySHA256(signature: token.signature, message: token.signingInput)
        }
        guard valid else {
            throw AuthError(
                .badSignature, "the signature does not verify with the key \(key.kid.quoted())", rule: "AUTH-28")
        }
    }

    private func claims(_ payload: JOSEJSON, nonce: String?, now: Double) throws(AuthError) -> VerifiedIdentity {
        let issuer = try Self.required(payload, "iss").stringClaim("iss")
        guard provider.issuers.contains(where: { $0.isExactly(issuer) }) else {
            throw AuthError(
                .wrongIssuer, "the issuer \(issuer.quoted(limit: 100)) is not \(provider)'s", rule: "AUTH-29")
        }
        try audience(payload)
        let expiresAt = try Self.required(payload, "exp").numberClaim("exp")
        let issuedAt = try Self.required(payload, "iat").numberClaim("iat")
        guard now < expiresAt + Self.leeway else {
            throw AuthError(.tokenExpired, "the token expired at \(expiresAt), and it is now \(now)", rule: "AUTH-31")
        }
        guard issuedAt <= now + Self.leeway else {
            throw AuthError(
                .tokenNotYetValid, "the token says it was issued at \(issuedAt), after now (\(now))", rule: "AUTH-31")
        }
        if let notBefore = try payload["nbf"]?.numberClaim("nbf"), notBefore > now + Self.leeway {
            throw AuthError(
                .tokenNotYetValid, "the token is not valid before \(notBefore), and it is now \(now)", rule: "AUTH-31")
        }
        if let nonce {
            let expected = provider.hashesNonce ? Crypto.hex(Crypto.sha256(Array(nonce.utf8))) : nonce
            guard let claim = payload["nonce"]?.string,
                Crypto.constantTimeEqual(Array(claim.utf8), Array(expected.utf8))
            else {
                throw AuthError(.nonceMismatch, "the token's nonce is not the one this sign-in sent", rule: "AUTH-32")
            }
        }
        let subject = try Self.required(payload, "sub").stringClaim("sub")
        guard !subject.isEmpty, subject.utf8.count <= Self.subjectLimit else {
            throw AuthError(.invalidClaim, "'sub' must be 1 to \(Self.subjectLimit) bytes", rule: "AUTH-33")
        }
        let email = try payload["email"]?.stringClaim("email")
        let verified = try payload["email_verified"]?.flagClaim("email_verified") ?? false
        let privateEmail = try payload["is_private_email"]?.flagClaim("is_private_email") ?? false
        let domain = email.flatMap { $0.lastIndex(of: "@").map { $0 } }.map { email![$0...].dropFirst().lowercased() }
        return VerifiedIdentity(
            provider: provider.id, subject: subject, email: email, emailVerified: verified,
            isPrivateRelay: privateEmail || (domain != nil && domain == provider.relayDomain), issuedAt: issuedAt,
            expiresAt: expiresAt)
    }

    /// AUTH-30: `aud` names this app and nothing else it does not trust; `azp`, needed with
    /// several audiences, names this app too.
    private func audience(_ payload: JOSEJSON) throws(AuthError) {
        let audiences: [String]
        switch try Self.required(payload, "aud") {
        case .string(let one): audiences = [one]
        case .array(let many) where !many.isEmpty && many.allSatisfy({ $0.string != nil }):
            audiences = many.map { $0.string! }
        default:
            throw AuthError(.invalidClaim, "'aud' must be a string or a non-empty array of strings", rule: "AUTH-33")
        }
        // AUTH-43: client ids are compared as bytes, not as Swift's canonically equivalent strings.
        func trusted(_ id: String) -> Bool { clientIDs.contains { $0.isExactly(id) } }
        guard audiences.contains(where: trusted) else {
            throw AuthError(.wrongAudience, "the token was not issued to this app", rule: "AUTH-30")
        }
        guard audiences.allSatisfy(trusted) else {
            throw AuthError(
                .untrustedAudience, "the token was also issued to an audience this app does not trust", rule: "AUTH-30")
        }
        let party = try payload["azp"]?.stringClaim("azp")
        if audiences.count > 1 && party == nil {
            throw AuthError(
                .wrongAuthorizedParty, "a token with several audiences must name its authorized party", rule: "AUTH-30")
        }
        if let party, !trusted(party) {
            throw AuthError(.wrongAuthorizedParty, "the authorized party is not this app", rule: "AUTH-30")
        }
    }

    private static func required(_ payload: JOSEJSON, _ name: String) throws(AuthError) -> JOSEJSON {
        guard let value = payload[name] else {
            throw AuthError(.missingClaim, "the token has no '\(name)'", rule: "AUTH-33")
        }
        return value
    }

    private static func object(_ bytes: [UInt8], _ part: String) throws(AuthError) -> JOSEJSON {
        switch JOSEJSON.parse(bytes) {
        case .success(let value):
            guard case .object = value else { throw malformed("its \(part) is not a JSON object") }
            return value
        case .failure(let failure):
            throw malformed("its \(part) is not JSON: \(failure.reason)")
        }
    }

    private static func malformed(_ reason: String) -> AuthError {
        AuthError(.malformedToken, "the token is not a compact JWS: \(reason)", rule: "AUTH-22")
    }
}

extension JOSEJSON {
    fileprivate func stringClaim(_ name: String) throws(AuthError) -> String {
        guard case .string(let text) = self else {
            throw AuthError(.invalidClaim, "'\(name)' must be a string", rule: "AUTH-33")
        }
        return text
    }

    fileprivate func numberClaim(_ name: String) throws(AuthError) -> Double {
        guard case .number(let value) = self else {
            throw AuthError(.invalidClaim, "'\(name)' must be a number of seconds", rule: "AUTH-33")
        }
        return value
    }

    /// A boolean claim as providers send them: `true`, `false`, or the strings "true" and "false".
    fileprivate func flagClaim(_ name: String) throws(AuthError) -> Bool {
        switch self {
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        default: throw AuthError(.invalidClaim, "'\(name)' must be true or false", rule: "AUTH-33")
        }
    }
}
