import GlowCore
import GlowModel
import GlowRelay
import GlowStorage
import GlowSync

/// People's sync logs (Spec/sync.md 11.4) in the server's SQLite file, on a connection of their
/// own: a call is one transaction on one person's rows, read by index, so its cost does not grow
/// with the log's length or the number of people.
public final class SQLiteSyncLogStore: SyncLogStore {
    /// The file's path.
    public let path: String
    private let connection: SQLiteServerConnection

    /// The sync log of the server database at `path`, which must be there; each call waits at
    /// most `wait` seconds for the file (``SQLiteServerConnection``).
    ///
    /// - Throws: ``StoreError`` as opening the server database does.
    public init(path: String, wait: Double = SQLiteServerDatabase.standardWait) throws(StoreError) {
        self.path = path
        connection = SQLiteServerConnection(try DatabaseSchema.server.open(path: path, create: false), wait: wait)
    }

    /// Whether `reading` is of this file.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == path }

    /// What every log of the file keeps (``SyncLogStore``), in a read of its own.
    public func keptByEveryLog() throws(SyncError) -> Int64 {
        do {
            return try connection.withConnection { (connection) throws(StoreError) -> Int64 in
                try connection.transaction(immediate: false) { () throws(StoreError) -> Int64 in
                    try connection.integer("SELECT coalesce(sum(bytes), 0) FROM sync_logs")
                        + connection.integer("SELECT count(*) FROM sync_heads") * SyncLog.headBytes
                }
            }
        } catch {
            throw SyncError(.storageFailed, "the sync logs' sizes could not be read: \(error)", rule: nil)
        }
    }

    /// Runs `body` on `person`'s rows in one transaction (``SyncLogStore``); a refusal rolls back.
    public func update<T>(
        person: String, writing: Bool, confirming reading: StoreReading?,
        _ body: (any SyncLogRows) throws(SyncError) -> T
    ) throws(SyncError) -> T? {
        if let reading, !confirms(reading) {
            throw SyncError(.storageFailed, "the sync log's file \(path) cannot confirm \(reading)", rule: nil)
        }
        var refusal: SyncError?
        var result: T?
        do {
            try connection.withConnection { (connection) throws(StoreError) in
                result = try connection.transaction(immediate: writing) { () throws(StoreError) -> T? in
                    if let reading, try !accountReadingHolds(reading, on: connection) { return nil }
                    let rows = SQLiteSyncLogRows(connection: connection, person: person)
                    do throws(SyncError) {
                        return try body(rows)
                    } catch {
                        refusal = error
                        // Thrown on, so that the transaction rolls back what the body kept.
                        throw rows.failure ?? StoreError(.writeFailed, "refused", path: path)
                    }
                }
            }
        } catch {
            if let refusal { throw refusal }
            throw SyncError(.storageFailed, "the sync log's rows could not be read or kept: \(error)", rule: nil)
        }
        return result
    }
}

/// One person's rows on a connection inside its transaction.
final class SQLiteSyncLogRows: SyncLogRows {
    let connection: SQLiteConnection
    let person: String
    /// The storage failure behind the last `storage_failed` these rows threw.
    private(set) var failure: StoreError?

    init(connection: SQLiteConnection, person: String) {
        self.connection = connection
        self.person = person
    }

    private func rows<T>(_ sql: String, _ values: [Statement.Value], _ row: (Statement) -> T) throws(SyncError) -> [T] {
        do {
            let statement = try connection.prepare(sql)
            try statement.bind([.text(person)] + values)
            var result: [T] = []
            while try statement.step() { result.append(row(statement)) }
            return result
        } catch {
            failure = error
            throw SyncError(.storageFailed, "the sync log's rows could not be read: \(error)", rule: nil)
        }
    }

    private func run(_ sql: String, _ values: [Statement.Value]) throws(SyncError) {
        do {
            try connection.prepare(sql).run([.text(person)] + values)
        } catch {
            failure = error
            throw SyncError(.storageFailed, "the sync log's rows could not be kept: \(error)", rule: nil)
        }
    }

    func summary() throws(SyncError) -> SyncLogSummary? {
        try rows("SELECT key_id, next_position, bytes FROM sync_logs WHERE person = ?", []) {
            SyncLogSummary(keyID: $0.blob(0), nextPosition: UInt64(clamping: $0.integer(1)), bytes: $0.integer(2))
        }.first
    }

    func head(of device: DeviceID) throws(SyncError) -> SyncHead? {
        try rows("SELECT sequence, hash FROM sync_heads WHERE person = ? AND device = ?", [.blob(device.bytes)]) {
            SyncHead(device: device, sequence: UInt64(clamping: $0.integer(0)), hash: $0.blob(1))
        }.first
    }

    func heads() throws(SyncError) -> [SyncHead] {
        try rows("SELECT device, sequence, hash FROM sync_heads WHERE person = ? ORDER BY device", []) {
            SyncHead(device: DeviceID(bytes: $0.blob(0)), sequence: UInt64(clamping: $0.integer(1)), hash: $0.blob(2))
        }
    }

    func record(of device: DeviceID, sequence: UInt64) throws(SyncError) -> [UInt8]? {
        try rows(
            "SELECT record FROM sync_records WHERE person = ? AND device = ? AND sequence = ?",
            [.blob(device.bytes), .integer(Int64(clamping: sequence))]
        ) { $0.blob(0) }.first
    }

    func records(after position: UInt64, limit: Int, skippingBytesOf device: DeviceID) throws(SyncError)
        -> [SyncLogRow]
    {
        try rows(
            "SELECT position, device, sequence, CASE WHEN device = ?2 THEN NULL ELSE record END FROM sync_records "
                + "WHERE person = ?1 AND position > ?3 ORDER BY position LIMIT ?4",
            [.blob(device.bytes), .integer(Int64(clamping: position)), .integer(Int64(limit))]
        ) {
            SyncLogRow(
                position: UInt64(clamping: $0.integer(0)), device: DeviceID(bytes: $0.blob(1)),
                sequence: UInt64(clamping: $0.integer(2)), bytes: $0.isNull(3) ? nil : $0.blob(3))
        }
    }

    func apply(_ changes: SyncLogChanges) throws(SyncError) {
        if let before = changes.dropBefore {
            try run("DELETE FROM sync_records WHERE person = ? AND position < ?", [.integer(Int64(clamping: before))])
        }
        for row in changes.rows {
            try run(
                "INSERT INTO sync_records (person, position, device, sequence, record) VALUES (?, ?, ?, ?, ?)",
                [
                    .integer(Int64(clamping: row.position)), .blob(row.device.bytes),
                    .integer(Int64(clamping: row.sequence)), .blob(row.bytes ?? []),
                ])
        }
        for head in changes.heads {
            try run(
                "INSERT OR REPLACE INTO sync_heads (person, device, sequence, hash) VALUES (?, ?, ?, ?)",
                [.blob(head.device.bytes), .integer(Int64(clamping: head.sequence)), .blob(head.hash)])
        }
        try run(
            "INSERT OR REPLACE INTO sync_logs (person, key_id, next_position, bytes) VALUES (?, ?, ?, ?)",
            [
                .blob(changes.summary.keyID), .integer(Int64(clamping: changes.summary.nextPosition)),
                .integer(changes.summary.bytes),
            ])
    }

    func erase() throws(SyncError) {
        try run("DELETE FROM sync_records WHERE person = ?", [])
        try run("DELETE FROM sync_heads WHERE person = ?", [])
        try run("DELETE FROM sync_logs WHERE person = ?", [])
        try run("DELETE FROM sync_pairings WHERE person = ?", [])
    }

    func liveOffers(at now: Int64) throws(SyncError) -> [[UInt8]] {
        try run("DELETE FROM sync_pairings WHERE person = ? AND expires <= ?", [.integer(now)])
        return try rows("SELECT slot FROM sync_pairings WHERE person = ?", []) { $0.blob(0) }
    }

    func offer(slot: [UInt8], sealed: [UInt8], expires: Int64) throws(SyncError) {
        try run(
            "INSERT OR REPLACE INTO sync_pairings (person, slot, sealed, expires) VALUES (?, ?, ?, ?)",
            [.blob(slot), .blob(sealed), .integer(expires)])
    }

    func take(slot: [UInt8]) throws(SyncError) -> [UInt8]? {
        let sealed = try rows("SELECT sealed FROM sync_pairings WHERE person = ? AND slot = ?", [.blob(slot)]) {
            $0.blob(0)
        }.first
        try run("DELETE FROM sync_pairings WHERE person = ? AND slot = ?", [.blob(slot)])
        return sealed
    }
}
