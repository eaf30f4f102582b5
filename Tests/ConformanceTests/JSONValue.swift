import Foundation

/// A JSON document as a value, so corpus inputs and expectations compare structurally, whatever
/// key order or spacing a file uses.
enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Compact JSON text with sorted keys.
    var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try! encoder.encode(self)
    }

    var description: String { String(decoding: data, as: UTF8.self) }

    static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var int: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

/// A corpus input that is missing a field or has the wrong type: a broken case, not a failure
/// of the implementation under test.
struct CorpusInputError: Error, CustomStringConvertible {
    let description: String
}

extension JSONValue {
    func required(_ key: String) throws -> JSONValue {
        guard let value = self[key] else { throw CorpusInputError(description: "input lacks \"\(key)\"") }
        return value
    }

    func string(_ key: String) throws -> String {
        guard let value = try required(key).string else {
            throw CorpusInputError(description: "input \"\(key)\" is not a string")
        }
        return value
    }

    func int(_ key: String) throws -> Int {
        guard let value = try required(key).int else {
            throw CorpusInputError(description: "input \"\(key)\" is not an integer")
        }
        return value
    }
}
