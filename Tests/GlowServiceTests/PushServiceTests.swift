import Foundation
import GlowClient
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowReminders
import Testing

@testable import GlowService

/// Devices registered through glow-server's calls and the pushes it sends (SERVER-12).
@Suite("glow-server's pushes")
struct PushServiceTests {
    static func register(_ client: ServiceClient, _ session: ClientSession, token: String, zone: String = "UTC")
        async throws
    {
        _ = try await client.call(
            "register-device",
            ProtocolMessage("RegisterDeviceRequest").with("token", token).with("time_zone", zone),
            accessToken: session.accessToken)
    }

    @Test(
        "a device registered over HTTP gets a friend's item; another's removal leaves it; deleting the account ends it")
    func devices() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (anaClient, ana) = try await ClientTests.account("ana-push", on: server)
        let (bobClient, bob) = try await ClientTests.account("bob-push", on: server)
        let keeper = SessionKeeper(client: bobClient, session: bob)
        try await keeper.registerDevice(
            token: "bob-phone", timeZone: try TimeZoneID("Europe/London"), quietHours: try .init(start: 1320, end: 420))
        #expect(try server.relay.pushDevices().first?.quietHours?.end == 420)
        do {
            try await keeper.registerDevice(token: "bob phone", timeZone: .utc)
            Issue.record("a token with a space was taken")
        } catch {
            #expect(error.code.description == "invalid_reminder", "\(error)")
        }
        let mars = try TimeZoneID("Mars/Olympus")
        do {
            try await keeper.registerDevice(token: "bob-phone", timeZone: mars)
            Issue.record("a zone without rules was taken")
        } catch {
            #expect(error.code.description == "invalid_time_zone", "\(error)")
        }
        try await Self.register(bobClient, bob, token: "bob-phone")
        // Ana knows Bob's token and asks to remove it: Done, and nothing changes (SERVER-12).
        let answer = try await anaClient.call(
            "remove-device", ProtocolMessage("RemoveDeviceRequest").with("token", "bob-phone"),
            accessToken: ana.accessToken)
        #expect(answer.type.name == "Done")
        #expect(try server.relay.pushDevices().map(\.person) == [bob.account.rawValue])
        // Friends, and Ana posts: the push waits in the relay's outbox, and the dispatcher sends it.
        try Self.befriend(server.relay, ana.account.rawValue, bob.account.rawValue)
        var anaWrites = FeedReplica()
        let item = try FeedItem(
            owner: ana.account.rawValue, kind: .checkIn, goal: "g", time: 3, title: "Run", emoji: "🏃",
            goalKind: "streak",
            day: try Day(iso: "2026-12-02"))
        anaWrites.writeItem(item, id: item.key, at: try Stamp(wall: 4, counter: 0, device: "p"))
        try server.relay.submit(anaWrites, from: ana.account.rawValue, now: 2)
        let sender = RecordingPushSender()
        let dispatcher = PushDispatcher(relay: server.relay, sender: sender, report: { Issue.record("\($0)") })
        #expect(try dispatcher.sendDue() == 1)
        #expect(sender.pushes.map(\.token) == ["bob-phone"])
        #expect(
            sender.pushes.first?.arguments.first == ana.account.rawValue, "the relay knows no names: the identifier")
        #expect(try dispatcher.sendDue() == 0, "sent once")
        // Deleting Bob's account removes his devices.
        _ = try await bobClient.call(
            "delete-account", ProtocolMessage("DeleteAccountRequest").with("confirmed", .bool(true)),
            accessToken: bob.accessToken)
        #expect(try server.relay.pushDevices().isEmpty)
    }

    /// Issue 44 item 9: a person who learns another's token cannot take its pushes; the device
    /// that holds it proves so with the code its background push carried, as an app does.
    @Test("a token another account holds moves over HTTP only with the code of its proof push")
    func tokenProof() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (bobClient, bob) = try await ClientTests.account("bob-proof", on: server)
        let (eveClient, eve) = try await ClientTests.account("eve-proof", on: server)
        try await SessionKeeper(client: bobClient, session: bob).registerDevice(token: "bob-phone", timeZone: .utc)
        let eveKeeper = SessionKeeper(client: eveClient, session: eve)
        for proof in [nil, "0123456789abcdef0123456789abcdef"] {
            do {
                try await eveKeeper.registerDevice(token: "bob-phone", timeZone: .utc, proof: proof)
                Issue.record("the token moved with the proof \(proof ?? "none")")
            } catch {
                #expect(error.code.description == "token_held" && error.status == 409, "\(error)")
            }
        }
        #expect(try server.relay.pushDevices().map(\.person) == [bob.account.rawValue])
        // One proof push went to the token, for Eve, showing nothing of Bob's.
        let sender = RecordingPushSender()
        let dispatcher = PushDispatcher(relay: server.relay, sender: sender, report: { Issue.record("\($0)") })
        #expect(try dispatcher.sendDue() == 1)
        let push = try #require(sender.pushes.first)
        #expect(push.token == "bob-phone" && push.person == eve.account.rawValue && push.pushType == "background")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(push.payload)) as? [AnyHashable: Any])
        let code = try #require(SessionKeeper.proofCode(inPushPayload: payload))
        #expect(code.count == 32)
        // The phone that got it proves it: the token moves.
        try await eveKeeper.registerDevice(token: "bob-phone", timeZone: .utc, proof: code)
        #expect(try server.relay.pushDevices().map(\.person) == [eve.account.rawValue])
    }

    @Test("a started dispatcher sends what falls due by itself, and stops")
    func dispatcher() throws {
        let relay = FeedRelay(pushWindow: 0)
        try relay.register(try PushDevice(token: "bob-phone", person: "bob", timeZone: .utc), now: 0)
        try Self.befriend(relay, "ana", "bob")
        var ana = FeedReplica()
        let item = try FeedItem(
            owner: "ana", kind: .goalStarted, goal: "g", time: 5, title: "Walk", emoji: "", goalKind: "streak")
        ana.writeItem(item, id: item.key, at: try Stamp(wall: 4, counter: 0, device: "ana1"))
        try relay.submit(ana, from: "ana", now: 2)
        let sender = RecordingPushSender()
        let dispatcher = PushDispatcher(relay: relay, sender: sender, interval: 0.02, report: { Issue.record("\($0)") })
        dispatcher.start()
        let deadline = Date().addingTimeInterval(5)
        while sender.pushes.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        dispatcher.stop()
        #expect(sender.pushes.map(\.key) == ["push.item.goalStarted"])
    }

    @Test("a proof push printed for people withholds its code and its token; the push command gets both")
    func proofWithheld() throws {
        let relay = FeedRelay(pushWindow: 0)
        try relay.register(try PushDevice(token: "bob-phone", person: "bob", timeZone: .utc), now: 0)
        // Eve names bob's token: refused, and a proof push with a code goes to the token.
        #expect(try !relay.register(try PushDevice(token: "bob-phone", person: "eve", timeZone: .utc), now: 1_000))
        let pushes = try relay.duePushes(at: 1_000) { _ in nil }
        let proof = try #require(pushes.first { $0.topic == "proof" })
        let payload = try #require(
            try JSONSerialization.jsonObject(with: Data(proof.payload)) as? [String: Any])
        let code = try #require(payload["glow-proof"] as? String)
        #expect(code.count == 32)
        // Whoever reads the server's standard error could move the token with the code.
        let printed = PushLine.text(proof, withholdingToken: true)
        #expect(!printed.contains(code) && !printed.contains("bob-phone"), "\(printed)")
        #expect(printed.contains(#""glow-proof":"[withheld]""#), "\(printed)")
        // The push service gets the push whole.
        let sent = PushLine.text(proof)
        #expect(sent.contains(code) && sent.contains("bob-phone"))
    }

    @Test("the push command takes one JSON line per push; a command that fails is a typed error")
    func command() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let relay = FeedRelay(pushWindow: 0)
        try relay.register(try PushDevice(token: #"tok"en\1"#, person: "bob", timeZone: .utc), now: 0)
        try Self.befriend(relay, "ana", "bob")
        var post = FeedReplica()
        for (index, title) in ["Say \"hi\"", "Walk"].enumerated() {
            let item = try FeedItem(
                owner: "ana", kind: .checkIn, goal: "g", time: 5, title: title, emoji: "", goalKind: "streak",
                day: try Day(iso: "2026-12-0\(index + 1)"))
            post.writeItem(item, id: item.key, at: try Stamp(wall: 4 + Int64(index), counter: 0, device: "a"))
        }
        try relay.submit(post, from: "ana", now: 10_000)
        let pushes = try relay.duePushes(at: 10_000) { _ in nil }
        #expect(pushes.count == 1)
        // Printed for people (no --push-command), the device's token is withheld.
        #expect(!PushLine.text(pushes[0], withholdingToken: true).contains(#"tok\"en"#))
        let file = folder.appendingPathComponent("pushes.jsonl").path
        try CommandPushSender(command: "cat > '\(file)'").send(pushes)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["token"] as? String == #"tok"en\1"#)
        #expect(object["topic"] as? String == "friend/ana")
        #expect(object["pushType"] as? String == "alert" && object["priority"] as? Int == 10)
        #expect(object["expiration"] as? Int == 10 + 86_400)
        let aps = try #require((object["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["loc-key"] as? String == "push.items")
        #expect(aps["badge"] as? Int == 2)
        #expect {
            try CommandPushSender(command: "cat > /dev/null; exit 3").send(pushes)
        } throws: { error in
            (error as? PushError)?.code == .sendFailed && (error as? PushError)?.message.contains("status 3") == true
        }
    }

    /// `owner` and `friend` become friends through `relay`, and `owner`'s goal `g` is for friends.
    static func befriend(_ relay: FeedRelay, _ owner: String, _ friend: String) throws {
        var mine = FeedReplica()
        mine.writeStance(.want, from: owner, to: friend, at: try Stamp(wall: 1, counter: 0, device: "p"))
        mine.writeVisibility(.friends, owner: owner, goal: "g", at: try Stamp(wall: 2, counter: 0, device: "p"))
        try relay.submit(mine, from: owner, now: 1)
        var theirs = FeedReplica()
        theirs.writeStance(.want, from: friend, to: owner, at: try Stamp(wall: 3, counter: 0, device: "p"))
        try relay.submit(theirs, from: friend, now: 1)
    }
}
