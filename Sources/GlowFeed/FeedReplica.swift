import GlowCore
import GlowModel

/// One device's copy of the feed state it holds (FEED-21): registers of stances, items, goal
/// visibility and reactions, each merged by its own rule, and the seen markers and receipt times.
/// Merging is idempotent, commutative and associative, so replicas that have seen the same
/// writes hold the same state, in whatever order the writes came.
public struct FeedReplica: Sendable, Hashable {
    /// A stance of `from` toward `to`.
    public struct PairKey: Hashable, Sendable {
        /// The person whose stance it is.
        public let from: String
        /// The person it is toward.
        public let to: String

        /// The pair of `from` toward `to`.
        package init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// A goal of a person.
    public struct GoalKey: Hashable, Sendable {
        /// The goal's owner.
        public let owner: String
        /// The goal's id.
        public let goal: String

        /// The goal `goal` of `owner`.
        package init(owner: String, goal: String) {
            self.owner = owner
            self.goal = goal
        }
    }

    /// A reaction of `reactor` of `kind` on an item.
    public struct ReactionKey: Hashable, Sendable {
        /// The item's id.
        public let item: FeedItemID
        /// Who reacts.
        public let reactor: String
        /// The reaction's kind.
        public let kind: ReactionKind

        /// The key of `reactor`'s reaction of `kind` on `item`.
        public init(item: FeedItemID, reactor: String, kind: ReactionKind) {
            self.item = item
            self.reactor = reactor
            self.kind = kind
        }
    }

    /// A last-writer-wins register (FEED-3, FEED-7, FEED-8, FEED-11).
    public struct Register<Value: RegisterValue>: Hashable, Sendable {
        /// The value of the winning write.
        public let value: Value
        /// The winning write's stamp.
        public let stamp: Stamp

        /// The register after a write: the value of the greater stamp; for equal stamps, which
        /// FEED-1 rules out but a faulty device could send, the value that outranks the other
        /// (FEED-3), so replicas still agree.
        func merged(_ other: Register) -> Register {
            FeedReplica.wins(other, over: self) ? other : self
        }
    }

    /// Each person's stance registers toward each other person (FEED-3).
    public internal(set) var stances: [PairKey: StanceRegister] = [:]
    /// Items by id; a nil value is a withdrawn item.
    public internal(set) var items: [FeedItemID: Register<FeedItem?>] = [:]
    /// Goals' visibility (FEED-8).
    public internal(set) var visibility: [GoalKey: Register<Visibility>] = [:]
    /// Reactions, on or off (FEED-11).
    public internal(set) var reactions: [ReactionKey: Register<Bool>] = [:]
    /// Each person's seen marker: a relay receipt time, a max-register (FEED-14).
    public internal(set) var seen: [String: Int64] = [:]
    /// Each item's first receipt time at the relay (FEED-13), a min-register.
    public internal(set) var receipts: [FeedItemID: Int64] = [:]

    /// Indexes derived from the registers, kept as they change, so that a page costs what it
    /// shows rather than what the replica holds: each owner's items oldest first (FEED-16's order
    /// reversed, so that new items append), the
    /// people each person has a stance register with, and the owners of public goals.
    package var ordered: [String: [OrderKey]] = [:]
    var partners: [String: Set<String>] = [:]
    var publicGoals: [String: Set<String>] = [:]

    /// An empty replica.
    public init() {}

    /// Whether `register` replaces `existing` (FEED-3's rule, as ``Register/merged(_:)``).
    package static func wins<Value>(_ register: Register<Value>, over existing: Register<Value>?) -> Bool {
        guard let existing else { return true }
        if register.stamp != existing.stamp { return register.stamp > existing.stamp }
        return register.value.outranks(existing.value)
    }

    /// Writes `register` into item `id`'s register when it wins (FEED-21), with one lookup of the
    /// id; returns whether it won and the item it replaced. ``ordered`` is the caller's to keep.
    @inline(__always)
    mutating func take(_ register: Register<FeedItem?>, id: FeedItemID) -> (won: Bool, old: FeedItem?) {
        guard let index = items.index(forKey: id) else {
            items[id] = register
            return (true, nil)
        }
        guard Self.wins(register, over: items.values[index]) else { return (false, nil) }
        let old = items.values[index].value
        items.values[index] = register
        return (true, old)
    }

    /// Sets a goal's visibility register, keeping ``publicGoals``.
    mutating func setVisibility(_ register: Register<Visibility>, key: GoalKey) {
        visibility[key] = register
        if register.value == .public {
            publicGoals[key.owner, default: []].insert(key.goal)
        } else if publicGoals[key.owner]?.remove(key.goal) != nil, publicGoals[key.owner]?.isEmpty == true {
            publicGoals[key.owner] = nil
        }
    }

    /// Notes that two people have a stance register, keeping ``partners``.
    mutating func notePair(_ key: PairKey) {
        partners[key.from, default: []].insert(key.to)
        partners[key.to, default: []].insert(key.from)
    }

    /// The position of `key` in an owner's list, oldest first, or where it would go.
    static func position(of key: OrderKey, in list: [OrderKey]) -> Int {
        list.partitioningIndex { !OrderKey.isOlder($0, key) }
    }

    /// Two lists in feed order, oldest first, as one: a walk of both, not a sort.
    static func interleave(_ a: [OrderKey], _ b: [OrderKey]) -> [OrderKey] {
        var result: [OrderKey] = []
        result.reserveCapacity(a.count + b.count)
        var (i, j) = (0, 0)
        while i < a.count && j < b.count {
            if OrderKey.isOlder(b[j], a[i]) {
                result.append(b[j])
                j += 1
            } else {
                result.append(a[i])
                i += 1
            }
        }
        result += a[i...]
        result += b[j...]
        return result
    }

    static func insert(_ key: OrderKey, into list: inout [OrderKey]) {
        list.insert(key, at: position(of: key, in: list))
    }

    static func remove(_ key: OrderKey, from list: inout [OrderKey]) {
        let index = position(of: key, in: list)
        if index < list.count, list[index] == key { list.remove(at: index) }
    }

    // MARK: Writes (FEED-3, FEED-7, FEED-8, FEED-11, FEED-13, FEED-14)

    /// Takes in `from`'s stance toward `to`.
    public mutating func writeStance(_ stance: Stance, from: String, to: String, at stamp: Stamp) {
        let key = PairKey(from: from, to: to)
        stances[key, default: StanceRegister()].write(stance, at: stamp)
        notePair(key)
    }

    /// Takes in an item's content, or its withdrawal (nil), under `id`.
    public mutating func writeItem(_ item: FeedItem?, id: FeedItemID, at stamp: Stamp) {
        let (won, old) = take(Register(value: item, stamp: stamp), id: id)
        guard won, old != item else { return }
        if let old { Self.remove(OrderKey(old), from: &ordered[old.owner, default: []]) }
        if let item { Self.insert(OrderKey(item), into: &ordered[item.owner, default: []]) }
        if let old, ordered[old.owner]?.isEmpty == true { ordered[old.owner] = nil }
    }

    /// Takes in a goal's visibility.
    public mutating func writeVisibility(_ value: Visibility, owner: String, goal: String, at stamp: Stamp) {
        let key = GoalKey(owner: owner, goal: goal)
        let write = Register(value: value, stamp: stamp)
        setVisibility(visibility[key].map { $0.merged(write) } ?? write, key: key)
    }

    /// Takes in a reaction's state.
    public mutating func writeReaction(
        _ on: Bool, item: FeedItemID, reactor: String, kind: ReactionKind, at stamp: Stamp
    ) {
        let key = ReactionKey(item: item, reactor: reactor, kind: kind)
        let write = Register(value: on, stamp: stamp)
        reactions[key] = reactions[key].map { $0.merged(write) } ?? write
    }

    /// Raises `person`'s seen marker to `time`; a lower one changes nothing.
    public mutating func markSeen(_ person: String, upTo time: Int64) {
        seen[person] = max(seen[person] ?? .min, time)
    }

    /// Takes in an item's receipt time at the relay; the first one stays.
    public mutating func receive(item: FeedItemID, at time: Int64) {
        // One lookup for an id received the first time, the common case.
        if let earlier = receipts.updateValue(time, forKey: item), earlier < time { receipts[item] = earlier }
    }

    /// Judges each reaction register in turn: kept as it is, turned off with its stamp, or left
    /// out. The other registers stay as they are.
    package mutating func judgeReactions(_ judge: (ReactionKey, Register<Bool>) -> ReactionJudgement) {
        var judged: [ReactionKey: Register<Bool>] = [:]
        for (key, register) in reactions {
            switch judge(key, register) {
            case .kept: judged[key] = register
            case .turnedOff: judged[key] = Register(value: false, stamp: register.stamp)
            case .leftOut: break
            }
        }
        reactions = judged
    }

    /// What becomes of a reaction register (``judgeReactions(_:)``).
    package enum ReactionJudgement {
        case kept, turnedOff, leftOut
    }

    /// The replica that has seen every write of both.
    public mutating func merge(_ other: FeedReplica) {
        // Each register is looked at once; one that loses to what is here costs a comparison of
        // stamps, and only a winner is written (and indexed).
        for (key, register) in other.stances { mergeStance(register, for: key) }
        // Items: the winners first, then each owner's list once: the new keys sorted and woven into
        // the list in one walk, instead of inserting them one by one.
        var added: [String: [OrderKey]] = [:]
        var removed: [String: Set<FeedItemID>] = [:]
        items.reserveCapacity(max(items.count, other.items.count))
        // By index, comparing registers where they lie: copying each one out would retain its
        // item, a write to a cold object, for the many registers that lose.
        for index in other.items.indices {
            let old: FeedItem?
            let register: Register<FeedItem?>
            if let mine = items.index(forKey: other.items.keys[index]) {
                guard Self.wins(other.items.values[index], over: items.values[mine]) else { continue }
                register = other.items.values[index]
                old = items.values[mine].value
                items.values[mine] = register
            } else {
                register = other.items.values[index]
                old = nil
                items[other.items.keys[index]] = register
            }
            let new = register.value
            guard old != new else { continue }
            if let old { removed[old.owner, default: []].insert(old.key) }
            if let new { added[new.owner, default: []].append(OrderKey(new)) }
        }
        for owner in Set(added.keys).union(removed.keys) {
            // Taken out while it changes, so the list is not copied because the index holds it too.
            var list = ordered.removeValue(forKey: owner) ?? []
            if let gone = removed[owner] { list.removeAll { gone.contains($0.id) } }
            if var new = added[owner] {
                if list.isEmpty, let theirs = other.ordered[owner], theirs.count == new.count {
                    // Every item of an owner new here came from the other replica: its list is ours.
                    list = theirs
                } else if new.count <= 8 {
                    // A few keys (a register read from a store is merged one at a time) are put in
                    // place: moving the list's keys costs no reference counting, where weaving
                    // copies every key of it, and an owner of thousands of items made each merge
                    // of one of them cost thousands.
                    for key in new { Self.insert(key, into: &list) }
                } else {
                    new.sort { OrderKey.isOlder($0, $1) }
                    list = list.isEmpty ? new : Self.interleave(list, new)
                }
            }
            ordered[owner] = list.isEmpty ? nil : list
        }
        for (key, register) in other.visibility where Self.wins(register, over: visibility[key]) {
            setVisibility(register, key: key)
        }
        for (key, register) in other.reactions where Self.wins(register, over: reactions[key]) {
            reactions[key] = register
        }
        for (person, time) in other.seen { markSeen(person, upTo: time) }
        for (item, time) in other.receipts { receive(item: item, at: time) }
    }

    // MARK: Friends (FEED-4, FEED-5)

    /// Where `a` stands toward `b`.
    public func friendState(_ a: String, _ b: String) -> FriendState {
        FriendState(
            mine: stances[PairKey(from: a, to: b)] ?? StanceRegister(),
            theirs: stances[PairKey(from: b, to: a)] ?? StanceRegister())
    }

    /// Does `action` of `actor` toward `other`, stamped `stamp`, when FEED-5 allows it.
    ///
    /// - Throws: ``FeedError/Code/notFound`` toward someone who blocks the actor (but to block);
    ///   ``FeedError/Code/invalidFriendAction`` for any other move the table does not have.
    public mutating func act(_ action: FriendAction, from actor: String, toward other: String, at stamp: Stamp)
        throws(FeedError)
    {
        guard actor != other else {
            throw FeedError(.invalidFriendAction, "a person cannot \(action.rawValue) themself", rule: "FEED-5")
        }
        let state = friendState(actor, other)
        if state == .blocked && action != .block {
            throw FeedError(.notFound, "there is nobody to \(action.rawValue) by that id", rule: "FEED-5")
        }
        guard action.allowed.contains(state) else {
            throw FeedError(
                .invalidFriendAction, "\(action.rawValue) is not possible while the pair is '\(state.rawValue)'",
                rule: "FEED-5")
        }
        writeStance(action.writes, from: actor, to: other, at: stamp)
    }

    // MARK: Reading (FEED-9 ... FEED-20)

    /// The item `id` as it stands, unless withdrawn.
    public func item(_ id: FeedItemID) -> FeedItem? { items[id]?.value ?? nil }

    /// Whether `viewer` may see `item` now (FEED-9).
    public func canSee(_ viewer: String, _ item: FeedItem) -> Bool {
        canSee(viewer, goal: GoalKey(owner: item.owner, goal: item.goal))
    }

    /// Whether `viewer` may see the items of `goal` (FEED-9): the goal's own, or neither blocks
    /// the other and it is public, or friends-only and they are friends.
    public func canSee(_ viewer: String, goal: GoalKey) -> Bool {
        if viewer == goal.owner { return true }
        let state = friendState(viewer, goal.owner)
        guard state != .blocking && state != .blocked else { return false }
        switch visibility[goal]?.value ?? .private {
        case .public: return true
        case .friends: return state == .friends
        case .private: return false
        }
    }

    /// The item `id` if `viewer` may see it.
    ///
    /// - Throws: ``FeedError/Code/notFound`` otherwise: an item one may not see and one that does
    ///   not exist look the same.
    public func visibleItem(_ id: FeedItemID, to viewer: String) throws(FeedError) -> FeedItem {
        guard let item = item(id), canSee(viewer, item) else {
            throw FeedError(.notFound, "there is no item '\(id.text.prefix(200))' to show", rule: "FEED-9")
        }
        return item
    }

    /// The reactions on an item as `viewer` sees them (FEED-12).
    public struct ReactionSummary: Sendable, Hashable {
        /// The number of reactors of each kind.
        public let counts: [ReactionKind: Int]
        /// The kinds `viewer` reacted with.
        public let mine: Set<ReactionKind>
    }

    /// The reactions on item `id`: per kind, the reactors whose reaction is on and who may see
    /// the item now, and the viewer's own.
    ///
    /// - Throws: ``FeedError/Code/notFound`` when `viewer` may not see the item.
    public func reactions(on id: FeedItemID, viewer: String) throws(FeedError) -> ReactionSummary {
        let item = try visibleItem(id, to: viewer)
        var counts: [ReactionKind: Int] = [:]
        var mine: Set<ReactionKind> = []
        for (key, register) in reactions where key.item == id && register.value && canSee(key.reactor, item) {
            counts[key.kind, default: 0] += 1
            if key.reactor == viewer { mine.insert(key.kind) }
        }
        return ReactionSummary(counts: counts, mine: mine)
    }

    /// Sets `reactor`'s reaction of `kind` on item `id` (FEED-11).
    ///
    /// - Throws: ``FeedError/Code/notFound`` for an item the reactor may not see;
    ///   ``FeedError/Code/ownItem`` for the reactor's own item.
    public mutating func react(_ kind: ReactionKind, on id: FeedItemID, by reactor: String, _ on: Bool, at stamp: Stamp)
        throws(FeedError)
    {
        let item = try visibleItem(id, to: reactor)
        guard item.owner != reactor else {
            throw FeedError(.ownItem, "people cheer others' items, not their own", rule: "FEED-11")
        }
        writeReaction(on, item: id, reactor: reactor, kind: kind, at: stamp)
    }

    /// Whether `reactor`'s reaction of `kind` on `id` is on.
    public func isOn(_ kind: ReactionKind, on id: FeedItemID, by reactor: String) -> Bool {
        reactions[ReactionKey(item: id, reactor: reactor, kind: kind)]?.value ?? false
    }

    /// The unread badge of `viewer` (FEED-15): others' items the viewer may see, received after
    /// the viewer's seen marker.
    public func badge(_ viewer: String) -> Int {
        let marker = seen[viewer] ?? .min
        var count = 0
        for (id, register) in items {
            guard let item = register.value, item.owner != viewer, let received = receipts[id], received > marker,
                canSee(viewer, item)
            else { continue }
            count += 1
        }
        return count
    }

    /// A page of the feed (FEED-16 ... FEED-19).
    public struct Page: Sendable, Hashable {
        /// The items, newest first.
        public let items: [FeedItem]
        /// The cursor of the next page, when an item follows the last one.
        public let next: FeedCursor?
    }

    /// The items `viewer` may see, newest first by (time, id), after `cursor`, at most `limit`
    /// (clamped to 100).
    ///
    /// - Throws: ``FeedError/Code/invalidLimit`` for a limit below 1.
    public func page(for viewer: String, limit: Int, after cursor: FeedCursor? = nil) throws(FeedError) -> Page {
        guard limit >= 1 else {
            throw FeedError(.invalidLimit, "a page holds 1 to 100 items, not \(limit)", rule: "FEED-17")
        }
        let size = min(limit, FeedCursor.pageLimit)
        // Only the viewer, the people they have a stance with, and owners of public goals can
        // show the viewer anything (FEED-9): merge their lists, each already in feed order.
        var owners: Set<String> = [viewer]
        owners.formUnion(partners[viewer] ?? [])
        owners.formUnion(publicGoals.keys)
        var heads = Heap()
        for owner in owners {
            guard let list = ordered[owner], !list.isEmpty else { continue }
            // Lists are oldest first: walk each down from its newest item the cursor allows.
            let start = (cursor?.olderCount(in: list) ?? list.count) - 1
            if start >= 0 { heads.push(.init(list: list, index: start)) }
        }
        var page: [FeedItem] = []
        var more = false
        while var head = heads.pop() {
            if let item = self.item(head.list[head.index].id), canSee(viewer, item) {
                if page.count == size {
                    more = true
                    break
                }
                page.append(item)
            }
            head.index -= 1
            if head.index >= 0 { heads.push(head) }
        }
        return Page(items: page, next: more ? page.last.map(FeedCursor.init(after:)) : nil)
    }
}

extension FeedReplica {
    /// The writes of this replica stamped after `watermark` (FEED-24): every
    /// register whose stamp is greater, a stance register when its stance or its last "no" is,
    /// and every seen marker and receipt time (they are few, and their merge needs no stamp).
    /// Applying it (``merge(_:)``) to a replica that already holds every write up to `watermark`
    /// gives what merging the whole replica would.
    public func changes(since watermark: Stamp?) -> FeedReplica {
        guard let watermark else { return self }
        var delta = FeedReplica()
        delta.stances = stances.filter { _, register in
            (register.stamp.map { $0 > watermark } ?? false) || (register.lastNo.map { $0 > watermark } ?? false)
        }
        delta.items = items.filter { $0.value.stamp > watermark }
        delta.visibility = visibility.filter { $0.value.stamp > watermark }
        delta.reactions = reactions.filter { $0.value.stamp > watermark }
        delta.seen = seen
        delta.receipts = receipts
        return delta
    }

    /// The greatest counter among the replica's stamps (a stance's last "no" included), nil when it
    /// holds none: what FEED-25 bounds.
    public var greatestCounter: UInt32? {
        var greatest: UInt32?
        func note(_ stamp: Stamp?) {
            if let stamp { greatest = Swift.max(greatest ?? 0, stamp.counter) }
        }
        for register in stances.values {
            note(register.stamp)
            note(register.lastNo)
        }
        for register in items.values { note(register.stamp) }
        for register in visibility.values { note(register.stamp) }
        for register in reactions.values { note(register.stamp) }
        return greatest
    }

    /// The greatest stamp of any write this replica holds: the watermark a peer that has
    /// applied all of it can ask for changes since.
    public var latestStamp: Stamp? {
        var latest: Stamp?
        for register in stances.values { latest = .max(latest, .max(register.stamp, register.lastNo)) }
        for register in items.values { latest = .max(latest, register.stamp) }
        for register in visibility.values { latest = .max(latest, register.stamp) }
        for register in reactions.values { latest = .max(latest, register.stamp) }
        return latest
    }
}

/// The heads of the owners' lists, newest first: a binary heap on FEED-16's order.
struct Heap {
    struct Head {
        let list: [OrderKey]
        var index: Int
    }

    private var heads: [Head] = []

    private static func above(_ a: Head, _ b: Head) -> Bool { OrderKey.isOlder(b.list[b.index], a.list[a.index]) }

    mutating func push(_ head: Head) {
        heads.append(head)
        var child = heads.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.above(heads[child], heads[parent]) else { break }
            heads.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Head? {
        guard !heads.isEmpty else { return nil }
        heads.swapAt(0, heads.count - 1)
        let top = heads.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var best = parent
            if left < heads.count, Self.above(heads[left], heads[best]) { best = left }
            if right < heads.count, Self.above(heads[right], heads[best]) { best = right }
            guard best != parent else { break }
            heads.swapAt(parent, best)
            parent = best
        }
        return top
    }
}

/// An item's place in the feed's order (FEED-16): its time and id, all the order looks at.
package struct OrderKey: Hashable, Sendable {
    package let time: Int64
    package let id: FeedItemID

    init(_ item: FeedItem) {
        self.init(time: item.time, id: item.key)
    }

    init(time: Int64, id: FeedItemID) {
        self.time = time
        self.id = id
    }

    /// Whether `a` comes after `b` in the feed: older by time, then by id as UTF-8 bytes.
    static func isOlder(_ a: OrderKey, _ b: OrderKey) -> Bool {
        a.time != b.time ? a.time < b.time : a.id < b.id
    }
}
