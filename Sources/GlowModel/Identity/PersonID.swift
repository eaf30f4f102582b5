/// A person as the server and the Glow feed name them: their account's id, as the server gave it
/// at sign-in (`ClientSession.person`). Kept apart from ``UserID`` (the profile's own id, which a
/// bundle carries) and from plain text, so a device or goal id cannot be passed where a person
/// belongs.
public struct PersonID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The id's text, as the feed's records spell the person.
    public let rawValue: String

    /// The person whose account id is `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The person whose account id is `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A literal id, for tests and previews.
    public init(stringLiteral value: String) { rawValue = value }

    /// The id's text.
    public var description: String { rawValue }

    /// Ordered by text, for stable listings.
    public static func < (a: PersonID, b: PersonID) -> Bool { a.rawValue < b.rawValue }

    /// Reads the id from its text.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the id as its text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
