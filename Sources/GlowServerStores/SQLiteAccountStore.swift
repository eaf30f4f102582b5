import Foundation
import GlowAuth
import GlowCore
import GlowStorage

/// The account service's records (AUTH-35 ... AUTH-42) durable in SQLite, through GlowAuth's
/// storage protocol, ``AccountStore``.
///
/// Each record is one row of `account_records`: the map it belongs to, its key, its JSON, the
/// account it belongs to and the time from which a purge may forget it (both indexed,
/// ``RecordIndex``), and a version that every write draws anew. An update is one transaction
/// that reads the rows it asks for, by key, by owner or by expiry, and writes the rows it changed;
/// nothing is held between updates, so memory does not grow with the number of people and a
/// process starts without reading anyone's records. The file holds password hashes and token
/// hashes, and a provider's refresh token until it is revoked: it is the server's, kept with the
/// care its secrets need.
public final class SQLiteAccountStore: AccountStore {
    /// The database's path.
    public let path: String
    private let connection: Locked<SQLiteConnection>

    /// Opens the account database at `path`, creating it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt`, `cannot_open`.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, schema: .accounts)
    }

    /// Opens the database of `schema` at `path` (the account database, or the server's), creating
    /// it when there is no file.
    init(path: String, schema: DatabaseSchema) throws(StoreError) {
        self.path = path
        connection = Locked(try schema.open(path: path, create: true))
    }

    /// Runs `body` on the records as the file holds them now, in one write transaction, and keeps
    /// the rows it changed before returning.
    ///
    /// - Throws: the body's ``AuthError`` (nothing written), or
    ///   ``AuthError/Code/storageFailed`` when a row cannot be read or kept.
    public func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        try run(writing: true) { (records, _) throws(AuthError) in try body(&records) }
    }

    /// Runs `body`, a read, on the records as the file holds them now, and says which rows it read
    /// at which versions (``StoreReading``), for the relay's store on this file to confirm in its
    /// own transaction.
    ///
    /// - Throws: the body's ``AuthError``, or ``AuthError/Code/storageFailed`` when a row cannot
    ///   be read.
    public func read<T>(fresh: Bool, _ body: (AccountRecords) throws(AuthError) -> T) throws(AuthError) -> (
        result: T, reading: StoreReading?
    ) {
        try run(writing: false) { (records, reader) throws(AuthError) in
            (try body(records), StoreReading(database: path, rows: reader.read))
        }
    }

    private func run<T>(writing: Bool, _ body: (inout AccountRecords, SQLiteAccountRows) throws(AuthError) -> T)
        throws(AuthError) -> T
    {
        // The result leaves through a variable of the caller's, not through the lock's return.
        var outcome: Result<T, AuthError>?
        do {
            try connection.withLock { (connection) throws(StoreError) in
                outcome = try connection.transaction(immediate: writing) {
                    () throws(StoreError) -> Result<T, AuthError> in
                    let reader = SQLiteAccountRows(connection)
                    defer { reader.closed = true }
                    var records = AccountRecords(rows: reader)
                    let result: T
                    do throws(AuthError) {
                        result = try body(&records, reader)
                    } catch {
                        // A refusal decided on a row that did not read is a storage failure.
                        if let failure = reader.failure { throw failure }
                        return .failure(error)
                    }
                    if let failure = reader.failure { throw failure }
                    if writing { try Self.write(records, connection) }
                    return .success(result)
                }
            }
        } catch {
            throw AuthError.storage("the account records could not be read or kept: \(error)")
        }
        guard let outcome else { preconditionFailure("the transaction ran or threw") }
        return try outcome.get()
    }

    /// Writes the rows of the records changed since the last keep, inside the caller's
    /// transaction, each with a version drawn anew.
    static func write(_ records: AccountRecords, _ connection: SQLiteConnection) throws(StoreError) {
        let rows = try AccountRows.changed(records, path: connection.path)
        guard !rows.isEmpty else { return }
        let put = try connection.prepare(
            "INSERT OR REPLACE INTO account_records (map, key, value, owner, expiry, version) VALUES (?, ?, ?, ?, ?, ?)"
        )
        let drop = try connection.prepare("DELETE FROM account_records WHERE map = ? AND key = ?")
        for row in rows {
            if let value = row.value {
                try put.run([
                    .text(row.map), .text(row.key), .blob(Array(value)), row.owner.map { .text($0) } ?? .null,
                    row.expiry.map { .integer($0) } ?? .null, .integer(AccountRows.newVersion()),
                ])
            } else {
                try drop.run([.text(row.map), .text(row.key)])
            }
        }
    }
}

/// The rows one transaction of ``SQLiteAccountStore`` reads, by key, owner or expiry; the first
/// failure is kept for the store to throw.
final class SQLiteAccountRows: AccountRowReader, @unchecked Sendable {
    private let connection: SQLiteConnection
    /// The first read that failed.
    private(set) var failure: StoreError?
    /// Every row read by key, with its version (0: none).
    private(set) var read: [StoreReading.Row] = []

    /// Whether the transaction ended: records are read inside their update, never after it.
    var closed = false

    init(_ connection: SQLiteConnection) { self.connection = connection }

    private func checkOpen() {
        precondition(!closed, "account records are read inside their update, not after it returned")
    }

    func row(map: String, key: String) -> [UInt8]? {
        checkOpen()
        do {
            let statement = try connection.prepare(
                "SELECT value, version FROM account_records WHERE map = ? AND key = ?")
            try statement.bind([.text(map), .text(key)])
            guard try statement.step() else {
                read.append(StoreReading.Row(map: map, key: key, version: 0))
                return nil
            }
            read.append(StoreReading.Row(map: map, key: key, version: statement.integer(1)))
            return statement.blob(0)
        } catch {
            fail(error)
            return nil
        }
    }

    func rows(map: String, owner: String) -> [(key: String, value: [UInt8])] {
        rows("WHERE map = ? AND owner = ?", [.text(map), .text(owner)])
    }

    func rows(map: String, expiringAtOrBefore time: Double) -> [(key: String, value: [UInt8])] {
        rows("WHERE map = ? AND expiry <= ?", [.text(map), .integer(AccountRows.milliseconds(time))])
    }

    private func rows(_ clause: String, _ values: [Statement.Value]) -> [(key: String, value: [UInt8])] {
        checkOpen()
        do {
            let statement = try connection.prepare("SELECT key, value FROM account_records \(clause)")
            try statement.bind(values)
            var found: [(key: String, value: [UInt8])] = []
            while try statement.step() { found.append((statement.text(0), statement.blob(1))) }
            return found
        } catch {
            fail(error)
            return []
        }
    }

    func fail(_ message: String) {
        fail(StoreError(.corrupt, message, path: connection.path))
    }

    private func fail(_ error: StoreError) {
        if failure == nil { failure = error }
    }
}

/// Whether a reading of account rows (``StoreReading``) still holds on `connection`, inside the
/// caller's transaction: every row it read has the version it had.
///
/// - Throws: ``StoreError`` when a row cannot be read.
func accountReadingHolds(_ reading: StoreReading, on connection: SQLiteConnection) throws(StoreError) -> Bool {
    let statement = try connection.prepare("SELECT version FROM account_records WHERE map = ? AND key = ?")
    for row in reading.rows {
        try statement.bind([.text(row.map), .text(row.key)])
        let version = try statement.step() ? statement.integer(0) : 0
        guard version == row.version else { return false }
    }
    return true
}
