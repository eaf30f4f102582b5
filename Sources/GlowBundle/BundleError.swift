import GlowCore
import GlowModel
import GlowWire

/// The one error type of bundle reading: a stable code, where the problem is, and a message a
/// person can act on (BUNDLE-13). A ``CodedError`` like every error of the SDK.
public struct BundleError: CodedError {
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
        /// The encryption envelope around a bundle (BUNDLE-29 ... BUNDLE-35); the offset counts
        /// from the start of the encrypted file.
        case envelope
    }

    /// A stable code, as the corpus spells it: `bad_magic`, ..., or a record's wire code
    /// (`invalid_value`).
    public typealias Code = ErrorCode<BundleError>

    /// What kind of problem this is.
    public let code: Code
    /// The part of the file.
    public let section: Section
    /// The byte offset within ``section``.
    public let offset: Int
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?
    /// For a record error: the record's own error, its offset counted within the frame.
    public let recordError: WireError?

    package init(
        _ code: Code, _ section: Section, at offset: Int, _ message: String, rule: String? = nil,
        recordError: WireError? = nil
    ) {
        self.code = code
        self.section = section
        self.offset = offset
        self.message = message
        self.rule = rule
        self.recordError = recordError
    }

    /// `in the frames at offset 12`.
    public var location: String? { "in the \(section.rawValue) at offset \(offset)" }
}

extension ErrorCode where Domain == BundleError {
    /// Key-derivation parameters outside the caps a reader accepts (BUNDLE-30).
    public static var kdfOutOfRange: Self { Self("kdf_out_of_range") }
    /// The key derivation asks for more memory than the reader's budget (BUNDLE-30): refused
    /// before any work, the message naming the memory asked for.
    public static var kdfOverBudget: Self { Self("kdf_over_budget") }
    /// A key derivation within the caps that this machine could not run, for want of memory
    /// (BUNDLE-30): not the secret's fault.
    public static var kdfFailed: Self { Self("kdf_failed") }
    /// An encrypted bundle's header that breaks its shape (BUNDLE-31).
    public static var malformedHeader: Self { Self("malformed_header") }
    /// The passphrase does not open the file (BUNDLE-34).
    public static var wrongPassphrase: Self { Self("wrong_passphrase") }
    /// The recovery key does not open the file (BUNDLE-34).
    public static var wrongRecoveryKey: Self { Self("wrong_recovery_key") }
    /// The file has no way in for the kind of secret given (no recovery key) (BUNDLE-34).
    public static var noSuchKey: Self { Self("no_such_key") }
    /// The header's MAC does not match: the header was changed (BUNDLE-32).
    public static var headerTampered: Self { Self("header_tampered") }
    /// A chunk that does not authenticate: changed, cut, moved or from another file (BUNDLE-33).
    public static var chunkTampered: Self { Self("chunk_tampered") }
    /// Recovery-key words that are not a recovery key (BUNDLE-35).
    public static var invalidRecoveryKey: Self { Self("invalid_recovery_key") }

    /// Not a Glow bundle (BUNDLE-1).
    public static var badMagic: Self { Self("bad_magic") }
    /// A format or reader version this reader cannot read (BUNDLE-3, BUNDLE-6).
    public static var unsupportedVersion: Self { Self("unsupported_version") }
    /// A required feature flag this reader does not know (BUNDLE-4).
    public static var unsupportedFeature: Self { Self("unsupported_feature") }
    /// A checksum, length or signature that does not match (BUNDLE-2, BUNDLE-7, BUNDLE-8).
    public static var checksumMismatch: Self { Self("checksum_mismatch") }
    /// The file ends early (BUNDLE-2, BUNDLE-5, BUNDLE-7, BUNDLE-8).
    public static var truncated: Self { Self("truncated") }
    /// Bytes after the trailer, or a second stream (BUNDLE-8).
    public static var trailingData: Self { Self("trailing_data") }
    /// A limit of BUNDLE-10 or BUNDLE-25.
    public static var limitExceeded: Self { Self("limit_exceeded") }
    /// A frame that breaks the frame rules (BUNDLE-5, BUNDLE-6, BUNDLE-9).
    public static var malformedFrame: Self { Self("malformed_frame") }
    /// A record identity seen twice (BUNDLE-14).
    public static var duplicateID: Self { Self("duplicate_id") }
    /// Another person's bundle (BUNDLE-20).
    public static var userMismatch: Self { Self("user_mismatch") }
    /// The import was cancelled; nothing was imported.
    public static var cancelled: Self { Self("cancelled") }
    /// The source of a streamed import failed (a file that could not be read, a connection
    /// that dropped); nothing was imported (BUNDLE-26).
    public static var readFailed: Self { Self("read_failed") }
    /// A record inside a frame that breaks a rule of the record format, with that format's
    /// code (BUNDLE-18); ``BundleError/recordError`` holds the record's own error.
    public static func record(_ code: WireError.Code) -> Self { Self(code.description) }
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
    /// The most bytes those records take together, each counted as its frame's length
    /// (BUNDLE-28): they are kept whole, so their number alone does not bound their memory.
    public var maxUnknownBytes: Int

    /// 1 GiB files, 4 GiB uncompressed, 64 MiB frames; 1,000,000 frames, 4,000,000 check-ins
    /// (four times a person with 581 daily habits for five years), 100,000 per block, and
    /// 500,000 unknown records of 16 MiB together.
    public static let `default` = BundleLimits(
        maxBundleSize: 1 << 30, maxUncompressedSize: 4 << 30, maxFrameSize: 64 << 20)

    /// Custom limits; the record limits default to those of ``default``.
    public init(
        maxBundleSize: Int, maxUncompressedSize: Int, maxFrameSize: Int, maxFrames: Int = 1_000_000,
        maxCheckIns: Int = 4_000_000, maxCheckInsPerBlock: Int = 100_000, maxUnknownRecords: Int = 500_000,
        maxUnknownBytes: Int = 16 << 20
    ) {
        self.maxBundleSize = maxBundleSize
        self.maxUncompressedSize = maxUncompressedSize
        self.maxFrameSize = maxFrameSize
        self.maxFrames = maxFrames
        self.maxCheckIns = maxCheckIns
        self.maxCheckInsPerBlock = maxCheckInsPerBlock
        self.maxUnknownRecords = maxUnknownRecords
        self.maxUnknownBytes = maxUnknownBytes
    }

    /// The limits a frame's record is decoded with.
    var wire: WireLimits {
        WireLimits(
            maxMessageSize: Swift.max(maxFrameSize, 0), maxDepth: WireLimits.default.maxDepth,
            maxCheckInsPerBlock: maxCheckInsPerBlock)
    }
}
