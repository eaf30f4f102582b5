import GlowCrypto
import GlowCryptoOracle

/// The `crypto` target: the package's own crypto against libcrypto and libargon2 on every input.
/// The first byte picks the primitive; the rest gives keys, nonces, lengths and messages. Any
/// difference from the oracle stops the process.
enum CryptoHarness {
    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        var input = Input(bytes: Array(bytes.dropFirst()))
        do {
            switch selector % 4 {
            case 0: try hashes(&input)
            case 1: try seal(&input)
            case 2: try open(&input)
            default: try argon2id(&input)
            }
        } catch {
            preconditionFailure("the oracle itself failed: \(error)")
        }
    }

    /// The input, read front to back; what runs out reads as zeros.
    struct Input {
        var bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int) -> [UInt8] {
            let end = Swift.min(bytes.count, offset + count)
            var out = Array(bytes[Swift.min(offset, end)..<end])
            offset = end
            out += [UInt8](repeating: 0, count: count - out.count)
            return out
        }
        mutating func byte() -> Int { Int(take(1)[0]) }
        mutating func rest() -> [UInt8] {
            defer { offset = bytes.count }
            return Array(bytes[Swift.min(offset, bytes.count)...])
        }
    }

    static let hashes: [(Crypto.HashFunction, CryptoOracle.Hash)] = [
        (.sha1, .sha1), (.sha256, .sha256), (.sha512, .sha512),
    ]

    /// A digest and an HMAC, the key's length from the input (up to two SHA-512 blocks).
    static func hashes(_ input: inout Input) throws(CryptoOracle.Failure) {
        let (ours, oracle) = hashes[input.byte() % hashes.count]
        let key = input.take(input.byte())
        let message = input.rest()
        let digest = try CryptoOracle.digest(oracle, message)
        precondition(Crypto.digest(ours, message) == digest, "digests differ")
        let mac = try CryptoOracle.hmac(oracle, key: key, message: message)
        precondition(Crypto.hmac(ours, key: key, message: message) == mac, "HMACs differ")
    }

    /// A seal of the rest under the input's key and nonce: the same bytes as libcrypto's, and an
    /// opening that gives the plaintext back.
    static func seal(_ input: inout Input) throws(CryptoOracle.Failure) {
        let (key, nonce) = (input.take(32), input.take(12))
        let associated = input.take(input.byte())
        let plaintext = input.rest()
        let sealed = Crypto.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
        let reference = try CryptoOracle.seal(key: key, nonce: nonce, plaintext: plaintext, associated: associated)
        precondition(sealed == reference, "seals differ")
        precondition(
            Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, associated: associated) == plaintext,
            "a seal did not open")
    }

    /// An opening of the input's bytes, sealed by libcrypto and then changed where the input says:
    /// both open it alike, to the same plaintext or to nothing.
    static func open(_ input: inout Input) throws(CryptoOracle.Failure) {
        let (key, nonce) = (input.take(32), input.take(12))
        let associated = input.take(input.byte())
        let (position, flip) = (input.byte() << 8 | input.byte(), UInt8(input.byte()))
        var sealed = try CryptoOracle.seal(key: key, nonce: nonce, plaintext: input.rest(), associated: associated)
        sealed[position % sealed.count] ^= flip
        let ours = Crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, associated: associated)
        let reference = try CryptoOracle.open(key: key, nonce: nonce, sealed: sealed, associated: associated)
        precondition(ours == reference, "openings differ")
        precondition((ours == nil) == (flip != 0), "a changed seal opened, or an unchanged one did not")
    }

    /// Argon2id at small costs the input picks (every lane count 1 ... 8, passes 1 ... 3, memory
    /// up to 8 × lanes + 127 KiB), with a secret and associated data.
    static func argon2id(_ input: inout Input) throws(CryptoOracle.Failure) {
        let lanes = 1 + input.byte() % 8
        let passes = 1 + input.byte() % 3
        let memory = 8 * lanes + input.byte() % 128
        let tagLength = 4 + input.byte() % 125
        let salt = input.take(8 + input.byte() % 57)
        let secret = input.take(input.byte() % 33)
        let associated = input.take(input.byte() % 33)
        let password = input.rest()
        let ours: [UInt8]
        do {
            ours = try Crypto.argon2id(
                password: password, salt: salt, secret: secret, associatedData: associated, memoryKiB: memory,
                iterations: passes, parallelism: lanes, tagLength: tagLength)
        } catch {
            preconditionFailure("Argon2id refused parameters RFC 9106 allows: \(error.message)")
        }
        let reference = try CryptoOracle.argon2id(
            password: password, salt: salt, secret: secret, associated: associated, memoryKiB: memory,
            iterations: passes, parallelism: lanes, tagLength: tagLength)
        precondition(ours == reference, "Argon2id tags differ")
    }
}
