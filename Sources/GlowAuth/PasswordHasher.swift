import GlowCrypto

/// Hashes and verifies passwords with Argon2id (AUTH-11 ... AUTH-17).
public struct PasswordHasher: Sendable {
    /// The cost of new hashes; hashes made with less need rehashing (AUTH-17).
    public let parameters: Argon2Parameters
    /// The salt length of new hashes, in bytes.
    public static let saltLength = 16
    /// The tag length of new hashes, in bytes.
    public static let tagLength = 32

    /// A hasher of `parameters`, OWASP's by default (AUTH-12).
    ///
    /// - Throws: ``AuthError/Code/invalidHashParameters`` outside AUTH-13.
    public init(parameters: Argon2Parameters = .owasp) throws(AuthError) {
        try parameters.check()
        self.parameters = parameters
    }

    /// A new hash of `password`, with a fresh salt from the system's cryptographic generator.
    ///
    /// - Throws: ``AuthError`` when Argon2id cannot run (its memory could not be had): never a
    ///   crash of the process, and never a hash that is not one.
    public func hash(_ password: Password) throws(AuthError) -> PasswordHash {
        let salt = Crypto.randomBytes(Self.saltLength)
        let tag = try Argon2id.tag(
            password: Array(password.normalized.utf8), salt: salt, parameters: parameters, tagLength: Self.tagLength)
        return try PasswordHash(parameters: parameters, salt: salt, tag: tag)
    }

    /// Whether `password` is the one `hash` was made of (AUTH-16): normalised as AUTH-2 says and
    /// refused unread beyond AUTH-1's size, hashed with the stored salt and parameters, and
    /// compared in time that does not depend on where the tags differ.
    ///
    /// - Throws: ``AuthError`` when Argon2id cannot run: a failure to check is never reported as a
    ///   wrong password.
    public func verify(_ password: String, against hash: PasswordHash) throws(AuthError) -> Bool {
        guard password.utf8.count <= PasswordPolicy.byteLimit else { return false }
        let normalized = password.precomposedStringWithCompatibilityMapping
        let tag = try Argon2id.tag(
            password: Array(normalized.utf8), salt: hash.salt, parameters: hash.parameters, tagLength: hash.tag.count)
        return Crypto.constantTimeEqual(tag, hash.tag)
    }

    /// Whether `hash` should be replaced by a new one after a successful sign-in (AUTH-17).
    public func needsRehash(_ hash: PasswordHash) -> Bool {
        !hash.parameters.isAtLeast(parameters) || hash.salt.count < Self.saltLength || hash.tag.count < Self.tagLength
    }
}
