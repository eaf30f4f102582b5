/// A small, fast random source that gives the same numbers for the same seed on every platform
/// (SplitMix64), for deterministic identifiers in tests, sample data and benchmarks.
///
/// Not for secrets: use `SystemRandomNumberGenerator` where unpredictability matters.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A source that starts from `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
