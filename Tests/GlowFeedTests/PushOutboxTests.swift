import GlowFeed
import GlowModel
import GlowRelay
import Testing

/// The relay's pushes over many random scripts (REMIND-14 ... REMIND-18): what the corpus shows
/// case by case, held for a crowd at once.
@Suite("Pushes of friends' activity")
struct PushOutboxTests {
    static let people = ["ana", "bob", "cat", "dan", "eve"]
    static let kinds: [ReactionKind] = [.heart, .fire, .clap]

    /// A random day of a crowd: stances, visibility, items, withdrawals and reactions, each
    /// submitted by its author, with sends in between; every push is checked as it goes.
    @Test("pushes go only to friends who may see, at most one per topic per window, each within 4,096 bytes")
    func crowd() throws {
        let window: Int64 = 600_000
        for seed in 0..<20 {
            var random = SeededRandom(seed: UInt64(500 + seed))
            let relay = FeedRelay(pushWindow: window)
            let sender = RecordingPushSender()
            for (index, person) in Self.people.enumerated() {
                try relay.register(
                    try PushDevice(
                        token: "tok-\(person)", person: person,
                        timeZone: TimeZoneID(index % 2 == 0 ? "Europe/London" : "Asia/Tokyo"),
                        quietHours: index == 3 ? try .init(start: 1320, end: 420) : nil), now: 0)
            }
            var now: Int64 = 1_768_478_400_000
            var counter: Int64 = 0
            var lastPush: [String: Int64] = [:]
            for _ in 0..<120 {
                now += Int64(random.next() % 300_000)
                counter += 1
                let person = Self.people[Int(random.next() % 5)]
                let other = Self.people[Int(random.next() % 5)]
                let stamp = try Stamp(wall: now, counter: 0, device: person + "1")
                var delta = FeedReplica()
                let replica = try relay.replica
                switch random.next() % 6 {
                case 0 where other != person:
                    delta.writeStance(random.next() % 5 == 0 ? .block : .want, from: person, to: other, at: stamp)
                case 1:
                    delta.writeVisibility(
                        [.friends, .public, .private][Int(random.next() % 3)], owner: person,
                        goal: "g\(random.next() % 2)", at: stamp)
                case 2, 3:
                    let item = try FeedItem(
                        owner: person, kind: .checkIn, goal: "g\(random.next() % 2)", time: now,
                        title: "Run \(counter)",
                        emoji: "🏃", goalKind: "streak", day: Day(unchecked: 20_000 + Int(counter)))
                    delta.writeItem(random.next() % 6 == 0 ? nil : item, id: item.key, at: stamp)
                default:
                    // A reaction, on or off, to a random item of someone else.
                    let others = replica.items.keys.filter { !$0.text.hasPrefix(person + "/") }.sorted()
                    guard let target = others.isEmpty ? nil : others[Int(random.next() % UInt64(others.count))]
                    else { continue }
                    delta.writeReaction(
                        random.next() % 4 != 0, item: target, reactor: person,
                        kind: Self.kinds[Int(random.next() % 3)], at: stamp)
                }
                try relay.submit(delta, from: person, now: now)
                guard random.next() % 3 == 0 else { continue }
                let pushes = try relay.duePushes(at: now) { $0.uppercased() }
                let after = try relay.replica
                try sender.send(pushes)
                for push in pushes {
                    #expect(push.payload.count <= 4096)
                    #expect(push.collapseID.utf8.count <= 64)
                    // REMIND-16: a topic reaches a device at most once per window.
                    let key = push.token + " " + push.topic
                    if let last = lastPush[key] { #expect(now - last >= window, "seed \(seed): \(key)") }
                    lastPush[key] = now
                    #expect(push.badge == after.badge(push.person))
                    if push.topic.hasPrefix("friend/") {
                        // REMIND-15: only friends hear of a friend's items.
                        let friend = String(push.topic.dropFirst("friend/".count))
                        #expect(after.friendState(push.person, friend) == .friends, "seed \(seed)")
                        #expect(push.key.hasPrefix("push.item"))
                    } else {
                        // Reactions go to the item's owner, from reactors who may see it.
                        let item = try #require(after.item(FeedItemID(String(push.topic.dropFirst("item/".count)))))
                        #expect(item.owner == push.person)
                        #expect(push.key == "push.reaction")
                    }
                }
            }
            #expect(!sender.pushes.isEmpty, "seed \(seed): the crowd's day pushed something")
        }
    }

    @Test("a removed device's pending push is dropped, and the outbox forgets it")
    func removed() throws {
        let relay = FeedRelay()
        var outbox = PushOutbox()
        outbox.register(try PushDevice(token: "tok-bob", person: "bob", timeZone: .utc), now: 0)
        outbox.keepChanges()
        try Self.befriend(relay, "ana", "bob")
        var post = FeedReplica()
        let item = try FeedItem(
            owner: "ana", kind: .checkIn, goal: "g", time: 30, title: "Run", emoji: "", goalKind: "streak",
            day: Day(unchecked: 20_000))
        post.writeItem(item, id: item.key, at: try Stamp(wall: 4, counter: 0, device: "ana1"))
        let accepted = try relay.accept(post, from: "ana", now: 30)
        #expect(accepted.received == [item.key])
        outbox.accept(items: accepted.received, reactions: accepted.reactions, replica: try relay.replica, now: 30)
        #expect(outbox.pending == 1)
        outbox.remove(token: "tok-bob")
        #expect(outbox.pending == 0)
        #expect(outbox.due(at: 40, replica: try relay.replica) { _ in nil }.isEmpty)
        // What a store writes: the device and its group, both as removed.
        #expect(
            outbox.changedRows == [
                PushOutbox.Row.Key(.device, "tok-bob"), PushOutbox.Row.Key(.group, "tok-bob\nfriend/ana"),
            ])
        #expect(outbox.value(of: PushOutbox.Row.Key(.device, "tok-bob")) == nil)
    }

    /// A proof push waiting for a token goes nowhere once the token's holder removes it: the
    /// removed token gets nothing more (REMIND-14), a proof asked for by someone else included.
    @Test("a removed token's waiting proof push is dropped with it")
    func removedTokenDropsProof() throws {
        let relay = FeedRelay()
        for (removed, expected) in [(false, 1), (true, 0)] {
            var outbox = PushOutbox()
            #expect(outbox.register(try PushDevice(token: "tok-1", person: "bob", timeZone: .utc), now: 0))
            #expect(!outbox.register(try PushDevice(token: "tok-1", person: "eve", timeZone: .utc), now: 10))
            if removed { outbox.remove(token: "tok-1") }
            let due = outbox.due(at: 20, replica: try relay.replica) { _ in nil }
            #expect(due.count == expected, "removed: \(removed)")
            #expect(due.allSatisfy { $0.token == "tok-1" })
        }
    }

    @Test("a topic's last push is forgotten once its window has passed, and a store learns it")
    func forgetsLastPush() throws {
        let relay = FeedRelay()
        var outbox = PushOutbox()
        outbox.register(try PushDevice(token: "tok-bob", person: "bob", timeZone: .utc), now: 0)
        try Self.befriend(relay, "ana", "bob")
        var post = FeedReplica()
        let item = try FeedItem(
            owner: "ana", kind: .goalStarted, goal: "g", time: 5, title: "Walk", emoji: "", goalKind: "streak")
        post.writeItem(item, id: item.key, at: try Stamp(wall: 4, counter: 0, device: "a"))
        let accepted = try relay.accept(post, from: "ana", now: 1_000)
        outbox.accept(
            items: accepted.received, reactions: accepted.reactions, replica: try relay.replica, now: 1_000,
            window: 60_000)
        outbox.keepChanges()
        #expect(outbox.due(at: 1_000, replica: try relay.replica, window: 60_000) { _ in nil }.count == 1)
        let last = PushOutbox.Row.Key(.last, "tok-bob\nfriend/ana")
        #expect(outbox.value(of: last) != nil)
        outbox.keepChanges()
        // Within the window it holds; once the window has passed it is gone, and the row with it.
        _ = outbox.due(at: 60_999, replica: try relay.replica, window: 60_000) { _ in nil }
        #expect(outbox.value(of: last) != nil && outbox.changedRows.isEmpty)
        _ = outbox.due(at: 61_000, replica: try relay.replica, window: 60_000) { _ in nil }
        #expect(outbox.value(of: last) == nil && outbox.changedRows == [last])
    }

    /// `owner` and `friend` become friends through `relay`, and `owner`'s goal `g` is for friends.
    static func befriend(_ relay: FeedRelay, _ owner: String, _ friend: String) throws {
        var mine = FeedReplica()
        mine.writeStance(.want, from: owner, to: friend, at: try Stamp(wall: 1, counter: 0, device: owner + "1"))
        mine.writeVisibility(.friends, owner: owner, goal: "g", at: try Stamp(wall: 2, counter: 0, device: owner + "1"))
        try relay.submit(mine, from: owner, now: 1)
        var theirs = FeedReplica()
        theirs.writeStance(.want, from: friend, to: owner, at: try Stamp(wall: 3, counter: 0, device: friend + "1"))
        try relay.submit(theirs, from: friend, now: 1)
    }
}
