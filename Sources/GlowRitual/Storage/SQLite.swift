import CSQLite

/// What went wrong with a database (issue 17): a stable code, what to do about it, and the file.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable {
        /// The file cannot be opened or created.
        case cannotOpen = "cannot_open"
        /// The file was written by a newer version of the SDK: it is left exactly as it was.
        case newerSchema = "newer_schema"
        /// The file is not a Glow database, or its content is damaged.
        case corrupt
        /// Another writer holds the database for longer than the wait allows.
        case busy
        /// The disk is full or the file could not be written.
        case writeFailed = "write_failed"
        /// The change itself was refused (the model's or the bundle's error is in the message).
        case refused
    }

    /// The code.
    public let code: Code
    /// What happened, for a person.
    public let message: String
    /// The database's path.
    public let path: String

    init(_ code: Code, _ message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// `code: message (path)`.
    public var description: String { "\(code.rawValue): \(message) (\(path))" }
}

/// One SQLite connection, used by one thread at a time (its owner's lock).
final class SQLiteConnection {
    private var handle: OpaquePointer?
    let path: String

    init(path: String, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
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

    /// The error for a SQLite status: its code mapped to ours.
    func error(_ status: Int32, _ doing: String) -> StoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? ""
        let code: StoreError.Code
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: code = .busy
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corrupt
        // SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN and the rest.
        default: code = .writeFailed
        }
        return StoreError(code, "\(doing): \(message)", path: path)
    }

    /// Runs SQL without results.
    func execute(_ sql: String) throws(StoreError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql.prefix(60).description) }
    }

    /// A prepared statement.
    func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, "preparing \(sql.prefix(60))") }
        return Statement(statement, connection: self)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`: the write lock first), committed when
    /// it returns and rolled back when it throws: all or nothing.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The first column of the first row of a query, as an integer.
    func integer(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.integer(0)
    }

    /// The first column of every row of a query, as text.
    func texts(_ sql: String) throws(StoreError) -> [String] {
        let statement = try prepare(sql)
        var texts: [String] = []
        while try statement.step() { texts.append(statement.text(0)) }
        return texts
    }
}

extension SQLiteConnection {
    /// The schema version of the Glow database of one kind (`application`) open here: 0 for a
    /// file with no tables yet.
    ///
    /// - Throws: ``StoreError``: `newer_schema` past `current`, `corrupt` for another
    ///   application's database.
    func glowSchema(application: Int64, current: Int, kind: String) throws(StoreError) -> Int64 {
        let version = try integer("PRAGMA user_version")
        guard version <= current else {
            throw StoreError(
                .newerSchema,
                "the \(kind) has schema \(version); this version of the SDK reads up to \(current): update the app",
                path: path)
        }
        let found = try integer("PRAGMA application_id")
        let tables = try integer("SELECT count(*) FROM sqlite_schema")
        guard found == application || (found == 0 && tables == 0) else {
            throw StoreError(.corrupt, "the file is a database, but not a Glow \(kind)", path: path)
        }
        return version
    }

    /// Opens a Glow database of one kind (`application`, SQLite's `application_id`), creating it
    /// when the file is new: a file of a newer schema, or another application's, is refused and
    /// left untouched; the steps of `migrations` it lacks run in one transaction each; then
    /// write-ahead logging (a commit appends to the log, readers never block the writer) and
    /// `synchronous = FULL` (a commit reported is on disk).
    static func openGlow(
        path: String, application: Int64, migrations: [(version: Int, sql: String)], kind: String
    ) throws(StoreError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        let version = try connection.glowSchema(
            application: application, current: migrations.map(\.version).max() ?? 0, kind: kind)
        for (target, sql) in migrations where target > version {
            try connection.transaction { () throws(StoreError) in
                try connection.execute(sql)
                try connection.execute("PRAGMA application_id = \(application)")
                try connection.execute("PRAGMA user_version = \(target)")
            }
        }
        _ = try connection.texts("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = FULL")
        return connection
    }
}

/// A prepared statement: bind, step, read columns.
final class Statement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to the parameters in order, after a reset.
    func bind(_ values: [Value]) throws(StoreError) {
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
    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(status, "running a statement")
        }
    }

    /// Binds, runs to the end.
    func run(_ values: [Value]) throws(StoreError) {
        try bind(values)
        while try step() {}
    }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    /// A value bound to a parameter.
    enum Value {
        case integer(Int64)
        case text(String)
        case blob([UInt8])
    }
}
