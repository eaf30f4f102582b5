import GlowCore
import GlowModel
import Testing

@testable import GlowFeed

/// Properties of the feed's replicas over random histories (FEED-21), and the pieces the corpus
/// reaches only through scripts.
@Suite("Feed replicas")
struct FeedReplicaTests {
    static let people = ["ana", "bob", "cat", "dan"]

    /// A random write of any kind, stamped by one of a person's two devices.
    static func randomWrite(_ random: inout SeededRandom, wall: Int64) throws -> (inout FeedReplica) -> Void {
        let person = people.randomElement(using: &random)!
        let other = people.filter { $0 != person }.randomElement(using: &random)!
        let stamp = try Stamp(
            wall: wall, counter: Int64.random(in: 0...2, using: &random),
            device: person + "-\(Int.random(in: 1...2, using: &random))")
        let goal = "g\(Int.random(in: 1...3, using: &random))"
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            let stance = Stance.allCases.randomElement(using: &random)!
            return { $0.writeStance(stance, from: person, to: other, at: stamp) }
        case 1:
            let item = try FeedItem(
                owner: person, kind: .goalStarted, goal: goal, time: wall, title: "Goal \(goal)", emoji: "✨",
                goalKind: "single")
            let withdrawn = Bool.random(using: &random)
            return { $0.writeItem(withdrawn ? nil : item, id: item.key, at: stamp) }
        case 2:
            let visibility = Visibility.allCases.randomElement(using: &random)!
            return { $0.writeVisibility(visibility, owner: person, goal: goal, at: stamp) }
        case 3:
            let kind = ReactionKind.allCases.randomElement(using: &random)!
            let on = Bool.random(using: &random)
            let item = FeedItemID(
                FeedItem.id(
                    owner: other, kind: .goalStarted, goal: goal, day: nil, milestone: nil, streakStart: nil))
            return { $0.writeReaction(on, item: item, reactor: person, kind: kind, at: stamp) }
        case 4:
            let time = Int64.random(in: 0...1000, using: &random)
            return { $0.markSeen(person, upTo: time) }
        default:
            let time = Int64.random(in: 0...1000, using: &random)
            let item = FeedItemID(
                FeedItem.id(
                    owner: person, kind: .goalStarted, goal: goal, day: nil, milestone: nil, streakStart: nil))
            return { $0.receive(item: item, at: time) }
        }
    }

    /// Three replicas, each with its own random writes.
    static func replicas(seed: UInt64) throws -> [FeedReplica] {
        var random = SeededRandom(seed: seed)
        var replicas = [FeedReplica(), FeedReplica(), FeedReplica()]
        for index in 0..<60 {
            let write = try randomWrite(&random, wall: Int64(index / 3))
            write(&replicas[Int.random(in: 0..<3, using: &random)])
        }
        return replicas
    }

    static func merged(_ replicas: [FeedReplica]) -> FeedReplica {
        var result = FeedReplica()
        for replica in replicas { result.merge(replica) }
        return result
    }

    @Test("merging is idempotent, commutative and associative over random histories", arguments: 0..<40)
    func mergeLaws(seed: Int) throws {
        let replicas = try Self.replicas(seed: UInt64(seed))
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        var aa = a
        aa.merge(a)
        #expect(aa == a, "idempotent")
        var ab = a
        ab.merge(b)
        var ba = b
        ba.merge(a)
        #expect(ab == ba, "commutative")
        var abThenC = ab
        abThenC.merge(c)
        var bc = b
        bc.merge(c)
        var aThenBC = a
        aThenBC.merge(bc)
        #expect(abThenC == aThenBC, "associative")
        let orders = [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]]
        #expect(Set(orders.map(Self.merged)).count == 1, "every order agrees")
        // Merged replicas answer every reading alike.
        let one = Self.merged(orders[0])
        let other = Self.merged(orders[5])
        for viewer in Self.people {
            #expect(one.badge(viewer) == other.badge(viewer))
            #expect(try one.page(for: viewer, limit: 100) == other.page(for: viewer, limit: 100))
            for person in Self.people { #expect(one.friendState(viewer, person) == other.friendState(viewer, person)) }
        }
    }

    @Test("a device's own writes reach a peer through changes since the last stamp it sent", arguments: 0..<20)
    func deltas(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 1_000)
        // One device writes in stamp order, as its clock makes it; the peer got everything up to
        // some point, and catches up with the changes since the last stamp it got.
        var device = FeedReplica()
        var peer = FeedReplica()
        var watermark: Stamp?
        for round in 0..<5 {
            for index in 0..<12 {
                let write = try Self.randomWrite(&random, wall: Int64(round * 100 + index))
                write(&device)
            }
            peer.merge(device.changes(since: watermark))
            watermark = device.latestStamp
            #expect(peer == device, "round \(round)")
        }
        #expect(device.changes(since: device.latestStamp).items.isEmpty)
        #expect(device.changes(since: nil) == device)
    }

    @Test("pages through the indexes list exactly what a scan of every item would, in small pages", arguments: 0..<20)
    func pagesMatchAScan(seed: Int) throws {
        let replica = Self.merged(try Self.replicas(seed: UInt64(seed) &+ 500))
        var shown = 0
        for viewer in Self.people {
            let scanned = replica.items.values.compactMap { $0.value }.filter { replica.canSee(viewer, $0) }
                .sorted(by: FeedCursor.newerFirst)
            var paged: [FeedItem] = []
            var cursor: FeedCursor?
            repeat {
                let page = try replica.page(for: viewer, limit: 3, after: cursor)
                paged += page.items
                cursor = page.next
            } while cursor != nil
            #expect(paged == scanned, "\(viewer)")
            shown += paged.count
        }
        #expect(shown > 0, "the history shares something")
    }

    @Test("a replica that merged another's writes already holds them: merging again changes nothing")
    func mergeAbsorbs() throws {
        let replicas = try Self.replicas(seed: 99)
        var all = Self.merged(replicas)
        let before = all
        for replica in replicas { all.merge(replica) }
        #expect(all == before)
        #expect(all != FeedReplica(), "the random history wrote something")
    }

    /// Issue 45 item 7, as an app writes it: a feed page goes to a SwiftUI list by its items' ids.
    @Test("feed items are Identifiable by their ids")
    func identifiable() throws {
        func ids<Element: Identifiable>(_ elements: [Element]) -> [Element.ID] { elements.map(\.id) }
        let items = try ["g1", "g2"].map { goal in
            try FeedItem(
                owner: "ana", kind: .goalStarted, goal: goal, time: 5, title: "Read", emoji: "📚", goalKind: "single")
        }
        #expect(ids(items) == ["ana/goalStarted/g1", "ana/goalStarted/g2"])
    }

    @Test("a cursor reads back what it wrote, and its text is the spec's form")
    func cursorText() throws {
        let item = try FeedItem(
            owner: "ana", kind: .goalStarted, goal: "g1", time: 0x0102_0304_0506, title: "Read", emoji: "📚",
            goalKind: "single")
        let cursor = FeedCursor(after: item)
        #expect(try FeedCursor(text: cursor.description) == cursor)
        let bytes = Base64.url.decode(cursor.description)!
        #expect(bytes == [1, 0, 0, 1, 2, 3, 4, 5, 6] + Array("ana/goalStarted/g1".utf8))
    }

    @Test("stamps order by wall time, counter, then device bytes")
    func stampOrder() throws {
        let stamps = [
            try Stamp(wall: 1, counter: 0, device: "b"), try Stamp(wall: 1, counter: 0, device: "a"),
            try Stamp(wall: 0, counter: 9, device: "z"), try Stamp(wall: 1, counter: 1, device: "a"),
            try Stamp(wall: 1, counter: 0, device: "ab"),
        ]
        #expect(stamps.sorted().map(\.description) == ["0.9@z", "1.0@a", "1.0@ab", "1.0@b", "1.1@a"])
    }

    @Test("a notice's sentence for one, two and many reactors")
    func noticeText() throws {
        let item = try FeedItem(
            owner: "ana", kind: .milestone, goal: "g1", time: 0, title: "Meditate", emoji: "🧘", goalKind: "single",
            day: Day(iso: "2026-11-30"), streak: 30, milestone: 30, streakStart: Day(iso: "2026-11-01"))
        let stamp = try Stamp(wall: 0, counter: 0, device: "d")
        let names = ["bob": "Bob", "cat": "Cat", "dan": "Dan"]
        let texts = [["bob"], ["cat", "bob"], ["dan", "cat", "bob"]].map { reactors in
            ReactionNotice(item: item, day: item.day!, kind: .fire, reactors: reactors, latest: stamp).text {
                names[$0]!
            }
        }
        #expect(
            texts == [
                "Bob cheered 🔥 your 30-day Meditate streak", "Cat and 1 other cheered 🔥 your 30-day Meditate streak",
                "Dan and 2 others cheered 🔥 your 30-day Meditate streak",
            ])
    }
}
