/// Reads the Protocol Buffers wire format from borrowed bytes, checking every length against the
/// bytes left before anything is allocated (WIRE-5, WIRE-9 ... WIRE-15).
///
/// All unsafe access of GlowWire is in this file: the reader borrows the caller's buffer for the
/// duration of one decode, and reads multi-byte values with `loadUnaligned`.
package struct WireReader {
    private let buffer: UnsafeRawBufferPointer
    /// Absolute offset of the next byte, so errors point into the original input.
    package private(set) var offset: Int
    /// Absolute offset one past the last byte of the current message.
    package private(set) var end: Int
    package let limits: WireLimits
    package let depth: Int

    /// One field's key: its number, wire type and where its tag began.
    package struct Field {
        package let number: UInt32
        package let type: WireType
        package let start: Int
    }

    /// Runs `body` with a reader over `bytes`, after checking the size limit (WIRE-14).
    package static func read<T>(
        _ bytes: UnsafeRawBufferPointer, limits: WireLimits, _ body: (inout WireReader) throws(WireError) -> T
    ) throws(WireError) -> T {
        guard bytes.count <= limits.maxMessageSize else {
            throw WireError(
                .limitExceeded, at: 0, "the input is \(bytes.count) bytes; the limit is \(limits.maxMessageSize)",
                rule: "WIRE-14")
        }
        var reader = WireReader(buffer: bytes, offset: 0, end: bytes.count, limits: limits, depth: 0)
        return try body(&reader)
    }

    /// Runs `body` on a reader over `bytes`: the one way modules outside the codec read fields,
    /// so the pointer work stays here.
    package static func read<T>(
        _ bytes: ArraySlice<UInt8>, limits: WireLimits, _ body: (inout WireReader) throws(WireError) -> T
    ) throws(WireError) -> T {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(WireError) in try read(buffer, limits: limits, body) }
        }.get()
    }

    private init(buffer: UnsafeRawBufferPointer, offset: Int, end: Int, limits: WireLimits, depth: Int) {
        self.buffer = buffer
        self.offset = offset
        self.end = end
        self.limits = limits
        self.depth = depth
    }

    package var isAtEnd: Bool { offset >= end }

    /// Narrows the reader to an absolute range inside the current message (packed fields).
    package mutating func restrict(to range: Range<Int>) {
        offset = range.lowerBound
        end = range.upperBound
    }

    @inline(__always) private func byte(at index: Int) -> UInt8 {
        buffer.loadUnaligned(fromByteOffset: index, as: UInt8.self)
    }

    /// A varint of at most 10 bytes whose value fits 64 bits (WIRE-10).
    @inline(__always) package mutating func varint() throws(WireError) -> UInt64 {
        // Most varints of a check-in block are one byte: Day gaps, log types, references.
        if offset < end {
            let first = byte(at: offset)
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
        }
        return try longVarint()
    }

    /// The varints of the packed run `range` (inside the current message), transformed, as a new
    /// array: at most one value per byte, written in place without a check per append.
    package func packedRun<T>(_ range: Range<Int>, _ transform: (UInt64) -> T) throws(WireError) -> [T] {
        var inner = self
        inner.restrict(to: range)
        var failure: WireError?
        let values = [T](unsafeUninitializedCapacity: range.count) { buffer, count in
            while !inner.isAtEnd {
                do throws(WireError) {
                    buffer.initializeElement(at: count, to: transform(try inner.varint()))
                    count += 1
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return values
    }

    /// A varint of two or more bytes, or the errors of a truncated or overlong one.
    private mutating func longVarint() throws(WireError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else {
                throw WireError(.truncated, at: start, "the input ends inside a varint", rule: "WIRE-9")
            }
            let next = byte(at: offset)
            offset += 1
            if shift == 63 && next > 1 {
                throw WireError(.malformedVarint, at: start, "the varint overflows 64 bits", rule: "WIRE-10")
            }
            result |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return result }
            shift += 7
            if shift > 63 {
                throw WireError(.malformedVarint, at: start, "the varint is longer than 10 bytes", rule: "WIRE-10")
            }
        }
    }

    /// The next field's key, or nil at the end of the message (WIRE-11, WIRE-12).
    package mutating func next() throws(WireError) -> Field? {
        guard offset < end else { return nil }
        let start = offset
        let key = try varint()
        let number = key >> 3
        guard number >= 1, number <= (1 << 29) - 1 else {
            throw WireError(
                .invalidFieldNumber, at: start, "field number \(number) is outside 1 ... 536870911", rule: "WIRE-11")
        }
        guard let type = WireType(rawValue: UInt8(key & 7)) else {
            throw WireError(
                .invalidWireType, at: start, "wire type \(key & 7) is not supported (groups and 6, 7 are refused)",
                rule: "WIRE-12")
        }
        return Field(number: UInt32(number), type: type, start: start)
    }

    package mutating func fixed64() throws(WireError) -> UInt64 {
        try need(8)
        defer { offset += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    package mutating func fixed32() throws(WireError) -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    private func need(_ count: Int) throws(WireError) {
        guard end - offset >= count else {
            throw WireError(
                .truncated, at: offset, "\(count) bytes are needed, \(end - offset) are left", rule: "WIRE-9")
        }
    }

    /// The absolute range of a length-delimited payload, checked against the bytes left (WIRE-9).
    package mutating func lengthDelimited() throws(WireError) -> Range<Int> {
        let start = offset
        let length = try varint()
        guard length <= UInt64(end - offset) else {
            throw WireError(
                .truncated, at: start, "a length of \(length) points past the end (\(end - offset) bytes left)",
                rule: "WIRE-9")
        }
        let range = offset..<(offset + Int(length))
        offset = range.upperBound
        return range
    }

    /// Skips the payload of `field`.
    package mutating func skip(_ field: Field) throws(WireError) {
        switch field.type {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .lengthDelimited: _ = try lengthDelimited()
        }
    }

    /// The bytes of an absolute range.
    package func bytes(_ range: Range<Int>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: buffer[range]))
    }

    /// Appends the bytes of an absolute range to `target`.
    package func append(_ range: Range<Int>, to target: inout [UInt8]) {
        target.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[range]))
    }

    /// The UTF-8 text of an absolute range (WIRE-15).
    package func string(_ range: Range<Int>) throws(WireError) -> String {
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self) else {
            throw WireError(.invalidUTF8, at: range.lowerBound, "a string is not valid UTF-8", rule: "WIRE-15")
        }
        return text
    }

    /// Reads a nested message with its own reader, one level deeper (WIRE-13).
    package mutating func nested<T>(_ body: (inout WireReader) throws(WireError) -> T) throws(WireError) -> T {
        let start = offset
        let range = try lengthDelimited()
        guard depth + 1 <= limits.maxDepth else {
            throw WireError(
                .depthLimit, at: start, "messages nest deeper than \(limits.maxDepth) levels", rule: "WIRE-13")
        }
        var inner = WireReader(
            buffer: buffer, offset: range.lowerBound, end: range.upperBound, limits: limits, depth: depth + 1)
        return try body(&inner)
    }
}
