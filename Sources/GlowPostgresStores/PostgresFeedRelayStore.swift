import GlowCore
import GlowFeed
import GlowPostgres
import GlowRelay
import GlowServerStores
import GlowStorage
import GlowWire

/// The relay's state in PostgreSQL, shared by every process: each register a row with its last
/// sequence number, its canonical bytes (FEED-28) and the columns it is found by
/// (``RelayKey/indexColumns``), the push outbox's rows with their person, token and time.
///
/// An update is one transaction on a connection of the pool that reads the rows its load names
/// (``RelayLoad``) by index, runs the relay's rules on them, and writes the rows they changed:
/// nothing is held between updates, so a process's memory does not grow with the number of
/// people and it starts without reading their registers. A read runs in a `REPEATABLE READ`
/// snapshot. A write first locks the relay's row of `glow_clock`, so sequence numbers are given
/// one write after another and commit in their order: a reader's cursor, the greatest number its
/// snapshot holds, never passes a write that commits later.
public final class PostgresFeedRelayStore: FeedRelayStore {
    /// The database, as its owner named it (without a password).
    public let name: String
    package let pool: PostgresConnectionPool

    init(name: String, pool: PostgresConnectionPool) {
        self.name = name
        self.pool = pool
    }

    /// Whether `reading` is of this database.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == name }

    /// Runs `body` on the part of the relay `load` names, read from the database now, and keeps
    /// what it changed before returning (``FeedRelayStore``).
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of another database, or when a row
    ///   cannot be read or kept, or the database does not answer within its wait; the body's
    ///   ``FeedError``, with nothing kept.
    public func update<T>(
        loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> T? {
        if let reading, !confirms(reading) {
            throw FeedError.storage("the relay's database \(name) cannot confirm a reading of \(reading)")
        }
        var outcome: Result<T, FeedError>?
        do {
            outcome = try pool.withConnection { (connection) throws(StoreError) -> Result<T, FeedError>? in
                try Self.transaction(on: connection, name: name, writing: writing) { () throws(StoreError) in
                    if let reading,
                        try !Self.postgres(
                            { () throws(PostgresError) in
                                try accountReadingHolds(reading, on: connection)
                            }, name)
                    {
                        return nil
                    }
                    let rows = PostgresRelayRows(connection, name: name)
                    var relay: FeedRelayState
                    do throws(FeedError) {
                        relay = try FeedRelayState.loading(load, from: rows)
                    } catch {
                        throw rows.failure ?? StoreError(.corrupt, error.message, path: name)
                    }
                    let before = relay.sequence
                    let result: T
                    do throws(FeedError) {
                        result = try body(&relay)
                    } catch {
                        return .failure(error)
                    }
                    if writing { try Self.keep(relay, since: before, on: connection, name: name) }
                    return .success(result)
                }
            }
        } catch {
            throw FeedError.storage("the relay's rows could not be read or kept: \(error)")
        }
        return try outcome?.get()
    }

    /// Runs `body` in one transaction on `connection`: a write after locking the relay's clock
    /// row, a read in one snapshot. Rolled back when it throws.
    static func transaction<T>(
        on connection: PostgresConnection, name: String, writing: Bool, _ body: () throws(StoreError) -> T
    ) throws(StoreError) -> T {
        do {
            try postgres(
                { () throws(PostgresError) in
                    if writing {
                        try connection.execute("BEGIN")
                        try connection.execute("SELECT version FROM glow_clock WHERE name = 'relay' FOR UPDATE")
                    } else {
                        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    }
                }, name)
            let result = try body()
            _ = try postgres({ () throws(PostgresError) in try connection.execute("COMMIT") }, name)
            return result
        } catch {
            // A failed rollback means the connection is gone: the pool drops it.
            do { try connection.execute("ROLLBACK") } catch {}
            throw error
        }
    }

    /// `body`'s PostgreSQL failure as the storage layer's.
    static func postgres<T>(_ body: () throws(PostgresError) -> T, _ name: String) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(.writeFailed, "the relay's rows: \(error.message)", path: name)
        }
    }

    /// Writes the registers `relay` changed after sequence number `before`, the receipt clock and
    /// the push rows it changed, inside the caller's transaction, and moves the clock on.
    static func keep(_ relay: FeedRelayState, since before: UInt64, on connection: PostgresConnection, name: String)
        throws(StoreError)
    {
        let rows = PushRows.changed(relay)
        var columns: [(person: String?, token: String?, at: Int64?)] = []
        for row in rows {
            guard let value = row.value else {
                columns.append((nil, nil, nil))
                continue
            }
            columns.append(try PushRows.columns(kind: row.kind, key: row.key, value: value, path: name))
        }
        try postgres(
            { () throws(PostgresError) in
                guard relay.sequence != before || !rows.isEmpty else { return }
                let version = try connection.execute(
                    "UPDATE glow_clock SET version = version + 1 WHERE name = 'relay' RETURNING version"
                ).int(0, "version")
                for register in relay.registers(after: before) {
                    let index = register.key.indexColumns
                    try connection.execute(
                        "INSERT INTO relay_registers (key, sequence, register, version, public_until, shared_until, "
                            + "kind, party, other, item, is_public) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
                            + "ON CONFLICT (key) DO UPDATE SET sequence = $2, register = $3, version = $4, "
                            + "public_until = $5, shared_until = $6, kind = $7, party = $8, other = $9, item = $10, "
                            + "is_public = $11",
                        [
                            .text(register.key.storageKey), .int(Int64(clamping: register.sequence)),
                            .bytes(register.delta.wireEncoded()), .int(version),
                            .int(Int64(clamping: register.ends.publicUntil)),
                            .int(Int64(clamping: register.ends.sharedUntil)), .text(index.kind), .text(index.party),
                            index.other.map { .text($0) } ?? .null, index.item.map { .text($0) } ?? .null,
                            .int(register.isPublic ? 1 : 0),
                        ])
                }
                if relay.sequence != before {
                    try connection.execute("UPDATE relay_clock SET last_receipt = $1", [.int(relay.lastReceipt)])
                }
                for (row, index) in zip(rows, columns) {
                    guard let value = row.value else {
                        try connection.execute(
                            "DELETE FROM relay_pushes WHERE kind = $1 AND key = $2", [.text(row.kind), .text(row.key)])
                        continue
                    }
                    try connection.execute(
                        "INSERT INTO relay_pushes (kind, key, value, version, person, token, at) "
                            + "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kind, key) DO UPDATE SET value = $3, "
                            + "version = $4, person = $5, token = $6, at = $7",
                        [
                            .text(row.kind), .text(row.key), .bytes(value), .int(version),
                            index.person.map { .text($0) } ?? .null, index.token.map { .text($0) } ?? .null,
                            index.at.map { .int($0) } ?? .null,
                        ])
                }
            }, name)
    }

    /// Gives the rows an older version wrote, before the rows had index columns, theirs, in one
    /// transaction; a database without such rows costs one look at each partial index.
    static func indexOlderRows(_ connection: PostgresConnection, name: String) throws(StoreError) {
        try transaction(on: connection, name: name, writing: true) { () throws(StoreError) in
            let found = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "SELECT key, sequence, register, public_until, shared_until FROM relay_registers "
                            + "WHERE kind IS NULL")
                }, name)
            for index in 0..<found.rows.count {
                let register = try PostgresRelayRows.register(found, index, name: name)
                let columns = register.key.indexColumns
                _ = try postgres(
                    { () throws(PostgresError) in
                        try connection.execute(
                            "UPDATE relay_registers SET kind = $1, party = $2, other = $3, item = $4, is_public = $5 "
                                + "WHERE key = $6",
                            [
                                .text(columns.kind), .text(columns.party), columns.other.map { .text($0) } ?? .null,
                                columns.item.map { .text($0) } ?? .null, .int(register.isPublic ? 1 : 0),
                                .text(register.key.storageKey),
                            ])
                    }, name)
            }
            let pushes = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "SELECT kind, key, value FROM relay_pushes WHERE person IS NULL AND token IS NULL")
                }, name)
            for index in 0..<pushes.rows.count {
                let (kind, key, value) = try postgres(
                    { () throws(PostgresError) in
                        (
                            try pushes.text(index, "kind"), try pushes.text(index, "key"),
                            try pushes.bytes(index, "value")
                        )
                    }, name)
                let columns = try PushRows.columns(kind: kind, key: key, value: value, path: name)
                _ = try postgres(
                    { () throws(PostgresError) in
                        try connection.execute(
                            "UPDATE relay_pushes SET person = $1, token = $2, at = $3 WHERE kind = $4 AND key = $5",
                            [
                                columns.person.map { .text($0) } ?? .null, columns.token.map { .text($0) } ?? .null,
                                columns.at.map { .int($0) } ?? .null, .text(kind), .text(key),
                            ])
                    }, name)
            }
        }
    }
}

/// The relay's rows one transaction of ``PostgresFeedRelayStore`` reads, by index.
final class PostgresRelayRows: RelayRowSource {
    private let connection: PostgresConnection
    private let name: String
    /// The first read that failed, for the store to throw as it is.
    private(set) var failure: StoreError?

    init(_ connection: PostgresConnection, name: String) {
        self.connection = connection
        self.name = name
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
            for values in bindings {
                let result = try query(
                    "SELECT \(Self.registerColumns) FROM relay_registers WHERE \(clause)", values)
                for index in 0..<result.rows.count { found.append(try Self.register(result, index, name: name)) }
            }
            return found
        }
    }

    private func number(_ sql: String, _ values: [PostgresValue]) throws(FeedError) -> Int64 {
        try reading { () throws(StoreError) in
            let result = try query(sql, values)
            guard !result.rows.isEmpty, result.rows[0].first != .null else { return 0 }
            return try PostgresFeedRelayStore.postgres({ () throws(PostgresError) in try result.int(0, "n") }, name)
        }
    }

    func lastSequence() throws(FeedError) -> UInt64 {
        UInt64(clamping: try number("SELECT coalesce(max(sequence), 0) AS n FROM relay_registers", []))
    }

    func lastReceipt() throws(FeedError) -> Int64 {
        try number("SELECT coalesce(max(last_receipt), 0) AS n FROM relay_clock", [])
    }

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
        try registers("key = $1", keys.map { [.text($0.storageKey)] })
    }

    func registers(of owner: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers(
            "kind = $1 AND party = $2", [[.text("item"), .text(owner)], [.text("visibility"), .text(owner)]])
    }

    func visibility(of owner: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'visibility' AND party = $1", [[.text(owner)]])
    }

    func visibility(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("sequence > $1 AND kind = 'visibility'", [[.int(Int64(clamping: sequence))]])
    }

    func publicGoals() throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'visibility' AND is_public = 1", [[]])
    }

    func items(of goals: Set<FeedReplica.GoalKey>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'item' AND party = $1 AND other = $2", goals.map { [.text($0.owner), .text($0.goal)] })
    }

    func stances(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'stance' AND party = $1", [[.text(person)]])
            + registers("kind = 'stance' AND other = $1 AND party != $1", [[.text(person)]])
    }

    func reactions(on items: Set<FeedItemID>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("item = $1", items.map { [.text($0.text)] })
    }

    func reactions(by reactor: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'reaction' AND other = $1", [[.text(reactor)]])
    }

    func reactions(by reactor: String, onItemsOf owner: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'reaction' AND party = $1 AND other = $2", [[.text(owner), .text(reactor)]])
    }

    func floors(of numbers: [UInt64], after cursor: UInt64) throws(FeedError) -> [UInt64: UInt64] {
        var floors: [UInt64: UInt64] = [:]
        for number in numbers {
            let floor = try self.number(
                "SELECT max(sequence) AS n FROM relay_registers WHERE sequence < $1 AND sequence > $2",
                [.int(Int64(clamping: number)), .int(Int64(clamping: cursor))])
            if floor > 0 { floors[number] = UInt64(floor) }
        }
        return floors
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
                    found.append((PushOutbox.Row.Key(known, key), value))
                }
            }
            return found
        }
    }

    func pushRows(of people: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        let own = try pushRows("person = $1", people.sorted().map { [.text($0)] })
        let tokens = Set(own.filter { $0.key.kind == .device }.map(\.key.key))
        return own.filter { $0.key.kind == .closed } + (try pushRows(ofTokens: tokens))
    }

    func pushRows(ofTokens tokens: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("token = $1", tokens.sorted().map { [.text($0)] })
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
