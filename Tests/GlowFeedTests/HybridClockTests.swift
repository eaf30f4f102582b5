import GlowFeed
import GlowRelay
import Testing

/// FEED-2 against FEED-25 (issue 59 item 2): no stamp the relay accepts can leave a device's clock
/// unable to stamp its own changes.
@Suite("A device's clock and the stamps the relay accepts")
struct HybridClockTests {
    /// A small seeded generator (SplitMix64), so a failing run can be run again.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A stamp the relay takes at its time `now` (FEED-25): wall times up to the skew ahead,
    /// counters up to 2^24, and the edges of both as often as anything between.
    static func accepted(at now: Int64, _ random: inout SplitMix) throws -> Stamp {
        let wall: Int64 =
            switch Int.random(in: 0..<4, using: &random) {
            case 0: now + Stamp.maximumAhead
            case 1: now
            case 2: Swift.max(0, now - Int64.random(in: 0...86_400_000, using: &random))
            default: now + Int64.random(in: 0...Stamp.maximumAhead, using: &random)
            }
        let counter: UInt32 =
            switch Int.random(in: 0..<4, using: &random) {
            case 0: Stamp.maximumAcceptedCounter
            case 1: Stamp.maximumTakenCounter
            case 2: Stamp.maximumTakenCounter + 1
            default: UInt32.random(in: 0...Stamp.maximumAcceptedCounter, using: &random)
            }
        return try Stamp(wall: wall, counter: Int64(counter), device: "other")
    }

    @Test(
        "every stamp the relay accepts is one the relay's check lets through, and none exhausts a clock",
        arguments: 1...8)
    func acceptedStampsNeverExhaust(seed: UInt64) throws {
        var random = SplitMix(state: seed)
        let relayNow: Int64 = 1_800_000_000_000
        for _ in 0..<200 {
            // A device whose own time is anywhere within the skew of the relay's.
            var now = relayNow + Int64.random(in: -Stamp.maximumAhead...Stamp.maximumAhead, using: &random)
            var clock = HybridClock(device: "mine")
            var last: Stamp?
            for _ in 0..<50 {
                let remote = try Self.accepted(at: relayNow, &random)
                // The relay takes it: a delta holding it is not refused for its stamp.
                var delta = FeedReplica()
                delta.writeStance(.want, from: "ana", to: "bob", at: remote)
                let relay = FeedRelay()
                #expect(throws: Never.self) { try relay.submit(delta, from: "ana", now: relayNow) }
                try clock.receive(remote, now: now)
                // Then a burst of the device's own changes in the same millisecond: every one is
                // stamped, each later than the last, and later than every stamp taken in.
                for _ in 0..<Int.random(in: 1...64, using: &random) {
                    let stamp = try clock.tick(now: now)
                    if let last { #expect(stamp > last) }
                    if remote.counter <= Stamp.maximumTakenCounter, remote.wall - now <= Stamp.maximumAhead {
                        #expect(stamp > remote)
                    }
                    last = stamp
                }
                // Its own stamps stay ones the relay accepts.
                #expect(clock.counter <= Stamp.maximumAcceptedCounter)
                now += Int64.random(in: 0...2, using: &random)
            }
        }
    }

    @Test("the relay refuses a counter above 2^24 whatever its wall time, and a clock does not take one above 2^16 in")
    func boundsAtTheirEdges() throws {
        let relay = FeedRelay()
        for (counter, refused) in [(Stamp.maximumAcceptedCounter, false), (Stamp.maximumAcceptedCounter + 1, true)] {
            var delta = FeedReplica()
            delta.writeStance(
                .want, from: "ana", to: "bob", at: try Stamp(wall: 10, counter: Int64(counter), device: "a"))
            if refused {
                let error = #expect(throws: FeedError.self) { try relay.submit(delta, from: "ana", now: 1_000) }
                #expect(error?.code == .stampAhead && error?.rule == "FEED-25")
            } else {
                #expect(throws: Never.self) { try relay.submit(delta, from: "ana", now: 1_000) }
            }
        }
        var clock = HybridClock(device: "mine")
        try clock.receive(
            try Stamp(wall: 5_000, counter: Int64(Stamp.maximumTakenCounter) + 1, device: "x"), now: 1_000)
        #expect(clock.wall == 0 && clock.counter == 0, "a counter above 2^16 is not taken in")
        try clock.receive(try Stamp(wall: 5_000, counter: Int64(Stamp.maximumTakenCounter), device: "x"), now: 1_000)
        #expect(clock.wall == 5_000 && clock.counter == Stamp.maximumTakenCounter + 1)
    }
}
