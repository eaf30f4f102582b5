import GlowWire

/// A value of one field of a ``ProtocolMessage``.
public indirect enum ProtocolValue: Sendable, Hashable {
    /// A `string` field's text.
    case string(String)
    /// A `bytes` field's bytes.
    case bytes([UInt8])
    /// A `bool` field's value.
    case bool(Bool)
    /// `uint32`, `uint64` and enum numbers (an enum's negative number as its 64-bit pattern).
    case unsigned(UInt64)
    /// `sint32` and `sint64`.
    case signed(Int64)
    /// A field of a message type: the message.
    case message(ProtocolMessage)
    /// The values of a repeated field, in order.
    case list([ProtocolValue])
}

/// A message of the server's protocol, read and written by its type's fields
/// (``ProtocolSchema``): the one codec behind the server's handler, its clients and the
/// conformance runner's scripts, so none of them spells a message's bytes by hand.
///
/// Writing is canonical (fields in number order, defaults left out, as WIRE-1 ... WIRE-4 say for
/// records); reading takes any valid encoding, skips fields the type does not declare
/// (SERVER-4) and keeps every limit of ``WireLimits``.
public struct ProtocolMessage: Sendable, Hashable {
    /// The message's type.
    public let type: ProtocolMessageType
    /// The fields that are set, by name: a scalar at its default is the same as one not set,
    /// unless the field is `optional`.
    public private(set) var values: [String: ProtocolValue]
    /// What was wrong in building it: a type name or a field name the protocol does not declare,
    /// in words. A client refuses a message with any (`invalid_message`) before sending it, so a
    /// typo is a typed error rather than a crash or a request the server cannot read.
    public private(set) var mistakes: [String] = []

    /// An empty message of the type named `typeName`, one of ``ProtocolSchema``; another name
    /// makes a message with no fields and the mistake noted in ``mistakes``.
    public init(_ typeName: String) {
        guard let type = ProtocolSchema.type(typeName) else {
            self.init(type: ProtocolMessageType(typeName, []))
            mistakes.append("\(typeName) is not a message of the server's protocol")
            return
        }
        self.init(type: type)
    }

    /// An empty message of `type`.
    public init(type: ProtocolMessageType) {
        self.type = type
        self.values = [:]
    }

    /// Sets the field `name`, which the type should declare with a matching kind of value; a name
    /// it does not declare sets nothing and is noted in ``mistakes``.
    public mutating func set(_ name: String, _ value: ProtocolValue) {
        guard let field = type.field(named: name) else {
            mistakes.append("\(type.name) has no field \(name)")
            return
        }
        values[field.name] = value
    }

    /// A copy with the field `name` set to `value`.
    public func with(_ name: String, _ value: ProtocolValue) -> ProtocolMessage {
        var copy = self
        copy.set(name, value)
        return copy
    }

    /// A copy with the string field `name` set; an empty text leaves it unset.
    public func with(_ name: String, _ text: String) -> ProtocolMessage {
        text.isEmpty ? self : with(name, .string(text))
    }

    /// The text of a string field: `""` when unset.
    public func string(_ name: String) -> String {
        if case .string(let text)? = values[name] { return text }
        return ""
    }

    /// The text of a string field, or nil when it is unset or empty (SERVER-2: empty is absent).
    public func text(_ name: String) -> String? {
        let text = string(name)
        return text.isEmpty ? nil : text
    }

    /// The bytes of a `bytes` field: empty when unset.
    public func bytes(_ name: String) -> [UInt8] {
        if case .bytes(let bytes)? = values[name] { return bytes }
        return []
    }

    /// The values of a repeated `bytes` field, in order.
    public func byteList(_ name: String) -> [[UInt8]] {
        list(name).compactMap { value in
            if case .bytes(let bytes) = value { return bytes }
            return nil
        }
    }

    /// A boolean field: false when unset.
    public func bool(_ name: String) -> Bool {
        if case .bool(let value)? = values[name] { return value }
        return false
    }

    /// An unsigned or enum field: 0 when unset.
    public func unsigned(_ name: String) -> UInt64 {
        if case .unsigned(let value)? = values[name] { return value }
        return 0
    }

    /// Whether the field `name` is set: for an `optional` field, whether it was present.
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// A message field, or nil when unset.
    public func message(_ name: String) -> ProtocolMessage? {
        if case .message(let value)? = values[name] { return value }
        return nil
    }

    /// The values of a repeated field.
    public func list(_ name: String) -> [ProtocolValue] {
        if case .list(let values)? = values[name] { return values }
        return []
    }

    // MARK: Writing

    /// The canonical bytes.
    public func wireEncoded() -> [UInt8] {
        var writer = WireWriter()
        encode(to: &writer)
        return writer.bytes
    }

    private func encode(to writer: inout WireWriter) {
        for field in type.fields {
            guard let value = values[field.name] else { continue }
            if case .list(let items) = value {
                for item in items { Self.write(item, of: field, to: &writer, present: true) }
            } else {
                Self.write(value, of: field, to: &writer, present: field.optional)
            }
        }
    }

    private static func write(
        _ value: ProtocolValue, of field: ProtocolField, to writer: inout WireWriter, present: Bool
    ) {
        let number = field.number
        switch value {
        case .string(let text):
            if present { writer.presentString(number, text) } else { writer.string(number, text) }
        case .bytes(let bytes):
            if present { writer.presentBytes(number, bytes) } else { writer.bytes(number, bytes) }
        case .bool(let flag):
            if present {
                writer.presentUInt(number, flag ? 1 : 0)
            } else {
                writer.bool(number, flag)
            }
        case .unsigned(let number64):
            if present { writer.presentUInt(number, number64) } else { writer.uint(number, number64) }
        case .signed(let number64):
            if present { writer.presentSInt(number, number64) } else { writer.sint(number, number64) }
        case .message(let message):
            writer.message(number) { message.encode(to: &$0) }
        case .list:
            preconditionFailure("a list holds no lists")
        }
    }

    // MARK: Reading

    /// Reads a message of `type` from `bytes`.
    ///
    /// - Throws: ``WireError`` with the offset of the problem: a truncated field, a field of a
    ///   declared number with another wire type, text that is not UTF-8, a number out of its
    ///   type's range, nesting or size past `limits`.
    public init(_ type: ProtocolMessageType, wire bytes: [UInt8], limits: WireLimits = .default) throws(WireError) {
        self = try WireReader.read(bytes[...], limits: limits) { (reader) throws(WireError) in
            try Self.decode(type, from: &reader)
        }
    }

    private static func decode(_ type: ProtocolMessageType, from reader: inout WireReader) throws(WireError)
        -> ProtocolMessage
    {
        var message = ProtocolMessage(type: type)
        var skipped: [UInt8] = []
        try reader.forEachField(unknown: &skipped) { (r, f) throws(WireError) in
            guard let field = type.field(numbered: f.number) else { return false }
            let value = try read(field, f, from: &r)
            switch (message.values[field.name], value) {
            case (.list(let earlier)?, _): message.values[field.name] = .list(earlier + [value])
            case (nil, _) where field.repeated: message.values[field.name] = .list([value])
            case (.message(let earlier)?, .message(let later)):
                // A message field given twice merges (WIRE-6).
                message.values[field.name] = .message(earlier.merging(later))
            default: message.values[field.name] = value
            }
            return true
        }
        return message
    }

    private static func read(_ field: ProtocolField, _ f: WireReader.Field, from r: inout WireReader)
        throws(WireError) -> ProtocolValue
    {
        switch field.type {
        case .string: return .string(try r.readString(f))
        case .bytes: return .bytes(try r.readBytes(f))
        case .bool: return .bool(try r.readBool(f))
        case .uint32: return .unsigned(UInt64(try r.readUInt32(f)))
        case .uint64: return .unsigned(try r.readUInt(f))
        case .sint64: return .signed(try r.readSInt(f))
        case .sint32:
            let value = try r.readSInt(f)
            guard let small = Int32(exactly: value) else {
                throw WireError(.invalidValue, at: f.start, "\(value) does not fit a sint32", rule: "WIRE-16")
            }
            return .signed(Int64(small))
        case .enumeration:
            var open: [UInt32: UInt64] = [:]
            _ = try r.readEnum(f, open: &open) { _ -> Bool? in nil }
            return .unsigned(open[f.number] ?? 0)
        case .message(let name):
            try r.expect(f, .lengthDelimited)
            guard let inner = ProtocolSchema.type(name) else {
                preconditionFailure("the schema names \(name), which it does not declare")
            }
            return .message(try r.nested { (nested) throws(WireError) in try decode(inner, from: &nested) })
        }
    }

    /// This message with `later`'s fields over it: scalars replaced, messages merged, lists
    /// appended (WIRE-6).
    func merging(_ later: ProtocolMessage) -> ProtocolMessage {
        var merged = self
        for (name, value) in later.values {
            switch (merged.values[name], value) {
            case (.list(let first)?, .list(let second)): merged.values[name] = .list(first + second)
            case (.message(let first)?, .message(let second)): merged.values[name] = .message(first.merging(second))
            default: merged.values[name] = value
            }
        }
        return merged
    }
}
