import GlowCore
import GlowModel
import Testing

@testable import GlowFeed
@testable import GlowRelay

/// The relay's change log: compacting it changes no answer, and it stays within twice the
/// registers it names however often they are written (FEED-27).
@Suite("Feed relay log")
struct FeedRelayLogTests {
    /// A store whose state the test can read.
    final class OpenStore: FeedRelayStore {
        let state = Locked(FeedRelayState())

        func update<T>(
            loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
            _ body: (inout FeedRelayState) throws(FeedError) -> T
        ) throws(FeedError) -> (result: T, sequence: UInt64)? {
            try state.withLock { (state) throws(FeedError) in (try body(&state), state.sequence) }
        }

        var snapshot: FeedRelayState { state.withLock { $0 } }
    }

    /// Random writes of four people on few registers, each person sending their own.
    static func relay(seed: UInt64, rounds: Int) throws -> OpenStore {
        let store = OpenStore()
        let relay = FeedRelay(store: store)
        var random = SeededRandom(seed: seed)
        for round in 0..<rounds {
            var replica = FeedReplica()
            try FeedReplicaTests.randomWrite(&random, wall: Int64(round))(&replica)
            for person in FeedReplicaTests.people {
                let mine = replica.authored(by: person, since: nil)
                guard mine != FeedReplica() else { continue }
                // A reaction on one's own item is refused (FEED-25); the rest is taken.
                _ = try? relay.submit(mine, from: person, now: Int64(round))
            }
        }
        return store
    }

    @Test("compacting the log changes no viewer's answer from any cursor", arguments: 0..<10)
    func compactionKeepsAnswers(seed: UInt64) throws {
        let state = try Self.relay(seed: seed, rounds: 60).snapshot
        #expect(state.log.count > Set(state.log.map(\.key)).count, "the log holds superseded entries to drop")
        var compacted = state
        compacted.compactLog()
        #expect(compacted.log.count == Set(state.log.map(\.key)).count)
        for viewer in FeedReplicaTests.people + ["stranger"] {
            for cursor in stride(from: UInt64(0), through: state.sequence, by: 3) {
                #expect(
                    FeedRelay.fanOut(compacted, to: viewer, since: cursor)
                        == FeedRelay.fanOut(state, to: viewer, since: cursor), "\(viewer) from \(cursor)")
            }
        }
    }

    @Test("the log stays within twice the registers it names")
    func bounded() throws {
        let state = try Self.relay(seed: 99, rounds: 3_000).snapshot
        #expect(state.sequence > 1_000, "many more writes than registers")
        #expect(state.log.count < 2 * state.sequences.count + 64)
    }
}
