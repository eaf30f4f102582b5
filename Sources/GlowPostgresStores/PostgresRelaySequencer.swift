import Dispatch
import Foundation
import GlowCore
import GlowFeed
import GlowPostgres
import GlowRelay
import GlowStorage

/// The relay's numbering on PostgreSQL (FEED-25's sequence numbers, FEED-26's receipt times), one
/// per process, on a connection and a thread of its own.
///
/// Writes leave their changed registers waiting in batches of `relay_pending` and are answered
/// once they committed; the sequencer numbers them after, whoever wrote them: woken by a write of
/// its own process, and every ``pollInterval`` for what another process left (a process that died
/// after its commit). One run at a time, under an advisory lock, each in one transaction: it takes
/// the batches that wait, in batch order, gives each change the next number (and each item
/// received for the first time the next receipt time), writes the registers as they now are and
/// takes the batches out. A reader's snapshot holds every number a run gave or none of them, and a
/// later run gives greater numbers, so a reader's cursor (the greatest number its snapshot holds)
/// never passes a change that is numbered later: a write that commits late is numbered late.
///
/// No batch holds up the others. One whose register another session holds locked, or whose
/// register does not read, is set aside (with every later batch of the same registers, so each
/// register's changes keep their order) and numbered by a later run, once it can be; meanwhile the
/// others are numbered, and health says the numbering is behind when it has waited too long. A
/// batch whose changes do not read is moved to `relay_quarantine` with its reason, for an operator.
/// The receipt clock is read from the registers, never locked, so no one row stops every run.
package final class PostgresRelaySequencer: Sendable {
    /// The database, as its owner named it (without a password).
    let name: String
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private let report: @Sendable (String) -> Void
    private let state = Locked(State())
    /// Signalled by a write that waits for its numbers, and by ``stop()``.
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// The advisory lock a run holds while it numbers (the letters GLSQ).
    package static let lock: Int64 = 0x474C_5351
    /// The most batches one run numbers, so that a run after a long stall stays short.
    static let batchesPerRun = 500
    /// How often, in seconds, the sequencer looks for changes another process left waiting.
    static let pollInterval = 0.1

    /// A write waiting for the numbers of its batch.
    private final class Waiter: Sendable {
        let done = DispatchSemaphore(value: 0)
        let number = Locked<UInt64?>(nil)
    }

    private struct State {
        var waiters: [Int64: Waiter] = [:]
        var running = false
        var stopping = false
        var status = PostgresNumberingStatus()
        /// When each kind of trouble was last reported, so that a lasting one is reported once a
        /// minute rather than ten times a second.
        var reported: [String: ContinuousClock.Instant] = [:]
    }

    /// A sequencer of the database `name`, connecting with `connect`, reporting set-aside and
    /// quarantined batches and its failures to `report`.
    init(
        name: String, connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.name = name
        self.connect = connect
        self.report = report
    }

    /// Starts the sequencer's thread, which at once numbers what waits.
    func start() {
        let begin = state.withLock { state in
            guard !state.running && !state.stopping else { return false }
            state.running = true
            return true
        }
        guard begin else { return }
        let thread = Thread { [self] in run() }
        thread.name = "glow relay sequencer"
        thread.start()
    }

    /// Stops the thread after its current run; a write waiting for its numbers is answered
    /// without them.
    func stop() {
        let wasRunning = state.withLock { state in
            state.stopping = true
            return state.running
        }
        guard wasRunning else { return }
        wake.signal()
        ended.wait()
    }

    /// What the numbering has done in this process so far.
    package var status: PostgresNumberingStatus { state.withLock { $0.status } }

    /// Counts a write run again after PostgreSQL failed it for racing another.
    func countRetry() { state.withLock { $0.status.retries += 1 } }

    /// The relay's last sequence number once `batch` is numbered: the last its changes were given
    /// when this process numbered them, the relay's last when another did; nil when it was not
    /// numbered within `seconds` (the write is kept, and numbered later).
    func number(of batch: Int64, within seconds: Double) -> UInt64? {
        let waiter = Waiter()
        let waiting = state.withLock { state in
            guard state.running && !state.stopping else { return false }
            state.waiters[batch] = waiter
            return true
        }
        guard waiting else { return nil }
        wake.signal()
        _ = waiter.done.wait(timeout: .now() + seconds)
        state.withLock { $0.waiters[batch] = nil }
        return waiter.number.withLock { $0 }
    }

    // MARK: The thread

    private func run() {
        var connection: PostgresConnection?
        var failures = 0
        while !state.withLock({ $0.stopping }) {
            do throws(StoreError) {
                let link: PostgresConnection
                if let connection, connection.isUsable {
                    link = connection
                } else {
                    do throws(PostgresError) {
                        link = try connect()
                    } catch {
                        throw StoreError(.cannotOpen, "the database cannot be reached: \(error.message)", path: name)
                    }
                }
                connection = link
                try step(on: link)
                if failures > 0 { note("recovered", "the relay's numbering runs again") }
                failures = 0
            } catch {
                failures += 1
                state.withLock { $0.status.lastFailure = error.message }
                note("failure", "the relay's numbering failed, and is tried again: \(error.message)")
                if connection?.isUsable == false { connection = nil }
            }
            // After a failure, tried again a little later each time, and at once when a write
            // waits: the first write after the database returns is numbered as soon as it can be.
            let pause = failures == 0 ? Self.pollInterval : Swift.min(0.25, 0.02 * Double(failures))
            _ = wake.wait(timeout: .now() + pause)
            // Every write that woke it while it ran is served by the next step at once.
            while wake.wait(timeout: .now()) == .success {}
        }
        connection = nil
        state.withLock { $0.running = false }
        // Whoever still waits is answered without numbers.
        for waiter in state.withLock({ $0.waiters.values }) { waiter.done.signal() }
        ended.signal()
    }

    /// One step: a run when changes wait, then the answer of each write of this process whose
    /// batch is no longer waiting.
    private func step(on connection: PostgresConnection) throws(StoreError) {
        let waiters = state.withLock { $0.waiters }
        // A write of this process waits: there is something to number. Otherwise one look.
        var waiting = !waiters.isEmpty
        if !waiting {
            let found = try PostgresFeedRelayStore.postgres(
                { () throws(PostgresError) in
                    try connection.execute("SELECT EXISTS (SELECT 1 FROM relay_pending) AS waiting").text(0, "waiting")
                }, name)
            waiting = found == "t"
        }
        var numbered: [Int64: UInt64] = [:]
        if waiting {
            let outcome = try numberWaiting(on: connection)
            numbered = outcome.numbered
            noteRun(outcome)
        }
        guard !waiters.isEmpty else { return }
        for (batch, number) in numbered { answer(batch, number) }
        // Batches numbered by another process's run: answered with the relay's last number.
        let left = waiters.keys.filter { numbered[$0] == nil }
        guard !left.isEmpty else { return }
        let batches = try PostgresFeedRelayStore.jsonList(left.map(String.init), name: name)
        let (still, last) = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) -> (Set<Int64>, UInt64) in
                let found = try connection.execute(
                    "SELECT DISTINCT batch FROM relay_pending WHERE batch = ANY("
                        + PostgresFeedRelayStore.numberArray("$1") + ")",
                    [batches])
                var still: Set<Int64> = []
                for index in 0..<found.rows.count { still.insert(try found.int(index, "batch")) }
                let last = try connection.execute("SELECT coalesce(max(sequence), 0) AS n FROM relay_registers")
                return (still, UInt64(clamping: try last.int(0, "n")))
            }, name)
        for batch in left where !still.contains(batch) { answer(batch, last) }
    }

    private func answer(_ batch: Int64, _ number: UInt64) {
        guard let waiter = state.withLock({ $0.waiters[batch] }) else { return }
        waiter.number.withLock { $0 = number }
        waiter.done.signal()
    }

    /// Reports `line` unless a line of `kind` was reported in the last minute.
    private func note(_ kind: String, _ line: String) {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            if kind == "recovered" {
                state.reported["failure"] = nil
                return true
            }
            if let last = state.reported[kind], now - last < .seconds(60) { return false }
            state.reported[kind] = now
            return true
        }
        if due { report(line) }
    }

    private func noteRun(_ outcome: Outcome) {
        let (newAside, newQuarantine) = state.withLock { state in
            state.status.runs += 1
            state.status.numbered += outcome.numbered.count
            state.status.quarantined += outcome.quarantined.count
            let new = outcome.aside.filter { state.status.setAside[$0.key] == nil }
            state.status.setAside = outcome.aside
            state.status.timesSetAside += new.count
            return (new, outcome.quarantined)
        }
        for (batch, reason) in newAside.sorted(by: { $0.key < $1.key }) {
            report("the relay's changes of batch \(batch) wait, set aside while the others are numbered: \(reason)")
        }
        for (batch, reason) in newQuarantine.sorted(by: { $0.key < $1.key }) {
            report(
                "the relay's changes of batch \(batch) do not read and were moved to relay_quarantine "
                    + "for an operator: \(reason)")
        }
    }

    // MARK: A run

    /// What one run did: the last number each numbered batch got, and the batches set aside or
    /// quarantined, with why.
    struct Outcome {
        var numbered: [Int64: UInt64] = [:]
        var aside: [Int64: String] = [:]
        var quarantined: [Int64: String] = [:]
    }

    /// One waiting change, as it reads.
    private struct Change {
        let key: String
        let relayKey: RelayKey
        let change: FeedReplica
        let flags: Int64
        let received: Bool
    }

    /// One run, in one transaction under the sequencer's lock (``PostgresRelaySequencer``).
    ///
    /// - Throws: ``StoreError`` when the database fails or does not answer in time, or another
    ///   process's run holds the lock past the lock timeout; then nothing was numbered.
    func numberWaiting(on connection: PostgresConnection) throws(StoreError) -> Outcome {
        try PostgresFeedRelayStore.transaction(on: connection, name: name, begin: PostgresFeedRelayStore.write) {
            () throws(StoreError) -> Outcome in
            _ = try PostgresFeedRelayStore.postgres(
                { () throws(PostgresError) in
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(Self.lock)])
                }, name)
            return try numberHeld(on: connection)
        }
    }

    /// A writer's own run, inside its transaction after it kept its batch, when no run holds the
    /// lock now (nil when one does: then the sequencer numbers the batch after the commit). It
    /// numbers every batch waiting, the writer's included, and becomes visible with the write's
    /// commit, which saves a transaction of its own on the common path. It runs after a savepoint,
    /// so a run that fails leaves the write as it was, to be numbered later.
    ///
    /// - Throws: ``StoreError`` when even the savepoint cannot be rolled back to: the connection
    ///   is lost, and the write with it.
    func numberInline(on connection: PostgresConnection) throws(StoreError) -> Outcome? {
        let held = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in
                try connection.execute("SELECT pg_try_advisory_xact_lock($1) AS held", [.int(Self.lock)]).text(
                    0, "held")
            }, name)
        guard held == "t" else { return nil }
        _ = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in try connection.execute("SAVEPOINT numbering") }, name)
        do throws(StoreError) {
            return try numberHeld(on: connection)
        } catch {
            _ = try PostgresFeedRelayStore.postgres(
                { () throws(PostgresError) in try connection.execute("ROLLBACK TO SAVEPOINT numbering") }, name)
            state.withLock { $0.status.lastFailure = error.message }
            note("failure", "a write's own numbering failed, and is left to the sequencer: \(error.message)")
            return nil
        }
    }

    /// What a writer's own run (``numberInline(on:)``) did, once its write committed: the writes
    /// of this process waiting for those batches are answered, and the run is counted and reported
    /// as the sequencer's own are.
    func committed(_ outcome: Outcome) {
        noteRun(outcome)
        for (batch, number) in outcome.numbered { answer(batch, number) }
    }

    /// One run inside the caller's transaction, which holds the sequencer's lock: the batches that
    /// wait, numbered, set aside or quarantined.
    private func numberHeld(on connection: PostgresConnection) throws(StoreError) -> Outcome {
        let rows = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in
                try connection.execute(
                    "SELECT batch, key, register, ends, received FROM relay_pending WHERE batch IN "
                        + "(SELECT DISTINCT batch FROM relay_pending ORDER BY batch LIMIT $1) ORDER BY batch, position",
                    [.int(Int64(Self.batchesPerRun))])
            }, name)
        return try number(try read(rows), on: connection)
    }

    /// The waiting rows as batches in batch order: each its changes, or why it does not read.
    private func read(_ rows: PostgresResult) throws(StoreError) -> [(
        batch: Int64, changes: Result<[Change], Unreadable>
    )] {
        var batches: [(batch: Int64, changes: Result<[Change], Unreadable>)] = []
        for index in 0..<rows.rows.count {
            let (batch, key, bytes, flags, received) = try PostgresFeedRelayStore.postgres(
                { () throws(PostgresError) in
                    (
                        try rows.int(index, "batch"), try rows.text(index, "key"), try rows.bytes(index, "register"),
                        try rows.int(index, "ends"), try rows.int(index, "received") == 1
                    )
                }, name)
            if batches.last?.batch != batch { batches.append((batch, .success([]))) }
            guard case .success(var changes) = batches[batches.count - 1].changes else { continue }
            let parsed: Result<Change, Unreadable>
            do {
                let change = try FeedReplica(wire: bytes)
                if let relayKey = FeedRelayState.StoredRegister(sequence: 1, delta: change)?.key,
                    relayKey.storageKey == key, change.registerCount == 1 + change.receipts.count
                {
                    parsed = .success(
                        Change(key: key, relayKey: relayKey, change: change, flags: flags, received: received))
                } else {
                    parsed = .failure(
                        Unreadable(reason: "the change filed as \(key.debugDescription) holds no such register"))
                }
            } catch {
                parsed = .failure(Unreadable(reason: "the change of \(key.debugDescription) does not read: \(error)"))
            }
            switch parsed {
            case .success(let change):
                changes.append(change)
                batches[batches.count - 1].changes = .success(changes)
            case .failure(let unreadable):
                batches[batches.count - 1].changes = .failure(unreadable)
            }
        }
        return batches
    }

    /// Why a batch does not read.
    private struct Unreadable: Error {
        let reason: String
    }

    /// Numbers `batches` in their order inside the run's transaction, setting aside those that
    /// cannot be numbered now and quarantining those that do not read.
    private func number(
        _ batches: [(batch: Int64, changes: Result<[Change], Unreadable>)], on connection: PostgresConnection
    ) throws(StoreError) -> Outcome {
        var outcome = Outcome()
        var keys: Set<String> = []
        for (_, changes) in batches { if case .success(let list) = changes { keys.formUnion(list.map(\.key)) } }
        let list = try PostgresFeedRelayStore.jsonList(keys.sorted(), name: name)
        // The registers this run changes, locked for it; a row another session holds is skipped,
        // and its batches set aside rather than waited for.
        let (held, present, last, receiptClock) = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in
                let held = try connection.execute(
                    "SELECT key, sequence, register, public_until, shared_until FROM relay_registers WHERE key = ANY("
                        + PostgresFeedRelayStore.textArray("$1") + ") FOR UPDATE SKIP LOCKED", [list])
                // Which of them are there at all (those held elsewhere are the difference), and the clocks.
                let rest = try connection.execute(
                    "SELECT (SELECT coalesce(jsonb_agg(key), '[]'::jsonb)::text FROM relay_registers WHERE key = ANY("
                        + PostgresFeedRelayStore.textArray("$1") + ")) AS present, "
                        + "(SELECT coalesce(max(sequence), 0) FROM relay_registers) AS n, "
                        + "\(PostgresFeedRelayStore.lastReceiptExpression) AS r", [list])
                return (held, try rest.text(0, "present"), try rest.int(0, "n"), try rest.int(0, "r"))
            }, name)
        let presentKeys: [String]
        do {
            presentKeys = try JSONDecoder().decode([String].self, from: Data(present.utf8))
        } catch {
            throw StoreError(.corrupt, "the relay's register keys do not read: \(error)", path: name)
        }
        var current: [String: FeedRelayState.StoredRegister] = [:]
        var blocked: [String: String] = [:]
        for index in 0..<held.rows.count {
            let key = try PostgresFeedRelayStore.postgres(
                { () throws(PostgresError) in try held.text(index, "key") }, name)
            do throws(StoreError) {
                current[key] = try PostgresRelayRows.register(held, index, name: name)
            } catch {
                blocked[key] = "its register does not read: \(error.message)"
            }
        }
        for key in presentKeys {
            if current[key] == nil && blocked[key] == nil {
                blocked[key] = "another session holds its register \(key.debugDescription) locked"
            }
        }
        // Each register as the run leaves it, at its last number, written once.
        var written: [String: FeedRelayState.StoredRegister] = [:]
        var sequence = UInt64(clamping: last)
        var lastReceipt = receiptClock
        for (batch, changes) in batches {
            let list: [Change]
            switch changes {
            case .failure(let unreadable):
                outcome.quarantined[batch] = unreadable.reason
                continue
            case .success(let changes): list = changes
            }
            if let stuck = list.first(where: { blocked[$0.key] != nil }) {
                outcome.aside[batch] = blocked[stuck.key]
                // Later changes of its registers wait behind it, so each register keeps its order.
                for change in list where blocked[change.key] == nil {
                    blocked[change.key] = "an earlier change of \(change.key.debugDescription) waits (batch \(batch))"
                }
                continue
            }
            for change in list {
                sequence += 1
                let register = try merge(change, into: current[change.key], at: sequence, lastReceipt: &lastReceipt)
                current[change.key] = register
                written[change.key] = register
            }
            outcome.numbered[batch] = sequence
        }
        try write(Array(written.values), on: connection)
        let numbered = try PostgresFeedRelayStore.jsonList(outcome.numbered.keys.map(String.init), name: name)
        try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in
                if !outcome.numbered.isEmpty {
                    try connection.execute(
                        "DELETE FROM relay_pending WHERE batch = ANY(" + PostgresFeedRelayStore.numberArray("$1") + ")",
                        [numbered])
                }
                for (batch, reason) in outcome.quarantined {
                    try connection.execute(
                        "INSERT INTO relay_quarantine (batch, position, key, register, ends, received, reason) "
                            + "SELECT batch, position, key, register, ends, received, $2 FROM relay_pending "
                            + "WHERE batch = $1",
                        [.int(batch), .text(reason)])
                    try connection.execute("DELETE FROM relay_pending WHERE batch = $1", [.int(batch)])
                }
            }, name)
        return outcome
    }

    /// Register `held` (nil when the relay has none of the key yet) with `change` merged in, at
    /// number `sequence`: an item received for the first time gets the next receipt time (FEED-26),
    /// a visibility register whose change ended its being public or shared gets its ends (FEED-25).
    private func merge(
        _ change: Change, into held: FeedRelayState.StoredRegister?, at sequence: UInt64, lastReceipt: inout Int64
    ) throws(StoreError) -> FeedRelayState.StoredRegister {
        var delta = held?.delta ?? FeedReplica()
        if case .item(let id) = change.relayKey, let register = change.change.items[id] {
            // The item's register as the write left it; its receipt time is the sequencer's: the
            // write's own, or the next after the last one given.
            var item = FeedReplica()
            item.writeItem(register.value, id: id, at: register.stamp)
            delta.merge(item)
            if change.received, delta.receipts[id] == nil {
                lastReceipt = max(change.change.receipts[id] ?? 0, lastReceipt &+ 1)
                delta.receive(item: id, at: lastReceipt)
            }
        } else {
            delta.merge(change.change)
        }
        var ends = held?.ends ?? VisibilityEnds()
        if change.flags & 1 != 0 { ends.publicUntil = sequence }
        if change.flags & 2 != 0 { ends.sharedUntil = sequence }
        guard let register = FeedRelayState.StoredRegister(sequence: sequence, delta: delta, ends: ends) else {
            throw StoreError(.corrupt, "a relay register merged to nothing", path: name)
        }
        return register
    }

    /// One register row as the run writes it, in the JSON one statement reads all of them from.
    private struct Row: Encodable {
        let key: String
        let sequence: Int64
        /// The register's canonical bytes, in hexadecimal.
        let register: String
        let publicUntil: Int64
        let sharedUntil: Int64
        let kind: String
        let party: String
        let other: String?
        let item: String?
        let isPublic: Int
        let receipt: Int64?
    }

    /// Writes `registers` at their numbers, each with its receipt time when it is an item's, in
    /// one statement whatever their count.
    private func write(_ registers: [FeedRelayState.StoredRegister], on connection: PostgresConnection)
        throws(StoreError)
    {
        guard !registers.isEmpty else { return }
        let rows = registers.map { register in
            var receipt: Int64?
            if case .item(let id) = register.key { receipt = register.delta.receipts[id] }
            let columns = register.key.indexColumns
            return Row(
                key: register.key.storageKey, sequence: Int64(clamping: register.sequence),
                register: PostgresFeedRelayStore.hex(register.delta.wireEncoded()),
                publicUntil: Int64(clamping: register.ends.publicUntil),
                sharedUntil: Int64(clamping: register.ends.sharedUntil), kind: columns.kind, party: columns.party,
                other: columns.other, item: columns.item, isPublic: register.isPublic ? 1 : 0, receipt: receipt)
        }
        let json: String
        do {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            json = String(decoding: try encoder.encode(rows), as: UTF8.self)
        } catch {
            throw StoreError(.writeFailed, "the relay's numbered registers do not encode: \(error)", path: name)
        }
        _ = try PostgresFeedRelayStore.postgres(
            { () throws(PostgresError) in
                try connection.execute(
                    "INSERT INTO relay_registers (key, sequence, register, version, public_until, shared_until, kind, "
                        + "party, other, item, is_public, receipt) SELECT r.key, r.sequence, decode(r.register, 'hex'), "
                        + "0, r.public_until, r.shared_until, r.kind, r.party, r.other, r.item, r.is_public, r.receipt "
                        + "FROM jsonb_to_recordset(($1::text)::jsonb) AS r(key text, sequence bigint, register text, "
                        + "public_until bigint, shared_until bigint, kind text, party text, other text, item text, "
                        + "is_public integer, receipt bigint) ON CONFLICT (key) DO UPDATE SET sequence = EXCLUDED.sequence, "
                        + "register = EXCLUDED.register, public_until = EXCLUDED.public_until, "
                        + "shared_until = EXCLUDED.shared_until, kind = EXCLUDED.kind, party = EXCLUDED.party, "
                        + "other = EXCLUDED.other, item = EXCLUDED.item, is_public = EXCLUDED.is_public, "
                        + "receipt = EXCLUDED.receipt",
                    [.text(json)])
            }, name)
    }
}

/// What the relay's numbering has done in one process (``PostgresRelaySequencer``): for health,
/// an operator, and the benchmarks.
package struct PostgresNumberingStatus: Sendable, Hashable {
    /// Runs that numbered something.
    package var runs = 0
    /// Batches numbered.
    package var numbered = 0
    /// The batches the last run set aside, with why: they wait, and later runs try them again.
    package var setAside: [Int64: String] = [:]
    /// How many times a batch was newly set aside.
    package var timesSetAside = 0
    /// Batches moved to `relay_quarantine`.
    package var quarantined = 0
    /// Writes run again after PostgreSQL failed them for racing another.
    package var retries = 0
    /// The last failure of a run, if any.
    package var lastFailure: String?
}
