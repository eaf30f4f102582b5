/// Creates time-ordered UUIDv7 identifiers (RFC 9562, section 5.7) from an injectable clock and
/// random source, so tests and the corpus get the same identifiers every run (MODEL-16).
///
/// Layout: 48 bits of Unix milliseconds, version 7, 12 random bits (`rand_a`), variant `10`,
/// 62 random bits (`rand_b`). Identifiers made within one millisecond by one generator keep
/// increasing: `rand_a` is used as a counter seeded from the random source (RFC 9562 method 1),
/// and when it would overflow the timestamp is advanced by one millisecond.
public struct UUIDv7Generator: Sendable {
    private let clock: @Sendable () -> Instant
    private var random: any RandomNumberGenerator & Sendable
    private var lastMillis: Int64 = .min
    private var lastCounter: UInt64 = 0

    /// A generator over the system clock and the system's random source.
    public init() {
        self.init(clock: { Instant.now }, random: SystemRandomNumberGenerator())
    }

    /// A generator over the given clock and random source.
    public init(clock: @escaping @Sendable () -> Instant, random: some RandomNumberGenerator & Sendable) {
        self.clock = clock
        self.random = random
    }

    /// A new identifier of any kind; strictly greater than every one this generator made before.
    public mutating func next<Kind: IdentifierKind>(_ kind: Identifier<Kind>.Type = Identifier<Kind>.self)
        -> Identifier<Kind>
    {
        var millis = Swift.max(clock().millisecondsSince1970, 0) & 0xFFFF_FFFF_FFFF
        var counter: UInt64
        if millis <= lastMillis {
            millis = lastMillis
            counter = lastCounter + 1
            if counter > 0xFFF {
                millis += 1
                counter = random.next() & 0x7FF  // leave headroom so the counter rarely overflows twice
            }
        } else {
            counter = random.next() & 0x7FF
        }
        lastMillis = millis
        lastCounter = counter
        return Self.make(unixMillis: millis, randA: counter, randB: random.next())
    }

    /// The UUIDv7 with exactly these fields; the corpus uses it to pin the bit layout.
    public static func make<Kind: IdentifierKind>(unixMillis: Int64, randA: UInt64, randB: UInt64)
        -> Identifier<Kind>
    {
        let high = UInt64(truncatingIfNeeded: unixMillis) << 16 | 0x7000 | (randA & 0xFFF)
        let low = 0x8000_0000_0000_0000 | (randB & 0x3FFF_FFFF_FFFF_FFFF)
        return Identifier(high: high, low: low)
    }
}
