import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowWire

/// The `feed` target: the feed's messages as a relay receives them from strangers (FEED-28 ...
/// FEED-31). The first byte picks a decoder, or hands the rest to a relay as one request, from
/// a stranger or from a person whose account was deleted.
enum FeedHarness {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard let selector = input.first else { return }
        let body = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        switch selector % 6 {
        case 0: Harness.roundTrip(FeedReplica.self, body)
        case 1: Harness.roundTrip(RelayRequest.self, body)
        case 2: Harness.roundTrip(RelayResponse.self, body)
        case 3: Harness.roundTrip(SocialData.self, body)
        case 4: relay(Array(body))
        default: erased(Array(body))
        }
    }

    /// One request from ana after her account's deletion (FEED-31): whatever it holds, it is
    /// refused and changes nothing, and nothing of hers is left published.
    static func erased(_ bytes: [UInt8]) {
        let relay = seeded()
        try! relay.erase("ana", now: 500)
        let before = try! relay.replica
        precondition(
            before.items.allSatisfy { id, register in id.owner != "ana" || register.value == nil },
            "an item of ana's outlived her erasure")
        guard case .error = relay.respond(to: bytes, from: "ana", now: 1_000) else {
            preconditionFailure("an erased person's request was answered")
        }
        precondition(try! relay.replica == before, "an erased person's request changed the relay")
    }

    /// A relay where ana and bob are friends and ana has a public and a friends-only item.
    static func seeded() -> FeedRelay {
        let relay = FeedRelay()
        func stamp(_ wall: Int64, _ device: String) -> Stamp { try! Stamp(wall: wall, counter: 0, device: device) }
        var ana = FeedReplica()
        ana.writeStance(.want, from: "ana", to: "bob", at: stamp(1, "ana1"))
        for (goal, visibility) in [("g-pub", Visibility.public), ("g-fri", .friends)] {
            ana.writeVisibility(visibility, owner: "ana", goal: goal, at: stamp(2, "ana1"))
            let item = try! FeedItem(
                owner: "ana", kind: .goalStarted, goal: goal, time: 3, title: "Meditate", emoji: "🧘",
                goalKind: "streak")
            ana.writeItem(item, id: item.key, at: stamp(3, "ana1"))
        }
        try! relay.submit(ana, from: "ana", now: 100)
        var bob = FeedReplica()
        bob.writeStance(.want, from: "bob", to: "ana", at: stamp(4, "bob1"))
        try! relay.submit(bob, from: "bob", now: 101)
        return relay
    }

    /// One request from cat, a stranger: a refusal changes nothing, an answer reads back, and no
    /// answer holds an item cat may not see (FEED-25, FEED-27, FEED-29).
    static func relay(_ bytes: [UInt8]) {
        let relay = seeded()
        let before = try! relay.replica
        let answer = relay.respond(to: bytes, from: "cat", now: 1_000)
        precondition((try? RelayResponse(wire: answer.wireEncoded())) == answer, "a response does not read back")
        switch answer {
        case .error:
            precondition(try! relay.replica == before, "a refused request changed the relay")
        case .submitted:
            let after = try! relay.replica
            precondition(
                after.items.allSatisfy { id, register in
                    before.items[id] == register || id.owner == "cat"
                }, "a submit by cat changed someone else's item")
        case .changes(let delta, _, _):
            for register in delta.items.values {
                if let item = register.value {
                    precondition((try! relay.replica).canSee("cat", item), "cat was sent \(item.id)")
                }
            }
        }
    }
}
