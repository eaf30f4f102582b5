import Synchronization

/// What the relay keeps (FEED-25): the replica of everyone's writes it accepted, the sequence
/// number of each register's last change, and its receipt clock.
public struct FeedRelayState: Sendable {
    /// Everyone's accepted writes, merged.
    public var replica = FeedReplica()
    /// The sequence number of the last change of each register, by its key.
    public var sequences: [RelayKey: UInt64] = [:]
    /// The last sequence number given.
    public var sequence: UInt64 = 0
    /// The last receipt time given (FEED-13).
    public var lastReceipt: Int64 = 0

    /// An empty relay.
    public init() {}
}

/// A register of the relay's replica, by kind and key.
public enum RelayKey: Hashable, Sendable {
    case stance(FeedReplica.PairKey)
    case item(String)
    case visibility(FeedReplica.GoalKey)
    case reaction(FeedReplica.ReactionKey)
    case seen(String)
}

/// Where a relay keeps its state: in memory here, a database in a deployment. `update` runs its
/// body alone; the relay's bodies check before they change, so a body that throws changed nothing.
public protocol FeedRelayStore: Sendable {
    /// Runs `body` on the state, alone.
    func update<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T
}

/// A relay store in memory.
public final class InMemoryFeedRelayStore: FeedRelayStore {
    private let state = Mutex(FeedRelayState())

    /// An empty store.
    public init() {}

    /// Runs `body` under the store's lock.
    public func update<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T {
        try state.withLock { (state) throws(FeedError) -> T in try body(&state) }
    }
}

/// The server's logic of the feed as a library (FEED-25 ... FEED-27): it accepts each person's
/// own writes, gives new items their receipt times, and answers each viewer with what changed
/// since their cursor that they may see at that moment, and nothing else.
public final class FeedRelay: Sendable {
    private let store: any FeedRelayStore

    /// A relay over `store`.
    public init(store: any FeedRelayStore = InMemoryFeedRelayStore()) {
        self.store = store
    }

    /// Accepts `person`'s writes in `delta` at the relay's time `now` (milliseconds since 1970)
    /// and returns the relay's sequence after them (FEED-25, FEED-26).
    ///
    /// - Throws: ``FeedError/Code/notAuthor`` when the delta holds a write that is not
    ///   `person`'s own, or a receipt time; ``FeedError/Code/ownItem`` for a reaction to one's own
    ///   item. Then nothing of the delta is kept.
    @discardableResult
    public func submit(_ delta: FeedReplica, from person: String, now: Int64) throws(FeedError) -> UInt64 {
        try Self.checkAuthor(delta, person)
        return try store.update { (state) throws(FeedError) -> UInt64 in
            // Sequence numbers go in a fixed order (FEED-25): stances, items, visibility,
            // reactions, the seen marker, each by key, so receipt times do not depend on hashing.
            var changed: [RelayKey] = []
            for (key, register) in delta.stances.sorted(by: { ($0.key.from, $0.key.to) < ($1.key.from, $1.key.to) })
            where state.replica.stances[key]
                != {
                    var merged = state.replica.stances[key] ?? StanceRegister()
                    merged.merge(register)
                    return merged
                }()
            {
                changed.append(.stance(key))
            }
            for (id, register) in delta.items.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                let existing = state.replica.items[id]
                if (existing?.merged(register) ?? register) != existing { changed.append(.item(id)) }
            }
            for (key, register) in delta.visibility.sorted(by: {
                ($0.key.owner, $0.key.goal) < ($1.key.owner, $1.key.goal)
            }) {
                let existing = state.replica.visibility[key]
                if (existing?.merged(register) ?? register) != existing { changed.append(.visibility(key)) }
            }
            for (key, register) in delta.reactions.sorted(by: {
                ($0.key.item, $0.key.reactor, $0.key.kind.rawValue) < (
                    $1.key.item, $1.key.reactor, $1.key.kind.rawValue
                )
            }) {
                let existing = state.replica.reactions[key]
                if (existing?.merged(register) ?? register) != existing { changed.append(.reaction(key)) }
            }
            if let mark = delta.seen[person], mark > (state.replica.seen[person] ?? .min) {
                changed.append(.seen(person))
            }
            state.replica.merge(delta)
            for key in changed {
                state.sequence += 1
                state.sequences[key] = state.sequence
                if case .item(let id) = key, state.replica.receipts[id] == nil {
                    // FEED-26: a strictly increasing receipt clock, whatever the wall clock does.
                    state.lastReceipt = max(now, state.lastReceipt + 1)
                    state.replica.receive(item: id, at: state.lastReceipt)
                }
            }
            return state.sequence
        }
    }

    /// What `viewer` may learn since `cursor` (FEED-27), and the cursor to ask from next time.
    public func changes(for viewer: String, since cursor: UInt64) -> (delta: FeedReplica, cursor: UInt64) {
        (try? store.update { (state) throws(FeedError) in
            (Self.fanOut(state, to: viewer, since: cursor), state.sequence)
        })
            ?? (FeedReplica(), cursor)
    }

    /// A copy of the relay's replica, for tests and inspection.
    public var replica: FeedReplica {
        (try? store.update { (state) throws(FeedError) in state.replica }) ?? FeedReplica()
    }

    /// FEED-25: every write is the sender's own.
    static func checkAuthor(_ delta: FeedReplica, _ person: String) throws(FeedError) {
        let foreign =
            delta.stances.keys.contains { $0.from != person }
            || delta.items.contains { id, register in
                !id.hasPrefix(person + "/") || register.value.map { $0.owner != person || $0.id != id } ?? false
            }
            || delta.visibility.keys.contains { $0.owner != person }
            || delta.reactions.keys.contains { $0.reactor != person }
            || delta.seen.keys.contains { $0 != person } || !delta.receipts.isEmpty
        guard !foreign else {
            throw FeedError(
                .notAuthor, "a person sends only their own writes, and never receipt times", rule: "FEED-25")
        }
        for key in delta.reactions.keys where key.item.hasPrefix(person + "/") {
            throw FeedError(.ownItem, "people cheer others' items, not their own", rule: "FEED-25")
        }
    }

    /// FEED-27: the registers `viewer` may learn, changed after `cursor`, as the state is now.
    static func fanOut(_ state: FeedRelayState, to viewer: String, since cursor: UInt64) -> FeedReplica {
        let replica = state.replica
        func changed(_ key: RelayKey) -> Bool { (state.sequences[key] ?? 0) > cursor }
        // Owners whose items the viewer may see differently since the cursor: a stance of a pair
        // with the viewer, or a goal's visibility, changed.
        var affected: Set<String> = []
        for key in replica.stances.keys where changed(.stance(key)) && (key.from == viewer || key.to == viewer) {
            affected.insert(key.from == viewer ? key.to : key.from)
        }
        for key in replica.visibility.keys where changed(.visibility(key)) { affected.insert(key.owner) }
        var delta = FeedReplica()
        var visibleItems: [String: FeedItem] = [:]
        for (id, register) in replica.items {
            guard let item = register.value else {
                // A withdrawal is sent to whoever may still see its owner at all.
                if let owner = id.split(separator: "/").first.map(String.init),
                    changed(.item(id)) || affected.contains(owner), owner == viewer || !replica.blocks(viewer, owner)
                {
                    delta.writeItem(nil, id: id, at: register.stamp)
                }
                continue
            }
            guard replica.canSee(viewer, item) else { continue }
            visibleItems[id] = item
            if changed(.item(id)) || affected.contains(item.owner) {
                delta.writeItem(item, id: id, at: register.stamp)
                if let receipt = replica.receipts[id] { delta.receive(item: id, at: receipt) }
            }
        }
        // Reactions on items the viewer may see, and the stances that decide whether each reactor
        // counts (FEED-12): between the item's owner and the reactor.
        // A pair's stances go with each reaction sent, and again whenever they change.
        var pairs: Set<FeedReplica.PairKey> = []
        var sentPairs: Set<FeedReplica.PairKey> = []
        for (key, register) in replica.reactions {
            guard let item = visibleItems[key.item] else { continue }
            let both: [FeedReplica.PairKey] = [
                .init(from: item.owner, to: key.reactor), .init(from: key.reactor, to: item.owner),
            ]
            pairs.formUnion(both)
            if changed(.reaction(key)) || affected.contains(item.owner) || changed(.item(key.item)) {
                delta.writeReaction(
                    register.value, item: key.item, reactor: key.reactor, kind: key.kind, at: register.stamp)
                sentPairs.formUnion(both)
            }
        }
        for (key, register) in replica.stances
        where ((key.from == viewer || key.to == viewer || pairs.contains(key)) && changed(.stance(key)))
            || sentPairs.contains(key)
        {
            delta.mergeStance(register, for: key)
        }
        for (key, register) in replica.visibility
        where (changed(.visibility(key)) || affected.contains(key.owner))
            && (key.owner == viewer || !replica.blocks(viewer, key.owner))
        {
            delta.writeVisibility(register.value, owner: key.owner, goal: key.goal, at: register.stamp)
        }
        if let mark = replica.seen[viewer] { delta.markSeen(viewer, upTo: mark) }
        return delta
    }
}

extension FeedReplica {
    /// Whether either of two people blocks the other.
    func blocks(_ a: String, _ b: String) -> Bool {
        let state = friendState(a, b)
        return state == .blocking || state == .blocked
    }

    /// Takes in a whole stance register.
    mutating func mergeStance(_ register: StanceRegister, for key: PairKey) {
        var single = FeedReplica()
        single.stances[key] = register
        merge(single)
    }

    /// The writes of this replica that `person` made: their stances, items, goals' visibility,
    /// reactions and seen marker (what a device sends the relay, FEED-25).
    public func authored(by person: String, since watermark: Stamp?) -> FeedReplica {
        let changes = changes(since: watermark)
        var delta = FeedReplica()
        delta.stances = changes.stances.filter { $0.key.from == person }
        delta.items = changes.items.filter { id, register in
            register.value.map { $0.owner == person } ?? id.hasPrefix(person + "/")
        }
        delta.visibility = changes.visibility.filter { $0.key.owner == person }
        delta.reactions = changes.reactions.filter { $0.key.reactor == person }
        delta.seen = changes.seen.filter { $0.key == person }
        return delta
    }
}
