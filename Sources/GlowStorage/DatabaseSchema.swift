import CSQLite
import Foundation

/// One step of a schema: a name that never changes once shipped, and the SQL that takes a
/// database from the step before to this one.
package struct Migration: Sendable, Hashable {
    /// The step's name, kept in the file with its position.
    package let name: String
    /// The statements of the step, run in one transaction.
    package let sql: String

    /// A step named `name`.
    package init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// The kind of a Glow database and the migrations that build it, in order (GRDB's migrator is the
/// model): the file records which ran, so a file whose steps are not a prefix of these is
/// refused and left byte for byte.
///
/// A database file carries three marks: SQLite's `application_id` (whose database it is),
/// `user_version` (how many steps ran) and the table `glow_migrations` (their names, by
/// position). Files written before the table existed carry only the first two; their steps are
/// taken by position and named when the file is next opened for writing.
package struct DatabaseSchema: Sendable {
    /// What a person calls the file: "database", "relay database", "account database".
    package let kind: String
    /// SQLite's `application_id` of this kind.
    package let applicationID: Int64
    /// The steps, in order.
    package let migrations: [Migration]

    /// A schema of `kind`, marked `applicationID`, built by `migrations`.
    package init(kind: String, applicationID: Int64, migrations: [Migration]) {
        precondition(Set(migrations.map(\.name)).count == migrations.count, "migration names are unique")
        self.kind = kind
        self.applicationID = applicationID
        self.migrations = migrations
    }

    /// The version this code writes: the number of its steps.
    package var version: Int { migrations.count }

    /// How many steps the file open on `connection` has run, checked against this schema.
    ///
    /// - Throws: ``StoreError``: `newer_schema` for a file with steps past these (an update of
    ///   the app reads it), `corrupt` for another application's file, a file that is not yet a
    ///   database of this kind (empty, or a stranger's with no tables), or steps that differ from
    ///   these.
    package func check(_ connection: SQLiteConnection) throws(StoreError) -> Int {
        let path = connection.path
        let application = try connection.integer("PRAGMA application_id")
        guard application == applicationID else {
            let objects = try connection.integer("SELECT count(*) FROM sqlite_schema")
            let empty = application == 0 && objects == 0
            throw StoreError(
                .corrupt,
                empty ? "the file is an empty database, not a Glow \(kind)" : "the file is not a Glow \(kind)",
                path: path)
        }
        let stored = try connection.integer("PRAGMA user_version")
        guard stored >= 1 else {
            throw StoreError(.corrupt, "the file is marked as a Glow \(kind) but holds none of its steps", path: path)
        }
        // A newer version's file is refused as newer, whatever else it holds: an update reads it.
        guard stored <= migrations.count else {
            throw StoreError(
                .newerSchema,
                "the \(kind) has schema \(stored); this version of the SDK reads up to \(migrations.count): "
                    + "update the app", path: path)
        }
        let hasTable =
            try connection.integer(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'glow_migrations'")
            > 0
        if hasTable {
            let names = try connection.texts("SELECT name FROM glow_migrations ORDER BY position")
            guard names.count == stored else {
                throw StoreError(
                    .corrupt, "the file records \(names.count) steps but is marked with \(stored)", path: path)
            }
            // The same check every database of this kind passes, PostgreSQL's too.
            _ = try stepsDone(recorded: names, path: path)
        }
        return Int(stored)
    }

    /// Opens the database at `path` for reading and writing, after checking that it is one of
    /// this kind: a file of a newer schema or of another application is refused before anything
    /// is written; the steps it lacks run in one transaction each; then write-ahead logging (a
    /// commit appends to the log, readers never block the writer) and `synchronous = FULL` (a
    /// commit reported is on disk).
    ///
    /// A missing file is made only when `create` is true, and made whole: built under a
    /// temporary name beside it and linked into place, so no one ever opens a half-made database,
    /// and a file that appeared meanwhile is never replaced.
    ///
    /// - Throws: ``StoreError``: `cannot_open` for a missing file (without `create`) or one that
    ///   cannot be opened, `newer_schema`, `corrupt`, or the failure of a step.
    package func open(path: String, create: Bool) throws(StoreError) -> SQLiteConnection {
        guard !path.isEmpty else { throw StoreError(.cannotOpen, "a database needs a path", path: path) }
        if try !FileSystem.exists(path) {
            guard create else { throw StoreError(.cannotOpen, "there is no \(kind) here", path: path) }
            try make(path)
        }
        try checkHeader(path)
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try Self.syncFully(connection)
        try migrate(connection)
        _ = try connection.texts("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = FULL")
        return connection
    }

    /// Opens the database at `path` for reading only: nothing is created, migrated or written,
    /// and, when no connection is writing (no `-wal` file beside it), nothing is made beside it.
    ///
    /// - Throws: ``StoreError``: `cannot_open`, `newer_schema`, `corrupt`.
    package func openReadOnly(path: String) throws(StoreError) -> SQLiteConnection {
        guard !path.isEmpty else { throw StoreError(.cannotOpen, "a database needs a path", path: path) }
        guard try FileSystem.exists(path) else { throw StoreError(.cannotOpen, "there is no \(kind) here", path: path) }
        try checkHeader(path)
        // With a log beside the file a writer may be at work: its log and shared memory are read
        // as any reader does. Without one the file is whole, and is read without locks.
        let writing = FileManager.default.fileExists(atPath: path + "-wal")
        let connection = try SQLiteConnection(path: path, mode: writing ? .readOnly : .readOnlyUnlocked)
        _ = try check(connection)
        return connection
    }

    /// Makes SQLite's syncs reach the disk where `fsync` does not: on Apple platforms
    /// `PRAGMA fullfsync` (F_FULLFSYNC, which checkpoints use too); elsewhere nothing to do.
    static func syncFully(_ connection: SQLiteConnection) throws(StoreError) {
        #if canImport(Darwin)
            try connection.execute("PRAGMA fullfsync = ON")
        #endif
    }

    /// How many of these steps a database whose record names `names`, in order, has run: the
    /// check every database of this kind passes, whatever engine keeps it.
    ///
    /// - Throws: ``StoreError`` `newer_schema` for more steps than these, `corrupt` for a step
    ///   whose name differs from this schema's at its position.
    package func stepsDone(recorded names: [String], path: String) throws(StoreError) -> Int {
        guard names.count <= migrations.count else {
            throw StoreError(
                .newerSchema,
                "the \(kind) has schema \(names.count); this version of the SDK reads up to \(migrations.count): "
                    + "update the app", path: path)
        }
        for (position, name) in names.enumerated() where migrations[position].name != name {
            throw StoreError(
                .corrupt,
                "step \(position + 1) of the \(kind) is '\(name)', where this version of the SDK has "
                    + "'\(migrations[position].name)': it was not written by this app", path: path)
        }
        return names.count
    }

    /// The first 16 bytes of every SQLite database file.
    package static let sqliteMagic = Array("SQLite format 3\0".utf8)

    /// Whether a file's first bytes are a SQLite database's: how a tool tells a Glow database
    /// from a bundle or a JSON data set before it opens one.
    package static func isDatabase(head: [UInt8]) -> Bool {
        head.count >= sqliteMagic.count && head.prefix(sqliteMagic.count).elementsEqual(sqliteMagic)
    }

    /// Reads the file's header through SQLite before a connection that may write opens it: a file
    /// that is not a SQLite database, or is another application's (`application_id`), is refused
    /// before anything is written to it or made beside it.
    ///
    /// The header is read by a connection of SQLite's own that neither locks nor looks beside the
    /// file (`immutable`), never by opening the file directly: closing a file descriptor of a
    /// database releases every POSIX lock the process holds on it, those of its open connections
    /// included, after which another process may delete the write-ahead log under them
    /// (sqlite.org/howtocorrupt.html 2.2). SQLite keeps such a descriptor open until the process's
    /// last lock on the file is released.
    func checkHeader(_ path: String) throws(StoreError) {
        let probe = try SQLiteConnection(path: path, mode: .readOnlyUnlocked)
        let application: Int64
        do {
            // A value of the header (bytes 68 ... 71), read without the schema.
            application = try probe.integer("PRAGMA application_id")
        } catch  where error.code == .corrupt {
            throw StoreError(.corrupt, "the file is not a database, nor a Glow \(kind)", path: path)
        }
        guard application == applicationID else {
            // SQLite takes a file of no bytes for an empty database; a stat tells it apart.
            var info = stat()
            let empty = stat(path, &info) == 0 && info.st_size == 0
            throw StoreError(
                .corrupt,
                empty ? "the file is empty, not a Glow \(kind)" : "the file is a database, but not a Glow \(kind)",
                path: path)
        }
    }

    /// Runs the steps the file lacks, each in one transaction with its record; names the steps of
    /// a file from before the record was kept.
    func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            let done = try check(connection)
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS glow_migrations (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
            let record = try connection.prepare("INSERT OR IGNORE INTO glow_migrations (position, name) VALUES (?, ?)")
            for position in 0..<done {
                try record.run([.integer(Int64(position + 1)), .text(migrations[position].name)])
            }
        }
        while true {
            let finished = try connection.transaction { () throws(StoreError) -> Bool in
                // Checked again under the write lock: another process may have run a step.
                let done = try check(connection)
                guard done < migrations.count else { return true }
                try connection.execute(migrations[done].sql)
                try connection.prepare("INSERT INTO glow_migrations (position, name) VALUES (?, ?)")
                    .run([.integer(Int64(done + 1)), .text(migrations[done].name)])
                try connection.execute("PRAGMA user_version = \(done + 1)")
                return false
            }
            if finished { return }
        }
    }

    /// Makes a new database at `path`: its first step under a temporary name in the same folder,
    /// committed and synced by SQLite, then a hard link to `path` (which fails rather than replace
    /// a file that appeared), then the temporary name removed.
    func make(_ path: String) throws(StoreError) {
        guard let first = migrations.first else {
            throw StoreError(.cannotOpen, "a \(kind) needs at least one step", path: path)
        }
        let temporary = "\(path).\(UUID().uuidString.lowercased()).new"
        defer { _ = unlink(temporary) }
        do {
            let connection = try SQLiteConnection(path: temporary, mode: .create)
            // The commit syncs the file (a rollback journal's commit with `synchronous = FULL`), so
            // the file is whole on disk before its name is linked.
            try connection.execute("PRAGMA synchronous = FULL")
            try Self.syncFully(connection)
            try connection.transaction { () throws(StoreError) in
                try connection.execute(
                    "CREATE TABLE glow_migrations (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
                try connection.execute(first.sql)
                try connection.prepare("INSERT INTO glow_migrations (position, name) VALUES (1, ?)")
                    .run([.text(first.name)])
                try connection.execute("PRAGMA application_id = \(applicationID)")
                try connection.execute("PRAGMA user_version = 1")
            }
        }
        guard link(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            if errno == EEXIST { return }  // Another process made it first: open that one.
            throw StoreError(.cannotOpen, "the new \(kind) cannot be put in place: \(reason)", path: path)
        }
        try FileSystem.syncFolder(of: path)
    }
}
