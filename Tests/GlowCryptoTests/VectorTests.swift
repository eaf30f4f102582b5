import GlowCrypto
import Testing

/// The package's own crypto against the published vectors: FIPS 180 (SHA-1, SHA-256, SHA-512),
/// RFC 2202 and RFC 4231 (HMAC), RFC 5869 (HKDF), RFC 7693 (BLAKE2b), RFC 9106 (Argon2id), FIPS 197
/// and the GCM specification's test cases 13 to 16 (AES-256-GCM), with their tag failures.
@Suite("Published vectors")
struct VectorTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    static let m448 = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    static let m896 = Array(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            .utf8)
    static let million = [UInt8](repeating: 0x61, count: 1_000_000)

    struct DigestCase: CustomTestStringConvertible, Sendable {
        let function: Crypto.HashFunction
        let message: [UInt8]
        let digest: String
        var testDescription: String { "\(function) of \(message.count) bytes" }
    }

    static let digests: [DigestCase] = [
        .init(function: .sha1, message: Array("abc".utf8), digest: "a9993e364706816aba3e25717850c26c9cd0d89d"),
        .init(function: .sha1, message: m448, digest: "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        .init(function: .sha1, message: million, digest: "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        .init(
            function: .sha256, message: [], digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        .init(
            function: .sha256, message: Array("abc".utf8),
            digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        .init(
            function: .sha256, message: m448, digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        .init(
            function: .sha256, message: million,
            digest: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        .init(
            function: .sha512, message: Array("abc".utf8),
            digest: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        .init(
            function: .sha512, message: m896,
            digest: "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
                + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
        .init(
            function: .sha512, message: million,
            digest: "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ]

    @Test("FIPS 180's messages", arguments: digests)
    func digest(_ vector: DigestCase) {
        #expect(Crypto.hex(Crypto.digest(vector.function, vector.message)) == vector.digest)
    }

    @Test("RFC 2202 and RFC 4231: HMAC's second case and its 131-byte key")
    func hmac() {
        let key = Array("Jefe".utf8)
        let message = Array("what do ya want for nothing?".utf8)
        #expect(
            Crypto.hex(Crypto.hmac(.sha1, key: key, message: message)) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(
            Crypto.hex(Crypto.hmacSHA256(key: key, message: message))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Crypto.hex(Crypto.hmac(.sha512, key: key, message: message))
                == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
        // RFC 4231 case 6: a key longer than the block is hashed first.
        let long = [UInt8](repeating: 0xAA, count: 131)
        let text = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(
            Crypto.hex(Crypto.hmacSHA256(key: long, message: text))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("RFC 5869: HKDF-SHA-256's first and third cases")
    func hkdf() {
        let secret = [UInt8](repeating: 0x0B, count: 22)
        #expect(
            Crypto.hex(
                Crypto.hkdfSHA256(
                    secret: secret, salt: Array(0...12), info: Array(0xF0...0xF9), length: 42))
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        #expect(
            Crypto.hex(Crypto.hkdfSHA256(secret: secret, salt: [], info: [], length: 42))
                == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test("RFC 7693: BLAKE2b-512 of 'abc'")
    func blake2b() {
        #expect(
            Crypto.hex(Crypto.blake2b(Array("abc".utf8)))
                == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }

    @Test("RFC 9106 section 5.3: Argon2id with a secret and associated data, four lanes")
    func argon2id() throws {
        let tag = try Crypto.argon2id(
            password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
            secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12), memoryKiB: 32,
            iterations: 3, parallelism: 4, tagLength: 32)
        #expect(Crypto.hex(tag) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test("Argon2id refuses what RFC 9106 does not allow, and says so")
    func argon2idBounds() {
        let salt = [UInt8](repeating: 2, count: 16)
        for (m, t, p, tag) in [
            (7, 1, 1, 32), (8, 0, 1, 32), (16, 1, 0, 32), (15, 1, 2, 32), (8, 1, 1, 3), (-1, 1, 1, 32),
        ] {
            #expect(throws: Crypto.Failure.self) {
                try Crypto.argon2id(
                    password: [], salt: salt, memoryKiB: m, iterations: t, parallelism: p, tagLength: tag)
            }
        }
        #expect(throws: Crypto.Failure.self) {
            try Crypto.argon2id(
                password: [], salt: [1, 2, 3], memoryKiB: 8, iterations: 1, parallelism: 1, tagLength: 32)
        }
    }

    struct GCMCase: CustomTestStringConvertible, Sendable {
        let name: String
        let key: String
        let nonce: String
        let plaintext: String
        let associated: String
        let sealed: String
        var testDescription: String { name }
    }

    static let k15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let p15 =
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let c15 =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"

    static let gcm: [GCMCase] = [
        .init(
            name: "case 13: nothing to seal", key: String(repeating: "0", count: 64),
            nonce: String(repeating: "0", count: 24),
            plaintext: "", associated: "", sealed: "530f8afbc74536b9a963b4f1c4cb738b"),
        .init(
            name: "case 14: one zero block", key: String(repeating: "0", count: 64),
            nonce: String(repeating: "0", count: 24),
            plaintext: String(repeating: "0", count: 32), associated: "",
            sealed: "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"),
        .init(
            name: "case 15: four blocks", key: k15, nonce: "cafebabefacedbaddecaf888", plaintext: p15, associated: "",
            sealed: c15 + "b094dac5d93471bdec1a502270e3cc6c"),
        .init(
            name: "case 16: 60 bytes and associated data", key: k15, nonce: "cafebabefacedbaddecaf888",
            plaintext: String(p15.prefix(120)), associated: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            sealed: String(c15.prefix(120)) + "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test("the GCM specification's 256-bit cases seal, open, and refuse every flipped bit", arguments: gcm)
    func gcmCase(_ vector: GCMCase) {
        let (key, nonce) = (Self.bytes(vector.key), Self.bytes(vector.nonce))
        let (plaintext, associated) = (Self.bytes(vector.plaintext), Self.bytes(vector.associated))
        let sealed = Crypto.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
        #expect(Crypto.hex(sealed) == vector.sealed)
        #expect(Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, associated: associated) == plaintext)
        for bit in 0..<(sealed.count * 8) {
            var changed = sealed
            changed[bit / 8] ^= 1 << (bit % 8)
            #expect(Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: changed, associated: associated) == nil)
        }
        for bit in 0..<(associated.count * 8) {
            var changed = associated
            changed[bit / 8] ^= 1 << (bit % 8)
            #expect(Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, associated: changed) == nil)
        }
        var otherNonce = nonce
        otherNonce[11] ^= 1
        #expect(Crypto.aes256GCMOpen(key: key, nonce: otherNonce, sealed: sealed, associated: associated) == nil)
        #expect(
            Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: Array(sealed.dropLast()), associated: associated)
                == nil)
        #expect(
            Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: Array(sealed.prefix(15)), associated: associated)
                == nil)
    }

    @Test("the system's generator gives the bytes asked for, and not the same twice")
    func random() {
        for count in [0, 1, 7, 8, 9, 32, 1000] {
            #expect(Crypto.randomBytes(count).count == count)
        }
        #expect(Crypto.randomBytes(32) != Crypto.randomBytes(32))
    }
}
