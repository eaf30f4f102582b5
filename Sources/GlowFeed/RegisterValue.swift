import GlowCore
import GlowModel

/// A value a last-writer-wins register holds, with the order that settles two writes of one
/// stamp (FEED-3): the greater value wins, so replicas agree whatever order such writes came in.
public protocol RegisterValue: Hashable, Sendable {
    /// Whether this value wins over `other` when both were written with the same stamp.
    func outranks(_ other: Self) -> Bool
}

extension Stance: RegisterValue {
    /// `block` over `want` over `none`.
    public func outranks(_ other: Stance) -> Bool { rank > other.rank }

    private var rank: Int {
        switch self {
        case .none: 0
        case .want: 1
        case .block: 2
        }
    }
}

extension Visibility: RegisterValue {
    /// `private` over `friends` over `public`: the narrower wins.
    public func outranks(_ other: Visibility) -> Bool { rank > other.rank }

    private var rank: Int {
        switch self {
        case .public: 0
        case .friends: 1
        case .private: 2
        }
    }
}

extension Bool: RegisterValue {
    /// Off over on.
    public func outranks(_ other: Bool) -> Bool { !self && other }
}

extension Optional: RegisterValue where Wrapped == FeedItem {
    /// A withdrawal over content; between two contents, the greater time, then streak (absent
    /// below any), then title, emoji and goal kind as UTF-8 bytes. The other fields are fixed by
    /// the id.
    public func outranks(_ other: FeedItem?) -> Bool {
        switch (self, other) {
        case (nil, .some): return true
        case (.some, nil), (nil, nil): return false
        case (.some(let a), .some(let b)):
            if a.time != b.time { return a.time > b.time }
            if a.streak != b.streak { return (a.streak ?? -1) > (b.streak ?? -1) }
            if a.title != b.title { return b.title.precedesInUTF8(a.title) }
            if a.emoji != b.emoji { return b.emoji.precedesInUTF8(a.emoji) }
            if a.goalKind != b.goalKind { return b.goalKind.precedesInUTF8(a.goalKind) }
            return false
        }
    }
}
