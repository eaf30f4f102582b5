import GlowBundle
import GlowCrypto
import GlowModel

/// A device's own chain (SYNC-5): the records it wrote, those the server has not yet
/// acknowledged, and the changes it has not yet put in a record.
///
/// A value: a store keeps it in the transaction that keeps the data, so a device killed between
/// writing a record and sending it sends the same bytes again when it comes back, and a device
/// that never heard the server's acknowledgement sends them again too (the server takes a
/// record it holds already as acknowledged).
public struct SyncOutbox: Hashable, Sendable {
    /// The writing device.
    public let device: DeviceID
    /// The sequence of its last record: 0 before the first.
    public private(set) var sequence: UInt64 = 0
    /// The hash of its last record: empty before the first.
    public private(set) var lastHash: [UInt8] = []
    /// The records written and not yet acknowledged, in their order.
    public private(set) var pending: [[UInt8]] = []
    /// The changes made on this device since its last record.
    public private(set) var unsent = DataSet.Changes()

    /// The chain of a device that has written nothing.
    public init(device: DeviceID) {
        self.device = device
    }

    /// The chain of a device that wrote up to `sequence`, whose last record's hash is `lastHash`,
    /// with `pending` records not yet acknowledged: as a store kept it.
    public init(device: DeviceID, sequence: UInt64, lastHash: [UInt8], pending: [[UInt8]]) {
        self.device = device
        self.sequence = sequence
        self.lastHash = lastHash
        self.pending = pending
    }

    /// Notes a change made on this device, for its next record.
    public mutating func note(_ changes: DataSet.Changes) {
        unsent.formUnion(changes)
    }

    /// Writes the next record: a change set of what changed since the last (nil when nothing
    /// did), or with `kind` `.snapshot` the whole of `data` (SYNC-4, SYNC-5). Its `seen` is the
    /// chain's heads: what this device has merged of the others.
    ///
    /// - Parameters:
    ///   - data: the device's data set, which holds every change noted.
    ///   - salt: the record key's salt; 16 random bytes unless given (tests give theirs).
    ///   - progress: hears after each frame of the record's bundle is written (a first record, the
    ///     whole data set, takes a while).
    /// - Throws: `sync_malformed` when the chain has more than 256 other devices, or is at its last
    ///   sequence (SYNC-2).
    public mutating func write(
        _ kind: SyncKind = .changes, from data: DataSet, chain: SyncChain, keys: SyncKeys, person: String,
        at instant: Instant, salt: [UInt8]? = nil, progress: (_ written: Int, _ frames: Int) -> Void = { _, _ in }
    ) throws(SyncError) -> SyncRecord? {
        guard kind == .snapshot || !unsent.isEmpty else { return nil }
        guard sequence < UInt64.max else {
            throw SyncError(.malformed, "this device's chain is at its last sequence", rule: "SYNC-2")
        }
        let contents = kind == .snapshot ? data : data.restricted(to: unsent)
        var plaintext: [UInt8] = []
        BundleWriter.write(
            contents, options: BundleOptions(createdAt: instant, deviceID: device), to: { plaintext += $0 },
            progress: progress)
        let header = SyncHeader(
            keyID: keys.keyID, device: device, sequence: sequence + 1, previous: lastHash,
            seen: chain.sortedHeads.filter { $0.device != device }, kind: kind,
            salt: salt ?? Crypto.randomBytes(16))
        let record = try keys.seal(plaintext, header: header, person: person)
        sequence += 1
        lastHash = record.hash
        pending.append(record.bytes)
        unsent = DataSet.Changes()
        return record
    }

    /// Takes back the last record written, a snapshot the server refused as stale (SYNC-9): it
    /// never kept it, so the next record takes its sequence.
    ///
    /// - Returns: whether the last pending record was a snapshot, now taken back.
    public mutating func withdrawSnapshot() -> Bool {
        guard let last = pending.last else { return false }
        let record: SyncRecord
        do {
            record = try SyncRecord(bytes: last)
        } catch {
            return false
        }
        guard record.header.kind == .snapshot, record.header.sequence == sequence else { return false }
        pending.removeLast()
        sequence -= 1
        lastHash = record.header.previous
        return true
    }

    /// Takes the server's acknowledgement of every record up to `sequence`.
    public mutating func acknowledge(through sequence: UInt64) {
        let acknowledged = Int(clamping: sequence) - Int(clamping: self.sequence) + pending.count
        pending.removeFirst(Swift.max(0, Swift.min(pending.count, acknowledged)))
    }
}
