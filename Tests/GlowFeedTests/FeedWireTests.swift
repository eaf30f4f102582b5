import GlowModel
import GlowWire
import Testing

@testable import GlowFeed

/// The feed's messages (FEED-28, FEED-29) over random histories: what the corpus shows case by
/// case, here for every kind of register at once.
@Suite("Feed messages")
struct FeedWireTests {
    @Test("a replica reads back equal from its bytes, and equal replicas have equal bytes", arguments: 0..<30)
    func roundTrip(seed: UInt64) throws {
        let replicas = try FeedReplicaTests.replicas(seed: seed)
        var whole = replicas[0]
        whole.merge(replicas[1])
        whole.merge(replicas[2])
        var otherWay = replicas[2]
        otherWay.merge(replicas[0])
        otherWay.merge(replicas[1])
        let bytes = whole.wireEncoded()
        #expect(bytes == otherWay.wireEncoded(), "merged in another order, the same bytes")
        let back = try FeedReplica(wire: bytes)
        #expect(back == whole)
        #expect(back.wireEncoded() == bytes)
        // A delta's bytes split anywhere between registers and read as two merge like the replicas.
        let first = try FeedReplica(wire: replicas[0].wireEncoded() + replicas[1].wireEncoded())
        var expected = replicas[0]
        expected.merge(replicas[1])
        #expect(first == expected)
    }

    @Test("every prefix of a replica's bytes is read or refused with a typed error, never trapping")
    func prefixes() throws {
        let replicas = try FeedReplicaTests.replicas(seed: 7)
        let bytes = replicas[0].wireEncoded()
        var refused = 0
        for end in 0..<bytes.count {
            do {
                _ = try FeedReplica(wire: Array(bytes[..<end]))
            } catch {
                refused += 1
                #expect(error.offset <= end)
            }
        }
        #expect(refused > bytes.count / 2, "most cuts fall inside a register")
    }

    @Test("the relay's answers in bytes are its typed answers")
    func relayInBytes() throws {
        let relay = FeedRelay()
        let stamp = try Stamp(wall: 5, counter: 0, device: "ana1")
        var mine = FeedReplica()
        mine.writeStance(.want, from: "ana", to: "bob", at: stamp)
        mine.writeVisibility(.public, owner: "ana", goal: "g1", at: stamp)
        let submitted = relay.handle(RelayRequest.submit(mine).wireEncoded(), from: "ana", now: 1_000)
        #expect(try RelayResponse(wire: submitted) == .submitted(2))
        let asked = relay.handle(RelayRequest.changes(since: 0).wireEncoded(), from: "bob", now: 1_001)
        let direct = try relay.changes(for: "bob", since: 0)
        #expect(try RelayResponse(wire: asked) == .changes(direct.delta, cursor: direct.cursor))
        let refused = relay.respond(to: RelayRequest.submit(mine).wireEncoded(), from: "bob", now: 1_002)
        guard case .error(let code, let message, let rule) = refused else {
            Issue.record("bob sent ana's writes and was not refused: \(refused)")
            return
        }
        #expect(code == "not_author" && rule == "FEED-25" && !message.isEmpty)
        #expect(try RelayResponse(wire: refused.wireEncoded()) == refused)
        #expect(try relay.changes(for: "cat", since: 0).cursor == 2, "the refused submit changed nothing")
    }
}
