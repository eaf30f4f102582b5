import GlowModel

/// How a device reaches its person's log: the server's two calls (SYNC-9, SYNC-10), over any
/// transport.
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

    /// No page read yet.
    public init() {}
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

    /// A state as a store kept it.
    public init(chain: SyncChain, outbox: SyncOutbox, cursor: UInt64) {
        self.chain = chain
        self.outbox = outbox
        self.cursor = cursor
    }

    /// The device.
    public var device: DeviceID { chain.device }

    /// Merges a pulled page into `data` and this state, all or nothing (SYNC-8): the chain moves
    /// past its records and the cursor past the page.
    ///
    /// - Returns: what the page changed in `data`.
    /// - Throws: ``SyncError``; then neither `data` nor this state changed.
    public mutating func apply(_ pulled: SyncPulled, to data: inout DataSet, keys: SyncKeys, person: String)
        throws(SyncError) -> DataSet.Changes
    {
        let changes = try SyncReader(keys: keys, person: person).read(pulled.page, chain: &chain, into: &data)
        cursor = pulled.cursor
        return changes
    }

    /// Takes the server's answer to a push of the pending records: the sequence up to which it
    /// keeps this device's records.
    public mutating func acknowledge(through acknowledged: UInt64) {
        outbox.acknowledge(through: acknowledged)
        chain.acknowledged = Swift.max(chain.acknowledged, Swift.min(acknowledged, outbox.sequence))
    }
}
