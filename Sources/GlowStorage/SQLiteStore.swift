import GlowCore

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
///   the write lock: when another connection (another process, or an extension's) committed
///   since the state was read, it is read again before the body runs. ``refresh()`` does the
///   same look outside a write.
/// - **One transaction per change**, so a change is all or nothing on disk.
package final class SQLiteStore<State: Sendable>: Sendable {
    /// The database's path.
    package let path: String
    /// The database's kind and steps.
    package let schema: DatabaseSchema
    private let held: Locked<Held>
    private let load: @Sendable (SQLiteConnection) throws(StoreError) -> State

    private struct Held: ~Copyable {
        let connection: SQLiteConnection
        /// Nil once dropped: read again before use.
        var state: State?
        /// `data_version` when `state` was read.
        var version: Int64
        /// Whether ``SQLiteStore/close()`` closed the connection.
        var closed = false
    }

    /// Opens the database at `path` as `schema` describes it and reads its state.
    ///
    /// - Parameters:
    ///   - create: whether a missing file is made (else it is `cannot_open`).
    ///   - readOnly: whether the store only reads: nothing is created, migrated or written, and
    ///     every write is refused.
    ///   - load: reads the state from the file; called inside a transaction.
    /// - Throws: ``StoreError`` from opening (see ``DatabaseSchema/open(path:create:)``) or from
    ///   `load`.
    package init(
        path: String, schema: DatabaseSchema, create: Bool = true, readOnly: Bool = false,
        load: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> State
    ) throws(StoreError) {
        self.path = path
        self.schema = schema
        self.load = load
        let connection =
            readOnly ? try schema.openReadOnly(path: path) : try schema.open(path: path, create: create)
        let (state, version) = try Self.read(connection, load)
        held = Locked(Held(connection: connection, state: state, version: version))
    }

    /// The state and its `data_version`, read in one transaction.
    private static func read(
        _ connection: SQLiteConnection, _ load: (SQLiteConnection) throws(StoreError) -> State
    ) throws(StoreError) -> (State, Int64) {
        try connection.transaction(immediate: false) { () throws(StoreError) -> (State, Int64) in
            let version = try connection.dataVersion()
            return (try load(connection), version)
        }
    }

    /// Reads the state as of the last write or refresh (read again first if it was dropped).
    ///
    /// - Throws: ``StoreError`` when the state has to be read again and cannot be.
    package func read<T>(_ body: (State) throws(StoreError) -> T) throws(StoreError) -> T {
        let state = try held.withLock { (held) throws(StoreError) -> State in
            if let state = held.state { return state }
            guard !held.closed else { throw closedError }
            let (state, version) = try Self.read(held.connection, load)
            (held.state, held.version) = (state, version)
            return state
        }
        return try body(state)
    }

    /// What every call answers once the store was closed.
    private var closedError: StoreError {
        StoreError(.closed, "the database was closed: open it again to read or change it", path: path)
    }

    /// Closes the connection, letting go of the file: every later read or write is refused,
    /// `closed`.
    package func close() {
        held.withLock { held in
            held.connection.close()
            held.state = nil
            held.closed = true
        }
    }

    /// Runs `body` on the connection under the store's lock, outside any transaction (for checks
    /// such as `PRAGMA integrity_check`).
    package func withConnection<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        // The result leaves through a variable of the caller's, not through the lock's return.
        var result: T?
        try held.withLock { (held) throws(StoreError) in
            guard !held.closed else { throw closedError }
            result = try body(held.connection)
        }
        guard let result else { preconditionFailure("the body ran") }
        return result
    }

    /// Reads the state again when another connection committed since it was read.
    ///
    /// - Returns: the state read again, or nil when nothing had changed.
    /// - Throws: ``StoreError``: the state is dropped, and read again by the next call.
    package func refresh() throws(StoreError) -> State? {
        try held.withLock { (held) throws(StoreError) -> State? in
            guard !held.closed else { throw closedError }
            let current = try held.connection.dataVersion()
            guard held.state == nil || current != held.version else { return nil }
            held.state = nil
            let (state, version) = try Self.read(held.connection, load)
            (held.state, held.version) = (state, version)
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
            guard !held.closed else { throw closedError }
            let connection = held.connection
            // Taken out of the store while it changes, so it is changed in place (not copied) and,
            // should anything fail, nothing half-changed is left behind.
            var taken = held.state
            held.state = nil
            let (version, load) = (held.version, self.load)
            let current = try connection.transaction { () throws(StoreError) -> Int64 in
                let current = try connection.dataVersion()
                var reloaded = false
                if taken == nil || current != version {
                    taken = nil
                    taken = try load(connection)
                    reloaded = true
                }
                guard var state = taken.take() else { preconditionFailure("the state was just read") }
                let result = try body(&state, connection)
                output = (result, reloaded, state)
                return current
            }
            held.state = output?.state
            // This connection's own commits leave its data_version as it was, so the state is
            // that of `current` plus this change; a later commit by another connection moves it.
            held.version = current
        }
        guard let output else { preconditionFailure("the body ran") }
        return output
    }
}
