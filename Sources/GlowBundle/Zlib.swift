import CZlib
import GlowModel
import GlowWire

/// Streaming zlib (RFC 1950) compression and decompression, and CRC-32, over Debian's zlib.
///
/// All C interop of the bundle code is in this file. Each stream owns one `z_stream` on the heap
/// for its lifetime, so its address is stable as zlib requires.
package final class Deflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    /// A compressor at `level` (0...9) and zlib `strategy` (Z_DEFAULT_STRATEGY, Z_FILTERED, ...).
    package init(level: Int32, strategy: Int32 = Z_DEFAULT_STRATEGY) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, MAX_WBITS, 8, strategy, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not start a compressor (\(status))")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input`, handing compressed bytes to `output` as they are produced; `finish`
    /// ends the stream.
    package func compress(_ input: [UInt8], finish: Bool = false, output: ([UInt8]) throws -> Void) rethrows {
        precondition(!finished, "the compressor has already finished")
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        try input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = UInt32(target.count)
                    let status = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    return (status, target.count - Int(stream.pointee.avail_out))
                }
                precondition(status != Z_STREAM_ERROR, "zlib compressor state is broken")
                if produced > 0 { try output(Array(chunk[0..<produced])) }
                if finish {
                    if status == Z_STREAM_END { break }
                } else if stream.pointee.avail_in == 0 && produced < chunk.count {
                    break
                }
            }
            stream.pointee.next_in = nil
        }
        if finish { finished = true }
    }
}

/// A streaming decompressor that stops at the end of the first zlib stream.
package final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the zlib stream has ended.
    package private(set) var ended = false
    /// Compressed bytes consumed so far.
    package var consumed: Int { Int(stream.pointee.total_in) }
    /// Decompressed bytes produced so far.
    package var produced: Int { Int(stream.pointee.total_out) }

    package enum Failure: Error {
        /// The compressed bytes are not a valid zlib stream.
        case corrupt(String)
    }

    package init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit_(stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not start a decompressor (\(status))")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Feeds compressed `input`, handing decompressed bytes to `output` in chunks of at most
    /// `chunkSize` (so a caller can stop a bomb after any chunk). Returns how many input bytes were
    /// used: fewer than given when the stream ended inside `input`.
    package func decompress(_ input: ArraySlice<UInt8>, chunkSize: Int = 64 * 1024, output: ([UInt8]) throws -> Void)
        throws -> Int
    {
        guard !ended, !input.isEmpty else { return 0 }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        let before = consumed
        try input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = UInt32(source.count)
            defer { stream.pointee.next_in = nil }
            while true {
                let (status, count) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = UInt32(target.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.pointee.avail_out))
                }
                if count > 0 { try output(Array(chunk[0..<count])) }
                switch status {
                case Z_STREAM_END:
                    ended = true
                    return
                case Z_OK:
                    if stream.pointee.avail_in == 0 && count < chunk.count { return }
                case Z_BUF_ERROR:
                    return  // needs more input
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                    throw Failure.corrupt(message)
                }
            }
        }
        return consumed - before
    }
}

/// CRC-32 (ISO 3309, as zlib, gzip and PNG compute it), updated incrementally.
package struct CRC32: Sendable {
    package private(set) var value: UInt32 = 0

    package init() {}

    package mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            value = UInt32(crc32(UInt(value), buffer.baseAddress, UInt32(buffer.count)))
        }
        if done == nil { update(Array(bytes)) }
    }

    package static func of(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
