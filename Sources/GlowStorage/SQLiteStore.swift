import Synchronization

/// A database and what its owner reads from it, kept in step with the file: the one mechanism
/// under every Glow database (a person's, a relay's).
///
/// The store owns one connection under one lock (GRDB's `DatabaseQueue`). Its `State` is what
/// `load` reads from the file, held so reads cost no I/O, and kept honest three ways:
///
/// - **Never ahead of the file.** A write changes the state in place and commits in the same
///   call; should the body or the commit fail, the state is dropped, and the next read loads it
///   again from what the file holds.
/// - **Never behind another writer.** Each write first looks at SQLite's `data_version` under
///   the write lock: when another connection (another process, or another store on the same
///   file) committed since the state was read, it is read again before the body runs.
///   ``refresh()`` does the same look outside a write. A store with a clock (its row of
///   `glow_clock`, as each store of a server's file has, like each store on PostgreSQL) moves it
///   on with every commit that changed the store, and reads its state again only when the clock
///   moved: the account store's commits do not make the relay's store read the relay again.
/// - **One transaction per change**, so a change is all or nothing on disk.
package final class SQLiteStore<State: Sendable>: Sendable {
    /// The database's path.
    package let path: String
    /// The database's kind and steps.
    package let schema: DatabaseSchema
    private let held: Mutex<Held>
    private let load: @Sendable (SQLiteConnection) throws(StoreError) -> State
    /// The store's row in `glow_clock`, or nil for a store alone on its file's data.
    private let clock: String?

    private struct Held: ~Copyable {
        let connection: SQLiteConnection
        /// Nil once dropped: read again before use.
        var state: State?
        /// `data_version` when `state` was read.
        var version: Int64
        /// The store's clock as of `state` (0 without a clock).
        var clock: Int64
    }

    /// Opens the database at `path` as `schema` describes it and reads its state.
    ///
    /// - Parameters:
    ///   - create: whether a missing file is made (else it is `cannot_open`).
    ///   - readOnly: whether the store only reads: nothing is created, migrated or written, and
    ///     every write is refused.
    ///   - clock: the store's row in the schema's `glow_clock` table, for a store that shares
    ///     its file with other stores; nil for one alone.
    ///   - load: reads the state from the file; called inside a transaction.
    /// - Throws: ``StoreError`` from opening (see ``DatabaseSchema/open(path:create:)``) or from
    ///   `load`.
    package init(
        path: String, schema: DatabaseSchema, create: Bool = true, readOnly: Bool = false, clock: String? = nil,
        load: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> State
    ) throws(StoreError) {
        self.path = path
        self.schema = schema
        self.load = load
        self.clock = clock
        let connection =
            readOnly ? try schema.openReadOnly(path: path) : try schema.open(path: path, create: create)
        let (state, version, time) = try Self.read(connection, load, clock: clock)
        held = Mutex(Held(connection: connection, state: state, version: version, clock: time))
    }

    /// The state, its `data_version` and its clock, read in one transaction.
    private static func read(
        _ connection: SQLiteConnection, _ load: (SQLiteConnection) throws(StoreError) -> State, clock: String?
    ) throws(StoreError) -> (State, Int64, Int64) {
        try connection.transaction(immediate: false) { () throws(StoreError) -> (State, Int64, Int64) in
            let version = try connection.dataVersion()
            return (try load(connection), version, try time(connection, clock))
        }
    }

    /// The store's clock: its row of `glow_clock` (0 before its first change, or without a clock).
    package static func time(_ connection: SQLiteConnection, _ clock: String?) throws(StoreError) -> Int64 {
        guard let clock else { return 0 }
        let statement = try connection.prepare("SELECT version FROM glow_clock WHERE name = ?")
        try statement.bind([.text(clock)])
        return try statement.step() ? statement.integer(0) : 0
    }

    /// Whether another connection changed this store since the state of `version` and `time`
    /// was read: the file's `data_version` moved, and the store's clock with it when it has one.
    private static func changedElsewhere(
        _ connection: SQLiteConnection, current: Int64, version: Int64, time: Int64, clock: String?
    ) throws(StoreError) -> Bool {
        guard current != version else { return false }
        guard clock != nil else { return true }
        return try Self.time(connection, clock) != time
    }

    /// Reads the state as of the last write or refresh (read again first if it was dropped).
    ///
    /// - Throws: ``StoreError`` when the state has to be read again and cannot be.
    package func read<T>(_ body: (State) throws(StoreError) -> T) throws(StoreError) -> T {
        let state = try held.withLock { (held) throws(StoreError) -> State in
            if let state = held.state { return state }
            let (state, version, time) = try Self.read(held.connection, load, clock: clock)
            (held.state, held.version, held.clock) = (state, version, time)
            return state
        }
        return try body(state)
    }

    /// Runs `body` on the state as last written or refreshed, without asking the file (read
    /// first when none is held), and says the store's clock as of that state; `fresh` refreshes
    /// first (``refresh()``). Another store on the file confirms the clock in its own transaction.
    ///
    /// - Throws: ``StoreError`` when the state has to be read again and cannot be.
    package func peek<T>(fresh: Bool, _ body: (State) throws(StoreError) -> T) throws(StoreError) -> (
        result: T, clock: Int64
    ) {
        if fresh { _ = try refresh() }
        let (state, time) = try held.withLock { (held) throws(StoreError) -> (State, Int64) in
            if let state = held.state { return (state, held.clock) }
            let (state, version, time) = try Self.read(held.connection, load, clock: clock)
            (held.state, held.version, held.clock) = (state, version, time)
            return (state, time)
        }
        return (try body(state), time)
    }

    /// Runs `body` on the connection under the store's lock, outside any transaction (for checks
    /// such as `PRAGMA integrity_check`).
    package func withConnection<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        // The result leaves through a variable of the caller's, not through the lock's return.
        var result: T?
        try held.withLock { (held) throws(StoreError) in result = try body(held.connection) }
        guard let result else { preconditionFailure("the body ran") }
        return result
    }

    /// Reads the state again when another connection committed since it was read.
    ///
    /// - Returns: the state read again, or nil when nothing had changed.
    /// - Throws: ``StoreError``: the state is dropped, and read again by the next call.
    package func refresh() throws(StoreError) -> State? {
        try held.withLock { (held) throws(StoreError) -> State? in
            let current = try held.connection.dataVersion()
            guard held.state == nil || current != held.version else { return nil }
            if held.state != nil,
                try !Self.changedElsewhere(
                    held.connection, current: current, version: held.version, time: held.clock, clock: clock)
            {
                // Another store on the file committed; this one's clock did not move.
                held.version = current
                return nil
            }
            held.state = nil
            let (state, version, time) = try Self.read(held.connection, load, clock: clock)
            (held.state, held.version, held.clock) = (state, version, time)
            return state
        }
    }

    /// Makes one change in one transaction that holds the write lock throughout: the state is
    /// read again first when another connection committed since it was read; `body` changes it in
    /// place and writes what it changed through the connection; the transaction commits before
    /// this returns.
    ///
    /// - Returns: the body's result, whether the state was read again first (another writer's
    ///   changes are in it), and the state as committed.
    /// - Throws: the body's error or the storage error; the file is as it was, and the state is
    ///   dropped, to be read again from the file by the next call.
    package func write<T>(_ body: (inout State, SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> (
        result: T, reloaded: Bool, state: State
    ) {
        var output: (result: T, reloaded: Bool, state: State)?
        try held.withLock { (held) throws(StoreError) in
            let connection = held.connection
            // Taken out of the store while it changes, so it is changed in place (not copied) and,
            // should anything fail, nothing half-changed is left behind.
            var taken = held.state
            held.state = nil
            let (version, heldTime) = (held.version, held.clock)
            let (load, clock) = (self.load, self.clock)
            let (current, time) = try connection.transaction { () throws(StoreError) -> (Int64, Int64) in
                let current = try connection.dataVersion()
                var time = heldTime
                var reloaded = false
                var stale = taken == nil
                if !stale {
                    stale = try Self.changedElsewhere(
                        connection, current: current, version: version, time: heldTime, clock: clock)
                }
                if stale {
                    taken = nil
                    taken = try load(connection)
                    time = try Self.time(connection, clock)
                    reloaded = true
                }
                guard var state = taken.take() else { preconditionFailure("the state was just read") }
                let before = connection.totalChanges
                let result = try body(&state, connection)
                if let clock, connection.totalChanges != before {
                    // The body wrote: the store's clock moves on, in the same transaction.
                    try connection.prepare(
                        "INSERT INTO glow_clock (name, version) VALUES (?, 1) "
                            + "ON CONFLICT (name) DO UPDATE SET version = version + 1"
                    ).run([.text(clock)])
                    time = try Self.time(connection, clock)
                }
                output = (result, reloaded, state)
                return (current, time)
            }
            held.state = output?.state
            // This connection's own commits leave its data_version as it was, so the state is
            // that of `current` plus this change; a later commit by another connection moves it.
            (held.version, held.clock) = (current, time)
        }
        guard let output else { preconditionFailure("the body ran") }
        return output
    }
}
