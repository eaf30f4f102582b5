import CGlowCrypto

/// The cryptographic primitives of the SDK, and the one seam through which every module reaches
/// them (GlowBundle's encrypted bundles, GlowAuth's accounts and tokens, the relay's push topics):
/// SHA-1, SHA-256, SHA-512, HMAC, HKDF, AES-256-GCM, Argon2id and the system's random generator.
///
/// They are the package's own, in the `CGlowCrypto` C target: one portable implementation that
/// Linux, iOS, watchOS and macOS compile alike, with no system library, so what the tests check
/// is what ships in an app. AES is bitsliced and GHASH multiplies without tables: no branch and
/// no memory access depends on a key, a nonce or the data. Tests check every primitive against
/// the published vectors and, over random inputs, against libcrypto and libargon2.
package enum Crypto {
    /// The SHA-256 digest of `bytes` (FIPS 180-4).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        digest(.sha256, bytes)
    }

    /// The hash functions an HMAC may use here.
    package enum HashFunction: CaseIterable, Sendable {
        case sha1, sha256, sha512

        /// The digest's size in bytes.
        package var size: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha512: 64
            }
        }

        fileprivate var c: glow_hash_function {
            switch self {
            case .sha1: GLOW_HASH_SHA1
            case .sha256: GLOW_HASH_SHA256
            case .sha512: GLOW_HASH_SHA512
            }
        }
    }

    /// The digest of `bytes` with `function` (FIPS 180-4).
    package static func digest(_ function: HashFunction, _ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: function.size)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                switch function {
                case .sha1:
                    var context = glow_sha1_context()
                    glow_sha1_init(&context)
                    glow_sha1_update(&context, input.baseAddress, input.count)
                    glow_sha1_final(&context, output.baseAddress)
                case .sha256:
                    var context = glow_sha256_context()
                    glow_sha256_init(&context)
                    glow_sha256_update(&context, input.baseAddress, input.count)
                    glow_sha256_final(&context, output.baseAddress)
                case .sha512:
                    var context = glow_sha512_context()
                    glow_sha512_init(&context)
                    glow_sha512_update(&context, input.baseAddress, input.count)
                    glow_sha512_final(&context, output.baseAddress)
                }
            }
        }
        return out
    }

    /// HMAC-SHA-256 of `message` under `key` (RFC 2104).
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        hmac(.sha256, key: key, message: message)
    }

    /// The HMAC of `message` under `key` with `function` (RFC 2104).
    package static func hmac(_ function: HashFunction, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: function.size)
        key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                out.withUnsafeMutableBufferPointer { output in
                    glow_hmac(
                        function.c, key.baseAddress, key.count, message.baseAddress, message.count, output.baseAddress)
                }
            }
        }
        return out
    }

    /// BLAKE2b (RFC 7693): an `outputLength`-byte digest (1 ... 64) of `bytes`, keyed by `key`
    /// (0 ... 64 bytes).
    package static func blake2b(_ bytes: [UInt8], key: [UInt8] = [], outputLength: Int = 64) -> [UInt8] {
        precondition(
            (1...64).contains(outputLength) && key.count <= 64, "BLAKE2b gives 1 to 64 bytes under a key of 64 at most")
        var out = [UInt8](repeating: 0, count: outputLength)
        let status = bytes.withUnsafeBufferPointer { input in
            key.withUnsafeBufferPointer { key in
                out.withUnsafeMutableBufferPointer { output in
                    glow_blake2b(
                        output.baseAddress, output.count, key.baseAddress, key.count, input.baseAddress, input.count)
                }
            }
        }
        precondition(status == 0, "BLAKE2b refused lengths checked above")
        return out
    }

    /// `count` bytes from the system's cryptographically secure generator
    /// (`SystemRandomNumberGenerator`: `getrandom` on Linux, `arc4random_buf` on Apple platforms).
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let word = generator.next().littleEndian
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
        }
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

    /// AES-256-GCM (NIST SP 800-38D): `plaintext` sealed under a 32-byte `key` and a 12-byte
    /// `nonce`, with `associated` data authenticated alongside; the ciphertext followed by the
    /// 16-byte tag.
    package static func aes256GCMSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associated: [UInt8])
        -> [UInt8]
    {
        precondition(key.count == 32 && nonce.count == 12, "AES-256-GCM takes a 32-byte key and a 12-byte nonce")
        var context = glow_aes256gcm_context()
        defer { glow_aes256gcm_wipe(&context) }
        glow_aes256gcm_init(&context, key)
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        plaintext.withUnsafeBufferPointer { plaintext in
            associated.withUnsafeBufferPointer { associated in
                output.withUnsafeMutableBufferPointer { output in
                    glow_aes256gcm_seal(
                        &context, nonce, associated.baseAddress, associated.count, plaintext.baseAddress,
                        plaintext.count, output.baseAddress)
                }
            }
        }
        return output
    }

    /// Opens what ``aes256GCMSeal(key:nonce:plaintext:associated:)`` sealed: the plaintext, or nil
    /// when the tag does not authenticate the ciphertext, nonce, key and associated data (then no
    /// byte of the plaintext is given out).
    package static func aes256GCMOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8], associated: [UInt8]) -> [UInt8]? {
        precondition(key.count == 32 && nonce.count == 12, "AES-256-GCM takes a 32-byte key and a 12-byte nonce")
        guard sealed.count >= 16 else { return nil }
        var context = glow_aes256gcm_context()
        defer { glow_aes256gcm_wipe(&context) }
        glow_aes256gcm_init(&context, key)
        var output = [UInt8](repeating: 0, count: sealed.count - 16)
        let status = sealed.withUnsafeBufferPointer { sealed in
            associated.withUnsafeBufferPointer { associated in
                output.withUnsafeMutableBufferPointer { output in
                    glow_aes256gcm_open(
                        &context, nonce, associated.baseAddress, associated.count, sealed.baseAddress, sealed.count,
                        output.baseAddress)
                }
            }
        }
        return status == 0 ? output : nil
    }

    /// Why Argon2id did not run.
    package struct Failure: Error, Sendable {
        package let message: String
    }

    /// The Argon2id (version 0x13, RFC 9106) tag of `password` with `salt`, an optional secret key
    /// and associated data (RFC 9106's K and X), under the given cost. Lanes are computed one
    /// after another; the tag is the same as with any number of threads. Callers check their
    /// rules' bounds first; RFC 9106's own are checked here.
    ///
    /// - Throws: ``Failure`` when the inputs are outside RFC 9106, or the memory cannot be had.
    package static func argon2id(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [], memoryKiB: Int,
        iterations: Int, parallelism: Int, tagLength: Int
    ) throws(Failure) -> [UInt8] {
        guard let memory = UInt32(exactly: memoryKiB), let passes = UInt32(exactly: iterations),
            let lanes = UInt32(exactly: parallelism), tagLength >= 4
        else { throw Failure(message: "m=\(memoryKiB), t=\(iterations), p=\(parallelism) is outside RFC 9106") }
        var tag = [UInt8](repeating: 0, count: tagLength)
        let status = password.withUnsafeBufferPointer { password in
            salt.withUnsafeBufferPointer { salt in
                secret.withUnsafeBufferPointer { secret in
                    associatedData.withUnsafeBufferPointer { associated in
                        tag.withUnsafeMutableBufferPointer { tag in
                            glow_argon2id(
                                password.baseAddress, password.count, salt.baseAddress, salt.count, secret.baseAddress,
                                secret.count, associated.baseAddress, associated.count, passes, memory, lanes,
                                tag.baseAddress, tag.count)
                        }
                    }
                }
            }
        }
        switch status {
        case GLOW_ARGON2_OK: return tag
        case GLOW_ARGON2_NO_MEMORY: throw Failure(message: "the memory of \(memoryKiB) KiB could not be had")
        default: throw Failure(message: "m=\(memoryKiB), t=\(iterations), p=\(parallelism) is outside RFC 9106")
        }
    }
}
