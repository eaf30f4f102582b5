import Foundation
import GlowFeed
import GlowPostgres
import GlowRelay
import GlowStorage

/// The relay's rows one transaction of ``PostgresFeedRelayStore`` reads, by index.
final class PostgresRelayRows: RelayRowSource {
    private let connection: PostgresConnection
    private let name: String
    /// The first read that failed, for the store to throw as it is.
    private(set) var failure: StoreError?

    /// Whether the changes still waiting for their numbers are read too (a write's), merged
    /// into the registers they change, which then read as changed at no number.
    private let pending: Bool
    /// For the push dispatcher's load: the lock names (``PostgresFeedRelayStore/lockName(_:)``)
    /// of the group and proof rows whose locks it holds, the only ones it may take, and whether it
    /// is the one dispatcher, which alone reads and forgets last pushes; nil for every other load,
    /// which reads every row.
    private let dispatching: (rows: Set<String>, lasts: Bool)?

    init(
        _ connection: PostgresConnection, name: String, pending: Bool = false,
        dispatching: (rows: Set<String>, lasts: Bool)? = nil
    ) {
        self.connection = connection
        self.name = name
        self.pending = pending
        self.dispatching = dispatching
    }

    private static let registerColumns = "sequence, register, public_until, shared_until"

    /// The register of row `index` of a result read with ``registerColumns``.
    static func register(_ result: PostgresResult, _ index: Int, name: String) throws(StoreError)
        -> FeedRelayState.StoredRegister
    {
        let (sequence, bytes, publicUntil, sharedUntil) = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in
                (
                    try result.int(index, "sequence"), try result.bytes(index, "register"),
                    try result.int(index, "public_until"), try result.int(index, "shared_until")
                )
            }, name)
        let delta: FeedReplica
        do { delta = try FeedReplica(wire: bytes) } catch {
            throw StoreError(.corrupt, "a relay register does not read: \(error)", path: name)
        }
        let ends = VisibilityEnds(
            publicUntil: UInt64(clamping: publicUntil), sharedUntil: UInt64(clamping: sharedUntil))
        guard
            let register = FeedRelayState.StoredRegister(
                sequence: UInt64(clamping: sequence), delta: delta, ends: ends)
        else {
            throw StoreError(.corrupt, "a relay row holds no register", path: name)
        }
        return register
    }

    /// Runs `body`, keeping a storage failure for the store and answering it as the feed's.
    private func reading<T>(_ body: () throws(StoreError) -> T) throws(FeedError) -> T {
        do {
            return try body()
        } catch {
            if failure == nil { failure = error }
            throw FeedError.storage("the relay's rows could not be read: \(error)")
        }
    }

    private func query(_ sql: String, _ values: [PostgresValue]) throws(StoreError) -> PostgresResult {
        try PostgresFeedRelayStore.postgres({ () throws(PostgresError) in try connection.execute(sql, values) }, name)
    }

    /// The registers of the rows `clause` selects, once for each of `bindings`.
    private func registers(_ clause: String, _ bindings: [[PostgresValue]]) throws(FeedError)
        -> [FeedRelayState.StoredRegister]
    {
        try reading { () throws(StoreError) in
            var found: [FeedRelayState.StoredRegister] = []
            var waiting: [FeedRelayState.StoredRegister] = []
            for values in bindings {
                // A waiting change is after every number: it matches every `sequence > n`.
                let result = try query(
                    "SELECT \(Self.registerColumns), 0 AS waiting FROM relay_registers WHERE \(clause)"
                        + (pending
                            ? " UNION ALL SELECT 0, register, 0, 0, 1 FROM (SELECT *, 9223372036854775807 AS sequence "
                                + "FROM relay_pending) AS changes WHERE \(clause)" : ""),
                    values)
                for index in 0..<result.rows.count {
                    let register = try Self.register(result, index, name: name)
                    if result.rows[index].last == .int(1) { waiting.append(register) } else { found.append(register) }
                }
            }
            guard !waiting.isEmpty else { return found }
            // Each register with every change waiting for it merged in, at its number.
            var merged: [RelayKey: FeedRelayState.StoredRegister] = [:]
            for register in found { merged[register.key] = register }
            for change in waiting {
                var delta = merged[change.key]?.delta ?? FeedReplica()
                delta.merge(change.delta)
                guard
                    let register = FeedRelayState.StoredRegister(
                        sequence: merged[change.key]?.sequence ?? 0, delta: delta,
                        ends: merged[change.key]?.ends ?? VisibilityEnds())
                else { continue }
                merged[change.key] = register
            }
            return Array(merged.values)
        }
    }

    /// The rows whose `column` is one of `values`: a condition on `$1`, bound to their JSON, so a
    /// list costs one round trip whatever its length.
    private static func among(_ column: String) -> String {
        "\(column) = ANY(\(PostgresFeedRelayStore.textArray("$1")))"
    }

    /// `values` as JSON text, for ``among(_:)``.
    private func list(_ values: some Encodable) throws(FeedError) -> [[PostgresValue]] {
        do {
            return [[.text(String(decoding: try JSONEncoder().encode(values), as: UTF8.self))]]
        } catch {
            throw FeedError.storage("a list of the relay's keys does not encode: \(error)")
        }
    }

    private func number(_ sql: String, _ values: [PostgresValue]) throws(FeedError) -> Int64 {
        try reading { () throws(StoreError) in
            let result = try query(sql, values)
            guard !result.rows.isEmpty, result.rows[0].first != .null else { return 0 }
            return try PostgresFeedRelayStore.postgres({ () throws(PostgresError) in try result.int(0, "n") }, name)
        }
    }

    /// The relay's last sequence number and receipt clock, read once per transaction in one
    /// statement (a read's snapshot holds them still; a write reads them after its locks).
    private var clocks: (sequence: UInt64, receipt: Int64)?

    private func readClocks() throws(FeedError) -> (sequence: UInt64, receipt: Int64) {
        if let clocks { return clocks }
        let read = try reading { () throws(StoreError) in
            let result = try query(PostgresFeedRelayStore.clocksQuery, [])
            return try PostgresFeedRelayStore.postgres(
                { () throws(PostgresError) in
                    (UInt64(clamping: try result.int(0, "n")), try result.int(0, "r"))
                }, name)
        }
        clocks = read
        return read
    }

    func lastSequence() throws(FeedError) -> UInt64 { try readClocks().sequence }

    func lastReceipt() throws(FeedError) -> Int64 { try readClocks().receipt }

    func changedCount(after sequence: UInt64, atMost limit: Int) throws(FeedError) -> Int {
        Int(
            try number(
                "SELECT count(*) AS n FROM (SELECT 1 FROM relay_registers WHERE sequence > $1 LIMIT $2) AS changed",
                [.int(Int64(clamping: sequence)), .int(Int64(limit))]))
    }

    func registers(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("sequence > $1", [[.int(Int64(clamping: sequence))]])
    }

    func registers(_ keys: Set<RelayKey>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        keys.isEmpty ? [] : try registers(Self.among("key"), list(keys.map(\.storageKey)))
    }

    func registers(of owners: Set<String>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        owners.isEmpty
            ? [] : try registers("kind IN ('item', 'visibility') AND " + Self.among("party"), list(owners.sorted()))
    }

    func visibility(of owners: Set<String>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        owners.isEmpty ? [] : try registers("kind = 'visibility' AND " + Self.among("party"), list(owners.sorted()))
    }

    func visibility(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("sequence > $1 AND kind = 'visibility'", [[.int(Int64(clamping: sequence))]])
    }

    func publicGoals() throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'visibility' AND is_public = 1", [[]])
    }

    func items(of goals: Set<FeedReplica.GoalKey>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        goals.isEmpty
            ? []
            : try registers(
                "kind = 'item' AND party = ANY(ARRAY(SELECT goal->>0 FROM jsonb_array_elements(($1::text)::jsonb) "
                    + "AS goal)) AND (party, other) IN (SELECT goal->>0, goal->>1 FROM "
                    + "jsonb_array_elements(($1::text)::jsonb) AS goal)", list(goals.map { [$0.owner, $0.goal] }))
    }

    func stances(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'stance' AND (party = $1 OR other = $1)", [[.text(person)]])
    }

    func stancesTowardDevices(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers(
            "kind = 'stance' AND (party = $1 OR other = $1) AND (CASE WHEN party = $1 THEN other ELSE party END) IN "
                + "(SELECT person FROM relay_pushes WHERE kind = 'device')", [[.text(person)]])
    }

    func reactions(on items: Set<FeedItemID>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        items.isEmpty ? [] : try registers(Self.among("item"), list(items.map(\.text)))
    }

    func reactions(by reactor: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'reaction' AND other = $1", [[.text(reactor)]])
    }

    func reactions(by reactor: String, onItemsOf owner: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'reaction' AND party = $1 AND other = $2", [[.text(owner), .text(reactor)]])
    }

    /// The push rows `clause` selects, once for each of `bindings`.
    private func pushRows(_ clause: String, _ bindings: [[PostgresValue]]) throws(FeedError) -> [(
        key: PushOutbox.Row.Key, value: [UInt8]
    )] {
        try reading { () throws(StoreError) in
            var found: [(key: PushOutbox.Row.Key, value: [UInt8])] = []
            for values in bindings {
                let result = try query(
                    "SELECT kind, key, value FROM relay_pushes WHERE value IS NOT NULL AND \(clause)", values)
                for index in 0..<result.rows.count {
                    let (kind, key, value) = try PostgresFeedRelayStore.postgres(
                        { () throws(PostgresError) in
                            (
                                try result.text(index, "kind"), try result.text(index, "key"),
                                try result.bytes(index, "value")
                            )
                        }, name)
                    guard let known = PushOutbox.Row.Kind(rawValue: kind) else {
                        throw StoreError(.corrupt, "a push row of an unknown kind '\(kind.prefix(40))'", path: name)
                    }
                    let row = PushOutbox.Row.Key(known, key)
                    if let dispatching {
                        // The dispatcher reads only the groups and proofs whose locks it holds
                        // (another process's write may be adding to the others now), and the last
                        // pushes only while it is the one dispatcher.
                        switch known {
                        case .group, .proof:
                            guard dispatching.rows.contains(PostgresFeedRelayStore.lockName(row)) else { continue }
                        case .last: guard dispatching.lasts else { continue }
                        case .device, .closed: break
                        }
                    }
                    found.append((row, value))
                }
            }
            return found
        }
    }

    func pushRows(of people: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        let own = people.isEmpty ? [] : try pushRows(Self.among("person"), list(people.sorted()))
        let tokens = Set(own.filter { $0.key.kind == .device }.map(\.key.key))
        return own.filter { $0.key.kind == .closed } + (try pushRows(ofTokens: tokens))
    }

    func pushRows(ofTokens tokens: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        tokens.isEmpty ? [] : try pushRows(Self.among("token"), list(tokens.sorted()))
    }

    func duePushRows(at now: Int64, horizon: Int64) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("kind = $1 AND at <= $2", [[.text("group"), .int(now)], [.text("last"), .int(horizon)]])
            + pushRows("kind = 'proof'", [[]])
    }

    func deviceRows() throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("kind = 'device'", [[]])
    }

    func allPushRows() throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("true", [[]])
    }
}
