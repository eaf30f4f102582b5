import Foundation

/// The documented JSON mapping of every GlowModel type (MODEL-40 ... MODEL-44), with errors that
/// name the JSON path of the value that was wrong.
///
/// Days are `YYYY-MM-DD`, identifiers lowercase UUID strings, enums their lowercase names,
/// instants RFC 3339 UTC with milliseconds, amounts decimal strings. Output is deterministic:
/// keys sorted, no insignificant whitespace.
public enum GlowJSON {
    /// Encodes `value` in the canonical mapping: sorted keys, compact, no escaped slashes.
    public static func encode<T: Encodable>(_ value: T) throws(ModelError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch let error as ModelError {
            throw error
        } catch {
            throw ModelError(.invalidJSON, "could not encode \(T.self): \(error)")
        }
    }

    /// Decodes a `T` from JSON.
    ///
    /// - Throws: ``ModelError`` with the code of the first problem (``ModelError/Code/invalidJSON``,
    ///   ``ModelError/Code/unknownEnumCase``, ``ModelError/Code/invalidDay`` ...) and its JSON
    ///   path, such as `$.schedule[0].rule.weekdays[1]`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ModelError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw modelError(from: error)
        } catch let error as ModelError {
            throw error.at("$")
        } catch {
            throw ModelError(.invalidJSON, "\(error)", path: "$")
        }
    }

    /// Decodes a `T` from JSON text.
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws(ModelError) -> T {
        try decode(type, from: Data(text.utf8))
    }

    /// `$`, then `.key` or `[index]` per step of a coding path.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = "$"
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += ".\(key.stringValue)"
            }
        }
        return text
    }

    static func modelError(from error: DecodingError) -> ModelError {
        switch error {
        case .dataCorrupted(let context):
            if let inner = context.underlyingError as? ModelError {
                return inner.at(path(context.codingPath))
            }
            if context.codingPath.isEmpty {
                return ModelError(.invalidJSON, "the text is not valid JSON", path: "$", rule: "MODEL-40")
            }
            return ModelError(.invalidJSON, context.debugDescription, path: path(context.codingPath), rule: "MODEL-40")
        case .keyNotFound(let key, let context):
            return ModelError(
                .invalidJSON, "the required key \"\(key.stringValue)\" is missing",
                path: path(context.codingPath + [key]), rule: "MODEL-40")
        case .typeMismatch(let type, let context):
            return ModelError(
                .invalidJSON, "expected \(jsonTypeName(type)) here", path: path(context.codingPath), rule: "MODEL-40")
        case .valueNotFound(let type, let context):
            return ModelError(
                .invalidJSON, "expected \(jsonTypeName(type)), found null", path: path(context.codingPath),
                rule: "MODEL-40")
        @unknown default:
            return ModelError(.invalidJSON, "\(error)", path: "$", rule: "MODEL-40")
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: "an integer"
        case is [Any].Type: "an array"
        default: "a value of type \(type)"
        }
    }
}

/// A `DecodingError` that carries `error`, so ``GlowJSON`` reports its code at `codingPath`
/// (followed by the error's own relative path, if it has one).
func decodingFailure(_ error: ModelError, at codingPath: [any CodingKey]) -> DecodingError {
    DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: error.message, underlyingError: error))
}

/// Runs a validating initialiser inside a decoder, so its ``ModelError`` keeps its code and
/// gains the JSON path of the value being decoded.
func validated<T>(at codingPath: [any CodingKey], _ make: () throws -> T) throws -> T {
    do {
        return try make()
    } catch let error as ModelError {
        throw decodingFailure(error, at: codingPath)
    }
}

/// Decodes a string through a parser that throws ``ModelError``.
func decodeText<T>(from decoder: any Decoder, _ parse: (String) throws(ModelError) -> T) throws -> T {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    do {
        return try parse(text)
    } catch {
        throw decodingFailure(error, at: container.codingPath)
    }
}

/// Decodes an enum by its lowercase name; an unknown name is ``ModelError/Code/unknownEnumCase``.
func decodeEnumName<T: RawRepresentable & CaseIterable>(_ type: T.Type, from decoder: any Decoder) throws -> T
where T.RawValue == String {
    try decodeText(from: decoder) { (name: String) throws(ModelError) -> T in
        guard let value = T(rawValue: name) else {
            let known = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ModelError(
                .unknownEnumCase, "\"\(name)\" is not a known \(T.self); expected one of: \(known)", rule: "MODEL-41")
        }
        return value
    }
}
