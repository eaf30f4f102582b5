import Foundation
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import Testing

@testable import GlowRelay
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

    @Test(
        "opened again from its file, by this version or after an older one, the relay answers every viewer from every cursor as before"
    )
    func reopen() throws {
        let path = StorageTests.temporary()
        let memory = FeedRelay()
        let stored = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        try Self.drive([memory, stored], rounds: 400)
        for (index, person) in Self.people.enumerated() {
            for relay in [memory, stored] {
                try relay.register(
                    try PushDevice(token: "t\(index)", person: person, timeZone: TimeZoneID("UTC")), now: 0)
            }
        }
        try Self.drive([memory, stored], rounds: 100)
        // As a version before the index columns left the rows: the store indexes them when it opens.
        let old = try DatabaseSchema.relay.open(path: path, create: false)
        try old.execute(
            "UPDATE relay_registers SET kind = NULL, party = NULL, other = NULL, item = NULL, is_public = 0; "
                + "UPDATE relay_pushes SET person = NULL, token = NULL, at = NULL")
        let reopened = FeedRelay(store: try SQLiteFeedRelayStore(path: path))
        #expect(try old.integer("SELECT count(*) FROM relay_registers WHERE kind IS NULL") == 0)
        #expect(try reopened.pushDevices() == memory.pushDevices())
        #expect(try reopened.duePushes(at: 1 << 40) { _ in nil } == memory.duePushes(at: 1 << 40) { _ in nil })
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

    /// A store that keeps the whole relay but runs every update on the part its load names, read
    /// from the whole's rows (``StateRowSource``), and takes back what the part changed: what a
    /// database's store does, without the database.
    final class PartStore: FeedRelayStore {
        let whole = Locked(FeedRelayState())
        let logReadLimit: Int

        init(logReadLimit: Int) { self.logReadLimit = logReadLimit }

        func update<T>(
            loading load: RelayLoad, writing: Bool, confirming reading: StoreReading?,
            _ body: (inout FeedRelayState) throws(FeedError) -> T
        ) throws(FeedError) -> (result: T, sequence: UInt64)? {
            try whole.withLock { (whole) throws(FeedError) -> (result: T, sequence: UInt64) in
                var part = try FeedRelayState.loading(load, from: StateRowSource(whole), logReadLimit: logReadLimit)
                let before = part.sequence
                let result = try body(&part)
                whole.restore(part.registers(after: before), lastReceipt: part.lastReceipt)
                whole.sequence = part.sequence
                for key in part.pushes.changedRows {
                    do throws(PushError) {
                        try whole.pushes.apply(key, value: part.pushes.value(of: key))
                    } catch {
                        throw FeedError.storage(error.message)
                    }
                }
                return (result, part.sequence)
            }
        }
    }

    /// Issue 43: a request reads the rows it concerns. A relay whose every call runs on the part
    /// of the state its load names (reading the log, or the viewer's side, for a viewer's answer)
    /// answers every call exactly as the relay that holds the whole: writes, erasures, devices,
    /// due pushes, and FEED-27's answers to every viewer from every cursor, pages included.
    @Test(
        "the part of the relay a call reads answers every call as the whole relay does",
        arguments: [(1 << 20, 0), (300, 0), (1 << 20, 1_000_000), (300, 1_000_000)])
    func parts(cap: Int, logReadLimit: Int) throws {
        let store = PartStore(logReadLimit: logReadLimit)
        let whole = FeedRelay(maxAnswerBytes: cap)
        let part = FeedRelay(store: store, maxAnswerBytes: cap)
        let relays = [whole, part]
        for (index, person) in Self.people.enumerated() {
            for relay in relays {
                try relay.register(
                    try PushDevice(token: "t-\(person)", person: person, timeZone: TimeZoneID("UTC")), now: 0)
            }
            if index == 0 {
                // A token another holds: a proof push waits for it.
                for relay in relays {
                    #expect(
                        try !relay.register(
                            try PushDevice(token: "t-\(person)", person: "bob", timeZone: TimeZoneID("UTC")), now: 0))
                }
            }
        }
        try Self.drive(relays, rounds: 300)
        for relay in relays { try relay.erase("dan", now: 5_000) }
        try Self.drive(relays, rounds: 100)
        let names: (String) -> String? = { $0.uppercased() }
        #expect(try part.duePushes(at: 900_000, names: names) == whole.duePushes(at: 900_000, names: names))
        #expect(try part.pushDevices() == whole.pushDevices())
        #expect(try part.replica == whole.replica)
        // The relay's last number (an answer's cursor is a page's when the answer is paged).
        let last = store.whole.withLock { $0.sequence }
        #expect(last > 50)
        for viewer in Self.people + ["eve"] {
            for cursor in stride(from: UInt64(0), through: last + 3, by: 5) {
                // The answer and each page after it, as a device asks for them.
                var page: RelayPage?
                repeat {
                    let asked = page
                    let answer = Result { () throws(FeedError) in
                        if let asked { return try part.changes(for: viewer, page: asked) }
                        return try part.changes(for: viewer, since: cursor)
                    }
                    let expected = Result { () throws(FeedError) in
                        if let asked { return try whole.changes(for: viewer, page: asked) }
                        return try whole.changes(for: viewer, since: cursor)
                    }
                    page = nil
                    switch (answer, expected) {
                    case (.success(let answer), .success(let expected)):
                        #expect(
                            answer == expected,
                            "\(viewer) from \(cursor), \(String(describing: asked)): cursors \(answer.cursor), \(expected.cursor)"
                        )
                        page = expected.next
                    case (.failure(let answer), .failure(let expected)):
                        #expect(answer.code == expected.code)
                    default:
                        Issue.record("\(viewer) from \(cursor): \(answer) against \(expected)")
                    }
                } while page != nil
            }
        }
    }

    /// Issue 43: what a call reads grows with the people it concerns, not with the relay. Among
    /// 400 people in a ring, each wanting the two on either side, a first sync reads its viewer's friends' registers and a
    /// write its author's, whatever the rest hold.
    @Test("a first sync and a write read their people's registers, not the relay's")
    func partsAreSmall() throws {
        let store = InMemoryFeedRelayStore()
        let relay = FeedRelay(store: store)
        let people = (0..<400).map { "p\($0)" }
        for (index, person) in people.enumerated() {
            var delta = FeedReplica()
            for step in 1...2 {
                delta.writeStance(
                    .want, from: person, to: people[(index + step) % people.count], at: try Self.stamp(1, person))
                delta.writeStance(
                    .want, from: person, to: people[(index - step + people.count) % people.count],
                    at: try Self.stamp(1, person))
            }
            delta.writeVisibility(.friends, owner: person, goal: "g", at: try Self.stamp(1, person))
            let item = try FeedItem(
                owner: person, kind: .goalStarted, goal: "g", time: 1, title: "G", emoji: "", goalKind: "streak")
            delta.writeItem(item, id: item.key, at: try Self.stamp(1, person))
            try relay.submit(delta, from: person, now: 10)
        }
        let state = try store.update { (state) throws(FeedError) in state }
        let rows = StateRowSource(state)
        let first = try FeedRelayState.loading(.changes(viewer: "p7", since: 0), from: rows)
        var write = FeedReplica()
        write.writeReaction(
            true, item: FeedItemID("p8/goalStarted/g"), reactor: "p7", kind: .heart, at: try Self.stamp(2, "p7"))
        let accept = try FeedRelayState.loading(.accept(write, from: "p7"), from: rows)
        #expect(state.sequences.count == 2_400)
        #expect(first.sequences.count < 60 && accept.sequences.count < 40)
        #expect(
            FeedRelay.page(
                first, to: "p7", RelayPage(since: 0, after: 0, until: first.sequence), cap: 1 << 20)
                == FeedRelay.page(
                    state, to: "p7", RelayPage(since: 0, after: 0, until: state.sequence), cap: 1 << 20))
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
