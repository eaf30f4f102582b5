import Foundation

/// The marker types that keep identifiers of different things apart at compile time.
public protocol IdentifierKind: Sendable {}

/// What a ``GoalID`` identifies.
public enum GoalTag: IdentifierKind {}
/// What a ``UserID`` identifies.
public enum UserTag: IdentifierKind {}
/// What a ``DeviceID`` identifies.
public enum DeviceTag: IdentifierKind {}
/// What a ``TemplateID`` identifies.
public enum TemplateTag: IdentifierKind {}
/// What a ``SubgoalItemID`` identifies.
public enum SubgoalItemTag: IdentifierKind {}

/// A goal's identifier.
public typealias GoalID = Identifier<GoalTag>
/// A person's identifier.
public typealias UserID = Identifier<UserTag>
/// A device's identifier, recorded with each check-in.
public typealias DeviceID = Identifier<DeviceTag>
/// A goal template's identifier.
public typealias TemplateID = Identifier<TemplateTag>
/// A checklist item's identifier within a subgoals goal.
public typealias SubgoalItemID = Identifier<SubgoalItemTag>

/// A typed 128-bit identifier backed by a UUID (MODEL-15).
///
/// New identifiers are UUIDv7 (see ``UUIDv7Generator``), so they sort by creation time. Any UUID
/// version is accepted on input. Text is the lowercase 8-4-4-4-12 form; parsing also accepts
/// upper case. Identifiers order by their 16 bytes, which merge uses as a deterministic tie-break.
public struct Identifier<Kind: IdentifierKind>: Hashable, Comparable, Sendable {
    /// The first 8 bytes, big-endian.
    public let high: UInt64
    /// The last 8 bytes, big-endian.
    public let low: UInt64

    /// The identifier with these 16 bytes.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The identifier with the bytes of `uuid`.
    public init(_ uuid: UUID) {
        let b = uuid.uuid
        let bytes = [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7, b.8, b.9, b.10, b.11, b.12, b.13, b.14, b.15]
        self.init(bytes: bytes)
    }

    /// The identifier with these 16 big-endian bytes.
    package init(bytes: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(bytes[index])
            low = low << 8 | UInt64(bytes[index + 8])
        }
        self.init(high: high, low: low)
    }

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in either case.
    ///
    /// - Throws: ``ModelError/Code/invalidUUID``.
    public init(_ text: String) throws(ModelError) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else {
            throw ModelError(.invalidUUID, "\"\(text)\" is not a UUID (expected 36 characters)", rule: "MODEL-15")
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else {
                    throw ModelError(.invalidUUID, "\"\(text)\" needs a hyphen at offset \(index)", rule: "MODEL-15")
                }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default:
                throw ModelError(
                    .invalidUUID, "\"\(text)\" has a non-hex character at offset \(index)", rule: "MODEL-15")
            }
            if nibbles < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            nibbles += 1
        }
        self.init(high: high, low: low)
    }

    /// The Foundation UUID with the same bytes.
    public var uuid: UUID {
        let h = high
        let l = low
        func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
        return UUID(
            uuid: (
                byte(h, 0), byte(h, 1), byte(h, 2), byte(h, 3), byte(h, 4), byte(h, 5), byte(h, 6), byte(h, 7),
                byte(l, 0), byte(l, 1), byte(l, 2), byte(l, 3), byte(l, 4), byte(l, 5), byte(l, 6), byte(l, 7)
            ))
    }

    /// The 16 big-endian bytes.
    package var bytes: [UInt8] {
        (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (56 - 8 * UInt64(index % 8))) }
    }

    /// The UUID version number (the high nibble of byte 6): 7 for identifiers this SDK creates.
    public var version: Int { Int(high >> 12 & 0xF) }

    /// Orders by the 16 bytes, so UUIDv7 identifiers order by creation time.
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

extension Identifier: CustomStringConvertible {
    /// The lowercase 8-4-4-4-12 form.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { out.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - 4 * (nibble % 16))
            out.append(digits[Int(word >> shift & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Identifier: Codable {
    /// Decodes a UUID string.
    public init(from decoder: any Decoder) throws {
        self = try decodeText(from: decoder) { (text: String) throws(ModelError) in try Identifier(text) }
    }

    /// Encodes the lowercase UUID string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
