import CSQLite
import Foundation
import GlowBundle
import GlowCore
import GlowFeed
import GlowModel
import GlowStorage
import GlowWire

/// A person's data on a device, durable in one SQLite file (issue 17) on the storage layer
/// (``SQLiteStore``).
///
/// Every change is one transaction, committed before the call returns: a tap, an edit or an undo
/// reported done survives a crash or a killed process at any moment after, and an import is all
/// or nothing. Records are kept as their canonical wire bytes (`Spec/glow.proto`) beside the
/// columns that key them, so fields a newer version wrote survive: the profile, each goal, each
/// goal's check-ins as one `CheckInBlock`, and records of types this version does not know.
///
/// Every read and write runs on the database's own serial executor (issue 58), never on the
/// caller's thread: the caller awaits the result, so the main actor hands a change over and goes
/// on drawing while the commit waits for another process's lock on the file. What ``data`` and
/// ``feed`` return is what the file held at the last change or ``refresh()``; a change made
/// through another connection (a second database object on the file, another process) is read at
/// the next change or refresh, and every observer (``observe(_:)``) hears each committed change
/// once, in commit order.
public final class RitualDatabase: Sendable {
    /// The schema this version writes; a file with a greater one is refused, never altered.
    public static let schemaVersion = schema.version
    /// SQLite's `application_id` of a Glow database: "GLWR".
    static var applicationID: Int64 { schema.applicationID }

    /// The database's path.
    public let path: String
    /// Where the device's secrets are (the sync secret; the app's session): never in the file.
    public let secrets: any SecretStore
    /// The serial queue every read and write of the file runs on.
    let executor: DatabaseExecutor
    /// The store: touched only by jobs of ``executor``.
    let store: SQLiteStore<State>
    let observers = ChangeObservers<DatabaseChange>()
    /// The committed changes as the main actor's stores take them in.
    let main = MainChanges()
    /// How other processes on the file hear of this one's commits, and this one of theirs.
    let notice: FileChangeNotice

    struct State: Sendable {
        var data: DataSet
        /// The device's feed replica: every delta of the feed log merged (FEED-21).
        var feed: FeedReplica
        /// Rows in the feed log; past ``feedLogLimit`` they are folded into one.
        var feedRows: Int
        /// The values the device keeps for itself.
        var deviceValues: [String: [UInt8]]
        /// The device's sync with the person's other devices, when it is on.
        var sync: DeviceSync? = nil
    }

    /// Opens the database at `path`, its secrets in `secrets`, and reads the data, on the
    /// database's executor; a missing file is created when `create` is true (the default), and
    /// refused otherwise. A sync secret an earlier version kept in the file is moved into
    /// `secrets` and erased from the file.
    ///
    /// - Throws: ``StoreError``: `newer_schema` for a file written by a newer version (left as it
    ///   was), `corrupt` for a file that is not a Glow database (left as it was) or whose records
    ///   do not read, `cannot_open` when the file cannot be opened or created; the secret store's
    ///   errors while a sync secret is moved out of the file; `cancelled` when the task was
    ///   cancelled before the file was opened.
    public init(path: String, secrets: any SecretStore, create: Bool = true) async throws(StoreError) {
        let executor = DatabaseExecutor(label: "glow.database")
        self.path = path
        self.secrets = secrets
        self.executor = executor
        notice = FileChangeNotice(path: path)
        store = try await executor.run(cancelled: { Self.cancelled(path) }) {
            () throws(StoreError) -> SQLiteStore<State> in
            try SQLiteStore(path: path, schema: Self.schema, create: create) {
                (connection) throws(StoreError) in try Self.load(connection, secrets: secrets)
            }
        }
        try await run { (database) throws(StoreError) in try database.moveSyncSecretOut() }
    }

    /// Opens the database at `path` with its secrets in files beside it
    /// (``FileSecretStore/init(database:)``), as a tool or a program on Linux keeps them; an app
    /// on an Apple platform gives its Keychain store to ``init(path:secrets:create:)``.
    ///
    /// - Throws: what ``init(path:secrets:create:)`` throws.
    public convenience init(path: String, create: Bool = true) async throws(StoreError) {
        try await self.init(path: path, secrets: FileSecretStore(database: path), create: create)
    }

    /// The data in the database at `path`, read without writing anything: no file is created,
    /// no migration runs, and the file is left byte for byte (for tools that only look, such as a
    /// report). It reads on the caller's thread, with no database object: a tool's one look, not
    /// an app's (an app reads ``data``).
    ///
    /// - Throws: ``StoreError``: `cannot_open` when there is no such file, `newer_schema` for a
    ///   file of a newer version, `corrupt` for a file that is not a Glow database, holds none of
    ///   its tables yet, or whose records do not read.
    public static func snapshot(path: String) throws(StoreError) -> DataSet {
        // The person's records only: a file of an earlier schema lacks the later tables.
        try SQLiteStore(path: path, schema: schema, readOnly: true, load: loadData).read { $0 }
    }

    /// The error of work its task cancelled before it started.
    static func cancelled(_ path: String) -> StoreError {
        StoreError(.cancelled, "the task was cancelled before the database's work began: nothing changed", path: path)
    }

    /// The database as a job of its executor sees it: the one way to its reads and writes, which
    /// block their thread while SQLite works (and waits for another process's lock). Only
    /// ``RitualDatabase/run(_:)`` makes one, for the body it runs on the executor; it is not
    /// `Sendable`, so it never leaves that body.
    struct Job {
        /// The database.
        let database: RitualDatabase

        fileprivate init(_ database: RitualDatabase) {
            self.database = database
        }

        /// The database's path.
        var path: String { database.path }
        /// The database's secrets.
        var secrets: any SecretStore { database.secrets }
        /// The store, which only a job touches.
        var store: SQLiteStore<State> { database.store }
        /// The folder of the profile photos.
        var photoFolder: URL { database.photoFolder }

        typealias State = RitualDatabase.State
        typealias Touched = RitualDatabase.Touched
    }

    /// Runs `body` on the database's executor, after every job given before it.
    ///
    /// - Throws: what `body` throws; `cancelled` when the task was cancelled before it began.
    func run<T: Sendable>(_ body: @escaping @Sendable (Job) throws(StoreError) -> T) async throws(StoreError) -> T {
        let path = path
        return try await executor.run(cancelled: { Self.cancelled(path) }) { () throws(StoreError) -> T in
            try body(Job(self))
        }
    }

    /// Runs `body` on the executor, then waits until the main actor's stores show every change
    /// told by then: a change made through the database, a store's own or anyone's, shows in the
    /// app's stores when its method returns.
    func runShown<T: Sendable>(_ body: @escaping @Sendable (Job) throws(StoreError) -> T) async throws(StoreError) -> T
    {
        let result = try await run(body)
        await main.settled()
        return result
    }

    // MARK: Schema

    /// The schema's steps, by name, in order.
    static let schema = DatabaseSchema.person

    // MARK: Reading

    static func load(_ connection: SQLiteConnection, secrets: any SecretStore) throws(StoreError) -> State {
        let (feed, rows) = try loadFeed(connection)
        return State(
            data: try loadData(connection), feed: feed, feedRows: rows, deviceValues: try loadDeviceValues(connection),
            sync: try loadSync(connection, secrets: secrets))
    }

    @Sendable static func loadData(_ connection: SQLiteConnection) throws(StoreError) -> DataSet {
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

    /// The data as of the last change or refresh.
    ///
    /// - Throws: ``StoreError`` only when a failed change left the data to be read again from
    ///   the file and that read fails.
    public var data: DataSet {
        get async throws(StoreError) { try await run { (database) throws(StoreError) in try database.held(\.data) } }
    }

    /// SQLite's own check of the file: true when `PRAGMA integrity_check` finds nothing wrong.
    public func integrityCheck() async throws(StoreError) -> Bool {
        try await run { (database) throws(StoreError) -> Bool in
            try database.store.withConnection { (connection) throws(StoreError) -> Bool in
                try connection.texts("PRAGMA integrity_check") == ["ok"]
            }
        }
    }

    // MARK: Observing

    /// Starts telling `observer` of every change committed to the file, once each and in commit
    /// order, after it is committed: this object's own changes as they are made, another
    /// connection's when a change or ``refresh()`` reads them. The observer runs on the database's
    /// executor, and is given the data as committed, so it never has to read the database to catch
    /// up; it must not wait for the database.
    ///
    /// - Returns: the registration; the observer hears changes until it is cancelled or freed.
    public func observe(_ observer: @escaping @Sendable (DatabaseChange) -> Void) -> DatabaseObservation {
        observers.add(observer)
    }

    /// Every change committed to the file from now on, as an async sequence (``observe(_:)``'s
    /// changes; another connection's once ``refresh()`` or ``watchOtherWriters(every:failed:)``
    /// reads them). It ends when the consumer stops iterating; a consumer more than 256 changes
    /// behind skips the oldest, and each change carries the committed state whole.
    public func changes() -> AsyncStream<DatabaseChange> { observers.stream() }

    /// Reads what another connection (another process, or another database object on the file)
    /// committed since this one last looked, and tells the observers.
    ///
    /// - Returns: whether anything had changed.
    /// - Throws: ``StoreError`` when the file cannot be read; the data is read again next time.
    @discardableResult
    public func refresh() async throws(StoreError) -> Bool {
        try await runShown { (database) throws(StoreError) -> Bool in try database.refresh() }
    }

    /// Tells the observers, and the main actor's stores, of a committed change.
    func tell(_ change: DatabaseChange) {
        observers.notify(change)
        main.take(change)
    }

    /// What a change through this object touched.
    struct Touched {
        var data = DataSet.Changes()
        var feed = false
        var deviceValues: Set<String> = []
    }

    // MARK: Changing

    /// Makes one change, durably, on the database's executor: `edit` runs on a copy of the data
    /// and says what it changed (the model's edits return exactly that, MODEL-62), the changed
    /// records are written and committed in one transaction, and only then does ``data`` show the
    /// change.
    ///
    /// - Returns: what changed.
    /// - Throws: ``StoreError``: `refused` with the model's error when `edit` throws, or a
    ///   storage error; in both cases nothing changed, on disk or in ``data``.
    @discardableResult
    public func perform(_ edit: @escaping @Sendable (inout DataSet) throws -> DataSet.Changes) async throws(StoreError)
        -> DataSet.Changes
    {
        try await runShown { (database) throws(StoreError) in try database.perform(edit) }
    }

    /// Imports a bundle, all or nothing (BUNDLE-19): read and verified whole, merged into a copy,
    /// then written in one transaction. A crash at any moment leaves either none of it or all.
    ///
    /// - Returns: the import's result, with the social data the bundle carried for the caller
    ///   to merge into its feed replica.
    /// - Throws: ``StoreError``: `refused` with the bundle's error, or a storage error.
    @discardableResult
    public func importBundle(_ bytes: [UInt8]) async throws(StoreError) -> ImportResult {
        try await runShown { (database) throws(StoreError) in
            try database.importBundle(reading: BundleReader.chunks(bytes), totalBytes: bytes.count)
        }
    }

    /// Writes the records `changes` names, as `data` holds them, inside the caller's transaction.
    static func write(_ changes: DataSet.Changes, of data: DataSet, to connection: SQLiteConnection)
        throws(StoreError)
    {
        guard !changes.isEmpty else { return }
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

/// One committed change to a ``RitualDatabase``, as its observers hear it: what it touched, and
/// the data as committed.
public struct DatabaseChange: Sendable {
    /// The records of the person's data that changed; nil when anything may have (another
    /// connection's commits were read).
    public let changes: DataSet.Changes?
    /// Whether the feed replica changed (or may have).
    public let feedChanged: Bool
    /// The device values that changed; nil when any may have.
    public let deviceKeys: Set<String>?
    /// The person's data as committed.
    public let data: DataSet
    /// The device's feed replica as committed.
    public let feed: FeedReplica
    /// The device's own values as committed.
    public let deviceValues: [String: [UInt8]]

    init(changes: DataSet.Changes?, feedChanged: Bool, deviceKeys: Set<String>?, state: RitualDatabase.State) {
        self.changes = changes
        self.feedChanged = feedChanged
        self.deviceKeys = deviceKeys
        data = state.data
        feed = state.feed
        deviceValues = state.deviceValues
    }

    /// Another connection's commits: anything may have changed.
    init(external state: RitualDatabase.State) {
        self.init(changes: nil, feedChanged: true, deviceKeys: nil, state: state)
    }

    /// Whether the profile changed, or may have.
    public var profileChanged: Bool { changes?.profile ?? true }

    /// Whether the device value of `key` changed, or may have.
    public func deviceValueChanged(_ key: String) -> Bool { deviceKeys?.contains(key) ?? true }
}

extension RitualDatabase.Job {
    /// Reads the state held, on the executor.
    ///
    /// - Throws: ``StoreError`` only when a failed change left the state to be read again from the
    ///   file and that read fails.
    func held<T>(_ read: (State) -> T) throws(StoreError) -> T {
        return try store.read { state in read(state) }
    }

    /// ``refresh()``, on the executor.
    func refresh() throws(StoreError) -> Bool {
        guard let state = try store.refresh() else { return false }
        database.tell(DatabaseChange(external: state))
        return true
    }

    /// Runs one change through the store and tells the observers what it changed (first
    /// everything, when another connection's commit was read before it).
    func change<T>(_ body: (inout State, SQLiteConnection) throws(StoreError) -> (T, Touched)) throws(StoreError)
        -> T
    {
        let ((result, touched), reloaded, state) = try store.write(body)
        if reloaded { database.tell(DatabaseChange(external: state)) }
        if !touched.data.isEmpty || touched.feed || !touched.deviceValues.isEmpty {
            database.notice.post()
            database.tell(
                DatabaseChange(
                    changes: touched.data, feedChanged: touched.feed, deviceKeys: touched.deviceValues, state: state))
        }
        return result
    }

    /// ``perform(_:)``, on the executor.
    @discardableResult
    func perform(_ edit: (inout DataSet) throws -> DataSet.Changes) throws(StoreError) -> DataSet.Changes {
        let path = path
        return try change { (state, connection) throws(StoreError) -> (Result<DataSet.Changes, StoreError>, Touched) in
            var next = state.data
            let changes: DataSet.Changes
            do {
                changes = try edit(&next)
            } catch {
                // Refused before anything was written: the transaction commits nothing.
                return (
                    .failure(StoreError(.refused, "\(error)", path: path, refusal: error as? any CodedError)), Touched()
                )
            }
            try RitualDatabase.write(changes, of: next, to: connection)
            try RitualDatabase.noteForSync(changes, of: next, state: &state, on: connection)
            state.data = next
            return (.success(changes), Touched(data: changes))
        }.get()
    }
}
