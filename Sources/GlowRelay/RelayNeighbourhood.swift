import GlowFeed

/// Where the relay's rows are read by index, one request at a time (issue 43): a database's table
/// of registers, each with its last sequence number (the relay's log as well: one row per
/// register, indexed by its number), and the push outbox's rows. A request reads the rows it
/// concerns, never the whole relay. Every method reads inside the caller's transaction.
public protocol RelayRowSource {
    /// The relay's last sequence number (FEED-25): the greatest a register holds, 0 for none.
    func lastSequence() throws(FeedError) -> UInt64
    /// The receipt clock (FEED-26).
    func lastReceipt() throws(FeedError) -> Int64
    /// How many registers changed after `sequence`, counting no further than `limit`.
    func changedCount(after sequence: UInt64, atMost limit: Int) throws(FeedError) -> Int
    /// The registers whose last sequence number is after `sequence`.
    func registers(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// The registers of `keys` that exist.
    func registers(_ keys: Set<RelayKey>) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every item register of `owners` (withdrawn ones too), and every visibility register of theirs.
    func registers(of owners: Set<String>) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every visibility register of `owners`.
    func visibility(of owners: Set<String>) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every visibility register that changed after `sequence`.
    func visibility(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every visibility register that is `public` now.
    func publicGoals() throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every item register of the goals `goals`.
    func items(of goals: Set<FeedReplica.GoalKey>) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every stance register from or to `person`.
    func stances(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every stance register from or to `person` whose other party has a device registered for
    /// pushes: the only people a write of `person`'s may push to (REMIND-15).
    func stancesTowardDevices(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every reaction register on the items `items`.
    func reactions(on items: Set<FeedItemID>) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every reaction register by `reactor`.
    func reactions(by reactor: String) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// Every reaction register by `reactor` on an item of `owner`.
    func reactions(by reactor: String, onItemsOf owner: String) throws(FeedError) -> [FeedRelayState.StoredRegister]
    /// The push outbox's rows of `people`: their devices and whether they are closed, and the
    /// groups, last pushes and proofs of those devices' tokens.
    func pushRows(of people: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])]
    /// The push outbox's rows of `tokens`: their devices, groups, last pushes and proofs.
    func pushRows(ofTokens tokens: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])]
    /// The push outbox's rows that may be due at `now`: groups to send at or before it, last
    /// pushes at or before `horizon`, and every proof.
    func duePushRows(at now: Int64, horizon: Int64) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])]
    /// Every device row.
    func deviceRows() throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])]
    /// Every row of the push outbox.
    func allPushRows() throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])]
}

/// What an operation of the relay reads: the part of its state a store loads for it (issue 43).
/// The relay's rules run on that part exactly as on the whole, because it holds every register
/// and row they look at; a store without a database holds the whole and ignores this.
public enum RelayLoad: Sendable {
    /// Everything (inspection and tests).
    case whole
    /// FEED-27's answer to a viewer since a cursor, or a page of it as if the log ended at `until`.
    case changes(viewer: String, since: UInt64, until: UInt64? = nil)
    /// Accepting a person's delta (FEED-25, FEED-26, REMIND-15).
    case accept(FeedReplica, from: String)
    /// Erasing a person (FEED-31).
    case erasure(of: String)
    /// Registering or removing the device of a token, for a person (REMIND-14).
    case device(token: String, person: String?)
    /// Every device of a person.
    case devices(of: String)
    /// Every device.
    case allDevices
    /// The pushes due at a time, with a window (REMIND-17).
    case due(at: Int64, window: Int64)
}

/// The registers and rows a load gathers, each once.
private struct Gathering {
    var registers: [RelayKey: FeedRelayState.StoredRegister] = [:]
    var rows: [PushOutbox.Row.Key: [UInt8]] = [:]

    mutating func add(_ found: [FeedRelayState.StoredRegister]) {
        for register in found where registers[register.key] == nil { registers[register.key] = register }
    }

    mutating func add(_ found: [(key: PushOutbox.Row.Key, value: [UInt8])]) {
        for row in found { rows[row.key] = row.value }
    }

    /// The item ids of the item and reaction registers gathered.
    var items: Set<FeedItemID> {
        var ids: Set<FeedItemID> = []
        for key in registers.keys {
            switch key {
            case .item(let id): ids.insert(id)
            case .reaction(let reaction): ids.insert(reaction.item)
            default: break
            }
        }
        return ids
    }

    /// Adds the registers of `keys` not gathered yet.
    mutating func add(_ keys: Set<RelayKey>, from source: some RelayRowSource) throws(FeedError) {
        let missing = keys.filter { registers[$0] == nil }
        if !missing.isEmpty { add(try source.registers(missing)) }
    }
}

/// `body`'s reading of a push row, a storage failure when the row does not read.
func pushIndex<T>(_ body: () throws(PushError) -> T) throws(FeedError) -> T {
    do {
        return try body()
    } catch {
        throw FeedError.storage(error.message)
    }
}

/// Both stance registers between two people.
private func stances(_ a: String, _ b: String) -> [RelayKey] {
    a == b ? [] : [.stance(.init(from: a, to: b)), .stance(.init(from: b, to: a))]
}

/// The goal an item id names.
private func goal(of id: FeedItemID) -> FeedReplica.GoalKey {
    FeedReplica.GoalKey(owner: String(id.owner), goal: String(id.goal))
}

extension FeedRelayState {
    /// How many registers changed after a cursor a viewer's answer reads from the log; past it,
    /// it reads the viewer's people and the public goals instead, so that an old cursor costs what
    /// the viewer may see rather than everything written since.
    public static let logReadLimit = 2_000

    /// The part of the relay `load` reads, from `source` by index (issue 43). A viewer's answer
    /// reads the log when at most `logReadLimit` registers changed after their cursor.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` when the source cannot be read.
    public static func loading(
        _ load: RelayLoad, from source: some RelayRowSource, logReadLimit: Int = logReadLimit
    ) throws(FeedError) -> FeedRelayState {
        var gathering = Gathering()
        switch load {
        case .whole:
            gathering.add(try source.registers(after: 0))
            gathering.add(try source.allPushRows())
        case .changes(let viewer, let since, let until):
            let last = try source.lastSequence()
            // A cursor, or a page, the relay never gave starts the viewer over (FEED-27).
            let cursor = since > last || (until ?? since) > last || since > (until ?? since) ? 0 : since
            gathering.add(try source.pushRows(of: [viewer]))
            if cursor > 0, try source.changedCount(after: cursor, atMost: logReadLimit + 1) <= logReadLimit {
                try gatherLog(of: viewer, since: cursor, from: source, into: &gathering)
            } else {
                try gatherViewer(viewer, since: cursor, from: source, into: &gathering)
            }
        case .accept(let delta, let person):
            try gatherAccept(delta, from: person, source: source, into: &gathering)
        case .erasure(let person):
            gathering.add(try source.stances(of: person))
            gathering.add(try source.registers(of: [person]))
            gathering.add(try source.reactions(by: person))
            gathering.add(try source.pushRows(of: [person]))
        case .device(let token, let person):
            gathering.add(try source.pushRows(ofTokens: [token]))
            if let person { gathering.add(try source.pushRows(of: [person])) }
        case .devices(let person):
            gathering.add(try source.pushRows(of: [person]))
        case .allDevices:
            gathering.add(try source.deviceRows())
        case .due(let now, let window):
            let (horizon, overflow) = now.subtractingReportingOverflow(Swift.max(0, window))
            gathering.add(try source.duePushRows(at: now, horizon: overflow ? .min : horizon))
            let tokens = Set(gathering.rows.keys.compactMap(\.group?.token))
            gathering.add(try source.pushRows(ofTokens: tokens))
            // What each push says and its badge: everything its person may see (REMIND-18).
            var people: Set<String> = []
            for (key, value) in gathering.rows where key.kind == .device {
                people.insert(try pushIndex { () throws(PushError) in try PushOutbox.person(ofDeviceRow: value) })
            }
            for person in people.sorted() { try gatherViewer(person, since: 0, from: source, into: &gathering) }
        }
        var state = FeedRelayState(restoring: Array(gathering.registers.values), lastReceipt: try source.lastReceipt())
        state.sequence = Swift.max(state.sequence, try source.lastSequence())
        for (key, value) in gathering.rows {
            do {
                try state.pushes.apply(key, value: value)
            } catch {
                throw FeedError.storage(error.message)
            }
        }
        state.pushes.keepChanges()
        return state
    }

    /// FEED-27's part for `viewer` since `cursor` read from the log: every register changed after
    /// the cursor, and around them what fan-out looks at: the affected owners' items, visibility
    /// registers and the reactions on those items; the reactions on the items changed; the stances
    /// that decide whether the viewer may see an item and whether a reactor counts; and the
    /// viewer's seen marker. It costs what changed since the cursor.
    private static func gatherLog(
        of viewer: String, since cursor: UInt64, from source: some RelayRowSource, into gathering: inout Gathering
    ) throws(FeedError) {
        let changed = try source.registers(after: cursor)
        gathering.add(changed)
        var affected: Set<String> = []
        var pairs: [(String, String)] = []
        for register in changed {
            switch register.key {
            case .stance(let key):
                if key.from == viewer || key.to == viewer {
                    affected.insert(key.from == viewer ? key.to : key.from)
                } else {
                    pairs.append((key.from, key.to))
                }
            case .visibility(let key): affected.insert(key.owner)
            case .item, .reaction, .seen: break
            }
        }
        gathering.add(try source.registers(of: affected))
        // A stance changed between two others decides whether a reactor counts on the items one
        // reacted to of the other's, either way round.
        for (a, b) in pairs {
            gathering.add(try source.reactions(by: b, onItemsOf: a))
            gathering.add(try source.reactions(by: a, onItemsOf: b))
        }
        try gatherAround(viewer, people: affected.union(pairs.flatMap { [$0.0, $0.1] }), source, &gathering)
    }

    /// FEED-27's part for `viewer` since `cursor` read from the viewer's side: their stances and
    /// everything of the people on the other end of them, the public goals and their items, the
    /// visibility registers of owners whose visibility changed after the cursor, and around them
    /// what fan-out looks at. It costs what the viewer may see, whatever the cursor: a first sync,
    /// and a device back after a long time.
    private static func gatherViewer(
        _ viewer: String, since cursor: UInt64, from source: some RelayRowSource, into gathering: inout Gathering
    ) throws(FeedError) {
        gathering.add(try source.stances(of: viewer))
        var people: Set<String> = [viewer]
        for key in gathering.registers.keys {
            if case .stance(let pair) = key, pair.from == viewer || pair.to == viewer {
                people.insert(pair.from == viewer ? pair.to : pair.from)
            }
        }
        gathering.add(try source.registers(of: people))
        let open = try source.publicGoals()
        gathering.add(open)
        var goals: Set<FeedReplica.GoalKey> = []
        // Every visibility register of a public goal's owner: any of them changed after the cursor
        // makes the owner affected, and so decides where a page may end (FEED-27). And an owner
        // whose visibility changed after the cursor is affected: every visibility register of
        // theirs may be one the viewer's device holds items of.
        var owners: Set<String> = []
        for register in open {
            guard case .visibility(let key) = register.key, !people.contains(key.owner) else { continue }
            goals.insert(key)
            owners.insert(key.owner)
        }
        gathering.add(try source.items(of: goals))
        if cursor > 0 {
            for register in try source.visibility(after: cursor) {
                if case .visibility(let key) = register.key { owners.insert(key.owner) }
            }
        }
        gathering.add(try source.visibility(of: owners.subtracting(people)))
        try gatherAround(viewer, people: people, source, &gathering)
    }

    /// The reactions on the items gathered, and the stances and visibility registers fan-out reads
    /// about them: between the viewer and each owner and reactor, and between each owner and each
    /// reactor on their items; and the viewer's seen marker.
    private static func gatherAround(
        _ viewer: String, people: Set<String>, _ source: some RelayRowSource, _ gathering: inout Gathering
    ) throws(FeedError) {
        gathering.add(try source.reactions(on: gathering.items))
        var wanted: Set<RelayKey> = [.seen(viewer)]
        for person in people { wanted.formUnion(stances(viewer, person)) }
        for key in gathering.registers.keys {
            switch key {
            case .item(let id):
                wanted.insert(.visibility(goal(of: id)))
                wanted.formUnion(stances(viewer, String(id.owner)))
            case .reaction(let reaction):
                let owner = String(reaction.item.owner)
                wanted.insert(.item(reaction.item))
                wanted.insert(.visibility(goal(of: reaction.item)))
                wanted.formUnion(stances(viewer, owner))
                wanted.formUnion(stances(owner, reaction.reactor))
                wanted.formUnion(stances(viewer, reaction.reactor))
            default: break
            }
        }
        try gathering.add(wanted, from: source)
    }

    /// What accepting `person`'s `delta` reads: the registers it writes; the person's stances with
    /// everyone who has a device for pushes (who of them are friends, REMIND-15: nobody else can
    /// be pushed to, so a write costs nothing for friends without one); the items reacted to,
    /// their goals' visibility and the stances between the person and their owners; and the push
    /// outbox's rows of everyone a push may go to.
    private static func gatherAccept(
        _ delta: FeedReplica, from person: String, source: some RelayRowSource, into gathering: inout Gathering
    ) throws(FeedError) {
        gathering.add(try source.stancesTowardDevices(of: person))
        var wanted: Set<RelayKey> = [.seen(person)]
        for key in delta.stances.keys { wanted.insert(.stance(key)) }
        for id in delta.items.keys {
            wanted.insert(.item(id))
            wanted.insert(.visibility(goal(of: id)))
        }
        for key in delta.visibility.keys { wanted.insert(.visibility(key)) }
        var owners: Set<String> = [person]
        for key in delta.reactions.keys {
            wanted.insert(.reaction(key))
            wanted.insert(.item(key.item))
            wanted.insert(.visibility(goal(of: key.item)))
            owners.insert(String(key.item.owner))
            wanted.formUnion(stances(person, String(key.item.owner)))
        }
        try gathering.add(wanted, from: source)
        for key in gathering.registers.keys {
            if case .stance(let pair) = key { owners.formUnion([pair.from, pair.to]) }
        }
        gathering.add(try source.pushRows(of: owners))
    }
}

/// The rows of a whole relay state, as a database would give them: for tests, and for checking
/// that what a load reads answers as the whole does.
public struct StateRowSource: RelayRowSource {
    let rows: [FeedRelayState.StoredRegister]
    let receipt: Int64
    let pushes: [(key: PushOutbox.Row.Key, value: [UInt8])]

    /// The rows of `state`.
    public init(_ state: FeedRelayState) {
        rows = state.registers(after: 0)
        receipt = state.lastReceipt
        pushes = state.pushes.rows
    }

    /// The greatest sequence number.
    public func lastSequence() -> UInt64 { rows.map(\.sequence).max() ?? 0 }

    /// The receipt clock.
    public func lastReceipt() -> Int64 { receipt }

    /// The registers changed after `sequence`, up to `limit`.
    public func changedCount(after sequence: UInt64, atMost limit: Int) -> Int {
        min(limit, rows.count { $0.sequence > sequence })
    }

    /// The registers changed after `sequence`.
    public func registers(after sequence: UInt64) -> [FeedRelayState.StoredRegister] {
        rows.filter { $0.sequence > sequence }
    }

    /// The registers of `keys`.
    public func registers(_ keys: Set<RelayKey>) -> [FeedRelayState.StoredRegister] {
        rows.filter { keys.contains($0.key) }
    }

    /// `owners`' items and visibility registers.
    public func registers(of owners: Set<String>) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            switch row.key {
            case .item(let id): owners.contains(String(id.owner))
            case .visibility(let key): owners.contains(key.owner)
            default: false
            }
        }
    }

    /// `owners`' visibility registers.
    public func visibility(of owners: Set<String>) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .visibility(let key) = row.key { return owners.contains(key.owner) }
            return false
        }
    }

    /// The visibility registers changed after `sequence`.
    public func visibility(after sequence: UInt64) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .visibility = row.key { return row.sequence > sequence }
            return false
        }
    }

    /// The visibility registers that are public.
    public func publicGoals() -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .visibility(let key) = row.key { return row.delta.visibility[key]?.value == .public }
            return false
        }
    }

    /// The items of `goals`.
    public func items(of goals: Set<FeedReplica.GoalKey>) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .item(let id) = row.key { return goals.contains(goal(of: id)) }
            return false
        }
    }

    /// The stances from or to `person`.
    public func stances(of person: String) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .stance(let key) = row.key { return key.from == person || key.to == person }
            return false
        }
    }

    /// The stances from or to `person` whose other party has a device row.
    public func stancesTowardDevices(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        var holders: Set<String> = []
        for row in pushes where row.key.kind == .device {
            holders.insert(try pushIndex { () throws(PushError) in try PushOutbox.person(ofDeviceRow: row.value) })
        }
        return stances(of: person).filter { row in
            guard case .stance(let key) = row.key else { return false }
            return holders.contains(key.from == person ? key.to : key.from)
        }
    }

    /// The reactions on `items`.
    public func reactions(on items: Set<FeedItemID>) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .reaction(let key) = row.key { return items.contains(key.item) }
            return false
        }
    }

    /// `reactor`'s reactions.
    public func reactions(by reactor: String) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .reaction(let key) = row.key { return key.reactor == reactor }
            return false
        }
    }

    /// `reactor`'s reactions on `owner`'s items.
    public func reactions(by reactor: String, onItemsOf owner: String) -> [FeedRelayState.StoredRegister] {
        rows.filter { row in
            if case .reaction(let key) = row.key { return key.reactor == reactor && key.item.owner == owner }
            return false
        }
    }

    /// The rows of `people` and their tokens.
    public func pushRows(of people: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        var found: [(key: PushOutbox.Row.Key, value: [UInt8])] = []
        var tokens: Set<String> = []
        for row in pushes {
            if row.key.kind == .closed && people.contains(row.key.key) { found.append(row) }
            guard row.key.kind == .device else { continue }
            let person = try pushIndex { () throws(PushError) in try PushOutbox.person(ofDeviceRow: row.value) }
            if people.contains(person) { tokens.insert(row.key.key) }
        }
        return found + pushRows(ofTokens: tokens)
    }

    /// The rows of `tokens`.
    public func pushRows(ofTokens tokens: Set<String>) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        pushes.filter { row in
            switch row.key.kind {
            case .device: tokens.contains(row.key.key)
            case .closed: false
            case .group, .last, .proof: row.key.group.map { tokens.contains($0.token) } == true
            }
        }
    }

    /// The groups due at `now`, the last pushes at or before `horizon`, and every proof.
    public func duePushRows(at now: Int64, horizon: Int64) throws(FeedError) -> [(
        key: PushOutbox.Row.Key, value: [UInt8]
    )] {
        var found: [(key: PushOutbox.Row.Key, value: [UInt8])] = []
        for row in pushes {
            let time = try pushIndex { () throws(PushError) in try PushOutbox.time(ofRow: row.key.kind, row.value) }
            switch row.key.kind {
            case .group: if let time, time <= now { found.append(row) }
            case .last: if let time, time <= horizon { found.append(row) }
            case .proof: found.append(row)
            case .device, .closed: break
            }
        }
        return found
    }

    /// Every device row.
    public func deviceRows() -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        pushes.filter { $0.key.kind == .device }
    }

    /// Every row.
    public func allPushRows() -> [(key: PushOutbox.Row.Key, value: [UInt8])] { pushes }
}
