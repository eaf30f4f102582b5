import Foundation

/// The canonical JSON text of a model value (MODEL-51): its JSON form (MODEL-40) serialised as
/// RFC 8785 (JSON Canonicalization Scheme) does it for the values the model writes: members sorted
/// by key, no white space, strings escaped minimally. Merge breaks ties with it (BUNDLE-21), so
/// the order of two records is the same in every implementation and needs no wire encoder.
package enum CanonicalJSON {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // Keys are ASCII, so sorting them as Swift strings is RFC 8785's sort by UTF-16 units;
        // the model writes only strings, integers, booleans, null, arrays and objects.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The canonical UTF-8 bytes of `value`.
    package static func bytes(_ value: some Encodable) -> [UInt8] {
        // Every model value encodes (its JSON form is total); an empty text would only tie.
        Array((try? encoder.encode(value)) ?? Data())
    }
}
