/// A short stable name of lowercase letters, digits and hyphens, such as `self-care` or
/// `black-and-white`: how interests and themes are identified (MODEL-38).
public struct Slug: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The text, 1...40 characters of `a-z`, `0-9` and `-`, not starting or ending with `-`.
    public let rawValue: String

    /// Validates a slug.
    ///
    /// - Throws: ``ModelError/Code/invalidProfile`` naming the rule.
    public init(_ text: String) throws(ModelError) {
        let bytes = Array(text.utf8)
        let valid =
            (1...40).contains(bytes.count) && bytes.first != UInt8(ascii: "-") && bytes.last != UInt8(ascii: "-")
            && bytes.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
        guard valid else {
            throw ModelError(
                .invalidProfile, "\"\(text)\" is not a slug (1...40 of a-z, 0-9 and inner hyphens)", rule: "MODEL-38")
        }
        self.rawValue = text
    }

    /// The text.
    public var description: String { rawValue }

    /// Orders by text.
    public static func < (lhs: Slug, rhs: Slug) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Slug: Codable {
    /// Decodes a slug string.
    public init(from decoder: any Decoder) throws {
        self = try decodeText(from: decoder) { (text: String) throws(ModelError) in try Slug(text) }
    }

    /// Encodes the slug string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
