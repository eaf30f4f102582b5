import GlowCore
import GlowCrypto

/// A provider's JSON Web Key Set (RFC 7517) as AUTH-26 reads it: the keys that can verify its
/// ID tokens, by key id. Keys of a type this service does not use are skipped, so a provider
/// that adds one does not break sign-in; a key of a known type whose members are wrong is kept
/// as unusable, and refused only when a token names it (AUTH-25).
public struct JSONWebKeySet: Sendable {
    /// The largest key set read, in bytes.
    public static let byteLimit = 65_536
    /// The most keys a set may hold.
    public static let keyLimit = 100

    /// A key: its type and what it may be used for, and the public key when its members are
    /// valid.
    struct Key: Sendable {
        let kid: String
        /// `RSA` or `EC`.
        let type: String
        /// The key's `alg`, when it has one.
        let algorithm: String?
        /// The key's `use`, when it has one.
        let use: String?
        /// The key, or why it cannot be one.
        let key: Result<Crypto.PublicKey, AuthError>
    }

    /// The keys by their `kid`'s UTF-8 bytes: a `kid` is matched byte for byte (AUTH-43), never as
    /// a canonically equivalent Swift string.
    let keys: [[UInt8]: Key]

    /// The key whose `kid` is `kid`, byte for byte (AUTH-25, AUTH-43).
    func key(_ kid: String) -> Key? { keys[Array(kid.utf8)] }

    /// The key ids of the set, sorted.
    public var keyIDs: [String] { keys.values.map(\.kid).sorted() }

    /// Reads a key set.
    ///
    /// - Throws: ``AuthError/Code/malformedKeySet`` when the text is too large, is not a JSON
    ///   object with a `keys` array of objects, holds more than ``keyLimit`` keys, a key of a
    ///   known type without a string `kid`, or two keys with one `kid`.
    public init(json bytes: [UInt8]) throws(AuthError) {
        guard bytes.count <= Self.byteLimit else {
            throw Self.malformed("it is \(bytes.count) bytes, more than \(Self.byteLimit)")
        }
        let document: JOSEJSON
        switch JOSEJSON.parse(bytes) {
        case .success(let value): document = value
        case .failure(let failure): throw Self.malformed("it is not JSON: \(failure.reason)")
        }
        guard case .array(let entries)? = document["keys"] else { throw Self.malformed("it has no 'keys' array") }
        guard entries.count <= Self.keyLimit else {
            throw Self.malformed("it holds \(entries.count) keys, more than \(Self.keyLimit)")
        }
        var keys: [[UInt8]: Key] = [:]
        for (position, entry) in entries.enumerated() {
            guard case .object = entry else { throw Self.malformed("key \(position) is not an object") }
            guard let type = entry["kty"]?.string, type.isExactly("RSA") || type.isExactly("EC") else { continue }
            guard let kid = entry["kid"]?.string else { throw Self.malformed("key \(position) has no string 'kid'") }
            guard keys[Array(kid.utf8)] == nil else { throw Self.malformed("two keys have the kid \(kid.quoted())") }
            keys[Array(kid.utf8)] = Key(
                kid: kid, type: type, algorithm: entry["alg"]?.string, use: entry["use"]?.string,
                key: Self.publicKey(entry, type: type, kid: kid))
        }
        self.keys = keys
    }

    /// The smallest RSA modulus accepted, in bits.
    static let minimumRSABits = 2048
    /// The largest RSA modulus accepted, in bits: verification cost grows with it.
    static let maximumRSABits = 8192

    private static func publicKey(_ entry: JOSEJSON, type: String, kid: String) -> Result<Crypto.PublicKey, AuthError> {
        func invalid(_ reason: String) -> Result<Crypto.PublicKey, AuthError> {
            .failure(AuthError(.invalidKey, "the key \(kid.quoted()) \(reason)", rule: "AUTH-25"))
        }
        func member(_ name: String) -> [UInt8]? { entry[name]?.string.flatMap { Base64.url.decode($0) } }
        if type == "RSA" {
            guard let n = member("n"), let e = member("e"), !n.isEmpty, !e.isEmpty, n[0] != 0, e[0] != 0 else {
                return invalid("has no valid base64url 'n' and 'e'")
            }
            let bits = n.count * 8 - n[0].leadingZeroBitCount
            guard (minimumRSABits...maximumRSABits).contains(bits) else {
                return invalid("has a \(bits)-bit modulus, outside \(minimumRSABits) to \(maximumRSABits)")
            }
            guard e.count <= 8, e.last! & 1 == 1, e != [1] else { return invalid("has an unusable exponent") }
            guard let key = Crypto.PublicKey.rsa(modulus: n, exponent: e) else {
                return invalid("is refused by libcrypto")
            }
            return .success(key)
        }
        guard entry["crv"]?.string == "P-256" else { return invalid("is not on the curve P-256") }
        guard let x = member("x"), let y = member("y"), x.count == 32, y.count == 32 else {
            return invalid("has no 32-byte base64url 'x' and 'y'")
        }
        guard let key = Crypto.PublicKey.p256(x: x, y: y) else { return invalid("is not a point of P-256") }
        return .success(key)
    }

    private static func malformed(_ reason: String) -> AuthError {
        AuthError(.malformedKeySet, "the key set cannot be used: \(reason)", rule: "AUTH-26")
    }
}
