import CZlib
import Foundation

/// zlib alone, for the baselines: the size of JSON deflated at a level, and the time to inflate
/// a bundle's stream without reading its frames.
func deflated(_ bytes: [UInt8], level: Int32) -> Int {
    var size = compressBound(UInt(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(size))
    let status = output.withUnsafeMutableBufferPointer { target in
        bytes.withUnsafeBufferPointer { source in
            compress2(target.baseAddress, &size, source.baseAddress, UInt(bytes.count), level)
        }
    }
    precondition(status == Z_OK)
    return Int(size)
}

func inflatedSize(_ stream: [UInt8]) -> Int {
    var z = z_stream()
    precondition(inflateInit_(&z, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK)
    defer { inflateEnd(&z) }
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var total = 0
    stream.withUnsafeBufferPointer { source in
        z.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
        z.avail_in = UInt32(source.count)
        while true {
            let status = chunk.withUnsafeMutableBufferPointer { target -> Int32 in
                z.next_out = target.baseAddress
                z.avail_out = UInt32(target.count)
                return inflate(&z, Z_NO_FLUSH)
            }
            total += chunk.count - Int(z.avail_out)
            if status != Z_OK { break }
        }
    }
    return total
}
