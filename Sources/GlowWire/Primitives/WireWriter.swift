/// Writes the Protocol Buffers wire format into one growing buffer (WIRE-1 ... WIRE-4).
///
/// Nested messages reserve one byte for their length and move their body only when the length
/// needs more, so encoding allocates nothing per field.
package struct WireWriter: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    @inline(__always) package mutating func tag(_ field: UInt32, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    /// The number of bytes `value` takes as a varint.
    @inline(__always) package static func varintSize(_ value: UInt64) -> Int {
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    // MARK: Singular fields, omitted at their default (WIRE-2)

    package mutating func uint(_ field: UInt32, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// An enum field: the model's case number, or, while the model holds the field's default, a
    /// number read earlier that this version names no case for (WIRE-7, proto3's open enums).
    package mutating func enumeration(_ field: UInt32, _ number: UInt64, open: [UInt32: UInt64]) {
        if number == 0, let kept = open[field] {
            presentUInt(field, kept)
        } else {
            uint(field, number)
        }
    }

    package mutating func sint(_ field: UInt32, _ value: Int64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(zigzag(value))
    }

    package mutating func bool(_ field: UInt32, _ value: Bool) {
        guard value else { return }
        tag(field, .varint)
        varint(1)
    }

    package mutating func string(_ field: UInt32, _ value: String) {
        guard !value.isEmpty else { return }
        presentString(field, value)
    }

    package mutating func bytes(_ field: UInt32, _ value: some Collection<UInt8>) {
        guard !value.isEmpty else { return }
        presentBytes(field, value)
    }

    // MARK: Fields with presence (oneof members, `optional`): written even at their default

    package mutating func presentUInt(_ field: UInt32, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    package mutating func presentSInt(_ field: UInt32, _ value: Int64) {
        tag(field, .varint)
        varint(zigzag(value))
    }

    package mutating func presentString(_ field: UInt32, _ value: String) {
        var value = value
        value.withUTF8 { presentBytes(field, $0) }
    }

    package mutating func presentBytes(_ field: UInt32, _ value: some Collection<UInt8>) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends raw bytes that are already encoded fields (unknown fields, WIRE-7).
    package mutating func raw(_ value: [UInt8]) {
        bytes.append(contentsOf: value)
    }

    // MARK: Nested and packed

    /// A length-delimited field whose body `body` writes; always written (sub-messages that are
    /// present, even empty, keep their presence).
    package mutating func message(_ field: UInt32, _ body: (inout WireWriter) -> Void) {
        tag(field, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        // The length needs more than the one byte reserved: make room and move the body once.
        let size = WireWriter.varintSize(UInt64(length))
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthAt + 1)
        var value = UInt64(length)
        for index in 0..<size {
            bytes[lengthAt + index] = UInt8(truncatingIfNeeded: value) | (index < size - 1 ? 0x80 : 0)
            value >>= 7
        }
    }

    /// A packed repeated varint field (values already zigzagged where the field is `sint`);
    /// omitted when empty (WIRE-4). The size is computed first, so the body is written once
    /// into reserved space.
    package mutating func packed(_ field: UInt32, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var size = 0
        for value in values { size += WireWriter.varintSize(value) }
        tag(field, .lengthDelimited)
        varint(UInt64(size))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: size))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var offset = start
            for var value in values {
                while value >= 0x80 {
                    buffer[offset] = UInt8(truncatingIfNeeded: value) | 0x80
                    value >>= 7
                    offset += 1
                }
                buffer[offset] = UInt8(value)
                offset += 1
            }
        }
    }
}
