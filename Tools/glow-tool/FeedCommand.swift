import Foundation
import GlowActivity
import GlowFeed
import GlowModel

/// `glow-tool feed`: a person's Glow feed and unread badge, rebuilt from the bundles of the people
/// in it, for inspection and support.
///
/// Each bundle is one person's: their items are derived from their data set as of the Day asked
/// for and published (FEED-22, FEED-23), their social data (BUNDLE-27) merged in (FEED-21). Their
/// feed id is the one their social data names, or else their profile's user id. Bundles carry no
/// relay clock, so each item counts as received at its own time for the badge (FEED-13).
enum FeedCommand {
    /// What `glow-tool feed` was asked.
    struct Options: Equatable {
        var inputs: [String]
        var viewer: String
        var day: String?
        var limit = 20
        var json = false
    }

    /// One item as the viewer sees it.
    struct Row: Encodable {
        let id: String
        let owner: String
        let kind: String
        let title: String
        let emoji: String
        let time: String
        let day: String?
        let streak: Int?
        let milestone: Int?
        let reactions: [String: Int]
        let mine: [String]
        let unread: Bool
    }

    /// The whole answer.
    struct View: Encodable {
        let viewer: String
        let day: String
        let badge: Int
        let friends: [String: String]
        let items: [Row]
        let more: Bool
    }

    /// Refuses a `--limit` outside what one page holds (FEED-17).
    static func check(limit: Int) throws {
        guard (1...FeedCursor.pageLimit).contains(limit) else {
            throw UsageErrorInRun(message: "--limit: a page holds 1 to \(FeedCursor.pageLimit) items")
        }
    }

    static func run(_ options: Options, secrets: Secrets) throws {
        try check(limit: options.limit)
        let (replica, today) = try replica(options.inputs, day: try parseDay(options.day), secrets: secrets)
        let view = try view(of: replica, for: options.viewer, day: today, limit: options.limit)
        print(options.json ? Report.json(view) : text(view), terminator: "")
    }

    /// The replica the bundles make together (``FeedReplica/rebuilt(from:day:now:)``), and the
    /// Day it is as of.
    static func replica(_ inputs: [String], day: Day?, secrets: Secrets) throws -> (FeedReplica, Day) {
        let exports = try inputs.map { input in
            let (data, social) = try Files.contents(input, secrets: secrets)
            return FeedReplica.Export(name: input, data: data, social: social)
        }
        do {
            let rebuilt = try FeedReplica.rebuilt(from: exports, day: day, now: .now)
            return (rebuilt.replica, rebuilt.day)
        } catch {
            throw DataFailure(message: error.message)
        }
    }

    static func view(of replica: FeedReplica, for viewer: String, day: Day, limit: Int) throws -> View {
        let page: FeedReplica.Page
        do {
            page = try replica.page(for: viewer, limit: limit)
        } catch {
            throw DataFailure(message: "\(error)")
        }
        let seen = replica.seen[viewer] ?? .min
        let rows = try page.items.map { item in
            let summary = try replica.reactions(on: item.key, viewer: viewer)
            return Row(
                id: item.id, owner: item.owner, kind: item.kind.rawValue, title: item.title, emoji: item.emoji,
                time: (try? Instant(millisecondsSince1970: item.time))?.description ?? "\(item.time)",
                day: item.day?.description, streak: item.streak, milestone: item.milestone,
                reactions: Dictionary(uniqueKeysWithValues: summary.counts.map { ($0.key.rawValue, $0.value) }),
                mine: summary.mine.sorted().map(\.rawValue),
                unread: item.owner != viewer && (replica.receipts[item.key] ?? .min) > seen)
        }
        var friends: [String: String] = [:]
        for pair in replica.stances.keys where pair.from == viewer || pair.to == viewer {
            let other = pair.from == viewer ? pair.to : pair.from
            friends[other] = replica.friendState(viewer, other).rawValue
        }
        return View(
            viewer: viewer, day: day.description, badge: replica.badge(viewer), friends: friends, items: rows,
            more: page.next != nil)
    }

    static func text(_ view: View) -> String {
        var lines = ["Glow feed of \(view.viewer) as of \(view.day): \(view.badge) unread"]
        let friends = view.friends.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
        lines.append("People: " + (friends.isEmpty ? "none" : friends.joined(separator: ", ")))
        lines.append("")
        if view.items.isEmpty { lines.append("Nothing to show.") }
        for row in view.items {
            var what: String
            switch row.kind {
            case "milestone": what = "reached a \(row.milestone ?? 0)-day streak"
            case "checkIn": what = "checked in on \(row.day ?? "?")" + (row.streak.map { ", \($0)-day streak" } ?? "")
            case "goalStarted": what = "started a new goal"
            default: what = "finished the goal" + (row.day.map { " on \($0)" } ?? "")
            }
            let cheers = ReactionKind.allCases.compactMap { kind in
                row.reactions[kind.rawValue].map { "\(kind.symbol) \($0)" }
            }
            let title = row.emoji.isEmpty ? row.title : "\(row.emoji) \(row.title)"
            var line = "\(row.unread ? "•" : " ") \(row.time)  \(row.owner): \(title): \(what)"
            if !cheers.isEmpty { line += "  [\(cheers.joined(separator: " "))]" }
            let mine = row.mine.compactMap { ReactionKind(rawValue: $0)?.symbol }
            if !mine.isEmpty { line += " (yours: \(mine.joined(separator: " ")))" }
            lines.append(line)
        }
        if view.more { lines.append("… more items: raise --limit (at most \(FeedCursor.pageLimit))") }
        return lines.joined(separator: "\n") + "\n"
    }
}
