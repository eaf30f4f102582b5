import GlowCore
import GlowModel
import GlowPostgres
import GlowRelay
import GlowStorage
import GlowSync

/// People's sync logs (Spec/sync.md 11.4) in PostgreSQL, shared by every process: a call is one
/// transaction on one person's rows, read by index (`SERIALIZABLE` for a push, run again when
/// PostgreSQL finds it raced another push of the same person; one `REPEATABLE READ` snapshot for a
/// pull), so its cost does not grow with the log's length or the number of people.
public final class PostgresSyncLogStore: SyncLogStore {
    /// The database, as its owner named it (without a password).
    public let name: String
    let pool: PostgresConnectionPool

    init(name: String, pool: PostgresConnectionPool) {
        self.name = name
        self.pool = pool
    }

    /// Whether `reading` is of this database.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == name }

    /// How many times a push runs again after PostgreSQL failed it to serialize it with another.
    static var attempts: Int { 16 }

    /// What every log of the database keeps (``SyncLogStore``), in a read of its own that takes no
    /// lock a push waits on.
    public func keptByEveryLog() throws(SyncError) -> Int64 {
        let answer: Result<Int64, PostgresError>
        do {
            answer = try pool.withConnection { (connection) throws(StoreError) -> Result<Int64, PostgresError> in
                Result { () throws(PostgresError) -> Int64 in
                    let result = try connection.execute(
                        "SELECT (SELECT coalesce(sum(bytes), 0) FROM sync_logs)::bigint AS bytes, "
                            + "(SELECT count(*) FROM sync_heads)::bigint AS heads")
                    return try result.int(0, "bytes") + result.int(0, "heads") * SyncLog.headBytes
                }
            }
        } catch {
            throw SyncError(.storageFailed, "the sync logs' sizes could not be read: \(error)", rule: nil)
        }
        switch answer {
        case .success(let bytes): return bytes
        case .failure(let error):
            throw SyncError(.storageFailed, "the sync logs' sizes could not be read: \(error.message)", rule: nil)
        }
    }

    /// Runs `body` on `person`'s rows in one transaction (``SyncLogStore``); a refusal rolls back.
    public func update<T>(
        person: String, writing: Bool, confirming reading: StoreReading?,
        _ body: (any SyncLogRows) throws(SyncError) -> T
    ) throws(SyncError) -> T? {
        if let reading, !confirms(reading) {
            throw SyncError(.storageFailed, "the sync log's database \(name) cannot confirm \(reading)", rule: nil)
        }
        for _ in 0..<Self.attempts {
            let outcome: Attempt<T>
            do {
                outcome = try pool.withConnection { (connection) throws(StoreError) -> Attempt<T> in
                    try attempt(person: person, writing: writing, reading: reading, on: connection, body)
                }
            } catch {
                throw SyncError(.storageFailed, "the sync log's rows could not be read or kept: \(error)", rule: nil)
            }
            switch outcome {
            case .done(let result): return result
            case .unconfirmed: return nil
            case .refused(let error): throw error
            case .lostRace: continue
            }
        }
        throw SyncError(
            .storageFailed, "other pushes of the same log won \(Self.attempts) times while this one tried", rule: nil)
    }

    private enum Attempt<T> {
        case done(T)
        case refused(SyncError)
        case unconfirmed
        case lostRace
    }

    private func attempt<T>(
        person: String, writing: Bool, reading: StoreReading?, on connection: PostgresConnection,
        _ body: (any SyncLogRows) throws(SyncError) -> T
    ) throws(StoreError) -> Attempt<T> {
        let rows = PostgresSyncLogRows(connection: connection, person: person)
        var began = false
        // A commit ends the transaction whatever it answers: nothing is rolled back after it
        // (which PostgreSQL would answer with a warning that no transaction is in progress).
        var committing = false
        do throws(PostgresError) {
            try connection.execute(
                writing ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            began = true
            if let reading, try !accountReadingHolds(reading, on: connection) {
                Self.rollBack(connection)
                return .unconfirmed
            }
            let outcome: Attempt<T>
            do throws(SyncError) {
                outcome = .done(try body(rows))
            } catch {
                outcome = .refused(error)
            }
            // A decision made on a row that did not read is never kept, nor answered.
            if let failure = rows.failure { throw failure }
            if case .done = outcome {
                committing = true
                try connection.execute("COMMIT")
            } else {
                Self.rollBack(connection)
            }
            return outcome
        } catch {
            if !committing { Self.rollBack(connection) }
            if error.sqlState == "40001" || error.sqlState == "40P01" || error.sqlState == "23505" { return .lostRace }
            // A connection the database dropped (a restart) fails at its first statement: the pool
            // forgets it, and the call runs again on another.
            if !began && !connection.isUsable { return .lostRace }
            throw StoreError(.writeFailed, "the sync log's rows: \(error.message)", path: name)
        }
    }

    private static func rollBack(_ connection: PostgresConnection) {
        // A failed rollback means the connection is gone; the pool drops it.
        do { try connection.execute("ROLLBACK") } catch {}
    }
}

/// One person's rows on a connection inside its transaction.
final class PostgresSyncLogRows: SyncLogRows {
    let connection: PostgresConnection
    let person: String
    /// The first failure of a statement: the transaction is not kept.
    private(set) var failure: PostgresError?

    init(connection: PostgresConnection, person: String) {
        self.connection = connection
        self.person = person
    }

    private func query(_ sql: String, _ values: [PostgresValue]) throws(SyncError) -> PostgresResult {
        do {
            return try connection.execute(sql, [.text(person)] + values)
        } catch {
            if failure == nil { failure = error }
            throw SyncError(.storageFailed, "the sync log's rows: \(error.message)", rule: nil)
        }
    }

    private func read<T>(_ body: () throws(PostgresError) -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            if failure == nil { failure = error }
            throw SyncError(.storageFailed, "a sync log row does not read: \(error.message)", rule: nil)
        }
    }

    func summary() throws(SyncError) -> SyncLogSummary? {
        let result = try query("SELECT key_id, next_position, bytes FROM sync_logs WHERE person = $1", [])
        guard !result.rows.isEmpty else { return nil }
        return try read { () throws(PostgresError) in
            SyncLogSummary(
                keyID: try result.bytes(0, "key_id"),
                nextPosition: UInt64(clamping: try result.int(0, "next_position")),
                bytes: try result.int(0, "bytes"))
        }
    }

    func head(of device: DeviceID) throws(SyncError) -> SyncHead? {
        let result = try query(
            "SELECT sequence, hash FROM sync_heads WHERE person = $1 AND device = $2", [.bytes(device.bytes)])
        guard !result.rows.isEmpty else { return nil }
        return try read { () throws(PostgresError) in
            SyncHead(
                device: device, sequence: UInt64(clamping: try result.int(0, "sequence")),
                hash: try result.bytes(0, "hash"))
        }
    }

    func heads() throws(SyncError) -> [SyncHead] {
        let result = try query("SELECT device, sequence, hash FROM sync_heads WHERE person = $1 ORDER BY device", [])
        return try read { () throws(PostgresError) in
            try (0..<result.rows.count).map { (row) throws(PostgresError) in
                SyncHead(
                    device: try Self.device(result.bytes(row, "device")),
                    sequence: UInt64(clamping: try result.int(row, "sequence")), hash: try result.bytes(row, "hash"))
            }
        }
    }

    func record(of device: DeviceID, sequence: UInt64) throws(SyncError) -> [UInt8]? {
        let result = try query(
            "SELECT record FROM sync_records WHERE person = $1 AND device = $2 AND sequence = $3",
            [.bytes(device.bytes), .int(Int64(clamping: sequence))])
        guard !result.rows.isEmpty else { return nil }
        return try read { () throws(PostgresError) in try result.bytes(0, "record") }
    }

    func records(after position: UInt64, limit: Int, skippingBytesOf device: DeviceID) throws(SyncError)
        -> [SyncLogRow]
    {
        let result = try query(
            "SELECT position, device, sequence, CASE WHEN device = $2 THEN NULL ELSE record END AS record "
                + "FROM sync_records WHERE person = $1 AND position > $3 ORDER BY position LIMIT $4",
            [.bytes(device.bytes), .int(Int64(clamping: position)), .int(Int64(limit))])
        return try read { () throws(PostgresError) in
            try (0..<result.rows.count).map { (row) throws(PostgresError) in
                let bytes: [UInt8]? =
                    if case .null = try result.cell(row, "record") { nil } else { try result.bytes(row, "record") }
                return SyncLogRow(
                    position: UInt64(clamping: try result.int(row, "position")),
                    device: try Self.device(result.bytes(row, "device")),
                    sequence: UInt64(clamping: try result.int(row, "sequence")), bytes: bytes)
            }
        }
    }

    func apply(_ changes: SyncLogChanges) throws(SyncError) {
        if let before = changes.dropBefore {
            _ = try query(
                "DELETE FROM sync_records WHERE person = $1 AND position < $2", [.int(Int64(clamping: before))])
        }
        for row in changes.rows {
            _ = try query(
                "INSERT INTO sync_records (person, position, device, sequence, record) VALUES ($1, $2, $3, $4, $5)",
                [
                    .int(Int64(clamping: row.position)), .bytes(row.device.bytes),
                    .int(Int64(clamping: row.sequence)), .bytes(row.bytes ?? []),
                ])
        }
        for head in changes.heads {
            _ = try query(
                "INSERT INTO sync_heads (person, device, sequence, hash) VALUES ($1, $2, $3, $4) "
                    + "ON CONFLICT (person, device) DO UPDATE SET sequence = EXCLUDED.sequence, hash = EXCLUDED.hash",
                [.bytes(head.device.bytes), .int(Int64(clamping: head.sequence)), .bytes(head.hash)])
        }
        _ = try query(
            "INSERT INTO sync_logs (person, key_id, next_position, bytes) VALUES ($1, $2, $3, $4) "
                + "ON CONFLICT (person) DO UPDATE SET key_id = EXCLUDED.key_id, "
                + "next_position = EXCLUDED.next_position, bytes = EXCLUDED.bytes",
            [
                .bytes(changes.summary.keyID), .int(Int64(clamping: changes.summary.nextPosition)),
                .int(changes.summary.bytes),
            ])
    }

    func erase() throws(SyncError) {
        _ = try query("DELETE FROM sync_records WHERE person = $1", [])
        _ = try query("DELETE FROM sync_heads WHERE person = $1", [])
        _ = try query("DELETE FROM sync_logs WHERE person = $1", [])
        _ = try query("DELETE FROM sync_pairings WHERE person = $1", [])
    }

    func liveOffers(at now: Int64) throws(SyncError) -> [[UInt8]] {
        _ = try query("DELETE FROM sync_pairings WHERE person = $1 AND expires <= $2", [.int(now)])
        let result = try query("SELECT slot FROM sync_pairings WHERE person = $1", [])
        return try read { () throws(PostgresError) in
            try (0..<result.rows.count).map { (row) throws(PostgresError) in try result.bytes(row, "slot") }
        }
    }

    func offer(slot: [UInt8], sealed: [UInt8], expires: Int64) throws(SyncError) {
        _ = try query(
            "INSERT INTO sync_pairings (person, slot, sealed, expires) VALUES ($1, $2, $3, $4) "
                + "ON CONFLICT (person, slot) DO UPDATE SET sealed = EXCLUDED.sealed, expires = EXCLUDED.expires",
            [.bytes(slot), .bytes(sealed), .int(expires)])
    }

    func take(slot: [UInt8]) throws(SyncError) -> [UInt8]? {
        let result = try query(
            "DELETE FROM sync_pairings WHERE person = $1 AND slot = $2 RETURNING sealed", [.bytes(slot)])
        guard !result.rows.isEmpty else { return nil }
        return try read { () throws(PostgresError) in try result.bytes(0, "sealed") }
    }

    /// A device column: 16 bytes, or the row is not one this server wrote.
    private static func device(_ bytes: [UInt8]) throws(PostgresError) -> DeviceID {
        guard bytes.count == 16 else {
            throw PostgresError(.queryFailed, "a sync log row's device is \(bytes.count) bytes, not 16")
        }
        return DeviceID(bytes: bytes)
    }
}
