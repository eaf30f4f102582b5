import GlowBundle
import GlowCrypto
import GlowWire

/// A code that carries the sync secret from a device that has it to a new one (SYNC-12): 15
/// random bytes shown as 24 characters of base32, with which the server holds the secret sealed
/// for one taking (SYNC-13).
public struct PairingCode: Hashable, Sendable, CustomStringConvertible {
    /// The code's 15 bytes.
    public let bytes: [UInt8]

    /// RFC 4648's base32 alphabet.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// A code of these 15 bytes.
    ///
    /// - Precondition: there are 15.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 15, "a pairing code has 15 bytes")
        self.bytes = bytes
    }

    /// A new code from the system's secure generator.
    public static func random() -> PairingCode { PairingCode(bytes: Crypto.randomBytes(15)) }

    /// The code a person typed: 24 characters of the alphabet in any case, with spaces and `-`
    /// anywhere (SYNC-12).
    ///
    /// - Throws: `invalid_pairing_code`.
    public init(text: String) throws(SyncError) {
        var bits: UInt64 = 0
        var count = 0
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "-" { continue }
            guard scalar.isASCII else { throw Self.invalid("\(scalar) is not a character of a pairing code") }
            var byte = UInt8(scalar.value)
            if (0x61...0x7A).contains(byte) { byte -= 0x20 }
            guard let value = Self.alphabet.firstIndex(of: byte) else {
                throw Self.invalid("\(scalar) is not a character of a pairing code (A to Z and 2 to 7)")
            }
            count += 1
            guard count <= 24 else { throw Self.invalid("a pairing code has 24 characters, this one more") }
            bits = bits << 5 | UInt64(value)
            if count % 8 == 0 {
                for shift in stride(from: 32, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: bits >> shift))
                }
                bits = 0
            }
        }
        guard count == 24 else { throw Self.invalid("a pairing code has 24 characters, this one \(count)") }
        self.init(bytes: bytes)
    }

    private static func invalid(_ message: String) -> SyncError {
        SyncError(.invalidPairingCode, message, rule: "SYNC-12")
    }

    /// The 24 characters in six groups of four: `ABCD-EFGH-IJKL-MNOP-QRST-UVWX`.
    public var description: String {
        var characters: [UInt8] = []
        for start in stride(from: 0, to: 15, by: 5) {
            let bits = bytes[start..<start + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            for shift in stride(from: 35, through: 0, by: -5) {
                characters.append(Self.alphabet[Int(bits >> UInt64(shift) & 31)])
            }
        }
        var text = ""
        for (index, character) in characters.enumerated() {
            if index > 0 && index % 4 == 0 { text += "-" }
            text.append(Character(Unicode.Scalar(character)))
        }
        return text
    }

    /// Where the server holds the sealed secret: HKDF of the code, info `glow-sync pairing slot`.
    public var slot: [UInt8] {
        Crypto.hkdfSHA256(secret: bytes, salt: [], info: Array("glow-sync pairing slot".utf8), length: 16)
    }

    /// The key that seals the secret: HKDF of the code, info `glow-sync pairing key`.
    package var pairingKey: [UInt8] {
        Crypto.hkdfSHA256(secret: bytes, salt: [], info: Array("glow-sync pairing key".utf8), length: 32)
    }

    /// The secret sealed for `person` at this code's slot: 48 bytes.
    public func seal(_ secret: RecoveryKey, person: String) -> [UInt8] {
        Crypto.aes256GCMSeal(
            key: pairingKey, nonce: [UInt8](repeating: 0, count: 12), plaintext: secret.bytes,
            associated: associated(person))
    }

    /// The secret `sealed` holds.
    ///
    /// - Throws: `sync_pairing_tampered` when it does not open under this code for `person`.
    public func open(_ sealed: [UInt8], person: String) throws(SyncError) -> RecoveryKey {
        guard sealed.count == 48,
            let secret = Crypto.aes256GCMOpen(
                key: pairingKey, nonce: [UInt8](repeating: 0, count: 12), sealed: sealed,
                associated: associated(person))
        else {
            throw SyncError(
                .pairingTampered, "the sealed secret does not open with this pairing code for this person",
                rule: "SYNC-12")
        }
        return RecoveryKey(bytes: secret)
    }

    private func associated(_ person: String) -> [UInt8] {
        var writer = WireWriter()
        writer.string(1, person)
        writer.bytes(2, slot)
        return writer.bytes
    }
}
