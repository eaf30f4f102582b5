import Foundation
import GlowFeed
import GlowModel
import Testing

@testable import GlowActivity

/// Items derived from the sample person (Spec/examples/sample.json), published, derived again,
/// and withdrawn when the data takes them back (FEED-22, FEED-23).
@Suite("Feed items from a person's data")
struct FeedDerivationTests {
    static func sample() throws -> DataSet {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Spec/examples/sample.json")
        return try GlowJSON.decode(DataSet.self, from: Data(contentsOf: url))
    }

    static let today = try! Day(iso: "2026-11-28")

    @Test("the same data gives the same items; private goals give none and no item carries a note")
    func deterministic() throws {
        let data = try Self.sample()
        let boundary = data.profile!.boundary
        let items = FeedDerivation.items(of: data, owner: "mia", boundary: boundary, today: Self.today)
        #expect(items == FeedDerivation.items(of: data, owner: "mia", boundary: boundary, today: Self.today))
        #expect(Set(items.map(\.id)).count == items.count, "ids are unique")
        let shared = Set(data.sortedGoals.filter { $0.visibility != .private }.map(\.id.description))
        #expect(!shared.isEmpty)
        #expect(Set(items.map(\.goal)) == shared, "every shared goal gives items, private ones none")
        #expect(items.contains { $0.kind == .milestone })
        #expect(items.contains { $0.kind == .checkIn && $0.streak != nil })
        #expect(items.allSatisfy { $0.kind != .checkIn || $0.day! >= (try! Self.today.adding(days: -29)) })
        #expect(items == items.sorted(by: FeedCursor.newerFirst))
    }

    @Test("publishing again writes nothing; an undone check-in is withdrawn; a goal made private hides its items")
    func publishing() throws {
        var data = try Self.sample()
        let boundary = data.profile!.boundary
        var clock = HybridClock(device: "mia-phone")
        var replica = FeedReplica()
        let visibility = Dictionary(uniqueKeysWithValues: data.sortedGoals.map { ($0.id.description, $0.visibility) })
        let window = try Self.today.adding(days: -29)...Self.today
        let items = FeedDerivation.items(of: data, owner: "mia", boundary: boundary, today: Self.today)
        let first = try replica.publish(
            items, visibility: visibility, owner: "mia", window: window, clock: &clock, now: 1_000)
        // A goal without a register is already private (FEED-8): only the shared goals' visibility is written.
        #expect(first == items.count + visibility.values.filter { $0 != .private }.count)
        #expect(
            try replica.publish(items, visibility: visibility, owner: "mia", window: window, clock: &clock, now: 2_000)
                == 0)

        // Undo the newest check-in item's Day: its item is withdrawn, and nothing else changes.
        let newest = items.first { $0.kind == .checkIn }!
        let goal = data.sortedGoals.first { $0.id.description == newest.goal }!
        try data.undo(
            goal: goal.id, on: newest.day!, at: Instant(millisecondsSince1970: newest.time + 1000),
            device: DeviceID("01938a6e-7c00-7abc-8def-00000000d001"))
        let again = FeedDerivation.items(of: data, owner: "mia", boundary: boundary, today: Self.today)
        #expect(!again.contains { $0.id == newest.id })
        let writes = try replica.publish(
            again, visibility: visibility, owner: "mia", window: window, clock: &clock, now: 3_000)
        #expect(writes >= 1)
        #expect(replica.item(newest.key) == nil)
        #expect(replica.items[newest.key] != nil, "withdrawn, not forgotten: the withdrawal replicates")

        // A friend sees the friends goal's items until it is made private.
        replica.writeStance(.want, from: "mia", to: "ana", at: try clock.tick(now: 4_000))
        replica.writeStance(.want, from: "ana", to: "mia", at: try clock.tick(now: 4_000))
        let friendsGoal = data.sortedGoals.first { $0.visibility == .friends }!.id.description
        #expect(try replica.page(for: "ana", limit: 100).items.contains { $0.goal == friendsGoal })
        var hidden = visibility
        hidden[friendsGoal] = .private
        try replica.publish(again, visibility: hidden, owner: "mia", window: window, clock: &clock, now: 5_000)
        #expect(try !replica.page(for: "ana", limit: 100).items.contains { $0.goal == friendsGoal })
    }
}
