import CArgon2
import CCrypto

/// The cryptographic primitives of the SDK, and the one seam through which every module reaches
/// them (GlowAuth's accounts and tokens, GlowBundle's encrypted bundles): SHA-256, HMAC, HKDF,
/// AES-256-GCM, Argon2id, the system's CSPRNG, and RSA (PKCS #1 v1.5) and ECDSA (P-256)
/// verification with SHA-256. Here they come from libcrypto (Debian's `libssl-dev`) and the
/// reference Argon2 (`libargon2-dev`) through the `CCrypto` and `CArgon2` shims; on Apple
/// platforms the same functions map onto CryptoKit and Security, and nothing above this module
/// changes.
package enum Crypto {
    /// The SHA-256 digest of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(
                    input.baseAddress, input.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    &length, EVP_sha256(), nil)
            }
        }
        // SHA-256 of bytes in memory cannot fail but for a broken library.
        precondition(done == 1 && length == 32, "libcrypto could not compute SHA-256")
        return digest
    }

    /// The hash functions an HMAC may use here.
    package enum HashFunction {
        case sha1, sha256, sha512

        package var size: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha512: 64
            }
        }

        fileprivate var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        }
    }

    /// HMAC-SHA-256 of `message` under `key`.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        hmac(.sha256, key: key, message: message)
    }

    /// The HMAC of `message` under `key` with `function`.
    package static func hmac(_ function: HashFunction, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: function.size)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                digest.withUnsafeMutableBytes { output in
                    HMAC(
                        function.evp, keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil && Int(length) == function.size, "libcrypto could not compute an HMAC")
        return digest
    }

    /// `count` bytes from the system's cryptographically secure generator.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let done = bytes.withUnsafeMutableBytes {
            RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count))
        }
        // A generator that cannot be seeded must stop the service: a predictable token is worse.
        precondition(done == 1, "the system's random generator is unavailable")
        return bytes
    }

    /// `bytes` as lowercase hexadecimal: how digests and identifiers are written.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `a` and `b` are equal, in time that depends on their lengths only.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// HKDF-SHA-256 (RFC 5869): `length` bytes (at most 255 × 32) of key material from `secret`,
    /// with `salt` and `info`.
    package static func hkdfSHA256(secret: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition((0...255 * 32).contains(length), "HKDF gives at most 8,160 bytes")
        let key = hmacSHA256(key: salt, message: secret)  // extract
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {  // expand
            block = hmacSHA256(key: key, message: block + info + [counter])
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }

    /// A failure of libcrypto itself (not of the data): a cipher it could not set up.
    package struct Failure: Error, Sendable {
        package let message: String
    }

    /// AES-256-GCM: `plaintext` sealed under a 32-byte `key` and a 12-byte `nonce`, with
    /// `associated` data authenticated alongside; the ciphertext followed by the 16-byte tag.
    package static func aes256GCMSeal(
        key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associated: [UInt8]
    ) throws(Failure) -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 12, "AES-256-GCM takes a 32-byte key and a 12-byte nonce")
        guard let context = EVP_CIPHER_CTX_new() else { throw Failure(message: "libcrypto could not make a cipher") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        var total = 0
        let sealed = output.withUnsafeMutableBufferPointer { out -> Bool in
            guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return false }
            if !associated.isEmpty {
                guard EVP_EncryptUpdate(context, nil, &length, associated, Int32(associated.count)) == 1 else {
                    return false
                }
            }
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, out.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1
                else { return false }
                total = Int(length)
            }
            guard EVP_EncryptFinal_ex(context, out.baseAddress! + total, &length) == 1 else { return false }
            total += Int(length)
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, out.baseAddress! + total) == 1
        }
        guard sealed, total == plaintext.count else {
            throw Failure(message: "libcrypto could not seal with AES-256-GCM")
        }
        return output
    }

    /// Opens what ``aes256GCMSeal(key:nonce:plaintext:associated:)`` sealed: the plaintext, or nil
    /// when the tag does not authenticate the ciphertext, nonce, key and associated data.
    package static func aes256GCMOpen(
        key: [UInt8], nonce: [UInt8], sealed: [UInt8], associated: [UInt8]
    ) throws(Failure) -> [UInt8]? {
        precondition(key.count == 32 && nonce.count == 12, "AES-256-GCM takes a 32-byte key and a 12-byte nonce")
        guard sealed.count >= 16 else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { throw Failure(message: "libcrypto could not make a cipher") }
        defer { EVP_CIPHER_CTX_free(context) }
        let count = sealed.count - 16
        var tag = Array(sealed[count...])
        var output = [UInt8](repeating: 0, count: Swift.max(count, 1))
        var length: Int32 = 0
        var setUp = false
        let authentic = output.withUnsafeMutableBufferPointer { out -> Bool in
            guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return false }
            if !associated.isEmpty {
                guard EVP_DecryptUpdate(context, nil, &length, associated, Int32(associated.count)) == 1 else {
                    return false
                }
            }
            if count > 0 {
                let updated = sealed.withUnsafeBufferPointer {
                    EVP_DecryptUpdate(context, out.baseAddress, &length, $0.baseAddress, Int32(count))
                }
                guard updated == 1 else { return false }
            }
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { return false }
            setUp = true
            return EVP_DecryptFinal_ex(context, out.baseAddress! + (count > 0 ? Int(length) : 0), &length) == 1
        }
        guard setUp else { throw Failure(message: "libcrypto could not open with AES-256-GCM") }
        return authentic ? Array(output.prefix(count)) : nil
    }

    /// The Argon2id (version 0x13) tag of `password` with `salt`, an optional secret key and
    /// associated data (RFC 9106's K and X), under the given cost. The library's own checks apply;
    /// callers check their rules' bounds first.
    ///
    /// - Throws: ``Failure`` with the library's reason when it refuses the inputs.
    package static func argon2id(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [], memoryKiB: Int,
        iterations: Int, parallelism: Int, tagLength: Int
    ) throws(Failure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: tagLength)
        var password = password
        var salt = salt
        var secret = secret
        var associatedData = associatedData
        let status = out.withUnsafeMutableBufferPointer { out in
            password.withUnsafeMutableBufferPointer { password in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associatedData.withUnsafeMutableBufferPointer { associatedData in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: UInt32(out.count), pwd: password.baseAddress,
                                pwdlen: UInt32(password.count), salt: salt.baseAddress, saltlen: UInt32(salt.count),
                                secret: secret.baseAddress, secretlen: UInt32(secret.count),
                                ad: associatedData.baseAddress, adlen: UInt32(associatedData.count),
                                t_cost: UInt32(iterations), m_cost: UInt32(memoryKiB),
                                lanes: UInt32(parallelism), threads: UInt32(parallelism),
                                version: UInt32(ARGON2_VERSION_13.rawValue), allocate_cbk: nil, free_cbk: nil,
                                flags: 0)  // ARGON2_DEFAULT_FLAGS: the inputs are left as they are
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        guard status == ARGON2_OK.rawValue else {
            throw Failure(message: String(cString: argon2_error_message(status)))
        }
        return out
    }

    /// A public key libcrypto can verify with; freed when the last reference goes.
    package final class PublicKey: @unchecked Sendable {
        // An EVP_PKEY is immutable once built and libcrypto allows concurrent verifications with it.
        fileprivate let key: OpaquePointer

        private init(_ key: OpaquePointer) { self.key = key }

        deinit { EVP_PKEY_free(key) }

        /// An RSA public key of modulus `n` and exponent `e` (big-endian), or nil when libcrypto
        /// refuses them.
        package static func rsa(modulus n: [UInt8], exponent e: [UInt8]) -> PublicKey? {
            guard let builder = OSSL_PARAM_BLD_new() else { return nil }
            defer { OSSL_PARAM_BLD_free(builder) }
            let modulus = n.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
            let exponent = e.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
            defer {
                BN_free(modulus)
                BN_free(exponent)
            }
            guard let modulus, let exponent,
                OSSL_PARAM_BLD_push_BN(builder, glow_param_rsa_n, modulus) == 1,
                OSSL_PARAM_BLD_push_BN(builder, glow_param_rsa_e, exponent) == 1
            else { return nil }
            return build(type: "RSA", builder)
        }

        /// A P-256 public key of coordinates `x` and `y` (32 bytes each, big-endian), or nil when
        /// the point is not on the curve.
        package static func p256(x: [UInt8], y: [UInt8]) -> PublicKey? {
            guard x.count == 32, y.count == 32, let builder = OSSL_PARAM_BLD_new() else { return nil }
            defer { OSSL_PARAM_BLD_free(builder) }
            let point: [UInt8] = [0x04] + x + y
            // The builder keeps the point's address until it builds, so it builds inside the closure.
            let built = point.withUnsafeBytes { bytes -> PublicKey? in
                guard OSSL_PARAM_BLD_push_utf8_string(builder, glow_param_group_name, glow_curve_p256, 0) == 1,
                    OSSL_PARAM_BLD_push_octet_string(builder, glow_param_public_key, bytes.baseAddress, bytes.count)
                        == 1
                else { return nil }
                return build(type: "EC", builder)
            }
            guard let key = built else { return nil }
            // fromdata does not check that the point is on the curve; a key that is not must not be used.
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.key, nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            return EVP_PKEY_public_check(context) == 1 ? key : nil
        }

        private static func build(type: String, _ builder: OpaquePointer) -> PublicKey? {
            guard let params = OSSL_PARAM_BLD_to_param(builder) else { return nil }
            defer { OSSL_PARAM_free(params) }
            guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            var key: OpaquePointer?
            guard EVP_PKEY_fromdata_init(context) == 1,
                EVP_PKEY_fromdata(context, &key, glow_evp_pkey_public_key, params) == 1, let key
            else { return nil }
            return PublicKey(key)
        }

        /// The key's size in bits (the RSA modulus, or the curve's order).
        package var bits: Int { Int(EVP_PKEY_get_bits(key)) }

        /// Whether `signature` is this key's SHA-256 signature of `message`: PKCS #1 v1.5 for
        /// RSA; for EC, `signature` is the DER form.
        package func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
            let result = signature.withUnsafeBufferPointer { signatureBytes in
                message.withUnsafeBufferPointer { messageBytes in
                    EVP_DigestVerify(
                        context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress,
                        messageBytes.count)
                }
            }
            // Leave no error on the thread's queue for an unrelated caller to find.
            ERR_clear_error()
            return result == 1
        }
    }

    /// The DER `ECDSA-Sig-Value` of a JWS ES256 signature, `r` and `s` as 32 bytes each, or nil
    /// when the signature is not 64 bytes.
    package static func derSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        // Each integer is at most 35 bytes, so the sequence's length fits the short form.
        return [0x30, UInt8(body.count)] + body
    }
}
