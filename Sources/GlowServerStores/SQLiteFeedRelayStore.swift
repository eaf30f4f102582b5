import GlowCore
import GlowFeed
import GlowRelay
import GlowStorage
import GlowWire

/// The relay's state (FEED-25 ... FEED-27) durable in SQLite, for a server that runs
/// ``FeedRelay``, through the feed's storage protocol, ``FeedRelayStore``.
///
/// Each register is one row: its key, its last sequence number and the register's canonical
/// bytes (FEED-28). An update that changed registers writes exactly those rows and the receipt
/// clock, and the rows of the push outbox it changed (``PushRows``); one that changed nothing (a
/// viewer's fan-out) writes nothing.
public typealias SQLiteFeedRelayStore = ServerStore<FeedRelayState>

extension ServerStore: FeedRelayStore where State == FeedRelayState {
    /// Opens the relay database at `path`, creating it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt` (not a relay database, or a row that
    ///   does not read), `cannot_open`.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, schema: .relay, clock: "relay", load: Self.load)
    }

    @Sendable static func load(_ connection: SQLiteConnection) throws(StoreError) -> FeedRelayState {
        var registers: [FeedRelayState.StoredRegister] = []
        let rows = try connection.prepare(
            "SELECT sequence, register, public_until, shared_until FROM relay_registers")
        while try rows.step() {
            let delta: FeedReplica
            do { delta = try FeedReplica(wire: rows.blob(1)) } catch {
                throw StoreError(.corrupt, "a relay register does not read: \(error)", path: connection.path)
            }
            let ends = VisibilityEnds(
                publicUntil: UInt64(clamping: rows.integer(2)), sharedUntil: UInt64(clamping: rows.integer(3)))
            guard
                let register = FeedRelayState.StoredRegister(
                    sequence: UInt64(clamping: rows.integer(0)), delta: delta, ends: ends)
            else {
                throw StoreError(.corrupt, "a relay row holds no register", path: connection.path)
            }
            registers.append(register)
        }
        let lastReceipt = try connection.integer("SELECT coalesce(max(last_receipt), 0) FROM relay_clock")
        var state = FeedRelayState(restoring: registers, lastReceipt: lastReceipt)
        let pushes = try connection.prepare("SELECT kind, key, value FROM relay_pushes")
        while try pushes.step() {
            try PushRows.apply(
                kind: pushes.text(0), key: pushes.text(1), value: pushes.blob(2), to: &state, path: connection.path)
        }
        state.pushes.keepChanges()
        return state
    }

    /// Runs `body` on the relay's state as the file holds it now, and keeps what it changed
    /// before returning.
    ///
    /// - Throws: the body's ``FeedError`` (nothing kept), or ``FeedError/Code/storageFailed``
    ///   when the state cannot be read or kept.
    public func update<T>(_ body: (inout FeedRelayState) throws(FeedError) -> T) throws(FeedError) -> T {
        StoreReading.answer(unconfirmed: try update(reading: nil, body))
    }

    /// Whether `reading` is of this file.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == path }

    /// As ``update(_:)``, confirming `reading` of the account store on this file in the same
    /// transaction (``StoreReading``): nil, with nothing run, when its clock moved since.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of another database, or as
    ///   ``update(_:)``.
    public func update<T>(confirming reading: StoreReading, _ body: (inout FeedRelayState) throws(FeedError) -> T)
        throws(FeedError) -> T?
    {
        guard confirms(reading) else {
            throw FeedError.storage("the relay's file \(path) cannot confirm a reading of \(reading)")
        }
        return try update(reading: reading, body)
    }

    private func update<T>(reading: StoreReading?, _ body: (inout FeedRelayState) throws(FeedError) -> T)
        throws(FeedError) -> T?
    {
        var refusal: FeedError?
        let outcome: Result<T, FeedError>?
        do {
            outcome = try store.write { (relay, connection) throws(StoreError) -> Result<T, FeedError>? in
                // In the write's transaction: the account rows as the reading saw them.
                if let reading, try !accountReadingHolds(reading, on: connection) { return nil }
                let before = relay.sequence
                let result: T
                do throws(FeedError) {
                    result = try body(&relay)
                } catch {
                    // The relay's bodies check before they change (FEED-25). Should one have
                    // changed anything before refusing, the state is dropped and read again.
                    guard relay.sequence == before else {
                        refusal = error
                        throw StoreError(.refused, "\(error)", path: connection.path)
                    }
                    return .failure(error)
                }
                if relay.sequence != before {
                    let put = try connection.prepare(
                        "INSERT OR REPLACE INTO relay_registers (key, sequence, register, public_until, shared_until) "
                            + "VALUES (?, ?, ?, ?, ?)")
                    for register in relay.registers(after: before) {
                        try put.run([
                            .text(register.key.storageKey), .integer(Int64(clamping: register.sequence)),
                            .blob(register.delta.wireEncoded()), .integer(Int64(clamping: register.ends.publicUntil)),
                            .integer(Int64(clamping: register.ends.sharedUntil)),
                        ])
                    }
                    try connection.prepare(
                        "INSERT OR REPLACE INTO relay_clock (singleton, last_receipt) VALUES (1, ?)"
                    ).run([.integer(relay.lastReceipt)])
                }
                if relay.pushes.hasChanges {
                    let put = try connection.prepare(
                        "INSERT OR REPLACE INTO relay_pushes (kind, key, value) VALUES (?, ?, ?)")
                    let drop = try connection.prepare("DELETE FROM relay_pushes WHERE kind = ? AND key = ?")
                    for row in PushRows.changed(relay) {
                        if let value = row.value {
                            try put.run([.text(row.kind), .text(row.key), .blob(value)])
                        } else {
                            try drop.run([.text(row.kind), .text(row.key)])
                        }
                    }
                    relay.pushes.keepChanges()
                }
                return .success(result)
            }.result
        } catch {
            if let refusal { throw refusal }
            throw FeedError.storage("the relay's state could not be read or kept: \(error)")
        }
        return try outcome?.get()
    }
}
