import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol

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
    /// The devices registered for pushes and the pushes waiting (REMIND-14 ... REMIND-17).
    public var pushes = PushOutbox()
    /// Every change in order: what a viewer's cursor counts (FEED-27).
    public var log: [(sequence: UInt64, key: RelayKey)] = []
    /// Indexes for answering from the log: withdrawn item ids, reaction keys and goals, by owner
    /// or item; and the items each reactor reacted to, by owner and reactor.
    var withdrawnByOwner: [String: Set<FeedItemID>] = [:]
    var reactionsByItem: [FeedItemID: Set<FeedReplica.ReactionKey>] = [:]
    var goalsByOwner: [String: Set<String>] = [:]
    var reactedItems: [String: [String: Set<FeedItemID>]] = [:]
    /// For each visibility register, the sequence numbers at which it last stopped being public
    /// and last stopped being shared (FEED-25), which FEED-27 reads.
    public var ends: [FeedReplica.GoalKey: VisibilityEnds] = [:]

    /// Keeps the indexes for a changed register.
    mutating func index(_ key: RelayKey) {
        switch key {
        case .item(let id):
            let owner = String(id.owner)
            if replica.items[id]?.value == nil {
                withdrawnByOwner[owner, default: []].insert(id)
            } else {
                withdrawnByOwner[owner]?.remove(id)
            }
        case .reaction(let reaction):
            reactionsByItem[reaction.item, default: []].insert(reaction)
            reactedItems[String(reaction.item.owner), default: [:]][reaction.reactor, default: []].insert(
                reaction.item)
        case .visibility(let goal):
            goalsByOwner[goal.owner, default: []].insert(goal.goal)
        case .stance, .seen:
            break
        }
    }

    /// An empty relay.
    public init() {}

    /// Drops the log entries a later entry of the same register supersedes. Fan-out (FEED-27)
    /// reads each register as it is now, so only a register's last sequence number decides
    /// whether a viewer's cursor is behind it: every answer stays the same, and the log keeps one
    /// entry per register however often each is written. The relay does this by itself whenever
    /// the log has grown to twice the registers it names.
    public mutating func compactLog() {
        log.removeAll { sequences[$0.key] != $0.sequence }
    }
}

/// The sequence numbers at which a visibility register last stopped being `public`, and last
/// stopped being `friends` or `public` (FEED-25): 0 when it never did.
public struct VisibilityEnds: Hashable, Sendable {
    /// The sequence number of the change that last made it other than `public`.
    public var publicUntil: UInt64 = 0
    /// The sequence number of the change that last made it `private`.
    public var sharedUntil: UInt64 = 0

    /// Ends at these sequence numbers.
    public init(publicUntil: UInt64 = 0, sharedUntil: UInt64 = 0) {
        self.publicUntil = publicUntil
        self.sharedUntil = sharedUntil
    }

    /// Takes in a change of the register from `old` to `new` at `sequence`.
    mutating func note(_ old: Visibility, _ new: Visibility, at sequence: UInt64) {
        if old == .public && new != .public { publicUntil = sequence }
        if old != .private && new == .private { sharedUntil = sequence }
    }
}

/// The relay's answer to a viewer's request for changes (FEED-27): what they may learn, the cursor
/// to keep, and on a page with more after it, the page to ask for at once.
public struct RelayAnswer: Sendable, Equatable {
    /// The registers the viewer may learn.
    public var delta: FeedReplica
    /// The cursor to ask from next time: on a page, the one asked from, kept until the last page.
    public var cursor: UInt64
    /// The page to ask for at once, on a page with more after it.
    public var next: RelayPage?

    /// An answer of `delta`, with `cursor` to keep and `next` to ask for.
    public init(delta: FeedReplica, cursor: UInt64, next: RelayPage?) {
        (self.delta, self.cursor, self.next) = (delta, cursor, next)
    }

    /// Whether this is a page with more after it.
    public var more: Bool { next != nil }
}

/// A register of the relay's replica, by kind and key.
public enum RelayKey: Hashable, Sendable {
    /// A stance register: one person's toward another.
    case stance(FeedReplica.PairKey)
    /// An item register.
    case item(FeedItemID)
    /// A goal's visibility register.
    case visibility(FeedReplica.GoalKey)
    /// A reaction register: one person's reaction of one kind on one item.
    case reaction(FeedReplica.ReactionKey)
    /// A person's seen marker.
    case seen(String)
}

/// Where a relay keeps its state: in memory here, a database in a deployment. An update runs its
/// body alone on the part of the state its load names (``RelayLoad``): a store without a
/// database holds the whole state and gives it whole; a database's store reads the rows the load
/// names by index, and writes back what the body changed. The relay's bodies check before they
/// change, so a body that throws changed nothing the store keeps.
public protocol FeedRelayStore: Sendable {
    /// Runs `body` alone on the part of the state `load` names, and keeps what it changed; when
    /// `reading` is given, in a transaction that first confirms it, a read of another store on the
    /// same database (``StoreReading``): nil, with nothing run and nothing kept, when that store's
    /// clock has moved since. `writing` says the body may change the state, so that a store can
    /// take its write lock first. With the body's result comes the relay's last sequence number
    /// once the update is kept (FEED-25): the last its changes were given, or when it changed
    /// nothing, the last the relay had. A store that numbers changes as they commit, not as the
    /// body makes them, says the numbers it gave.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of a database this store is not
    ///   on, or when the state cannot be read or kept; the body's error, with nothing kept.
    func update<T>(
        loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> (result: T, sequence: UInt64)?

    /// Whether this store is on the database `reading` is of, so that its transactions can
    /// confirm it.
    func confirms(_ reading: StoreReading) -> Bool
}

extension FeedRelayStore {
    /// Runs `body` on the whole state, alone, confirming nothing: for inspection and tests.
    ///
    /// - Throws: as ``update(loading:writing:confirming:_:)``.
    public func update<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T {
        StoreReading.answer(unconfirmed: try update(loading: .whole, writing: true, confirming: nil, body)).result
    }

    /// False: a store without a database shares none with another store.
    public func confirms(_ reading: StoreReading) -> Bool { false }
}

/// A relay store in memory: the whole state, whatever the load.
public final class InMemoryFeedRelayStore: FeedRelayStore {
    private let state = Locked(FeedRelayState())

    /// An empty store.
    public init() {}

    /// Runs `body` on the whole state under the store's lock.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading (this store is on no database);
    ///   the body's error.
    public func update<T>(
        loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> (result: T, sequence: UInt64)? {
        if let reading {
            throw FeedError.storage("this relay store is on no database, so it cannot confirm a reading of \(reading)")
        }
        return try state.withLock { (state) throws(FeedError) -> (result: T, sequence: UInt64) in
            (try body(&state), state.sequence)
        }
    }
}

/// The server's logic of the feed as a library (FEED-25 ... FEED-27): it accepts each person's
/// own writes, gives new items their receipt times, and answers each viewer with what changed
/// since their cursor that they may see at that moment, and nothing else.
public final class FeedRelay: Sendable {
    private let store: any FeedRelayStore

    /// How far apart pushes of one topic to one device are, in ms (REMIND-16).
    public let pushWindow: Int64
    /// Whether the relay wakes people's devices with background pushes (REMIND-19 ... REMIND-21).
    public let backgroundPushes: Bool
    /// The most registers a delta may hold (FEED-25).
    public let maxDeltaWrites: Int
    /// The most bytes an answer of changes holds, as a `RelayResponse`, unless one log entry's
    /// changes alone are more (FEED-27): 1 MiB unless set.
    public let maxAnswerBytes: Int

    /// A relay over `store`, whose pushes of a topic to a device are at least `pushWindow` ms
    /// apart (15 minutes unless given), taking deltas of at most `maxDeltaWrites` registers
    /// (FEED-25's 1,000 unless given lower; a greater number is held to it), answering changes in
    /// pages of about `maxAnswerBytes` (FEED-27), and waking devices with background pushes when
    /// `backgroundPushes` is true (REMIND-19; glow-server's default).
    public init(
        store: any FeedRelayStore = InMemoryFeedRelayStore(), pushWindow: Int64 = PushOutbox.standardWindow,
        maxDeltaWrites: Int = FeedReplica.maxDeltaWrites, maxAnswerBytes: Int = 1 << 20,
        backgroundPushes: Bool = false
    ) {
        self.store = store
        self.pushWindow = pushWindow
        self.backgroundPushes = backgroundPushes
        self.maxDeltaWrites = Swift.max(1, Swift.min(maxDeltaWrites, FeedReplica.maxDeltaWrites))
        self.maxAnswerBytes = Swift.max(1, maxAnswerBytes)
    }

    /// Accepts `person`'s writes in `delta` at the relay's time `now` (milliseconds since 1970)
    /// and returns the relay's sequence after them (FEED-25, FEED-26).
    ///
    /// - Throws: ``FeedError/Code/notAuthor`` when the delta holds a write that is not
    ///   `person`'s own, or a receipt time; ``FeedError/Code/ownItem`` for a reaction to one's own
    ///   item. Then nothing of the delta is kept.
    @discardableResult
    public func submit(_ delta: FeedReplica, from person: String, now: Int64) throws(FeedError) -> UInt64 {
        try accept(delta, from: person, now: now).sequence
    }

    /// What one accepted delta did: the relay's sequence after it, and the changes that may be
    /// pushed to people (REMIND-15).
    public struct Accepted: Sendable, Hashable {
        /// The relay's sequence after the delta (FEED-25).
        public let sequence: UInt64
        /// The items that got their first receipt time from the delta (FEED-26), in sequence order.
        public let received: [FeedItemID]
        /// The reaction registers the delta changed, in sequence order.
        public let reactions: [FeedReplica.ReactionKey]
    }

    /// Accepts `person`'s writes as ``submit(_:from:now:)`` does, and says what they changed.
    ///
    /// - Throws: as ``submit(_:from:now:)``; then nothing of the delta is kept.
    public func accept(_ delta: FeedReplica, from person: String, now: Int64) throws(FeedError) -> Accepted {
        try StoreReading.answer(unconfirmed: accept(delta, from: person, now: now, confirming: nil))
    }

    /// ``accept(_:from:now:)`` in a transaction that confirms `reading` first: nil, with nothing
    /// kept, when the reading no longer holds (``FeedRelayStore/write(confirming:_:)``).
    func accept(_ delta: FeedReplica, from person: String, now: Int64, confirming reading: StoreReading?)
        throws(FeedError) -> Accepted?
    {
        try Self.checkAuthor(delta, person, limit: maxDeltaWrites)
        let answer = try store.update(loading: .accept(delta, from: person), writing: true, confirming: reading) {
            (state) throws(FeedError) -> Accepted in
            try Self.checkOpen(state, person)
            try Self.checkStamps(delta, now: now)
            return Self.merge(
                delta, from: person, now: now, into: &state, window: pushWindow, background: backgroundPushes)
        }
        // The numbers as the store gave them.
        return answer.map {
            Accepted(sequence: $0.sequence, received: $0.result.received, reactions: $0.result.reactions)
        }
    }

    /// Whether the relay's store is on the database `reading` is of, so that its transactions can
    /// confirm it (``respond(to:from:now:limits:confirming:)``).
    public func confirms(_ reading: StoreReading) -> Bool { store.confirms(reading) }

    /// `body` through the store on the part of the state `load` names: a write or a read,
    /// confirming `reading` first when there is one.
    private func run<T>(
        _ load: RelayLoad, writing: Bool, confirming reading: StoreReading? = nil,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> T? {
        try store.update(loading: load, writing: writing, confirming: reading, body)?.result
    }

    /// FEED-31: an erased person's writes, reads and devices are refused.
    static func checkOpen(_ state: FeedRelayState, _ person: String) throws(FeedError) {
        guard state.pushes.closed.contains(person) else { return }
        throw FeedError(
            .personErased, "the account of \(person) was deleted, so the relay takes nothing more from them",
            rule: "FEED-31")
    }

    /// Erases `person` at the relay's time `now` (FEED-31), in one change of its state: every
    /// item of theirs withdrawn, every stance of theirs set to none and every reaction of theirs
    /// turned off, by writes stamped after everything they wrote; their devices removed; and the
    /// person closed, so a write of theirs that reaches the relay later is refused rather than
    /// outliving the account. Erasing an erased person changes nothing.
    ///
    /// - Returns: the relay's sequence after the erasure.
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot keep it; then nothing
    ///   changed.
    @discardableResult
    public func erase(_ person: String, now: Int64) throws(FeedError) -> UInt64 {
        let erased = try store.update(loading: .erasure(of: person), writing: true, confirming: nil) {
            (state) throws(FeedError) in
            let written = state.replica.authored(by: person, since: nil)
            let latest = written.latestStamp?.wall ?? 0
            // After everything they wrote, so each withdrawal wins its register (FEED-1).
            let stamp = try Stamp(
                wall: Swift.min(Swift.max(now, latest + 1), Stamp.maximumWall), counter: 0, device: "glow-server")
            var withdrawal = FeedReplica()
            for (id, register) in written.items where register.value != nil {
                withdrawal.writeItem(nil, id: id, at: stamp)
            }
            for (key, register) in written.stances where register.stance != .none {
                withdrawal.writeStance(.none, from: key.from, to: key.to, at: stamp)
            }
            for (key, register) in written.reactions where register.value {
                withdrawal.writeReaction(false, item: key.item, reactor: key.reactor, kind: key.kind, at: stamp)
            }
            _ = Self.merge(
                withdrawal, from: person, now: now, into: &state, window: pushWindow, background: backgroundPushes)
            state.pushes.close(person)
        }
        return StoreReading.answer(unconfirmed: erased).sequence
    }

    /// Merges `person`'s checked writes into `state` (FEED-25, FEED-26) and feeds the push outbox
    /// (REMIND-15): the one way a delta enters the relay.
    static func merge(
        _ delta: FeedReplica, from person: String, now: Int64, into state: inout FeedRelayState,
        window pushWindow: Int64, background: Bool
    ) -> Accepted {
        // Sequence numbers go in a fixed order (FEED-25): stances, items, visibility,
        // reactions, the seen marker, each by key, so receipt times do not depend on hashing.
        // The reactions are judged after the rest of the delta is in, so that a stance sent with
        // a cheer counts for it.
        var reactionWrites = delta
        var delta = delta
        delta.judgeReactions { _, _ in .leftOut }
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
        for (id, register) in delta.items.sorted(by: { $0.key < $1.key }) {
            if FeedReplica.wins(register, over: state.replica.items[id]) { changed.append(.item(id)) }
        }
        // What each changed visibility register held before, for its ends (FEED-25).
        var before: [FeedReplica.GoalKey: Visibility] = [:]
        for (key, register) in delta.visibility.sorted(by: {
            ($0.key.owner, $0.key.goal) < ($1.key.owner, $1.key.goal)
        }) where FeedReplica.wins(register, over: state.replica.visibility[key]) {
            changed.append(.visibility(key))
            before[key] = state.replica.visibility[key]?.value ?? .private
        }
        let seenChanged = delta.seen[person].map { $0 > (state.replica.seen[person] ?? .min) } ?? false
        state.replica.merge(delta)
        reactionWrites.judgeReactions { key, register in Self.judge(key, register, in: state.replica) }
        for (key, register) in reactionWrites.reactions.sorted(by: {
            ($0.key.item, $0.key.reactor, $0.key.kind.rawValue) < (
                $1.key.item, $1.key.reactor, $1.key.kind.rawValue
            )
        }) {
            if FeedReplica.wins(register, over: state.replica.reactions[key]) { changed.append(.reaction(key)) }
        }
        if seenChanged { changed.append(.seen(person)) }
        state.replica.merge(reactionWrites)
        var received: [FeedItemID] = []
        var reactions: [FeedReplica.ReactionKey] = []
        for key in changed {
            state.sequence += 1
            state.sequences[key] = state.sequence
            state.log.append((state.sequence, key))
            state.index(key)
            if case .item(let id) = key, state.replica.receipts[id] == nil {
                // FEED-26: a strictly increasing receipt clock, whatever the wall clock does.
                state.lastReceipt = max(now, state.lastReceipt + 1)
                state.replica.receive(item: id, at: state.lastReceipt)
                received.append(id)
            }
            if case .reaction(let reaction) = key { reactions.append(reaction) }
            if case .visibility(let goal) = key, let old = before[goal] {
                state.ends[goal, default: VisibilityEnds()].note(
                    old, state.replica.visibility[goal]?.value ?? .private, at: state.sequence)
            }
        }
        if state.log.count >= 2 * state.sequences.count + 64 { state.compactLog() }
        // REMIND-15: the events of the write wait in the outbox, in the same transaction.
        state.pushes.accept(
            items: received, reactions: reactions, replica: state.replica, now: now, window: pushWindow,
            background: background)
        return Accepted(sequence: state.sequence, received: received, reactions: reactions)
    }

    /// FEED-25: a reaction register turned on whose reactor may not see its item (FEED-9,
    /// FEED-11), or on an item id the relay holds no register of, is taken in turned off, with its
    /// stamp: it counts nowhere, and as off outranks on at an equal stamp (FEED-3), the device
    /// that sent it, raced by a hide, ends with it off too once the item shows again. A missing
    /// item and a hidden one are judged alike, so the answer tells a guesser nothing; one turned
    /// off is taken as it is.
    static func judge(
        _ key: FeedReplica.ReactionKey, _ register: FeedReplica.Register<Bool>, in replica: FeedReplica
    ) -> FeedReplica.ReactionJudgement {
        guard register.value else { return .kept }
        // An item the relay holds no register of counts as one the reactor may not see: both are
        // taken in turned off, so that neither the answer nor the relay's numbers tell a missing
        // item from a hidden one.
        if let item = replica.items[key.item]?.value, replica.canSee(key.reactor, item) { return .kept }
        return .turnedOff
    }

    /// Registers `device` for pushes at the relay's time `now` (REMIND-14). A token another
    /// person holds moves only with `proof`, the code of a proof push sent to it for this caller;
    /// without it, a proof push is queued (``PushOutbox/register(_:proof:now:)``).
    ///
    /// - Returns: whether the device is registered; false when the token stays another's.
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot keep it.
    @discardableResult
    public func register(_ device: PushDevice, proof: String? = nil, now: Int64) throws(FeedError) -> Bool {
        try StoreReading.answer(unconfirmed: register(device, proof: proof, now: now, confirming: nil))
    }

    /// ``register(_:proof:now:)`` in a transaction that confirms `reading` first: nil, with
    /// nothing kept, when the reading no longer holds (``FeedRelayStore/write(confirming:_:)``).
    ///
    /// - Throws: as ``register(_:proof:now:)``.
    public func register(_ device: PushDevice, proof: String?, now: Int64, confirming reading: StoreReading?)
        throws(FeedError) -> Bool?
    {
        try run(.device(token: device.token, person: device.person), writing: true, confirming: reading) {
            (state) throws(FeedError) in
            try Self.checkOpen(state, device.person)
            return state.pushes.register(device, proof: proof, now: now)
        }
    }

    /// Notes that `person`'s sync log kept a push of `records` records made in `session`, at the
    /// relay's time `now`: the person's devices registered in other sessions get a background
    /// event (REMIND-19), when the relay sends background pushes; nothing otherwise.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot keep the events.
    public func noteSync(of person: String, session: String?, records: Int, now: Int64) throws(FeedError) {
        guard backgroundPushes, records > 0 else { return }
        let window = pushWindow
        let kept: Void? = try run(.devices(of: person), writing: true) { (state) throws(FeedError) in
            state.pushes.acceptSync(person: person, session: session, records: records, now: now, window: window)
        }
        StoreReading.answer(unconfirmed: kept)
    }

    /// Removes `person`'s device of `token` (whoever's when `person` is nil); a token registered
    /// by someone else, or by nobody, is left as it is (REMIND-14).
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot keep the removal.
    public func removeDevice(token: String, of person: String?) throws(FeedError) {
        StoreReading.answer(unconfirmed: try removeDevice(token: token, of: person, confirming: nil))
    }

    /// ``removeDevice(token:of:)`` in a transaction that confirms `reading` first: nil, with
    /// nothing kept, when the reading no longer holds (``FeedRelayStore/write(confirming:_:)``).
    ///
    /// - Throws: as ``removeDevice(token:of:)``.
    public func removeDevice(token: String, of person: String?, confirming reading: StoreReading?) throws(FeedError)
        -> Void?
    {
        try run(.device(token: token, person: person), writing: true, confirming: reading) {
            (state) throws(FeedError) in
            if let held = state.pushes.devices[token], person == nil || held.person == person {
                state.pushes.remove(token: token)
            }
        }
    }

    /// The devices registered for pushes, by token.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot be read.
    public func pushDevices() throws(FeedError) -> [PushDevice] {
        let devices = try run(.allDevices, writing: false) { (state) throws(FeedError) in
            state.pushes.devices.values.sorted { $0.token.utf8.lexicographicallyPrecedes($1.token.utf8) }
        }
        return StoreReading.answer(unconfirmed: devices)
    }

    /// Removes every device of `person`, with what waited for them (an account deleted).
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot keep the removal.
    public func removeDevices(of person: String) throws(FeedError) {
        let removed: Void? = try run(.devices(of: person), writing: true) { (state) throws(FeedError) in
            state.pushes.removeDevices(of: person)
        }
        StoreReading.answer(unconfirmed: removed)
    }

    /// The pushes due at `now` (REMIND-17), taken out of the outbox in one write, so of several
    /// processes asking at once each push goes out from one. `names` gives the name the relay
    /// knows for a person, nil for none.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot keep that they were
    ///   taken: then none is given.
    public func duePushes(at now: Int64, names: (String) -> String?) throws(FeedError) -> [Push] {
        let window = pushWindow
        let due = try run(.due(at: now, window: window), writing: true) { (state) throws(FeedError) in
            state.pushes.due(at: now, replica: state.replica, window: window, names: names)
        }
        return StoreReading.answer(unconfirmed: due)
    }

    /// What `viewer` may learn since `cursor` (FEED-27), and the cursor to ask from next time;
    /// past ``maxAnswerBytes``, a page of it, with `next`, the page to ask for at once.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot be read: never an empty
    ///   answer with the same cursor, which would look like "nothing new".
    public func changes(for viewer: String, since cursor: UInt64) throws(FeedError) -> RelayAnswer {
        try StoreReading.answer(unconfirmed: changes(for: viewer, asking: .since(cursor), confirming: nil))
    }

    /// The page of an answer to `viewer` that the page before it gave as its `next` (FEED-27).
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot be read.
    public func changes(for viewer: String, page: RelayPage) throws(FeedError) -> RelayAnswer {
        try StoreReading.answer(unconfirmed: changes(for: viewer, asking: .page(page), confirming: nil))
    }

    /// What a viewer asks for: the changes since a cursor, or a page of an answer.
    enum Asking {
        case since(UInt64)
        case page(RelayPage)
    }

    /// ``changes(for:since:)`` or ``changes(for:page:)`` in a transaction that confirms `reading`
    /// first: nil when the reading no longer holds (``FeedRelayStore/update(confirming:_:)``).
    func changes(for viewer: String, asking: Asking, confirming reading: StoreReading?) throws(FeedError)
        -> RelayAnswer?
    {
        let cap = maxAnswerBytes
        let load: RelayLoad =
            switch asking {
            case .since(let cursor): .changes(viewer: viewer, since: cursor)
            case .page(let page): .changes(viewer: viewer, since: page.since, until: page.until)
            }
        return try run(load, writing: false, confirming: reading) { (state) throws(FeedError) in
            try Self.checkOpen(state, viewer)
            let last = state.sequence
            switch asking {
            case .since(let cursor):
                // A cursor the relay never gave starts the viewer over (FEED-27).
                return Self.page(
                    state, to: viewer, RelayPage(since: cursor > last ? 0 : cursor, after: 0, until: last), cap: cap)
            case .page(let page) where page.since <= page.until && page.after <= page.until && page.until <= last:
                return Self.page(state, to: viewer, page, cap: cap)
            case .page:
                // Nor does a page the relay never gave.
                return Self.page(state, to: viewer, RelayPage(since: 0, after: 0, until: last), cap: cap)
            }
        }
    }

    /// FEED-27's answer, in pages of at most `cap` bytes as a `RelayResponse`: the registers of the
    /// answer since `asked.since` as if the log ended at `asked.until`, those numbered after
    /// `asked.after`, up to the greatest number whose page fits (the least when none does). A page
    /// costs the answer's fan-out and the encoding of about its own bytes, never of the whole answer:
    /// the registers are weighed one by one, in number order, until the bound.
    static func page(_ state: FeedRelayState, to viewer: String, _ asked: RelayPage, cap: Int) -> RelayAnswer {
        let whole = fanOut(state, to: viewer, since: asked.since, through: asked.until)
        // The answer's registers after the page before, in the order of their current numbers; one
        // numbered after `until` is in no page (it comes with the answer from `until`).
        var keys: [(number: UInt64, key: RelayKey)] = []
        func add(_ key: RelayKey) {
            let number = state.sequences[key] ?? asked.until
            if number > asked.after && number <= asked.until { keys.append((number, key)) }
        }
        for key in whole.stances.keys { add(.stance(key)) }
        for id in whole.items.keys { add(.item(id)) }
        for key in whole.visibility.keys { add(.visibility(key)) }
        for key in whole.reactions.keys { add(.reaction(key)) }
        keys.sort { $0.number < $1.number }
        /// Copies register `key` of the answer into `delta`, an item with its receipt time.
        func copy(_ key: RelayKey, into delta: inout FeedReplica) {
            switch key {
            case .stance(let key): if let register = whole.stances[key] { delta.mergeStance(register, for: key) }
            case .item(let id):
                if let register = whole.items[id] { delta.writeItem(register.value, id: id, at: register.stamp) }
                if let receipt = whole.receipts[id] { delta.receive(item: id, at: receipt) }
            case .visibility(let key):
                if let register = whole.visibility[key] {
                    delta.writeVisibility(register.value, owner: key.owner, goal: key.goal, at: register.stamp)
                }
            case .reaction(let key):
                if let register = whole.reactions[key] {
                    delta.writeReaction(
                        register.value, item: key.item, reactor: key.reactor, kind: key.kind, at: register.stamp)
                }
            case .seen: break
            }
        }
        /// The first `count` registers, and the viewer's seen marker.
        func part(_ count: Int) -> FeedReplica {
            var delta = FeedReplica()
            for (person, mark) in whole.seen { delta.markSeen(person, upTo: mark) }
            for (_, key) in keys.prefix(count) { copy(key, into: &delta) }
            return delta
        }
        // FEED-28 writes a delta's registers as fields side by side, so the bytes of each written
        // alone add up to the delta's: weigh them in order while they may still fit.
        var (count, bytes) = (0, part(0).wireEncoded().count)
        while count < keys.count {
            var alone = FeedReplica()
            copy(keys[count].key, into: &alone)
            bytes += alone.wireEncoded().count
            if bytes > cap { break }
            count += 1
        }
        // Then the page that ends at a number and whose response fits, with what a response adds
        // around its delta: one number less at a time, and at least the first.
        guard !keys.isEmpty else { return RelayAnswer(delta: part(0), cursor: asked.until, next: nil) }
        count = Swift.max(1, count)
        while true {
            // Registers of one number (there is none but one) stay on one page.
            while count < keys.count, keys[count].number == keys[count - 1].number { count += 1 }
            let delta = part(count)
            // The last page answers with the relay's cursor; one before it names the next.
            let next =
                count < keys.count
                ? RelayPage(since: asked.since, after: keys[count - 1].number, until: asked.until) : nil
            let answer = RelayAnswer(delta: delta, cursor: next == nil ? asked.until : asked.since, next: next)
            let size = RelayResponse.changes(delta, cursor: answer.cursor, next: next).wireEncoded().count
            if size <= cap || keys[count - 1].number == keys[0].number { return answer }
            count -= 1
            while count > 1, keys[count].number == keys[count - 1].number { count -= 1 }
        }
    }

    /// A copy of the relay's replica, for tests and inspection.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the store cannot be read.
    public var replica: FeedReplica {
        get throws(FeedError) {
            StoreReading.answer(
                unconfirmed: try run(.whole, writing: false) { (state) throws(FeedError) in state.replica })
        }
    }

    /// FEED-25: no stamp further ahead of the relay's time than the skew allows, so no write can
    /// outlive its author's erasure (FEED-31) or exhaust a device's clock (FEED-2).
    static func checkStamps(_ delta: FeedReplica, now: Int64) throws(FeedError) {
        // A counter no device's clock reaches (FEED-2): a forger's, which would leave every clock
        // that took it in nearer its end.
        if let counter = delta.greatestCounter, counter > Stamp.maximumAcceptedCounter {
            throw FeedError(
                .stampAhead,
                "a write's stamp has the counter \(counter), more than any device's clock reaches "
                    + "(\(Stamp.maximumAcceptedCounter)), and is refused",
                rule: "FEED-25")
        }
        guard let latest = delta.latestStamp else { return }
        let (ahead, overflow) = latest.wall.subtractingReportingOverflow(now)
        guard overflow || ahead > Stamp.maximumAhead else { return }
        throw FeedError(
            .stampAhead,
            "a write is stamped more than \(Stamp.maximumAhead) ms ahead of the relay's clock, and is refused",
            rule: "FEED-25")
    }

    /// FEED-25: at most `limit` registers, none longer than a register may be, then every write
    /// the sender's own.
    static func checkAuthor(_ delta: FeedReplica, _ person: String, limit: Int) throws(FeedError) {
        let count = delta.registerCount
        guard count <= limit else {
            throw FeedError(
                .tooManyWrites, "a delta holds at most \(limit) registers, not \(count): send them in pieces",
                rule: "FEED-25")
        }
        if let (name, bytes) = delta.registerLonger(than: FeedReplica.maxRegisterBytes) {
            // The name says which register, not what it holds: the message goes back to its sender.
            throw FeedError(
                .registerTooLarge,
                "\(name.prefix(200)) takes \(bytes) bytes; a register takes at most \(FeedReplica.maxRegisterBytes)",
                rule: "FEED-25")
        }
        let foreign =
            delta.stances.keys.contains { $0.from != person }
            || delta.items.contains { id, register in
                id.owner != person || register.value.map { $0.owner != person || $0.key != id } ?? false
            }
            || delta.visibility.keys.contains { $0.owner != person }
            || delta.reactions.keys.contains { $0.reactor != person }
            || delta.seen.keys.contains { $0 != person } || !delta.receipts.isEmpty
        guard !foreign else {
            throw FeedError(
                .notAuthor, "a person sends only their own writes, and never receipt times", rule: "FEED-25")
        }
        for key in delta.reactions.keys where key.item.owner == person {
            throw FeedError(.ownItem, "people cheer others' items, not their own", rule: "FEED-25")
        }
    }

    /// FEED-27: the registers `viewer` may learn, changed after `cursor`, as the state is now.
    /// It reads the log from the cursor on and the indexes of the owners it affects, never the
    /// whole state: one new item for a thousand friends costs a thousand small answers.
    static func fanOut(
        _ state: FeedRelayState, to viewer: String, since cursor: UInt64, through last: UInt64 = .max
    ) -> FeedReplica {
        // The log is in sequence order: find where the cursor leaves off, and where the page ends.
        // Only registers' current numbers count (FEED-27): an entry a register had before it changed
        // again is none, and the register counts as changed at its current number alone.
        let entries = state.log[
            state.log.partitioningIndex { $0.sequence > cursor }..<state.log.partitioningIndex { $0.sequence > last }
        ].filter { state.sequences[$0.key] == $0.sequence }
        var affected: Set<String> = []
        for entry in entries {
            switch entry.key {
            case .stance(let key) where key.from == viewer || key.to == viewer:
                affected.insert(key.from == viewer ? key.to : key.from)
            case .visibility(let key): affected.insert(key.owner)
            default: break
            }
        }
        var delta = FeedReplica()
        /// Whether the viewer may see the items of `goal` now (FEED-27 (2) and (5), as FEED-9).
        func maySee(_ goal: FeedReplica.GoalKey) -> Bool { state.replica.canSee(viewer, goal: goal) }
        /// Whether the viewer's device may hold the items of `goal` it may not see now: it synced
        /// before, and the goal was public, or shared while they are friends, after `since` (the
        /// cursor, or 0 for an affected owner, FEED-27 (5)).
        func mayHold(_ goal: FeedReplica.GoalKey, since: UInt64) -> Bool {
            // A device that never synced holds nothing.
            guard cursor > 0 else { return false }
            let relation = state.replica.friendState(viewer, goal.owner)
            guard relation != .blocking && relation != .blocked else { return false }
            let ends = state.ends[goal] ?? VisibilityEnds()
            return ends.publicUntil > since || (relation == .friends && ends.sharedUntil > since)
        }
        /// The goal of an item id.
        func goal(of id: FeedItemID) -> FeedReplica.GoalKey {
            FeedReplica.GoalKey(owner: String(id.owner), goal: String(id.goal))
        }
        // The helpers take the delta as a parameter: a local function that captured the variable
        // would put it in a box on the heap, once per viewer.
        func sendStance(_ key: FeedReplica.PairKey, _ delta: inout FeedReplica) {
            if let register = state.replica.stances[key] { delta.mergeStance(register, for: key) }
        }
        func sendReaction(_ key: FeedReplica.ReactionKey, owner: String, _ delta: inout FeedReplica) {
            guard let register = state.replica.reactions[key] else { return }
            delta.writeReaction(
                register.value, item: key.item, reactor: key.reactor, kind: key.kind, at: register.stamp)
            sendStance(.init(from: owner, to: key.reactor), &delta)
            sendStance(.init(from: key.reactor, to: owner), &delta)
        }
        /// Sends item `id` as FEED-27 (1) and (2) say; returns the item when the viewer may see it.
        @discardableResult
        func sendItem(_ id: FeedItemID, _ delta: inout FeedReplica) -> FeedItem? {
            guard let register = state.replica.items[id] else { return nil }
            guard let item = register.value else {
                if maySee(goal(of: id)) { delta.writeItem(nil, id: id, at: register.stamp) }
                return nil
            }
            guard state.replica.canSee(viewer, item) else { return nil }
            delta.writeItem(item, id: id, at: register.stamp)
            if let receipt = state.replica.receipts[id] { delta.receive(item: id, at: receipt) }
            return item
        }
        // (1), (2), and (3) for the items sent: every reaction on them. Sending twice is merging
        // twice, so the items sent are remembered only when affected owners may send them again.
        var itemsSent: Set<FeedItemID> = []
        for entry in entries {
            if case .item(let id) = entry.key, !itemsSent.contains(id), let item = sendItem(id, &delta) {
                if !affected.isEmpty { itemsSent.insert(id) }
                for key in state.reactionsByItem[id] ?? [] { sendReaction(key, owner: item.owner, &delta) }
            }
        }
        for owner in affected {
            for key in (state.replica.ordered[owner] ?? []).reversed() {
                guard !itemsSent.contains(key.id), let item = state.replica.item(key.id),
                    state.replica.canSee(viewer, item)
                else {
                    continue
                }
                sendItem(item.key, &delta)
                itemsSent.insert(item.key)
                for key in state.reactionsByItem[item.key] ?? [] { sendReaction(key, owner: owner, &delta) }
            }
            for id in state.withdrawnByOwner[owner] ?? [] { sendItem(id, &delta) }
        }
        for entry in entries {
            switch entry.key {
            case .reaction(let key):
                // (3): a changed reaction on an item the viewer may see now.
                if let item = state.replica.item(key.item), state.replica.canSee(viewer, item) {
                    sendReaction(key, owner: item.owner, &delta)
                }
            case .stance(let key):
                // (4): the viewer's own pairs, and the pairs that decide whether a reactor counts.
                if key.from == viewer || key.to == viewer {
                    sendStance(key, &delta)
                } else {
                    // Either may be the owner: a reactor's block of the owner counts as the owner's of
                    // the reactor does.
                    let items = (state.reactedItems[key.from]?[key.to] ?? []).union(
                        state.reactedItems[key.to]?[key.from] ?? [])
                    if items.contains(where: { id in
                        state.replica.item(id).map { state.replica.canSee(viewer, $0) } ?? false
                    }) {
                        sendStance(key, &delta)
                    }
                }
            case .visibility(let key):
                // (5)
                if maySee(key) || mayHold(key, since: cursor), let register = state.replica.visibility[key] {
                    delta.writeVisibility(register.value, owner: key.owner, goal: key.goal, at: register.stamp)
                }
            case .item, .seen:
                break
            }
        }
        for owner in affected {
            for goal in state.goalsByOwner[owner] ?? [] {
                let key = FeedReplica.GoalKey(owner: owner, goal: goal)
                if maySee(key) || mayHold(key, since: 0), let register = state.replica.visibility[key] {
                    delta.writeVisibility(register.value, owner: owner, goal: goal, at: register.stamp)
                }
            }
        }
        // (6)
        if let mark = state.replica.seen[viewer] { delta.markSeen(viewer, upTo: mark) }
        return delta
    }
}

// MARK: - Keeping a relay's state in a database

extension RelayKey {
    /// A text that names the register uniquely, for a store's primary key (its parts joined by
    /// U+001F, which ids and names do not hold).
    public var storageKey: String {
        switch self {
        case .stance(let key): "stance\u{1F}\(key.from)\u{1F}\(key.to)"
        case .item(let id): "item\u{1F}\(id.text)"
        case .visibility(let key): "visibility\u{1F}\(key.owner)\u{1F}\(key.goal)"
        case .reaction(let key): "reaction\u{1F}\(key.item.text)\u{1F}\(key.reactor)\u{1F}\(key.kind.rawValue)"
        case .seen(let person): "seen\u{1F}\(person)"
        }
    }

    /// The columns a store indexes a register's row by, so that a request reads the rows it
    /// concerns (issue 43): its kind; its first party (a stance's `from`, an item's or a visibility
    /// register's owner, the owner of a reaction's item, a seen marker's person); its second (a
    /// stance's `to`, an item's or a visibility register's goal, a reaction's reactor); and a
    /// reaction's item.
    public var indexColumns: (kind: String, party: String, other: String?, item: String?) {
        switch self {
        case .stance(let key): ("stance", key.from, key.to, nil)
        case .item(let id): ("item", String(id.owner), String(id.goal), nil)
        case .visibility(let key): ("visibility", key.owner, key.goal, nil)
        case .reaction(let key): ("reaction", String(key.item.owner), key.reactor, key.item.text)
        case .seen(let person): ("seen", person, nil, nil)
        }
    }

    /// The key of the one register a delta of ``FeedRelayState/StoredRegister`` holds.
    init?(holding delta: FeedReplica) {
        if let key = delta.stances.keys.first {
            self = .stance(key)
        } else if let id = delta.items.keys.first {
            self = .item(id)
        } else if let key = delta.visibility.keys.first {
            self = .visibility(key)
        } else if let key = delta.reactions.keys.first {
            self = .reaction(key)
        } else if let person = delta.seen.keys.first {
            self = .seen(person)
        } else {
            return nil
        }
    }
}

extension FeedRelayState {
    /// One register of the relay as a database keeps it: its key, its last sequence number, and
    /// the register as a one-register delta (an item's with its receipt time), whose canonical
    /// bytes (FEED-28) a store writes.
    public struct StoredRegister: Sendable, Hashable {
        /// The register's key.
        public let key: RelayKey
        /// Its last sequence number (FEED-25).
        public let sequence: UInt64
        /// The register, as a delta.
        public let delta: FeedReplica
        /// A visibility register's ends (FEED-25); zeros for other registers.
        public let ends: VisibilityEnds

        /// A stored register read back, with its ends when it is a visibility register; nil when
        /// the delta holds no register.
        public init?(sequence: UInt64, delta: FeedReplica, ends: VisibilityEnds = VisibilityEnds()) {
            guard let key = RelayKey(holding: delta) else { return nil }
            self.init(key: key, sequence: sequence, delta: delta, ends: ends)
        }

        /// Whether it is a visibility register that is `public` now: a column a store indexes,
        /// for the public goals every viewer may see (FEED-9).
        public var isPublic: Bool {
            if case .visibility(let key) = key { return delta.visibility[key]?.value == .public }
            return false
        }

        init(key: RelayKey, sequence: UInt64, delta: FeedReplica, ends: VisibilityEnds = VisibilityEnds()) {
            self.key = key
            self.sequence = sequence
            self.delta = delta
            self.ends = ends
        }
    }

    /// The registers changed after sequence number `after`, each as it is now: what a store
    /// writes after an update, so that writing is in proportion to the change.
    public func registers(after: UInt64) -> [StoredRegister] {
        return log[log.partitioningIndex { $0.sequence > after }...].compactMap { entry in
            guard sequences[entry.key] == entry.sequence else { return nil }
            var delta = FeedReplica()
            switch entry.key {
            case .stance(let key):
                guard let register = replica.stances[key] else { return nil }
                delta.mergeStance(register, for: key)
            case .item(let id):
                guard let register = replica.items[id] else { return nil }
                delta.writeItem(register.value, id: id, at: register.stamp)
                if let receipt = replica.receipts[id] { delta.receive(item: id, at: receipt) }
            case .visibility(let key):
                guard let register = replica.visibility[key] else { return nil }
                delta.writeVisibility(register.value, owner: key.owner, goal: key.goal, at: register.stamp)
            case .reaction(let key):
                guard let register = replica.reactions[key] else { return nil }
                delta.writeReaction(
                    register.value, item: key.item, reactor: key.reactor, kind: key.kind, at: register.stamp)
            case .seen(let person):
                guard let mark = replica.seen[person] else { return nil }
                delta.markSeen(person, upTo: mark)
            }
            var ends = VisibilityEnds()
            if case .visibility(let goal) = entry.key { ends = self.ends[goal] ?? VisibilityEnds() }
            return StoredRegister(key: entry.key, sequence: entry.sequence, delta: delta, ends: ends)
        }
    }

    /// The state a store's registers and receipt clock give back: the replica, the sequence
    /// numbers, a log of one entry per register, and the indexes fan-out reads.
    public init(restoring registers: [StoredRegister], lastReceipt: Int64) {
        self.init()
        restore(registers, lastReceipt: lastReceipt)
    }

    /// Takes in registers another process of the relay stored since this state was read, each
    /// as it is now, and the receipt clock: what a store shared by several processes reads to
    /// catch up, in proportion to what changed. A register already held at a later sequence
    /// number is left as it is; one at number 0, a change a store holds before it has a number,
    /// is merged into the replica and named in no log entry.
    public mutating func restore(_ registers: [StoredRegister], lastReceipt: Int64) {
        for register in registers.sorted(by: { $0.sequence < $1.sequence }) {
            guard register.sequence > 0 else {
                // A change a store holds that has no number yet: in the replica, not in the log.
                replica.merge(register.delta)
                index(register.key)
                continue
            }
            guard (sequences[register.key] ?? 0) < register.sequence else { continue }
            replica.merge(register.delta)
            sequences[register.key] = register.sequence
            log.append((register.sequence, register.key))
            sequence = max(sequence, register.sequence)
            index(register.key)
            if case .visibility(let goal) = register.key, register.ends != VisibilityEnds() {
                ends[goal] = register.ends
            }
        }
        self.lastReceipt = max(self.lastReceipt, lastReceipt)
        if log.count >= 2 * sequences.count + 64 { compactLog() }
    }
}

extension FeedError {
    /// A relay store could not keep what an update changed; the update did not happen.
    public static func storage(_ message: String) -> FeedError {
        FeedError(.storageFailed, message, rule: "FEED-25")
    }
}
