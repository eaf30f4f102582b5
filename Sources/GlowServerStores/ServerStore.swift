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
