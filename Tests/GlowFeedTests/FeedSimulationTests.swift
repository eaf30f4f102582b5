import GlowModel
import GlowProtocol
import GlowRelay
import GlowWire
import Testing

@testable import GlowFeed

/// Fifty people with three devices each, through a relay: random friend actions, items,
/// visibility changes, reactions and seen marks, made on devices that go offline and come back,
/// whose clocks run up to five minutes off. Every device ends with what its person may see, and
/// no answer of the relay ever held an item its viewer could not see at that moment (FEED-25 ...
/// FEED-27).
@Suite("Feed simulation through the relay")
struct FeedSimulationTests {
    struct Device {
        let person: String
        var clock: HybridClock
        var replica = FeedReplica()
        var cursor: UInt64 = 0
        var sent: Stamp?
        var online = true
        let skew: Int64
    }

    static let people = (0..<50).map { "p\($0)" }

    /// Sends the device's own new writes, then takes in what the relay has for its person: both
    /// as the bytes of the relay's messages (FEED-29), as a transport would carry them.
    static func sync(_ device: inout Device, _ relay: FeedRelay, now: Int64) throws {
        let mine = device.replica.authored(by: device.person, since: device.sent)
        if mine != FeedReplica() {
            let answer = relay.handle(RelayRequest.submit(mine).wireEncoded(), from: device.person, now: now)
            guard case .submitted = try RelayResponse(wire: answer) else {
                Issue.record("the relay refused \(device.person)'s own writes")
                return
            }
            device.sent = .max(device.sent, mine.latestStamp)
        }
        let answer = relay.handle(
            RelayRequest.changes(since: device.cursor).wireEncoded(), from: device.person, now: now)
        guard case .changes(let delta, let cursor, _) = try RelayResponse(wire: answer) else {
            Issue.record("the relay did not answer \(device.person)'s changes")
            return
        }
        let truth = try relay.replica
        for register in delta.items.values {
            if let item = register.value {
                #expect(
                    truth.canSee(device.person, item), "\(device.person) was sent \(item.id), which they may not see")
            }
        }
        device.replica.merge(delta)
        device.cursor = cursor
        if let latest = delta.latestStamp { try device.clock.receive(latest, now: now + device.skew) }
    }

    /// One random local change on `device`.
    static func act(_ device: inout Device, _ random: inout SeededRandom, now: Int64) throws {
        let person = device.person
        let physical = max(0, now + device.skew)
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2:
            let other = people.randomElement(using: &random)!
            let action = FriendAction.allCases.randomElement(using: &random)!
            let stamp = try device.clock.tick(now: physical)
            try? device.replica.act(action, from: person, toward: other, at: stamp)
        case 3, 4:
            let goal = "g\(Int.random(in: 0..<3, using: &random))"
            let day = try Day(daysSince1970: 20_000 + Int.random(in: 0..<5, using: &random))
            let item = try FeedItem(
                owner: person, kind: .checkIn, goal: goal, time: Int64(day.daysSince1970) * 86_400_000,
                title: "Goal \(goal)", emoji: "✨", goalKind: "single", day: day,
                streak: Int.random(in: 1...9, using: &random))
            device.replica.writeItem(
                item, id: item.key, at: try device.clock.tick(now: physical))
        case 5:
            let mine = device.replica.items.filter { $0.value.value?.owner == person }.keys.sorted()
            if let id = mine.randomElement(using: &random) {
                device.replica.writeItem(nil, id: id, at: try device.clock.tick(now: physical))
            }
        case 6:
            let goal = "g\(Int.random(in: 0..<3, using: &random))"
            let visibility = Visibility.allCases.randomElement(using: &random)!
            device.replica.writeVisibility(
                visibility, owner: person, goal: goal, at: try device.clock.tick(now: physical))
        case 7, 8:
            let page = try device.replica.page(for: person, limit: 100).items.filter { $0.owner != person }
            if let item = page.randomElement(using: &random) {
                let kind = ReactionKind.allCases.randomElement(using: &random)!
                try device.replica.react(
                    kind, on: item.key, by: person, Bool.random(using: &random),
                    at: try device.clock.tick(now: physical)
                )
            }
        default:
            let newest = device.replica.receipts.values.max() ?? 0
            device.replica.markSeen(person, upTo: newest)
        }
    }

    @Test("every device converges to what its person may see, and never receives more", arguments: [2, 7, 2026])
    func converges(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let relay = FeedRelay()
        var devices: [Device] = []
        for person in Self.people {
            for index in 0..<3 {
                devices.append(
                    Device(
                        person: person, clock: HybridClock(device: "\(person)-d\(index)"),
                        skew: Int64.random(in: -300_000...300_000, using: &random)))
            }
        }
        var now: Int64 = 1_796_083_200_000
        for _ in 0..<4_000 {
            now += Int64.random(in: 0...2_000, using: &random)
            let index = Int.random(in: 0..<devices.count, using: &random)
            if Int.random(in: 0..<20, using: &random) == 0 { devices[index].online.toggle() }
            try Self.act(&devices[index], &random, now: now)
            if devices[index].online && Int.random(in: 0..<3, using: &random) == 0 {
                try Self.sync(&devices[index], relay, now: now)
            }
        }
        // Everyone comes back online and syncs until nothing moves.
        for round in 0..<3 {
            now += 1_000
            for index in devices.indices {
                devices[index].online = true
                try Self.sync(&devices[index], relay, now: now + Int64(round))
            }
        }
        let truth = try relay.replica
        var checkedItems = 0
        for device in devices {
            let person = device.person
            let expected = try Self.wholeFeed(truth, person)
            let got = try Self.wholeFeed(device.replica, person)
            #expect(got == expected, "\(person) on \(device.clock.device)")
            #expect(device.replica.badge(person) == truth.badge(person))
            for other in Self.people where other != person {
                #expect(device.replica.friendState(person, other) == truth.friendState(person, other))
            }
            for item in expected {
                #expect(
                    try device.replica.reactions(on: item.key, viewer: person)
                        == truth.reactions(on: item.key, viewer: person))
                checkedItems += 1
            }
        }
        #expect(checkedItems > 100, "the simulation shared items")
        #expect(Self.people.contains { truth.badge($0) > 0 } || Self.people.contains { truth.seen[$0] != nil })
    }

    /// Every page of `person`'s feed in `replica`.
    static func wholeFeed(_ replica: FeedReplica, _ person: String) throws -> [FeedItem] {
        var items: [FeedItem] = []
        var cursor: FeedCursor?
        repeat {
            let page = try replica.page(for: person, limit: 100, after: cursor)
            items += page.items
            cursor = page.next
        } while cursor != nil
        return items
    }
}
