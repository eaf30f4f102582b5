import CCrypto
import GlowCrypto

// The server side's one use of libcrypto (Debian's `libssl-dev`, through the `CCrypto` shim):
// verifying the RSA and ECDSA signatures of Apple's and Google's ID tokens (AUTH-22 ... AUTH-34).
// Everything else the package hashes, seals or derives is GlowCrypto's own; this file is not on
// the app side, so no app links libcrypto.
extension Crypto {
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
