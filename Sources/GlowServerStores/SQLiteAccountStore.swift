import Foundation
import GlowAuth
import GlowCore
import GlowStorage

/// The account service's records (AUTH-35 ... AUTH-42) durable in SQLite, through GlowAuth's
/// storage protocol, ``AccountStore``.
///
/// Each record is one row: the map it belongs to, its key, and its JSON. An update writes the rows
/// it changed and deletes the ones it removed; one that throws writes nothing. Reading the
/// records again before each update means a rotated refresh token or a sign-out in another process
/// is known here. The file holds password hashes and token hashes, and a provider's refresh token
/// until it is revoked: it is the server's, kept with the care its secrets need.
public typealias SQLiteAccountStore = ServerStore<AccountRecords>

extension ServerStore: AccountStore where State == AccountRecords {
    /// Opens the account database at `path`, creating it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt`, `cannot_open`.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, schema: .accounts, clock: "accounts", load: Self.load)
    }

    @Sendable static func load(_ connection: SQLiteConnection) throws(StoreError) -> AccountRecords {
        var records = AccountRecords()
        let rows = try connection.prepare("SELECT map, key, value FROM account_records")
        while try rows.step() {
            try AccountRows.apply(
                map: rows.text(0), key: rows.text(1), value: Data(rows.blob(2)), to: &records, path: connection.path)
        }
        records.keepChanges()
        return records
    }

    /// Runs `body` on the records as the file holds them now and keeps what it changed before
    /// returning: the rows of the records it wrote, and no others (each map knows its changed
    /// keys, so an update costs what it changed, not what the store holds).
    ///
    /// - Throws: the body's ``AuthError`` (nothing written), or
    ///   ``AuthError/Code/storageFailed`` when the records cannot be read or kept.
    public func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        let outcome: Result<T, AuthError>
        do {
            outcome = try store.write { (records, connection) throws(StoreError) -> Result<T, AuthError> in
                let result: T
                do throws(AuthError) {
                    result = try body(&records)
                } catch {
                    // A refused update leaves the records as they were, in memory as on disk.
                    records.undoChanges()
                    return .failure(error)
                }
                try Self.write(records, connection)
                records.keepChanges()
                return .success(result)
            }.result
        } catch {
            throw AuthError.storage("the account records could not be read or kept: \(error)")
        }
        return try outcome.get()
    }

    /// Runs `body`, a read, on the records as last written or read, without asking the file
    /// unless `fresh`, with the reading the relay's store on the same file confirms in its
    /// transaction (``StoreReading``).
    ///
    /// - Throws: the body's ``AuthError``, or ``AuthError/Code/storageFailed`` when the records
    ///   cannot be read.
    public func read<T>(fresh: Bool, _ body: (AccountRecords) throws(AuthError) -> T) throws(AuthError) -> (
        result: T, reading: StoreReading?
    ) {
        let outcome: (result: Result<T, AuthError>, clock: Int64)
        do {
            outcome = try store.peek(fresh: fresh) { records in Result { () throws(AuthError) in try body(records) } }
        } catch {
            throw AuthError.storage("the account records could not be read: \(error)")
        }
        return (try outcome.result.get(), StoreReading(database: path, clock: clock, version: outcome.clock))
    }

    /// Writes the rows of the records changed since the last keep, inside the caller's transaction.
    static func write(_ records: AccountRecords, _ connection: SQLiteConnection) throws(StoreError) {
        let rows = try AccountRows.changed(records, path: connection.path)
        guard !rows.isEmpty else { return }
        let put = try connection.prepare("INSERT OR REPLACE INTO account_records (map, key, value) VALUES (?, ?, ?)")
        let drop = try connection.prepare("DELETE FROM account_records WHERE map = ? AND key = ?")
        for row in rows {
            if let value = row.value {
                try put.run([.text(row.map), .text(row.key), .blob(Array(value))])
            } else {
                try drop.run([.text(row.map), .text(row.key)])
            }
        }
    }
}
