import GlowFeed
import GlowModel
import GlowRelay
import Testing

/// FEED-25's bound on a delta (issue 44 item 8): a relay takes at most 1,000 registers at once,
/// and a device's writes go in pieces it takes, none lost, none sent twice.
@Suite("Deltas in pieces")
struct DeltaPiecesTests {
    /// `count` visibility registers of ana's, each with a stamp of its own, and her seen marker.
    static func writes(_ count: Int) throws -> FeedReplica {
        var replica = FeedReplica()
        for index in 0..<count {
            replica.writeVisibility(
                .friends, owner: "ana", goal: "g\(index)",
                at: try Stamp(wall: 1_000 + Int64(index), counter: 0, device: "a"))
        }
        replica.markSeen("ana", upTo: 5)
        return replica
    }

    @Test("a relay refuses a delta of more than 1,000 registers first, and takes one of 1,000")
    func limit() throws {
        let relay = FeedRelay()
        #expect(throws: FeedError.self) { try relay.submit(try Self.writes(1_000), from: "ana", now: 2_000_000) }
        do {
            try relay.submit(try Self.writes(1_000), from: "bob", now: 2_000_000)
            Issue.record("1,001 registers of another's were taken")
        } catch {
            #expect((error as? FeedError)?.code == .tooManyWrites, "the count goes before authorship: \(error)")
        }
        #expect(try relay.submit(try Self.writes(999), from: "ana", now: 2_000_000) == 1_000)
    }

    @Test("2,500 writes go in three pieces the relay takes, oldest first, the seen marker last")
    func pieces() throws {
        let all = try Self.writes(2_500)
        let pieces = all.authoredPieces(by: "ana", since: nil)
        #expect(pieces.map(\.delta.registerCount) == [1_000, 1_000, 501])
        #expect(pieces.last?.delta.seen["ana"] == 5)
        // Each piece's watermark is its greatest stamp, and the next piece starts after it.
        for (piece, next) in zip(pieces, pieces.dropFirst()) {
            #expect(piece.through == piece.delta.latestStamp)
            let after = all.authoredPieces(by: "ana", since: piece.through).first?.delta
            #expect(
                after?.visibility.keys.sorted { $0.goal < $1.goal }
                    == next.delta.visibility.keys.sorted { $0.goal < $1.goal })
        }
        let relay = FeedRelay()
        for piece in pieces { try relay.submit(piece.delta, from: "ana", now: 2_000_000) }
        #expect(try relay.replica.visibility.count == 2_500)
    }

    @Test("registers of one stamp stay in one piece, so a watermark never splits them")
    func sameStamp() throws {
        var replica = FeedReplica()
        let stamp = try Stamp(wall: 7, counter: 0, device: "a")
        for goal in ["g1", "g2", "g3"] { replica.writeVisibility(.public, owner: "ana", goal: goal, at: stamp) }
        let pieces = replica.authoredPieces(by: "ana", since: nil, atMost: 2)
        #expect(pieces.map(\.delta.registerCount) == [3])
    }
}
