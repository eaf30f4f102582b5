import GlowCore

/// The one error type of GlowFeed: a stable code, a message a person can act on, and the rule.
public struct FeedError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<FeedError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    package init(_ code: Code, _ message: String, rule: String?) {
        self.code = code
        self.message = message
        self.rule = rule
    }

}

extension ErrorCode where Domain == FeedError {
    /// A stamp outside FEED-1's ranges.
    public static var invalidStamp: Self { Self("invalid_stamp") }
    /// A clock whose counter would overflow (FEED-2).
    public static var clockExhausted: Self { Self("clock_exhausted") }
    /// A friend action FEED-5 does not allow from the current state.
    public static var invalidFriendAction: Self { Self("invalid_friend_action") }
    /// Something the viewer may not see, or that does not exist: the two look the same.
    public static var notFound: Self { Self("not_found") }
    /// A reaction to one's own item (FEED-11).
    public static var ownItem: Self { Self("own_item") }
    /// A reaction kind other than heart, fire and clap (FEED-10).
    public static var unknownReaction: Self { Self("unknown_reaction") }
    /// A page limit below 1 (FEED-17).
    public static var invalidLimit: Self { Self("invalid_limit") }
    /// A cursor this version did not write (FEED-18).
    public static var invalidCursor: Self { Self("invalid_cursor") }
    /// A delta sent to the relay with a write that is not the sender's own (FEED-25).
    public static var notAuthor: Self { Self("not_author") }
    /// A delta sent to the relay with a stamp further ahead of the relay's time than the skew
    /// allows (FEED-25).
    public static var stampAhead: Self { Self("stamp_ahead") }
    /// A delta sent to the relay with more registers than one delta may hold (FEED-25).
    public static var tooManyWrites: Self { Self("too_many_writes") }
    /// A delta sent to the relay with a register longer than one may be (FEED-25).
    public static var registerTooLarge: Self { Self("register_too_large") }
    /// An item whose fields break FEED-6.
    public static var invalidItem: Self { Self("invalid_item") }
    /// A write, read or device of a person the relay erased when their account was deleted
    /// (FEED-31).
    public static var personErased: Self { Self("person_erased") }
    /// A relay store could not keep a change.
    public static var storageFailed: Self { Self("storage_failed") }
    /// Exports that cannot make one feed: one without a profile, or two of one person.
    public static var invalidExport: Self { Self("invalid_export") }
}
