import GlowStorage

/// A server-side store: a database of one kind on the storage layer (``SQLiteStore``), whose
/// state is what a service's storage protocol hands its bodies. ``SQLiteFeedRelayStore`` and
/// ``SQLiteAccountStore`` are its two kinds, each conforming to its service's protocol.
///
/// Every update runs in one transaction that holds the write lock: it first reads the state
/// again when another process (or another store on the file) committed since it was read, so
/// every answer includes every write committed before it; it then writes what it changed and
/// commits before it returns. A storage failure drops what is held, to be read again from the
/// file by the next update, so memory never runs ahead of it.
public final class ServerStore<State: Sendable>: Sendable {
    /// The database's path.
    public var path: String { store.path }
    let store: SQLiteStore<State>

    init(
        path: String, schema: DatabaseSchema, load: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> State
    ) throws(StoreError) {
        store = try SQLiteStore(path: path, schema: schema, load: load)
    }
}

/// A server's accounts and relay in one SQLite file, glow-server's embedded default: an account
/// store and a relay store on the same file, each seeing the other's commits (``ServerStore``).
public struct SQLiteServerDatabase: Sendable {
    /// The file's path.
    public let path: String
    /// The account service's records.
    public let accounts: SQLiteAccountStore
    /// The relay's state.
    public let relay: SQLiteFeedRelayStore

    /// Opens the server database at `path`, making it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt` (another application's file, or a
    ///   row that does not read), `cannot_open`.
    public init(path: String) throws(StoreError) {
        self.path = path
        accounts = try ServerStore(path: path, schema: .server, load: SQLiteAccountStore.load)
        relay = try ServerStore(path: path, schema: .server, load: SQLiteFeedRelayStore.load)
    }

    /// Reads from the file: nil when it answers, else what is wrong (SERVER-7).
    public func problem() -> String? {
        do {
            _ = try accounts.store.withConnection { (connection) throws(StoreError) in
                try connection.integer("SELECT count(*) FROM relay_clock")
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
