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
}
