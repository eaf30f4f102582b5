import GlowCrypto
import GlowCryptoOracle
import GlowModel
import Testing

extension SeededRandom {
    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// A length: mostly small, often at a block boundary (`block` ± 2, twice the block ± 2), now
    /// and then up to `large`.
    mutating func length(block: Int, large: Int) -> Int {
        switch Int.random(in: 0..<100, using: &self) {
        case 0..<60: return Int.random(in: 0...3 * block, using: &self)
        case 60..<90:
            let edge = block * Int.random(in: 1...3, using: &self)
            return edge + Int.random(in: -2...2, using: &self)
        case 90..<99: return Int.random(in: 0...4 * block + 7, using: &self)
        default: return Int.random(in: 0...large, using: &self)
        }
    }
}

/// The package's own crypto against libcrypto (OpenSSL 3) and the reference libargon2 over random
/// inputs: more than 100,000 of them, lengths from empty to a few AES-GCM chunks and around every
/// block boundary, keys shorter and longer than a block, every Argon2id lane and pass count that
/// AUTH-13 and BUNDLE-30 allow. The inputs come from GlowModel's seeded generator, so a failure names the
/// seed and the case that reproduce it.
@Suite("Against libcrypto and libargon2")
struct DifferentialTests {
    static let seed: UInt64 = 0x6C6F_7721_2026_1203

    static func oracle(_ function: Crypto.HashFunction) -> CryptoOracle.Hash {
        switch function {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }

    @Test("SHA-1, SHA-256, SHA-512 and their HMACs agree with libcrypto on 72,000 random inputs")
    func hashes() throws {
        var random = SeededRandom(seed: Self.seed)
        var checked = 0
        for index in 0..<12_000 {
            for function in Crypto.HashFunction.allCases {
                let block = function == .sha512 ? 128 : 64
                let message = random.bytes(random.length(block: block, large: 5_000))
                let key = random.bytes(random.length(block: block, large: 300))
                let digest = Crypto.digest(function, message)
                let mac = Crypto.hmac(function, key: key, message: message)
                if try digest != CryptoOracle.digest(Self.oracle(function), message)
                    || mac != (try CryptoOracle.hmac(Self.oracle(function), key: key, message: message))
                {
                    Issue.record(
                        "\(function) differs at case \(index), seed \(Self.seed): \(message.count) bytes, key \(key.count)"
                    )
                    return
                }
                checked += 2
            }
        }
        #expect(checked == 72_000)
    }

    @Test("AES-256-GCM agrees with libcrypto on 30,000 random seals, and opens only what was sealed")
    func aesGCM() throws {
        var random = SeededRandom(seed: Self.seed ^ 1)
        for index in 0..<30_000 {
            let key = random.bytes(32)
            let nonce = random.bytes(12)
            let plaintext = random.bytes(random.length(block: 16, large: 3 * 65_536 + 17))
            let associated = random.bytes(random.length(block: 16, large: 100))
            let sealed = Crypto.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
            let reference = try CryptoOracle.seal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
            guard sealed == reference else {
                Issue.record("seal differs at case \(index): \(plaintext.count) bytes, \(associated.count) associated")
                return
            }
            guard Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, associated: associated) == plaintext
            else {
                Issue.record("open fails at case \(index)")
                return
            }
            if index % 10 == 0 {
                var changed = sealed
                changed[Int.random(in: 0..<changed.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                let opened = Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: changed, associated: associated)
                let reference = try CryptoOracle.open(key: key, nonce: nonce, sealed: changed, associated: associated)
                guard opened == nil, reference == nil else {
                    Issue.record("a changed seal opened at case \(index)")
                    return
                }
            }
        }
    }

    @Test("Argon2id agrees with libargon2 on 1,200 random derivations: every lane count 1 to 16, passes 1 to 16")
    func argon2id() throws {
        var random = SeededRandom(seed: Self.seed ^ 2)
        for index in 0..<1_200 {
            let p = index < 16 ? index + 1 : Int.random(in: 1...4, using: &random)
            let t = index < 16 ? 16 - index : Int.random(in: 1...4, using: &random)
            let m = 8 * p + Int.random(in: 0...(index % 50 == 0 ? 600 : 60), using: &random)
            let password = random.bytes(Int.random(in: 0...100, using: &random))
            let salt = random.bytes(Int.random(in: 8...64, using: &random))
            let secret = random.bytes(index % 3 == 0 ? Int.random(in: 0...32, using: &random) : 0)
            let associated = random.bytes(index % 4 == 0 ? Int.random(in: 0...32, using: &random) : 0)
            let tagLength = Int.random(in: 4...(index % 20 == 0 ? 128 : 64), using: &random)
            let ours = try Crypto.argon2id(
                password: password, salt: salt, secret: secret, associatedData: associated, memoryKiB: m, iterations: t,
                parallelism: p, tagLength: tagLength)
            let reference = try CryptoOracle.argon2id(
                password: password, salt: salt, secret: secret, associated: associated, memoryKiB: m, iterations: t,
                parallelism: p, tagLength: tagLength)
            guard ours == reference else {
                Issue.record("Argon2id differs at case \(index): m=\(m) t=\(t) p=\(p) tag \(tagLength)")
                return
            }
        }
    }
}
