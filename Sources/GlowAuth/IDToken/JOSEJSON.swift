import GlowCore

/// A JSON value of a JOSE header, an ID token's claims or a key set (RFC 8259), read strictly:
/// UTF-8, no duplicate members (RFC 7515 section 4 lets a reader refuse them, and an attacker's
/// second `alg` must never win), nesting at most ``JOSEJSON/depthLimit`` deep.
enum JOSEJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JOSEJSON])
    case object([String: JOSEJSON])

    /// How deep arrays and objects may nest.
    static let depthLimit = 16

    /// The member `key` of an object; nil otherwise.
    subscript(key: String) -> JOSEJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a string; nil otherwise.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Parses `bytes`, or says in a few words why they are not one JSON value.
    static func parse(_ bytes: [UInt8]) -> Result<JOSEJSON, Failure> {
        var reader = Reader(bytes: bytes)
        do throws(Failure) {
            reader.skipSpace()
            let value = try reader.value(depth: 0)
            reader.skipSpace()
            guard reader.index == bytes.count else { throw Failure(reason: "bytes after the value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    /// Why a text is not JSON.
    struct Failure: Error {
        let reason: String
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(Failure) -> JOSEJSON {
            guard index < bytes.count else { throw Failure(reason: "it ends early") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ word: String, _ value: JOSEJSON) throws(Failure) -> JOSEJSON {
            let text = Array(word.utf8)
            guard bytes.count - index >= text.count, Array(bytes[index..<index + text.count]) == text else {
                throw Failure(reason: "an unknown word at byte \(index)")
            }
            index += text.count
            return value
        }

        mutating func object(depth: Int) throws(Failure) -> JOSEJSON {
            guard depth <= JOSEJSON.depthLimit else {
                throw Failure(reason: "it nests deeper than \(JOSEJSON.depthLimit)")
            }
            index += 1
            var members: [String: JOSEJSON] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw Failure(reason: "a member name was expected at byte \(index)")
                }
                let name = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw Failure(reason: "':' was expected at byte \(index)")
                }
                index += 1
                skipSpace()
                let member = try value(depth: depth)
                guard members.updateValue(member, forKey: name) == nil else {
                    throw Failure(reason: "the member \(name.quoted()) appears twice")
                }
                skipSpace()
                guard index < bytes.count else { throw Failure(reason: "it ends early") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw Failure(reason: "',' or '}' was expected at byte \(index)")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JOSEJSON {
            guard depth <= JOSEJSON.depthLimit else {
                throw Failure(reason: "it nests deeper than \(JOSEJSON.depthLimit)")
            }
            index += 1
            var elements: [JOSEJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                guard index < bytes.count else { throw Failure(reason: "it ends early") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw Failure(reason: "',' or ']' was expected at byte \(index)")
                }
            }
        }

        mutating func string() throws(Failure) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() throws(Failure) {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw Failure(reason: "a string is not UTF-8")
                }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while true {
                guard index < bytes.count else { throw Failure(reason: "a string is not closed") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    try flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush()
                    scalars.append(try escape())
                case 0x00..<0x20:
                    throw Failure(reason: "a control character in a string at byte \(index - 1)")
                default:
                    raw.append(byte)
                }
            }
        }

        mutating func escape() throws(Failure) -> Unicode.Scalar {
            guard index < bytes.count else { throw Failure(reason: "a string is not closed") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let first = try hex4()
                if (0xD800...0xDBFF).contains(first) {
                    guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw Failure(reason: "a lone surrogate in a string") }
                    index += 2
                    let second = try hex4()
                    guard (0xDC00...0xDFFF).contains(second) else {
                        throw Failure(reason: "a lone surrogate in a string")
                    }
                    return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
                }
                guard let scalar = Unicode.Scalar(first) else { throw Failure(reason: "a lone surrogate in a string") }
                return scalar
            default:
                throw Failure(reason: "an unknown escape in a string at byte \(index - 1)")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - index >= 4 else { throw Failure(reason: "a short \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = HexDigit.value(byte) else {
                    throw Failure(reason: "a \\u escape that is not hexadecimal")
                }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
        }

        mutating func number() throws(Failure) -> JOSEJSON {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits() -> Int {
                let from = index
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                return index - from
            }
            let integerStart = index
            let integerDigits = digits()
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != 0x30 else {
                throw Failure(reason: "a value that is not JSON at byte \(start)")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw Failure(reason: "a number without fraction digits at byte \(start)") }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { throw Failure(reason: "a number without exponent digits at byte \(start)") }
            }
            guard let text = String(validating: bytes[start..<index], as: UTF8.self), let value = Double(text),
                value.isFinite
            else { throw Failure(reason: "a number out of range at byte \(start)") }
            return .number(value)
        }
    }
}

/// Hexadecimal digits.
enum HexDigit {
    /// The value of an ASCII hexadecimal digit, either case.
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
