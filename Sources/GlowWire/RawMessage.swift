/// Any Protocol Buffers bytes as a tree of fields, without a schema, like `protoc --decode_raw`
/// (WIRE-8).
public struct RawField: Hashable, Sendable {
    /// The value of a field as the wire shows it.
    public indirect enum Value: Hashable, Sendable {
        /// A varint.
        case varint(UInt64)
        /// Eight little-endian bytes.
        case fixed64(UInt64)
        /// Four little-endian bytes.
        case fixed32(UInt32)
        /// A length-delimited payload that parses as a message.
        case message([RawField])
        /// A length-delimited payload that does not (or is empty): text or bytes.
        case bytes([UInt8])
    }

    /// The field number.
    public let number: UInt32
    /// The value.
    public let value: Value
    /// The byte offset of the field's tag in the input.
    public let offset: Int
}

/// Parsing and printing schema-less field trees.
public enum RawMessage {
    /// The fields of `bytes`, with every length-delimited payload that parses as a message shown
    /// as one.
    ///
    /// - Throws: ``WireError`` when the top level is not a valid message, when messages nest
    ///   deeper than `limits.maxDepth` (WIRE-13), or when the tree would hold more than
    ///   `limits.maxRawNodes` fields (`limit_exceeded`, WIRE-26).
    /// - Complexity: O(n · d) for n bytes nested d deep: each payload is tried as a message.
    public static func parse(_ bytes: [UInt8], limits: WireLimits = .default) throws(WireError) -> [RawField] {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(WireError) in
                try WireReader.read(buffer, limits: limits) { (reader) throws(WireError) in
                    var nodes = 0
                    return try fields(&reader, nodes: &nodes)
                }
            }
        }.get()
    }

    /// Reads the fields of the reader's message; `nodes` counts the fields of the whole tree.
    private static func fields(_ reader: inout WireReader, nodes: inout Int) throws(WireError) -> [RawField] {
        var result: [RawField] = []
        while let field = try reader.next() {
            nodes += 1
            guard nodes <= reader.limits.maxRawNodes else {
                throw WireError(
                    .limitExceeded, at: field.start,
                    "the field tree holds more than \(reader.limits.maxRawNodes) fields", rule: "WIRE-26")
            }
            let value: RawField.Value
            switch field.type {
            case .varint: value = .varint(try reader.varint())
            case .fixed64: value = .fixed64(try reader.fixed64())
            case .fixed32: value = .fixed32(try reader.fixed32())
            case .lengthDelimited:
                let probe = reader
                let range = try reader.lengthDelimited()
                if range.isEmpty {
                    value = .bytes([])
                } else {
                    var nested = probe
                    let before = nodes
                    do {
                        value = .message(
                            try nested.nested { (inner) throws(WireError) in try fields(&inner, nodes: &nodes) })
                    } catch  where error.code == .depthLimit || error.rule == "WIRE-26" {
                        throw error
                    } catch {
                        // Not a message: the payload is shown as bytes, and the fields tried do
                        // not count.
                        nodes = before
                        value = .bytes(reader.bytes(range))
                    }
                }
            }
            result.append(RawField(number: field.number, value: value, offset: field.start))
        }
        return result
    }

    /// The tree as text in the layout of `protoc --decode_raw`.
    public static func text(_ fields: [RawField], indent: String = "") -> String {
        var out = ""
        for field in fields {
            switch field.value {
            case .varint(let value): out += "\(indent)\(field.number): \(value)\n"
            case .fixed64(let value): out += "\(indent)\(field.number): 0x\(hex(value, 16))\n"
            case .fixed32(let value): out += "\(indent)\(field.number): 0x\(hex(UInt64(value), 8))\n"
            case .bytes(let bytes): out += "\(indent)\(field.number): \"\(escaped(bytes))\"\n"
            case .message(let inner):
                out += "\(indent)\(field.number) {\n" + text(inner, indent: indent + "  ") + "\(indent)}\n"
            }
        }
        return out
    }

    private static func hex(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// C-style escapes as protoc prints them: printable ASCII as is, the rest in octal.
    private static func escaped(_ bytes: [UInt8]) -> String {
        var out = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\r"): out += "\\r"
            case UInt8(ascii: "\t"): out += "\\t"
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "'"): out += "\\'"
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20..<0x7F: out.append(Character(Unicode.Scalar(byte)))
            default:
                let octal = String(byte, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return out
    }
}
