import CSQLite
import GlowBundle
import GlowFeed
import GlowModel
import GlowWire
import Synchronization

/// A person's data on a device, durable in one SQLite file (issue 17).
///
/// Every change is one transaction, committed before the call returns: a tap, an edit or an undo
/// reported done survives a crash or a killed process at any moment after, and an import is all
/// or nothing. Records are kept as their canonical wire bytes (`Spec/glow.proto`) beside the
/// columns that key them, so fields a newer version wrote survive: the profile, each goal, each
/// goal's check-ins as one `CheckInBlock`, and records of types this version does not know.
///
/// One writer at a time, readers from any task: ``data`` is a snapshot taken under the lock, and
/// a change is made on a copy, written, committed, and only then becomes the snapshot.
public final class RitualDatabase: Sendable {
    /// The schema this version writes; a file with a greater one is refused, never altered.
    public static let schemaVersion = migrations.map(\.version).max() ?? 0
    /// SQLite's `application_id` of a Glow database: "GLWR".
    static let applicationID: Int64 = 0x474C_5752

    /// The database's path.
    public let path: String
    let state: Mutex<State>

    struct State: ~Copyable {
        let connection: SQLiteConnection
        var data: DataSet
        /// The device's feed replica: every delta of the feed log merged (FEED-21).
        var feed: FeedReplica
        /// Rows in the feed log; past ``feedLogLimit`` they are folded into one.
        var feedRows: Int
    }

    /// Opens the database at `path`, creating it when there is no file, and reads the data.
    ///
    /// - Throws: ``StoreError``: `newer_schema` for a file written by a newer version (left as it
    ///   was), `corrupt` for a file that is not a Glow database or whose records do not read,
    ///   `cannot_open` when the file cannot be opened or created.
    public init(path: String) throws(StoreError) {
        self.path = path
        let connection = try SQLiteConnection.openGlow(
            path: path, application: Self.applicationID, migrations: Self.migrations, kind: "database")
        let data = try Self.load(connection)
        let (feed, rows) = try Self.loadFeed(connection)
        state = Mutex(State(connection: connection, data: data, feed: feed, feedRows: rows))
    }

    /// The data in the database at `path`, read without writing anything: no file is created,
    /// no migration runs, and the file is left byte for byte (for tools that only look, such as a
    /// report).
    ///
    /// - Throws: ``StoreError``: `cannot_open` when there is no such file, `newer_schema` for a
    ///   file of a newer version, `corrupt` for a file that is not a Glow database, holds none of
    ///   its tables yet, or whose records do not read.
    public static func snapshot(path: String) throws(StoreError) -> DataSet {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        let version = try connection.glowSchema(
            application: applicationID, current: schemaVersion, kind: "database")
        guard version >= 1 else {
            throw StoreError(.corrupt, "the file is an empty database, not a Glow database yet", path: path)
        }
        return try load(connection)
    }

    // MARK: Schema

    /// The schema's versions, each the step from the one before.
    static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE profile (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                user_id BLOB NOT NULL,
                record BLOB NOT NULL
            );
            CREATE TABLE goals (
                id BLOB PRIMARY KEY,
                deleted INTEGER NOT NULL,
                modified_at INTEGER NOT NULL,
                record BLOB NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE check_ins (
                goal_id BLOB PRIMARY KEY,
                count INTEGER NOT NULL,
                record BLOB NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE other_records (
                record BLOB PRIMARY KEY
            ) WITHOUT ROWID;
            """
        ),
        (
            2,
            """
            CREATE TABLE device_state (
                key TEXT PRIMARY KEY,
                value BLOB NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE feed_log (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                delta BLOB NOT NULL
            );
            """
        ),
    ]

    // MARK: Reading

    static func load(_ connection: SQLiteConnection) throws(StoreError) -> DataSet {
        func corrupt(_ what: String, _ error: WireError) -> StoreError {
            StoreError(.corrupt, "\(what) does not read: \(error)", path: connection.path)
        }
        var data = DataSet()
        let profiles = try connection.prepare("SELECT record FROM profile")
        while try profiles.step() {
            do { data.profile = try Profile(wire: profiles.blob(0)) } catch { throw corrupt("the profile", error) }
        }
        let goals = try connection.prepare("SELECT record FROM goals")
        while try goals.step() {
            do { data.put(try Goal(wire: goals.blob(0))) } catch { throw corrupt("a goal", error) }
        }
        let blocks = try connection.prepare("SELECT record FROM check_ins")
        while try blocks.step() {
            do {
                data.put(history: try CheckInBlock(wire: blocks.blob(0)).history)
            } catch {
                throw corrupt("a goal's check-ins", error)
            }
        }
        let others = try connection.prepare("SELECT record FROM other_records")
        while try others.step() { data.keepUnknownRecord(others.blob(0)) }
        return data
    }

    /// The data as of the last change committed.
    public var data: DataSet {
        state.withLock { $0.data }
    }

    /// SQLite's own check of the file: true when `PRAGMA integrity_check` finds nothing wrong.
    public func integrityCheck() throws(StoreError) -> Bool {
        try state.withLock { (state) throws(StoreError) -> Bool in
            try state.connection.texts("PRAGMA integrity_check") == ["ok"]
        }
    }

    // MARK: Changing

    /// Makes one change, durably: `edit` runs on a copy of the data and says what it changed
    /// (the model's edits return exactly that, MODEL-62), the changed records are written and
    /// committed in one transaction, and only then does ``data`` show the change.
    ///
    /// - Returns: what changed.
    /// - Throws: ``StoreError``: `refused` with the model's error when `edit` throws, or a
    ///   storage error; in both cases nothing changed, on disk or in ``data``.
    @discardableResult
    public func perform(_ edit: (inout DataSet) throws(ModelError) -> DataSet.Changes) throws(StoreError)
        -> DataSet.Changes
    {
        try state.withLock { (state) throws(StoreError) -> DataSet.Changes in
            var next = state.data
            let changes: DataSet.Changes
            do {
                changes = try edit(&next)
            } catch {
                throw StoreError(.refused, "\(error)", path: path)
            }
            try Self.write(changes, of: next, to: state.connection)
            state.data = next
            return changes
        }
    }

    /// Imports a bundle, all or nothing (BUNDLE-19): read and verified whole, merged into a copy,
    /// then written in one transaction. A crash at any moment leaves either none of it or all.
    ///
    /// - Returns: the import's result, with the social data the bundle carried for the caller
    ///   to merge into its feed replica.
    /// - Throws: ``StoreError``: `refused` with the bundle's error, or a storage error.
    @discardableResult
    public func importBundle(_ bytes: [UInt8]) throws(StoreError) -> ImportResult {
        try state.withLock { (state) throws(StoreError) -> ImportResult in
            var next = state.data
            let result: ImportResult
            do {
                result = try BundleReader().import(reading: BundleReader.chunks(bytes), into: &next)
            } catch {
                throw StoreError(.refused, "\(error)", path: path)
            }
            try Self.write(result.changes, of: next, to: state.connection)
            state.data = next
            return result
        }
    }

    /// Writes the records `changes` names, as `data` holds them, in one transaction.
    static func write(_ changes: DataSet.Changes, of data: DataSet, to connection: SQLiteConnection)
        throws(StoreError)
    {
        guard !changes.isEmpty else { return }
        try connection.transaction { () throws(StoreError) in
            if changes.profile {
                try connection.execute("DELETE FROM profile")
                if let profile = data.profile {
                    try connection.prepare("INSERT INTO profile (singleton, user_id, record) VALUES (1, ?, ?)")
                        .run([.blob(profile.userID.bytes), .blob(profile.wireEncoded())])
                }
            }
            let putGoal = try connection.prepare(
                "INSERT OR REPLACE INTO goals (id, deleted, modified_at, record) VALUES (?, ?, ?, ?)")
            for id in changes.goals.sorted() {
                guard let goal = data.goals[id] else { continue }
                try putGoal.run([
                    .blob(id.bytes), .integer(goal.deleted ? 1 : 0), .integer(goal.modifiedAt.millisecondsSince1970),
                    .blob(goal.wireEncoded()),
                ])
            }
            let putBlock = try connection.prepare(
                "INSERT OR REPLACE INTO check_ins (goal_id, count, record) VALUES (?, ?, ?)")
            let dropBlock = try connection.prepare("DELETE FROM check_ins WHERE goal_id = ?")
            for id in changes.days.keys.sorted() {
                let history = data.history(of: id)
                if history.isEmpty {
                    try dropBlock.run([.blob(id.bytes)])
                } else {
                    try putBlock.run([
                        .blob(id.bytes), .integer(Int64(history.count)), .blob(CheckInBlock(history).wireEncoded()),
                    ])
                }
            }
            if changes.otherRecords > 0 {
                let putOther = try connection.prepare("INSERT OR IGNORE INTO other_records (record) VALUES (?)")
                for record in data.otherRecords { try putOther.run([.blob(record)]) }
            }
        }
    }
}
