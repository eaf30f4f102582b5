import GlowModel
import GlowWire

/// The fixed 24-byte header of a bundle (BUNDLE-1 ... BUNDLE-4).
public struct BundleHeader: Hashable, Sendable {
    /// `\x89 G L W \r \n \x1a \n`: the high byte catches 7-bit channels, CR LF and LF catch newline
    /// translation either way, and `\x1a` stops a text-mode reader (the PNG design).
    public static let magic: [UInt8] = [0x89, 0x47, 0x4C, 0x57, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The header's size in bytes.
    public static let size = 24
    /// The format version this reader implements: 1.0.
    public static let currentMajor = 1
    /// The minor version this writer writes.
    public static let currentMinor = 0
    /// Required feature flags this reader understands (none are defined in 1.0).
    public static let knownRequiredFlags: UInt32 = 0

    /// The major version: a reader refuses another.
    public var major: Int
    /// The minor version: a reader accepts any.
    public var minor: Int
    /// Features a reader must understand to read the bundle.
    public var requiredFlags: UInt32
    /// Features a reader may ignore.
    public var optionalFlags: UInt32

    /// A header.
    public init(
        major: Int = BundleHeader.currentMajor, minor: Int = BundleHeader.currentMinor, requiredFlags: UInt32 = 0,
        optionalFlags: UInt32 = 0
    ) {
        self.major = major
        self.minor = minor
        self.requiredFlags = requiredFlags
        self.optionalFlags = optionalFlags
    }

    /// The 24 bytes: magic, major and minor (UInt16 LE), required and optional flags (UInt32 LE),
    /// CRC-32 of the first 20 bytes (UInt32 LE).
    public var bytes: [UInt8] {
        var out = Self.magic
        out += littleEndian(UInt64(major), 2) + littleEndian(UInt64(minor), 2)
        out += littleEndian(UInt64(requiredFlags), 4) + littleEndian(UInt64(optionalFlags), 4)
        out += littleEndian(UInt64(CRC32.of(out)), 4)
        return out
    }

    /// Parses and checks a header (BUNDLE-1 ... BUNDLE-4).
    public init(parsing bytes: [UInt8]) throws(BundleError) {
        guard bytes.count >= Self.magic.count, Array(bytes.prefix(8)) == Self.magic else {
            throw BundleError(
                .badMagic, .header, at: 0, "this is not a Glow bundle: \(BundleHeader.diagnose(bytes))",
                rule: "BUNDLE-1")
        }
        guard bytes.count >= Self.size else {
            throw BundleError(
                .truncated, .header, at: bytes.count, "the file ends inside the header", rule: "BUNDLE-2")
        }
        let stored = UInt32(readLittleEndian(bytes, 20, 4))
        guard CRC32.of(bytes[0..<20]) == stored else {
            throw BundleError(
                .checksumMismatch, .header, at: 20, "the header's CRC-32 does not match: the header is damaged",
                rule: "BUNDLE-2")
        }
        major = Int(readLittleEndian(bytes, 8, 2))
        minor = Int(readLittleEndian(bytes, 10, 2))
        requiredFlags = UInt32(readLittleEndian(bytes, 12, 4))
        optionalFlags = UInt32(readLittleEndian(bytes, 16, 4))
        guard major == Self.currentMajor else {
            throw BundleError(
                .unsupportedVersion, .header, at: 8,
                "format \(major).\(minor) is not readable by this version (it reads \(Self.currentMajor).x); update the app",
                rule: "BUNDLE-3")
        }
        let unknown = requiredFlags & ~Self.knownRequiredFlags
        guard unknown == 0 else {
            throw BundleError(
                .unsupportedFeature, .header, at: 12,
                "the bundle needs features this version does not have (required flags 0x\(String(unknown, radix: 16))); update the app",
                rule: "BUNDLE-4")
        }
    }

    /// Why bytes that are not a bundle might be what they are (BUNDLE-1).
    static func diagnose(_ bytes: [UInt8]) -> String {
        let head = Array(bytes.prefix(8))
        if head.isEmpty { return "the file is empty" }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return "it is a zip archive; unzip it and use the .glow file inside"
        }
        if head.starts(with: [0x1F, 0x8B]) { return "it is gzip-compressed; decompress it first (gunzip)" }
        if head.starts(with: BundleEnvelope.magic) {
            return "it is an encrypted bundle; open it with its passphrase or recovery key"
        }
        if head.starts(with: [0x89, 0x47, 0x4C, 0x57, 0x0A, 0x1A])
            || head.starts(with: [0x89, 0x47, 0x4C, 0x57, 0x0D, 0x0D])
        {
            return "it was damaged by newline translation (a text-mode transfer); copy it again in binary mode"
        }
        if head.starts(with: [0x09, 0x47, 0x4C, 0x57]) {
            return "its high bits were stripped by a 7-bit channel; send it as an attachment or in binary mode"
        }
        let text = bytes.prefix(512)
        if let first = text.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
            first == 0x7B || first == 0x5B
        {
            return "it looks like JSON; a JSON data set converts with `glow-tool convert IN.json OUT.glow`"
        }
        if text.allSatisfy({ (0x20..<0x7F).contains($0) || [0x09, 0x0A, 0x0D].contains($0) }) {
            return "it is plain text, not a bundle"
        }
        return "the first bytes are not the Glow signature 89 47 4C 57 0D 0A 1A 0A"
    }
}

func littleEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

func readLittleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64 {
    (0..<count).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}
