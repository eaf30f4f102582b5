/// Base64 without padding in one of RFC 4648's two alphabets: standard (section 4), as PHC
/// strings carry it, and URL-safe (section 5), as JOSE does. Decoding takes only the canonical
/// form: every character from the alphabet, no length that leaves a single character over, and
/// the unused low bits of the last character zero, so each byte sequence has one text. Shared by
/// the modules that write such text (PHC strings, JOSE, feed cursors, the conformance tools); not for apps.
package struct Base64: Sendable {
    private let alphabet: [UInt8]
    private let values: [Int8]

    private init(_ alphabet: String) {
        self.alphabet = Array(alphabet.utf8)
        var values = [Int8](repeating: -1, count: 256)
        for (value, byte) in self.alphabet.enumerated() { values[Int(byte)] = Int8(value) }
        self.values = values
    }

    /// `A-Z a-z 0-9 + /`.
    package static let standard = Base64("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    /// `A-Z a-z 0-9 - _`.
    package static let url = Base64("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    package func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for byte in chunk { value = value << 8 | Int(byte) }
            value <<= 8 * (3 - chunk.count)
            for position in 0..<(chunk.count + 1) { out.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    package func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var index = 0
        while index < utf8.count {
            let end = min(index + 4, utf8.count)
            var value = 0
            for byte in utf8[index..<end] {
                let digit = values[Int(byte)]
                guard digit >= 0 else { return nil }
                value = value << 6 | Int(digit)
            }
            let count = end - index
            value <<= 6 * (4 - count)
            let bytes = count - 1
            // The bits below the last whole byte must be zero: one text per byte sequence.
            guard bytes == 3 || value & ((1 << (8 * (3 - bytes))) - 1) == 0 else { return nil }
            for position in 0..<bytes { out.append(UInt8((value >> (16 - 8 * position)) & 0xFF)) }
            index = end
        }
        return out
    }
}
