import GlowCrypto
import GlowModel
import GlowWire

/// What a record holds: the changes since its device's previous record, or the whole data set.
public enum SyncKind: UInt64, Hashable, Sendable, CaseIterable {
    /// The records that changed on the device since its previous record (SYNC-4).
    case changes = 0
    /// The whole data set, covering its writer's chain and the heads of its `seen` (SYNC-5).
    case snapshot = 1
}

/// A device's last record as another knows it: its sequence and the record's hash (SYNC-2).
public struct SyncHead: Hashable, Sendable {
    /// The device.
    public var device: DeviceID
    /// The record's sequence among the device's records, from 1.
    public var sequence: UInt64
    /// The SHA-256 of the record's bytes.
    public var hash: [UInt8]

    /// A head.
    public init(device: DeviceID, sequence: UInt64, hash: [UInt8]) {
        self.device = device
        self.sequence = sequence
        self.hash = hash
    }
}

/// A record's header, in the clear and authenticated as its bytes (SYNC-2).
public struct SyncHeader: Hashable, Sendable {
    /// The key id of the sync key that sealed the record (SYNC-1): 16 bytes.
    public var keyID: [UInt8]
    /// The writing device.
    public var device: DeviceID
    /// The record's number among its device's records: 1, 2, 3, ...
    public var sequence: UInt64
    /// The hash of the device's record `sequence − 1`; empty for the first.
    public var previous: [UInt8]
    /// What the writer had merged of each other device, in increasing byte order of device.
    public var seen: [SyncHead]
    /// A change set or a snapshot.
    public var kind: SyncKind
    /// 16 random bytes, new for every record: the record key's salt (SYNC-3).
    public var salt: [UInt8]

    /// The most devices a header's `seen` names.
    public static let maxSeen = 256

    /// A header.
    public init(
        keyID: [UInt8], device: DeviceID, sequence: UInt64, previous: [UInt8], seen: [SyncHead], kind: SyncKind,
        salt: [UInt8]
    ) {
        self.keyID = keyID
        self.device = device
        self.sequence = sequence
        self.previous = previous
        self.seen = seen
        self.kind = kind
        self.salt = salt
    }

    /// The canonical bytes (WIRE-1 ... WIRE-4).
    public func wireEncoded() -> [UInt8] {
        var writer = WireWriter()
        writer.bytes(1, keyID)
        writer.bytes(2, device.bytes)
        writer.uint(3, sequence)
        writer.bytes(4, previous)
        for head in seen {
            writer.message(5) { inner in
                inner.bytes(1, head.device.bytes)
                inner.uint(2, head.sequence)
                inner.bytes(3, head.hash)
            }
        }
        writer.uint(6, kind.rawValue)
        writer.bytes(7, salt)
        return writer.bytes
    }

    /// Reads and judges a header's bytes (SYNC-2).
    ///
    /// - Throws: `sync_malformed`, naming the field.
    public init(wire bytes: [UInt8]) throws(SyncError) {
        var fields = RawFields()
        do {
            fields = try WireReader.read(bytes[...], limits: .default) { (reader) throws(WireError) in
                try RawFields.read(&reader)
            }
        } catch {
            throw SyncError(.malformed, "the record's header does not read: \(error)", rule: "SYNC-2")
        }
        guard let kind = SyncKind(rawValue: fields.kind) else {
            throw SyncError(
                .malformed, "the header's kind \(fields.kind) is neither changes nor snapshot", rule: "SYNC-2")
        }
        self.init(
            keyID: fields.keyID, device: try Self.device(fields.device, "device"), sequence: fields.sequence,
            previous: fields.previous, seen: [], kind: kind, salt: fields.salt)
        for (device, sequence, hash) in fields.seen {
            seen.append(SyncHead(device: try Self.device(device, "a seen device"), sequence: sequence, hash: hash))
        }
        try validate()
    }

    private static func device(_ bytes: [UInt8], _ what: String) throws(SyncError) -> DeviceID {
        guard bytes.count == 16 else {
            throw SyncError(.malformed, "\(what) is \(bytes.count) bytes, not 16", rule: "SYNC-2")
        }
        return DeviceID(bytes: bytes)
    }

    /// Checks the fields against SYNC-2's table: what a writer must not write and a reader refuses.
    ///
    /// - Throws: `sync_malformed`, naming the field.
    public func validate() throws(SyncError) {
        func fail(_ message: String) -> SyncError { SyncError(.malformed, message, rule: "SYNC-2") }
        guard keyID.count == 16 else { throw fail("the key id is \(keyID.count) bytes, not 16") }
        guard sequence >= 1 else { throw fail("the sequence is 0; a device's first record is 1") }
        if sequence == 1 {
            guard previous.isEmpty else { throw fail("the first record has a previous hash") }
        } else {
            guard previous.count == 32 else {
                throw fail("record \(sequence)'s previous hash is \(previous.count) bytes, not 32")
            }
        }
        guard seen.count <= Self.maxSeen else { throw fail("seen names \(seen.count) devices, more than 256") }
        for (index, head) in seen.enumerated() {
            guard head.device != device else { throw fail("seen names the writing device itself") }
            guard head.sequence >= 1 else { throw fail("seen names \(head.device) at sequence 0") }
            guard head.hash.count == 32 else { throw fail("seen's hash for \(head.device) is not 32 bytes") }
            if index > 0, !(seen[index - 1].device < head.device) {
                throw fail("seen is not in increasing order of device, or names \(head.device) twice")
            }
        }
        guard salt.count == 16 else { throw fail("the salt is \(salt.count) bytes, not 16") }
    }
}

/// A header's fields as the wire gives them, before they are judged.
private struct RawFields {
    var keyID: [UInt8] = []
    var device: [UInt8] = []
    var sequence: UInt64 = 0
    var previous: [UInt8] = []
    var seen: [([UInt8], UInt64, [UInt8])] = []
    var kind: UInt64 = 0
    var salt: [UInt8] = []

    static func read(_ reader: inout WireReader) throws(WireError) -> RawFields {
        var fields = RawFields()
        var unknown: [UInt8] = []
        try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
            switch f.number {
            case 1: fields.keyID = try r.readBytes(f)
            case 2: fields.device = try r.readBytes(f)
            case 3: fields.sequence = try r.readUInt(f)
            case 4: fields.previous = try r.readBytes(f)
            case 5:
                try r.expect(f, .lengthDelimited)
                fields.seen.append(
                    try r.nested { (inner: inout WireReader) throws(WireError) in
                        var head: ([UInt8], UInt64, [UInt8]) = ([], 0, [])
                        var skipped: [UInt8] = []
                        try inner.forEachField(unknown: &skipped) { (h, g) throws(WireError) in
                            switch g.number {
                            case 1: head.0 = try h.readBytes(g)
                            case 2: head.1 = try h.readUInt(g)
                            case 3: head.2 = try h.readBytes(g)
                            default: return false
                            }
                            return true
                        }
                        return head
                    })
            case 6: fields.kind = try r.readUInt(f)
            case 7: fields.salt = try r.readBytes(f)
            default: return false
            }
            return true
        }
        return fields
    }
}

/// A record as the server keeps and sends it: its header's bytes and the sealed bundle (SYNC-2).
public struct SyncRecord: Hashable, Sendable {
    /// The record's bytes, as stored and sent.
    public let bytes: [UInt8]
    /// The header's bytes, authenticated as they are.
    public let headerBytes: [UInt8]
    /// The header, read and judged.
    public let header: SyncHeader
    /// The sealed plaintext and its tag.
    public let sealed: [UInt8]

    /// The SHA-256 of the record's bytes (SYNC-2).
    public var hash: [UInt8] { Crypto.sha256(bytes) }

    /// Reads and judges a record's bytes (SYNC-2); opening it is ``SyncKeys/open(_:person:)``'s.
    ///
    /// - Throws: `sync_malformed`.
    public init(bytes: [UInt8]) throws(SyncError) {
        var parts: (header: [UInt8], sealed: [UInt8]) = ([], [])
        do {
            parts = try WireReader.read(bytes[...], limits: .default) { (reader) throws(WireError) in
                var parts: (header: [UInt8], sealed: [UInt8]) = ([], [])
                var unknown: [UInt8] = []
                try reader.forEachField(unknown: &unknown) { (r, f) throws(WireError) in
                    switch f.number {
                    case 1: parts.header = try r.readBytes(f)
                    case 2: parts.sealed = try r.readBytes(f)
                    default: return false
                    }
                    return true
                }
                return parts
            }
        } catch {
            throw SyncError(.malformed, "the record does not read: \(error)", rule: "SYNC-2")
        }
        let header = try SyncHeader(wire: parts.header)
        guard parts.sealed.count >= 16 else {
            throw SyncError(
                .malformed, "the sealed part is \(parts.sealed.count) bytes, shorter than a tag", rule: "SYNC-2")
        }
        self.bytes = bytes
        self.headerBytes = parts.header
        self.header = header
        self.sealed = parts.sealed
    }

    /// The canonical record of a header's bytes and a sealed part.
    init(headerBytes: [UInt8], header: SyncHeader, sealed: [UInt8]) {
        var writer = WireWriter()
        writer.bytes(1, headerBytes)
        writer.bytes(2, sealed)
        self.bytes = writer.bytes
        self.headerBytes = headerBytes
        self.header = header
        self.sealed = sealed
    }
}
