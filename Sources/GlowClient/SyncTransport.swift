import GlowBundle
import GlowModel
import GlowProtocol
import GlowSync

extension SessionKeeper {
    /// The sync log's calls (SYNC-9, SYNC-10) as this session's person: the transport a device's
    /// sync goes through.
    public var syncTransport: any SyncTransport { ServiceSyncTransport(keeper: self) }
}

extension SessionKeeper {
    /// Sends this device's sealed records to the person's log (`sync-push`, SYNC-9), in order.
    ///
    /// - Returns: the sequence of the last record the log keeps of this device.
    /// - Throws: ``ServiceFailure``: `signed_out`; the log's refusal with its `sync_` code
    ///   (`sync_out_of_order`, `sync_wrong_key`, `sync_snapshot_stale`, `sync_quota_exceeded`, ...).
    public func syncPush(_ records: [[UInt8]], device: DeviceID) async throws(ServiceFailure) -> UInt64 {
        let request = ProtocolMessage("SyncPushRequest").with("device", .bytes(device.bytes))
            .with("records", .list(records.map(ProtocolValue.bytes)))
        return try await call("sync-push", request).unsigned("acknowledged")
    }

    /// A page of the person's log after `cursor` (`sync-pull`, SYNC-10), of at most `maxBytes`
    /// (0: the server's page), for this device, whose own records it leaves out.
    ///
    /// - Throws: ``ServiceFailure``: `signed_out`; the log's refusal; `malformed_response` for a
    ///   head that is not a device's.
    public func syncPull(device: DeviceID, after cursor: UInt64, maxBytes: Int = 0) async throws(ServiceFailure)
        -> SyncPulled
    {
        let request = ProtocolMessage("SyncPullRequest").with("device", .bytes(device.bytes))
            .with("cursor", .unsigned(cursor)).with("max_bytes", .unsigned(UInt64(clamping: Swift.max(0, maxBytes))))
        let answer = try await call("sync-pull", request)
        var heads: [DeviceID: UInt64] = [:]
        for value in answer.list("heads") {
            guard case .message(let head) = value, head.bytes("device").count == 16 else {
                throw ServiceFailure(.malformedResponse, "a head of the pull is not a SyncHead", call: "sync-pull")
            }
            heads[DeviceID(bytes: head.bytes("device"))] = head.unsigned("sequence")
        }
        return SyncPulled(
            page: SyncPage(records: answer.byteList("records"), heads: heads, more: answer.bool("more")),
            cursor: answer.unsigned("cursor"))
    }
}

/// ``SessionKeeper/syncPush(_:device:)`` and ``SessionKeeper/syncPull(device:after:maxBytes:)``
/// as the database's transport; the server's refusals of a sync code come back as ``SyncError``,
/// the rest as ``ServiceFailure``.
struct ServiceSyncTransport: SyncTransport {
    let keeper: SessionKeeper

    func push(_ records: [[UInt8]], device: DeviceID) async throws -> UInt64 {
        try await Self.mapped { () async throws(ServiceFailure) -> UInt64 in
            try await keeper.syncPush(records, device: device)
        }
    }

    func pull(device: DeviceID, after cursor: UInt64, maxBytes: Int) async throws -> SyncPulled {
        try await Self.mapped { () async throws(ServiceFailure) -> SyncPulled in
            try await keeper.syncPull(device: device, after: cursor, maxBytes: maxBytes)
        }
    }

    /// `body`'s refusals of a sync code as ``SyncError``.
    private static func mapped<T>(_ body: () async throws(ServiceFailure) -> T) async throws -> T {
        do {
            return try await body()
        } catch  where error.code.description.hasPrefix("sync_") {
            throw SyncError(
                SyncError.Code.refused(error.code.description), error.message, rule: error.rule)
        }
    }
}

extension SessionKeeper {
    /// Offers the person's sync `secret` to a new device (SYNC-12, SYNC-13): sealed under a new
    /// pairing code's key and left at the server for ten minutes, for one taking.
    ///
    /// - Returns: the code to show the person.
    /// - Throws: ``ServiceFailure``: `signed_out`, or the server's refusal (`sync_pairing_limit`).
    public func offerPairing(of secret: RecoveryKey) async throws(ServiceFailure) -> PairingCode {
        guard let person = session?.account else {
            throw ServiceFailure(.signedOut, "no one is signed in on this device", call: "sync-pair-offer")
        }
        let code = PairingCode.random()
        let offer = ProtocolMessage("SyncPairOffer").with("slot", .bytes(code.slot))
            .with("sealed", .bytes(code.seal(secret, person: person.rawValue)))
        _ = try await call("sync-pair-offer", offer)
        return code
    }

    /// Takes the sync secret a device offered under `code` (SYNC-12, SYNC-13): once.
    ///
    /// - Throws: ``SyncError`` `invalid_pairing_code` for text that is not a code,
    ///   `sync_pairing_tampered` for an offer that does not open; ``ServiceFailure``: `signed_out`,
    ///   `sync_pairing_not_found` (typed already, expired or mistyped).
    public func takePairing(code text: String) async throws -> RecoveryKey {
        guard let person = session?.account else {
            throw ServiceFailure(.signedOut, "sign in before pairing", call: "sync-pair-take")
        }
        let code = try PairingCode(text: text)
        let answer = try await call("sync-pair-take", ProtocolMessage("SyncPairTake").with("slot", .bytes(code.slot)))
        return try code.open(answer.bytes("sealed"), person: person.rawValue)
    }
}
