import GlowCore
import GlowFeed
import GlowRelay
import GlowStorage

/// The relay's state (FEED-25 ... FEED-27) durable in SQLite, for a server that runs
/// ``FeedRelay``, through the feed's storage protocol, ``FeedRelayStore``.
///
/// Each register is one row: its key, its last sequence number, the register's canonical bytes
/// (FEED-28), and the columns it is found by (``RelayKey/indexColumns``): the table is the relay's
/// log too, one row per register, indexed by its number. The push outbox's rows carry their
/// person, token and time the same way. An update is one transaction that reads the rows its load
/// names (``RelayLoad``), by index, runs the relay's rules on them, and writes the rows they
/// changed; nothing is held between updates, so memory does not grow with the number of people and
/// a process starts without reading anyone's registers. A write takes SQLite's write lock first,
/// so sequence numbers are given in commit order.
public final class SQLiteFeedRelayStore: FeedRelayStore {
    /// The database's path.
    public let path: String
    private let connection: SQLiteServerConnection

    /// Opens the relay database at `path`, creating it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt` (not a relay database, or a row that
    ///   does not read), `cannot_open`.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, schema: .relay)
    }

    /// Opens the database of `schema` at `path` (the relay database, or the server's), creating
    /// it when there is no file, and indexes rows an older version wrote without their columns;
    /// each call waits at most `wait` seconds for the file (``SQLiteServerConnection``).
    init(path: String, schema: DatabaseSchema, wait: Double = SQLiteServerDatabase.standardWait) throws(StoreError) {
        self.path = path
        let opened = try schema.open(path: path, create: true)
        try Self.indexOlderRows(opened)
        connection = SQLiteServerConnection(opened, wait: wait)
    }

    /// The number of rows in `table`, read now: whether the file answers (SERVER-7).
    ///
    /// - Throws: ``StoreError`` when it does not.
    func count(_ table: String) throws(StoreError) -> Int64 {
        try connection.withConnection { (connection) throws(StoreError) in
            try connection.integer("SELECT count(*) FROM \(table)")
        }
    }

    /// Whether `reading` is of this file.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == path }

    /// Runs `body` on the part of the relay `load` names, read from the file now, and keeps what
    /// it changed before returning (``FeedRelayStore``).
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of another database, or when a row
    ///   cannot be read or kept; the body's ``FeedError``, with nothing kept.
    public func update<T>(
        loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> (result: T, sequence: UInt64)? {
        if let reading, !confirms(reading) {
            throw FeedError.storage("the relay's file \(path) cannot confirm a reading of \(reading)")
        }
        var outcome: Result<(result: T, sequence: UInt64), FeedError>?
        do {
            try connection.withConnection { (connection) throws(StoreError) in
                outcome = try connection.transaction(immediate: writing) {
                    () throws(StoreError) -> Result<(result: T, sequence: UInt64), FeedError>? in
                    // In the transaction: the account rows as the reading saw them.
                    if let reading, try !accountReadingHolds(reading, on: connection) { return nil }
                    let rows = SQLiteRelayRows(connection)
                    var relay: FeedRelayState
                    do throws(FeedError) {
                        relay = try FeedRelayState.loading(load, from: rows)
                    } catch {
                        throw rows.failure ?? StoreError(.corrupt, error.message, path: connection.path)
                    }
                    let before = relay.sequence
                    let result: T
                    do throws(FeedError) {
                        result = try body(&relay)
                    } catch {
                        return .failure(error)
                    }
                    try Self.keep(relay, since: before, on: connection)
                    return .success((result, relay.sequence))
                }
            }
        } catch {
            throw FeedError.storage("the relay's rows could not be read or kept: \(error)")
        }
        return try outcome?.get()
    }

    /// Writes the registers `relay` changed after sequence number `before`, the receipt clock,
    /// and the push rows it changed, inside the caller's transaction.
    static func keep(_ relay: FeedRelayState, since before: UInt64, on connection: SQLiteConnection)
        throws(StoreError)
    {
        if relay.sequence != before {
            let put = try connection.prepare(
                "INSERT OR REPLACE INTO relay_registers (key, sequence, register, public_until, shared_until, kind, "
                    + "party, other, item, is_public) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for register in relay.registers(after: before) {
                try put.run(
                    [
                        .text(register.key.storageKey), .integer(Int64(clamping: register.sequence)),
                        .blob(register.delta.wireEncoded()), .integer(Int64(clamping: register.ends.publicUntil)),
                        .integer(Int64(clamping: register.ends.sharedUntil)),
                    ] + indexValues(register))
            }
            try connection.prepare("INSERT OR REPLACE INTO relay_clock (singleton, last_receipt) VALUES (1, ?)")
                .run([.integer(relay.lastReceipt)])
        }
        guard relay.pushes.hasChanges else { return }
        let put = try connection.prepare(
            "INSERT OR REPLACE INTO relay_pushes (kind, key, value, person, token, at) VALUES (?, ?, ?, ?, ?, ?)")
        let drop = try connection.prepare("DELETE FROM relay_pushes WHERE kind = ? AND key = ?")
        for row in PushRows.changed(relay) {
            guard let value = row.value else {
                try drop.run([.text(row.kind), .text(row.key)])
                continue
            }
            let columns = try PushRows.columns(kind: row.kind, key: row.key, value: value, path: connection.path)
            try put.run([
                .text(row.kind), .text(row.key), .blob(value), columns.person.map { .text($0) } ?? .null,
                columns.token.map { .text($0) } ?? .null, columns.at.map { .integer($0) } ?? .null,
            ])
        }
    }

    /// A register's index columns (``RelayKey/indexColumns``) and whether it is a public goal's
    /// visibility, as the values of `kind, party, other, item, is_public`.
    package static func indexValues(_ register: FeedRelayState.StoredRegister) -> [Statement.Value] {
        let columns = register.key.indexColumns
        return [
            .text(columns.kind), .text(columns.party), columns.other.map { .text($0) } ?? .null,
            columns.item.map { .text($0) } ?? .null, .integer(register.isPublic ? 1 : 0),
        ]
    }

    /// Gives the rows an older version wrote, before the rows had index columns, theirs, in one
    /// transaction; a file without such rows costs one look at each index.
    static func indexOlderRows(_ connection: SQLiteConnection) throws(StoreError) {
        try connection.transaction {
            () throws(StoreError) in
            let registers = try connection.prepare(
                "SELECT sequence, register, public_until, shared_until FROM relay_registers WHERE kind IS NULL")
            var found: [FeedRelayState.StoredRegister] = []
            while try registers.step() {
                found.append(try SQLiteRelayRows.register(registers, path: connection.path))
            }
            let put = try connection.prepare(
                "UPDATE relay_registers SET kind = ?, party = ?, other = ?, item = ?, is_public = ? WHERE key = ?")
            for register in found {
                try put.run(indexValues(register) + [.text(register.key.storageKey)])
            }
            let pushes = try connection.prepare(
                "SELECT kind, key, value FROM relay_pushes WHERE person IS NULL AND token IS NULL")
            var rows: [(kind: String, key: String, value: [UInt8])] = []
            while try pushes.step() { rows.append((pushes.text(0), pushes.text(1), pushes.blob(2))) }
            let index = try connection.prepare(
                "UPDATE relay_pushes SET person = ?, token = ?, at = ? WHERE kind = ? AND key = ?")
            for row in rows {
                let columns = try PushRows.columns(
                    kind: row.kind, key: row.key, value: row.value, path: connection.path)
                try index.run([
                    columns.person.map { .text($0) } ?? .null, columns.token.map { .text($0) } ?? .null,
                    columns.at.map { .integer($0) } ?? .null, .text(row.kind), .text(row.key),
                ])
            }
        }
    }
}

/// The relay's rows one transaction of ``SQLiteFeedRelayStore`` reads, by index.
final class SQLiteRelayRows: RelayRowSource {
    private let connection: SQLiteConnection
    /// The first read that failed, for the store to throw as it is.
    private(set) var failure: StoreError?

    init(_ connection: SQLiteConnection) { self.connection = connection }

    private static let registerColumns = "sequence, register, public_until, shared_until"

    /// The register of a row read with ``registerColumns``.
    static func register(_ statement: Statement, path: String) throws(StoreError) -> FeedRelayState.StoredRegister {
        let delta: FeedReplica
        do { delta = try FeedReplica(wire: statement.blob(1)) } catch {
            throw StoreError(.corrupt, "a relay register does not read: \(error)", path: path)
        }
        let ends = VisibilityEnds(
            publicUntil: UInt64(clamping: statement.integer(2)), sharedUntil: UInt64(clamping: statement.integer(3)))
        guard
            let register = FeedRelayState.StoredRegister(
                sequence: UInt64(clamping: statement.integer(0)), delta: delta, ends: ends)
        else {
            throw StoreError(.corrupt, "a relay row holds no register", path: path)
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

    /// The registers of the rows `clause` selects, once for each of `bindings`.
    private func registers(_ clause: String, _ bindings: [[Statement.Value]]) throws(FeedError)
        -> [FeedRelayState.StoredRegister]
    {
        try reading { () throws(StoreError) in
            guard !bindings.isEmpty else { return [] }
            let statement = try connection.prepare(
                "SELECT \(Self.registerColumns) FROM relay_registers WHERE \(clause)")
            var found: [FeedRelayState.StoredRegister] = []
            for values in bindings {
                try statement.bind(values)
                while try statement.step() { found.append(try Self.register(statement, path: connection.path)) }
            }
            return found
        }
    }

    private func number(_ sql: String, _ values: [Statement.Value]) throws(FeedError) -> Int64 {
        try reading { () throws(StoreError) in
            let statement = try connection.prepare(sql)
            try statement.bind(values)
            return try statement.step() ? statement.integer(0) : 0
        }
    }

    func lastSequence() throws(FeedError) -> UInt64 {
        UInt64(clamping: try number("SELECT coalesce(max(sequence), 0) FROM relay_registers", []))
    }

    func lastReceipt() throws(FeedError) -> Int64 {
        try number("SELECT coalesce(max(last_receipt), 0) FROM relay_clock", [])
    }

    func changedCount(after sequence: UInt64, atMost limit: Int) throws(FeedError) -> Int {
        Int(
            try number(
                "SELECT count(*) FROM (SELECT 1 FROM relay_registers WHERE sequence > ? LIMIT ?)",
                [.integer(Int64(clamping: sequence)), .integer(Int64(limit))]))
    }

    func registers(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("sequence > ?", [[.integer(Int64(clamping: sequence))]])
    }

    func registers(_ keys: Set<RelayKey>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("key = ?", keys.map { [.text($0.storageKey)] })
    }

    func registers(of owners: Set<String>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers(
            "kind = ? AND party = ?",
            owners.sorted().flatMap { [[.text("item"), .text($0)], [.text("visibility"), .text($0)]] })
    }

    func visibility(of owners: Set<String>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'visibility' AND party = ?", owners.sorted().map { [.text($0)] })
    }

    func visibility(after sequence: UInt64) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("sequence > ? AND kind = 'visibility'", [[.integer(Int64(clamping: sequence))]])
    }

    func publicGoals() throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'visibility' AND is_public = 1", [[]])
    }

    func items(of goals: Set<FeedReplica.GoalKey>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'item' AND party = ? AND other = ?", goals.map { [.text($0.owner), .text($0.goal)] })
    }

    func stances(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'stance' AND party = ?", [[.text(person)]])
            + registers("kind = 'stance' AND other = ? AND party != ?", [[.text(person), .text(person)]])
    }

    func stancesTowardDevices(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers(
            "kind = 'stance' AND (party = ?1 OR other = ?1) AND (CASE WHEN party = ?1 THEN other ELSE party END) IN "
                + "(SELECT person FROM relay_pushes WHERE kind = 'device')", [[.text(person)]])
    }

    func reactions(on items: Set<FeedItemID>) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("item = ?", items.map { [.text($0.text)] })
    }

    func reactions(by reactor: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'reaction' AND other = ?", [[.text(reactor)]])
    }

    func reactions(by reactor: String, onItemsOf owner: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'reaction' AND party = ? AND other = ?", [[.text(owner), .text(reactor)]])
    }

    /// The push rows `clause` selects, once for each of `bindings`.
    private func pushRows(_ clause: String, _ bindings: [[Statement.Value]]) throws(FeedError) -> [(
        key: PushOutbox.Row.Key, value: [UInt8]
    )] {
        try reading { () throws(StoreError) in
            guard !bindings.isEmpty else { return [] }
            let statement = try connection.prepare("SELECT kind, key, value FROM relay_pushes WHERE \(clause)")
            var found: [(key: PushOutbox.Row.Key, value: [UInt8])] = []
            for values in bindings {
                try statement.bind(values)
                while try statement.step() {
                    let kind = statement.text(0)
                    guard let known = PushOutbox.Row.Kind(rawValue: kind) else {
                        throw StoreError(
                            .corrupt, "a push row of an unknown kind '\(kind.prefix(40))'", path: connection.path)
                    }
                    found.append((PushOutbox.Row.Key(known, statement.text(1)), statement.blob(2)))
                }
            }
            return found
        }
    }

    func pushRows(of people: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        let own = try pushRows("person = ?", people.sorted().map { [.text($0)] })
        let tokens = Set(own.filter { $0.key.kind == .device }.map(\.key.key))
        return own.filter { $0.key.kind == .closed } + (try pushRows(ofTokens: tokens))
    }

    func pushRows(ofTokens tokens: Set<String>) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("token = ?", tokens.sorted().map { [.text($0)] })
    }

    func duePushRows(at now: Int64, horizon: Int64) throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("kind = ? AND at <= ?", [[.text("group"), .integer(now)], [.text("last"), .integer(horizon)]])
            + pushRows("kind = 'proof'", [[]])
    }

    func deviceRows() throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("kind = 'device'", [[]])
    }

    func allPushRows() throws(FeedError) -> [(key: PushOutbox.Row.Key, value: [UInt8])] {
        try pushRows("1", [[]])
    }
}
