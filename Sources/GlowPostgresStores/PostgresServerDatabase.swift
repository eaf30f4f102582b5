import Foundation
import GlowAuth
import GlowCore
import GlowFeed
import GlowPostgres
import GlowRelay
import GlowServerStores
import GlowStorage
import GlowWire

/// A server's accounts and relay in one PostgreSQL database, shared by every process of a
/// deployment: the accounts as rows each request reads and writes (``PostgresAccountStore``), the
/// relay through ``PostgresStateStore``. Open one per process, and any number of processes answer
/// alike.
public final class PostgresServerDatabase: Sendable {
    /// The database's URL without its password.
    public let name: String
    /// The account service's records.
    public let accounts: PostgresAccountStore
    /// The relay's state.
    public let relay: PostgresFeedRelayStore

    /// Connects to the database at `url` (`postgres://user@host/db`, or a libpq connection
    /// string) and brings it to the server's schema. The account store holds `connections`
    /// connections, and the relay's store as many copies of its state, each on a connection of
    /// its own (``PostgresStorePool``): as many as the threads that serve requests. A request that finds every connection of a store in use waits at most
    /// `poolWait` seconds for one, then fails as `busy` (`503` to the device). Every connection
    /// waits on the database no longer than `limits` allow (``PostgresLimits``): a database that
    /// stalls fails the request as `write_failed` (`503`), and a process that stalls inside a
    /// transaction loses its session, and its locks, once the wait has passed.
    ///
    /// - Throws: ``StoreError``: `cannot_open` when it cannot be reached, `corrupt` for a database
    ///   that is another's, `newer_schema`, `write_failed`.
    public init(url: String, connections: Int = 4, poolWait: Double = 2, limits: PostgresLimits = .standard)
        throws(StoreError)
    {
        let name = Self.redacted(url)
        self.name = name
        let connect: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url, limits: limits)
        }
        do {
            let connection = try connect()
            try PostgresMigrator.migrate(.postgresServer, on: connection, name: name)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.cannotOpen, "the database cannot be reached: \(error)", path: name)
        }
        let copies = max(connections, 1)
        accounts = PostgresAccountStore(
            name: name, pool: PostgresConnectionPool(size: copies, wait: poolWait, name: name, connect: connect))
        relay = PostgresFeedRelayStore(
            store: PostgresStorePool(
                (0..<copies).map { _ in
                    PostgresStateStore(name: name, clockName: "relay", behaviour: .relay, connect: connect)
                }, wait: poolWait))
    }

    /// Reads from the database: nil when it answers, else what is wrong (SERVER-7).
    public func problem() -> String? {
        do {
            _ = try relay.store.stores[0].withConnection { (connection) throws(PostgresError) in
                try connection.execute("SELECT version FROM glow_clock WHERE name = 'relay'")
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// `postgres://user:secret@host/db` without the secret.
    package static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
            let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
        else { return url.contains("password=") ? "the configured database" : url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

/// The relay's state in PostgreSQL: each register a row with its last sequence number (FEED-25,
/// FEED-28). Sequence numbers are given under the store's clock, so they commit in order.
public final class PostgresFeedRelayStore: FeedRelayStore {
    package let store: PostgresStorePool<FeedRelayState>

    init(store: PostgresStorePool<FeedRelayState>) {
        self.store = store
    }

    /// Runs `body` on the relay's state as the database holds it now, and keeps what it changed
    /// before returning.
    ///
    /// - Throws: the body's ``FeedError`` (nothing kept), or ``FeedError/Code/storageFailed``.
    public func update<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T {
        StoreReading.answer(unconfirmed: try update(reading: nil, body))
    }

    private func update<T>(reading: StoreReading?, _ body: (inout FeedRelayState) throws(FeedError) -> T)
        throws(FeedError) -> T?
    {
        let outcome: Result<T, FeedError>?
        do {
            outcome = try store.update(confirming: reading) { relay -> Result<T, FeedError> in
                let original = relay
                do throws(FeedError) {
                    return .success(try body(&relay))
                } catch {
                    relay = original
                    return .failure(error)
                }
            }
        } catch {
            throw FeedError.storage("the relay's state could not be read or kept: \(error)")
        }
        return try outcome?.get()
    }

    /// Runs `body`, a change, on the relay's state in place under the store's clock lock (no copy
    /// of the state, no race to lose), and keeps what it changed before returning. A body that
    /// throws may have changed the state: nothing is written, and the state is read again.
    ///
    /// - Throws: the body's ``FeedError`` (nothing kept), or ``FeedError/Code/storageFailed``.
    public func write<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T {
        StoreReading.answer(unconfirmed: try write(reading: nil, body))
    }

    /// As ``update(_:)``, confirming `reading` of the account store on this database in the
    /// same transaction (``StoreReading``): nil, with nothing run, when it no longer holds.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of another database, or as
    ///   ``update(_:)``.
    public func update<T>(confirming reading: StoreReading, _ body: (inout FeedRelayState) throws(FeedError) -> T)
        throws(FeedError) -> T?
    {
        try update(reading: try confirmable(reading), body)
    }

    /// As ``write(_:)``, confirming `reading` as ``update(confirming:_:)`` does.
    ///
    /// - Throws: as ``update(confirming:_:)``.
    public func write<T>(confirming reading: StoreReading, _ body: (inout FeedRelayState) throws(FeedError) -> T)
        throws(FeedError) -> T?
    {
        try write(reading: try confirmable(reading), body)
    }

    /// Whether `reading` is of this database.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == store.stores[0].name }

    /// `reading`, when it is of this database.
    private func confirmable(_ reading: StoreReading) throws(FeedError) -> StoreReading {
        guard confirms(reading) else {
            throw FeedError.storage(
                "the relay's database \(store.stores[0].name) cannot confirm a reading of \(reading)")
        }
        return reading
    }

    private func write<T>(reading: StoreReading?, _ body: (inout FeedRelayState) throws(FeedError) -> T)
        throws(FeedError) -> T?
    {
        let outcome: Result<T, FeedError>?
        do {
            outcome = try store.write(
                confirming: reading,
                { relay -> Result<T, FeedError> in
                    do throws(FeedError) {
                        return .success(try body(&relay))
                    } catch {
                        return .failure(error)
                    }
                },
                keeps: { if case .success = $0 { true } else { false } })
        } catch {
            throw FeedError.storage("the relay's state could not be read or kept: \(error)")
        }
        return try outcome?.get()
    }
}

extension PostgresStateStore.Behaviour where State == FeedRelayState {
    /// The relay: a row per register, the receipt clock, and the push outbox's rows
    /// (``PushRows``).
    static var relay: Self {
        Self(
            empty: { FeedRelayState() },
            catchUp: { (relay, connection, after) throws(StoreError) in
                var registers: [FeedRelayState.StoredRegister] = []
                let lastReceipt: Int64
                do {
                    let rows = try connection.execute(
                        "SELECT sequence, register, public_until, shared_until FROM relay_registers "
                            + "WHERE version > $1", [.int(after)])
                    for index in 0..<rows.rows.count {
                        let sequence = try rows.int(index, "sequence")
                        let ends = VisibilityEnds(
                            publicUntil: UInt64(clamping: try rows.int(index, "public_until")),
                            sharedUntil: UInt64(clamping: try rows.int(index, "shared_until")))
                        let bytes = try rows.bytes(index, "register")
                        let delta: FeedReplica
                        do {
                            delta = try FeedReplica(wire: bytes)
                        } catch {
                            throw StoreError(.corrupt, "a relay register does not read: \(error)", path: "")
                        }
                        guard sequence > 0,
                            let register = FeedRelayState.StoredRegister(
                                sequence: UInt64(sequence), delta: delta, ends: ends)
                        else { throw StoreError(.corrupt, "a relay row holds no register", path: "") }
                        registers.append(register)
                    }
                    lastReceipt = try connection.execute("SELECT last_receipt FROM relay_clock").int(0, "last_receipt")
                    relay.restore(registers, lastReceipt: lastReceipt)
                    // The push outbox's rows, a removed one without a value.
                    let pushes = try connection.execute(
                        "SELECT kind, key, value FROM relay_pushes WHERE version > $1", [.int(after)])
                    for index in 0..<pushes.rows.count {
                        let cells = pushes.rows[index]
                        guard cells.count == 3, case .text(let kind) = cells[0], case .text(let key) = cells[1] else {
                            throw StoreError(.corrupt, "a push row is not (kind, key, value)", path: "")
                        }
                        let value: [UInt8]?
                        switch cells[2] {
                        case .bytes(let bytes): value = bytes
                        case .null: value = nil
                        default: throw StoreError(.corrupt, "a push row's value is not bytes", path: "")
                        }
                        try PushRows.apply(kind: kind, key: key, value: value, to: &relay, path: "")
                    }
                    relay.pushes.keepChanges()
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError(.writeFailed, "the relay's registers cannot be read: \(error)", path: "")
                }
            },
            mark: { relay in [Int64(bitPattern: relay.sequence), relay.lastReceipt] },
            changed: { mark, after in
                mark != [Int64(bitPattern: after.sequence), after.lastReceipt] || after.pushes.hasChanges
            },
            persist: { (mark, relay, connection, version) throws(StoreError) in
                do throws(PostgresError) {
                    for register in relay.registers(after: UInt64(bitPattern: mark[0])) {
                        try connection.execute(
                            "INSERT INTO relay_registers (key, sequence, register, version, public_until, shared_until) "
                                + "VALUES ($1, $2, $3, $4, $5, $6) "
                                + "ON CONFLICT (key) DO UPDATE SET sequence = EXCLUDED.sequence, "
                                + "register = EXCLUDED.register, version = EXCLUDED.version, "
                                + "public_until = EXCLUDED.public_until, shared_until = EXCLUDED.shared_until",
                            [
                                .text(register.key.storageKey), .int(Int64(register.sequence)),
                                .bytes(register.delta.wireEncoded()), .int(version),
                                .int(Int64(clamping: register.ends.publicUntil)),
                                .int(Int64(clamping: register.ends.sharedUntil)),
                            ])
                    }
                    try connection.execute("UPDATE relay_clock SET last_receipt = $1", [.int(relay.lastReceipt)])
                    for row in PushRows.changed(relay) {
                        try connection.execute(
                            "INSERT INTO relay_pushes (kind, key, value, version) VALUES ($1, $2, $3, $4) "
                                + "ON CONFLICT (kind, key) DO UPDATE SET value = EXCLUDED.value, "
                                + "version = EXCLUDED.version",
                            [.text(row.kind), .text(row.key), row.value.map { .bytes($0) } ?? .null, .int(version)])
                    }
                    // A push sent or a device removed stays a row without a value, so other
                    // processes learn of it; every 4,096 versions those older than 65,536 go, and a
                    // process that has not read since then reads the relay again.
                    if version % 4_096 == 0, version > 65_536 {
                        try connection.execute(
                            "DELETE FROM relay_pushes WHERE value IS NULL AND version <= $1", [.int(version - 65_536)])
                        try connection.execute(
                            "UPDATE glow_clock SET purged = $1 WHERE name = 'relay'", [.int(version - 65_536)])
                    }
                } catch {
                    throw StoreError(
                        .writeFailed, "the relay's registers cannot be written: \(error.message)", path: "")
                }
                relay.pushes.keepChanges()
            })
    }
}
