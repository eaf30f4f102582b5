import GlowActivity
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowWire

/// The feed's operations (FEED-1 ... FEED-21): a device's clock, and scripts of writes, actions,
/// merges and reads over named replicas.
package enum FeedOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "feed.clock": { input in
            var clock = HybridClock(device: try input.string("device"))
            var results: [JSONValue] = []
            for step in input["steps"]?.array ?? [] {
                do throws(FeedError) {
                    let now = Int64(step["now"]?.int ?? -1)
                    if let remote = step["receive"] {
                        try clock.receive(try stamp(remote), now: now)
                        results.append(.object(["clock": .array([.int(Int(clock.wall)), .int(Int(clock.counter))])]))
                    } else {
                        let made = try clock.tick(now: now)
                        results.append(.object(["stamp": stampValue(made)]))
                    }
                } catch {
                    results.append(.object(["error": .string(error.code.description)]))
                }
            }
            return .object(["steps": .array(results)])
        },
        "feed.script": { input in try FeedScript().run(input["steps"]?.array ?? []) },
    ]

    /// `[wall, counter, device]`.
    static func stamp(_ value: JSONValue) throws(FeedError) -> Stamp {
        guard case .array(let parts) = value, parts.count == 3, let wall = parts[0].int, let counter = parts[1].int,
            let device = parts[2].string
        else { return try Stamp(wall: -1, counter: 0, device: "") }
        return try Stamp(wall: Int64(wall), counter: Int64(counter), device: device)
    }

    static func stampValue(_ stamp: Stamp) -> JSONValue {
        .array([.int(Int(stamp.wall)), .int(Int(stamp.counter)), .string(stamp.device)])
    }

    /// Named replicas and the cursor of the last page, through a script's steps.
    final class FeedScript {
        var replicas: [String: FeedReplica] = [:]
        var lastCursor: FeedCursor?

        func run(_ steps: [JSONValue]) throws -> JSONValue {
            var results: [JSONValue] = []
            for step in steps {
                do throws(FeedError) {
                    results.append(try perform(step))
                } catch {
                    results.append(.object(["error": .string(error.code.description)]))
                }
            }
            return .object(["steps": .array(results)])
        }

        static let ok: JSONValue = .object(["ok": .bool(true)])

        func perform(_ step: JSONValue) throws(FeedError) -> JSONValue {
            let name = step["replica"]?.string ?? "r"
            var replica = replicas[name] ?? FeedReplica()
            defer { replicas[name] = replica }
            func text(_ key: String) -> String { step[key]?.string ?? "" }
            switch step["do"]?.string ?? "" {
            case "stance":
                guard let stance = Stance(rawValue: text("stance")) else { return Self.unknown("stance") }
                replica.writeStance(stance, from: text("from"), to: text("to"), at: try stamp(step["stamp"] ?? .null))
                return Self.ok
            case "act":
                guard let action = FriendAction(rawValue: text("action")) else { return Self.unknown("action") }
                try replica.act(action, from: text("from"), toward: text("to"), at: try stamp(step["stamp"] ?? .null))
                return Self.ok
            case "state":
                return .object(["state": .string(replica.friendState(text("a"), text("b")).rawValue)])
            case "item":
                let stamp = try stamp(step["stamp"] ?? .null)
                if let id = step["withdraw"]?.string {
                    replica.writeItem(nil, id: FeedItemID(id), at: stamp)
                    return .object(["ok": .bool(true), "id": .string(id)])
                }
                let item = try Self.item(step["item"] ?? .null)
                replica.writeItem(item, id: item.key, at: stamp)
                return .object(["ok": .bool(true), "id": .string(item.id)])
            case "visibility":
                guard let value = Visibility(rawValue: text("visibility")) else { return Self.unknown("visibility") }
                replica.writeVisibility(
                    value, owner: text("owner"), goal: text("goal"), at: try stamp(step["stamp"] ?? .null))
                return Self.ok
            case "reaction":
                // A raw write, as a delta carries it: no check of who may react (FEED-25 does that).
                let kind = try ReactionKind(name: text("kind"))
                replica.writeReaction(
                    step["on"] != .bool(false), item: FeedItemID(text("item")), reactor: text("reactor"), kind: kind,
                    at: try stamp(step["stamp"] ?? .null))
                return Self.ok
            case "react":
                let kind = try ReactionKind(name: text("kind"))
                try replica.react(
                    kind, on: FeedItemID(text("item")), by: text("reactor"), step["on"] != .bool(false),
                    at: try stamp(step["stamp"] ?? .null))
                return Self.ok
            case "receive":
                replica.receive(item: FeedItemID(text("item")), at: Int64(step["at"]?.int ?? 0))
                return Self.ok
            case "seen":
                replica.markSeen(text("person"), upTo: Int64(step["upTo"]?.int ?? 0))
                return Self.ok
            case "merge":
                replica.merge(replicas[text("from")] ?? FeedReplica())
                return Self.ok
            case "changes":
                // FEED-24: the changes of `replica` since `since` (a stamp, or none) applied to `into`.
                let watermark: Stamp? = step["since"] == nil || step["since"] == .null ? nil : try stamp(step["since"]!)
                var target = replicas[text("into")] ?? FeedReplica()
                target.merge(replica.changes(since: watermark))
                replicas[text("into")] = target
                return Self.ok
            case "encode":
                // FEED-28: the replica's canonical bytes.
                return .object(["hex": .string(HexText.text(replica.wireEncoded()))])
            case "decode":
                // FEED-28: bytes read into the replica `into` (replacing it), or the wire error.
                guard let bytes = try? HexText.bytes(text("hex").utf8) else { return Self.unknown("hex") }
                do {
                    let decoded = try FeedReplica(wire: bytes)
                    if text("into") == name { replica = decoded } else { replicas[text("into")] = decoded }
                    return Self.ok
                } catch {
                    return .object(["error": .string(error.code.description)])
                }
            case "equal":
                let names = (step["replicas"]?.array ?? []).compactMap(\.string)
                let states = names.map { $0 == name ? replica : replicas[$0] ?? FeedReplica() }
                return .object(["equal": .bool(Set(states).count <= 1)])
            case "page":
                var cursor: FeedCursor?
                if let given = step["cursor"]?.string {
                    cursor = given == "$next" ? lastCursor : try FeedCursor(text: given)
                }
                let page = try replica.page(for: text("viewer"), limit: step["limit"]?.int ?? 20, after: cursor)
                lastCursor = page.next
                return .object(["items": .array(page.items.map { .string($0.id) }), "next": .bool(page.next != nil)])
            case "reactions":
                let summary = try replica.reactions(on: FeedItemID(text("item")), viewer: text("viewer"))
                return .object([
                    "counts": .object(
                        Dictionary(
                            uniqueKeysWithValues: ReactionKind.allCases.map {
                                ($0.rawValue, .int(summary.counts[$0] ?? 0))
                            })),
                    "mine": .array(summary.mine.sorted().map { .string($0.rawValue) }),
                ])
            case "badge":
                return .object(["badge": .int(replica.badge(text("viewer")))])
            case "notices":
                guard let zone = try? TimeZoneID(text("zone")), let boundary = try? DayBoundary(timeZone: zone) else {
                    return Self.unknown("zone")
                }
                var names: [String: JSONValue] = [:]
                if case .object(let given)? = step["names"] { names = given }
                return .object([
                    "notices": .array(
                        replica.notices(for: text("owner"), boundary: boundary).map { notice in
                            .object([
                                "item": .string(notice.item.id), "day": .string(notice.day.description),
                                "kind": .string(notice.kind.rawValue),
                                "reactors": .array(notice.reactors.map { .string($0) }),
                                "text": .string(notice.text { names[$0]?.string ?? $0 }),
                            ])
                        })
                ])
            default:
                return Self.unknown("step")
            }
        }

        static func unknown(_ what: String) -> JSONValue { .object(["error": .string("unknown_\(what)")]) }

        /// An item from its JSON form.
        static func item(_ value: JSONValue) throws(FeedError) -> FeedItem {
            let kind = FeedItem.Kind(rawValue: value["kind"]?.string ?? "")
            func day(_ key: String) -> Day? { value[key]?.string.flatMap { Day($0) } }
            guard let kind, let time = value["time"]?.int else {
                return try FeedItem(
                    owner: "", kind: .goalStarted, goal: "", time: -1, title: "", emoji: "", goalKind: "")
            }
            return try FeedItem(
                owner: value["owner"]?.string ?? "", kind: kind, goal: value["goal"]?.string ?? "", time: Int64(time),
                title: value["title"]?.string ?? "", emoji: value["emoji"]?.string ?? "",
                goalKind: value["goalKind"]?.string ?? "", day: day("day"), streak: value["streak"]?.int,
                milestone: value["milestone"]?.int, streakStart: day("streakStart"))
        }
    }
}

extension FeedOperations {
    /// `feed.derive`: the items of `dataSet` as of `today` for `owner` (FEED-22).
    package static let derive: [String: ModelOperations.Operation] = [
        "feed.publish": { input in
            let owner = try input.string("owner")
            guard let today = Day(try input.string("today")) else {
                throw CorpusInputError(description: "today is not a Day")
            }
            var clock = HybridClock(device: try input.string("device"))
            var replica = FeedReplica()
            var results: [JSONValue] = []
            for (index, set) in (input["sets"]?.array ?? []).enumerated() {
                let data = try ModelOperations.decode(DataSet.self, set)
                guard let profile = data.profile else {
                    throw CorpusInputError(description: "set \(index) has no profile")
                }
                let writes = try replica.publish(
                    data, owner: owner, boundary: profile.boundary, today: today, clock: &clock,
                    now: Int64(try input.int("now")) + Int64(index))
                let present = replica.items.compactMap { $0.value.value }.filter { $0.owner == owner }
                    .sorted(by: FeedCursor.newerFirst)
                let withdrawn = replica.items.filter { $0.value.value == nil }.map(\.key).sorted()
                results.append(
                    .object([
                        "writes": .int(writes), "items": .array(present.map { .string($0.id) }),
                        "withdrawn": .array(withdrawn.map { .string($0.text) }),
                    ]))
            }
            return .object(["publications": .array(results)])
        },
        "feed.derive": { input in
            let data = try ModelOperations.decode(DataSet.self, try input.required("dataSet"))
            guard let profile = data.profile else { throw CorpusInputError(description: "the data set has no profile") }
            guard let today = Day(try input.string("today")) else {
                throw CorpusInputError(description: "today is not a Day")
            }
            let items = FeedDerivation.items(
                of: data, owner: try input.string("owner"), boundary: profile.boundary, today: today)
            return .object([
                "items": .array(
                    items.map { item in
                        var members: [String: JSONValue] = [
                            "id": .string(item.id), "kind": .string(item.kind.rawValue), "time": .int(Int(item.time)),
                            "title": .string(item.title), "emoji": .string(item.emoji),
                            "goalKind": .string(item.goalKind),
                        ]
                        if let day = item.day { members["day"] = .string(day.description) }
                        if let streak = item.streak { members["streak"] = .int(streak) }
                        if let milestone = item.milestone { members["milestone"] = .int(milestone) }
                        if let start = item.streakStart { members["streakStart"] = .string(start.description) }
                        return .object(members)
                    })
            ])
        },
    ]
}

extension FeedOperations {
    /// `feed.relay`: a script against one relay (FEED-25 ... FEED-27).
    package static let relay: [String: ModelOperations.Operation] = [
        "feed.relay": { input in
            let relay = FeedRelay(
                maxDeltaWrites: input["maxDeltaWrites"]?.int ?? FeedReplica.maxDeltaWrites,
                maxAnswerBytes: input["maxAnswerBytes"]?.int ?? 1 << 20)
            var cursors: [String: UInt64] = [:]
            var pages: [String: RelayPage] = [:]
            var results: [JSONValue] = []
            for step in input["steps"]?.array ?? [] {
                do throws(FeedError) {
                    switch step["do"]?.string ?? "" {
                    case "submit":
                        switch try delta(of: step) {
                        case .failure(let refused): results.append(.object(["error": refused.code]))
                        case .success(let delta):
                            let sequence = try relay.submit(
                                delta, from: step["person"]?.string ?? "", now: Int64(step["now"]?.int ?? 0))
                            results.append(.object(["sequence": .int(Int(sequence))]))
                        }
                    case "request":
                        // FEED-29: a request's bytes from `person`, answered with the response's bytes.
                        guard let bytes = try? HexText.bytes((step["hex"]?.string ?? "").utf8) else {
                            results.append(FeedScript.unknown("hex"))
                            continue
                        }
                        // An error's message is for people: the code and rule are compared, not its words.
                        let answer = relay.respond(
                            to: bytes, from: step["person"]?.string ?? "", now: Int64(step["now"]?.int ?? 0))
                        if case .error(let code, _, let rule) = answer {
                            results.append(.object(["error": .string(code), "rule": .string(rule)]))
                        } else {
                            results.append(.object(["hex": .string(HexText.text(answer.wireEncoded()))]))
                        }
                    case "erase":
                        // FEED-31: the person's account deleted at the relay's time `now`.
                        let sequence = try relay.erase(step["person"]?.string ?? "", now: Int64(step["now"]?.int ?? 0))
                        results.append(.object(["sequence": .int(Int(sequence))]))
                    case "fetch":
                        let viewer = step["viewer"]?.string ?? ""
                        // A step's own `page` or `since`; else the page the viewer's last fetch
                        // gave to ask for next, or the cursor it gave (FEED-27).
                        let answer: RelayAnswer
                        if case .object(let page) = step["page"] {
                            let number = { (name: String) in UInt64(clamping: page[name]?.int ?? 0) }
                            answer = try relay.changes(
                                for: viewer,
                                page: RelayPage(since: number("since"), after: number("after"), until: number("until")))
                        } else if let since = step["since"]?.int {
                            answer = try relay.changes(for: viewer, since: UInt64(clamping: since))
                        } else if let page = pages[viewer] {
                            answer = try relay.changes(for: viewer, page: page)
                        } else {
                            answer = try relay.changes(for: viewer, since: cursors[viewer] ?? 0)
                        }
                        cursors[viewer] = answer.cursor
                        pages[viewer] = answer.next
                        // `more` and `next` only on a page with more after it, so whole answers read
                        // as before.
                        guard let next = answer.next,
                            case .object(var members) = summary(answer.delta, cursor: answer.cursor)
                        else {
                            results.append(summary(answer.delta, cursor: answer.cursor))
                            continue
                        }
                        members["more"] = .bool(true)
                        members["next"] = .object([
                            "since": .int(Int(clamping: next.since)), "after": .int(Int(clamping: next.after)),
                            "until": .int(Int(clamping: next.until)),
                        ])
                        results.append(.object(members))
                    default:
                        results.append(.object(["error": .string("unknown_step")]))
                    }
                } catch {
                    results.append(.object(["error": .string(error.code.description)]))
                }
            }
            return .object(["steps": .array(results)])
        }
    ]

    /// A refused write of a `submit` step: the code the script answered.
    struct Refused: Error {
        let code: JSONValue
    }

    /// The delta of a `submit` step: its `writes`, script steps run on an empty replica, or the
    /// first write the script refused.
    static func delta(of step: JSONValue) throws(FeedError) -> Result<FeedReplica, Refused> {
        let script = FeedScript()
        for write in step["writes"]?.array ?? [] {
            let answer = try script.perform(write)
            if let code = answer["error"] { return .failure(Refused(code: code)) }
        }
        return .success(script.replicas["r"] ?? FeedReplica())
    }

    /// A delta as the corpus lists it: every register, sorted.
    static func summary(_ delta: FeedReplica, cursor: UInt64) -> JSONValue {
        func sorted(_ rows: [[JSONValue]]) -> JSONValue {
            .array(rows.sorted { "\($0)" < "\($1)" }.map { .array($0) })
        }
        func ids(withdrawn: Bool) -> JSONValue {
            .array(delta.items.filter { ($0.value.value == nil) == withdrawn }.keys.sorted().map { .string($0.text) })
        }
        let receipts = Dictionary(
            uniqueKeysWithValues: delta.receipts.map { ($0.key.text, JSONValue.int(Int($0.value))) })
        return .object([
            "cursor": .int(Int(cursor)),
            "items": ids(withdrawn: false),
            "withdrawn": ids(withdrawn: true),
            "receipts": .object(receipts),
            "stances": sorted(
                delta.stances.compactMap { key, register in
                    register.stamp == nil
                        ? nil : [.string(key.from), .string(key.to), .string(register.stance.rawValue)]
                }),
            "visibility": sorted(
                delta.visibility.map {
                    [.string($0.key.owner), .string($0.key.goal), .string($0.value.value.rawValue)]
                }),
            "reactions": sorted(
                delta.reactions.map {
                    [
                        .string($0.key.item.text), .string($0.key.reactor), .string($0.key.kind.rawValue),
                        .bool($0.value.value),
                    ]
                }),
            "seen": delta.seen.values.first.map { .int(Int($0)) } ?? .null,
        ])
    }
}
