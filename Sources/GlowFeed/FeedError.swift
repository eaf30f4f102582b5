/// The one error type of GlowFeed: a stable code, a message a person can act on, and the rule.
public struct FeedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code, as the corpus spells it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate let text: String

        /// The code's text.
        public var description: String { text }

        /// A stamp outside FEED-1's ranges.
        public static let invalidStamp = Code(text: "invalid_stamp")
        /// A clock whose counter would overflow (FEED-2).
        public static let clockExhausted = Code(text: "clock_exhausted")
        /// A friend action FEED-5 does not allow from the current state.
        public static let invalidFriendAction = Code(text: "invalid_friend_action")
        /// Something the viewer may not see, or that does not exist: the two look the same.
        public static let notFound = Code(text: "not_found")
        /// A reaction to one's own item (FEED-11).
        public static let ownItem = Code(text: "own_item")
        /// A reaction kind other than heart, fire and clap (FEED-10).
        public static let unknownReaction = Code(text: "unknown_reaction")
        /// A page limit below 1 (FEED-17).
        public static let invalidLimit = Code(text: "invalid_limit")
        /// A cursor this version did not write (FEED-18).
        public static let invalidCursor = Code(text: "invalid_cursor")
        /// A delta sent to the relay with a write that is not the sender's own (FEED-25).
        public static let notAuthor = Code(text: "not_author")
        /// An item whose fields break FEED-6.
        public static let invalidItem = Code(text: "invalid_item")
        /// A relay store could not keep a change.
        public static let storageFailed = Code(text: "storage_failed")
        /// Exports that cannot make one feed: one without a profile, or two of one person.
        public static let invalidExport = Code(text: "invalid_export")
    }

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String

    package init(_ code: Code, _ message: String, rule: String) {
        self.code = code
        self.message = message
        self.rule = rule
    }

    /// `code: message [rule]`.
    public var description: String { "\(code): \(message) [\(rule)]" }
}
