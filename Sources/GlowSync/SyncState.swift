import GlowModel

/// How a device reaches its person's log: the server's two calls (SYNC-9, SYNC-10), over any
/// transport (``SyncState/sync(_:keys:person:through:at:maxBytes:keep:progress:)`` calls them).
public protocol SyncTransport: Sendable {
    /// Sends `records` of `device`, in order; answers the sequence up to which the log keeps them.
    func push(_ records: [[UInt8]], device: DeviceID) async throws -> UInt64
    /// The page after `cursor` (SYNC-10), and the cursor after it.
    func pull(device: DeviceID, after cursor: UInt64, maxBytes: Int) async throws -> SyncPulled
}

/// A page a pull answered, with the cursor to ask from next.
public struct SyncPulled: Hashable, Sendable {
    /// The page.
    public var page: SyncPage
    /// The position of the last record the page went past.
    public var cursor: UInt64

    /// A pulled page.
    public init(page: SyncPage, cursor: UInt64) {
        self.page = page
        self.cursor = cursor
    }
}

/// How far a pull has come: the records merged and the bytes read so far, and whether more follow
/// (a first restore shows it).
public struct SyncProgress: Hashable, Sendable {
    /// Records merged so far in this pull.
    public var records = 0
    /// Bytes of records read so far in this pull.
    public var bytes = 0
    /// Pages read so far.
    public var pages = 0
    /// Whether the last page said more follow.
    public var more = true
}

/// A device's whole sync state (section 11): what it merged of the others, its own chain and what
/// it has yet to send, and where its next pull starts. A value, kept by the device's store in the
/// transaction that keeps the data it describes.
public struct SyncState: Hashable, Sendable {
    /// What this device merged of the others.
    public var chain: SyncChain
    /// Its own records and unsent changes.
    public var outbox: SyncOutbox
    /// The position its next pull starts after.
    public var cursor: UInt64 = 0

    /// The state of a device that has synced nothing.
    public init(device: DeviceID) {
        chain = SyncChain(device: device)
        outbox = SyncOutbox(device: device)
    }

    /// The device.
    public var device: DeviceID { chain.device }

    /// One round of sync for `data`: a change set of the changes noted since the last (SYNC-4),
    /// every pending record pushed, then every page pulled and merged (SYNC-6 ... SYNC-8).
    ///
    /// `keep` is told this state and the data at each point a device must keep them before it
    /// goes on, in one transaction of its store: once the record is written (before it is sent, so
    /// that a device killed while sending sends the same bytes again, which the server takes as
    /// kept), once the push is acknowledged, and after each page merged. A round stopped at any
    /// point (a throw, a cancelled task, a killed process) leaves what was kept agreeing, and the
    /// next round goes on from there.
    ///
    /// - Returns: what the pulls changed in `data`.
    /// - Throws: ``SyncError`` for a page the reader refuses; the transport's and `keep`'s errors.
    public mutating func sync(
        _ data: inout DataSet, keys: SyncKeys, person: String, through transport: any SyncTransport, at now: Instant,
        maxBytes: Int = 0, keep: (SyncState, DataSet) throws -> Void = { _, _ in },
        progress: (SyncProgress) -> Void = { _ in }
    ) async throws -> DataSet.Changes {
        if try outbox.write(from: data, chain: chain, keys: keys, person: person, at: now) != nil {
            try keep(self, data)
        }
        if try await pushPending(through: transport) { try keep(self, data) }
        let reader = SyncReader(keys: keys, person: person)
        var changes = DataSet.Changes()
        var seen = SyncProgress()
        while true {
            try Task.checkCancellation()
            let pulled = try await transport.pull(device: device, after: cursor, maxBytes: maxBytes)
            changes.formUnion(try reader.read(pulled.page, chain: &chain, into: &data))
            cursor = pulled.cursor
            try keep(self, data)
            seen.pages += 1
            seen.records += pulled.page.records.count
            seen.bytes += pulled.page.records.reduce(0) { $0 + $1.count }
            seen.more = pulled.page.more
            progress(seen)
            if !pulled.page.more { return changes }
        }
    }

    /// Pushes every pending record. A pending snapshot the server refuses as stale (another device
    /// pushed since it was written) is taken back, and the records before it are pushed alone.
    ///
    /// - Returns: whether this state changed.
    @discardableResult
    private mutating func pushPending(through transport: any SyncTransport) async throws -> Bool {
        guard !outbox.pending.isEmpty else { return false }
        let acknowledged: UInt64
        do {
            acknowledged = try await transport.push(outbox.pending, device: device)
        } catch let error as SyncError where error.code == .snapshotStale {
            guard outbox.withdrawSnapshot() else { throw error }
            try await pushPending(through: transport)
            return true
        }
        outbox.acknowledge(through: acknowledged)
        chain.acknowledged = Swift.max(chain.acknowledged, Swift.min(acknowledged, outbox.sequence))
        return true
    }

    /// Writes a snapshot of `data` and pushes it, so the server can drop what it covers (SYNC-9):
    /// after a round of ``sync(_:keys:person:through:at:maxBytes:keep:progress:)``, when this device holds
    /// everything the log does and has nothing left to send. The server refuses it as
    /// `sync_snapshot_stale` when another device pushed in between; it is taken back then, nothing
    /// is lost, and a later round may try again. `keep` is told the state once the snapshot is
    /// written and once the server answered, as ``sync(_:keys:person:through:at:maxBytes:keep:progress:)``
    /// tells it.
    ///
    /// - Returns: whether the server kept the snapshot.
    /// - Throws: the transport's error (the snapshot stays pending, and the next round sends it
    ///   again); ``SyncError``.
    @discardableResult
    public mutating func snapshot(
        _ data: DataSet, keys: SyncKeys, person: String, through transport: any SyncTransport, at now: Instant,
        keep: (SyncState) throws -> Void = { _ in }
    ) async throws -> Bool {
        guard outbox.pending.isEmpty, outbox.unsent.isEmpty else { return false }
        let before = outbox.sequence
        _ = try outbox.write(.snapshot, from: data, chain: chain, keys: keys, person: person, at: now)
        try keep(self)
        try await pushPending(through: transport)
        try keep(self)
        return outbox.sequence > before
    }
}
