import Foundation
import GlowActivity
import GlowBundle
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowStorage
import Testing

@testable import GlowRitual

/// The Glow tab's store over the device's replica (issue 17): mia (two devices) and bob, the
/// sample person twice, through an in-process relay reached only by the bytes of its messages.
@MainActor
@Suite("Activity store")
struct ActivityStoreTests {
    static let evening = try! Instant(rfc3339: "2026-11-28T20:00:00Z")

    static func later(_ seconds: Int64) -> Instant {
        try! Instant(millisecondsSince1970: evening.millisecondsSince1970 + seconds * 1_000)
    }

    /// A database holding the sample person under user id `…a<index>`.
    static func person(_ index: Int) async throws -> RitualDatabase {
        let url = DatabaseTests.root.appendingPathComponent("Spec/examples/sample.json")
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(
            of: "01938a6e-7c00-7abc-8def-0000000000aa", with: "01938a6e-7c00-7abc-8def-0000000000a\(index)")
        let data = try GlowJSON.decode(DataSet.self, from: Data(text.utf8))
        let database = try await RitualDatabase(path: DatabaseTests.temporary())
        try await database.importBundle(BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch)))
        return database
    }

    /// The relay's time: the real clock's, as a sync's is (`sync(through:)` takes in stamps at
    /// `.now`), so no device's stamp is ahead of the relay by more than FEED-25 allows.
    static func transport(_ relay: FeedRelay, as person: String) -> RelayTransport {
        { bytes in relay.handle(bytes, from: person, now: Instant.now.millisecondsSince1970) }
    }

    /// Issue 44 item 8: a relay whose answers are bounded pages them, and a sync asks page after
    /// page until the last: a device ends with what one whole answer would give it.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a sync through a relay that answers one log entry a page ends where a whole answer does")
    func pagedSync() async throws {
        var learned: [[String]] = []
        for relay in [FeedRelay(), FeedRelay(maxAnswerBytes: 1)] {
            let mia = try await ActivityStore(database: try Self.person(1), person: "mia", clockID: "mia-phone")
            let bob = try await ActivityStore(database: try Self.person(2), person: "bob", clockID: "bob-phone")
            try await mia.act(.request, toward: "bob", now: Self.later(1))
            try await mia.sync(through: Self.transport(relay, as: "mia"))
            try await bob.sync(through: Self.transport(relay, as: "bob"))
            try await bob.act(.accept, toward: "mia", now: Self.later(2))
            try await bob.publish(now: Self.later(3))
            try await bob.sync(through: Self.transport(relay, as: "bob"))
            try await mia.sync(through: Self.transport(relay, as: "mia"))
            #expect(mia.friends["bob"] == .friends)
            learned.append(mia.items.filter { $0.owner == "bob" }.map(\.id))
        }
        #expect(!learned[0].isEmpty && learned[1] == learned[0], "\(learned)")
    }

    /// A relaunched device's clock starts from its feed's latest stamp (FEED-2), so a change made
    /// after the relaunch outranks one stamped ahead of the device's time before it.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("after a relaunch, a change outranks one the feed holds stamped ahead of the device's time")
    func relaunchedClock() async throws {
        let database = try await Self.person(1)
        let ahead = try Instant(millisecondsSince1970: Instant.now.millisecondsSince1970 + 600_000)
        let before = try await ActivityStore(database: database, person: "mia", clockID: "mia-phone")
        try await before.act(.request, toward: "bob", now: ahead)
        let relaunched = try await ActivityStore(database: database, person: "mia", clockID: "mia-phone")
        try await relaunched.act(.cancel, toward: "bob", now: .now)
        #expect(relaunched.friends["bob"] == FriendState.none, "the request stamped ahead still outranks the cancel")
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("friends made, items published and cheered, the badge read on one device and cleared on the other")
    func throughTheRelay() async throws {
        let relay = FeedRelay()
        let miaDatabase = try await Self.person(1)
        let mia = try await ActivityStore(database: miaDatabase, person: "mia", clockID: "mia-phone")
        let bob = try await ActivityStore(database: try Self.person(2), person: "bob", clockID: "bob-phone")
        let toMia = Self.transport(relay, as: "mia")
        let toBob = Self.transport(relay, as: "bob")

        try await mia.act(.request, toward: "bob", now: Self.later(1))
        try await mia.sync(through: toMia)
        try await bob.sync(through: toBob)
        #expect(bob.friends["mia"] == .incoming)
        try await bob.act(.accept, toward: "mia", now: Self.later(2))
        try await bob.publish(now: Self.later(3))
        try await bob.sync(through: toBob)
        let friendsHeard = Heard.watching { _ = mia.friends }
        try await mia.sync(through: toMia)
        #expect(friendsHeard.fired && mia.friends["bob"] == .friends)

        let fromBob = mia.items.filter { $0.owner == "bob" }
        #expect(!fromBob.isEmpty && mia.badge >= fromBob.count)
        #expect(
            Set(fromBob.map(\.title)).isSubset(of: ["Meditate for 10 minutes", "Work out"]), "never a private goal")
        let cheered = try #require(fromBob.first)
        try await mia.react(.fire, on: cheered.key, now: Self.later(4))
        #expect(mia.reactions[cheered.key]?.mine == [.fire])
        await #expect(throws: ActivityError.self) {
            try await mia.react(.fire, on: FeedItemID("bob/nothing"), now: Self.later(5))
        }
        try await mia.sync(through: toMia)
        try await bob.sync(through: toBob)
        #expect(bob.reactions[cheered.key]?.counts[.fire] == 1 && bob.reactions[cheered.key]?.mine.isEmpty == true)

        let badgeHeard = Heard.watching { _ = mia.badge }
        let friendsUntouched = Heard.watching { _ = mia.friends }
        try await mia.markSeen()
        #expect(badgeHeard.fired && mia.badge == 0 && !friendsUntouched.fired)
        try await mia.sync(through: toMia)
        // Mia's second device learns all of it, her seen marker included.
        let tablet = try await ActivityStore(database: try Self.person(1), person: "mia", clockID: "mia-tablet")
        try await tablet.sync(through: toMia)
        #expect(tablet.friends["bob"] == .friends && tablet.badge == 0)
        #expect(tablet.items == mia.items && tablet.reactions[cheered.key]?.mine == [.fire])
        // And the phone's store over its file opened again is where it was.
        let reopened = try await ActivityStore(
            database: try RitualDatabase(path: miaDatabase.path), person: "mia", clockID: "mia-phone")
        #expect(reopened.items == mia.items && reopened.badge == 0 && reopened.friends == mia.friends)
    }

    /// The cursors a transport saw the store ask from.
    final class Asked: Sendable {
        let cursors = Locked<[UInt64]>([])
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a sync's cursor is kept with the delta it follows, and the next sync asks from there")
    func cursorWithDelta() async throws {
        let relay = FeedRelay()
        let bob = try await ActivityStore(database: try Self.person(2), person: "bob", clockID: "bob-phone")
        try await bob.act(.request, toward: "mia", now: Self.later(1))
        try await bob.sync(through: Self.transport(relay, as: "bob"))
        let database = try await Self.person(1)
        let mia = try await ActivityStore(database: database, person: "mia", clockID: "mia-phone")
        let asked = Asked()
        let watched: RelayTransport = { bytes in
            if case .changes(let since) = try RelayRequest(wire: bytes) { asked.cursors.withLock { $0.append(since) } }
            return relay.handle(bytes, from: "mia", now: Instant.now.millisecondsSince1970)
        }
        try await mia.sync(through: watched)
        #expect(mia.friends["bob"] == .incoming)
        let kept = try await database.deviceValue("feed.cursor")
        let cursor = try #require(kept.flatMap { UInt64(String(decoding: $0, as: UTF8.self)) })
        #expect(cursor > 0)
        // Opened again, the store asks from the kept cursor, and an empty answer keeps it.
        let reopened = try await ActivityStore(
            database: try RitualDatabase(path: database.path), person: "mia", clockID: "mia-phone")
        try await reopened.sync(through: watched)
        #expect(asked.cursors.withLock { $0 } == [0, cursor])
        #expect(reopened.friends["bob"] == .incoming)

        // Device values recorded with an empty delta are still written, and the log is not.
        try await database.recordFeed(FeedReplica(), deviceValues: ["probe": [7]])
        let again = try await RitualDatabase(path: database.path)
        let (probe, feed, expected) = (
            try await again.deviceValue("probe"), try await again.feed, try await database.feed
        )
        #expect(probe == [7] && feed == expected)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("what the feed refuses is a typed error, and nothing is recorded")
    func refusals() async throws {
        let database = try await Self.person(1)
        let mia = try await ActivityStore(database: database, person: "mia", clockID: "mia-phone")
        await #expect {
            try await mia.act(.accept, toward: "bob", now: Self.later(1))
        } throws: { error in
            guard case .feed(let feed) = error as? ActivityError else { return false }
            return feed.code == .invalidFriendAction
        }
        await #expect(try database.feed == FeedReplica())
        try await mia.publish(now: Self.later(2))
        let own = try #require(mia.items.first)
        await #expect {
            try await mia.react(.heart, on: own.key, now: Self.later(3))
        } throws: { error in
            guard case .feed(let feed) = error as? ActivityError else { return false }
            return feed.code == .ownItem
        }
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a relay's refusal reaches the app as the relay's code and rule")
    func relayRefusal() async throws {
        let relay = FeedRelay()
        let mia = try await ActivityStore(database: try Self.person(1), person: "mia", clockID: "mia-phone")
        try await mia.act(.request, toward: "bob", now: Self.later(1))
        // A transport that authenticates the wrong person: the relay refuses mia's writes.
        await #expect {
            try await mia.sync(through: Self.transport(relay, as: "eve"))
        } throws: { error in
            guard case .relay(let code, _, let rule) = error as? ActivityError else { return false }
            return code == "not_author" && rule == "FEED-25"
        }
    }
}
