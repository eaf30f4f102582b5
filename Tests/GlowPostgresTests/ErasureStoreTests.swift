import Foundation
import GlowFeed
import GlowModel
import GlowPostgresStores
import GlowRelay
import GlowReminders
import GlowServerStores
import GlowStorage
import Testing

/// FEED-31 across processes: an account deleted through one server process closes its person for
/// every process on the database, so a write authenticated before the deletion and reaching
/// another process after it is refused there, and nothing the person wrote outlives the account.
enum ErasureFlow {
    static func stamp(_ person: String, _ wall: Int64) throws -> Stamp {
        try Stamp(wall: wall, counter: 0, device: person + "-phone")
    }

    static func checkIn(_ owner: String, _ goal: String) throws -> FeedItem {
        try FeedItem(
            owner: owner, kind: .checkIn, goal: goal, time: 3_000, title: "Stretch", emoji: "🧘", goalKind: "streak",
            day: try Day(iso: "2026-12-02"))
    }

    /// `erased` and `friend` make friends and `erased` posts, through `first`; `second` erases
    /// `erased`; then `first` refuses everything of theirs and tells `friend` of the withdrawal.
    static func run(_ first: FeedRelay, _ second: FeedRelay, erased: String, friend: String) throws {
        try first.register(try PushDevice(token: erased + "-phone", person: erased, timeZone: .utc), now: 0)
        var mine = FeedReplica()
        mine.writeStance(.want, from: erased, to: friend, at: try stamp(erased, 1))
        mine.writeVisibility(.friends, owner: erased, goal: "g", at: try stamp(erased, 2))
        let item = try checkIn(erased, "g")
        mine.writeItem(item, id: item.key, at: try stamp(erased, 3))
        try first.submit(mine, from: erased, now: 1_000)
        var theirs = FeedReplica()
        theirs.writeStance(.want, from: friend, to: erased, at: try stamp(friend, 4))
        try first.submit(theirs, from: friend, now: 1_000)
        #expect(try first.changes(for: friend, since: 0).delta.items[item.key]?.value != nil)

        try second.erase(erased, now: 2_000)

        // The late write: a stamp far ahead, to beat the withdrawal were it let in.
        var late = FeedReplica()
        late.writeItem(item, id: item.key, at: try stamp(erased, 9_000_000_000_000))
        #expect {
            try first.submit(late, from: erased, now: 2_100)
        } throws: { error in
            (error as? FeedError)?.code == .personErased
        }
        #expect {
            _ = try first.changes(for: erased, since: 0)
        } throws: { error in
            (error as? FeedError)?.code == .personErased
        }
        #expect {
            try first.register(try PushDevice(token: erased + "-tablet", person: erased, timeZone: .utc), now: 0)
        } throws: { error in
            (error as? FeedError)?.code == .personErased
        }
        #expect(try first.pushDevices().allSatisfy { $0.person != erased }, "their devices went with them")
        let seen = try first.changes(for: friend, since: 0).delta
        // No longer friends, the friend may not see the friends-only goal: neither its item nor its
        // withdrawal comes (FEED-27 (2)).
        #expect(seen.items[item.key] == nil, "nothing of a goal the friend may no longer see")
        #expect(seen.stances[FeedReplica.PairKey(from: erased, to: friend)]?.stance == Stance.none)
    }
}

@Suite("Erasure in the server's database")
struct ErasureStoreTests {
    @Test("SQLite: erased through one store, refused by another on the file, and after a restart")
    func sqlite() throws {
        let path = try ServerFiles.path("glow-erase")
        defer { ServerFiles.remove(path) }
        let first = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        let second = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        try ErasureFlow.run(first, second, erased: "ana", friend: "bob")
        let reopened = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        var write = FeedReplica()
        write.writeVisibility(.public, owner: "ana", goal: "g", at: try ErasureFlow.stamp("ana", 10))
        #expect {
            try reopened.submit(write, from: "ana", now: 5_000)
        } throws: { error in
            (error as? FeedError)?.code == .personErased
        }
        // Erasing again changes nothing, and others go on as before.
        let sequence = try reopened.changes(for: "bob", since: 0).cursor
        #expect(try reopened.erase("ana", now: 6_000) == sequence)
        var bob = FeedReplica()
        bob.writeVisibility(.public, owner: "bob", goal: "b", at: try ErasureFlow.stamp("bob", 10))
        #expect(try reopened.submit(bob, from: "bob", now: 6_000) == sequence + 1)
    }
}

extension PostgresStoreTests {
    @Test("PostgreSQL: erased through one process, refused by another, and by a third reading afresh")
    func erasure() throws {
        let first = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        let second = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        try ErasureFlow.run(first, second, erased: "eve", friend: "fay")
        let third = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        #expect {
            _ = try third.changes(for: "eve", since: 0)
        } throws: { error in
            (error as? FeedError)?.code == .personErased
        }
    }
}
