import GlowBundle

/// The `envelope` target (issue 31): encrypted bundles (BUNDLE-29 ... BUNDLE-35) from both sides.
///
/// The input is read as an encrypted file, fed to an opener in pieces whose size its first byte
/// picks: every outcome is plaintext or a typed ``BundleError``, never a trap. And the input is
/// sealed as a plaintext, then opened in other pieces: it must come back whole; and the sealed
/// file with any one bit flipped, or cut short, must be refused.
enum EnvelopeHarness {
    static let passphrase = "fuzz passphrase"
    static let recoveryKey = RecoveryKey(bytes: Array(repeating: 0x42, count: 32))
    /// Small enough that a fuzzer runs thousands a second; a file asking for more is opened with
    /// the recovery key, which derives nothing costly.
    static let small = EnvelopeKDF(memoryKiB: 8, iterations: 1, parallelism: 1)

    static func run(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let pieces = Int(first) * 97 + 1
        open(bytes, secret: secret(for: bytes), pieces: pieces)
        roundTrip(bytes, pieces: pieces)
    }

    /// The passphrase when the header asks for at most the small parameters, else the recovery key.
    static func secret(for bytes: [UInt8]) -> BundleSecret {
        guard bytes.count >= 19 else { return .passphrase(passphrase) }
        func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let cheap = word(10) <= 64 && word(14) <= 2 && bytes[18] <= 2
        return cheap ? .passphrase(passphrase) : .recoveryKey(recoveryKey)
    }

    /// `bytes` through an opener in pieces of `size`: the plaintext, or the error that stopped it.
    @discardableResult
    static func open(_ bytes: [UInt8], secret: BundleSecret, pieces size: Int) -> Result<[UInt8], BundleError> {
        var opener = EnvelopeOpener(secret: secret)
        var out: [UInt8] = []
        var start = 0
        do {
            while start < bytes.count {
                let piece = try opener.open(Array(bytes[start..<Swift.min(bytes.count, start + size)]))
                // Plaintext comes out a whole chunk at a time, never more than was put in.
                precondition(piece.count % BundleEnvelope.chunkSize == 0, "a partial chunk came out before the end")
                out += piece
                start += size
            }
            out += try opener.finish()
            precondition(out.count < bytes.count, "more plaintext came out than the file held")
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    static func roundTrip(_ plaintext: [UInt8], pieces: Int) {
        let salt = Array(plaintext.prefix(16)) + [UInt8](repeating: 0, count: Swift.max(0, 16 - plaintext.count))
        let sealed: [UInt8]
        do {
            var sealer = try EnvelopeSealer(
                passphrase: passphrase, recoveryKey: recoveryKey, kdf: small, salt: salt,
                fileKey: [UInt8](repeating: 7, count: 32))
            sealed = try sealer.seal(plaintext) + sealer.finish()
        } catch {
            preconditionFailure("sealing failed: \(error)")
        }
        for secret in [BundleSecret.passphrase(passphrase), .recoveryKey(recoveryKey)] {
            guard case .success(let opened) = open(sealed, secret: secret, pieces: pieces) else {
                preconditionFailure("a sealed file did not open")
            }
            precondition(opened == plaintext, "a sealed file opened to other bytes")
        }
        // One bit flipped anywhere, chosen by the input, or the file cut short: refused.
        let position = (plaintext.count * 7919 + pieces) % sealed.count
        var flipped = sealed
        flipped[position] ^= 1 << UInt8(pieces % 8)
        guard case .failure = open(flipped, secret: .recoveryKey(recoveryKey), pieces: pieces) else {
            preconditionFailure("a file with byte \(position) changed opened")
        }
        guard case .failure = open(Array(sealed.prefix(position)), secret: .recoveryKey(recoveryKey), pieces: pieces)
        else {
            preconditionFailure("a file cut to \(position) bytes opened")
        }
    }
}
