import Foundation
import GlowCore
import GlowFeed
import GlowPostgres
import GlowRelay
import GlowServerStores
import GlowStorage
import GlowWire

/// The relay's state in PostgreSQL, shared by every process: each register a row with its last
/// sequence number, its canonical bytes (FEED-28) and the columns it is found by
/// (``RelayKey/indexColumns``), the push outbox's rows with their person, token and time.
///
/// An update is one transaction on a connection of the pool that reads the rows its load names
/// (``RelayLoad``) by index, runs the relay's rules on them, and writes the rows they changed:
/// nothing is held between updates, so a process's memory does not grow with the number of
/// people and it starts without reading their registers. A read runs in one `REPEATABLE READ`
/// snapshot of the numbered registers.
///
/// A write runs `READ COMMITTED` under the locks of what it may change (``lockNames(_:)``): its
/// person, and the item of each cheer it holds. Only the person writes their own registers, so
/// writes of different people take no lock of each other's and never abort each other; two
/// writes of one person (two devices) take turns. Its changed registers wait in a batch of
/// `relay_pending`, and the sequencer (``PostgresRelaySequencer``) numbers them once they
/// committed, so a reader's cursor never passes a write that commits late (FEED-25). A write is
/// answered once it committed: with its numbers when the numbering catches up within the wait,
/// else with the last number the write knew, the numbering following without it.
public final class PostgresFeedRelayStore: FeedRelayStore {
    /// The database, as its owner named it (without a password).
    public let name: String
    package let pool: PostgresConnectionPool
    /// The numbering of this process (FEED-25).
    package let sequencer: PostgresRelaySequencer
    /// How long a write waits for its numbers before it is answered without them, in seconds.
    let numberingWait: Double
    /// How long a write whose commit was sent but not answered waits to learn what became of it,
    /// in seconds.
    let outcomeWait: Double

    init(name: String, pool: PostgresConnectionPool, sequencer: PostgresRelaySequencer, wait: Double) {
        self.name = name
        self.pool = pool
        self.sequencer = sequencer
        numberingWait = wait
        outcomeWait = Swift.max(5, 5 * wait)
    }

    deinit { sequencer.stop() }

    /// Whether `reading` is of this database.
    public func confirms(_ reading: StoreReading) -> Bool { reading.database == name }

    /// How many times a write runs again after PostgreSQL failed it for racing another (a
    /// deadlock, which the locks' order leaves to rows of the push outbox a device's move touches).
    static var attempts: Int { 16 }

    /// Runs `body` on the part of the relay `load` names, read from the database now, and keeps
    /// what it changed before returning (``FeedRelayStore``). A write that changed registers is
    /// answered once it committed: with the last number its changes were given when the numbering
    /// catches up within the wait (``PostgresRelaySequencer``), else with the relay's last number
    /// as the write read it; the numbering follows by itself.
    ///
    /// - Throws: ``FeedError/Code/storageFailed`` for a reading of another database, or when a row
    ///   cannot be read or kept, or the database does not answer within its wait; the body's
    ///   ``FeedError``, with nothing kept.
    public func update<T>(
        loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(FeedError) -> (result: T, sequence: UInt64)? {
        if let reading, !confirms(reading) {
            throw FeedError.storage("the relay's database \(name) cannot confirm a reading of \(reading)")
        }
        do {
            for _ in 0..<Self.attempts {
                let outcome = try pool.withConnection { (connection) throws(StoreError) -> Attempt<T> in
                    writing
                        ? try attemptWrite(load, confirming: reading, on: connection, body)
                        : try attemptRead(load, confirming: reading, on: connection, body)
                }
                switch outcome {
                case .lostRace:
                    sequencer.countRetry()
                    continue
                case .unconfirmed: return nil
                case .refused(let error): throw error
                case .done(let result, let sequence, nil, _): return (result, sequence)
                case .done(let result, let before, let batch?, let run):
                    return (result, numbers(of: batch, run) ?? before)
                case .unknown(let result, let before, let batch, let run, let xid):
                    // The commit was sent and not answered: the write is answered as what became of it.
                    try resolve(xid)
                    return (result, batch.flatMap { numbers(of: $0, run) } ?? before)
                }
            }
            throw StoreError(
                .busy, "other writes of the same rows won \(Self.attempts) times while this one tried", path: name)
        } catch let error as FeedError {
            throw error
        } catch {
            throw FeedError.storage("the relay's rows could not be read or kept: \(error)")
        }
    }

    /// The last number `batch` was given, once its write committed: by the write's own run when
    /// it numbered it, else by the sequencer within the wait; nil when not yet.
    private func numbers(of batch: Int64, _ run: PostgresRelaySequencer.Outcome?) -> UInt64? {
        if let run {
            sequencer.committed(run)
            if let number = run.numbered[batch] { return number }
        }
        return sequencer.number(of: batch, within: numberingWait)
    }

    /// How one try of an update went.
    private enum Attempt<T> {
        /// Kept: the body's result, the relay's last number as the transaction saw it, the batch
        /// its changed registers wait in for their numbers, if any, and what the write's own run
        /// numbered (``PostgresRelaySequencer/numberInline(on:)``).
        case done(T, UInt64, batch: Int64?, run: PostgresRelaySequencer.Outcome?)
        /// The commit was sent and its answer never came: kept or not, as transaction `xid` ended.
        case unknown(T, UInt64, batch: Int64?, run: PostgresRelaySequencer.Outcome?, xid: Int64)
        /// The body refused: nothing kept.
        case refused(FeedError)
        /// The reading to confirm no longer holds: nothing ran.
        case unconfirmed
        /// PostgreSQL failed it for racing another write, or the connection was found dropped
        /// before it began: try again.
        case lostRace
    }

    /// One read, in one `REPEATABLE READ` snapshot of the numbered registers.
    private func attemptRead<T>(
        _ load: RelayLoad, confirming reading: StoreReading?, on connection: PostgresConnection,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(StoreError) -> Attempt<T> {
        do {
            return try Self.transaction(on: connection, name: name, begin: Self.read) { () throws(StoreError) in
                if let reading, try !confirmed(reading, locking: false, on: connection) { return .unconfirmed }
                let rows = PostgresRelayRows(connection, name: name)
                var relay = try self.load(load, from: rows)
                do throws(FeedError) {
                    let result = try body(&relay)
                    return .done(result, relay.sequence, batch: nil, run: nil)
                } catch {
                    return .refused(error)
                }
            }
        } catch  where error.code == .busy && error.message.hasPrefix(Self.lostRace) {
            return .lostRace
        }
    }

    /// One write, in one `READ COMMITTED` transaction that first takes the locks of what it may
    /// change, in one order (``lockNames(_:)``): the registers as they are with the changes still
    /// waiting for their numbers merged in; its own changed registers left waiting in a new batch.
    /// The push dispatcher's load takes the locks it can of the pushes due, and reads only those.
    private func attemptWrite<T>(
        _ load: RelayLoad, confirming reading: StoreReading?, on connection: PostgresConnection,
        _ body: (inout FeedRelayState) throws(FeedError) -> T
    ) throws(StoreError) -> Attempt<T> {
        var xid: Int64 = 0
        var kept: (result: T, before: UInt64, batch: Int64?, run: PostgresRelaySequencer.Outcome?)?
        do {
            return try Self.transaction(on: connection, name: name, begin: Self.write) {
                () throws(StoreError) -> Attempt<T> in
                xid = try Self.lock(Self.lockNames(load), on: connection, name: name)
                if let reading, try !confirmed(reading, locking: true, on: connection) { return .unconfirmed }
                var dispatching: (rows: Set<String>, lasts: Bool)?
                if case .due(let now, _) = load {
                    dispatching = try Self.dispatchLocks(now: now, on: connection, name: name)
                }
                let rows = PostgresRelayRows(connection, name: name, pending: true, dispatching: dispatching)
                var relay = try self.load(load, from: rows)
                let (before, ends, receipts) = (relay.sequence, relay.ends, relay.replica.receipts)
                let result: T
                do throws(FeedError) {
                    result = try body(&relay)
                } catch {
                    return .refused(error)
                }
                let batch = try Self.keep(
                    relay, since: before, ends: ends, receipts: receipts, on: connection, name: name)
                // Numbered at once, in this transaction, when no run holds the lock now.
                let run = batch == nil ? nil : try sequencer.numberInline(on: connection)
                kept = (result, before, batch, run)
                return .done(result, before, batch: batch, run: run)
            }
        } catch  where error.code == .busy && error.message.hasPrefix(Self.lostRace) {
            return .lostRace
        } catch  where error.message.hasPrefix(Self.unanswered) {
            guard let kept, xid != 0 else { throw error }
            return .unknown(kept.result, kept.before, batch: kept.batch, run: kept.run, xid: xid)
        }
    }

    /// The part of the relay `load` names, read through `rows`.
    private func load(_ load: RelayLoad, from rows: PostgresRelayRows) throws(StoreError) -> FeedRelayState {
        do throws(FeedError) {
            return try FeedRelayState.loading(load, from: rows)
        } catch {
            throw rows.failure ?? StoreError(.corrupt, error.message, path: name)
        }
    }

    /// Whether the account rows `reading` read still have their versions; a write holds them
    /// (`FOR SHARE`) to its commit, so a sign-out racing it waits for it rather than passing it.
    private func confirmed(_ reading: StoreReading, locking: Bool, on connection: PostgresConnection)
        throws(StoreError) -> Bool
    {
        try Self.postgres(
            { () throws(PostgresError) in try accountReadingHolds(reading, locking: locking, on: connection) }, name)
    }

    /// How a write begins: `READ COMMITTED`, each statement seeing every commit before it, so
    /// what it reads after its locks is what the writers before it left.
    static let write = "BEGIN ISOLATION LEVEL READ COMMITTED"
    /// How a read begins: one `REPEATABLE READ` snapshot of the numbered registers.
    static let read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body` in one transaction on `connection`, begun by `begin` (``write``, ``read``, or
    /// the sequencer's). Rolled back when it throws. A commit the server refused ended the
    /// transaction, so nothing is rolled back after it; one whose answer never came throws a
    /// message that begins with ``unanswered``: it may have been kept.
    static func transaction<T>(
        on connection: PostgresConnection, name: String, begin: String, _ body: () throws(StoreError) -> T
    ) throws(StoreError) -> T {
        do throws(PostgresError) {
            try connection.execute(begin)
        } catch {
            // A connection the database dropped (a restart) fails here, before anything of the
            // update was sent: the pool forgets it and the update runs again on another, so the
            // first request after a restart is served, not refused.
            if !connection.isUsable { throw StoreError(.busy, lostRace + error.message, path: name) }
            throw StoreError(.writeFailed, "the relay's rows: \(error.message)", path: name)
        }
        let result: T
        do {
            result = try body()
        } catch {
            // A failed rollback means the connection is gone: the pool drops it.
            do { try connection.execute("ROLLBACK") } catch {}
            throw error
        }
        do throws(PostgresError) {
            try connection.execute("COMMIT")
        } catch {
            guard connection.isUsable else {
                throw StoreError(.writeFailed, unanswered + error.message, path: name)
            }
            // Refused: the transaction ended without keeping anything.
            throw postgresFailure(error, name)
        }
        return result
    }

    /// How ``postgres(_:_:)`` begins the message of a failure after which an update runs again:
    /// a serialization failure or a deadlock, or a connection found dropped before the update began.
    static let lostRace = "to be run again: "
    /// How ``transaction(on:name:begin:_:)`` begins the message of a commit whose answer never came.
    static let unanswered = "the commit was not answered: "

    /// `body`'s PostgreSQL failure as the storage layer's.
    static func postgres<T>(_ body: () throws(PostgresError) -> T, _ name: String) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw postgresFailure(error, name)
        }
    }

    /// A PostgreSQL failure as the storage layer's: `busy` to run again for a serialization
    /// failure or a deadlock, `write_failed` otherwise.
    static func postgresFailure(_ error: PostgresError, _ name: String) -> StoreError {
        if error.sqlState == "40001" || error.sqlState == "40P01" {
            return StoreError(.busy, lostRace + error.message, path: name)
        }
        return StoreError(.writeFailed, "the relay's rows: \(error.message)", path: name)
    }

    /// Learns whether transaction `xid`, whose commit was sent but not answered, was kept: asked
    /// on other connections until PostgreSQL says, for at most ``outcomeWait`` seconds. So a write
    /// answered `503` was not kept, and one kept is answered as kept (SERVER-10), though the
    /// database stalled at its commit.
    ///
    /// - Throws: ``StoreError`` `write_failed` when it was not kept, or `busy` when PostgreSQL did
    ///   not say within the wait (then it may have been kept, and a device that sends it again
    ///   changes nothing: registers keep the greatest stamp).
    private func resolve(_ xid: Int64) throws(StoreError) {
        let giveUp = ContinuousClock.now + .milliseconds(Int64(outcomeWait * 1_000))
        var last = "no answer"
        while ContinuousClock.now < giveUp {
            do throws(StoreError) {
                let status = try pool.withConnection { (connection) throws(StoreError) -> String? in
                    let found = try Self.postgres(
                        { () throws(PostgresError) in
                            try connection.execute("SELECT txid_status($1) AS status", [.int(xid)])
                        }, name)
                    guard !found.rows.isEmpty, found.rows[0].first != .null else { return nil }
                    return try Self.postgres({ () throws(PostgresError) in try found.text(0, "status") }, name)
                }
                switch status {
                case "committed": return
                case "in progress": last = "the transaction is still committing"
                default:
                    throw StoreError(
                        .writeFailed, "the write was not kept: its commit was cut off (\(status ?? "unknown"))",
                        path: name)
                }
            } catch  where error.code == .writeFailed && error.message.hasPrefix("the write was not kept") {
                throw error
            } catch {
                last = error.message
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw StoreError(
            .busy,
            "the database did not say within \(outcomeWait) s whether a write whose commit it did not answer was kept "
                + "(\(last)); sending it again changes nothing",
            path: name)
    }

    // MARK: Locks

    /// The names of the locks a write of `load` takes: the person whose registers it changes
    /// (their stances, items, visibility, reactions and seen marker, which only they write, and
    /// the push groups of their items' events), the item of each cheer (its owner's push groups of
    /// that item), the token of a device registered or removed. The push dispatcher takes its own
    /// (``dispatchLocks(now:on:name:)``).
    static func lockNames(_ load: RelayLoad) -> [String] {
        switch load {
        case .accept(let delta, let person):
            return [personLock(person)] + delta.reactions.keys.map { itemLock($0.item.text) }
        case .erasure(let person), .devices(let person): return [personLock(person)]
        case .device(let token, let person): return [tokenLock(token)] + (person.map { [personLock($0)] } ?? [])
        case .whole, .changes, .allDevices, .due: return []
        }
    }

    static func personLock(_ person: String) -> String { "person\u{1F}" + person }
    static func itemLock(_ item: String) -> String { "item\u{1F}" + item }
    static func tokenLock(_ token: String) -> String { "token\u{1F}" + token }

    /// The lock a writer of push row `row` holds: a group of a `friend/` topic is its friend's
    /// (whose writes add to it), one of an `item/` topic its item's; a proof and a device their
    /// token's; a last push its group's; a closed person theirs.
    static func lockName(_ row: PushOutbox.Row.Key) -> String {
        switch row.kind {
        case .group, .last:
            guard let cut = row.key.firstIndex(of: "\n") else { return tokenLock(row.key) }
            let topic = row.key[row.key.index(after: cut)...]
            if topic.hasPrefix("friend/") { return personLock(String(topic.dropFirst(7))) }
            if topic.hasPrefix("item/") { return itemLock(String(topic.dropFirst(5))) }
            return tokenLock(String(row.key[..<cut]))
        case .proof: return tokenLock(row.token ?? row.key)
        case .device: return tokenLock(row.key)
        case .closed: return personLock(row.key)
        }
    }

    /// A lock's number for PostgreSQL's advisory locks: the name's 64-bit FNV-1a hash, the same
    /// in every process (two names that share one only take turns more often).
    static func lockKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Takes the locks named `names` for the transaction, in the order of their numbers, so two
    /// writers never wait for each other in a circle; answers the transaction's id, for learning
    /// what became of it when its commit is not answered.
    ///
    /// - Throws: ``StoreError`` `write_failed` when a lock was not had within the lock timeout
    ///   (a paused process holds it): then nothing was written.
    static func lock(_ names: [String], on connection: PostgresConnection, name: String) throws(StoreError)
        -> Int64
    {
        let keys = Set(names.map(lockKey)).sorted()
        return try postgres(
            { () throws(PostgresError) -> Int64 in
                for key in keys.dropLast() { try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(key)]) }
                guard let last = keys.last else {
                    return try connection.execute("SELECT txid_current() AS xid").int(0, "xid")
                }
                // The last lock and the transaction's id in one round trip.
                return try connection.execute(
                    "SELECT txid_current() AS xid FROM (SELECT pg_advisory_xact_lock($1)) AS locked", [.int(last)]
                ).int(0, "xid")
            }, name)
    }

    /// The advisory lock of the one push dispatcher at a time (the letters GLPD).
    static let dispatcherLock: Int64 = 0x474C_5044

    /// The push dispatcher's locks, taken without waiting: the one dispatcher's, then the lock of
    /// each group and proof due at `now` (``lockName(_:)``). Answers the lock names of the rows it
    /// holds and whether it is the dispatcher; a row whose lock a write holds now is sent at the
    /// next round, and nothing at all when another process dispatches.
    static func dispatchLocks(now: Int64, on connection: PostgresConnection, name: String) throws(StoreError) -> (
        rows: Set<String>, lasts: Bool
    ) {
        try postgres(
            { () throws(PostgresError) -> (rows: Set<String>, lasts: Bool) in
                let dispatcher = try connection.execute(
                    "SELECT pg_try_advisory_xact_lock($1) AS held", [.int(dispatcherLock)])
                guard try dispatcher.text(0, "held") == "t" else { return ([], false) }
                let due = try connection.execute(
                    "SELECT kind, key FROM relay_pushes WHERE (kind = 'group' AND at <= $1) OR kind = 'proof'",
                    [.int(now)])
                var names: Set<String> = []
                for index in 0..<due.rows.count {
                    guard let kind = PushOutbox.Row.Kind(rawValue: try due.text(index, "kind")) else { continue }
                    names.insert(lockName(PushOutbox.Row.Key(kind, try due.text(index, "key"))))
                }
                var held: Set<String> = []
                for lock in names.sorted(by: { lockKey($0) < lockKey($1) }) {
                    let taken = try connection.execute(
                        "SELECT pg_try_advisory_xact_lock($1) AS held", [.int(lockKey(lock))])
                    if try taken.text(0, "held") == "t" { held.insert(lock) }
                }
                return (held, true)
            }, name)
    }

    // MARK: Keeping a write

    /// Keeps what a write changed, inside its transaction: the registers it changed after sequence
    /// number `before` wait in a new batch of `relay_pending`, in the order their numbers go
    /// (FEED-25), each with whether its visibility stopped being public or shared (its `ends`
    /// before the write were `ends`) and whether it is an item received for the first time
    /// (FEED-26); the push rows it changed are written as they are. Answers the batch, nil when no
    /// register changed.
    static func keep(
        _ relay: FeedRelayState, since before: UInt64, ends: [FeedReplica.GoalKey: VisibilityEnds],
        receipts: [FeedItemID: Int64], on connection: PostgresConnection, name: String
    ) throws(StoreError) -> Int64? {
        let rows = PushRows.changed(relay)
        var columns: [(person: String?, token: String?, at: Int64?)] = []
        for row in rows {
            guard let value = row.value else {
                columns.append((nil, nil, nil))
                continue
            }
            columns.append(try PushRows.columns(kind: row.kind, key: row.key, value: value, path: name))
        }
        return try postgres(
            { () throws(PostgresError) -> Int64? in
                for (row, index) in zip(rows, columns) {
                    guard let value = row.value else {
                        try connection.execute(
                            "DELETE FROM relay_pushes WHERE kind = $1 AND key = $2", [.text(row.kind), .text(row.key)])
                        continue
                    }
                    try connection.execute(
                        "INSERT INTO relay_pushes (kind, key, value, version, person, token, at) "
                            + "VALUES ($1, $2, $3, 0, $4, $5, $6) ON CONFLICT (kind, key) DO UPDATE SET value = $3, "
                            + "person = $4, token = $5, at = $6",
                        [
                            .text(row.kind), .text(row.key), .bytes(value), index.person.map { .text($0) } ?? .null,
                            index.token.map { .text($0) } ?? .null, index.at.map { .int($0) } ?? .null,
                        ])
                }
                let changed = relay.registers(after: before)
                guard !changed.isEmpty else { return nil }
                // The batch's number and every change of it in one statement.
                var rows: [PendingRow] = []
                for (position, register) in changed.enumerated() {
                    var flags = 0
                    if case .visibility(let goal) = register.key {
                        let old = ends[goal] ?? VisibilityEnds()
                        if register.ends.publicUntil != old.publicUntil { flags |= 1 }
                        if register.ends.sharedUntil != old.sharedUntil { flags |= 2 }
                    }
                    var received = false
                    if case .item(let id) = register.key { received = receipts[id] == nil }
                    let columns = register.key.indexColumns
                    rows.append(
                        PendingRow(
                            position: position, key: register.key.storageKey,
                            register: Self.hex(register.delta.wireEncoded()),
                            ends: flags, received: received ? 1 : 0, kind: columns.kind, party: columns.party,
                            other: columns.other, item: columns.item, isPublic: register.isPublic ? 1 : 0))
                }
                let json: String
                do {
                    let encoder = JSONEncoder()
                    encoder.keyEncodingStrategy = .convertToSnakeCase
                    json = String(decoding: try encoder.encode(rows), as: UTF8.self)
                } catch {
                    throw PostgresError(.queryFailed, "the relay's changes do not encode: \(error)")
                }
                let batch = try connection.execute(
                    "WITH numbered AS (SELECT nextval('relay_batch') AS batch) INSERT INTO relay_pending (batch, "
                        + "position, key, register, ends, received, kind, party, other, item, is_public) SELECT "
                        + "numbered.batch, r.position, r.key, decode(r.register, 'hex'), r.ends, r.received, r.kind, "
                        + "r.party, r.other, r.item, r.is_public FROM numbered, jsonb_to_recordset(($1::text)::jsonb) "
                        + "AS r(position integer, key text, register text, ends integer, received integer, kind text, "
                        + "party text, other text, item text, is_public integer) RETURNING batch",
                    [.text(json)]
                ).int(0, "batch")
                return batch
            }, name)
    }

    /// The receipt clock (FEED-26): the greatest receipt time an item register holds, or what an
    /// older version kept in `relay_clock`, whichever is greater. Read without a lock, so a
    /// session that holds the clock's old row holds up no numbering.
    package static let lastReceiptQuery = "SELECT \(lastReceiptExpression) AS n"
    /// ``lastReceiptQuery``'s value, for a statement that reads it beside others.
    static let lastReceiptExpression =
        "greatest((SELECT coalesce(max(last_receipt), 0) FROM relay_clock), "
        + "(SELECT coalesce(max(receipt), 0) FROM relay_registers WHERE receipt IS NOT NULL))"
    /// The relay's last sequence number (`n`) and its receipt clock (`r`), in one statement.
    static let clocksQuery =
        "SELECT (SELECT coalesce(max(sequence), 0) FROM relay_registers) AS n, \(lastReceiptExpression) AS r"

    /// The SQL of an array of the texts of the JSON list bound to `parameter` (``jsonList(_:name:)``),
    /// made once before the statement runs: `column = ANY(...)` over it is an index scan, where
    /// `column IN (SELECT ...)` joins a scan of the whole table.
    static func textArray(_ parameter: String) -> String {
        "ARRAY(SELECT jsonb_array_elements_text((\(parameter)::text)::jsonb))"
    }

    /// ``textArray(_:)``'s whole numbers.
    static func numberArray(_ parameter: String) -> String {
        "ARRAY(SELECT jsonb_array_elements_text((\(parameter)::text)::jsonb)::bigint)"
    }

    /// `values` as a JSON list in text, bound to a parameter that a statement reads with
    /// `jsonb_array_elements_text` (``textArray(_:)``): a list costs one round trip whatever its length.
    ///
    /// - Throws: ``StoreError`` `write_failed` when it does not encode.
    static func jsonList(_ values: [String], name: String) throws(StoreError) -> PostgresValue {
        do {
            return .text(String(decoding: try JSONEncoder().encode(values), as: UTF8.self))
        } catch {
            throw StoreError(.writeFailed, "a list of the relay's keys does not encode: \(error)", path: name)
        }
    }

    /// One change of a write's batch as ``keep(_:since:ends:receipts:on:name:)`` sends it, in the
    /// JSON one statement reads all of them from.
    private struct PendingRow: Encodable {
        let position: Int
        let key: String
        /// The register's canonical bytes, in hexadecimal.
        let register: String
        let ends: Int
        let received: Int
        let kind: String
        let party: String
        let other: String?
        let item: String?
        let isPublic: Int
    }

    /// `bytes` in lower-case hexadecimal, as PostgreSQL's `decode(..., 'hex')` reads them.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A register's index columns (``RelayKey/indexColumns``) and whether it is a public goal's
    /// visibility, as the values of `kind, party, other, item, is_public`.
    package static func indexValues(_ register: FeedRelayState.StoredRegister) -> [PostgresValue] {
        let columns = register.key.indexColumns
        return [
            .text(columns.kind), .text(columns.party), columns.other.map { .text($0) } ?? .null,
            columns.item.map { .text($0) } ?? .null, .int(register.isPublic ? 1 : 0),
        ]
    }

    /// Gives the rows an older version wrote, before the rows had index columns, theirs, in one
    /// transaction; a database without such rows costs one look at each partial index.
    static func indexOlderRows(_ connection: PostgresConnection, name: String) throws(StoreError) {
        try transaction(on: connection, name: name, begin: write) { () throws(StoreError) in
            let found = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "SELECT key, sequence, register, public_until, shared_until FROM relay_registers "
                            + "WHERE kind IS NULL")
                }, name)
            for index in 0..<found.rows.count {
                let register = try PostgresRelayRows.register(found, index, name: name)
                _ = try postgres(
                    { () throws(PostgresError) in
                        try connection.execute(
                            "UPDATE relay_registers SET kind = $1, party = $2, other = $3, item = $4, is_public = $5 "
                                + "WHERE key = $6",
                            indexValues(register) + [.text(register.key.storageKey)])
                    }, name)
            }
            let pushes = try postgres(
                { () throws(PostgresError) in
                    try connection.execute(
                        "SELECT kind, key, value FROM relay_pushes WHERE person IS NULL AND token IS NULL")
                }, name)
            for index in 0..<pushes.rows.count {
                let (kind, key, value) = try postgres(
                    { () throws(PostgresError) in
                        (
                            try pushes.text(index, "kind"), try pushes.text(index, "key"),
                            try pushes.bytes(index, "value")
                        )
                    }, name)
                let columns = try PushRows.columns(kind: kind, key: key, value: value, path: name)
                _ = try postgres(
                    { () throws(PostgresError) in
                        try connection.execute(
                            "UPDATE relay_pushes SET person = $1, token = $2, at = $3 WHERE kind = $4 AND key = $5",
                            [
                                columns.person.map { .text($0) } ?? .null, columns.token.map { .text($0) } ?? .null,
                                columns.at.map { .int($0) } ?? .null, .text(kind), .text(key),
                            ])
                    }, name)
            }
        }
    }
}
