import Foundation
import GlowBundle
import GlowCore
import GlowCrypto
import GlowModel
import GlowWire

/// The bundle area's operations: read a bundle file of the corpus, and merge data sets.
package enum BundleOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "bundle.read": read,
        "bundle.merge": merge,
        "bundle.frames": frames,
        "bundle.import": importing,
        "bundle.importStream": importStream,
        "bundle.decrypt": decrypt,
        "bundle.encrypt": encrypt,
        "bundle.recoveryKey": recoveryKey,
        "bundle.secret": secret(typed:),
    ]

    /// The secret a request gives: `passphrase`, or `recoveryKey` as words.
    static func secret(_ input: JSONValue) throws -> BundleSecret {
        if let words = input["recoveryKey"]?.string { return .recoveryKey(try RecoveryKey(words: words)) }
        return .passphrase(try input.string("passphrase"))
    }

    /// BUNDLE-34: the file streamed through an opener in pieces of 64 KiB.
    static func decrypt(_ input: JSONValue) throws -> JSONValue {
        let bytes = try fileBytes(input)
        var opener = EnvelopeOpener(
            secret: try secret(input),
            memoryBudgetKiB: input["memoryBudgetKiB"] == nil
                ? BundleEnvelope.maximumMemoryKiB : try input.int("memoryBudgetKiB"))
        var plaintext: [UInt8] = []
        var start = 0
        repeat {
            let end = Swift.min(bytes.count, start + 65_536)
            plaintext += try opener.open(Array(bytes[start..<end]))
            start = end
        } while start < bytes.count
        plaintext += try opener.finish()
        let kdf = opener.kdf!
        return .object([
            "kdf": .object([
                "memoryKiB": .int(kdf.memoryKiB), "iterations": .int(kdf.iterations),
                "parallelism": .int(kdf.parallelism),
            ]),
            "stanzas": .array(opener.stanzas.map { .string($0.name) }),
            "length": .int(plaintext.count), "sha256": .string(Crypto.hex(Crypto.sha256(plaintext))),
        ])
    }

    /// BUNDLE-29 ... BUNDLE-33 with a given salt and file key: the bytes of a test vector, sealed
    /// in pieces of 10,000 bytes.
    static func encrypt(_ input: JSONValue) throws -> JSONValue {
        let length = try input.required("plaintext").int("length")
        guard (0...(64 << 20)).contains(length) else {
            throw CorpusInputError(description: "plaintext.length \(length) is outside 0 ... 64 MiB")
        }
        let plaintext = (0..<length).map { UInt8($0 % 251) }
        let salt = try WireOperations.bytes(hex: try input.string("salt"))
        let fileKey = try WireOperations.bytes(hex: try input.string("fileKey"))
        guard salt.count == 16, fileKey.count == 32 else {
            throw CorpusInputError(description: "a salt is 16 bytes and a file key 32")
        }
        let kdf = try input.required("kdf")
        var sealer = try EnvelopeSealer(
            passphrase: try input.string("passphrase"),
            recoveryKey: try input["recoveryKey"]?.string.map { try RecoveryKey(words: $0) },
            kdf: EnvelopeKDF(
                memoryKiB: try kdf.int("memoryKiB"), iterations: try kdf.int("iterations"),
                parallelism: try kdf.int("parallelism")),
            salt: salt, fileKey: fileKey)
        var sealed: [UInt8] = []
        var start = 0
        while start < plaintext.count {
            let end = Swift.min(plaintext.count, start + 10_000)
            sealed += try sealer.seal(Array(plaintext[start..<end]))
            start = end
        }
        sealed += try sealer.finish()
        return .object([
            "header": .string(Crypto.hex(sealer.header)), "length": .int(sealed.count),
            "sha256": .string(Crypto.hex(Crypto.sha256(sealed))),
        ])
    }

    /// BUNDLE-35.
    static func recoveryKey(_ input: JSONValue) throws -> JSONValue {
        .object(["hex": .string(Crypto.hex(try RecoveryKey(words: try input.string("words")).bytes))])
    }

    /// BUNDLE-35: one secret as a person typed it, classed as a passphrase or a recovery key.
    static func secret(typed input: JSONValue) throws -> JSONValue {
        switch try BundleSecret(typed: try input.string("text")) {
        case .passphrase: .object(["kind": .string(BundleEnvelope.StanzaKind.passphrase.name)])
        case .recoveryKey(let key):
            .object([
                "kind": .string(BundleEnvelope.StanzaKind.recoveryKey.name), "hex": .string(Crypto.hex(key.bytes)),
            ])
        }
    }

    /// The bytes of the corpus file a request names, which the runner sends as `fileBase64`.
    static func fileBytes(_ input: JSONValue) throws -> [UInt8] {
        guard let text = input["fileBase64"]?.string, let data = Data(base64Encoded: text) else {
            throw CorpusInputError(description: "the request carries no fileBase64 for \(input["file"] ?? .null)")
        }
        return Array(data)
    }

    static func limits(_ input: JSONValue) -> BundleLimits {
        var limits = BundleLimits.default
        if let size = input["limits"]?["maxBundleSize"]?.int { limits.maxBundleSize = size }
        if let size = input["limits"]?["maxUncompressedSize"]?.int { limits.maxUncompressedSize = size }
        if let size = input["limits"]?["maxFrameSize"]?.int { limits.maxFrameSize = size }
        if let count = input["limits"]?["maxFrames"]?.int { limits.maxFrames = count }
        if let count = input["limits"]?["maxCheckIns"]?.int { limits.maxCheckIns = count }
        if let count = input["limits"]?["maxCheckInsPerBlock"]?.int { limits.maxCheckInsPerBlock = count }
        if let count = input["limits"]?["maxUnknownRecords"]?.int { limits.maxUnknownRecords = count }
        if let size = input["limits"]?["maxUnknownBytes"]?.int { limits.maxUnknownBytes = size }
        return limits
    }

    static func read(_ input: JSONValue) throws -> JSONValue {
        let bytes = try fileBytes(input)
        let contents = try BundleReader(limits: limits(input)).contents(bytes)
        let summary = contents.summary
        var members: [String: JSONValue] = [
            "header": .object([
                "major": .int(summary.header.major), "minor": .int(summary.header.minor),
                "requiredFlags": .int(Int(summary.header.requiredFlags)),
                "optionalFlags": .int(Int(summary.header.optionalFlags)),
            ]),
            "manifest": manifest(summary.manifest),
            "counts": try ModelOperations.reencode(summary.counts),
            "data": try ModelOperations.reencode(contents.data),
        ]
        if let social = contents.social {
            members["social"] = .object([
                "person": .string(social.person),
                "registers": .string(WireOperations.hex(social.registers.wireEncoded())),
            ])
        }
        return .object(members)
    }

    static func manifest(_ manifest: BundleManifest) -> JSONValue {
        var members: [String: JSONValue] = [
            "schemaVersion": .int(manifest.schemaVersion), "minReaderVersion": .int(manifest.minReaderVersion),
            "exporterName": .string(manifest.exporterName), "exporterVersion": .string(manifest.exporterVersion),
            "createdAt": .string(manifest.createdAt.description),
        ]
        if let device = manifest.deviceID { members["deviceID"] = .string(device.description) }
        return .object(members)
    }

    static func frames(_ input: JSONValue) throws -> JSONValue {
        let data = try ModelOperations.decode(DataSet.self, try input.required("data"))
        let options = BundleOptions(
            exporterName: try input.string("exporterName"), exporterVersion: try input.string("exporterVersion"),
            createdAt: try Instant(rfc3339: try input.string("createdAt")),
            deviceID: try input["deviceID"]?.string.map { try DeviceID($0) })
        return .object(["hex": .string(WireOperations.hex(BundleWriter.frames(data, options: options)))])
    }

    static func importing(_ input: JSONValue) throws -> JSONValue {
        let destination = try ModelOperations.decode(DataSet.self, try input.required("destination"))
        let bytes = try fileBytes(input)
        let merged = try BundleReader(limits: limits(input)).importing(bytes, into: destination)
        return .object(["data": try ModelOperations.reencode(merged)])
    }

    /// BUNDLE-26: the file fed `chunkSize` bytes at a time; the caller cancels on the
    /// `cancelAfter`-th progress report, the source fails when asked for a chunk after
    /// `failAfter` of them.
    static func importStream(_ input: JSONValue) throws -> JSONValue {
        var data = try ModelOperations.decode(DataSet.self, try input.required("destination"))
        let bytes = try fileBytes(input)
        let size = try input.int("chunkSize")
        guard size > 0 else { throw CorpusInputError(description: "chunkSize must be positive") }
        let cancelAfter = input["cancelAfter"]?.int ?? Int.max
        let failAfter = input["failAfter"]?.int ?? Int.max
        var offset = 0
        var served = 0
        var reports: [ImportProgress] = []
        struct SourceFailed: Error {}
        try BundleReader(limits: limits(input)).import(
            reading: {
                guard offset < bytes.count else { return nil }
                guard served < failAfter else { throw SourceFailed() }
                defer { offset = Swift.min(bytes.count, offset + size) }
                served += 1
                return Array(bytes[offset..<Swift.min(bytes.count, offset + size)])
            }, totalBytes: bytes.count, into: &data
        ) { progress in
            reports.append(progress)
            return reports.count < cancelAfter
        }
        let last = reports.last ?? ImportProgress(totalBytes: bytes.count)
        return .object([
            "reports": .int(reports.count),
            "progress": .object([
                "bytesRead": .int(last.bytesRead), "totalBytes": last.totalBytes.map { .int($0) } ?? .null,
                "records": .int(last.records), "checkIns": .int(last.checkIns),
            ]),
            "data": try ModelOperations.reencode(data),
        ])
    }

    static func merge(_ input: JSONValue) throws -> JSONValue {
        let sets = try (input["sets"]?.array ?? []).map { try ModelOperations.decode(DataSet.self, $0) }
        let merged = sets.reduce(DataSet()) { $0.merging($1) }
        return .object(["data": try ModelOperations.reencode(merged)])
    }
}
