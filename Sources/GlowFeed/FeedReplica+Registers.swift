/// Register-level helpers shared by the replica's readers: the wire, social data and the relay.
extension FeedReplica {
    /// Whether either of two people blocks the other.
    package func blocks(_ a: String, _ b: String) -> Bool {
        let state = friendState(a, b)
        return state == .blocking || state == .blocked
    }

    /// Takes in a whole stance register.
    package mutating func mergeStance(_ register: StanceRegister, for key: PairKey) {
        if stances[key] == nil { notePair(key) }
        stances[key, default: StanceRegister()].merge(register)
    }

    /// The writes of this replica that `person` made: their stances, items, goals' visibility,
    /// reactions and seen marker (what a device sends the relay, FEED-25).
    public func authored(by person: String, since watermark: Stamp?) -> FeedReplica {
        let changes = changes(since: watermark)
        var delta = FeedReplica()
        delta.stances = changes.stances.filter { $0.key.from == person }
        delta.items = changes.items.filter { id, register in
            register.value.map { $0.owner == person } ?? (id.owner == person)
        }
        delta.visibility = changes.visibility.filter { $0.key.owner == person }
        delta.reactions = changes.reactions.filter { $0.key.reactor == person }
        delta.seen = changes.seen.filter { $0.key == person }
        return delta
    }

    /// The most registers one delta may hold (FEED-25): a relay refuses more
    /// (`too_many_writes`), so one request's work is bounded.
    public static let maxDeltaWrites = 1_000

    /// How many registers the replica holds: stances, items, visibility, reactions, seen markers
    /// and receipt times, each one.
    public var registerCount: Int {
        stances.count + items.count + visibility.count + reactions.count + seen.count + receipts.count
    }

    /// ``authored(by:since:)`` in pieces of at most `limit` registers (FEED-25's limit), oldest
    /// writes first: each register in the piece of its latest stamp, the seen marker in the
    /// last. Each piece comes with the watermark to keep once the relay has taken it, so a sync
    /// cut short goes on from there. Registers of one stamp stay in one piece.
    public func authoredPieces(by person: String, since watermark: Stamp?, atMost limit: Int = maxDeltaWrites)
        -> [(delta: FeedReplica, through: Stamp?)]
    {
        let all = authored(by: person, since: watermark)
        guard all.registerCount > Swift.max(1, limit) else {
            return all == FeedReplica() ? [] : [(all, all.latestStamp)]
        }
        enum Key {
            case stance(PairKey), item(FeedItemID), visibility(GoalKey), reaction(ReactionKey)
        }
        var stamped: [(stamp: Stamp, key: Key)] = []
        for (key, register) in all.stances {
            if let stamp = Stamp?.max(register.stamp, register.lastNo) { stamped.append((stamp, .stance(key))) }
        }
        for (key, register) in all.items { stamped.append((register.stamp, .item(key))) }
        for (key, register) in all.visibility { stamped.append((register.stamp, .visibility(key))) }
        for (key, register) in all.reactions { stamped.append((register.stamp, .reaction(key))) }
        stamped.sort { $0.stamp < $1.stamp }
        var pieces: [(delta: FeedReplica, through: Stamp?)] = []
        var start = 0
        while start < stamped.count {
            var end = Swift.min(start + Swift.max(1, limit), stamped.count)
            // Never between two registers of one stamp: the watermark could not say which went.
            while end < stamped.count, stamped[end].stamp == stamped[end - 1].stamp { end += 1 }
            var piece = FeedReplica()
            for (_, key) in stamped[start..<end] {
                switch key {
                case .stance(let key): piece.stances[key] = all.stances[key]
                case .item(let key): piece.items[key] = all.items[key]
                case .visibility(let key): piece.visibility[key] = all.visibility[key]
                case .reaction(let key): piece.reactions[key] = all.reactions[key]
                }
            }
            pieces.append((piece, stamped[end - 1].stamp))
            start = end
        }
        if !all.seen.isEmpty {
            if let last = pieces.last, last.delta.registerCount < Swift.max(1, limit) {
                pieces[pieces.count - 1].delta.seen = all.seen
            } else {
                var marker = FeedReplica()
                marker.seen = all.seen
                pieces.append((marker, pieces.last?.through ?? watermark))
            }
        }
        return pieces
    }
}
