import Foundation
import GlowFeed
import GlowModel
import GlowPostgresStores
import GlowProtocol
import GlowRelay
import GlowServerStores
import GlowStorage
import Testing

/// Issue 59, item 1: one account's large public items took the feed down for everyone. Pages came
/// past the bound with the cursor moving by one, and a paged first sync sent an affected owner's
/// items again on every page. Here an attacker posts items near FEED-25's register bound and makes
/// their goal public again after each batch (so their visibility changes last), beside an honest
/// friend; viewers then sync through a relay with a small bound, as devices do, page by page.
enum PageFlow {
    static func stamp(_ wall: Int64, _ device: String) throws -> Stamp {
        try Stamp(wall: wall, counter: 0, device: device)
    }

    static func item(_ owner: String, _ goal: String, day: Int, title: String) throws -> FeedItem {
        try FeedItem(
            owner: owner, kind: .checkIn, goal: goal, time: 3_000, title: title, emoji: "🔥", goalKind: "streak",
            day: try Day(daysSince1970: 20_000 + day))
    }

    /// One device's sync through `relay` from `cursor`, every page followed: each page's response
    /// within `cap`, and no register sent twice. Returns what it learned and the cursor to keep.
    static func sync(
        _ viewer: String, through relay: FeedRelay, from cursor: UInt64, cap: Int,
        between: (Int) throws -> Void = { _ in }
    ) throws -> (delta: FeedReplica, cursor: UInt64, pages: Int) {
        var learned = FeedReplica()
        var sent: Set<String> = []
        var answer = try relay.changes(for: viewer, since: cursor)
        var pages = 1
        while true {
            let bytes = RelayResponse.changes(answer.delta, cursor: answer.cursor, next: answer.next).wireEncoded()
            #expect(bytes.count <= cap, "page \(pages) of \(viewer)'s answer is \(bytes.count) bytes, past \(cap)")
            let keys =
                answer.delta.items.keys.map { "item \($0.text)" }
                + answer.delta.stances.keys.map { "stance \($0.from) \($0.to)" }
                + answer.delta.visibility.keys.map { "visibility \($0.owner) \($0.goal)" }
                + answer.delta.reactions.keys.map { "reaction \($0.item.text) \($0.reactor)" }
            let again = sent.intersection(keys)
            #expect(again.isEmpty, "page \(pages) of \(viewer)'s answer sends again: \(again.sorted().prefix(3))")
            sent.formUnion(keys)
            learned.merge(answer.delta)
            guard let next = answer.next else { return (learned, answer.cursor, pages) }
            #expect(answer.cursor == cursor, "a page keeps the cursor it was asked from")
            try between(pages)
            answer = try relay.changes(for: viewer, page: next)
            pages += 1
        }
    }

    /// The attack and three syncs: a first sync, changes made while its pages are asked for, and a
    /// later sync that a new friendship makes long. `relay` gives a relay with a bound over one
    /// store; the one with no bound answers in one piece, which every paged sync must come to.
    static func run(_ relay: (Int) throws -> FeedRelay, prefix p: String) throws {
        let cap = 64 << 10
        let (paged, whole) = (try relay(cap), try relay(1 << 30))
        let (mal, ana, bea, vic) = (p + "mal", p + "ana", p + "bea", p + "vic")
        // The attacker: 4 batches of 40 items of about 3.4 KB (long titles and a long device id in
        // each stamp, within FEED-6 and FEED-25), the goal made public again after each.
        let long = String(repeating: "m", count: 2_900)
        var wall: Int64 = 1_000
        for batch in 0..<4 {
            var delta = FeedReplica()
            for index in 0..<40 {
                wall += 1
                let made = try item(
                    mal, "g", day: batch * 40 + index, title: String(repeating: "t", count: 190) + "\(index)")
                delta.writeItem(made, id: made.key, at: try stamp(wall, long))
            }
            wall += 1
            delta.writeVisibility(.public, owner: mal, goal: "g", at: try stamp(wall, "mal-phone"))
            try paged.submit(delta, from: mal, now: wall)
        }
        // An honest friend of vic's with a friends-only goal, and bea, not yet a friend.
        for (person, friend) in [(ana, vic), (vic, ana)] {
            var delta = FeedReplica()
            delta.writeStance(.want, from: person, to: friend, at: try stamp(wall, person + "-phone"))
            try paged.submit(delta, from: person, now: wall)
        }
        for person in [ana, bea] {
            var delta = FeedReplica()
            delta.writeVisibility(.friends, owner: person, goal: "h", at: try stamp(wall, person + "-phone"))
            for day in 0..<30 {
                let made = try item(person, "h", day: day, title: "Stretch")
                delta.writeItem(made, id: made.key, at: try stamp(wall + 1, person + "-phone"))
            }
            try paged.submit(delta, from: person, now: wall)
        }

        // A first sync: within the bound, each register once, and all of it. A change made while
        // its pages are asked for comes with the next sync.
        var news: FeedItem?
        let first = try sync(vic, through: paged, from: 0, cap: cap) { page in
            guard page == 2 else { return }
            let made = try item(ana, "h", day: 99, title: "Stretch")
            var delta = FeedReplica()
            delta.writeItem(made, id: made.key, at: try stamp(wall + 2, ana + "-phone"))
            try paged.submit(delta, from: ana, now: wall + 2)
            news = made
        }
        let attack = 160 * 3_400
        #expect(first.pages >= attack / cap, "\(first.pages) pages for \(attack) bytes")
        #expect(first.delta.items.count >= 190 && first.delta.items[news!.key] == nil)
        var device = first.delta
        let then = try sync(vic, through: paged, from: first.cursor, cap: cap)
        #expect(then.delta.items[news!.key] != nil, "the change made between pages comes with the next sync")
        device.merge(then.delta)
        #expect(device.wireEncoded() == (try whole.changes(for: vic, since: 0).delta.wireEncoded()))

        // bea and vic become friends: bea's old items, numbered long before vic's cursor, come
        // paged by their own numbers, each once.
        for (person, friend) in [(bea, vic), (vic, bea)] {
            var delta = FeedReplica()
            delta.writeStance(.want, from: person, to: friend, at: try stamp(wall + 3, person + "-phone"))
            try paged.submit(delta, from: person, now: wall + 3)
        }
        let later = try sync(vic, through: try relay(2_048), from: then.cursor, cap: 2_048)
        #expect(later.pages > 1 && later.delta.items.keys.filter { String($0.owner) == bea }.count == 30)
        device.merge(later.delta)
        #expect(device.wireEncoded() == (try whole.changes(for: vic, since: 0).delta.wireEncoded()))
    }
}

@Suite("Pages of the relay's answers")
struct RelayPageTests {
    @Test("SQLite: an attacker's large public items page within the bound, each register once, for every viewer")
    func sqlite() throws {
        let path = try ServerFiles.path("glow-pages")
        defer { ServerFiles.remove(path) }
        try PageFlow.run(
            { FeedRelay(store: try SQLiteServerDatabase(path: path).relay, maxAnswerBytes: $0) }, prefix: "")
    }

    @Test("a register past 4,096 bytes is refused whole at submit, so no page is past the bound for it")
    func registerBound() throws {
        let relay = FeedRelay()
        let cases: [(device: Int, refused: Bool)] = [(3_000, false), (4_200, true)]
        for (length, refused) in cases {
            var delta = FeedReplica()
            let made = try PageFlow.item("ana", "g", day: length, title: "Stretch")
            delta.writeItem(made, id: made.key, at: try PageFlow.stamp(1, String(repeating: "d", count: length)))
            delta.writeVisibility(.public, owner: "ana", goal: "g", at: try PageFlow.stamp(1, "ana-phone"))
            do {
                try relay.submit(delta, from: "ana", now: 1)
                #expect(!refused, "a register of a \(length)-byte device id was taken")
            } catch {
                #expect(refused && error.code == .registerTooLarge && error.rule == "FEED-25")
                #expect(error.message.contains("ana/checkIn/g/") && !error.message.contains("ddddd"))
            }
        }
        #expect(try relay.changes(for: "bob", since: 0).delta.items.count == 1, "the refused delta left nothing")
    }
}

extension PostgresStoreTests {
    @Test("PostgreSQL: an attacker's large public items page within the bound, each register once, for every viewer")
    func pages() throws {
        try PageFlow.run(
            { FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay, maxAnswerBytes: $0) },
            prefix: "pg-")
    }
}
