import CArgon2
import CCrypto

/// The same primitives as GlowCrypto's, computed by libcrypto (OpenSSL 3) and the reference
/// libargon2: the oracle that the differential tests, the `crypto` fuzz target and glow-bench hold
/// the package's own crypto against. Never linked by a module of either side.
public enum CryptoOracle {
    /// The hash functions compared.
    public enum Hash: CaseIterable, Sendable {
        case sha1, sha256, sha512

        /// The digest's size in bytes.
        public var size: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha512: 64
            }
        }

        var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        }
    }

    /// A failure of the oracle itself, which makes a comparison meaningless.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// libcrypto's digest of `message`.
    public static func digest(_ hash: Hash, _ message: [UInt8]) throws(Failure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: hash.size)
        var length: UInt32 = 0
        let status = message.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer {
                EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, hash.evp, nil)
            }
        }
        guard status == 1 else { throw Failure(description: "libcrypto could not hash") }
        return out
    }

    /// libcrypto's HMAC of `message` under `key`.
    public static func hmac(_ hash: Hash, key: [UInt8], message: [UInt8]) throws(Failure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: hash.size)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                out.withUnsafeMutableBufferPointer {
                    HMAC(
                        hash.evp, key.baseAddress, Int32(key.count), message.baseAddress, message.count, $0.baseAddress,
                        &length)
                }
            }
        }
        guard result != nil else { throw Failure(description: "libcrypto could not compute an HMAC") }
        return out
    }

    /// libcrypto's AES-256-GCM: the ciphertext of `plaintext` and the 16-byte tag.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associated: [UInt8]) throws(Failure)
        -> [UInt8]
    {
        guard let context = EVP_CIPHER_CTX_new() else { throw Failure(description: "libcrypto has no cipher") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        var done = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
        if done && !associated.isEmpty {
            done = EVP_EncryptUpdate(context, nil, &length, associated, Int32(associated.count)) == 1
        }
        out.withUnsafeMutableBufferPointer { out in
            if done && !plaintext.isEmpty {
                done = EVP_EncryptUpdate(context, out.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1
            }
            done = done && EVP_EncryptFinal_ex(context, out.baseAddress! + plaintext.count, &length) == 1
            done =
                done && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, out.baseAddress! + plaintext.count) == 1
        }
        guard done else { throw Failure(description: "libcrypto could not seal") }
        return out
    }

    /// libcrypto's AES-256-GCM opening of ciphertext-and-tag: the plaintext, or nil when the tag
    /// does not authenticate.
    public static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], associated: [UInt8]) throws(Failure)
        -> [UInt8]?
    {
        guard sealed.count >= 16 else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { throw Failure(description: "libcrypto has no cipher") }
        defer { EVP_CIPHER_CTX_free(context) }
        let count = sealed.count - 16
        var tag = Array(sealed[count...])
        var out = [UInt8](repeating: 0, count: count + 16)
        var length: Int32 = 0
        var done = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
        if done && !associated.isEmpty {
            done = EVP_DecryptUpdate(context, nil, &length, associated, Int32(associated.count)) == 1
        }
        let authentic = out.withUnsafeMutableBufferPointer { out -> Bool in
            if done && count > 0 {
                done =
                    sealed.withUnsafeBufferPointer {
                        EVP_DecryptUpdate(context, out.baseAddress, &length, $0.baseAddress, Int32(count))
                    } == 1
            }
            done = done && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
            return done && EVP_DecryptFinal_ex(context, out.baseAddress! + count, &length) == 1
        }
        guard done else { throw Failure(description: "libcrypto could not open") }
        return authentic ? Array(out.prefix(count)) : nil
    }

    /// The reference libargon2's Argon2id (version 0x13), on one thread.
    public static func argon2id(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associated: [UInt8] = [], memoryKiB: Int,
        iterations: Int, parallelism: Int, tagLength: Int
    ) throws(Failure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: tagLength)
        var (password, salt, secret, associated) = (password, salt, secret, associated)
        let status = out.withUnsafeMutableBufferPointer { out in
            password.withUnsafeMutableBufferPointer { password in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associated.withUnsafeMutableBufferPointer { associated in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: UInt32(out.count), pwd: password.baseAddress,
                                pwdlen: UInt32(password.count), salt: salt.baseAddress, saltlen: UInt32(salt.count),
                                secret: secret.baseAddress, secretlen: UInt32(secret.count),
                                ad: associated.baseAddress, adlen: UInt32(associated.count),
                                t_cost: UInt32(iterations), m_cost: UInt32(memoryKiB), lanes: UInt32(parallelism),
                                threads: 1, version: UInt32(ARGON2_VERSION_13.rawValue), allocate_cbk: nil,
                                free_cbk: nil, flags: 0)
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        guard status == ARGON2_OK.rawValue else {
            throw Failure(description: "libargon2 refused: \(String(cString: argon2_error_message(status)))")
        }
        return out
    }
}
