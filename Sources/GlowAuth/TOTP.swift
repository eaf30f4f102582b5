import GlowCrypto

/// Time-based one-time codes (AUTH-50): RFC 6238's TOTP over RFC 4226's HOTP, and the RFC 4648
/// base32 text authenticator apps take a secret in.
public enum TOTP {
    /// The HMAC a code is made with.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// HMAC-SHA-1, what authenticator apps use and the account service makes.
        case sha1 = "SHA1"
        /// HMAC-SHA-256.
        case sha256 = "SHA256"
        /// HMAC-SHA-512.
        case sha512 = "SHA512"

        var function: Crypto.HashFunction {
            switch self {
            case .sha1: .sha1
            case .sha256: .sha256
            case .sha512: .sha512
            }
        }
    }

    /// Seconds in a time step.
    public static let period = 30

    /// The step of `time` (seconds since 1970): ⌊time / 30⌋, so a time before 1970 has a negative step.
    public static func step(at time: Int) -> Int {
        time >= 0 ? time / period : -((-time + period - 1) / period)
    }

    /// The code of `step`: HOTP of `secret` and the step, `digits` decimal digits (1 to 9).
    public static func code(secret: [UInt8], step: Int, digits: Int = 6, algorithm: Algorithm = .sha1) -> String {
        let counter = UInt64(bitPattern: Int64(step))
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) }
        let mac = Crypto.hmac(algorithm.function, key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value = mac[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        let width = min(max(digits, 1), 9)
        var modulus: UInt32 = 1
        for _ in 0..<width { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: width - text.count) + text
    }

    /// The code at `time` (seconds since 1970).
    public static func code(secret: [UInt8], time: Int, digits: Int = 6, algorithm: Algorithm = .sha1) -> String {
        code(secret: secret, step: step(at: time), digits: digits, algorithm: algorithm)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in RFC 4648 base32, upper case, without padding.
    public static func base32(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8 | Int(byte)) & 0xFFFF
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of RFC 4648 base32 text as ``base32(_:)`` writes it: upper case, no padding, and
    /// the unused low bits of the last character zero.
    ///
    /// - Throws: ``AuthError/Code/invalidSecret``, naming the first character that is wrong.
    public static func bytes(base32 text: String) throws(AuthError) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for (index, character) in text.utf8.enumerated() {
            guard let value = alphabet.firstIndex(of: character) else {
                throw AuthError(
                    .invalidSecret, "character \(index + 1) of the secret is not base32 (A-Z, 2-7, no padding)",
                    rule: "AUTH-50")
            }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        guard bits < 5, buffer & ((1 << bits) - 1) == 0 else {
            throw AuthError(.invalidSecret, "the secret's length or last character is not base32", rule: "AUTH-50")
        }
        return out
    }
}
