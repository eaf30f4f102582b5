import GlowCore

/// A hybrid logical clock's stamp (FEED-1): wall milliseconds, a counter, and the device that
/// made it, ordered in that order. No two devices share an id, so no two changes share a stamp.
public struct Stamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970, 0 ... 2^53 − 1.
    public let wall: Int64
    /// Changes within one millisecond, 0 ... 2^32 − 1.
    public let counter: UInt32
    /// The device that made the change.
    public let device: String

    /// The greatest wall time a stamp may carry.
    public static let maximumWall: Int64 = (1 << 53) - 1
    /// How far ahead of the receiver's physical time a stamp's wall time may be, in milliseconds:
    /// an hour of clock skew (FEED-2, FEED-25). A stamp further ahead is not taken in by a
    /// device's clock and is refused by the relay, so no stamp can exhaust a clock or outrun an
    /// erasure.
    public static let maximumAhead: Int64 = 3_600_000
    /// The greatest counter of a remote stamp a device's clock takes in (FEED-2): 2^16. No honest
    /// clock reaches more (it would take 65,536 changes in one millisecond), so a stamp with a
    /// greater one is a forger's, and taking it in would leave the clock that many steps nearer
    /// its end.
    public static let maximumTakenCounter: UInt32 = 1 << 16
    /// The greatest counter the relay accepts (FEED-25): 2^24, far above what a clock that took in
    /// ``maximumTakenCounter`` reaches with its own changes, so no honest write is refused, and
    /// far below the counter's end, so no accepted stamp can exhaust a clock that took it in.
    public static let maximumAcceptedCounter: UInt32 = 1 << 24

    /// A stamp.
    ///
    /// - Throws: ``FeedError/Code/invalidStamp`` outside FEED-1's ranges or without a device.
    public init(wall: Int64, counter: Int64, device: String) throws(FeedError) {
        guard (0...Self.maximumWall).contains(wall), (0...Int64(UInt32.max)).contains(counter), !device.isEmpty else {
            throw FeedError(
                .invalidStamp, "a stamp needs a wall time of 0 ... 2^53 − 1, a counter of 0 ... 2^32 − 1 and a device",
                rule: "FEED-1")
        }
        self.wall = wall
        self.counter = UInt32(counter)
        self.device = device
    }

    init(checkedWall wall: Int64, counter: UInt32, device: String) {
        self.wall = wall
        self.counter = counter
        self.device = device
    }

    /// Wall time, then counter, then device id as UTF-8 bytes.
    public static func < (a: Stamp, b: Stamp) -> Bool {
        if a.wall != b.wall { return a.wall < b.wall }
        if a.counter != b.counter { return a.counter < b.counter }
        return a.device.precedesInUTF8(b.device)
    }

    /// `wall.counter@device`.
    public var description: String { "\(wall).\(counter)@\(device)" }
}

/// One device's hybrid logical clock (FEED-2).
public struct HybridClock: Sendable, Hashable {
    /// The device whose clock this is.
    public let device: String
    /// The wall time of the last stamp given or received.
    public private(set) var wall: Int64 = 0
    /// The counter of the last stamp.
    public private(set) var counter: UInt32 = 0

    /// A clock for `device` that has stamped nothing.
    public init(device: String) {
        self.device = device
    }

    /// The stamp of a local change at physical time `now` (milliseconds since 1970).
    ///
    /// - Throws: ``FeedError/Code/invalidStamp`` for a time outside FEED-1;
    ///   ``FeedError/Code/clockExhausted`` when the counter would overflow.
    public mutating func tick(now: Int64) throws(FeedError) -> Stamp {
        guard (0...Stamp.maximumWall).contains(now) else {
            throw FeedError(.invalidStamp, "the physical time \(now) is outside 0 ... 2^53 − 1", rule: "FEED-1")
        }
        if now > wall {
            (wall, counter) = (now, 0)
        } else {
            counter = try Self.next(counter)
        }
        return Stamp(checkedWall: wall, counter: counter, device: device)
    }

    /// Takes in a stamp received from another device at physical time `now`, so that every later
    /// local stamp is greater than it.
    ///
    /// - Throws: as ``tick(now:)``.
    public mutating func receive(_ remote: Stamp, now: Int64) throws(FeedError) {
        guard (0...Stamp.maximumWall).contains(now) else {
            throw FeedError(.invalidStamp, "the physical time \(now) is outside 0 ... 2^53 − 1", rule: "FEED-1")
        }
        // FEED-2: a stamp more than the skew ahead of this device's time, or with a counter no
        // honest clock reaches, is not taken in, so no remote stamp can push the clock to the end
        // of its range, nor its counter near its end.
        guard remote.wall - now <= Stamp.maximumAhead, remote.counter <= Stamp.maximumTakenCounter else { return }
        if now > wall && now > remote.wall {
            (wall, counter) = (now, 0)
        } else if wall == remote.wall {
            counter = try Self.next(max(counter, remote.counter))
        } else if wall > remote.wall {
            counter = try Self.next(counter)
        } else {
            (wall, counter) = (remote.wall, try Self.next(remote.counter))
        }
    }

    private static func next(_ counter: UInt32) throws(FeedError) -> UInt32 {
        guard counter < UInt32.max else {
            throw FeedError(
                .clockExhausted, "four billion changes in one millisecond: the clock cannot go on", rule: "FEED-2")
        }
        return counter + 1
    }
}
