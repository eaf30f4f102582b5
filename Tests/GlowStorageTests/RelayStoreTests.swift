import Foundation
import GlowFeed
import GlowModel
import GlowRelay
import Testing

@testable import GlowServerStores
@testable import GlowStorage

/// The relay's state on SQLite (issue 17, FEED-25 ... FEED-27): a relay opened again from its
/// file answers every viewer exactly as the relay that wrote it.
@Suite("Relay store on SQLite")
struct RelayStoreTests {
    static let people = ["ana", "bob", "cat", "dan"]

    static func stamp(_ wall: Int64, _ device: String) throws -> Stamp {
        try Stamp(wall: wall, counter: 0, device: device)
    }

    /// The same random writes of four people, submitted to every relay given.
    static func drive(_ relays: [FeedRelay], rounds: Int) throws {
        var random = SystemRandomNumberGenerator()
        for round in 0..<rounds {
            let person = people.randomElement(using: &random)!
            let other = people.filter { $0 != person }.randomElement(using: &random)!
            let wall = Int64(round + 1)
            var delta = FeedReplica()
            let goal = "g\(Int.random(in: 0..<2, using: &random))"
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                delta.writeStance(
                    [Stance.want, .none, .block].randomElement(using: &random)!, from: person, to: other,
                    at: try stamp(wall, person))
            case 1:
                let item = try FeedItem(
                    owner: person, kind: .goalStarted, goal: goal, time: wall, title: "Goal \(goal)", emoji: "",
                    goalKind: "streak")
                delta.writeItem(Bool.random(using: &random) ? item : nil, id: item.key, at: try stamp(wall, person))
            case 2:
                delta.writeVisibility(
                    [Visibility.public, .friends, .private].randomElement(using: &random)!, owner: person, goal: goal,
                    at: try stamp(wall, person))
            case 3:
                delta.writeReaction(
                    Bool.random(using: &random), item: FeedItemID("\(other)/goalStarted/\(goal)"), reactor: person,
                    kind: .fire, at: try stamp(wall, person))
            default:
                delta.markSeen(person, upTo: wall * 10)
            }
            for relay in relays { _ = try? relay.submit(delta, from: person, now: 1_000 + wall) }
        }
    }

    @Test("opened again from its file, the relay answers every viewer from every cursor as before")
    func reopen() throws {
        let path = StorageTests.temporary()
        let memory = FeedRelay()
        let stored = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        try Self.drive([memory, stored], rounds: 400)
        let reopened = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        let last = try memory.changes(for: "ana", since: 0).cursor
        #expect(try last > 50 && reopened.changes(for: "ana", since: 0).cursor == last)
        #expect(try reopened.replica == memory.replica)
        for viewer in Self.people + ["eve"] {
            for cursor in stride(from: UInt64(0), through: last, by: 7) {
                #expect(
                    try reopened.changes(for: viewer, since: cursor).delta
                        == memory.changes(for: viewer, since: cursor).delta,
                    "\(viewer) from \(cursor)")
            }
        }
        // It goes on where it stopped: the next write gets the next number, the next receipt a later time.
        try Self.drive([memory, reopened], rounds: 50)
        #expect(try reopened.changes(for: "bob", since: 0).delta == memory.changes(for: "bob", since: 0).delta)
    }

    @Test("one row per register, whatever the number of writes; a foreign file is refused untouched")
    func rowsAndForeignFiles() throws {
        let path = StorageTests.temporary()
        let relay = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        try Self.drive([relay], rounds: 600)
        let connection = try SQLiteConnection(path: path)
        let rows = try connection.integer("SELECT count(*) FROM relay_registers")
        let state = try relay.replica
        let registers =
            state.stances.count + state.items.count + state.visibility.count + state.reactions.count
            + state.seen.count
        #expect(rows == Int64(registers))
        #expect(try relay.changes(for: "ana", since: 0).cursor > UInt64(rows), "more writes than rows")

        let device = StorageTests.temporary()
        _ = try SQLiteAccountStore(path: device)
        #expect(throws: StoreError.self) { _ = try SQLiteFeedRelayStore(path: device) }
    }
}
