import GlowCore

/// The one error type GlowWire throws: a stable code, the byte offset where decoding stopped,
/// and a message a person can act on.
public struct WireError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<WireError>

    /// What kind of problem this is.
    public let code: Code
    /// The byte offset in the input where the problem was found.
    public let offset: Int
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    package init(_ code: Code, at offset: Int, _ message: String, rule: String? = nil) {
        self.code = code
        self.offset = offset
        self.message = message
        self.rule = rule
    }

    /// `at offset 12`: where decoding stopped.
    public var location: String? { "at offset \(offset)" }
}

/// Bounds that every decode enforces, so hostile input can neither crash the reader nor make it
/// allocate more than the input justifies (WIRE-13, WIRE-14).
public struct WireLimits: Hashable, Sendable {
    /// The largest input accepted, in bytes.
    public var maxMessageSize: Int
    /// How deeply messages may nest.
    public var maxDepth: Int
    /// The most check-ins one `CheckInBlock` may hold; checked against its `count` and against
    /// every column as it grows, before anything is built for them (WIRE-25).
    public var maxCheckInsPerBlock: Int
    /// The most fields a schema-less field tree may hold (WIRE-26).
    public var maxRawNodes: Int

    /// 64 MiB, 64 levels, 100,000 check-ins per block (a daily habit kept for 273 years) and
    /// 1,000,000 fields per raw tree.
    public static let `default` = WireLimits(maxMessageSize: 64 << 20, maxDepth: 64)

    /// Custom limits.
    public init(maxMessageSize: Int, maxDepth: Int, maxCheckInsPerBlock: Int = 100_000, maxRawNodes: Int = 1_000_000) {
        self.maxMessageSize = maxMessageSize
        self.maxDepth = maxDepth
        self.maxCheckInsPerBlock = maxCheckInsPerBlock
        self.maxRawNodes = maxRawNodes
    }
}

extension ErrorCode where Domain == WireError {
    /// The input ends inside a field, or a length points past the end (WIRE-9).
    public static var truncated: Self { Self("truncated") }
    /// A varint longer than 10 bytes, or whose 10th byte overflows 64 bits (WIRE-10).
    public static var malformedVarint: Self { Self("malformed_varint") }
    /// Field number 0 or above 2^29 − 1 (WIRE-11).
    public static var invalidFieldNumber: Self { Self("invalid_field_number") }
    /// Wire type 3, 4, 6 or 7, or a known field with the wrong wire type (WIRE-12).
    public static var invalidWireType: Self { Self("invalid_wire_type") }
    /// Messages nested deeper than the limit (WIRE-13).
    public static var depthLimit: Self { Self("depth_limit") }
    /// The input is larger than the message-size limit (WIRE-14).
    public static var limitExceeded: Self { Self("limit_exceeded") }
    /// A string field that is not valid UTF-8 (WIRE-15).
    public static var invalidUTF8: Self { Self("invalid_utf8") }
    /// A well-formed field whose value the model refuses: a Day out of range, an identifier
    /// that is not 16 bytes, an unknown enum value in a set, a goal that breaks its rules (WIRE-16).
    public static var invalidValue: Self { Self("invalid_value") }
}
