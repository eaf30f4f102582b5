import CCrypto

/// The cryptographic primitives GlowAuth needs, and the one seam through which it reaches them:
/// SHA-256, HMAC-SHA-256, the system's CSPRNG, and RSA (PKCS #1 v1.5) and ECDSA (P-256)
/// verification with SHA-256. Here they come from libcrypto (Debian's `libssl-dev`) through the
/// `CCrypto` shim; on Apple platforms the same four functions map onto CryptoKit and Security,
/// and nothing above this file changes.
enum Crypto {
    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
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
    enum HashFunction {
        case sha1, sha256, sha512

        var size: Int {
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
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        hmac(.sha256, key: key, message: message)
    }

    /// The HMAC of `message` under `key` with `function`.
    static func hmac(_ function: HashFunction, key: [UInt8], message: [UInt8]) -> [UInt8] {
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
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let done = bytes.withUnsafeMutableBytes {
            RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32($0.count))
        }
        // A generator that cannot be seeded must stop the service: a predictable token is worse.
        precondition(done == 1, "the system's random generator is unavailable")
        return bytes
    }

    /// `bytes` as lowercase hexadecimal: how digests and identifiers are written.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `a` and `b` are equal, in time that depends on their lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// A public key libcrypto can verify with; freed when the last reference goes.
    final class PublicKey: @unchecked Sendable {
        // An EVP_PKEY is immutable once built and libcrypto allows concurrent verifications with it.
        fileprivate let key: OpaquePointer

        private init(_ key: OpaquePointer) { self.key = key }

        deinit { EVP_PKEY_free(key) }

        /// An RSA public key of modulus `n` and exponent `e` (big-endian), or nil when libcrypto
        /// refuses them.
        static func rsa(modulus n: [UInt8], exponent e: [UInt8]) -> PublicKey? {
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
        static func p256(x: [UInt8], y: [UInt8]) -> PublicKey? {
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
        var bits: Int { Int(EVP_PKEY_get_bits(key)) }

        /// Whether `signature` is this key's SHA-256 signature of `message`: PKCS #1 v1.5 for
        /// RSA; for EC, `signature` is the DER form.
        func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
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
    static func derSignature(raw: [UInt8]) -> [UInt8]? {
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
