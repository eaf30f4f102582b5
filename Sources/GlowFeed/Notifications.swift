import GlowModel

/// Reactions to one of the owner's items, grouped per item, local Day and kind (FEED-20):
/// "Ana and 2 others cheered 🔥 your 30-day Meditate streak".
public struct ReactionNotice: Sendable, Hashable {
    /// The item reacted to.
    public let item: FeedItem
    /// The owner's local Day the reactions were made on.
    public let day: Day
    /// The reaction's kind.
    public let kind: ReactionKind
    /// The reactors, the latest first.
    public let reactors: [String]
    /// The stamp of the latest reaction: notices are ordered by it, newest first.
    public let latest: Stamp

    /// The notice's sentence, with `name` giving each reactor's display name.
    public func text(name: (String) -> String) -> String {
        let others = reactors.count - 1
        let who =
            others == 0
            ? name(reactors[0]) : "\(name(reactors[0])) and \(others) \(others == 1 ? "other" : "others")"
        return "\(who) cheered \(kind.symbol) your \(Self.subject(item))"
    }

    /// What the sentence says was cheered.
    static func subject(_ item: FeedItem) -> String {
        switch item.kind {
        case .milestone: "\(item.milestone ?? 0)-day \(item.title) streak"
        case .checkIn: "\(item.title) check-in"
        case .goalStarted: "new goal \(item.title)"
        case .goalCompleted: "finished \(item.title)"
        }
    }
}

extension FeedReplica {
    /// The notices of `owner` (FEED-20): every reaction that is on, on an item of theirs that is
    /// not withdrawn, by a reactor who may see it now, grouped by item, the owner's local Day of
    /// the reaction's wall time (through `boundary`) and kind; newest group first.
    public func notices(for owner: String, boundary: DayBoundary) -> [ReactionNotice] {
        struct GroupKey: Hashable {
            let item: FeedItemID
            let day: Day
            let kind: ReactionKind
        }
        var groups: [GroupKey: [(reactor: String, stamp: Stamp)]] = [:]
        for (key, register) in reactions where register.value {
            guard let item = item(key.item), item.owner == owner, canSee(key.reactor, item),
                let instant = try? Instant(millisecondsSince1970: register.stamp.wall)
            else { continue }
            groups[GroupKey(item: key.item, day: boundary.day(containing: instant), kind: key.kind), default: []]
                .append((key.reactor, register.stamp))
        }
        return groups.map { key, reactions in
            let ordered = reactions.sorted { $0.stamp > $1.stamp }
            return ReactionNotice(
                item: item(key.item)!, day: key.day, kind: key.kind, reactors: ordered.map(\.reactor),
                latest: ordered[0].stamp)
        }
        .sorted { $0.latest > $1.latest }
    }
}
