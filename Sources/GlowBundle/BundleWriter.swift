import CZlib
import GlowFeed
import GlowModel
import GlowWire

/// How a bundle is written.
public struct BundleOptions: Hashable, Sendable {
    /// The zlib compression level, 0 (store) ... 9 (smallest).
    public var level: Int
    /// Who writes it, for the manifest.
    public var exporterName: String
    /// The writer's version, for the manifest.
    public var exporterVersion: String
    /// When it is written.
    public var createdAt: Instant
    /// The device it is written on.
    public var deviceID: DeviceID?
    /// Optional feature flags to set in the header.
    public var optionalFlags: UInt32

    /// The SDK's name and version as exporter.
    public static let sdkName = "Glow Ritual SDK"
    /// The SDK's version.
    public static let sdkVersion = "0.1.0"

    /// Options; level 6 is zlib's balance of size and speed.
    public init(
        level: Int = 6, exporterName: String = BundleOptions.sdkName,
        exporterVersion: String = BundleOptions.sdkVersion,
        createdAt: Instant, deviceID: DeviceID? = nil, optionalFlags: UInt32 = 0
    ) {
        self.level = level
        self.exporterName = exporterName
        self.exporterVersion = exporterVersion
        self.createdAt = createdAt
        self.deviceID = deviceID
        self.optionalFlags = optionalFlags
    }
}

/// Writes bundles (BUNDLE-1 ... BUNDLE-9): header, one zlib stream of frames, trailer.
public enum BundleWriter {
    /// Streams `data` as a bundle to `output`, frame by frame: memory stays at one frame and
    /// zlib's window, whatever the data's size (BUNDLE-11).
    ///
    /// Only the profile, goals, check-ins and the person's `social` data (their friendships,
    /// reactions given and seen marker, BUNDLE-27) are written: credentials, password hashes and
    /// session tokens are not part of either and cannot reach a bundle (BUNDLE-12).
    ///
    /// `progress` hears, after each frame, how many frames are written of how many there are.
    public static func write(
        _ data: DataSet, social: SocialData? = nil, options: BundleOptions, to output: ([UInt8]) throws -> Void,
        progress: (_ written: Int, _ frames: Int) -> Void = { _, _ in }
    ) rethrows {
        let blocks = data.blocks
        let counts = RecordCounts(data, blocks: blocks.count, social: social)
        // The manifest, the profile, goals, blocks, the social data, other records, the end.
        let frames =
            2 + (data.profile == nil ? 0 : 1) + data.goals.count + blocks.count + (social == nil ? 0 : 1)
            + data.otherRecords.count
        var written = 0
        try output(BundleHeader(optionalFlags: options.optionalFlags).bytes)
        let deflater = Deflater(level: Int32(max(0, min(9, options.level))))
        var crc = CRC32()
        var uncompressed = 0
        var compressed = 0
        var batch: [UInt8] = []
        batch.reserveCapacity(64 * 1024)
        func emit(_ frame: BundleFrame, finish: Bool = false) throws {
            let bytes = frame.bytes
            crc.update(bytes)
            uncompressed += bytes.count
            batch += bytes
            if batch.count >= 64 * 1024 || finish {
                try deflater.compress(batch, finish: finish) { chunk in
                    compressed += chunk.count
                    try output(chunk)
                }
                batch.removeAll(keepingCapacity: true)
            }
            written += 1
            progress(written, frames)
        }
        try emit(
            .manifest(
                BundleManifest(
                    exporterName: options.exporterName, exporterVersion: options.exporterVersion,
                    createdAt: options.createdAt, deviceID: options.deviceID, counts: counts)))
        if let profile = data.profile { try emit(.profile(profile)) }
        for goal in data.sortedGoals { try emit(.goal(goal)) }
        for block in blocks { try emit(.checkIns(block)) }
        if let social { try emit(.social(social)) }
        for record in data.otherRecords { try emit(.other(record)) }
        try emit(.end(counts), finish: true)
        try output(BundleTrailer(uncompressedLength: uncompressed, compressedLength: compressed, crc: crc.value).bytes)
    }

    /// The uncompressed frames of `data`'s bundle, in the canonical order (BUNDLE-15): the
    /// manifest, the profile, goals by identifier, check-in blocks by goal, the social data,
    /// other records, the end.
    public static func frames(_ data: DataSet, social: SocialData? = nil, options: BundleOptions) -> [UInt8] {
        let blocks = data.blocks
        let counts = RecordCounts(data, blocks: blocks.count, social: social)
        var frames: [BundleFrame] = [
            .manifest(
                BundleManifest(
                    exporterName: options.exporterName, exporterVersion: options.exporterVersion,
                    createdAt: options.createdAt, deviceID: options.deviceID, counts: counts))
        ]
        if let profile = data.profile { frames.append(.profile(profile)) }
        frames += data.sortedGoals.map { .goal($0) }
        frames += blocks.map { .checkIns($0) }
        if let social { frames.append(.social(social)) }
        frames += data.otherRecords.map { .other($0) }
        frames.append(.end(counts))
        return frames.flatMap(\.bytes)
    }

    /// The bundle of `data` as bytes.
    public static func bundle(_ data: DataSet, social: SocialData? = nil, options: BundleOptions) -> [UInt8] {
        var bytes: [UInt8] = []
        write(data, social: social, options: options) { bytes += $0 }
        return bytes
    }
}

/// The 24-byte trailer (BUNDLE-8): uncompressed and compressed lengths (UInt64 LE), the CRC-32
/// of the uncompressed frames (UInt32 LE), and the end signature `GLWE`.
package struct BundleTrailer: Hashable {
    package static let size = 24
    static let signature: [UInt8] = Array("GLWE".utf8)

    var uncompressedLength: Int
    var compressedLength: Int
    var crc: UInt32

    var bytes: [UInt8] {
        littleEndian(UInt64(uncompressedLength), 8) + littleEndian(UInt64(compressedLength), 8)
            + littleEndian(UInt64(crc), 4) + Self.signature
    }

    init(uncompressedLength: Int, compressedLength: Int, crc: UInt32) {
        self.uncompressedLength = uncompressedLength
        self.compressedLength = compressedLength
        self.crc = crc
    }

    /// Reads a trailer, or nil when the bytes do not end with the signature.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == Self.size, Array(bytes[20..<24]) == Self.signature else { return nil }
        uncompressedLength = Int(clamping: readLittleEndian(bytes, 0, 8))
        compressedLength = Int(clamping: readLittleEndian(bytes, 8, 8))
        crc = UInt32(readLittleEndian(bytes, 16, 4))
    }
}
