/// The one error type of bundle reading: a stable code, where the problem is, and a message a
/// person can act on (BUNDLE-13).
public struct BundleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which part of the file the offset counts in.
    public enum Section: String, Hashable, Sendable {
        /// The fixed header; the offset counts from the start of the file.
        case header
        /// The compressed stream; the offset counts from the start of the file.
        case stream
        /// The uncompressed frames; the offset counts from the first uncompressed byte.
        case frames
        /// The trailer and anything after it; the offset counts from the start of the file.
        case trailer
    }

    /// The stable code: `bad_magic`, `unsupported_version`, `unsupported_feature`,
    /// `checksum_mismatch`, `truncated`, `trailing_data`, `limit_exceeded`, `malformed_frame`,
    /// `duplicate_id`, `user_mismatch`, or a record error of ``WireError`` (`invalid_value`, ...).
    public let code: String
    /// The part of the file.
    public let section: Section
    /// The byte offset within ``section``.
    public let offset: Int
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    package init(_ code: String, _ section: Section, at offset: Int, _ message: String, rule: String? = nil) {
        self.code = code
        self.section = section
        self.offset = offset
        self.message = message
        self.rule = rule
    }

    /// `code in section at offset N: message [rule]`.
    public var description: String {
        "\(code) in the \(section.rawValue) at offset \(offset): \(message)" + (rule.map { " [\($0)]" } ?? "")
    }
}

/// Bounds every bundle read enforces, so a hostile or damaged file fails fast with little memory
/// and little work (BUNDLE-10, BUNDLE-25).
public struct BundleLimits: Hashable, Sendable {
    /// The largest file accepted, in bytes.
    public var maxBundleSize: Int
    /// The most uncompressed bytes inflated, counted while inflating (never read from the file).
    public var maxUncompressedSize: Int
    /// The largest single frame.
    public var maxFrameSize: Int
    /// The most frames of any type, the manifest and the end frame included.
    public var maxFrames: Int
    /// The most check-ins in all blocks together.
    public var maxCheckIns: Int
    /// The most check-ins in one block (the wire limit of WIRE-25).
    public var maxCheckInsPerBlock: Int
    /// The most records of types this version does not know.
    public var maxUnknownRecords: Int

    /// 1 GiB files, 4 GiB uncompressed, 64 MiB frames; 1,000,000 frames, 4,000,000 check-ins
    /// (four times a person with 581 daily habits for five years), 100,000 per block, and
    /// 500,000 unknown records.
    public static let `default` = BundleLimits(
        maxBundleSize: 1 << 30, maxUncompressedSize: 4 << 30, maxFrameSize: 64 << 20)

    /// Custom limits; the record limits default to those of ``default``.
    public init(
        maxBundleSize: Int, maxUncompressedSize: Int, maxFrameSize: Int, maxFrames: Int = 1_000_000,
        maxCheckIns: Int = 4_000_000, maxCheckInsPerBlock: Int = 100_000, maxUnknownRecords: Int = 500_000
    ) {
        self.maxBundleSize = maxBundleSize
        self.maxUncompressedSize = maxUncompressedSize
        self.maxFrameSize = maxFrameSize
        self.maxFrames = maxFrames
        self.maxCheckIns = maxCheckIns
        self.maxCheckInsPerBlock = maxCheckInsPerBlock
        self.maxUnknownRecords = maxUnknownRecords
    }

    /// The limits a frame's record is decoded with.
    var wire: WireLimits {
        WireLimits(
            maxMessageSize: Swift.max(maxFrameSize, 0), maxDepth: WireLimits.default.maxDepth,
            maxCheckInsPerBlock: maxCheckInsPerBlock)
    }
}
