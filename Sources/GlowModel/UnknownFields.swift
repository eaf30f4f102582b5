/// Fields a newer writer added that this version does not know, kept byte for byte so that
/// re-exporting the value loses nothing (MODEL-49).
///
/// The bytes are complete Protocol Buffers fields (tag and payload) in the order they were read.
/// Only the binary format fills and re-emits them; JSON never carries them (MODEL-44). Two values
/// that differ only in unknown fields are different values.
public struct UnknownFields: Hashable, Sendable {
    /// The raw fields, in order.
    public var bytes: [UInt8]

    /// No unknown fields.
    public init() {
        bytes = []
    }

    /// These raw fields.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether there are none.
    @inlinable public var isEmpty: Bool { bytes.isEmpty }
}
