import GlowCrypto

/// Argon2id (RFC 9106, AUTH-11) through the package's own implementation (GlowCrypto, the same
/// one that derives encrypted bundles' keys), with the bounds of AUTH-13 checked before any work.
public enum Argon2id {
    /// The tag of `password` under `parameters`, with an optional secret key and associated data
    /// (RFC 9106's K and X).
    ///
    /// - Throws: ``AuthError/Code/invalidHashParameters`` outside the bounds of AUTH-13.
    public static func tag(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [],
        parameters: Argon2Parameters, tagLength: Int
    ) throws(AuthError) -> [UInt8] {
        try parameters.check()
        guard Argon2Parameters.saltLengths.contains(salt.count) else {
            throw AuthError(
                .invalidHashParameters, "a salt of \(salt.count) bytes is outside 8...64", rule: "AUTH-13")
        }
        guard Argon2Parameters.rawTagLengths.contains(tagLength) else {
            throw AuthError(
                .invalidHashParameters, "a tag of \(tagLength) bytes is outside 4...64", rule: "AUTH-13")
        }
        // AUTH-1 bounds passwords; secrets and associated data are the caller's own, and small.
        guard password.count <= 1 << 20, secret.count <= 64, associatedData.count <= 1 << 20 else {
            throw AuthError(.invalidHashParameters, "an input is too long to hash", rule: "AUTH-13")
        }
        do {
            return try Crypto.argon2id(
                password: password, salt: salt, secret: secret, associatedData: associatedData,
                memoryKiB: parameters.memoryKiB, iterations: parameters.iterations,
                parallelism: parameters.parallelism, tagLength: tagLength)
        } catch {
            throw AuthError(.invalidHashParameters, "Argon2 refused the inputs: \(error.message)", rule: "AUTH-13")
        }
    }
}

/// The cost of one Argon2id hash (AUTH-12, AUTH-13).
public struct Argon2Parameters: Hashable, Sendable {
    /// Memory in KiB.
    public var memoryKiB: Int
    /// Passes over the memory.
    public var iterations: Int
    /// Lanes (and threads).
    public var parallelism: Int

    /// OWASP's recommendation for Argon2id: 19 MiB, 2 passes, 1 lane (AUTH-12).
    public static let owasp = Argon2Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1)

    /// The most memory a hash may ask for: 256 MiB, so no stored hash can exhaust a server.
    public static let maximumMemoryKiB = 262_144
    /// Salts of 8 to 64 bytes.
    public static let saltLengths = 8...64
    /// Tags of 16 to 64 bytes in stored hashes; the raw function also takes 4 to 15.
    public static let tagLengths = 16...64
    static let rawTagLengths = 4...64

    /// Parameters; checked when used.
    public init(memoryKiB: Int, iterations: Int, parallelism: Int) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// Whether the parameters lie within AUTH-13.
    public var isSupported: Bool {
        (1...16).contains(parallelism) && (1...16).contains(iterations)
            && (8 * parallelism...Argon2Parameters.maximumMemoryKiB).contains(memoryKiB)
    }

    func check() throws(AuthError) {
        guard isSupported else {
            throw AuthError(
                .invalidHashParameters,
                "m=\(memoryKiB), t=\(iterations), p=\(parallelism) is outside m 8p...262144, t 1...16, p 1...16",
                rule: "AUTH-13")
        }
    }

    /// Whether memory and passes are each at least `other`'s (AUTH-17; lanes do not weaken a hash).
    func isAtLeast(_ other: Argon2Parameters) -> Bool {
        memoryKiB >= other.memoryKiB && iterations >= other.iterations
    }
}
