import GlowModel

/// What a friend's screen shows of one event in a person's history (FEED-6): never a note,
/// never anything of a private goal. Immutable, and shared rather than copied: replicas hold
/// hundreds of thousands, and a copy of a reference retains one object, not seven strings.
public final class FeedItem: Sendable, Hashable, Identifiable {
    /// The four kinds of event.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A check-in done: one item per goal per Day, updated as the Day's taps grow.
        case checkIn
        /// A streak milestone, one per goal, milestone and streak start.
        case milestone
        /// A goal started.
        case goalStarted
        /// A one-off goal completed.
        case goalCompleted
    }

    /// Whose item it is.
    public let owner: String
    /// What happened.
    public let kind: Kind
    /// The goal's id.
    public let goal: String
    /// When the event happened, in milliseconds since 1970: the order of the feed.
    public let time: Int64
    /// The goal's title.
    public let title: String
    /// The goal's emoji.
    public let emoji: String
    /// The goal's kind, by name (`single`, `tally`, ...).
    public let goalKind: String
    /// The Day of a check-in or a milestone.
    public let day: Day?
    /// The streak's length, for a check-in or a milestone.
    public let streak: Int?
    /// The milestone reached, in Days.
    public let milestone: Int?
    /// The first Day of a milestone's streak.
    public let streakStart: Day?

    /// An item.
    ///
    /// - Throws: ``FeedError/Code/invalidItem`` when the fields its kind needs are missing
    ///   (a Day for a check-in, a milestone and its streak's start for a milestone), or the
    ///   owner, goal or title are empty or longer than 200 bytes.
    public init(
        owner: String, kind: Kind, goal: String, time: Int64, title: String, emoji: String, goalKind: String,
        day: Day? = nil, streak: Int? = nil, milestone: Int? = nil, streakStart: Day? = nil
    ) throws(FeedError) {
        let texts = [owner, goal, title]
        guard texts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 200 }), emoji.utf8.count <= 64,
            goalKind.utf8.count <= 64, (0...Stamp.maximumWall).contains(time)
        else {
            throw FeedError(
                .invalidItem, "an item needs an owner, a goal and a title of 1 to 200 bytes", rule: "FEED-6")
        }
        guard [streak, milestone].allSatisfy({ ($0 ?? 0) >= 0 && ($0 ?? 0) <= Int(UInt32.max) }) else {
            throw FeedError(.invalidItem, "a streak and a milestone count 0 to 2^32 − 1 Days", rule: "FEED-6")
        }
        switch kind {
        case .checkIn:
            guard day != nil else { throw FeedError(.invalidItem, "a check-in item needs its Day", rule: "FEED-6") }
        case .milestone:
            guard day != nil, let milestone, milestone > 0, streakStart != nil else {
                throw FeedError(
                    .invalidItem, "a milestone item needs its Day, milestone and streak start", rule: "FEED-6")
            }
        case .goalStarted, .goalCompleted: break
        }
        self.owner = owner
        self.kind = kind
        self.goal = goal
        self.time = time
        self.title = title
        self.emoji = emoji
        self.goalKind = goalKind
        // An item has the fields of its kind, and only those (FEED-6).
        self.day = kind == .goalStarted ? nil : day
        self.streak = kind == .checkIn || kind == .milestone ? streak : nil
        self.milestone = kind == .milestone ? milestone : nil
        self.streakStart = kind == .milestone ? streakStart : nil
        self.key = FeedItemID(
            Self.id(owner: owner, kind: kind, goal: goal, day: day, milestone: milestone, streakStart: streakStart))
    }

    /// The item's id (FEED-6): `owner/kind/goal`, then `/Day` for a check-in and
    /// `/milestone/streakStart` for a milestone. Two devices deriving the same event derive the
    /// same id, and a Day's growing taps update one item. Made once, when the item is: the feed's
    /// order compares it often.
    public let key: FeedItemID

    /// The id as text.
    public var id: String { key.text }

    /// Equal in every field.
    public static func == (a: FeedItem, b: FeedItem) -> Bool {
        a === b
            || (a.key == b.key && a.time == b.time && a.streak == b.streak && a.title == b.title && a.emoji == b.emoji
                && a.goalKind == b.goalKind && a.day == b.day && a.owner == b.owner && a.kind == b.kind
                && a.goal == b.goal && a.milestone == b.milestone && a.streakStart == b.streakStart)
    }

    /// Hashes the id and the time; equal items hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(time)
    }

    /// The id of an item of these parts.
    public static func id(owner: String, kind: Kind, goal: String, day: Day?, milestone: Int?, streakStart: Day?)
        -> String
    {
        let base = "\(owner)/\(kind.rawValue)/\(goal)"
        switch kind {
        case .checkIn: return base + "/\(day.map(String.init(describing:)) ?? "")"
        case .milestone:
            return base + "/\(milestone ?? 0)/\(streakStart.map(String.init(describing:)) ?? "")"
        case .goalStarted, .goalCompleted: return base
        }
    }
}

/// The three reactions (FEED-10).
public enum ReactionKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A heart, a fire and a clap, in the order a feed shows them.
    case heart, fire, clap

    /// ♥, 🔥 or 👏.
    public var symbol: String {
        switch self {
        case .heart: "♥"
        case .fire: "🔥"
        case .clap: "👏"
        }
    }

    /// A kind by name.
    ///
    /// - Throws: ``FeedError/Code/unknownReaction`` for any other name.
    public init(name: String) throws(FeedError) {
        guard let kind = ReactionKind(rawValue: name) else {
            throw FeedError(.unknownReaction, "'\(name.prefix(32))' is not heart, fire or clap", rule: "FEED-10")
        }
        self = kind
    }

    /// Heart, fire, clap: the order counts are listed in.
    public static func < (a: ReactionKind, b: ReactionKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
