/// Fields a newer writer added that this version does not know, kept byte for byte so that
/// re-exporting the value loses nothing (MODEL-49).
///
/// The bytes are complete Protocol Buffers fields (tag and payload) in the order they were read.
/// Enum values this version names no case for are kept apart, by field number: `glow.proto` is
/// proto3, whose enums are open, so such a value stays in its field and is written back in its
/// place (WIRE-7), while the model sees the field's default. Only the binary format fills and
/// re-emits them; JSON never carries them (MODEL-44). Two values that differ only in unknown
/// fields are different values.
public struct UnknownFields: Hashable, Sendable {
    /// The raw fields, in order.
    public var bytes: [UInt8]
    /// Values of enum fields that name no case of this version, by field number.
    package var enumValues: [UInt32: UInt64] = [:]

    /// No unknown fields.
    public init() {
        bytes = []
    }

    /// These raw fields.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether there are none.
    public var isEmpty: Bool { bytes.isEmpty && enumValues.isEmpty }
}
