import GlowCore

/// An item's id (FEED-6) as a replica keeps it: the text, and a digest of it (the process's
/// seeded hash) computed once, so a dictionary of 100,000 items hashes eight bytes per lookup and compares
/// two ids' texts only when their digests agree.
public struct FeedItemID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The id as text (`owner/kind/goal...`).
    public let text: String
    private let digest: Int

    /// The key of the id `text`.
    public init(_ text: String) {
        self.text = text
        // The process's seeded hasher, once: ids sent to a relay cannot be chosen to collide.
        var hasher = Hasher()
        hasher.combine(text)
        digest = hasher.finalize()
    }

    /// The key of the id given as a literal.
    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// The same text (the digests are compared first).
    public static func == (a: FeedItemID, b: FeedItemID) -> Bool {
        a.digest == b.digest && a.text == b.text
    }

    /// Mixes the digest only.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    /// Ids in the order of their UTF-8 bytes, as FEED-16 and FEED-25 compare them.
    public static func < (a: FeedItemID, b: FeedItemID) -> Bool {
        a.text.precedesInUTF8(b.text)
    }

    /// The owner: the part of the id before its first `/`.
    public var owner: Substring {
        text.firstIndex(of: "/").map { text[..<$0] } ?? text[...]
    }

    /// The goal: the part of the id between its second and third `/` (or its end), as in
    /// `owner/kind/goal/DAY`; empty when the id has fewer parts.
    public var goal: Substring {
        let parts = text.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        return parts.count > 2 ? parts[2] : ""
    }

    /// The text.
    public var description: String { text }
}
