import Foundation
import GlowBundle
import GlowFeed
import GlowModel
import Testing

/// `glow-tool feed` over the bundles of three people made from the sample person: mia and bob are
/// friends, cat is a stranger. Mia's Meditate goal is friends-only, Work out public, the rest
/// private (Spec/examples/sample.json).
@Suite("glow-tool feed")
struct FeedCommandTests {
    static let day = "2026-11-28"

    /// The sample person's data set as `person`, under a user id of their own.
    static func dataSet(_ index: Int) throws -> DataSet {
        let url = EndToEndTests.root.appendingPathComponent("Spec/examples/sample.json")
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(
            of: "01938a6e-7c00-7abc-8def-0000000000aa", with: "01938a6e-7c00-7abc-8def-0000000000a\(index)")
        return try GlowJSON.decode(DataSet.self, from: Data(text.utf8))
    }

    static func stamp(_ wall: Int64, _ device: String) throws -> Stamp {
        try Stamp(wall: wall, counter: 0, device: device)
    }

    /// Writes the three bundles; mia's social data holds the friendship, her `reactions` and her
    /// seen marker.
    static func bundles(seen: Int64?, reactions: [FeedItemID] = []) throws -> [String] {
        var friendship = FeedReplica()
        friendship.writeStance(.want, from: "mia", to: "bob", at: try stamp(1, "mia1"))
        friendship.writeStance(.want, from: "bob", to: "mia", at: try stamp(2, "bob1"))
        var mine = friendship
        for item in reactions {
            mine.writeReaction(true, item: item, reactor: "mia", kind: .fire, at: try stamp(3, "mia1"))
        }
        if let seen { mine.markSeen("mia", upTo: seen) }
        let socials = [
            SocialData(of: "mia", in: mine), SocialData(of: "bob", in: friendship),
            SocialData(of: "cat", in: FeedReplica()),
        ]
        return try socials.enumerated().map { index, social in
            let path = EndToEndTests.temporary("\(social.person).glow")
            let bytes = BundleWriter.bundle(
                try dataSet(index + 1), social: social,
                options: BundleOptions(createdAt: try Instant(rfc3339: "2026-11-28T20:00:00Z")))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    struct View: Decodable {
        struct Row: Decodable {
            let id: String
            let owner: String
            let title: String
            let time: String
            let reactions: [String: Int]
            let mine: [String]
            let unread: Bool
        }
        let badge: Int
        let friends: [String: String]
        let items: [Row]
    }

    static func view(_ paths: [String], viewer: String, limit: Int = 100) throws -> View {
        let run = try EndToEndTests.run(
            ["feed"] + paths + ["--viewer", viewer, "--day", day, "--limit", "\(limit)", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONDecoder().decode(View.self, from: run.output)
    }

    @Test("a friend sees friends-only and public items, a stranger public ones only, nobody a private one")
    func visibility() throws {
        let paths = try Self.bundles(seen: nil)
        let mia = try Self.view(paths, viewer: "mia")
        let cat = try Self.view(paths, viewer: "cat")
        #expect(mia.friends == ["bob": "friends"])
        #expect(cat.friends.isEmpty)
        #expect(Set(mia.items.map(\.owner)) == ["mia", "bob", "cat"])
        #expect(mia.items.contains { $0.owner == "bob" && $0.title == "Meditate for 10 minutes" })
        #expect(mia.items.filter { $0.owner == "cat" }.allSatisfy { $0.title == "Work out" }, "cat's public goal only")
        #expect(cat.items.contains { $0.owner == "mia" && $0.title == "Work out" })
        #expect(!cat.items.contains { $0.owner != "cat" && $0.title == "Meditate for 10 minutes" }, "friends-only")
        let shown = Set((mia.items + cat.items).map(\.title))
        #expect(shown == ["Meditate for 10 minutes", "Work out"], "never a private goal: \(shown)")
    }

    @Test("the badge counts others' items newer than the seen marker, and reactions given travel in the bundle")
    func badgeAndReactions() throws {
        let unseen = try Self.view(try Self.bundles(seen: nil), viewer: "mia")
        let others = unseen.items.filter { $0.owner != "mia" }
        #expect(unseen.badge >= others.count && !others.isEmpty)
        #expect(others.allSatisfy(\.unread) && unseen.items.filter { $0.owner == "mia" }.allSatisfy { !$0.unread })
        // Seen up to the newest item of bob's: nothing is unread.
        let newest = try #require(others.first)
        let newestTime = try Instant(rfc3339: newest.time).millisecondsSince1970
        let seen = try Self.view(
            try Self.bundles(seen: newestTime, reactions: [FeedItemID(newest.id)]), viewer: "mia")
        #expect(seen.badge == 0 && seen.items.allSatisfy { !$0.unread })
        let cheered = try #require(seen.items.first { $0.id == newest.id })
        #expect(cheered.reactions == ["fire": 1] && cheered.mine == ["fire"])
        // Bob sees mia's fire on his item, not as his own.
        let bob = try Self.view(try Self.bundles(seen: nil, reactions: [FeedItemID(newest.id)]), viewer: "bob")
        let his = try #require(bob.items.first { $0.id == newest.id })
        #expect(his.reactions == ["fire": 1] && his.mine.isEmpty)
    }

    @Test("text output, paging note, and the errors a person can act on")
    func textAndErrors() throws {
        let paths = try Self.bundles(seen: nil)
        let text = try EndToEndTests.run(["feed"] + paths + ["--viewer", "mia", "--day", Self.day, "--limit", "3"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("Glow feed of mia as of \(Self.day): "))
        #expect(text.stdout.contains("People: bob (friends)"))
        #expect(text.stdout.contains("… more items: raise --limit"))
        #expect(text.stdout.split(separator: "\n").filter { $0.hasPrefix("•") || $0.hasPrefix("  2") }.count == 3)
        let twice = try EndToEndTests.run(["feed", paths[0], paths[0], "--viewer", "mia"])
        #expect(twice.status == 1 && twice.stderr.contains("both mia's"))
        #expect(try EndToEndTests.run(["feed", paths[0], "--viewer", "mia", "--limit", "0"]).status != 0)
        #expect(try EndToEndTests.run(["feed", paths[0]]).status == 64, "no --viewer")
        #expect(try EndToEndTests.run(["feed", "--viewer", "mia"]).status == 64, "no bundle")
    }
}
