import Foundation
import GlowClient
import GlowCore
import GlowFeed
import GlowModel
import GlowProtocol
import GlowRelay
import GlowToolSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// glow-load: simulated devices against glow-server processes over one PostgreSQL (issue 29).
// Each device keeps one HTTP/1.1 connection to one process and, with a jittered think time
// between calls, syncs, publishes a check-in or cheers a friend's, as the app does. It reports
// the calls answered per second, their latency (p50, p99, p999), the errors and the server's
// resident memory, for each count of processes in turn. Everything is on loopback and stops by
// itself after the given seconds.

let usage = """
    usage: glow-load [--devices N] [--processes LIST] [--seconds S] [--think SECONDS]
                     [--writes LIST] [--repeat N] [--control] [--threads N] [--database postgres://... | sqlite]
                     [--hostile [--attacks LIST] [--each] [--own-log N]]
                     [--population N [--friends N] [--items N]]
                     [--group N [--writers LIST] [--against GLOW-SERVER]]
      --devices    simulated devices, four per person, each on its own connection (default 1000)
      --processes  glow-server processes to run against, one run per entry (default 1,2,3)
      --seconds    length of each run, after a 3-second warm-up (default 20)
      --think      mean seconds between a device's calls, jittered ±50% (default 1)
      --writes     the share of calls that write, in percent: two thirds publish a check-in, one
                   third cheer a friend's (default 30; the rest sync); a list (30,0) runs each
                   count of processes once per share, and 0 measures syncs alone
      --repeat     how many times the whole list of runs goes round, in turn (default 1); with
                   more than one run of a count and share, the report ends with their medians
      --control    each count of processes also runs with every device calling the health check
                   alone (one read of the database) instead: the control, whose CPU per call shows
                   what more processes cost on this machine whatever the call
      --threads    each glow-server's serving threads (default 4)
      --database   a PostgreSQL to use (its relay gains the devices' writes); default a throwaway
                   cluster (Debian's postgresql), removed at the end; `sqlite` runs one process
                   on a SQLite file of its own
      --hostile    while the devices run, one address attacks: a slowloris, an Argon2id flood
                   and 900 KB sign-in keys (issue 44). The servers trust no proxy and each device
                   and a health probe call from a loopback address of their own; the report adds
                   health and sync latency and checks that no acknowledged write was lost
      --attacks    the attacks of --hostile to run, of slowloris, flood, keys (issue 44) and
                   spread (40 addresses trickling 30 connections each), signins (one client
                   signing in with its right password as fast as answered), ownlog (one client
                   pulling a sync log of 20,000 tiny records of its own), pages (one account's
                   3,000 large public items, its goal made public after each batch, and first
                   syncs of them page by page) (default all)
      --each       with --hostile: a calm run first, then one run per attack alone, each beside
                   the calm one in the same invocation
      --own-log    the records of the ownlog attack's log (default 20000)
      --population people who never call, written straight into the relay's table before the
                   runs (issue 43's scale curve): each with --friends friends among the others
                   (default 20), a friends-only goal and --items check-ins of it (default 10);
                   each calling person befriends --friends of them. The report adds each
                   process's time from its start to its first answer of a sync, and the CPU time
                   per call of glow-server and PostgreSQL together
      --group      instead of devices: N people who are all friends (issue 57), each with a
                   writing device and a reading device; in each run the first --writers of them
                   write as fast as they are answered (a check-in, every third with a cheer on a
                   friend's) while every reader syncs each --think seconds. The report gives the
                   writes acknowledged per second, their p50, p99 and worst latency, the 503s, and
                   PostgreSQL's serialization failures and deadlocks per acknowledged write
      --writers    how many of the group write at once, one run each (default 2,8,20)
      --against    another build's glow-server (an older tree's): every run of --group is made
                   again with it, on a cluster of its own, right after this tree's, and the
                   report ends with the medians and this tree's writes per second over its
    """

struct Options {
    var devices = 1_000
    var processes = [1, 2, 3]
    var seconds = 20.0
    var think = 1.0
    var threads = 4
    var writes = [30]
    var repeats = 1
    var control = false
    var database: String?
    var hostile = false
    var attacks = Set(Attack.allCases)
    var each = false
    var ownLog = 20_000
    var population = 0
    var friends = 20
    var items = 10
    var group = 0
    var writers = [2, 8, 20]
    var against: URL?

    init(_ arguments: [String]) throws {
        var parser = try OptionParser(
            arguments, command: "glow-load",
            valued: [
                "--devices", "--processes", "--seconds", "--think", "--writes", "--repeat", "--threads", "--database",
                "--attacks", "--own-log", "--population", "--friends", "--items", "--group", "--writers", "--against",
            ])
        if let count = try parser.integer("--devices", atLeast: 1) {
            guard count <= 10_000 else {
                throw UsageError(message: "--devices \(count): at most 10000", command: "glow-load")
            }
            devices = count
        }
        if let list = try parser.value("--processes") {
            let counts = list.split(separator: ",").map { Int($0) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 16 }) else {
                throw UsageError(
                    message: "--processes \(list): counts from 1 to 16, separated by commas", command: "glow-load")
            }
            processes = counts.compactMap { $0 }
        }
        seconds = try Self.seconds(&parser, "--seconds", default: seconds, range: 1...3_600)
        think = try Self.seconds(&parser, "--think", default: think, range: 0...60)
        if let count = try parser.integer("--threads", atLeast: 1) { threads = count }
        if let list = try parser.value("--writes") {
            let shares = list.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard !shares.isEmpty, shares.allSatisfy({ (0...100).contains($0 ?? -1) }) else {
                throw UsageError(
                    message: "--writes \(list): percentages from 0 to 100, separated by commas", command: "glow-load")
            }
            writes = shares.compactMap { $0 }
        }
        if let count = try parser.integer("--repeat", atLeast: 1) {
            guard count <= 20 else {
                throw UsageError(message: "--repeat \(count): at most 20", command: "glow-load")
            }
            repeats = count
        }
        database = try parser.value("--database")
        if let count = try parser.integer("--population", atLeast: 0) {
            guard count <= 10_000_000 else {
                throw UsageError(message: "--population \(count): at most 10000000", command: "glow-load")
            }
            population = count
        }
        if let count = try parser.integer("--friends", atLeast: 1) {
            guard count <= 1_000 else {
                throw UsageError(message: "--friends \(count): at most 1000", command: "glow-load")
            }
            friends = count
        }
        if let count = try parser.integer("--items", atLeast: 0) {
            guard count <= 1_000 else {
                throw UsageError(message: "--items \(count): at most 1000", command: "glow-load")
            }
            items = count
        }
        if let count = try parser.integer("--group", atLeast: 2) {
            guard count <= 1_000 else {
                throw UsageError(message: "--group \(count): at most 1000", command: "glow-load")
            }
            group = count
        }
        if let list = try parser.value("--writers") {
            let counts = list.split(separator: ",").map { Int($0) }
            guard group > 0, !counts.isEmpty, counts.allSatisfy({ (1...1_000).contains($0 ?? 0) }) else {
                throw UsageError(
                    message: "--writers \(list): with --group, counts from 1 to 1000 separated by commas",
                    command: "glow-load")
            }
            writers = counts.compactMap { $0 }
        }
        if let path = try parser.value("--against") {
            guard group > 0, FileManager.default.isExecutableFile(atPath: path) else {
                throw UsageError(
                    message: "--against \(path): with --group, the path of another build's glow-server",
                    command: "glow-load")
            }
            against = URL(fileURLWithPath: path)
        }
        if group > 0, database != nil {
            throw UsageError(
                message: "--group runs on throwaway clusters of its own: leave out --database", command: "glow-load")
        }
        hostile = parser.flag("--hostile")
        control = parser.flag("--control")
        if let list = try parser.value("--attacks") {
            let named = list.split(separator: ",").map { Attack(rawValue: String($0)) }
            guard hostile, !named.isEmpty, named.allSatisfy({ $0 != nil }) else {
                throw UsageError(
                    message:
                        "--attacks \(list): with --hostile, some of \(Attack.allCases.map(\.rawValue).joined(separator: ", "))",
                    command: "glow-load")
            }
            attacks = Set(named.compactMap { $0 })
        }
        each = parser.flag("--each")
        if let records = try parser.integer("--own-log", atLeast: 1) {
            guard hostile else { throw UsageError(message: "--own-log goes with --hostile", command: "glow-load") }
            ownLog = records
        }
        if each, !hostile {
            throw UsageError(message: "--each goes with --hostile", command: "glow-load")
        }
        if database == "sqlite", processes.contains(where: { $0 != 1 }) {
            throw UsageError(
                message: "--database sqlite runs one process: --processes 1", command: "glow-load")
        }
        try parser.finish()
    }

    static func seconds(_ parser: inout OptionParser, _ name: String, default value: Double, range: ClosedRange<Double>)
        throws -> Double
    {
        guard let text = try parser.value(name) else { return value }
        guard let seconds = Double(text), range.contains(seconds) else {
            throw UsageError(
                message: "\(name) \(text): seconds from \(range.lowerBound) to \(range.upperBound)",
                command: "glow-load")
        }
        return seconds
    }
}

/// Whether the memory sampler goes on.
final class Sampling: Sendable {
    private let value = Locked(true)
    var on: Bool { value.withLock { $0 } }
    func stop() { value.withLock { $0 = false } }
}

/// A signed-in device: its person, token, friends and clock.
struct Device {
    let person: String
    let token: String
    let name: String
    let client: String
}

/// What a device holds between its calls: its replica, the cursor it syncs from, and the
/// stamp of its last write sent.
struct Held {
    var replica = FeedReplica()
    var cursor: UInt64 = 0
    var sent: Stamp?
}

/// What a run's devices measured.
struct Tally {
    var latencies: [Double] = []
    /// The latencies of the calls that wrote, also counted in `latencies`.
    var writes: [Double] = []
    /// The latencies of the syncs (changes since a cursor), also counted in `latencies`.
    var syncs: [Double] = []
    /// Of the `syncs`, those from a device's first, cursor 0 (every item it may see)...
    var firstSyncs: [Double] = []
    /// ... and the small syncs: of what changed since the device's last.
    var smallSyncs: [Double] = []
    /// Every item the relay acknowledged, with the stamp of the latest acknowledged write of it.
    var acknowledged: [FeedItemID: Stamp] = [:]
    /// Each device's replica and cursor at the end, by its index: where its next run goes on
    /// from, as a device that stays signed in does.
    var held: [Int: Held] = [:]
    var errors: [String: Int] = [:]
    /// Other people's items the devices' syncs brought.
    var received = 0
}

/// One run's figures, for the medians of several.
struct RunFigures {
    let processes: Int
    /// The share of calls that wrote, in percent, or "health" for the control's.
    let mix: String
    let callsPerSecond: Double
    /// In seconds.
    let smallSyncP50: Double
    let smallSyncP99: Double
    /// glow-server's and PostgreSQL's CPU time over the calls answered, in milliseconds.
    let cpuPerCall: Double
    let largestMiB: Double
    /// The longest a process took from its start to its first answer, in seconds.
    let slowestStart: Double

    /// The median of each figure over the runs of each count of processes and share of writes,
    /// in the order they first ran; nothing when no pair ran more than once.
    static func printMedians(_ figures: [RunFigures]) {
        var order: [[String]] = []
        var runs: [[String]: [RunFigures]] = [:]
        for run in figures {
            let pair = [String(run.processes), run.mix]
            if runs[pair] == nil { order.append(pair) }
            runs[pair, default: []].append(run)
        }
        guard runs.values.contains(where: { $0.count > 1 }) else { return }
        print("medians over the runs of each count of processes and share of writes:")
        print(
            "  processes writes    runs      calls/s   small-sync p50, p99   CPU per call  RSS, largest  slowest start")
        for pair in order {
            let group = runs[pair] ?? []
            func median(_ figure: (RunFigures) -> Double) -> Double {
                let values = group.map(figure).filter { !$0.isNaN }.sorted()
                guard !values.isEmpty else { return .nan }
                return values.count % 2 == 1
                    ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
            }
            let cells = [
                pair[0], pair[1], String(group.count), String(format: "%.0f", median(\.callsPerSecond)),
                median(\.smallSyncP50).isNaN
                    ? "none" : milliseconds(median(\.smallSyncP50)) + ", " + milliseconds(median(\.smallSyncP99)),
                String(format: "%.2f ms", median(\.cpuPerCall)), String(format: "%.0f MiB", median(\.largestMiB)),
                String(format: "%.2f s", median(\.slowestStart)),
            ]
            let widths = [10, 10, 10, 10, 22, 14, 14, 0]
            print(
                "  "
                    + zip(cells, widths).map { $1 == 0 ? $0 : $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                    .joined()
            )
        }
    }
}

/// Every device for `seconds` (after a warm-up whose calls are not counted), each on a thread
/// of its own with one connection to the process `index % ports.count`; from an address of its
/// own when `ownAddresses`. `writes` is the share of the calls that write, in percent; without
/// it every call is the health check (the control).
func run(
    _ devices: [Device], held: [Held], ports: [UInt16], seconds: Double, think: Double, writes: Int?,
    ownAddresses: Bool = false
) -> Tally {
    let warmUp = 3.0
    let start = Date().addingTimeInterval(0.5)
    let counting = start.addingTimeInterval(warmUp)
    let deadline = counting.addingTimeInterval(seconds)
    let tallies = Locked<Tally>(Tally())
    let group = DispatchGroup()
    for (index, device) in devices.enumerated() {
        group.enter()
        let thread = Thread {
            var tally = Tally()
            var random = SystemRandomNumberGenerator()
            let connection = LoopbackConnection(
                port: ports[index % ports.count], source: ownAddresses ? deviceSource(index) : nil)
            var cursor = held[index].cursor
            // The next page of an answer, while one is being read (FEED-27).
            var page: RelayPage?
            var serial: Int64 = 0
            var friendsItems: [FeedItemID] = []
            // What the device holds, as an app's replica: its reactions are written on it.
            var local = held[index].replica
            var sent = held[index].sent
            friendsItems = Array(
                local.items.filter { $0.value.value.map { $0.owner != device.person } ?? false }.keys.prefix(20))
            // Devices start spread over the first think time, not all at once.
            Thread.sleep(until: start.addingTimeInterval(Double.random(in: 0...max(think, 0.01), using: &random)))
            while Date() < deadline {
                serial += 1
                let roll = Int.random(in: 0..<300, using: &random)
                let request: RelayRequest?
                var written: (FeedItemID, Stamp)?
                if let writes {
                    do {
                        let stamp = try Stamp(
                            wall: Int64(Date().timeIntervalSince1970 * 1_000), counter: serial, device: device.name)
                        if roll >= writes * 3 {
                            // The next page of an answer first, as a device asks for it at once.
                            request = page.map { .page($0) } ?? .changes(since: cursor)
                        } else if roll < writes * 2 || friendsItems.isEmpty {
                            var replica = FeedReplica()
                            let day = try Day(daysSince1970: 20_000 + Int(serial % 30))
                            let item = try FeedItem(
                                owner: device.person, kind: .checkIn, goal: "g",
                                time: Int64(day.daysSince1970) * 86_400_000,
                                title: "Evening walk", emoji: "🌙", goalKind: "single", day: day,
                                streak: Int(serial % 9) + 1
                            )
                            replica.writeItem(item, id: item.key, at: stamp)
                            request = .submit(replica)
                            written = (item.key, stamp)
                        } else {
                            let kind = ReactionKind.allCases.randomElement(using: &random)!
                            try local.react(
                                kind, on: friendsItems.randomElement(using: &random)!, by: device.person, true,
                                at: stamp)
                            request = .submit(local.authored(by: device.person, since: sent))
                            sent = stamp
                        }
                    } catch {
                        tally.errors["the generator could not make a request: \(error)", default: 0] += 1
                        break
                    }
                } else {
                    request = nil
                }
                let began = DispatchTime.now().uptimeNanoseconds
                let counted = Date() >= counting
                do {
                    let (status, body) =
                        try request.map {
                            try connection.post(
                                "/v1/relay", token: device.token, from: device.client, body: $0.wireEncoded())
                        } ?? connection.get("/v1/health", from: device.client)
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
                    if status == 200 {
                        if counted {
                            tally.latencies.append(elapsed)
                            if case .submit = request {
                                tally.writes.append(elapsed)
                            } else if request != nil {
                                tally.syncs.append(elapsed)
                                // A page of a first sync counts with it.
                                if case .changes(since: 0) = request {
                                    tally.firstSyncs.append(elapsed)
                                } else if case .page(let asked) = request, asked.since == 0 {
                                    tally.firstSyncs.append(elapsed)
                                } else {
                                    tally.smallSyncs.append(elapsed)
                                }
                            }
                        }
                        if let (id, stamp) = written { tally.acknowledged[id] = stamp }
                        if request != nil, case .changes(let delta, let given, let next) = try RelayResponse(wire: body)
                        {
                            (cursor, page) = (given, next)
                            local.merge(delta)
                            let theirs = delta.items.filter {
                                $0.value.value.map { $0.owner != device.person } ?? false
                            }
                            // Cheered once the device may show them: a page may bring an item
                            // before its goal's visibility (FEED-27 pages by number).
                            let shown = theirs.keys.filter { id in
                                local.item(id).map { local.canSee(device.person, $0) } ?? false
                            }
                            if !shown.isEmpty { friendsItems = Array(shown.suffix(20)) }
                            tally.received += theirs.count
                        }
                    } else if counted {
                        tally.errors["HTTP \(status)", default: 0] += 1
                    }
                } catch {
                    if counted { tally.errors["\(error)", default: 0] += 1 }
                    connection.close()
                }
                if think > 0 {
                    Thread.sleep(forTimeInterval: think * Double.random(in: 0.5...1.5, using: &random))
                }
            }
            connection.close()
            tally.held[index] = Held(replica: local, cursor: cursor, sent: sent)
            tallies.withLock { total in
                total.latencies += tally.latencies
                total.writes += tally.writes
                total.syncs += tally.syncs
                total.firstSyncs += tally.firstSyncs
                total.smallSyncs += tally.smallSyncs
                total.acknowledged.merge(tally.acknowledged) { Swift.max($0, $1) }
                total.held.merge(tally.held) { first, _ in first }
                total.errors.merge(tally.errors, uniquingKeysWith: +)
                total.received += tally.received
            }
            group.leave()
        }
        thread.stackSize = 256 << 10
        thread.start()
    }
    group.wait()
    return tallies.withLock { $0 }
}

/// People for `count` devices (four each), signed up and in through `client`, each befriending
/// the next and sharing their goal with friends.
func setUp(devices count: Int, through client: ServiceClient, mail folder: String) async throws -> [Device] {
    let password = "correct horse battery staple"
    let people = (count + 3) / 4
    let run = UUID().uuidString.prefix(8).lowercased()
    var devices: [Device] = []
    var persons: [(id: String, token: String, client: String)] = []
    for index in 0..<people {
        let address = "load-\(run)-\(index)@example.com"
        let from = clientAddress(devices.count)
        let headers = ["X-Forwarded-For": from]
        _ = try await client.call(
            "sign-up", ProtocolMessage("SignUpRequest").with("email", address).with("password", password),
            headers: headers)
        let token = try ServerProcess.mailedToken(folder, to: address)
        let first = try await client.call(
            "confirm-sign-up",
            ProtocolMessage("ConfirmSignUpRequest").with("token", token).with("password", password).with(
                "device", "d0"),
            headers: headers)
        let person = first.string("account")
        persons.append((person, first.string("access_token"), from))
        devices.append(Device(person: person, token: first.string("access_token"), name: "\(person)-d0", client: from))
        for device in 1..<4 where devices.count < count {
            let session = try await client.call(
                "sign-in",
                ProtocolMessage("SignInRequest").with("email", address).with("password", password).with(
                    "device", "d\(device)"), headers: headers)
            devices.append(
                Device(
                    person: person, token: session.string("access_token"), name: "\(person)-d\(device)",
                    client: clientAddress(devices.count)))
        }
        if (index + 1) % 50 == 0 { say("glow-load: \(index + 1) of \(people) people signed up") }
    }
    // Each person wants the next and the one before as friends, and shares goal "g" with friends.
    guard let type = ProtocolSchema.type("RelayRequest") else { preconditionFailure("declared") }
    let wall = Int64(Date().timeIntervalSince1970 * 1_000)
    for (index, person) in persons.enumerated() where persons.count > 1 {
        var replica = FeedReplica()
        for other in Set([(index + 1) % persons.count, (index + persons.count - 1) % persons.count])
        where other != index {
            replica.writeStance(
                .want, from: person.id, to: persons[other].id,
                at: try Stamp(wall: wall, counter: Int64(other), device: "setup"))
        }
        replica.writeVisibility(
            .friends, owner: person.id, goal: "g", at: try Stamp(wall: wall, counter: 0, device: "setup"))
        _ = try await client.call(
            "relay", try ProtocolMessage(type, wire: RelayRequest.submit(replica).wireEncoded()),
            accessToken: person.token, headers: ["X-Forwarded-For": person.client])
    }
    return devices
}

/// A run that could not be checked.
struct LoadFailure: Error, CustomStringConvertible {
    let description: String
}

/// Returns once every thread of `threads` has finished.
func waitFor(_ threads: [Thread]) {
    while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.05) }
}

/// The health and sync figures of a hostile run, and what the attacks got.
func report(health: (latencies: [Double], failures: [String: Int]), syncs: [Double], attacks: AttackTally) {
    let probed = health.latencies.sorted()
    let synced = syncs.sorted()
    print(
        "          health: \(probed.count) answered 200, p50 \(milliseconds(percentile(probed, 0.5))), p99 \(milliseconds(percentile(probed, 0.99))), max \(milliseconds(probed.last ?? .nan)); \(health.failures.values.reduce(0, +)) not"
    )
    for (failure, times) in health.failures.sorted(by: { $0.value > $1.value }).prefix(3) {
        print("           health: \(times) × \(failure)")
    }
    print(
        "          syncs: \(synced.count), p50 \(milliseconds(percentile(synced, 0.5))), p99 \(milliseconds(percentile(synced, 0.99)))"
    )
    for (what, times) in attacks.summary { print("          attack: \(times) × \(what)") }
}

/// The acknowledged writes the relay does not hold at their acknowledged stamp or a later one:
/// each person's own items, read by one of their devices from the start (FEED-27).
func lostWrites(_ acknowledged: [FeedItemID: Stamp], devices: [Device], port: UInt16) throws -> [FeedItemID] {
    var firstDevice: [String: Device] = [:]
    for device in devices where firstDevice[device.person] == nil { firstDevice[device.person] = device }
    var held: [FeedItemID: Stamp] = [:]
    for (index, device) in firstDevice.values.enumerated() {
        let connection = LoopbackConnection(port: port, source: deviceSource(index))
        defer { connection.close() }
        // Every page of a first sync (FEED-27): a person's items may be on any of them.
        var request = RelayRequest.changes(since: 0)
        while true {
            let (status, body) = try connection.post(
                "/v1/relay", token: device.token, from: device.client, body: request.wireEncoded())
            guard status == 200, case .changes(let delta, _, let next) = try RelayResponse(wire: body) else {
                throw LoadFailure(description: "reading \(device.person)'s items back: HTTP \(status)")
            }
            for (id, register) in delta.items where id.owner == device.person { held[id] = register.stamp }
            guard let next else { break }
            request = .page(next)
        }
    }
    return acknowledged.filter { id, stamp in (held[id].map { $0 < stamp }) ?? true }.keys.sorted()
}

/// Device `index`'s address, as a proxy in front gives it: a /64 of its own, so each device is a
/// client of its own for the server's per-client limit (SERVER-11) and throttles (AUTH-39).
func clientAddress(_ index: Int) -> String {
    "2001:db8:\(String(index / 65_536, radix: 16)):\(String(index % 65_536, radix: 16))::1"
}

func say(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1_000) }

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
let options: Options
do {
    options = try Options(arguments)
} catch {
    say("glow-load: \(error)\n\(usage)")
    exit(64)
}

if options.group > 0 {
    do {
        try await friendsGroup(options)
    } catch {
        say("glow-load: \(error)")
        exit(1)
    }
    exit(0)
}

do {
    var cluster: ThrowawayPostgres?
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-load-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("mail"), withIntermediateDirectories: true)
    defer {
        do { try FileManager.default.removeItem(at: folder) } catch { say("glow-load: \(folder.path) stays: \(error)") }
    }
    let url: String
    switch options.database {
    case "sqlite": url = folder.appendingPathComponent("server.sqlite").path
    case let database?: url = database
    case nil:
        let throwaway = try ThrowawayPostgres()
        cluster = throwaway
        url = throwaway.url
    }
    defer {
        do { try cluster?.stop() } catch { say("glow-load: the throwaway cluster did not stop: \(error)") }
    }
    let databaseName = options.database == "sqlite" ? "SQLite" : "one PostgreSQL"
    let serverArguments = [
        "--database", url, "--mail-dir", folder.appendingPathComponent("mail").path, "--threads",
        String(options.threads),
        "--connections", String(options.devices + 100),
    ]
    // The people are made once, through one process, and serve every run.
    let setup = try ServerProcess(arguments: serverArguments)
    let started = Date()
    let devices = try await setUp(
        devices: options.devices, through: ServiceClient(base: setup.url, retries: 3),
        mail: folder.appendingPathComponent("mail").path)
    setup.stop()
    if options.population > 0 {
        let written = try Population(count: options.population, friends: options.friends, items: options.items)
            .write(into: url, measured: Array(Set(devices.map(\.person))).sorted())
        print(
            "glow-load: \(written.people) people written into the relay's table: \(written.registers) registers in \(String(format: "%.1f", written.seconds)) s"
        )
    }
    say(
        "glow-load: \(devices.count) devices of \((devices.count + 3) / 4) people signed in (Argon2id) in \(String(format: "%.0f", Date().timeIntervalSince(started))) s"
    )
    print(
        "glow-load: \(devices.count) devices, think \(options.think) s ±50%, \(Int(options.seconds)) s per run after a 3 s warm-up; calls: \(options.writes.map { "\(100 - $0)% sync and \($0)% write" }.joined(separator: ", then ")) (of the writes two thirds publish, one third cheer); glow-server --threads \(options.threads) on \(databaseName)"
            + (options.hostile
                ? "; hostile: attacks throughout (\(options.attacks.sorted().map(\.rawValue).joined(separator: ", ")))"
                    + (options.each ? ", a calm run first and then each alone" : ", all at once") : "")
    )
    print("processes calls/s   p50       p99       p999      errors    server RSS (largest, all)")
    // Devices stay signed in from run to run and sync on from where they were.
    var held = [Held](repeating: Held(), count: devices.count)
    // With --each, every run is made calm and then under each attack alone.
    let attackRuns: [Set<Attack>] =
        options.each ? [[]] + options.attacks.sorted().map { [$0] } : [options.hostile ? options.attacks : []]
    let schedule = (0..<options.repeats).flatMap { _ in
        options.processes.flatMap { count in
            (options.writes.map { (processes: count, writes: Optional($0)) }
                + (options.control ? [(processes: count, writes: nil)] : []))
                .flatMap { run in attackRuns.map { (run.processes, run.writes, $0) } }
        }
    }
    var figures: [RunFigures] = []
    /// Each hostile run's bystanders: its attacks, health p99, sync p99 (seconds), health not answered.
    var bystanders: [(String, Double, Double, Int)] = []
    for (number, (count, share, attacking)) in schedule.enumerated() {
        if schedule.count > 1 {
            print(
                "run \(number + 1) of \(schedule.count): \(count) processes, "
                    + (share.map { "\($0)% of the calls write" } ?? "health checks alone (the control)")
                    + (options.hostile
                        ? attacking.isEmpty
                            ? ", calm" : ", attacked by \(attacking.sorted().map(\.rawValue).joined(separator: ", "))"
                        : ""))
        }
        var spawned: [Date] = []
        let processes = try (0..<count).map { _ in
            spawned.append(Date())
            return try ServerProcess(arguments: serverArguments, trustingForwardedFor: !options.hostile)
        }
        // Stopped however the run ends, a failure included.
        defer { for process in processes { process.stop() } }
        let ports = processes.compactMap { $0.url.port.map(UInt16.init) }
        // Each process's first sync answered, from its start: the time a new process needs before
        // it serves (a process that reads the relay's state whole reads it here).
        // A 503 (the process still reading, past its wait) is asked again half a second later, for
        // up to five minutes.
        var firstAnswers: [Double] = []
        for (index, port) in ports.enumerated() where index < devices.count {
            let device = devices[index]
            let giveUp = Date().addingTimeInterval(300)
            while true {
                let connection = LoopbackConnection(port: port, source: options.hostile ? deviceSource(index) : nil)
                let (status, _) = try connection.post(
                    "/v1/relay", token: device.token, from: device.client,
                    body: RelayRequest.changes(since: held[index].cursor).wireEncoded())
                connection.close()
                if status == 200 { break }
                guard status == 503, Date() < giveUp else {
                    throw LoadFailure(
                        description:
                            "process \(index + 1)'s first sync: HTTP \(status) after \(String(format: "%.0f", Date().timeIntervalSince(spawned[index]))) s"
                    )
                }
                try await Task.sleep(for: .milliseconds(500))
            }
            firstAnswers.append(Date().timeIntervalSince(spawned[index]))
        }
        // CPU time of the servers and the database, from the end of the warm-up to the end.
        var found: pid_t?
        if let cluster {
            do { found = try cluster.processes().first } catch { say("glow-load: no PostgreSQL CPU figure: \(error)") }
        }
        let postmaster = found
        let cpuAtStart = Locked<(server: Double, database: Double)>((0, 0))
        let peak = Locked<[Int]>(Array(repeating: 0, count: count))
        let sampling = Sampling()
        let pids = processes.map(\.pid)
        let sampler = Thread {
            while sampling.on {
                for (index, pid) in pids.enumerated() {
                    let bytes = ServerProcess.residentBytes(of: pid) ?? 0
                    peak.withLock { $0[index] = max($0[index], bytes) }
                }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        sampler.start()
        // The warm-up and the run of `run`, for the attack and the probe alongside.
        let counting = Date().addingTimeInterval(3.5)
        let deadline = counting.addingTimeInterval(options.seconds)
        let serverPIDs = processes.map(\.pid)
        let cpuSampler = Thread {
            Thread.sleep(until: counting)
            let sample = (cpuSeconds(of: serverPIDs), postmaster.map { cpuSeconds(ofCluster: $0) } ?? .nan)
            cpuAtStart.withLock { $0 = sample }
        }
        cpuSampler.start()
        let attacks = AttackTally()
        let health = Locked<(latencies: [Double], failures: [String: Int])>(([], [:]))
        var sideThreads: [Thread] = []
        if options.hostile {
            sideThreads = attack(
                attacking, ports: ports, mail: folder.appendingPathComponent("mail").path, ownLog: options.ownLog,
                until: deadline, tally: attacks)
            let probe = Thread {
                let probed = probeHealth(ports: ports, from: counting, until: deadline)
                health.withLock { $0 = probed }
            }
            probe.start()
            sideThreads.append(probe)
        }
        let tally = run(
            devices, held: held, ports: ports, seconds: options.seconds, think: options.think,
            writes: share, ownAddresses: options.hostile)
        waitFor(sideThreads + [cpuSampler])
        let cpuAtEnd = (
            server: cpuSeconds(of: serverPIDs), database: postmaster.map { cpuSeconds(ofCluster: $0) } ?? .nan
        )
        sampling.stop()
        let lost = options.hostile ? try lostWrites(tally.acknowledged, devices: devices, port: ports[0]) : []
        for (index, device) in tally.held { held[index] = device }
        for process in processes { process.stop() }
        let sorted = tally.latencies.sorted()
        let errors = tally.errors.values.reduce(0, +)
        let memory = peak.withLock { $0 }
        let largest = Double(memory.max() ?? 0) / 1_048_576
        let total = Double(memory.reduce(0, +)) / 1_048_576
        let cells = [
            String(count), String(format: "%.0f", Double(sorted.count) / options.seconds),
            milliseconds(percentile(sorted, 0.5)), milliseconds(percentile(sorted, 0.99)),
            milliseconds(percentile(sorted, 0.999)), String(errors),
        ]
        print(
            cells.map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined()
                + String(format: "%.0f MiB, %.0f MiB", largest, total))
        let writes = tally.writes.sorted()
        if !writes.isEmpty {
            print(
                "          of which writes: \(writes.count) (\(String(format: "%.0f", Double(writes.count) / options.seconds))/s), p50 \(milliseconds(percentile(writes, 0.5))), p99 \(milliseconds(percentile(writes, 0.99)))"
            )
        }
        for (error, times) in tally.errors.sorted(by: { $0.value > $1.value }).prefix(5) {
            print("           \(times) × \(error)")
        }
        let smallSyncs = tally.smallSyncs.sorted()
        if !tally.syncs.isEmpty {
            print(
                "          small syncs: \(smallSyncs.count), p50 \(milliseconds(percentile(smallSyncs, 0.5))), p99 \(milliseconds(percentile(smallSyncs, 0.99)))"
                    + (tally.firstSyncs.isEmpty
                        ? ""
                        : "; first syncs: \(tally.firstSyncs.count), p99 \(milliseconds(percentile(tally.firstSyncs.sorted(), 0.99)))")
            )
        }
        print("          other people's items received: \(tally.received)")
        let began = cpuAtStart.withLock { $0 }
        let calls = Double(sorted.count)
        let serverCPU = (cpuAtEnd.server - began.server) / calls * 1_000
        let databaseCPU = (cpuAtEnd.database - began.database) / calls * 1_000
        let perCall =
            sorted.isEmpty
            ? "no call answered"
            : String(format: "%.2f ms glow-server", serverCPU)
                + (postmaster == nil ? "" : String(format: " + %.2f ms PostgreSQL", databaseCPU))
        print(
            "          start to first answer: \(firstAnswers.map { String(format: "%.2f s", $0) }.joined(separator: ", ")); CPU per call: \(perCall)"
        )
        figures.append(
            RunFigures(
                processes: count,
                mix: (share.map { "\($0)%" } ?? "health")
                    + (attacking.isEmpty ? "" : " " + attacking.sorted().map(\.rawValue).joined(separator: "+")),
                callsPerSecond: calls / options.seconds,
                smallSyncP50: percentile(smallSyncs, 0.5), smallSyncP99: percentile(smallSyncs, 0.99),
                cpuPerCall: sorted.isEmpty ? .nan : serverCPU + (postmaster == nil ? 0 : databaseCPU),
                largestMiB: largest, slowestStart: firstAnswers.max() ?? .nan))
        if options.hostile {
            let probed = health.withLock { $0 }
            bystanders.append(
                (
                    attacking.isEmpty ? "calm" : attacking.sorted().map(\.rawValue).joined(separator: "+"),
                    percentile(probed.latencies.sorted(), 0.99), percentile(tally.syncs.sorted(), 0.99),
                    probed.failures.values.reduce(0, +)
                ))
            report(health: probed, syncs: tally.syncs, attacks: attacks)
            print("          acknowledged writes: \(tally.acknowledged.count) items, lost: \(lost.count)")
            for id in lost.prefix(5) { print("           lost: \(id.text)") }
        }
    }
    RunFigures.printMedians(figures)
    if bystanders.count > 1, let calm = bystanders.first(where: { $0.0 == "calm" }) {
        print("bystanders under each attack, beside the calm run of the same invocation:")
        print("  attack              health p99  × calm   sync p99    × calm   health not answered")
        for (name, health, sync, missed) in bystanders {
            let cells = [
                name, milliseconds(health), String(format: "%.2f×", health / calm.1), milliseconds(sync),
                String(format: "%.2f×", sync / calm.2), String(missed),
            ]
            print(
                "  "
                    + zip(cells, [20, 12, 9, 12, 9, 8]).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                    .joined())
        }
    }
} catch {
    say("glow-load: \(error)")
    exit(1)
}
