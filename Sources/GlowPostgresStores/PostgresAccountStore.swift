import Dispatch
import Foundation
import GlowAuth
import GlowCore
import GlowPostgres
import GlowServerStores
import GlowStorage

/// The account service's records in PostgreSQL (AUTH-35 ... AUTH-51), shared by every process:
/// one row per record in `account_rows`, with the account it belongs to and the time from which a
/// purge may forget it as indexed columns, and a version every write draws anew.
///
/// An update is one `SERIALIZABLE` transaction that reads the rows it asks for (by key, by owner,
/// by expiry) and writes the rows it changed. Nothing is held between updates: a process's
/// memory does not grow with the number of people, it starts without reading their records, and
/// no lock is taken that every write takes. Two updates that touch different people's rows never
/// wait for each other; two that touch the same rows are ordered by PostgreSQL, which fails one
/// of them with a serialization failure when they could not have run one after the other, and
/// that one runs again on what the other wrote.
public final class PostgresAccountStore: AccountStore {
    /// The database, as its owner named it (without a password).
    public let name: String
    let pool: PostgresConnectionPool

    init(name: String, pool: PostgresConnectionPool) {
        self.name = name
        self.pool = pool
    }

    /// How many times an update runs again after a serialization failure.
    static var attempts: Int { 16 }

    /// Runs `body` on the records as the database holds them now, in one transaction, and keeps
    /// the rows it changed before returning. The body may run more than once (after a
    /// serialization failure), each time on the records as they then are.
    ///
    /// - Throws: the body's ``AuthError`` (nothing written), or
    ///   ``AuthError/Code/storageFailed`` when a row cannot be read or kept.
    public func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        try run(writing: true) { (records, _) throws(AuthError) in try body(&records) }
    }

    /// Runs `body`, a read, on the records as the database holds them now, and says which rows it
    /// read at which versions (``StoreReading``), for the relay's store to confirm in its own
    /// transaction.
    ///
    /// - Throws: the body's ``AuthError``, or ``AuthError/Code/storageFailed`` when a row cannot
    ///   be read.
    public func read<T>(fresh: Bool, _ body: (AccountRecords) throws(AuthError) -> T) throws(AuthError) -> (
        result: T, reading: StoreReading?
    ) {
        try run(writing: false) { (records, reader) throws(AuthError) in
            (try body(records), StoreReading(database: name, rows: reader.read))
        }
    }

    private func run<T>(writing: Bool, _ body: (inout AccountRecords, PostgresAccountRows) throws(AuthError) -> T)
        throws(AuthError) -> T
    {
        for _ in 0..<Self.attempts {
            let outcome: Result<T, AuthError>?
            do {
                outcome = try pool.withConnection { (connection) throws(StoreError) -> Result<T, AuthError>? in
                    try attempt(writing: writing, on: connection, body)
                }
            } catch {
                throw AuthError.storage("the account records could not be read or kept: \(error)")
            }
            // Nil: PostgreSQL failed this try to serialize it with another; try again.
            if let outcome { return try outcome.get() }
        }
        throw AuthError.storage(
            "the account records could not be kept: another update of the same rows won \(Self.attempts) times")
    }

    /// One try: the body's outcome, or nil when PostgreSQL failed it to serialize it with another.
    private func attempt<T>(
        writing: Bool, on connection: PostgresConnection,
        _ body: (inout AccountRecords, PostgresAccountRows) throws(AuthError) -> T
    ) throws(StoreError) -> Result<T, AuthError>? {
        let reader = PostgresAccountRows(connection)
        defer { reader.closed = true }
        var began = false
        // A commit ends the transaction whatever it answers: nothing is rolled back after it
        // (which PostgreSQL would answer with a warning that no transaction is in progress).
        var committing = false
        do throws(PostgresError) {
            try connection.execute(
                writing ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            began = true
            var records = AccountRecords(rows: reader)
            let outcome: Result<T, AuthError>
            do throws(AuthError) {
                outcome = .success(try body(&records, reader))
            } catch {
                outcome = .failure(error)
            }
            // A decision made on a row that did not read is never kept, nor answered.
            if let failure = reader.failure { throw failure }
            if writing, case .success = outcome { try Self.write(records, connection) }
            if case .failure = outcome {
                Self.rollBack(connection)
            } else {
                committing = true
                try connection.execute("COMMIT")
            }
            return outcome
        } catch {
            if !committing { Self.rollBack(connection) }
            if error.sqlState == "40001" || error.sqlState == "40P01" { return nil }
            // A connection the database dropped (a restart) fails at its first statement, before
            // anything was sent of the update: the pool forgets it, and the update runs again on
            // another, so the first request after a restart is served, not refused.
            if !began && !connection.isUsable { return nil }
            throw StoreError(.writeFailed, "the account rows: \(error.message)", path: name)
        }
    }

    /// Writes the rows of the records changed, each with a version drawn anew.
    private static func write(_ records: AccountRecords, _ connection: PostgresConnection) throws(PostgresError) {
        let rows: [(map: String, key: String, value: Data?, owner: String?, expiry: Int64?)]
        do {
            rows = try AccountRows.changed(records, path: "")
        } catch {
            throw PostgresError(.queryFailed, "an account record does not encode: \(error.message)")
        }
        for row in rows {
            if let value = row.value {
                try connection.execute(
                    "INSERT INTO account_rows (map, key, value, owner, expiry, version) VALUES ($1, $2, $3, $4, $5, $6) "
                        + "ON CONFLICT (map, key) DO UPDATE SET value = EXCLUDED.value, owner = EXCLUDED.owner, "
                        + "expiry = EXCLUDED.expiry, version = EXCLUDED.version",
                    [
                        .text(row.map), .text(row.key), .bytes(Array(value)), row.owner.map { .text($0) } ?? .null,
                        row.expiry.map { .int($0) } ?? .null, .int(AccountRows.newVersion()),
                    ])
            } else {
                try connection.execute(
                    "DELETE FROM account_rows WHERE map = $1 AND key = $2", [.text(row.map), .text(row.key)])
            }
        }
    }

    private static func rollBack(_ connection: PostgresConnection) {
        // A failed rollback means the connection is gone; the pool drops it.
        do { try connection.execute("ROLLBACK") } catch {}
    }
}

/// Whether a reading of account rows (``StoreReading``) still holds on `connection`, inside the
/// caller's transaction: every row it read has the version it had (0: still no row). `locking`
/// holds those rows (`FOR SHARE`) to the transaction's end, so that a change of them waits for it.
///
/// - Throws: ``PostgresError`` when the rows cannot be read.
func accountReadingHolds(_ reading: StoreReading, locking: Bool = false, on connection: PostgresConnection)
    throws(PostgresError) -> Bool
{
    guard !reading.rows.isEmpty else { return true }
    // Every row in one statement: the versions of those there are, by map and key.
    let pairs = reading.rows.map { [$0.map, $0.key] }
    let list: String
    do {
        list = String(decoding: try JSONEncoder().encode(pairs), as: UTF8.self)
    } catch {
        throw PostgresError(.queryFailed, "a reading's rows do not encode: \(error)")
    }
    let found = try connection.execute(
        "SELECT map, key, version FROM account_rows WHERE map = ANY(ARRAY(SELECT row->>0 FROM "
            + "jsonb_array_elements(($1::text)::jsonb) AS row)) AND key = ANY(ARRAY(SELECT row->>1 FROM "
            + "jsonb_array_elements(($1::text)::jsonb) AS row)) AND (map, key) IN (SELECT row->>0, row->>1 FROM "
            + "jsonb_array_elements(($1::text)::jsonb) AS row)" + (locking ? " FOR SHARE" : ""), [.text(list)])
    var versions: [String: Int64] = [:]
    for index in 0..<found.rows.count {
        versions[try found.text(index, "map") + "\u{1F}" + found.text(index, "key")] = try found.int(index, "version")
    }
    return reading.rows.allSatisfy { (versions[$0.map + "\u{1F}" + $0.key] ?? 0) == $0.version }
}

/// The rows one transaction of ``PostgresAccountStore`` reads, by key, owner or expiry; the
/// first failure is kept for the store to act on.
final class PostgresAccountRows: AccountRowReader, @unchecked Sendable {
    private let connection: PostgresConnection
    /// The first read that failed.
    private(set) var failure: PostgresError?
    /// Every row read by key, with its version (0: none).
    private(set) var read: [StoreReading.Row] = []

    /// Whether the transaction ended: records are read inside their update, never after it.
    var closed = false

    init(_ connection: PostgresConnection) { self.connection = connection }

    private func checkOpen() {
        precondition(!closed, "account records are read inside their update, not after it returned")
    }

    func row(map: String, key: String) -> [UInt8]? {
        checkOpen()
        guard failure == nil else { return nil }
        do throws(PostgresError) {
            let found = try connection.execute(
                "SELECT value, version FROM account_rows WHERE map = $1 AND key = $2", [.text(map), .text(key)])
            guard !found.rows.isEmpty else {
                read.append(StoreReading.Row(map: map, key: key, version: 0))
                return nil
            }
            read.append(StoreReading.Row(map: map, key: key, version: try found.int(0, "version")))
            return try found.bytes(0, "value")
        } catch {
            failure = error
            return nil
        }
    }

    func rows(map: String, owner: String) -> [(key: String, value: [UInt8])] {
        rows("WHERE map = $1 AND owner = $2", [.text(map), .text(owner)])
    }

    func rows(map: String, expiringAtOrBefore time: Double) -> [(key: String, value: [UInt8])] {
        rows("WHERE map = $1 AND expiry <= $2", [.text(map), .int(AccountRows.milliseconds(time))])
    }

    private func rows(_ clause: String, _ values: [PostgresValue]) -> [(key: String, value: [UInt8])] {
        checkOpen()
        guard failure == nil else { return [] }
        do throws(PostgresError) {
            let found = try connection.execute("SELECT key, value FROM account_rows \(clause)", values)
            var rows: [(key: String, value: [UInt8])] = []
            for index in found.rows.indices {
                rows.append((try found.text(index, "key"), try found.bytes(index, "value")))
            }
            return rows
        } catch {
            failure = error
            return []
        }
    }

    func fail(_ message: String) {
        if failure == nil { failure = PostgresError(.typeMismatch, message) }
    }
}

/// A process's connections to one PostgreSQL database, each used by one request at a time: a
/// request takes a free one, or waits for one no longer than the pool's wait and then fails as
/// `busy` (`503` with `Retry-After`). A connection that was lost or timed out is dropped, and the
/// next request connects anew.
package final class PostgresConnectionPool: Sendable {
    /// The database, without its password.
    let name: String
    /// The longest a request waits for a free connection, in seconds.
    let wait: Double
    private let size: Int
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private let idle = Locked<[PostgresConnection]>([])
    private let permits: DispatchSemaphore

    init(
        size: Int, wait: Double, name: String,
        connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection
    ) {
        self.size = max(size, 1)
        self.wait = max(0, wait)
        self.name = name
        self.connect = connect
        permits = DispatchSemaphore(value: max(size, 1))
    }

    /// Runs `body` on a free connection.
    ///
    /// - Throws: ``StoreError`` `busy` when every connection stayed in use for the pool's wait,
    ///   `cannot_open` when the database cannot be reached, or the body's.
    package func withConnection<T>(_ body: (PostgresConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        guard permits.wait(timeout: .now() + wait) == .success else {
            throw StoreError(
                .busy, "all \(size) connections of the account store stayed in use for \(wait) s", path: name)
        }
        defer { permits.signal() }
        let connection: PostgresConnection
        if let held = idle.withLock({ $0.popLast() }) {
            connection = held
        } else {
            do throws(PostgresError) {
                connection = try connect()
            } catch {
                throw StoreError(.cannotOpen, "the database cannot be reached: \(error.message)", path: name)
            }
        }
        defer { if connection.isUsable { idle.withLock { $0.append(connection) } } }
        return try body(connection)
    }
}
