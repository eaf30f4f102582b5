import GlowFeed
import GlowWire
import Synchronization

/// The relay's state (FEED-25 ... FEED-27) durable in SQLite, for a server that runs
/// ``FeedRelay`` (issue 17: the feed's state through its storage protocol).
///
/// Each register is one row: its key, its last sequence number and the register's canonical
/// bytes (FEED-28). An update that changed registers writes exactly those rows and the receipt
/// clock, in one transaction; one that changed nothing (a viewer's fan-out) writes nothing. The
/// state is held in memory for fan-out; should a write fail, it is read back from the file, so it
/// never runs ahead of what is stored.
public final class SQLiteFeedRelayStore: FeedRelayStore {
    /// SQLite's `application_id` of a relay database: "GLRL".
    static let applicationID: Int64 = 0x474C_524C
    /// The schema's versions, each the step from the one before.
    static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE relay_registers (
                key TEXT PRIMARY KEY,
                sequence INTEGER NOT NULL,
                register BLOB NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE relay_clock (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                last_receipt INTEGER NOT NULL
            );
            """
        )
    ]

    /// The database's path.
    public let path: String
    private let state: Mutex<Held>

    private struct Held: ~Copyable {
        let connection: SQLiteConnection
        var relay: FeedRelayState
    }

    /// Opens the relay database at `path`, creating it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt` (not a relay database, or a row that
    ///   does not read), `cannot_open`.
    public init(path: String) throws(StoreError) {
        self.path = path
        let connection = try SQLiteConnection.openGlow(
            path: path, application: Self.applicationID, migrations: Self.migrations, kind: "relay database")
        state = Mutex(Held(connection: connection, relay: try Self.load(connection)))
    }

    static func load(_ connection: SQLiteConnection) throws(StoreError) -> FeedRelayState {
        var registers: [FeedRelayState.StoredRegister] = []
        let rows = try connection.prepare("SELECT sequence, register FROM relay_registers")
        while try rows.step() {
            let delta: FeedReplica
            do { delta = try FeedReplica(wire: rows.blob(1)) } catch {
                throw StoreError(.corrupt, "a relay register does not read: \(error)", path: connection.path)
            }
            guard let register = FeedRelayState.StoredRegister(sequence: UInt64(rows.integer(0)), delta: delta) else {
                throw StoreError(.corrupt, "a relay row holds no register", path: connection.path)
            }
            registers.append(register)
        }
        let lastReceipt = try connection.integer("SELECT coalesce(max(last_receipt), 0) FROM relay_clock")
        return FeedRelayState(restoring: registers, lastReceipt: lastReceipt)
    }

    /// Runs `body` on the relay's state and keeps what it changed before returning.
    public func update<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T {
        try state.withLock { (held) throws(FeedError) -> T in
            let before = held.relay.sequence
            let result: T
            do throws(FeedError) {
                result = try body(&held.relay)
            } catch {
                // A refused update must leave nothing behind (FEED-25): should it have changed
                // anything before refusing, the state is read back from the file.
                if held.relay.sequence != before, let stored = try? Self.load(held.connection) { held.relay = stored }
                throw error
            }
            guard held.relay.sequence != before else { return result }
            let changed = held.relay.registers(after: before)
            let lastReceipt = held.relay.lastReceipt
            let connection = held.connection
            do {
                try connection.transaction { () throws(StoreError) in
                    let put = try connection.prepare(
                        "INSERT OR REPLACE INTO relay_registers (key, sequence, register) VALUES (?, ?, ?)")
                    for register in changed {
                        try put.run([
                            .text(register.key.storageKey), .integer(Int64(register.sequence)),
                            .blob(register.delta.wireEncoded()),
                        ])
                    }
                    try connection.prepare("INSERT OR REPLACE INTO relay_clock (singleton, last_receipt) VALUES (1, ?)")
                        .run([.integer(lastReceipt)])
                }
            } catch {
                // What is held must not run ahead of the file: read it back.
                if let stored = try? Self.load(connection) { held.relay = stored }
                throw FeedError.storage("the relay's changes could not be kept: \(error)")
            }
            return result
        }
    }
}
