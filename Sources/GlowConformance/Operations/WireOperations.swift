import Foundation
import GlowModel
import GlowWire

/// The wire area's operations: decode hex to the canonical bytes and model JSON, encode model
/// JSON, and print schema-less field trees.
package enum WireOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "wire.decode": decode,
        "wire.encode": encode,
        "wire.decodeRaw": decodeRaw,
    ]

    /// Each message: decode from bytes and re-encode with its JSON; encode from JSON.
    package struct Codec: Sendable {
        package let decode: @Sendable ([UInt8], WireLimits) throws -> (bytes: [UInt8], json: JSONValue)
        package let encode: @Sendable (JSONValue) throws -> [UInt8]

        static func of<T: WireMessage & Codable>(_ type: T.Type) -> Codec {
            Codec(
                decode: { bytes, limits in
                    let value = try T(wire: bytes, limits: limits)
                    return (value.wireEncoded(), try ModelOperations.reencode(value))
                },
                encode: { json in try ModelOperations.decode(T.self, json).wireEncoded() })
        }
    }

    package static let codecs: [String: Codec] = [
        "Goal": .of(Goal.self), "Profile": .of(Profile.self), "DayBoundary": .of(DayBoundary.self),
        "CheckIn": .of(CheckIn.self), "CheckInBlock": .of(CheckInBlock.self), "GoalDraft": .of(GoalDraft.self),
        "GoalTemplate": .of(GoalTemplate.self), "Interest": .of(Interest.self),
    ]

    static func codec(_ input: JSONValue) throws -> Codec {
        let name = try input.string("message")
        guard let codec = codecs[name] else { throw CorpusInputError(description: "unknown message \(name)") }
        return codec
    }

    static func limits(_ input: JSONValue) -> WireLimits {
        var limits = WireLimits.default
        if let size = input["limits"]?["maxMessageSize"]?.int { limits.maxMessageSize = size }
        if let depth = input["limits"]?["maxDepth"]?.int { limits.maxDepth = depth }
        if let count = input["limits"]?["maxCheckInsPerBlock"]?.int { limits.maxCheckInsPerBlock = count }
        if let count = input["limits"]?["maxRawNodes"]?.int { limits.maxRawNodes = count }
        return limits
    }

    package static func bytes(hex: String) throws -> [UInt8] {
        do { return try HexText.bytes(Array(hex.utf8)) } catch {
            throw CorpusInputError(description: error.description)
        }
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        HexText.text(bytes)
    }

    static func decode(_ input: JSONValue) throws -> JSONValue {
        let (canonical, json) = try codec(input).decode(try bytes(hex: try input.string("hex")), limits(input))
        return .object(["canonicalHex": .string(hex(canonical)), "json": json])
    }

    static func encode(_ input: JSONValue) throws -> JSONValue {
        .object(["hex": .string(hex(try codec(input).encode(try input.required("json"))))])
    }

    static func decodeRaw(_ input: JSONValue) throws -> JSONValue {
        let fields = try RawMessage.parse(try bytes(hex: try input.string("hex")), limits: limits(input))
        return .object(["text": .string(RawMessage.text(fields))])
    }
}
