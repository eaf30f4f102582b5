import GlowCore
import GlowModel
import GlowSync

/// What a person's log holds besides its records: the key id of its first record, the position
/// the next record takes, and the bytes of the records it keeps (SYNC-9).
public struct SyncLogSummary: Hashable, Sendable {
    /// The key id every record must carry; empty for a log that has kept none.
    public var keyID: [UInt8]
    /// The position of the next record kept: 1 for the first.
    public var nextPosition: UInt64
    /// The bytes of the records kept, for the quota.
    public var bytes: Int64

    /// A summary.
    public init(keyID: [UInt8] = [], nextPosition: UInt64 = 1, bytes: Int64 = 0) {
        self.keyID = keyID
        self.nextPosition = nextPosition
        self.bytes = bytes
    }
}

/// One record of a log: its position, device, sequence and bytes (nil when the row was read
/// without them: a record of the reading device, which a pull passes over).
public struct SyncLogRow: Hashable, Sendable {
    /// Its position in the person's log.
    public var position: UInt64
    /// The device that wrote it.
    public var device: DeviceID
    /// Its sequence among the device's records.
    public var sequence: UInt64
    /// Its bytes, as the device sent them.
    public var bytes: [UInt8]?

    /// A row.
    public init(position: UInt64, device: DeviceID, sequence: UInt64, bytes: [UInt8]?) {
        self.position = position
        self.device = device
        self.sequence = sequence
        self.bytes = bytes
    }
}

/// What a push keeps, once every record of it passed (SYNC-9): applied by the store in the
/// push's transaction, all or nothing.
public struct SyncLogChanges: Hashable, Sendable {
    /// Drop every record before this position (a snapshot was kept there); nil: none.
    public var dropBefore: UInt64?
    /// The records to keep, in position order.
    public var rows: [SyncLogRow] = []
    /// The heads the records moved.
    public var heads: [SyncHead] = []
    /// The log's summary after the push.
    public var summary: SyncLogSummary

    /// Changes that keep nothing but `summary`.
    public init(summary: SyncLogSummary) {
        self.summary = summary
    }
}

/// One person's log inside one transaction of a ``SyncLogStore``: the rows a call reads, by index,
/// and the one write of its changes.
public protocol SyncLogRows {
    /// The log's summary; nil for a person whose log keeps nothing.
    func summary() throws(SyncError) -> SyncLogSummary?
    /// The head of `device`, if the log has one.
    func head(of device: DeviceID) throws(SyncError) -> SyncHead?
    /// Every head of the log, in increasing byte order of device.
    func heads() throws(SyncError) -> [SyncHead]
    /// The bytes of the record of `device` at `sequence`, if the log keeps it.
    func record(of device: DeviceID, sequence: UInt64) throws(SyncError) -> [UInt8]?
    /// Up to `limit` records after `position`, in position order, the bytes of `device`'s left out.
    func records(after position: UInt64, limit: Int, skippingBytesOf device: DeviceID) throws(SyncError)
        -> [SyncLogRow]
    /// Keeps `changes`.
    func apply(_ changes: SyncLogChanges) throws(SyncError)
    /// Removes the pairing offers that expired at `now` (ms since 1970), and answers the slots of
    /// those that remain.
    func liveOffers(at now: Int64) throws(SyncError) -> [[UInt8]]
    /// Keeps an offer at `slot` until `expires`, replacing one at the same slot.
    func offer(slot: [UInt8], sealed: [UInt8], expires: Int64) throws(SyncError)
    /// Removes the offer at `slot` and answers its sealed secret; nil when there is none.
    func take(slot: [UInt8]) throws(SyncError) -> [UInt8]?
    /// Erases the log: records, heads and summary.
    func erase() throws(SyncError)
}

/// Where the server keeps people's logs: a database's tables in a deployment. A call runs its
/// body in one transaction on one person's rows.
public protocol SyncLogStore: Sendable {
    /// Runs `body` on `person`'s rows in one transaction; when `reading` is given, a transaction
    /// that first confirms it (``StoreReading``): nil, with nothing run, when it no longer holds.
    /// `writing` says the body may keep changes.
    ///
    /// - Throws: `storage_failed` when the rows cannot be read or kept in time; the body's error,
    ///   with nothing kept.
    func update<T>(
        person: String, writing: Bool, confirming reading: StoreReading?,
        _ body: (any SyncLogRows) throws(SyncError) -> T
    ) throws(SyncError) -> T?

    /// Whether this store is on the database `reading` is of.
    func confirms(_ reading: StoreReading) -> Bool

    /// What every person's log keeps, counted as the quota counts it: the bytes of its records,
    /// and ``SyncLog/headBytes`` for each device it keeps a head of (SYNC-9). Read in a
    /// transaction of its own, never a person's.
    func keptByEveryLog() throws(SyncError) -> Int64
}

/// The server's side of section 11.4: people's logs of sealed records, which it keeps, orders and
/// hands out by their headers without reading a plaintext.
public final class SyncLog: Sendable {
    private let store: any SyncLogStore
    /// The most bytes of records a person's log keeps (SYNC-9): 64 MiB unless set.
    public let quota: Int64
    /// The bytes of records a pull answers at most, one long record aside (SYNC-10): 512 KiB
    /// unless set.
    public let page: Int
    /// The most bytes every log together keeps, counted as for the quota (SYNC-9): 64 GiB unless
    /// set.
    public let capacity: Int64
    /// How long a count of what every log keeps stands before a push counts again (SYNC-9: at
    /// most 10 seconds).
    public let countInterval: Duration
    /// What every log kept when last counted, and when; what this log has taken since.
    private let counted = Locked<(bytes: Int64, at: ContinuousClock.Instant?, since: Int64)>((0, nil, 0))
    /// The most records one push takes (SYNC-9).
    public static let maxRecordsPerPush = 1_000

    /// A log over `store`.
    public init(
        store: any SyncLogStore, quota: Int64 = 64 << 20, page: Int = 512 << 10, capacity: Int64 = 64 << 30,
        countInterval: Duration = .seconds(10)
    ) {
        self.store = store
        self.quota = Swift.max(0, quota)
        self.page = Swift.max(1, page)
        self.capacity = Swift.max(0, capacity)
        self.countInterval = Swift.min(Swift.max(.zero, countInterval), .seconds(10))
    }

    /// What every log keeps, as last counted (again when the count is older than
    /// ``countInterval``) with what this log has taken since.
    private func keptByEveryLog() throws(SyncError) -> Int64 {
        let now = ContinuousClock.now
        let (bytes, at, since) = counted.withLock { $0 }
        if let at, now - at < countInterval { return bytes.addingReportingOverflow(since).partialValue }
        let fresh = try store.keptByEveryLog()
        counted.withLock { $0 = (fresh, now, 0) }
        return fresh
    }

    /// Whether the log's store can confirm `reading` in its transactions.
    public func confirms(_ reading: StoreReading) -> Bool { store.confirms(reading) }

    /// SYNC-9: keeps `records` of `person`'s `device`, all or none, and answers the device's
    /// head after them; nil when `reading` no longer holds (nothing done).
    ///
    /// - Throws: ``SyncError`` with SYNC-9's code; nothing is kept then.
    public func push(_ records: [[UInt8]], device: [UInt8], of person: String, confirming reading: StoreReading?)
        throws(SyncError) -> UInt64?
    {
        let device = try Self.device(device)
        guard (1...Self.maxRecordsPerPush).contains(records.count) else {
            throw SyncError(
                .malformed, "a push takes 1 to \(Self.maxRecordsPerPush) records, not \(records.count)",
                rule: "SYNC-9")
        }
        let parsed = try records.enumerated().map { (index, bytes) throws(SyncError) -> SyncRecord in
            do throws(SyncError) {
                let record = try SyncRecord(bytes: bytes)
                guard record.header.device == device else {
                    throw SyncError(
                        .malformed, "the record is of device \(record.header.device), not the request's \(device)",
                        rule: "SYNC-9")
                }
                return record
            } catch {
                throw error.atRecord(index)
            }
        }
        let everyLog = try keptByEveryLog()
        guard
            let (head, added) = try store.update(
                person: person, writing: true, confirming: reading,
                { (rows) throws(SyncError) -> (UInt64, Int64) in
                    try self.judge(parsed, device: device, rows: rows, everyLog: everyLog)
                })
        else { return nil }
        counted.withLock { $0.since = $0.since.addingReportingOverflow(added).partialValue }
        return head
    }

    /// Judges every record against the rows, then keeps them in one write: the device's head
    /// after them, and the bytes the log keeps more than before (counted as for the quota).
    private func judge(_ records: [SyncRecord], device: DeviceID, rows: any SyncLogRows, everyLog: Int64)
        throws(SyncError) -> (UInt64, Int64)
    {
        var changes = SyncLogChanges(summary: try rows.summary() ?? SyncLogSummary())
        let before = changes.summary.bytes
        var head = try rows.head(of: device)
        let heads = try rows.heads()
        for (index, record) in records.enumerated() {
            do throws(SyncError) {
                let header = record.header
                if changes.summary.keyID.isEmpty { changes.summary.keyID = header.keyID }
                guard header.keyID == changes.summary.keyID else {
                    throw SyncError(
                        .wrongKey, "the record is sealed under another sync key than this person's log",
                        rule: "SYNC-9")
                }
                let known = head?.sequence ?? 0
                if header.sequence <= known {
                    var kept = changes.rows.first { $0.sequence == header.sequence }?.bytes
                    if kept == nil { kept = try rows.record(of: device, sequence: header.sequence) }
                    if let kept, kept != record.bytes {
                        throw SyncError(
                            .conflict, "the log keeps another record \(header.sequence) of this device",
                            rule: "SYNC-9")
                    }
                    continue
                }
                guard header.sequence - 1 == known else {
                    throw SyncError(
                        .outOfOrder,
                        "record \(header.sequence) comes after \(header.sequence - 1), but the log keeps this "
                            + "device's records up to \(known): send from \(known + 1)", rule: "SYNC-9")
                }
                guard header.previous == head?.hash ?? [] else {
                    throw SyncError(
                        .conflict, "record \(header.sequence) does not follow the record \(known) the log keeps",
                        rule: "SYNC-9")
                }
                // A new device past the most a snapshot can name beside its writer: such a log
                // could never be compacted.
                if head == nil, heads.count >= Self.maximumDevices {
                    throw SyncError(
                        .deviceLimit,
                        "the log keeps the records of \(heads.count) devices, the most it takes: a new device "
                            + "takes the place of none", rule: "SYNC-9")
                }
                if header.kind == .snapshot {
                    let others = heads.filter { $0.device != device }
                    guard header.seen == others else {
                        throw SyncError(
                            .snapshotStale,
                            "the snapshot does not cover every other device of the log at its head: pull, then "
                                + "write another", rule: "SYNC-9")
                    }
                    changes.dropBefore = changes.summary.nextPosition
                    changes.rows.removeAll()
                    changes.summary.bytes = 0
                }
                let position = changes.summary.nextPosition
                guard position < UInt64.max else {
                    throw SyncError(.storageFailed, "the person's log has used its last position", rule: nil)
                }
                changes.rows.append(
                    SyncLogRow(position: position, device: device, sequence: header.sequence, bytes: record.bytes))
                changes.summary.nextPosition = position + 1
                changes.summary.bytes += Int64(record.bytes.count)
                head = SyncHead(device: device, sequence: header.sequence, hash: record.hash)
            } catch {
                throw error.atRecord(index)
            }
        }
        // Each device's head counts too, so no log is free of the quota (SYNC-9).
        let headCount = Int64(heads.count) + (heads.contains { $0.device == device } || head == nil ? 0 : 1)
        let (kept, keptBefore) = (
            changes.summary.bytes + headCount * Self.headBytes, before + Int64(heads.count) * Self.headBytes
        )
        guard kept <= quota else {
            throw SyncError(
                .quotaExceeded,
                "the log keeps \(keptBefore) bytes, this push would make it \(kept), and the quota is "
                    + "\(quota): write a snapshot, which drops what it covers", rule: "SYNC-9")
        }
        // The server's own bound, for a push that keeps more than before: a full server still
        // takes snapshots that drop what they cover (SYNC-9).
        let added = kept - keptBefore
        if added > 0, everyLog > capacity - added {
            throw SyncError(
                .serverFull,
                "the server keeps as many bytes of sync logs as it takes (\(capacity)); write a snapshot, or "
                    + "try again later", rule: "SYNC-9")
        }
        guard !changes.rows.isEmpty else { return (head?.sequence ?? 0, 0) }
        if let head { changes.heads = [head] }
        try rows.apply(changes)
        return (head?.sequence ?? 0, added)
    }

    /// SYNC-10: the records after `cursor` of `person`'s devices other than `device`, within
    /// `maxBytes` (0: the server's page); nil when `reading` no longer holds.
    ///
    /// - Throws: ``SyncError``: `sync_malformed` for a device that is not 16 bytes, `storage_failed`.
    public func pull(
        device: [UInt8], after cursor: UInt64, maxBytes: Int, of person: String, confirming reading: StoreReading?
    ) throws(SyncError) -> SyncPullAnswer? {
        let device = try Self.device(device)
        let cap = maxBytes <= 0 ? page : Swift.min(maxBytes, page)
        return try store.update(person: person, writing: false, confirming: reading) {
            (rows) throws(SyncError) -> SyncPullAnswer in
            var answer = SyncPullAnswer(records: [], heads: try rows.heads(), cursor: cursor, more: false)
            var size = 0
            var after = cursor
            var passed = 0
            scan: while true {
                let batch = try rows.records(after: after, limit: 64, skippingBytesOf: device)
                guard !batch.isEmpty else { break }
                for row in batch {
                    // A page goes past a bounded number of records, the puller's own included, so
                    // a pull costs its page whatever the log holds (SYNC-10).
                    guard passed < Self.pageRecords else {
                        answer.more = true
                        break scan
                    }
                    passed += 1
                    if row.device != device, let bytes = row.bytes {
                        if !answer.records.isEmpty, size + bytes.count > cap {
                            answer.more = true
                            break scan
                        }
                        answer.records.append(bytes)
                        size += bytes.count
                    }
                    answer.cursor = row.position
                    after = row.position
                }
                if batch.count < 64 { break }
            }
            if !answer.more {
                answer.more = !(try rows.records(after: answer.cursor, limit: 1, skippingBytesOf: device)).isEmpty
            }
            return answer
        }
    }

    /// The most devices a log keeps heads of (SYNC-9): a snapshot's `seen` names every other one,
    /// and holds at most ``SyncHeader/maxSeen``.
    public static let maximumDevices = SyncHeader.maxSeen

    /// What each device's head counts toward the quota, in bytes (SYNC-9).
    public static let headBytes: Int64 = 64

    /// The most records a page of `sync-pull` goes past, the puller's own included (SYNC-10).
    public static let pageRecords = 1_024

    /// How long a pairing offer waits to be taken (SYNC-13): ten minutes.
    public static let offerLifetime: Int64 = 600_000
    /// The most offers a person keeps at once (SYNC-13).
    public static let maxOffers = 4

    /// SYNC-13: keeps `sealed` at `slot` for `person` for ten minutes from `now` (ms since 1970);
    /// false when `reading` no longer holds (nothing done).
    ///
    /// - Throws: `sync_malformed` for a slot or sealed secret of another length,
    ///   `sync_pairing_limit` for a fifth offer.
    public func offer(
        slot: [UInt8], sealed: [UInt8], of person: String, now: Int64, confirming reading: StoreReading?
    ) throws(SyncError) -> Bool {
        guard slot.count == 16, sealed.count == 48 else {
            throw SyncError(
                .malformed,
                "an offer is a slot of 16 bytes and a sealed secret of 48, not \(slot.count) and "
                    + "\(sealed.count)", rule: "SYNC-13")
        }
        return try store.update(person: person, writing: true, confirming: reading) {
            (rows) throws(SyncError) -> Bool in
            let live = try rows.liveOffers(at: now)
            guard live.contains(slot) || live.count < Self.maxOffers else {
                throw SyncError(
                    .pairingLimit,
                    "\(Self.maxOffers) pairing codes wait to be typed: use one, or wait ten minutes for them to expire",
                    rule: "SYNC-13")
            }
            try rows.offer(slot: slot, sealed: sealed, expires: now &+ Self.offerLifetime)
            return true
        } ?? false
    }

    /// SYNC-13: the sealed secret at `slot` for `person`, removed; nil when `reading` no longer
    /// holds (nothing done).
    ///
    /// - Throws: `sync_malformed` for a slot of another length, `sync_pairing_not_found`.
    public func take(slot: [UInt8], of person: String, now: Int64, confirming reading: StoreReading?)
        throws(SyncError) -> [UInt8]?
    {
        guard slot.count == 16 else {
            throw SyncError(.malformed, "a slot is 16 bytes, not \(slot.count)", rule: "SYNC-13")
        }
        return try store.update(person: person, writing: true, confirming: reading) {
            (rows) throws(SyncError) -> [UInt8] in
            guard try rows.liveOffers(at: now).contains(slot), let sealed = try rows.take(slot: slot) else {
                throw SyncError(
                    .pairingNotFound,
                    "no pairing code waits here: it was typed already, it expired, or it was mistyped",
                    rule: "SYNC-13")
            }
            return sealed
        }
    }

    /// SYNC-11: erases `person`'s log.
    ///
    /// - Throws: `storage_failed`.
    public func erase(_ person: String) throws(SyncError) {
        _ = try store.update(person: person, writing: true, confirming: nil) { (rows) throws(SyncError) in
            try rows.erase()
        }
    }

    private static func device(_ bytes: [UInt8]) throws(SyncError) -> DeviceID {
        guard bytes.count == 16 else {
            throw SyncError(.malformed, "a device is 16 bytes, not \(bytes.count)", rule: "SYNC-9")
        }
        return DeviceID(bytes: bytes)
    }
}

/// What a pull answers (SYNC-10).
public struct SyncPullAnswer: Hashable, Sendable {
    /// The records, in position order.
    public var records: [[UInt8]]
    /// Every head of the log, in increasing byte order of device.
    public var heads: [SyncHead]
    /// The position of the last record the page went past.
    public var cursor: UInt64
    /// Whether the log keeps records after `cursor`.
    public var more: Bool

    /// An answer.
    public init(records: [[UInt8]], heads: [SyncHead], cursor: UInt64, more: Bool) {
        self.records = records
        self.heads = heads
        self.cursor = cursor
        self.more = more
    }
}

/// Sync logs in memory, for a server without a database and for tests: each call works on a copy
/// of its person's log under one lock, and keeps it only when the body succeeds.
public final class InMemorySyncLogStore: SyncLogStore {
    /// One person's log.
    struct PersonLog {
        var summary: SyncLogSummary?
        var records: [SyncLogRow] = []
        var heads: [DeviceID: SyncHead] = [:]
        var offers: [[UInt8]: (sealed: [UInt8], expires: Int64)] = [:]
    }

    private let logs = Locked([String: PersonLog]())

    /// An empty store.
    public init() {}

    /// What every log keeps: its records' bytes, and ``SyncLog/headBytes`` for each head.
    public func keptByEveryLog() -> Int64 {
        logs.withLock { logs in
            logs.values.reduce(Int64(0)) { total, log in
                total + (log.summary?.bytes ?? 0) + Int64(log.heads.count) * SyncLog.headBytes
            }
        }
    }

    /// False: a store without a database shares none with another store.
    public func confirms(_ reading: StoreReading) -> Bool { false }

    /// Runs `body` on a copy of `person`'s log, kept when it returns.
    ///
    /// - Throws: `storage_failed` for a reading (this store is on no database); the body's error.
    public func update<T>(
        person: String, writing: Bool, confirming reading: StoreReading?,
        _ body: (any SyncLogRows) throws(SyncError) -> T
    ) throws(SyncError) -> T? {
        if let reading {
            throw SyncError(
                .storageFailed, "this sync log is on no database, so it cannot confirm \(reading)", rule: nil)
        }
        return try logs.withLock { (logs) throws(SyncError) -> T in
            let rows = Rows(logs[person] ?? PersonLog())
            let result = try body(rows)
            if writing { logs[person] = rows.log.summary == nil && rows.log.offers.isEmpty ? nil : rows.log }
            return result
        }
    }

    final class Rows: SyncLogRows {
        var log: PersonLog

        init(_ log: PersonLog) { self.log = log }

        func summary() -> SyncLogSummary? { log.summary }
        func head(of device: DeviceID) -> SyncHead? { log.heads[device] }
        func heads() -> [SyncHead] { log.heads.values.sorted { $0.device < $1.device } }
        func record(of device: DeviceID, sequence: UInt64) -> [UInt8]? {
            log.records.first { $0.device == device && $0.sequence == sequence }?.bytes
        }
        func records(after position: UInt64, limit: Int, skippingBytesOf device: DeviceID) -> [SyncLogRow] {
            log.records.filter { $0.position > position }.prefix(limit).map { row in
                var row = row
                if row.device == device { row.bytes = nil }
                return row
            }
        }
        func apply(_ changes: SyncLogChanges) {
            if let before = changes.dropBefore { log.records.removeAll { $0.position < before } }
            log.records += changes.rows
            for head in changes.heads { log.heads[head.device] = head }
            log.summary = changes.summary
        }
        func erase() {
            log = PersonLog()
        }
        func liveOffers(at now: Int64) -> [[UInt8]] {
            log.offers = log.offers.filter { $0.value.expires > now }
            return Array(log.offers.keys)
        }
        func offer(slot: [UInt8], sealed: [UInt8], expires: Int64) {
            log.offers[slot] = (sealed, expires)
        }
        func take(slot: [UInt8]) -> [UInt8]? {
            log.offers.removeValue(forKey: slot)?.sealed
        }
    }
}
