import GlowCore
import GlowModel

/// Where a page ended (FEED-18): the (time, id) of its last item, written as an opaque,
/// versioned text: base64url without padding of the byte 1, the time as 8 bytes big-endian, and
/// the id's UTF-8.
public struct FeedCursor: Sendable, Hashable, CustomStringConvertible {
    /// The most items a page holds (FEED-17).
    public static let pageLimit = 100
    /// The longest cursor text read.
    public static let textLimit = 1_024

    let time: Int64
    let id: String

    /// The cursor after `item`.
    public init(after item: FeedItem) {
        time = item.time
        id = item.id
    }

    /// Reads a cursor this version wrote.
    ///
    /// - Throws: ``FeedError/Code/invalidCursor`` for any other text.
    public init(text: String) throws(FeedError) {
        let invalid = FeedError(
            .invalidCursor, "that is not a cursor of this feed; start from the first page", rule: "FEED-19")
        guard text.utf8.count <= Self.textLimit, let bytes = Base64.url.decode(text), bytes.count > 9, bytes[0] == 1
        else { throw invalid }
        var time: Int64 = 0
        for byte in bytes[1..<9] { time = time << 8 | Int64(byte) }
        guard (0...Stamp.maximumWall).contains(time), let id = String(validating: bytes[9...], as: UTF8.self) else {
            throw invalid
        }
        self.time = time
        self.id = id
    }

    /// The cursor's text.
    public var description: String {
        var bytes: [UInt8] = [1]
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: time >> Int64(shift)))
        }
        bytes += Array(id.utf8)
        return Base64.url.encode(bytes)
    }

    /// The cursor's place in the feed's order.
    var key: OrderKey { OrderKey(time: time, id: FeedItemID(id)) }

    /// How many items of `list`, oldest first, come after this cursor in the feed's order
    /// (strictly older by (time, id)): they are the list's first ones.
    func olderCount(in list: [OrderKey]) -> Int { FeedReplica.position(of: key, in: list) }

    /// Newest first: the greater time, then the greater id as UTF-8 bytes.
    public static func newerFirst(_ a: FeedItem, _ b: FeedItem) -> Bool {
        OrderKey.isOlder(OrderKey(b), OrderKey(a))
    }
}
