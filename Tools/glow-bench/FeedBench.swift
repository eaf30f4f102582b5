import Foundation
import GlowFeed
import GlowModel
import GlowRelay

/// GlowFeed's figures (issue 15's targets): a page of 50 from 200 friends' 100,000 items,
/// against scanning every item; merging two replicas of 100,000 events each; and the relay
/// fanning one new item out to 1,000 friends.
enum FeedBench {
    static func stamp(_ wall: Int, _ device: String) throws -> Stamp {
        try Stamp(wall: Int64(wall), counter: 0, device: device)
    }

    static func item(owner: String, goal: Int, day: Int) throws -> FeedItem {
        try FeedItem(
            owner: owner, kind: .checkIn, goal: "g\(goal)", time: Int64(day) * 86_400_000 + Int64(goal) * 1_000,
            title: "Goal \(goal)", emoji: "✨", goalKind: "streak", day: try Day(daysSince1970: day), streak: day % 30)
    }

    /// `friends` friends of `viewer`, each with `perFriend` items over friends-only goals.
    static func replica(viewer: String, friends: Int, perFriend: Int, prefix: String = "f") throws -> FeedReplica {
        var replica = FeedReplica()
        var wall = 1
        for index in 0..<friends {
            let friend = "\(prefix)\(index)"
            replica.writeStance(.want, from: viewer, to: friend, at: try stamp(wall, viewer))
            replica.writeStance(.want, from: friend, to: viewer, at: try stamp(wall, friend))
            for goal in 0..<5 {
                replica.writeVisibility(.friends, owner: friend, goal: "g\(goal)", at: try stamp(wall, friend))
            }
            for number in 0..<perFriend {
                wall += 1
                let made = try item(owner: friend, goal: number % 5, day: 20_000 + number / 5)
                replica.writeItem(made, id: made.key, at: try stamp(wall, friend))
            }
        }
        return replica
    }

    static func run() throws {
        say("\n== feed: pages, merges and fan-out")
        let viewer = "me"
        let big = try replica(viewer: viewer, friends: 200, perFriend: 500)
        let page = try Timing.measure(samples: 21) { blackHole(try big.page(for: viewer, limit: 50)) }
        let scan = Timing.measure(samples: 5) {
            blackHole(
                big.items.values.compactMap { $0.value }.filter { big.canSee(viewer, $0) }
                    .sorted(by: FeedCursor.newerFirst).prefix(50))
        }
        record("feed", "pageOf50", page.median)
        say(
            "feed     a page of 50 from 200 friends' 100,000 items: \(milliseconds(page.median)) (target < 1 ms); scanning every item: \(milliseconds(scan.median)) (\(String(format: "%.0f", scan.median / page.median))×)"
        )

        // Two replicas of 100,000 events each (half of them shared), merged.
        // The right one: the same first 50 friends' 50,000 events, and 50,000 of 50 others.
        var right = try replica(viewer: viewer, friends: 50, perFriend: 1_000, prefix: "a")
        right.merge(try replica(viewer: viewer, friends: 50, perFriend: 1_000, prefix: "b"))
        precondition(right.items.count == 100_000 && right.items.keys.filter { $0.text.hasPrefix("a") }.count == 50_000)
        // Each sample merges into a replica of its own, as a device merges into the one it holds:
        // copying the replica first and freeing it afterwards are not the merge.
        let merge = try Timing.measure(samples: 5) {
            try replica(viewer: viewer, friends: 100, perFriend: 1_000, prefix: "a")
        } _: {
            $0.merge(right)
        }
        // The alternative: replaying the other replica's item registers one write at a time.
        let replay = try Timing.measure(samples: 5) {
            try replica(viewer: viewer, friends: 100, perFriend: 1_000, prefix: "a")
        } _: { target in
            for (id, register) in right.items { target.writeItem(register.value, id: id, at: register.stamp) }
        }
        record("feed", "merge100k", merge.median)
        say(
            "feed     merging two replicas of 100,000 events: \(milliseconds(merge.median)) (target < 50 ms); replaying their writes one by one: \(milliseconds(replay.median)) (\(String(format: "%.1f", replay.median / merge.median))×)"
        )

        // One new item from a person with 1,000 friends, fanned out to each of them.
        let relay = FeedRelay()
        var setup = FeedReplica()
        for index in 0..<1_000 {
            setup.writeStance(.want, from: "star", to: "fan\(index)", at: try stamp(index + 1, "star"))
        }
        try relay.submit(setup, from: "star", now: 1)
        // A delta holds at most 1,000 registers (FEED-25): the goal's visibility goes in a second.
        var visibility = FeedReplica()
        visibility.writeVisibility(.friends, owner: "star", goal: "g0", at: try stamp(2_000, "star"))
        try relay.submit(visibility, from: "star", now: 1)
        for index in 0..<1_000 {
            var mine = FeedReplica()
            mine.writeStance(.want, from: "fan\(index)", to: "star", at: try stamp(index + 1, "fan\(index)"))
            try relay.submit(mine, from: "fan\(index)", now: 2)
        }
        var cursors = try (0..<1_000).map { try relay.changes(for: "fan\($0)", since: 0).cursor }
        var wall = 3_000
        /// The star's one new item, accepted by the relay.
        func announce() throws {
            wall += 1
            var news = FeedReplica()
            let made = try item(owner: "star", goal: 0, day: 20_000 + wall)
            news.writeItem(made, id: made.key, at: try stamp(wall, "star"))
            try relay.submit(news, from: "star", now: Int64(wall))
        }
        let fanOut = try Timing.measure(samples: 5) {
            try announce()
            for index in 0..<1_000 {
                let answer = try relay.changes(for: "fan\(index)", since: cursors[index])
                let (delta, cursor) = (answer.delta, answer.cursor)
                precondition(delta.items.count == 1, "each fan gets the one new item")
                cursors[index] = cursor
            }
        }
        // The alternative: each viewer's answer from the relay's whole replica, its changes since
        // the viewer's last stamp filtered by what the viewer may see (no change log).
        var watermark = (try relay.replica).latestStamp
        let wholeScan = try Timing.measure(samples: 5) {
            try announce()
            let whole = try relay.replica
            for index in 0..<1_000 {
                let delta = whole.changes(since: watermark)
                let visible = delta.items.values.filter { $0.value.map { whole.canSee("fan\(index)", $0) } ?? true }
                precondition(visible.count == 1, "each fan gets the one new item")
            }
            watermark = whole.latestStamp
        }
        record("feed", "fanOut1000", fanOut.median)
        say(
            "feed     one item fanned out to 1,000 friends: \(milliseconds(fanOut.median)) (target < 1 ms); from the whole replica per viewer: \(milliseconds(wholeScan.median)) (\(String(format: "%.0f", wholeScan.median / fanOut.median))×)"
        )
    }
}
