import Foundation
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
/// people and it starts without reading their registers. A read runs in one `REPEATABLE READ`
/// snapshot of the numbered registers. A write runs `SERIALIZABLE` (again, when PostgreSQL finds
/// it raced another on the same rows) and takes no lock that another person's write takes: its
/// changed registers wait in a batch, and the sequencer numbers them once they committed
/// (``sequence(through:on:name:)``), so a reader's cursor never passes a write that commits late
/// (FEED-25).
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

    /// How many times a write runs again after PostgreSQL failed it to serialize it with another.
    static var attempts: Int { 16 }

    /// Runs `body` on the part of the relay `load` names, read from the database now, and keeps
    /// what it changed before returning (``FeedRelayStore``). A write that changed registers is
    /// numbered by the sequencer once it committed (``sequence(through:on:)``), and answers the
    /// last number its changes were given.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of another database, or when a row
    ///   cannot be read or kept, or the database does not answer within its wait; the body's
    ///   ``FeedError``, with nothing kept.
    public func update<T>(
        loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> (result: T, sequence: UInt64)? {
        if let reading, !confirms(reading) {
            throw FeedError.storage("the relay's database \(name) cannot confirm a reading of \(reading)")
        }
        do {
            for _ in 0..<Self.attempts {
                let outcome = try pool.withConnection { (connection) throws(StoreError) -> Attempt<T> in
                    try attempt(load, writing: writing, confirming: reading, on: connection, body)
                }
                switch outcome {
                case .lostRace: continue
                case .unconfirmed: return nil
                case .refused(let error): throw error
                case .done(let result, let sequence, nil):
                    // A write that changed no register (the push dispatcher's, each second) numbers
                    // what a process that died after its commit left waiting.
                    if writing {
                        try pool.withConnection { (connection) throws(StoreError) in try leftovers(connection) }
                    }
                    return (result, sequence)
                case .done(let result, _, let batch?):
                    let sequence = try pool.withConnection { (connection) throws(StoreError) in
                        try Self.sequence(through: batch, on: connection, name: name)
                    }
                    return (result, sequence)
                }
            }
            throw StoreError(
                .busy, "other writes of the same rows won \(Self.attempts) times while this one tried", path: name)
        } catch let error as FeedError {
            throw error
        } catch {
            throw FeedError.storage("the relay's rows could not be read or kept: \(error)")
        }
    }

    /// How one try of an update went.
    private enum Attempt<T> {
        /// Kept: the body's result, the relay's last number as the transaction saw it, and the
        /// batch its changed registers wait in for their numbers, if any.
        case done(T, UInt64, batch: Int64?)
        /// The body refused: nothing kept.
        case refused(FeedError)
        /// The reading to confirm no longer holds: nothing ran.
        case unconfirmed
        /// PostgreSQL failed it to serialize it with another write: try again.
        case lostRace
    }

    /// One try, in one transaction: a read in one `REPEATABLE READ` snapshot of the numbered
    /// registers; a write `SERIALIZABLE`, on the registers with the changes still waiting for
    /// their numbers merged in, its own changed registers left waiting in a new batch.
    private func attempt<T>(
        _ load: RelayLoad, writing: Bool, confirming reading: StoreReading?, on connection: PostgresConnection,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(StoreError) -> Attempt<T> {
        do {
            return try Self.transaction(on: connection, name: name, begin: writing ? Self.write : Self.read) {
                () throws(StoreError) -> Attempt<T> in
                if let reading,
                    try !Self.postgres(
                        { () throws(PostgresError) in try accountReadingHolds(reading, on: connection) }, name)
                {
                    return .unconfirmed
                }
                let rows = PostgresRelayRows(connection, name: name, pending: writing)
                var relay: FeedRelayState
                do throws(FeedError) {
                    relay = try FeedRelayState.loading(load, from: rows)
                } catch {
                    throw rows.failure ?? StoreError(.corrupt, error.message, path: name)
                }
                let (before, ends, receipts) = (relay.sequence, relay.ends, relay.replica.receipts)
                let result: T
                do throws(FeedError) {
                    result = try body(&relay)
                } catch {
                    return .refused(error)
                }
                guard writing else { return .done(result, relay.sequence, batch: nil) }
                let batch = try Self.keep(
                    relay, since: before, ends: ends, receipts: receipts, on: connection, name: name)
                return .done(result, before, batch: batch)
            }
        } catch  where error.code == .busy && error.message.hasPrefix(Self.lostRace) {
            return .lostRace
        }
    }

    /// How a write begins: `SERIALIZABLE`, run again when PostgreSQL finds it raced another.
    static let write = "BEGIN ISOLATION LEVEL SERIALIZABLE"
    /// How a read begins: one `REPEATABLE READ` snapshot of the numbered registers.
    static let read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body` in one transaction on `connection`, begun by `begin` (``write``, ``read``, or
    /// the sequencer's plain `BEGIN`). Rolled back when it throws.
    static func transaction<T>(
        on connection: PostgresConnection, name: String, begin: String, _ body: () throws(StoreError) -> T
    ) throws(StoreError) -> T {
        do throws(StoreError) {
            do throws(PostgresError) {
                try connection.execute(begin)
            } catch {
                // A connection the database dropped (a restart) fails here, before anything of the
                // update was sent: the pool forgets it and the update runs again on another, so the
                // first request after a restart is served, not refused.
                if !connection.isUsable { throw StoreError(.busy, lostRace + error.message, path: name) }
                throw StoreError(.writeFailed, "the relay's rows: \(error.message)", path: name)
            }
            let result = try body()
            _ = try postgres({ () throws(PostgresError) in try connection.execute("COMMIT") }, name)
            return result
        } catch {
            // A failed rollback means the connection is gone: the pool drops it.
            do { try connection.execute("ROLLBACK") } catch {}
            throw error
        }
    }

    /// How ``postgres(_:_:)`` begins the message of a failure after which an update runs again:
    /// a serialization failure, or a connection found dropped before the update began.
    static let lostRace = "to be run again: "

    /// `body`'s PostgreSQL failure as the storage layer's.
    static func postgres<T>(_ body: () throws(PostgresError) -> T, _ name: String) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            if error.sqlState == "40001" || error.sqlState == "40P01" {
                throw StoreError(.busy, lostRace + error.message, path: name)
            }
            throw StoreError(.writeFailed, "the relay's rows: \(error.message)", path: name)
        }
    }

    /// Keeps what a write changed, inside its transaction: the registers it changed after sequence
    /// number `before` wait in a new batch of `relay_pending`, in the order their numbers go
    /// (FEED-25), each with whether its visibility stopped being public or shared (its `ends`
    /// before the write were `ends`) and whether it is an item received for the first time
    /// (FEED-26); the push rows it changed are written as they are. Answers the batch, nil when no
    /// register changed.
    static func keep(
        _ relay: FeedRelayState, since before: UInt64, ends: [FeedReplica.GoalKey: VisibilityEnds],
        receipts: [FeedItemID: Int64], on connection: PostgresConnection, name: String
    ) throws(StoreError) -> Int64? {
        let rows = PushRows.changed(relay)
        var columns: [(person: String?, token: String?, at: Int64?)] = []
        for row in rows {
            guard let value = row.value else {
                columns.append((nil, nil, nil))
                continue
            }
            columns.append(try PushRows.columns(kind: row.kind, key: row.key, value: value, path: name))
        }
        return try postgres(
            { () throws(PostgresError) -> Int64? in
                for (row, index) in zip(rows, columns) {
                    guard let value = row.value else {
                        try connection.execute(
                            "DELETE FROM relay_pushes WHERE kind = $1 AND key = $2", [.text(row.kind), .text(row.key)])
                        continue
                    }
                    try connection.execute(
                        "INSERT INTO relay_pushes (kind, key, value, version, person, token, at) "
                            + "VALUES ($1, $2, $3, 0, $4, $5, $6) ON CONFLICT (kind, key) DO UPDATE SET value = $3, "
                            + "person = $4, token = $5, at = $6",
                        [
                            .text(row.kind), .text(row.key), .bytes(value), index.person.map { .text($0) } ?? .null,
                            index.token.map { .text($0) } ?? .null, index.at.map { .int($0) } ?? .null,
                        ])
                }
                let changed = relay.registers(after: before)
                guard !changed.isEmpty else { return nil }
                let batch = try connection.execute("SELECT nextval('relay_batch') AS batch").int(0, "batch")
                for (position, register) in changed.enumerated() {
                    var flags: Int64 = 0
                    if case .visibility(let goal) = register.key {
                        let old = ends[goal] ?? VisibilityEnds()
                        if register.ends.publicUntil != old.publicUntil { flags |= 1 }
                        if register.ends.sharedUntil != old.sharedUntil { flags |= 2 }
                    }
                    var received = false
                    if case .item(let id) = register.key { received = receipts[id] == nil }
                    try connection.execute(
                        "INSERT INTO relay_pending (batch, position, key, register, ends, received, kind, party, other, "
                            + "item, is_public) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                        [
                            .int(batch), .int(Int64(position)), .text(register.key.storageKey),
                            .bytes(register.delta.wireEncoded()), .int(flags), .int(received ? 1 : 0),
                        ] + Self.indexValues(register))
                }
                return batch
            }, name)
    }

    /// Numbers the changes waiting, when any wait: what a writer that died between its commit and
    /// its numbering left.
    ///
    /// - Throws: ``StoreError`` when the database fails.
    func leftovers(_ connection: PostgresConnection) throws(StoreError) {
        let waiting = try Self.postgres(
            { () throws(PostgresError) in try connection.execute("SELECT 1 AS n FROM relay_pending LIMIT 1") }, name)
        if !waiting.rows.isEmpty { try Self.numberWaiting(on: connection, name: name) }
    }

    /// A register's index columns (``RelayKey/indexColumns``) and whether it is a public goal's
    /// visibility, as the values of `kind, party, other, item, is_public`.
    package static func indexValues(_ register: FeedRelayState.StoredRegister) -> [PostgresValue] {
        let columns = register.key.indexColumns
        return [
            .text(columns.kind), .text(columns.party), columns.other.map { .text($0) } ?? .null,
            columns.item.map { .text($0) } ?? .null, .int(register.isPublic ? 1 : 0),
        ]
    }

    /// The advisory lock the sequencer holds while it numbers (the letters GLSQ).
    package static let sequencerLock: Int64 = 0x474C_5351

    /// The last sequence number the changes of `batch` were given, once they have them: numbers
    /// the batches waiting, as many times as it takes for `batch` to be among them.
    ///
    /// The sequencer (FEED-25's numbers, FEED-26's receipt times) runs after the writes it numbers
    /// have committed, one run at a time under an advisory lock, each in one transaction: it takes
    /// every batch that waits, in batch order, gives each change the next number (and each item
    /// received for the first time the next receipt time), writes the registers as they now are
    /// and takes the batches out. A reader's snapshot holds every number a run gave or none of
    /// them, and a later run gives greater numbers, so a reader's cursor (the greatest number its
    /// snapshot holds) never passes a change that is numbered later: a write that commits late is
    /// numbered late. Writes of different people never wait for each other; only the short runs do,
    /// each of which numbers every write waiting, and a run held by a paused process ends with its
    /// session at the database's wait.
    ///
    /// - Throws: ``StoreError`` when the database fails or does not answer in time.
    static func sequence(through batch: Int64, on connection: PostgresConnection, name: String) throws(StoreError)
        -> UInt64
    {
        // Each run numbers every batch committed before it, this one's included: a second run
        // is needed only when another process's run began before this batch committed.
        for _ in 0..<3 {
            let done = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "DELETE FROM relay_batches WHERE batch = $1 RETURNING sequence", [.int(batch)])
                }, name)
            if !done.rows.isEmpty {
                return UInt64(clamping: try postgres({ () throws(PostgresError) in try done.int(0, "sequence") }, name))
            }
            try numberWaiting(on: connection, name: name)
        }
        throw StoreError(.busy, "the batch \(batch) of the relay's changes was not numbered", path: name)
    }

    /// One run of the sequencer (``sequence(through:on:name:)``).
    static func numberWaiting(on connection: PostgresConnection, name: String) throws(StoreError) {
        try transaction(on: connection, name: name, begin: "BEGIN") { () throws(StoreError) in
            let waiting = try postgres(
                { () throws(PostgresError) in
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(sequencerLock)])
                    return try connection.execute(
                        "SELECT batch, key, register, ends, received FROM relay_pending ORDER BY batch, position")
                }, name)
            if !waiting.rows.isEmpty { try number(waiting, on: connection, name: name) }
        }
    }

    /// Numbers the changes `waiting` holds, in their order, inside the sequencer's transaction.
    private static func number(_ waiting: PostgresResult, on connection: PostgresConnection, name: String)
        throws(StoreError)
    {
        var last = UInt64(
            clamping: try postgres(
                { () throws(PostgresError) in
                    try connection.execute("SELECT coalesce(max(sequence), 0) AS n FROM relay_registers").int(0, "n")
                }, name))
        var lastReceipt = try postgres(
            { () throws(PostgresError) in
                try connection.execute("SELECT last_receipt FROM relay_clock").int(0, "last_receipt")
            }, name)
        var current: [String: FeedRelayState.StoredRegister] = [:]
        var batches: [(batch: Int64, sequence: UInt64)] = []
        for index in 0..<waiting.rows.count {
            let (batch, key, bytes, flags, received) = try postgres(
                { () throws(PostgresError) in
                    (
                        try waiting.int(index, "batch"), try waiting.text(index, "key"),
                        try waiting.bytes(index, "register"), try waiting.int(index, "ends"),
                        try waiting.int(index, "received") == 1
                    )
                }, name)
            let change: FeedReplica
            do { change = try FeedReplica(wire: bytes) } catch {
                throw StoreError(.corrupt, "a waiting relay change does not read: \(error)", path: name)
            }
            guard let relayKey = FeedRelayState.StoredRegister(sequence: 1, delta: change)?.key else {
                throw StoreError(.corrupt, "a waiting relay change holds no register", path: name)
            }
            if current[key] == nil {
                let found = try postgres(
                    { () throws(PostgresError) in
                        try connection.execute(
                            "SELECT sequence, register, public_until, shared_until FROM relay_registers WHERE key = $1",
                            [.text(key)])
                    }, name)
                if !found.rows.isEmpty { current[key] = try PostgresRelayRows.register(found, 0, name: name) }
            }
            last += 1
            let held = current[key]
            var delta = held?.delta ?? FeedReplica()
            if case .item(let id) = relayKey, let register = change.items[id] {
                // The item's register as the write left it; its receipt time is the sequencer's
                // (FEED-26): the write's own, or the next after the last one given.
                var item = FeedReplica()
                item.writeItem(register.value, id: id, at: register.stamp)
                delta.merge(item)
                if received, delta.receipts[id] == nil {
                    lastReceipt = max(change.receipts[id] ?? 0, lastReceipt &+ 1)
                    delta.receive(item: id, at: lastReceipt)
                }
            } else {
                delta.merge(change)
            }
            var ends = held?.ends ?? VisibilityEnds()
            if flags & 1 != 0 { ends.publicUntil = last }
            if flags & 2 != 0 { ends.sharedUntil = last }
            guard let register = FeedRelayState.StoredRegister(sequence: last, delta: delta, ends: ends) else {
                throw StoreError(.corrupt, "a relay register merged to nothing", path: name)
            }
            current[key] = register
            _ = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "INSERT INTO relay_registers (key, sequence, register, version, public_until, shared_until, "
                            + "kind, party, other, item, is_public) VALUES ($1, $2, $3, 0, $4, $5, $6, $7, $8, $9, $10) "
                            + "ON CONFLICT (key) DO UPDATE SET sequence = $2, register = $3, public_until = $4, "
                            + "shared_until = $5, kind = $6, party = $7, other = $8, item = $9, is_public = $10",
                        [
                            .text(key), .int(Int64(clamping: last)), .bytes(delta.wireEncoded()),
                            .int(Int64(clamping: ends.publicUntil)), .int(Int64(clamping: ends.sharedUntil)),
                        ] + indexValues(register))
                }, name)
            if batches.last?.batch == batch {
                batches[batches.count - 1].sequence = last
            } else {
                batches.append((batch, last))
            }
        }
        _ = try postgres(
            { () throws(PostgresError) in
                for (batch, sequence) in batches {
                    try connection.execute("DELETE FROM relay_pending WHERE batch = $1", [.int(batch)])
                    try connection.execute(
                        "INSERT INTO relay_batches (batch, sequence) VALUES ($1, $2)",
                        [.int(batch), .int(Int64(clamping: sequence))])
                }
                // A batch whose writer never came for its number (a process gone) is forgotten
                // a million batches later.
                if let newest = batches.last?.batch {
                    try connection.execute("DELETE FROM relay_batches WHERE batch < $1", [.int(newest - 1_000_000)])
                }
                try connection.execute("UPDATE relay_clock SET last_receipt = $1", [.int(lastReceipt)])
            }, name)
    }

    /// Gives the rows an older version wrote, before the rows had index columns, theirs, in one
    /// transaction; a database without such rows costs one look at each partial index.
    static func indexOlderRows(_ connection: PostgresConnection, name: String) throws(StoreError) {
        try transaction(on: connection, name: name, begin: write) { () throws(StoreError) in
            let found = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "SELECT key, sequence, register, public_until, shared_until FROM relay_registers "
                            + "WHERE kind IS NULL")
                }, name)
            for index in 0..<found.rows.count {
                let register = try PostgresRelayRows.register(found, index, name: name)
                _ = try postgres(
                    { () throws(PostgresError) in
                        try connection.execute(
                            "UPDATE relay_registers SET kind = $1, party = $2, other = $3, item = $4, is_public = $5 "
                                + "WHERE key = $6",
                            indexValues(register) + [.text(register.key.storageKey)])
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

    /// Whether the changes still waiting for their numbers are read too (a write's), merged
    /// into the registers they change, which then read as changed at no number.
    private let pending: Bool

    init(_ connection: PostgresConnection, name: String, pending: Bool = false) {
        self.connection = connection
        self.name = name
        self.pending = pending
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
        "\(column) IN (SELECT jsonb_array_elements_text(($1::text)::jsonb))"
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
                "kind = 'item' AND (party, other) IN (SELECT goal->>0, goal->>1 FROM "
                    + "jsonb_array_elements(($1::text)::jsonb) AS goal)", list(goals.map { [$0.owner, $0.goal] }))
    }

    func stances(of person: String) throws(FeedError) -> [FeedRelayState.StoredRegister] {
        try registers("kind = 'stance' AND party = $1", [[.text(person)]])
            + registers("kind = 'stance' AND other = $1 AND party != $1", [[.text(person)]])
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

    func floors(of numbers: [UInt64], after cursor: UInt64) throws(FeedError) -> [UInt64: UInt64] {
        guard !numbers.isEmpty else { return [:] }
        let bound = try list(numbers.map { "\(Int64(clamping: $0))" })[0] + [.int(Int64(clamping: cursor))]
        return try reading { () throws(StoreError) in
            let result = try query(
                "SELECT number, coalesce((SELECT max(sequence) FROM relay_registers WHERE sequence < number "
                    + "AND sequence > $2), 0) AS floor FROM (SELECT number::bigint AS number FROM "
                    + "jsonb_array_elements_text(($1::text)::jsonb) AS number) AS numbers", bound)
            var floors: [UInt64: UInt64] = [:]
            for index in 0..<result.rows.count {
                let (number, floor) = try PostgresFeedRelayStore.postgres(
                    { () throws(PostgresError) in (try result.int(index, "number"), try result.int(index, "floor")) },
                    name)
                if floor > 0 { floors[UInt64(clamping: number)] = UInt64(clamping: floor) }
            }
            return floors
        }
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
