import Foundation
import GlowFeed
import GlowModel
import GlowPostgresStores
import GlowRelay
import GlowReminders
import GlowServerStores
import GlowStorage
import Testing

/// The relay's push outbox kept in the server's database (SERVER-12): what one process's write
/// left waiting, another process sends, once; on SQLite (two stores on one file) and on
/// PostgreSQL (two databases' connections), as two glow-server processes would.
enum PushFlow {
    static func stamp(_ person: String, _ wall: Int64) throws -> Stamp {
        try Stamp(wall: wall, counter: 0, device: person + "-phone")
    }

    /// Bob registers his phone through `first`; Ana and Bob make friends, one through each; Ana
    /// posts through `first`. Then `second` sends the push, and `first` finds nothing left.
    static func run(_ first: FeedRelay, _ second: FeedRelay) throws {
        try first.register(try PushDevice(token: "bob-phone", person: "bob", timeZone: .utc), now: 0)
        var ana = FeedReplica()
        ana.writeStance(.want, from: "ana", to: "bob", at: try stamp("ana", 1))
        ana.writeVisibility(.friends, owner: "ana", goal: "g", at: try stamp("ana", 2))
        try first.submit(ana, from: "ana", now: 1_000)
        var bob = FeedReplica()
        bob.writeStance(.want, from: "bob", to: "ana", at: try stamp("bob", 3))
        try second.submit(bob, from: "bob", now: 2_000)
        var post = FeedReplica()
        let item = try FeedItem(
            owner: "ana", kind: .checkIn, goal: "g", time: 3_000, title: "Stretch", emoji: "🧘", goalKind: "streak",
            day: try Day(iso: "2026-12-02"))
        post.writeItem(item, id: item.key, at: try stamp("ana", 4))
        try first.submit(post, from: "ana", now: 3_000)
        let sent = try second.duePushes(at: 3_000) { $0 == "ana" ? "Ana" : nil }
        #expect(sent.map(\.token) == ["bob-phone"])
        #expect(sent.first?.key == "push.item.checkIn")
        #expect(sent.first?.arguments == ["Ana", "Stretch", "🧘", ""])
        #expect(sent.first?.badge == 1)
        #expect(try first.duePushes(at: 4_000) { _ in nil }.isEmpty, "a push goes out from one process")
        // Within the window the next item waits; removed through the other process, it never goes.
        var again = FeedReplica()
        let next = try FeedItem(
            owner: "ana", kind: .checkIn, goal: "g", time: 5_000, title: "Stretch", emoji: "🧘", goalKind: "streak",
            day: try Day(iso: "2026-12-03"))
        again.writeItem(next, id: next.key, at: try stamp("ana", 5))
        try first.submit(again, from: "ana", now: 5_000)
        #expect(try second.duePushes(at: 5_000) { _ in nil }.isEmpty, "the window holds it")
        try second.removeDevice(token: "bob-phone", of: "bob")
        #expect(try first.duePushes(at: 3_000 + PushOutbox.standardWindow) { _ in nil }.isEmpty)
    }
}

extension PushFlow {
    /// Background pushes (REMIND-19 ... REMIND-21) kept in the store: Bob's phone (session s1) and
    /// tablet (s2) register through `first`; a sync pushed from s1, noted through `first`, wakes
    /// the tablet once, sent by `second`; the next one, noted through `second`, waits out the
    /// window, kept in the store meanwhile. Both relays send background pushes.
    static func background(_ first: FeedRelay, _ second: FeedRelay) throws {
        try first.register(try PushDevice(token: "bob-phone", person: "bob", timeZone: .utc, session: "s1"), now: 0)
        try first.register(try PushDevice(token: "bob-tablet", person: "bob", timeZone: .utc, session: "s2"), now: 0)
        #expect(try second.pushDevices().map(\.session) == ["s1", "s2"], "the session is kept with the device")
        try first.noteSync(of: "bob", session: "s1", records: 2, now: 1_000)
        let sent = try second.duePushes(at: 1_000) { _ in nil }
        #expect(sent.map(\.token) == ["bob-tablet"] && sent.first?.topic == "sync")
        #expect(sent.first.map { String(decoding: $0.payload, as: UTF8.self) } == #"{"aps":{"content-available":1}}"#)
        #expect(try first.duePushes(at: 2_000) { _ in nil }.isEmpty, "a push goes out from one process")
        try second.noteSync(of: "bob", session: "s1", records: 1, now: 2_000)
        #expect(try first.duePushes(at: 2_000) { _ in nil }.isEmpty, "the window holds it")
        let later = try first.duePushes(at: 1_000 + PushOutbox.standardWindow) { _ in nil }
        #expect(later.map(\.token) == ["bob-tablet"] && later.first?.pushType == "background")
    }
}

/// Server files in temporary folders of their own.
enum ServerFiles {
    /// The path of `server.sqlite` in a new folder named from `prefix`.
    static func path(_ prefix: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("server.sqlite").path
    }

    /// Removes the folder of a ``path(_:)`` (a failure leaves a folder behind, nothing else).
    static func remove(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }
}

@Suite("Push outbox in the server's database")
struct PushStoreTests {
    @Test("SQLite: what one store's write left waiting, another store on the file sends once")
    func sqlite() throws {
        let path = try ServerFiles.path("glow-push")
        defer { ServerFiles.remove(path) }
        let first = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        let second = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        try PushFlow.run(first, second)
    }

    @Test("SQLite: a background push one store's note left waiting, another store sends once, after the window")
    func background() throws {
        let path = try ServerFiles.path("glow-push-background")
        defer { ServerFiles.remove(path) }
        let first = FeedRelay(store: try SQLiteServerDatabase(path: path).relay, backgroundPushes: true)
        let second = FeedRelay(store: try SQLiteServerDatabase(path: path).relay, backgroundPushes: true)
        try PushFlow.background(first, second)
    }

    @Test("SQLite: the outbox survives a restart, and a removed device stays removed")
    func restart() throws {
        let path = try ServerFiles.path("glow-push")
        defer { ServerFiles.remove(path) }
        do {
            let relay = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
            try relay.register(
                try PushDevice(
                    token: "t1", person: "bob", timeZone: try TimeZoneID("Europe/London"),
                    quietHours: try .init(start: 1320, end: 420)), now: 0)
            try relay.register(try PushDevice(token: "t2", person: "cat", timeZone: .utc), now: 0)
            try relay.removeDevice(token: "t2", of: "cat")
        }
        let reopened = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        let devices = try reopened.pushDevices()
        #expect(devices.map(\.token) == ["t1"])
        #expect(devices.first?.quietHours == (try PersonReminders.QuietHours(start: 1320, end: 420)))
        #expect(devices.first?.boundary.timeZone.identifier == "Europe/London")
    }
}

extension PushStoreTests {
    @Test(
        "a push row that does not read is refused with a typed error where it is read, and the file stays as it was",
        arguments: [
            ("device", "t", "not json"), ("group", "no-topic", "{}"), ("rumour", "k", "{}"),
            ("device", "t", #"{"person":"bob","timeZone":"no zone"}"#),
            ("group", "t\nfriend/ana", #"{"sendAt":1,"items":[],"reactions":[["i","bob","hug"]]}"#),
            ("closed", "ana", #"{"open":true}"#),
        ])
    func unreadableRow(_ kind: String, _ key: String, _ value: String) throws {
        let path = try ServerFiles.path("glow-push")
        defer { ServerFiles.remove(path) }
        _ = try SQLiteServerDatabase(path: path)
        let connection = try DatabaseSchema.server.open(path: path, create: false)
        // Indexed as this version writes rows (ana's, at time 1), so opening the file reads nothing.
        try connection.prepare(
            "INSERT INTO relay_pushes (kind, key, value, person, token, at) VALUES (?, ?, ?, ?, ?, ?)"
        )
        .run([.text(kind), .text(key), .blob(Array(value.utf8)), .text("ana"), .text("t"), .integer(1)])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let relay = FeedRelay(store: try SQLiteServerDatabase(path: path).relay)
        // A call that reads the row refuses, naming the storage; one that does not is answered.
        #expect { try relay.replica } throws: { error in (error as? FeedError)?.code == .storageFailed }
        #expect(try relay.changes(for: "cat", since: 0).cursor == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

extension PostgresStoreTests {
    @Test("PostgreSQL: what one process's write left waiting, another process sends once")
    func pushes() throws {
        let first = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        let second = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        try PushFlow.run(first, second)
        // A third process, reading everything afresh, holds the same outbox: nothing waits.
        let third = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay)
        #expect(try third.pushDevices().isEmpty)
        #expect(try third.duePushes(at: Int64.max / 2) { _ in nil }.isEmpty)
    }

    @Test("PostgreSQL: a background push one process noted, another sends once, after the window")
    func backgroundPushes() throws {
        let first = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay, backgroundPushes: true)
        let second = FeedRelay(store: try PostgresServerDatabase(url: cluster.conninfo).relay, backgroundPushes: true)
        try PushFlow.background(first, second)
    }
}
