import GlowModel
import GlowProtocol
import GlowSync

extension SessionKeeper {
    /// The sync log's calls (SYNC-9, SYNC-10) as this session's person: the transport of
    /// ``SyncState/sync(_:keys:person:through:at:maxBytes:keep:progress:)``.
    public var syncTransport: any SyncTransport { ServiceSyncTransport(keeper: self) }
}

/// `sync-push` and `sync-pull` through a session; the server's refusals of a sync code come back
/// as ``SyncError``, the rest as ``ServiceFailure``.
struct ServiceSyncTransport: SyncTransport {
    let keeper: SessionKeeper

    func push(_ records: [[UInt8]], device: DeviceID) async throws -> UInt64 {
        let request = ProtocolMessage("SyncPushRequest").with("device", .bytes(device.bytes))
            .with("records", .list(records.map(ProtocolValue.bytes)))
        return try await Self.mapped { () async throws(ServiceFailure) -> UInt64 in
            try await keeper.call("sync-push", request).unsigned("acknowledged")
        }
    }

    func pull(device: DeviceID, after cursor: UInt64, maxBytes: Int) async throws -> SyncPulled {
        let request = ProtocolMessage("SyncPullRequest").with("device", .bytes(device.bytes))
            .with("cursor", .unsigned(cursor)).with("max_bytes", .unsigned(UInt64(clamping: Swift.max(0, maxBytes))))
        let answer = try await Self.mapped { () async throws(ServiceFailure) -> ProtocolMessage in
            try await keeper.call("sync-pull", request)
        }
        var heads: [DeviceID: UInt64] = [:]
        for value in answer.list("heads") {
            guard case .message(let head) = value, head.bytes("device").count == 16 else {
                throw ServiceFailure(.malformedResponse, "a head of the pull is not a SyncHead", call: "sync-pull")
            }
            heads[DeviceID(bytes: head.bytes("device"))] = head.unsigned("sequence")
        }
        let records = answer.list("records").compactMap { value -> [UInt8]? in
            if case .bytes(let bytes) = value { return bytes }
            return nil
        }
        return SyncPulled(
            page: SyncPage(records: records, heads: heads, more: answer.bool("more")), cursor: answer.unsigned("cursor")
        )
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
