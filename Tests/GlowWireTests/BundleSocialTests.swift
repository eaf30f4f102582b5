import Foundation
import GlowBundle
import GlowFeed
import GlowModel
import Testing

/// A person's social data in their bundle (BUNDLE-27, FEED-30): a new device restores their
/// friendships, reactions given and seen marker, all or nothing with the data set.
@Suite("Bundles with social data")
struct BundleSocialTests {
    /// Mia's replica on her old phone: her friendships, a stranger's request she ignored, her
    /// reactions, her marker, and what is not hers to carry (bob's items, a stranger's stance).
    static func phone() throws -> FeedReplica {
        func stamp(_ wall: Int64, _ device: String) throws -> Stamp {
            try Stamp(wall: wall, counter: 0, device: device)
        }
        var replica = FeedReplica()
        replica.writeStance(.want, from: "mia", to: "bob", at: try stamp(1, "mia1"))
        replica.writeStance(.want, from: "bob", to: "mia", at: try stamp(2, "bob1"))
        replica.writeStance(.want, from: "eve", to: "mia", at: try stamp(3, "eve1"))
        replica.writeStance(.want, from: "bob", to: "cat", at: try stamp(4, "bob1"))
        let item = try FeedItem(
            owner: "bob", kind: .goalStarted, goal: "g1", time: 5, title: "Read", emoji: "📖", goalKind: "tally")
        replica.writeItem(item, id: item.key, at: try stamp(5, "bob1"))
        replica.receive(item: item.key, at: 50)
        replica.writeReaction(true, item: item.key, reactor: "mia", kind: .clap, at: try stamp(6, "mia1"))
        replica.writeReaction(true, item: item.key, reactor: "cat", kind: .heart, at: try stamp(7, "cat1"))
        replica.markSeen("mia", upTo: 60)
        replica.markSeen("bob", upTo: 70)
        return replica
    }

    @Test("export then import on a new device restores friendships, reactions given and the seen marker")
    func restore() throws {
        let phone = try Self.phone()
        let social = SocialData(of: "mia", in: phone)
        #expect(social.registers.stances.count == 3, "mia–bob both ways and eve's request; not bob–cat")
        #expect(social.registers.reactions.count == 1 && social.registers.items.isEmpty)
        #expect(social.registers.seen == ["mia": 60] && social.registers.receipts.isEmpty)
        let bytes = BundleWriter.bundle(Samples.dataSet, social: social, options: Samples.options)
        var device = DataSet()
        let result = try BundleReader().import(reading: BundleReader.chunks(bytes), into: &device)
        #expect(device == Samples.dataSet)
        #expect(result.social == social)
        #expect(result.summary.counts.other == 1, "counted among records of later types")
        var restored = FeedReplica()
        restored.merge(try #require(result.social).registers)
        #expect(restored.friendState("mia", "bob") == .friends)
        #expect(restored.friendState("mia", "eve") == .incoming)
        #expect(restored.isOn(.clap, on: FeedItemID("bob/goalStarted/g1"), by: "mia"))
        #expect(restored.seen["mia"] == 60)
        // Written again, the same bytes: the social frame has one canonical place (BUNDLE-15).
        let contents = try BundleReader().contents(bytes)
        #expect(BundleWriter.bundle(contents.data, social: contents.social, options: Samples.options) == bytes)
        #expect(BundleWriter.bundle(Samples.dataSet, options: Samples.options) != bytes)
    }

    @Test("a damaged bundle with social data imports nothing")
    func allOrNothing() throws {
        let social = SocialData(of: "mia", in: try Self.phone())
        var bytes = BundleWriter.bundle(Samples.dataSet, social: social, options: Samples.options)
        bytes[bytes.count - 30] ^= 0x40
        var device = DataSet()
        #expect(throws: BundleError.self) {
            try BundleReader().import(reading: BundleReader.chunks(bytes), into: &device)
        }
        #expect(device == DataSet())
    }

    @Test("social data that is not only its person's cannot be made")
    func onlyTheirs() throws {
        let phone = try Self.phone()
        #expect(throws: FeedError.self) { try SocialData(person: "mia", registers: phone) }
        #expect(throws: FeedError.self) { try SocialData(person: "", registers: FeedReplica()) }
        let theirs = SocialData(of: "mia", in: phone)
        #expect(try SocialData(person: "mia", registers: theirs.registers) == theirs)
        #expect(throws: FeedError.self) { try SocialData(person: "bob", registers: theirs.registers) }
    }
}
