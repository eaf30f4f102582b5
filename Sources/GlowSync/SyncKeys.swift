import GlowBundle
import GlowCrypto
import GlowModel
import GlowWire

/// A person's sync keys (SYNC-1) and the sealing of records with them (SYNC-3).
///
/// The secret is a recovery key (BUNDLE-35); neither it nor the sync key ever leaves the person's
/// devices. Only the key id travels, in every record's header.
public struct SyncKeys: Sendable {
    /// The sync key: HKDF of the secret, info `glow-sync key`.
    let syncKey: [UInt8]
    /// The key id: HKDF of the sync key, info `glow-sync key id`, 16 bytes.
    public let keyID: [UInt8]

    /// The keys of a person's sync secret, a 32-byte recovery key.
    public init(secret: RecoveryKey) {
        syncKey = Crypto.hkdfSHA256(secret: secret.bytes, salt: [], info: Array("glow-sync key".utf8), length: 32)
        keyID = Crypto.hkdfSHA256(secret: syncKey, salt: [], info: Array("glow-sync key id".utf8), length: 16)
    }

    /// The sync key's bytes, for the conformance corpus (`sync.keys`); never sent anywhere.
    package var syncKeyBytes: [UInt8] { syncKey }

    /// Seals `plaintext` (a bundle, SYNC-4) as the record of `header` for `person` (SYNC-3).
    ///
    /// The header's `keyID` is these keys' own; the writer refuses what a reader would refuse.
    ///
    /// - Throws: `sync_malformed` when the header breaks SYNC-2.
    public func seal(_ plaintext: [UInt8], header: SyncHeader, person: String) throws(SyncError) -> SyncRecord {
        var header = header
        header.keyID = keyID
        try header.validate()
        let headerBytes = header.wireEncoded()
        let sealed = Crypto.aes256GCMSeal(
            key: recordKey(salt: header.salt), nonce: Self.nonce, plaintext: plaintext,
            associated: Self.associated(person: person, header: headerBytes))
        return SyncRecord(headerBytes: headerBytes, header: header, sealed: sealed)
    }

    /// The plaintext of `record` for `person`: checks 2 and 4 of SYNC-6.
    ///
    /// - Throws: `sync_wrong_key` for another key's record, `sync_tampered` for one that does not
    ///   open.
    public func open(_ record: SyncRecord, person: String) throws(SyncError) -> [UInt8] {
        try checkKey(of: record)
        guard
            let plaintext = Crypto.aes256GCMOpen(
                key: recordKey(salt: record.header.salt), nonce: Self.nonce, sealed: record.sealed,
                associated: Self.associated(person: person, header: record.headerBytes))
        else {
            throw SyncError(
                .tampered,
                "record \(record.header.sequence) of device \(record.header.device) does not open: "
                    + "it was changed, or moved from another person, device or place",
                rule: "SYNC-3")
        }
        return plaintext
    }

    /// Check 2 of SYNC-6: the record is sealed under these keys' sync key.
    ///
    /// - Throws: `sync_wrong_key`.
    public func checkKey(of record: SyncRecord) throws(SyncError) {
        guard record.header.keyID == keyID else {
            throw SyncError(
                .wrongKey,
                "the record is sealed under another sync key: pair this device again, or enter the recovery words",
                rule: "SYNC-1")
        }
    }

    /// Opens `record` and reads the bundle inside (SYNC-4).
    ///
    /// - Throws: what ``open(_:person:)`` throws, or the bundle's error as a ``SyncError``.
    public func dataSet(of record: SyncRecord, person: String, limits: BundleLimits = .default) throws(SyncError)
        -> DataSet
    {
        let plaintext = try open(record, person: person)
        do {
            return try BundleReader(limits: limits).dataSet(plaintext).0
        } catch {
            throw SyncError(
                .bundle(error.code), "the record's plaintext is not a bundle: \(error)", rule: "SYNC-4",
                bundleError: error)
        }
    }

    private func recordKey(salt: [UInt8]) -> [UInt8] {
        Crypto.hkdfSHA256(secret: syncKey, salt: salt, info: Array("glow-sync record".utf8), length: 32)
    }

    private static let nonce = [UInt8](repeating: 0, count: 12)

    /// The canonical `SyncAssociated`: the person's identifier and the header's bytes.
    private static func associated(person: String, header: [UInt8]) -> [UInt8] {
        var writer = WireWriter()
        writer.string(1, person)
        writer.bytes(2, header)
        return writer.bytes
    }
}
