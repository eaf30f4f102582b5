/// The four wire types GlowWire reads and writes; groups (3, 4) and 6, 7 are refused (WIRE-12).
package enum WireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case fixed32 = 5
}

/// Zigzag mapping of signed integers to unsigned ones, so small negatives stay small (WIRE-3).
@inline(__always) package func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
}

/// The inverse of ``zigzag(_:)``.
@inline(__always) package func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
}
