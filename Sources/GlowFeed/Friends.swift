/// A person's stance toward another (FEED-3).
public enum Stance: String, Sendable, Hashable, CaseIterable {
    /// No stance: never asked, or withdrawn.
    case none
    /// Wants to be friends: a request, or an acceptance of one.
    case want
    /// Blocks the other: no request, reaction or item passes between them.
    case block
}

/// One person's registers toward one other person (FEED-3): the stance, last writer wins, and
/// the stamp of their last "no", a max-register.
public struct StanceRegister: Sendable, Hashable {
    /// The stance; `none` at first.
    public private(set) var stance: Stance = .none
    /// The stamp of the stance's write.
    public private(set) var stamp: Stamp?
    /// The greatest stamp of a `none` written.
    public private(set) var lastNo: Stamp?

    /// A register at its start.
    public init() {}

    /// Takes in a write: the stance changes only for a greater stamp (or an equal one with a
    /// stance that outranks it, FEED-3); a `none` raises the last "no".
    public mutating func write(_ stance: Stance, at stamp: Stamp) {
        if self.stamp.map({ $0 < stamp || ($0 == stamp && stance.outranks(self.stance)) }) ?? true {
            self.stance = stance
            self.stamp = stamp
        }
        if stance == .none { lastNo = .max(lastNo, stamp) }
    }

    /// The register that has seen both registers' writes.
    public mutating func merge(_ other: StanceRegister) {
        if let stamp = other.stamp { write(other.stance, at: stamp) }
        lastNo = .max(lastNo, other.lastNo)
    }
}

extension Optional where Wrapped == Stamp {
    /// The greater of two stamps, nil counting as older than any.
    static func max(_ a: Stamp?, _ b: Stamp?) -> Stamp? {
        guard let a else { return b }
        guard let b else { return a }
        return Swift.max(a, b)
    }
}

/// Where a pair stands, from one side (FEED-4).
public enum FriendState: String, Sendable, Hashable, CaseIterable {
    /// Neither asked, or every ask was answered no.
    case none
    /// This person asked the other, who has not answered.
    case requested
    /// The other asked this person.
    case incoming
    /// Both want it.
    case friends
    /// This person blocks the other.
    case blocking
    /// The other blocks this person.
    case blocked

    /// The state of a pair from `mine`'s side, `theirs` being the other person's registers.
    public init(mine: StanceRegister, theirs: StanceRegister) {
        func live(_ want: StanceRegister, against no: StanceRegister) -> Bool {
            guard want.stance == .want, let stamp = want.stamp else { return false }
            return no.lastNo.map { stamp > $0 } ?? true
        }
        if mine.stance == .block {
            self = .blocking
        } else if theirs.stance == .block {
            self = .blocked
        } else {
            switch (live(mine, against: theirs), live(theirs, against: mine)) {
            case (true, true): self = .friends
            case (true, false): self = .requested
            case (false, true): self = .incoming
            case (false, false): self = .none
            }
        }
    }
}

/// What a person can do toward another (FEED-5).
public enum FriendAction: String, Sendable, Hashable, CaseIterable {
    /// Ask, accept, decline, withdraw a request, end a friendship, block and unblock (FEED-5).
    case request, accept, decline, cancel, unfriend, block, unblock

    /// The stance the action writes.
    var writes: Stance {
        switch self {
        case .request, .accept: .want
        case .decline, .cancel, .unfriend, .unblock: .none
        case .block: .block
        }
    }

    /// The states it is allowed from.
    var allowed: Set<FriendState> {
        switch self {
        case .request: [.none, .incoming]
        case .accept, .decline: [.incoming]
        case .cancel: [.requested]
        case .unfriend: [.friends]
        case .block: [.none, .requested, .incoming, .friends, .blocked]
        case .unblock: [.blocking]
        }
    }
}
