import GlowBundle
import GlowCore
import GlowModel

/// The one error type of sync records and their reading (SYNC-2 ... SYNC-8): a stable code, the
/// record or device it concerns, and a message a person can act on. A ``CodedError`` like every
/// error of the SDK.
public struct SyncError: CodedError {
    /// A stable code, as the corpus spells it: `sync_tampered`, ..., or the error code of a bundle
    /// inside a record (`bad_magic`).
    public typealias Code = ErrorCode<SyncError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?
    /// The page of the pull, counted from 0, when the error is about one.
    public internal(set) var page: Int?
    /// The record's index within its page, counted from 0, when the error is about one record.
    public internal(set) var record: Int?
    /// The device the error is about, for the end-of-pull checks (SYNC-7).
    public internal(set) var device: DeviceID?
    /// For a plaintext that is not a bundle: the bundle's own error (SYNC-4).
    public let bundleError: BundleError?

    /// An error of `code`; `record` and `device` place it.
    package init(
        _ code: Code, _ message: String, rule: String?, record: Int? = nil, device: DeviceID? = nil,
        bundleError: BundleError? = nil
    ) {
        self.code = code
        self.message = message
        self.rule = rule
        self.record = record
        self.device = device
        self.bundleError = bundleError
    }

    /// `in page 1, record 2`, `for device …`.
    public var location: String? {
        var parts: [String] = []
        if let page { parts.append("page \(page)") }
        if let record { parts.append("record \(record)") }
        if let device { parts.append("device \(device)") }
        return parts.isEmpty ? nil : "in " + parts.joined(separator: ", ")
    }

    /// The same error, placed in page `page`.
    public func inPage(_ page: Int) -> SyncError {
        var copy = self
        copy.page = page
        return copy
    }

    /// The same error, placed at record `index`.
    public func atRecord(_ index: Int) -> SyncError {
        var copy = self
        copy.record = index
        return copy
    }
}

extension ErrorCode where Domain == SyncError {
    /// A record, header or head whose bytes or fields break SYNC-2.
    public static var malformed: Self { Self("sync_malformed") }
    /// A record sealed under another sync key than the reader's (SYNC-1, SYNC-6).
    public static var wrongKey: Self { Self("sync_wrong_key") }
    /// A record that does not open: changed, moved to another person, device or place (SYNC-3).
    public static var tampered: Self { Self("sync_tampered") }
    /// A record the reader already has, or one of its own, or a snapshot behind it (SYNC-6).
    public static var replayed: Self { Self("sync_replayed") }
    /// A record missing before one that arrived, or one the server withheld (SYNC-6, SYNC-7).
    public static var gap: Self { Self("sync_gap") }
    /// A record that does not follow its device's chain (SYNC-6).
    public static var brokenChain: Self { Self("sync_broken_chain") }
    /// A server whose heads are behind what it sent or acknowledged (SYNC-7).
    public static var rollback: Self { Self("sync_rollback") }
    /// A record the server keeps with other bytes, or one whose `previous` is not its device's
    /// head (SYNC-9).
    public static var conflict: Self { Self("sync_conflict") }
    /// A record after a sequence the server does not have (SYNC-9).
    public static var outOfOrder: Self { Self("sync_out_of_order") }
    /// A snapshot that does not cover the whole log (SYNC-9).
    public static var snapshotStale: Self { Self("sync_snapshot_stale") }
    /// A push that would take the person's log past their quota (SYNC-9).
    public static var quotaExceeded: Self { Self("sync_quota_exceeded") }
    /// A push that would take every log of the server together past its capacity (SYNC-9).
    public static var serverFull: Self { Self("sync_server_full") }
    /// A record of a new device for a log that keeps heads of as many devices as a snapshot can
    /// name (SYNC-9).
    public static var deviceLimit: Self { Self("sync_device_limit") }
    /// The log's rows could not be read or kept in time.
    public static var storageFailed: Self { Self("storage_failed") }
    /// A pairing code a person typed that is not 24 characters of its alphabet (SYNC-12).
    public static var invalidPairingCode: Self { Self("invalid_pairing_code") }
    /// A sealed secret that does not open with the pairing code (SYNC-12).
    public static var pairingTampered: Self { Self("sync_pairing_tampered") }
    /// A slot the server does not hold for the person: never offered, taken or expired (SYNC-13).
    public static var pairingNotFound: Self { Self("sync_pairing_not_found") }
    /// A fifth offer while four wait (SYNC-13).
    public static var pairingLimit: Self { Self("sync_pairing_limit") }
    /// A server's refusal of a sync code, as the server spelled it (SYNC-9).
    public static func refused(_ code: String) -> Self { Self(code) }
    /// The error of the bundle inside a record (SYNC-4).
    public static func bundle(_ code: BundleError.Code) -> Self { Self(code.description) }
}
