import GlowBundle
import GlowModel
import GlowStorage
import GlowSync

/// A device's sync with its person's other devices (Spec/sync.md), as its database keeps it:
/// whose log it is and the device's sync state. The sync secret is not in the database: it is in
/// the database's ``SecretStore``, read with the state.
public struct DeviceSync: Sendable {
    /// The person's account identifier, as the server names it.
    public let person: String
    /// The device's chain, its place in the log and its records to send.
    public internal(set) var state: SyncState
    /// The sequence of this device's last snapshot (0: none).
    public internal(set) var snapshotAt: UInt64
    /// The person's sync secret (a recovery key, SYNC-1) as the secret store held it when the
    /// state was read, or the typed error that names what is missing or does not read.
    var secret: Result<RecoveryKey, StoreError> {
        didSet { keyring = secret.map(SyncKeys.init(secret:)) }
    }
    /// Its keys, or the same error.
    private var keyring: Result<SyncKeys, StoreError>

    init(secret: Result<RecoveryKey, StoreError>, person: String, state: SyncState, snapshotAt: UInt64) {
        self.secret = secret
        keyring = secret.map(SyncKeys.init(secret:))
        self.person = person
        self.state = state
        self.snapshotAt = snapshotAt
    }

    /// The sync secret, for a pairing offer.
    ///
    /// - Throws: ``StoreError``: `secret_missing` or `corrupt`, naming the secret store's entry.
    package func syncSecret() throws(StoreError) -> RecoveryKey { try secret.get() }

    /// The keys that seal and open the person's records.
    ///
    /// - Throws: ``StoreError``: `secret_missing` or `corrupt`, naming the secret store's entry.
    func keys() throws(StoreError) -> SyncKeys { try keyring.get() }

    /// Whether the secret store gave the secret; when it did not, every change that seals or
    /// opens a record is refused with the error that names what is missing.
    public var hasSecret: Bool {
        if case .success = secret { return true }
        return false
    }
}

extension RitualDatabase {
    /// The device's sync, or nil while it has none.
    ///
    /// - Throws: ``StoreError`` only when a failed change left the state to be read again and
    ///   that read fails.
    public var sync: DeviceSync? {
        get async throws(StoreError) { try await run { (database) throws(StoreError) in try database.held(\.sync) } }
    }

    /// Turns on sync of the person's own data for `person` with `secret` on `device` (section 11):
    /// from now on every change made on this device is written, in the change's transaction, as a
    /// sealed record waiting to be sent. What the device holds already is its first record, so a
    /// first device's data reaches the others and a paired device's merges with theirs.
    ///
    /// The secret goes to the ``SecretStore``, never into the file: it is kept there first, under
    /// the database's write lock, then the state is committed, so a crash between the two leaves
    /// a secret nothing uses rather than a state without its secret.
    ///
    /// The first record seals the whole data set, on the database's executor: `progress` hears
    /// after each of its frames, and returns whether to go on; when it returns false, or the task
    /// is cancelled, nothing is committed.
    ///
    /// - Throws: ``StoreError``: `refused` when sync is on already (turn it off first, or give
    ///   back a missing secret with ``restoreSyncSecret(_:)``); `cancelled`; the secret store's
    ///   error; a storage error. The database is as it was then.
    public func enableSync(
        secret: RecoveryKey, person: PersonID, device: DeviceID, now: Instant = .now,
        progress: @escaping @Sendable (WorkProgress) -> Bool = { _ in true }
    ) async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in
            try database.enableSync(secret: secret, person: person, device: device, now: now, progress: progress)
        }
    }

    /// Turns sync off on this device and forgets its state (another person signs in, or this one
    /// signs out): the records not yet sent are dropped with it, then the secret is removed from
    /// the ``SecretStore`` (a crash between the two leaves a secret nothing uses).
    ///
    /// - Throws: ``StoreError``: a storage error, and nothing changed; or the secret store's
    ///   error after sync was turned off.
    public func disableSync() async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in try database.disableSync() }
    }

    /// The name observers hear when the sync state changed (``DatabaseChange/deviceValueChanged(_:)``).
    public static let syncKey = "sync"

    static let syncTables = ["sync_state", "sync_heads", "sync_pending", "sync_promised"]

    /// Takes the server's answer to a push: every record up to `acknowledged` is kept there.
    ///
    /// - Throws: ``StoreError``; nothing changed then.
    public func acknowledgeSync(through acknowledged: UInt64) async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in try database.acknowledgeSync(through: acknowledged) }
    }

    /// Merges a pulled page, all or nothing (SYNC-8): the records it brings and the device's place
    /// in the log are written in one transaction. Nothing of it is sent back: it is the other
    /// devices' work.
    ///
    /// - Returns: what the page changed in the data.
    /// - Throws: ``StoreError``: `refused` with the ``SyncError`` of a page the reader refuses (then
    ///   nothing changed), or a storage error.
    @discardableResult
    public func applySync(_ pulled: SyncPulled) async throws(StoreError) -> DataSet.Changes {
        try await runShown { (database) throws(StoreError) in try database.applySync(pulled) }
    }

    /// Writes a snapshot of the data as the next record to send (SYNC-5), so the server can drop
    /// what it covers: when every record of this device is acknowledged and the last pull ended.
    /// A snapshot the server refuses as stale is taken back (``withdrawSyncSnapshot()``).
    ///
    /// - Returns: whether one was written.
    /// - Throws: ``StoreError``; nothing changed then.
    @discardableResult
    public func writeSyncSnapshot(now: Instant = .now) async throws(StoreError) -> Bool {
        try await runShown { (database) throws(StoreError) in try database.writeSyncSnapshot(now: now) }
    }

    /// Takes back a pending snapshot the server refused as stale (SYNC-9): it never kept it.
    ///
    /// - Returns: whether there was one.
    /// - Throws: ``StoreError``; nothing changed then.
    @discardableResult
    public func withdrawSyncSnapshot() async throws(StoreError) -> Bool {
        try await runShown { (database) throws(StoreError) in try database.withdrawSyncSnapshot() }
    }

    /// Notes a change made on this device and writes it as the next record to send, inside the
    /// change's transaction (SYNC-4): a device killed after the commit sends the same bytes.
    static func noteForSync(
        _ changes: DataSet.Changes, of data: DataSet, state: inout State, on connection: SQLiteConnection
    ) throws(StoreError) {
        guard var sync = state.sync, !changes.isEmpty else { return }
        let before = sync
        sync.state.outbox.note(changes)
        try writeRecord(&sync, data: data, at: .now, on: connection, before: before)
        state.sync = sync
    }

    /// Writes the record of the noted changes and keeps the state.
    fileprivate static func writeRecord(
        _ next: inout DeviceSync, data: DataSet, at now: Instant, on connection: SQLiteConnection, before: DeviceSync?,
        progress: (_ written: Int, _ frames: Int) -> Void = { _, _ in }
    ) throws(StoreError) {
        let keys = try next.keys()
        do throws(SyncError) {
            _ = try next.state.outbox.write(
                from: data, chain: next.state.chain, keys: keys, person: next.person, at: now, progress: progress)
        } catch {
            throw StoreError(.refused, "\(error)", path: connection.path, refusal: error)
        }
        try keep(next, before: before, on: connection)
    }

    /// Writes `sync` over what `before` was, inside the caller's transaction: the state row, the
    /// heads that moved, and the pending records added or acknowledged.
    static func keep(_ sync: DeviceSync, before: DeviceSync?, on connection: SQLiteConnection) throws(StoreError) {
        let state = sync.state
        try connection.prepare(
            "INSERT OR REPLACE INTO sync_state (singleton, person, device, sequence, last_hash, acknowledged, "
                + "cursor, snapshot_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)"
        ).run([
            .text(sync.person), .blob(state.device.bytes),
            .integer(Int64(clamping: state.outbox.sequence)), .blob(state.outbox.lastHash),
            .integer(Int64(clamping: state.chain.acknowledged)), .integer(Int64(clamping: state.cursor)),
            .integer(Int64(clamping: sync.snapshotAt)),
        ])
        if before?.state.chain.heads != state.chain.heads {
            try connection.execute("DELETE FROM sync_heads")
            let put = try connection.prepare("INSERT INTO sync_heads (device, sequence, hash) VALUES (?, ?, ?)")
            for head in state.chain.sortedHeads {
                try put.run([.blob(head.device.bytes), .integer(Int64(clamping: head.sequence)), .blob(head.hash)])
            }
        }
        if before?.state.chain.promised != state.chain.promised {
            try connection.execute("DELETE FROM sync_promised")
            let put = try connection.prepare("INSERT INTO sync_promised (device, sequence) VALUES (?, ?)")
            for (device, sequence) in state.chain.promised.sorted(by: { $0.key < $1.key }) {
                try put.run([.blob(device.bytes), .integer(Int64(clamping: sequence))])
            }
        }
        let first = state.outbox.sequence - UInt64(state.outbox.pending.count) + 1
        try connection.prepare("DELETE FROM sync_pending WHERE sequence < ? OR sequence > ?").run([
            .integer(Int64(clamping: first)), .integer(Int64(clamping: state.outbox.sequence)),
        ])
        let kept = Set(before?.state.outbox.pending ?? [])
        let put = try connection.prepare("INSERT OR REPLACE INTO sync_pending (sequence, record) VALUES (?, ?)")
        for (offset, record) in state.outbox.pending.enumerated() where !kept.contains(record) {
            try put.run([.integer(Int64(clamping: first + UInt64(offset))), .blob(record)])
        }
    }

    /// The device's sync as the file holds it, with its secret as `secrets` holds it, or nil.
    static func loadSync(_ connection: SQLiteConnection, secrets: any SecretStore) throws(StoreError) -> DeviceSync? {
        let row = try connection.prepare(
            "SELECT person, device, sequence, last_hash, acknowledged, cursor, snapshot_at FROM sync_state")
        guard try row.step() else { return nil }
        let device = row.blob(1)
        guard device.count == 16 else {
            throw StoreError(.corrupt, "the sync state's device does not read", path: connection.path)
        }
        let deviceID = DeviceID(bytes: device)
        var heads: [SyncHead] = []
        let headRows = try connection.prepare("SELECT device, sequence, hash FROM sync_heads ORDER BY device")
        while try headRows.step() {
            let other = headRows.blob(0)
            guard other.count == 16 else {
                throw StoreError(.corrupt, "a sync head's device does not read", path: connection.path)
            }
            heads.append(
                SyncHead(
                    device: DeviceID(bytes: other), sequence: UInt64(clamping: headRows.integer(1)),
                    hash: headRows.blob(2)))
        }
        var promised: [DeviceID: UInt64] = [:]
        let promisedRows = try connection.prepare("SELECT device, sequence FROM sync_promised")
        while try promisedRows.step() {
            let other = promisedRows.blob(0)
            guard other.count == 16 else {
                throw StoreError(.corrupt, "a sync promise's device does not read", path: connection.path)
            }
            promised[DeviceID(bytes: other)] = UInt64(clamping: promisedRows.integer(1))
        }
        var pending: [[UInt8]] = []
        let pendingRows = try connection.prepare("SELECT record FROM sync_pending ORDER BY sequence")
        while try pendingRows.step() { pending.append(pendingRows.blob(0)) }
        let sequence = UInt64(clamping: row.integer(2))
        guard UInt64(pending.count) <= sequence else {
            throw StoreError(
                .corrupt, "the sync state holds more records to send than the device wrote", path: connection.path)
        }
        let chain = SyncChain(
            device: deviceID, heads: heads, acknowledged: UInt64(clamping: row.integer(4)), promised: promised)
        let outbox = SyncOutbox(
            device: deviceID, sequence: sequence, lastHash: row.blob(3), pending: pending)
        let person = row.text(0)
        return DeviceSync(
            secret: syncSecret(in: secrets, person: person), person: person,
            state: SyncState(chain: chain, outbox: outbox, cursor: UInt64(clamping: row.integer(5))),
            snapshotAt: UInt64(clamping: row.integer(6)))
    }
}

extension RitualDatabase {
    /// How often a device writes a snapshot unless told otherwise: after this many records of its
    /// own since the last (SYNC-5), so the server can drop what it covers and a new device restores
    /// from one record.
    public static let snapshotInterval: UInt64 = 100

    /// One round of sync through `transport` (Spec/sync.md): the records waiting are pushed, then
    /// every page after the device's cursor is pulled and merged, each page in a transaction of its
    /// own, so a round stopped anywhere goes on from there next time; then, when the device has
    /// written `snapshotEvery` records since its last snapshot, a snapshot is pushed.
    /// `progress` hears after each page (a first restore shows it).
    ///
    /// - Returns: what the pulls changed in the data.
    /// - Throws: ``StoreError`` (`refused` with a ``SyncError`` for a page the reader refused, or
    ///   when sync is off), ``SyncError`` for a server's refusal of a sync code, the transport's
    ///   other errors, `CancellationError`.
    @discardableResult
    public func syncData(
        through transport: any SyncTransport, now: Instant = .now, maxBytes: Int = 0,
        snapshotEvery: UInt64 = RitualDatabase.snapshotInterval, progress: (SyncProgress) -> Void = { _ in }
    ) async throws -> DataSet.Changes {
        guard try await sync != nil else {
            throw StoreError(.refused, "sync is not turned on for this database", path: path)
        }
        try await pushSync(through: transport)
        var changes = DataSet.Changes()
        var seen = SyncProgress()
        while let sync = try await sync {
            try Task.checkCancellation()
            let pulled = try await transport.pull(
                device: sync.state.device, after: sync.state.cursor, maxBytes: maxBytes)
            changes.formUnion(try await applySync(pulled))
            seen.pages += 1
            seen.records += pulled.page.records.count
            seen.bytes += pulled.page.records.reduce(0) { $0 + $1.count }
            seen.more = pulled.page.more
            progress(seen)
            if !pulled.page.more { break }
        }
        if let sync = try await sync, sync.state.outbox.sequence >= sync.snapshotAt &+ Swift.max(1, snapshotEvery),
            try await writeSyncSnapshot(now: now)
        {
            try await pushSync(through: transport)
        }
        return changes
    }

    /// Pushes the records waiting; a snapshot the server finds stale is taken back.
    private func pushSync(through transport: any SyncTransport) async throws {
        guard let sync = try await sync, !sync.state.outbox.pending.isEmpty else { return }
        let acknowledged: UInt64
        do {
            acknowledged = try await transport.push(sync.state.outbox.pending, device: sync.state.device)
        } catch let error as SyncError where error.code == .snapshotStale {
            guard try await withdrawSyncSnapshot() else { throw error }
            return try await pushSync(through: transport)
        }
        try await acknowledgeSync(through: acknowledged)
    }
}

extension RitualDatabase.Job {
    /// ``enableSync(secret:person:device:now:progress:)``, on the executor.
    func enableSync(
        secret: RecoveryKey, person: PersonID, device: DeviceID, now: Instant, progress: (WorkProgress) -> Bool
    ) throws(StoreError) {
        let (path, secrets) = (path, secrets)
        try change { (state, connection) throws(StoreError) -> ((), Touched) in
            guard state.sync == nil else {
                throw StoreError(.refused, "sync is on already for this database: turn it off first", path: path)
            }
            let stopped = StoreError(.cancelled, "sync was not turned on: its task was cancelled", path: path)
            guard progress(WorkProgress(done: 0, total: 1)) else { throw stopped }
            try secrets.setSecret(secret.bytes, for: .syncSecret)
            var sync = DeviceSync(
                secret: .success(secret), person: person.rawValue, state: SyncState(device: device), snapshotAt: 0)
            var everything = DataSet.Changes()
            everything.profile = state.data.profile != nil
            everything.goals = Set(state.data.goals.keys)
            for checkIn in state.data.checkIns {
                everything.insert(CheckInKey(goalID: checkIn.goalID, day: checkIn.day))
            }
            everything.otherRecords = state.data.otherRecordCount
            sync.state.outbox.note(everything)
            var goOn = true
            try RitualDatabase.writeRecord(&sync, data: state.data, at: now, on: connection, before: nil) {
                written, frames in
                goOn = goOn && progress(WorkProgress(done: written, total: frames))
            }
            // Sealed whole; stopped meanwhile, it is rolled back with the transaction.
            guard goOn else { throw stopped }
            state.sync = sync
            return ((), Touched(deviceValues: [RitualDatabase.syncKey]))
        }
    }

    /// ``disableSync()``, on the executor.
    func disableSync() throws(StoreError) {
        try change { (state, connection) throws(StoreError) -> ((), Touched) in
            for table in RitualDatabase.syncTables { try connection.execute("DELETE FROM \(table)") }
            state.sync = nil
            return ((), Touched(deviceValues: [RitualDatabase.syncKey]))
        }
        try secrets.removeSecret(.syncSecret)
    }

    /// ``acknowledgeSync(through:)``, on the executor.
    func acknowledgeSync(through acknowledged: UInt64) throws(StoreError) {
        try change { (state, connection) throws(StoreError) -> ((), Touched) in
            guard var sync = state.sync else { return ((), Touched()) }
            let before = sync
            sync.state.acknowledge(through: acknowledged)
            try RitualDatabase.keep(sync, before: before, on: connection)
            state.sync = sync
            return ((), Touched(deviceValues: [RitualDatabase.syncKey]))
        }
    }

    /// ``applySync(_:)``, on the executor.
    @discardableResult
    func applySync(_ pulled: SyncPulled) throws(StoreError) -> DataSet.Changes {
        let path = path
        return try change { (state, connection) throws(StoreError) -> (Result<DataSet.Changes, StoreError>, Touched) in
            guard var sync = state.sync else {
                return (
                    .failure(StoreError(.refused, "sync is not turned on for this database", path: path)), Touched()
                )
            }
            let before = sync
            var data = state.data
            let changes: DataSet.Changes
            let keys = try sync.keys()
            do throws(SyncError) {
                changes = try sync.state.apply(pulled, to: &data, keys: keys, person: sync.person)
            } catch {
                return (.failure(StoreError(.refused, "\(error)", path: path, refusal: error)), Touched())
            }
            try RitualDatabase.write(changes, of: data, to: connection)
            try RitualDatabase.keep(sync, before: before, on: connection)
            state.data = data
            state.sync = sync
            return (.success(changes), Touched(data: changes, deviceValues: [RitualDatabase.syncKey]))
        }.get()
    }

    /// ``writeSyncSnapshot(now:)``, on the executor.
    @discardableResult
    func writeSyncSnapshot(now: Instant) throws(StoreError) -> Bool {
        try change { (state, connection) throws(StoreError) -> (Bool, Touched) in
            guard var sync = state.sync, sync.state.outbox.pending.isEmpty, sync.state.outbox.unsent.isEmpty else {
                return (false, Touched())
            }
            let before = sync
            let keys = try sync.keys()
            do throws(SyncError) {
                _ = try sync.state.outbox.write(
                    .snapshot, from: state.data, chain: sync.state.chain, keys: keys, person: sync.person, at: now)
            } catch {
                throw StoreError(.refused, "\(error)", path: connection.path, refusal: error)
            }
            sync.snapshotAt = sync.state.outbox.sequence
            try RitualDatabase.keep(sync, before: before, on: connection)
            state.sync = sync
            return (true, Touched(deviceValues: [RitualDatabase.syncKey]))
        }
    }

    /// ``withdrawSyncSnapshot()``, on the executor.
    @discardableResult
    func withdrawSyncSnapshot() throws(StoreError) -> Bool {
        try change { (state, connection) throws(StoreError) -> (Bool, Touched) in
            guard var sync = state.sync else { return (false, Touched()) }
            let before = sync
            guard sync.state.outbox.withdrawSnapshot() else { return (false, Touched()) }
            try RitualDatabase.keep(sync, before: before, on: connection)
            state.sync = sync
            return (true, Touched(deviceValues: [RitualDatabase.syncKey]))
        }
    }
}
