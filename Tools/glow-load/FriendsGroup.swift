import Foundation
import GlowClient
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowToolSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// glow-load --group N (issue 57): the workload a social habit app lives on. N people, all friends
// of each other, each with a writing device and a reading device. In each run the writing devices
// of the first W people write as fast as they are answered (a check-in, and every third write a
// cheer on a friend's), while every reading device syncs with the usual think time. Each run
// counts the writes acknowledged per second, their latency, the 503s, and PostgreSQL's
// serialization failures and deadlocks per acknowledged write (from the cluster's log), for each
// count of processes and of writers; with --against, every run is made again with another
// build's glow-server (an older tree), each on its cluster of its own, one right after the other.

/// One person of the group: their writing and reading devices' tokens, and their address.
struct GroupMember {
    let person: String
    let writeToken: String
    let readToken: String
    let client: String
}

/// A build's glow-server with its own cluster and group: this tree's, or the one `--against`
/// names.
final class GroupSide {
    let label: String
    let executable: URL?
    let cluster: ThrowawayPostgres
    let folder: URL
    var members: [GroupMember] = []
    /// Each reading device's cursor, kept from run to run as a device that stays signed in keeps
    /// it: a run's readers sync what changed since their last sync, never everything again.
    var cursors: [UInt64] = []

    init(label: String, executable: URL?) throws {
        self.label = label
        self.executable = executable
        cluster = try ThrowawayPostgres()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("mail"), withIntermediateDirectories: true)
    }

    /// The arguments of each of its processes.
    func arguments(threads: Int) -> [String] {
        [
            "--database", cluster.url, "--mail-dir", folder.appendingPathComponent("mail").path, "--threads",
            String(threads), "--client-interval", "0",
        ]
    }

    /// How often the cluster's log says each of `needles`, so far.
    func logged(_ needles: [String]) -> [Int] {
        let log: String
        do {
            log = try String(contentsOfFile: cluster.folder.path + "/log", encoding: .utf8)
        } catch {
            return needles.map { _ in 0 }
        }
        return needles.map { log.components(separatedBy: $0).count - 1 }
    }

    func stop() {
        do { try cluster.stop() } catch { say("glow-load: the throwaway cluster did not stop: \(error)") }
        do { try FileManager.default.removeItem(at: folder) } catch { say("glow-load: \(folder.path) stays: \(error)") }
    }
}

/// Signs `count` people up through `side`'s one process, each with a second device signed in,
/// all wanting each other as friends and sharing goal `g` with friends.
func makeGroup(_ count: Int, on side: GroupSide, threads: Int) async throws {
    let setup = try ServerProcess(arguments: side.arguments(threads: threads), executable: side.executable)
    defer { setup.stop() }
    let client = ServiceClient(base: setup.url, retries: 3)
    let password = "correct horse battery staple"
    let run = UUID().uuidString.prefix(8).lowercased()
    var members: [GroupMember] = []
    for index in 0..<count {
        let address = "group-\(run)-\(index)@example.com"
        let from = clientAddress(index)
        let headers = ["X-Forwarded-For": from]
        _ = try await client.call(
            "sign-up", ProtocolMessage("SignUpRequest").with("email", address).with("password", password),
            headers: headers)
        let token = try ServerProcess.mailedToken(side.folder.appendingPathComponent("mail").path, to: address)
        let first = try await client.call(
            "confirm-sign-up",
            ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", password).with(
                "device", "writer"), headers: headers)
        let second = try await client.call(
            "sign-in",
            ProtocolMessage("SignInRequest").with("email", address).with("password", password).with(
                "device", "reader"), headers: headers)
        members.append(
            GroupMember(
                person: first.string("account"), writeToken: first.string("access_token"),
                readToken: second.string("access_token"), client: from))
    }
    guard let type = ProtocolSchema.type("RelayRequest") else { preconditionFailure("declared") }
    let wall = Int64(Date().timeIntervalSince1970 * 1_000) - 60_000
    for member in members {
        var replica = FeedReplica()
        for other in members where other.person != member.person {
            replica.writeStance(
                .want, from: member.person, to: other.person, at: try Stamp(wall: wall, counter: 0, device: "setup"))
        }
        replica.writeVisibility(
            .friends, owner: member.person, goal: "g", at: try Stamp(wall: wall, counter: 0, device: "setup"))
        _ = try await client.call(
            "relay", try ProtocolMessage(type, wire: RelayRequest.submit(replica).wireEncoded()),
            accessToken: member.writeToken, headers: ["X-Forwarded-For": member.client])
    }
    side.members = members
    side.cursors = members.map { _ in 0 }
}

/// Member `owner`'s check-in of write number `serial`: a new item id for each write.
func groupCheckIn(_ owner: String, _ serial: Int64) throws -> FeedItem {
    let day = try Day(daysSince1970: 20_000 + Int(serial % 20_000))
    return try FeedItem(
        owner: owner, kind: .checkIn, goal: "g", time: Int64(day.daysSince1970) * 86_400_000, title: "Evening walk",
        emoji: "🌙", goalKind: "single", day: day)
}

/// What one run of the group measured.
struct GroupTally {
    /// Each reading device's cursor at the end, by its member's index.
    var cursors: [Int: UInt64] = [:]
    var writes: [Double] = []
    var syncs: [Double] = []
    var unavailable = 0
    var errors: [String: Int] = [:]
}

/// One run: `writers` writing devices and every reading device, from `cursors`, against `ports`,
/// for `seconds` after a 2 s warm-up.
func runGroup(
    _ members: [GroupMember], cursors: [UInt64], writers: Int, ports: [UInt16], seconds: Double, think: Double
) -> GroupTally {
    let start = Date().addingTimeInterval(0.3)
    let counting = start.addingTimeInterval(2)
    let deadline = counting.addingTimeInterval(seconds)
    let total = Locked(GroupTally())
    let group = DispatchGroup()
    func spawn(_ body: @escaping @Sendable () -> GroupTally) {
        group.enter()
        let thread = Thread {
            let tally = body()
            total.withLock { total in
                total.writes += tally.writes
                total.syncs += tally.syncs
                total.unavailable += tally.unavailable
                total.errors.merge(tally.errors, uniquingKeysWith: +)
                total.cursors.merge(tally.cursors) { first, _ in first }
            }
            group.leave()
        }
        thread.stackSize = 256 << 10
        thread.start()
    }
    for (index, member) in members.prefix(writers).enumerated() {
        spawn {
            var tally = GroupTally()
            let connection = LoopbackConnection(port: ports[index % ports.count])
            defer { connection.close() }
            var serial: Int64 = 0
            Thread.sleep(until: start)
            while Date() < deadline {
                serial += 1
                let body: [UInt8]
                do {
                    var replica = FeedReplica()
                    let stamp = try Stamp(
                        wall: Int64(Date().timeIntervalSince1970 * 1_000), counter: serial, device: "writer")
                    let item = try groupCheckIn(member.person, serial)
                    replica.writeItem(item, id: item.key, at: stamp)
                    if serial % 3 == 0, members.count > 1 {
                        let friend = members[(index + 1 + Int(serial) % (members.count - 1)) % members.count]
                        replica.writeReaction(
                            true, item: try groupCheckIn(friend.person, serial / 2).key, reactor: member.person,
                            kind: .clap, at: stamp)
                    }
                    body = RelayRequest.submit(replica).wireEncoded()
                } catch {
                    tally.errors["the generator could not make a write: \(error)", default: 0] += 1
                    return tally
                }
                let began = DispatchTime.now().uptimeNanoseconds
                let counted = Date() >= counting
                do {
                    let (status, _) = try connection.post(
                        "/v1/relay", token: member.writeToken, from: member.client, body: body)
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
                    guard counted else { continue }
                    switch status {
                    case 200: tally.writes.append(elapsed)
                    case 503: tally.unavailable += 1
                    default: tally.errors["HTTP \(status)", default: 0] += 1
                    }
                } catch {
                    if counted { tally.errors["\(error)", default: 0] += 1 }
                    connection.close()
                }
            }
            return tally
        }
    }
    for (index, member) in members.enumerated() {
        spawn {
            var tally = GroupTally()
            var random = SystemRandomNumberGenerator()
            let connection = LoopbackConnection(port: ports[(index + 1) % ports.count])
            defer { connection.close() }
            var cursor = cursors[index]
            var page: RelayPage?
            Thread.sleep(until: start.addingTimeInterval(Double.random(in: 0...max(think, 0.01), using: &random)))
            while Date() < deadline {
                let began = DispatchTime.now().uptimeNanoseconds
                let counted = Date() >= counting
                do {
                    let (status, answer) = try connection.post(
                        "/v1/relay", token: member.readToken, from: member.client,
                        body: (page.map { .page($0) } ?? RelayRequest.changes(since: cursor)).wireEncoded())
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
                    if status == 200, case .changes(_, let given, let next) = try RelayResponse(wire: answer) {
                        // A page's next page is asked for next (FEED-27).
                        (cursor, page) = (given, next)
                        if counted { tally.syncs.append(elapsed) }
                    } else if counted {
                        tally.errors["sync: HTTP \(status)", default: 0] += 1
                    }
                } catch {
                    if counted { tally.errors["sync: \(error)", default: 0] += 1 }
                    connection.close()
                }
                Thread.sleep(forTimeInterval: think * Double.random(in: 0.5...1.5, using: &random))
            }
            tally.cursors[index] = cursor
            return tally
        }
    }
    group.wait()
    return total.withLock { $0 }
}

/// One row of the group's report, for the medians and the ratios.
struct GroupFigures {
    let side: String
    let processes: Int
    let writers: Int
    let writesPerSecond: Double
    let p50: Double
    let p99: Double
    let retriesPerWrite: Double
    let unavailable: Int
}

/// The lines of PostgreSQL's log that count as a write run again: a serialization failure or a
/// deadlock; and the warning of a rollback after a failed commit.
let raceLines = ["could not serialize access", "deadlock detected"]
let rollbackWarning = "there is no transaction in progress"

/// glow-load --group: every count of processes and of writers in turn, for each side.
func friendsGroup(_ options: Options) async throws {
    var sides = [try GroupSide(label: "this tree", executable: nil)]
    if let against = options.against {
        sides.append(
            try GroupSide(
                label: against.lastPathComponent == "glow-server"
                    ? against.deletingLastPathComponent().path : against.path, executable: against))
    }
    defer { for side in sides { side.stop() } }
    for side in sides {
        let started = Date()
        try await makeGroup(options.group, on: side, threads: options.threads)
        say(
            "glow-load: \(options.group) friends signed up on \(side.label) in \(String(format: "%.0f", Date().timeIntervalSince(started))) s"
        )
    }
    print(
        "glow-load: a group of \(options.group) friends, each with a writing and a reading device; the writers write as fast as answered (a check-in, every third with a cheer), the readers sync every \(options.think) s ±50%; \(Int(options.seconds)) s per run after a 2 s warm-up; glow-server --threads \(options.threads) on one PostgreSQL each"
    )
    print(
        "side          processes writers  writes/s  p50       p99       worst     503s   retries/write  syncs/s  sync p99"
    )
    var figures: [GroupFigures] = []
    for _ in 0..<options.repeats {
        for count in options.processes {
            for writers in options.writers {
                for side in sides {
                    let logs = (0..<count).map { side.folder.appendingPathComponent("server-\($0).log") }
                    let processes = try logs.map { log in
                        try ServerProcess(
                            arguments: side.arguments(threads: options.threads), log: log, executable: side.executable)
                    }
                    defer { for process in processes { process.stop() } }
                    let ports = processes.compactMap { $0.url.port.map(UInt16.init) }
                    let before = side.logged(raceLines + [rollbackWarning])
                    let tally = runGroup(
                        side.members, cursors: side.cursors, writers: min(writers, side.members.count), ports: ports,
                        seconds: options.seconds,
                        think: options.think)
                    for process in processes { process.stop() }
                    for (index, cursor) in tally.cursors { side.cursors[index] = cursor }
                    let after = side.logged(raceLines + [rollbackWarning])
                    let races = after[0] - before[0] + after[1] - before[1]
                    let warnings = after[2] - before[2]
                    let writes = tally.writes.sorted()
                    let syncs = tally.syncs.sorted()
                    let row = GroupFigures(
                        side: side.label, processes: count, writers: writers,
                        writesPerSecond: Double(writes.count) / options.seconds, p50: percentile(writes, 0.5),
                        p99: percentile(writes, 0.99),
                        retriesPerWrite: writes.isEmpty ? .nan : Double(races) / Double(writes.count),
                        unavailable: tally.unavailable)
                    figures.append(row)
                    let cells = [
                        String(side.label.suffix(13)), String(count), String(writers),
                        String(format: "%.1f", row.writesPerSecond),
                        milliseconds(row.p50), milliseconds(row.p99), milliseconds(writes.last ?? .nan),
                        String(tally.unavailable),
                        String(format: "%.3f", row.retriesPerWrite),
                        String(format: "%.1f", Double(syncs.count) / options.seconds),
                        milliseconds(percentile(syncs, 0.99)),
                    ]
                    let widths = [14, 10, 9, 10, 10, 10, 10, 7, 15, 9, 0]
                    print(
                        zip(cells, widths).map { $1 == 0 ? $0 : $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                            .joined())
                    for (error, times) in tally.errors.sorted(by: { $0.value > $1.value }).prefix(3) {
                        print("              \(times) × \(error)")
                    }
                    // A run with failures shows what its servers said last.
                    if tally.unavailable > 0 || !tally.errors.isEmpty {
                        for log in logs {
                            do {
                                let text = try String(contentsOf: log, encoding: .utf8)
                                for line in text.split(separator: "\n").suffix(3) {
                                    print("              server: \(line)")
                                }
                            } catch {
                                print("              server: its log \(log.path) does not read: \(error)")
                            }
                        }
                    }
                    if warnings > 0 { print("              \(warnings) × PostgreSQL: \(rollbackWarning)") }
                }
            }
        }
    }
    printGroupSummary(figures, sides: sides.map(\.label))
}

/// With more than one run of a row, or two sides: each row's median, and this tree's writes per
/// second over the other side's.
func printGroupSummary(_ figures: [GroupFigures], sides: [String]) {
    var order: [[Int]] = []
    var rows: [[Int]: [String: [GroupFigures]]] = [:]
    for figure in figures {
        let key = [figure.processes, figure.writers]
        if rows[key] == nil { order.append(key) }
        rows[key, default: [:]][figure.side, default: []].append(figure)
    }
    guard sides.count > 1 || rows.values.contains(where: { $0.values.contains { $0.count > 1 } }) else { return }
    func median(_ values: [Double]) -> Double {
        let sorted = values.filter { !$0.isNaN }.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    print("medians over the runs" + (sides.count > 1 ? ", and this tree's writes per second over \(sides[1])'s:" : ":"))
    print("  processes writers  side          writes/s  p50       p99       retries/write  503s")
    for key in order {
        var rates: [String: Double] = [:]
        for side in sides {
            guard let group = rows[key]?[side] else { continue }
            let rate = median(group.map(\.writesPerSecond))
            rates[side] = rate
            print(
                "  \(String(key[0]).padding(toLength: 10, withPad: " ", startingAt: 0))\(String(key[1]).padding(toLength: 9, withPad: " ", startingAt: 0))\(String(side.suffix(13)).padding(toLength: 14, withPad: " ", startingAt: 0))\(String(format: "%.1f", rate).padding(toLength: 10, withPad: " ", startingAt: 0))\(milliseconds(median(group.map(\.p50))).padding(toLength: 10, withPad: " ", startingAt: 0))\(milliseconds(median(group.map(\.p99))).padding(toLength: 10, withPad: " ", startingAt: 0))\(String(format: "%.3f", median(group.map(\.retriesPerWrite))).padding(toLength: 15, withPad: " ", startingAt: 0))\(group.map(\.unavailable).reduce(0, +))"
            )
        }
        if sides.count > 1, let ours = rates[sides[0]], let theirs = rates[sides[1]], theirs > 0 {
            print("  \(String(repeating: " ", count: 19))ratio: \(String(format: "%.2f", ours / theirs))×")
        }
    }
}
