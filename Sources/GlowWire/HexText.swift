/// Bytes as hexadecimal text and back: the one parser that `glow-tool decode-raw --hex` and the
/// conformance operations share.
package enum HexText {
    /// Why a text is not hexadecimal bytes.
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// The bytes of `text`: pairs of hexadecimal digits (either case). With
    /// `allowingWhiteSpace`, spaces, tabs and line breaks between pairs are ignored; anything
    /// else, a sign included (`+8` is not `08`), is refused with its offset.
    package static func bytes(_ text: some Collection<UInt8>, allowingWhiteSpace: Bool = false) throws(Problem)
        -> [UInt8]
    {
        var result: [UInt8] = []
        result.reserveCapacity(text.count / 2)
        var high: UInt8? = nil
        for (offset, character) in text.enumerated() {
            if allowingWhiteSpace, [0x20, 0x09, 0x0A, 0x0D].contains(character), high == nil { continue }
            guard let value = digit(character) else {
                throw Problem(description: "the hex text has a character that is not a hex digit at offset \(offset)")
            }
            if let first = high {
                result.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        guard high == nil else { throw Problem(description: "the hex text has an odd number of digits") }
        return result
    }

    /// Lower-case hexadecimal text of `bytes`.
    package static func text(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func digit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
