import GlowBundle

/// zlib alone, for the baselines: the size of JSON deflated at a level, and the time to inflate
/// a bundle's stream without reading its frames. Both go through the SDK's own zlib wrapper, so
/// the baseline and the bundle code use one binding.
func deflated(_ bytes: [UInt8], level: Int32) -> Int {
    var size = 0
    Deflater(level: level).compress(bytes, finish: true) { size += $0.count }
    return size
}

/// A stream that does not inflate is thrown: a time for half a stream would be no figure.
func inflatedSize(_ stream: [UInt8]) throws -> Int {
    var total = 0
    _ = try Inflater().decompress(stream[...]) { total += $0.count }
    return total
}
