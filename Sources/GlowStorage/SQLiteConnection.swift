import CSQLite

/// One SQLite connection, used by one thread at a time: its owner's lock (``SQLiteStore``) is what
/// makes sending it between threads safe.
///
/// The only place that calls SQLite's C API, with ``Statement``: every status it returns becomes
/// a ``StoreError`` naming what was being done, never a silent default.
package final class SQLiteConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    /// The database's path.
    package let path: String

    /// How a connection opens its file.
    package enum Mode: Sendable {
        /// Reads only: the file must exist, and nothing is written, created or migrated.
        case readOnly
        /// Reads a file no connection is writing (it has no write-ahead log beside it) without
        /// locking it: nothing is made beside it, not even the `-shm` file a reader of a WAL
        /// database otherwise creates, so a read in a read-only folder, or of another user's
        /// file, leaves no trace.
        case readOnlyUnlocked
        /// Reads and writes a file that exists.
        case readWrite
        /// Reads and writes, creating the file when there is none.
        case create
    }

    /// Opens the database at `path`.
    ///
    /// - Throws: ``StoreError/Code/cannotOpen`` when the file cannot be opened (or, in the first
    ///   two modes, does not exist).
    package init(path: String, mode: Mode = .create) throws(StoreError) {
        self.path = path
        var name = path
        let flags: Int32
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .readOnlyUnlocked:
            // A URI, so the path's own characters are escaped and `immutable` can be given.
            let escaped = path.utf8.map { byte -> String in
                let plain =
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "/-._~".utf8.contains(byte)
                return plain ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
            }.joined()
            name = "file:\(escaped)?mode=ro&immutable=1"
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .create: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let status = sqlite3_open_v2(name, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, handle != nil else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            handle = nil
            throw StoreError(.cannotOpen, "the database cannot be opened: \(message)", path: path)
        }
        // Another connection writing waits up to five seconds before this one gives up.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Closes the connection now rather than when it is freed: its locks and the file are let go.
    /// Nothing may use it after (its owner refuses, as ``SQLiteStore/close()`` has it).
    package func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// How long a statement waits for another connection's lock on the file before it fails
    /// `busy`: five seconds unless set.
    package func busyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, Swift.max(0, milliseconds))
    }

    /// The error for a SQLite status: its code mapped to ours.
    package func error(_ status: Int32, _ doing: String) -> StoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? ""
        if status & 0xFF == SQLITE_READONLY {
            return StoreError(
                .writeFailed,
                "the database cannot be written here: it or its folder is read-only (\(doing): \(message))",
                path: path)
        }
        let code: StoreError.Code
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: code = .busy
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corrupt
        case SQLITE_CANTOPEN: code = .cannotOpen
        // SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY and the rest.
        default: code = .writeFailed
        }
        return StoreError(code, "\(doing): \(message)", path: path)
    }

    /// Runs SQL without results.
    package func execute(_ sql: String) throws(StoreError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql.prefix(60).description) }
    }

    /// A prepared statement.
    package func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            // The SDK's statements are fixed: one SQLite cannot prepare names a table or a column
            // the file does not have, so the file is not the database it claims to be.
            guard status == SQLITE_ERROR else { throw error(status, "preparing \(sql.prefix(60))") }
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? ""
            throw StoreError(
                .corrupt, "the database is damaged (\(message)): its tables are not a Glow database's", path: path)
        }
        return Statement(statement, connection: self)
    }

    /// Whether a transaction is open on this connection.
    package var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws:
    /// all or nothing. `immediate` takes the write lock first (`BEGIN IMMEDIATE`), so a writer
    /// that reads before it writes never meets another writer's commit in between.
    ///
    /// - Throws: the body's error, or the storage error of the begin or the commit; when the
    ///   rollback itself fails, an error that names both.
    package func transaction<T>(immediate: Bool = true, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT may already have rolled back (SQLite does for I/O errors and a full
            // disk); then there is nothing left to undo.
            guard inTransaction else { throw error }
            do {
                try execute("ROLLBACK")
            } catch let rollback {
                throw StoreError(
                    rollback.code, "\(error.message); then the rollback failed: \(rollback.message)", path: path)
            }
            throw error
        }
    }

    /// The first column of the first row of a query, as an integer (0 when there is no row).
    package func integer(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.integer(0)
    }

    /// The first column of every row of a query, as text.
    package func texts(_ sql: String) throws(StoreError) -> [String] {
        let statement = try prepare(sql)
        var texts: [String] = []
        while try statement.step() { texts.append(statement.text(0)) }
        return texts
    }

    /// How many rows this connection's statements have inserted, updated or deleted since it
    /// opened: what tells whether a body wrote anything.
    package var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// SQLite's `data_version`: it changes when another connection, in this process or another,
    /// commits to the file, and never for this connection's own commits.
    package func dataVersion() throws(StoreError) -> Int64 {
        try integer("PRAGMA data_version")
    }
}

/// A prepared statement: bind, step, read columns.
package final class Statement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    fileprivate init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to the parameters in order, after a reset.
    package func bind(_ values: [Value]) throws(StoreError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                // By its length in bytes, not up to a NUL: every byte of the text is bound.
                let bytes = Array(text.utf8) + [0]
                status = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        sqlite3_bind_text(
                            handle, index, chars.baseAddress, Int32(chars.count - 1), glow_sqlite_transient())
                    }
                }
            case .null: status = sqlite3_bind_null(handle, index)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    // An empty blob is still a blob, not NULL: SQLite wants a pointer either way.
                    sqlite3_bind_blob(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                        glow_sqlite_transient())
                }
            }
            guard status == SQLITE_OK else { throw connection.error(status, "binding a value") }
        }
    }

    /// Steps once: true while there is a row.
    @discardableResult
    package func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(status, "running a statement")
        }
    }

    /// Binds, runs to the end.
    package func run(_ values: [Value]) throws(StoreError) {
        try bind(values)
        while try step() {}
    }

    package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// Whether a column of the current row is SQL's null.
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    package func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    /// A value bound to a parameter.
    package enum Value {
        case integer(Int64)
        case text(String)
        case blob([UInt8])
        case null
    }
}
