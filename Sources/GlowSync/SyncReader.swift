import GlowBundle
import GlowModel

/// One page of a pull, as the server sends it (section 11.3).
public struct SyncPage: Hashable, Sendable {
    /// The records' bytes, in the server's order.
    public var records: [[UInt8]]
    /// The server's heads: for every device of the person's log, its last sequence.
    public var heads: [DeviceID: UInt64]
    /// Whether more pages follow; `false` ends the pull.
    public var more: Bool

    /// A page.
    public init(records: [[UInt8]], heads: [DeviceID: UInt64], more: Bool) {
        self.records = records
        self.heads = heads
        self.more = more
    }
}

/// What a device knows of its person's log (section 11.3): for each other device, the last record
/// of it that it merged, and the last of its own records the server acknowledged.
///
/// A value: reading a page works on a copy and keeps it only when the whole page passes, so a
/// refused page changes nothing (SYNC-8).
public struct SyncChain: Hashable, Sendable {
    /// The reading device.
    public let device: DeviceID
    /// The last merged record of each other device.
    public private(set) var heads: [DeviceID: SyncHead]
    /// The sequence of this device's own last record the server acknowledged (0: none).
    public var acknowledged: UInt64
    /// The highest head that any merged record's `seen` named, per other device (SYNC-7).
    public private(set) var promised: [DeviceID: UInt64]

    /// A chain for `device` that has merged up to `heads`, whose merged records named `promised`
    /// (a store keeps them, so that a pull stopped between pages is judged whole, SYNC-7).
    public init(
        device: DeviceID, heads: [SyncHead] = [], acknowledged: UInt64 = 0, promised: [DeviceID: UInt64] = [:]
    ) {
        self.device = device
        self.heads = Dictionary(heads.map { ($0.device, $0) }, uniquingKeysWith: { $1 })
        self.acknowledged = acknowledged
        self.promised = promised
    }

    /// The heads in increasing byte order of device.
    public var sortedHeads: [SyncHead] { heads.values.sorted { $0.device < $1.device } }

    private func sequence(of device: DeviceID) -> UInt64 { heads[device]?.sequence ?? 0 }

    /// Judges one opened record's place (checks 6 and 7 of SYNC-6) and, when it passes, moves the heads.
    mutating func advance(over record: SyncRecord) throws(SyncError) {
        let header = record.header
        switch header.kind {
        case .changes: try follow(record)
        case .snapshot: try restart(at: record)
        }
        for head in header.seen where head.device != device {
            promised[head.device] = max(promised[head.device] ?? 0, head.sequence)
        }
    }

    /// A change set: the next of its device's chain.
    private mutating func follow(_ record: SyncRecord) throws(SyncError) {
        let header = record.header
        let known = sequence(of: header.device)
        guard header.sequence > known else {
            throw SyncError(
                .replayed, "record \(header.sequence) of \(header.device) was merged already (up to \(known))",
                rule: "SYNC-6")
        }
        guard header.sequence - 1 == known else {
            throw SyncError(
                .gap, "record \(header.sequence) of \(header.device) came after \(known): a record between is missing",
                rule: "SYNC-6")
        }
        if let head = heads[header.device], head.hash != header.previous {
            throw SyncError(
                .brokenChain,
                "record \(header.sequence) of \(header.device) does not follow the record merged before it",
                rule: "SYNC-6")
        }
        try checkSeen(header)
        heads[header.device] = SyncHead(device: header.device, sequence: header.sequence, hash: record.hash)
    }

    /// A snapshot: the heads become its coverage, when it is not behind them.
    private mutating func restart(at record: SyncRecord) throws(SyncError) {
        let header = record.header
        let coverage = Dictionary(header.seen.map { ($0.device, $0) }, uniquingKeysWith: { $1 })
        guard sequence(of: header.device) < header.sequence else {
            throw SyncError(
                .replayed,
                "a snapshot at \(header.sequence) of \(header.device), which this device has merged up to "
                    + "\(sequence(of: header.device))", rule: "SYNC-6")
        }
        for head in sortedHeads where head.device != header.device {
            guard head.sequence <= coverage[head.device]?.sequence ?? 0 else {
                throw SyncError(
                    .replayed,
                    "a snapshot that covers \(head.device) only up to "
                        + "\(coverage[head.device]?.sequence ?? 0), behind this device's \(head.sequence)",
                    rule: "SYNC-6")
            }
        }
        try checkSeen(header)
        if let head = heads[header.device], head.sequence == header.sequence - 1, head.hash != header.previous {
            throw SyncError(
                .brokenChain, "the snapshot of \(header.device) does not follow the record merged before it",
                rule: "SYNC-6")
        }
        var next: [DeviceID: SyncHead] = [:]
        for head in header.seen where head.device != device { next[head.device] = head }
        next[header.device] = SyncHead(device: header.device, sequence: header.sequence, hash: record.hash)
        heads = next
    }

    /// Check 7: a `seen` head at the sequence of this device's head must have its hash.
    private func checkSeen(_ header: SyncHeader) throws(SyncError) {
        for head in header.seen where head.device != device {
            if let mine = heads[head.device], mine.sequence == head.sequence, mine.hash != head.hash {
                throw SyncError(
                    .brokenChain,
                    "the record names \(head.device)'s record \(head.sequence) with another hash than the one merged",
                    rule: "SYNC-6")
            }
        }
    }

    /// SYNC-7: at the end of a pull, what the records named and the server's heads against this
    /// device's heads.
    func checkEnd(serverHeads: [DeviceID: UInt64]) throws(SyncError) {
        for (other, sequence) in promised.sorted(by: { $0.key < $1.key }) where sequence > self.sequence(of: other) {
            throw SyncError(
                .gap,
                "a record named \(other)'s record \(sequence), which the server did not send "
                    + "(this device has \(self.sequence(of: other)))", rule: "SYNC-7", device: other)
        }
        let others = serverHeads.filter { $0.key != device }
        for (other, sequence) in others.sorted(by: { $0.key < $1.key }) where sequence > self.sequence(of: other) {
            throw SyncError(
                .gap,
                "the server keeps \(other)'s records up to \(sequence) but sent up to \(self.sequence(of: other))",
                rule: "SYNC-7", device: other)
        }
        for other in Set(others.keys).union(heads.keys).sorted() where other != device {
            let theirs = others[other] ?? 0
            if theirs < self.sequence(of: other) {
                throw SyncError(
                    .rollback,
                    "the server's head for \(other) is \(theirs), behind the \(self.sequence(of: other)) it sent",
                    rule: "SYNC-7", device: other)
            }
        }
        let own = serverHeads[device] ?? 0
        guard own >= acknowledged else {
            throw SyncError(
                .rollback, "the server's head for this device is \(own), behind the \(acknowledged) it acknowledged",
                rule: "SYNC-7", device: device)
        }
    }
}

/// Reads pulls for one person with their keys (section 11.3): judges every record of a page, and
/// merges a page only when all of it passes (SYNC-8).
public struct SyncReader: Sendable {
    /// The person's keys.
    public let keys: SyncKeys
    /// The person's account identifier, as the server names it.
    public let person: String
    /// The limits each record's bundle is read within.
    public var limits: BundleLimits

    /// A reader.
    public init(keys: SyncKeys, person: String, limits: BundleLimits = .default) {
        self.keys = keys
        self.person = person
        self.limits = limits
    }

    /// What reading a page gives: the chain after it and the data sets of its records, in order.
    public struct Accepted: Sendable {
        /// The chain after the page.
        public var chain: SyncChain
        /// Each record's data set, in the page's order.
        public var dataSets: [DataSet]
    }

    /// Judges `page` against `chain` (SYNC-6 and, when it ends the pull, SYNC-7) without merging
    /// anything: what a store merges in its transaction once the page passes.
    ///
    /// - Throws: ``SyncError`` with the record's index (or the device, for SYNC-7).
    public func judge(_ page: SyncPage, after chain: SyncChain) throws(SyncError) -> Accepted {
        var next = chain
        var dataSets: [DataSet] = []
        dataSets.reserveCapacity(page.records.count)
        for (index, bytes) in page.records.enumerated() {
            do throws(SyncError) {
                let record = try SyncRecord(bytes: bytes)
                try keys.checkKey(of: record)
                guard record.header.device != chain.device else {
                    throw SyncError(.replayed, "the server sent this device one of its own records", rule: "SYNC-6")
                }
                let data = try keys.dataSet(of: record, person: person, limits: limits)
                try next.advance(over: record)
                dataSets.append(data)
            } catch {
                throw error.atRecord(index)
            }
        }
        if !page.more { try next.checkEnd(serverHeads: page.heads) }
        return Accepted(chain: next, dataSets: dataSets)
    }

    /// Reads `page` into `data` and `chain`, all or nothing (SYNC-8).
    ///
    /// - Returns: what the merge changed.
    /// - Throws: ``SyncError``; then `data` and `chain` are as they were.
    public func read(_ page: SyncPage, chain: inout SyncChain, into data: inout DataSet) throws(SyncError)
        -> DataSet.Changes
    {
        let accepted = try judge(page, after: chain)
        var changes = DataSet.Changes()
        for set in accepted.dataSets { changes.formUnion(data.merge(set)) }
        chain = accepted.chain
        return changes
    }
}
