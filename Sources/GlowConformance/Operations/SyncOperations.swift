import GlowBundle
import GlowCrypto
import GlowModel
import GlowSync

/// The sync area's operations (Spec/sync.md 11.4): keys, sealing, opening and reading pulls.
package enum SyncOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "sync.keys": keys,
        "sync.seal": seal,
        "sync.open": open,
        "sync.pull": pull,
        "sync.pairingCode": pairingCode,
        "sync.pairing": pairing,
    ]

    static func secret(_ input: JSONValue) throws -> SyncKeys {
        let bytes = try WireOperations.bytes(hex: try input.string("secret"))
        guard bytes.count == 32 else {
            throw CorpusInputError(description: "secret is \(bytes.count) bytes; a sync secret has 32")
        }
        return SyncKeys(secret: RecoveryKey(bytes: bytes))
    }

    static func keys(_ input: JSONValue) throws -> JSONValue {
        let keys = try secret(input)
        return .object([
            "syncKey": .string(WireOperations.hex(keys.syncKeyBytes)), "keyID": .string(WireOperations.hex(keys.keyID)),
        ])
    }

    static func device(_ value: JSONValue?) throws -> DeviceID {
        guard let text = value?.string else { throw CorpusInputError(description: "a device is missing") }
        return try DeviceID(text)
    }

    /// A sequence: a whole number of at least 0.
    static func sequence(_ value: JSONValue, _ key: String) throws -> UInt64 {
        guard let number = UInt64(exactly: try value.int(key)) else {
            throw CorpusInputError(description: "\(key) is negative")
        }
        return number
    }

    static func heads(_ value: JSONValue?) throws -> [SyncHead] {
        try (value?.array ?? []).map { head in
            SyncHead(
                device: try device(head["device"]), sequence: try sequence(head, "sequence"),
                hash: try WireOperations.bytes(hex: head["hash"]?.string ?? ""))
        }
    }

    static func json(_ heads: [SyncHead]) -> JSONValue {
        .array(
            heads.map {
                .object([
                    "device": .string($0.device.description), "sequence": .int(Int($0.sequence)),
                    "hash": .string(WireOperations.hex($0.hash)),
                ])
            })
    }

    static func kind(_ text: String) throws -> SyncKind {
        switch text {
        case "changes": return .changes
        case "snapshot": return .snapshot
        default: throw CorpusInputError(description: "kind \(text) is neither changes nor snapshot")
        }
    }

    static func name(_ kind: SyncKind) -> String {
        switch kind {
        case .changes: "changes"
        case .snapshot: "snapshot"
        }
    }

    static func seal(_ input: JSONValue) throws -> JSONValue {
        let keys = try secret(input)
        let fields = try input.required("header")
        let header = SyncHeader(
            keyID: keys.keyID, device: try device(fields["device"]), sequence: try sequence(fields, "sequence"),
            previous: try WireOperations.bytes(hex: fields["previous"]?.string ?? ""), seen: try heads(fields["seen"]),
            kind: try kind(fields["kind"]?.string ?? "changes"),
            salt: try WireOperations.bytes(hex: try fields.string("salt")))
        let plaintext = try WireOperations.bytes(hex: try input.string("plaintext"))
        let record = try keys.seal(plaintext, header: header, person: try input.string("person"))
        return .object([
            "header": .string(WireOperations.hex(record.headerBytes)),
            "record": .string(WireOperations.hex(record.bytes)), "hash": .string(WireOperations.hex(record.hash)),
        ])
    }

    static func open(_ input: JSONValue) throws -> JSONValue {
        let keys = try secret(input)
        let record = try SyncRecord(bytes: try WireOperations.bytes(hex: try input.string("record")))
        let data = try keys.dataSet(of: record, person: try input.string("person"))
        return .object([
            "device": .string(record.header.device.description), "sequence": .int(Int(record.header.sequence)),
            "kind": .string(name(record.header.kind)), "seen": json(record.header.seen),
            "data": try ModelOperations.reencode(data),
        ])
    }

    static func pull(_ input: JSONValue) throws -> JSONValue {
        let reader = SyncReader(keys: try secret(input), person: try input.string("person"))
        var chain = SyncChain(
            device: try device(input["device"]), heads: try heads(input["heads"]),
            acknowledged: input["acknowledged"] == nil ? 0 : try sequence(input, "acknowledged"))
        var data = try ModelOperations.decode(DataSet.self, input["data"] ?? .object([:]))
        for (index, page) in (input["pages"]?.array ?? []).enumerated() {
            var serverHeads: [DeviceID: UInt64] = [:]
            for head in page["heads"]?.array ?? [] {
                serverHeads[try device(head["device"])] = try sequence(head, "sequence")
            }
            let records = try (page["records"]?.array ?? []).map { try WireOperations.bytes(hex: $0.string ?? "") }
            do {
                _ = try reader.read(
                    SyncPage(records: records, heads: serverHeads, more: page["more"] == .bool(true)),
                    chain: &chain, into: &data)
            } catch {
                throw error.inPage(index)
            }
        }
        return .object(["data": try ModelOperations.reencode(data), "heads": json(chain.sortedHeads)])
    }

    static func pairingCode(_ input: JSONValue) throws -> JSONValue {
        let bytes = try WireOperations.bytes(hex: try input.string("bytes"))
        guard bytes.count == 15 else { throw CorpusInputError(description: "a pairing code has 15 bytes") }
        return .object(["code": .string(PairingCode(bytes: bytes).description)])
    }

    static func pairing(_ input: JSONValue) throws -> JSONValue {
        let code = try PairingCode(text: try input.string("code"))
        let person = try input.string("person")
        var output: [String: JSONValue] = [
            "slot": .string(WireOperations.hex(code.slot)), "pairingKey": .string(WireOperations.hex(code.pairingKey)),
        ]
        if let hex = input["secret"]?.string {
            let secret = try WireOperations.bytes(hex: hex)
            guard secret.count == 32 else { throw CorpusInputError(description: "a secret has 32 bytes") }
            output["sealed"] = .string(WireOperations.hex(code.seal(RecoveryKey(bytes: secret), person: person)))
        }
        if let hex = input["sealed"]?.string {
            let secret = try code.open(try WireOperations.bytes(hex: hex), person: person)
            output["secret"] = .string(WireOperations.hex(secret.bytes))
        }
        return .object(output)
    }
}
