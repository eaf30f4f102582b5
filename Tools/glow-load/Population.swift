import Foundation
import GlowFeed
import GlowModel
import GlowPostgres
import GlowPostgresStores
import GlowRelay
import GlowServerStores
import GlowStorage
import GlowToolSupport

/// `--population N` (issue 43's scale curve): N people who never call, written straight into the
/// relay's table of the server's database as rows, the way a deployment's years of use would
/// leave them, so a run measures how the server's cost grows with the people it holds and not
/// only with the devices calling. Each generated person has about `friends` friends among the
/// others (a ring: the `friends / 2` before and after them), one friends-only goal and `items`
/// check-ins of it; each measured person befriends `friends` of them, so their syncs carry other
/// people's items as an app's do.
struct Population {
    /// People generated.
    let count: Int
    /// Friends each.
    let friends: Int
    /// Check-ins each.
    let items: Int

    /// What was written, for the report.
    struct Written {
        var people = 0
        var registers = 0
        var seconds = 0.0
    }

    /// Writes the population into the database at `url` (a PostgreSQL URL or a SQLite file) whose
    /// schema a glow-server made, beside the registers already there; `measured` are the persons
    /// of the calling devices, who each befriend some of the generated people.
    func write(into url: String, measured: [String]) throws -> Written {
        let started = Date()
        let run = UUID().uuidString.prefix(6).lowercased()
        func person(_ index: Int) -> String { "pop-\(run)-\(index)" }
        var rows: [(key: RelayKey, delta: FeedReplica)] = []
        var batches = Written()
        let wall = Int64(Date().timeIntervalSince1970 * 1_000) - 86_400_000
        let stamp = try Stamp(wall: wall, counter: 0, device: "population")
        let sink = try Sink(url)
        var sequence = try sink.lastSequence()
        var receipt = try sink.lastReceipt()
        func add(_ key: RelayKey, _ delta: FeedReplica) throws {
            rows.append((key, delta))
            if rows.count == 20_000 { try flush() }
        }
        func flush() throws {
            guard !rows.isEmpty else { return }
            try sink.insert(rows, firstSequence: sequence + 1)
            sequence += UInt64(rows.count)
            batches.registers += rows.count
            rows.removeAll(keepingCapacity: true)
        }
        func stance(_ from: String, _ to: String) throws {
            var delta = FeedReplica()
            delta.writeStance(.want, from: from, to: to, at: stamp)
            try add(.stance(.init(from: from, to: to)), delta)
        }
        let half = max(1, friends / 2)
        for index in 0..<count {
            let me = person(index)
            var neighbours: Set<Int> = []
            for step in 1...half {
                neighbours.insert((index + step) % count)
                neighbours.insert(((index - step) % count + count) % count)
            }
            neighbours.remove(index)
            for other in neighbours.sorted() { try stance(me, person(other)) }
            var visibility = FeedReplica()
            visibility.writeVisibility(.friends, owner: me, goal: "g", at: stamp)
            try add(.visibility(.init(owner: me, goal: "g")), visibility)
            for day in 0..<items {
                let item = try FeedItem(
                    owner: me, kind: .checkIn, goal: "g", time: wall - Int64(day) * 86_400_000, title: "Morning run",
                    emoji: "🏃", goalKind: "streak", day: try Day(daysSince1970: 20_000 - day), streak: items - day)
                var delta = FeedReplica()
                delta.writeItem(item, id: item.key, at: stamp)
                receipt += 1
                delta.receive(item: item.key, at: receipt)
                try add(.item(item.key), delta)
            }
        }
        for (index, measuredPerson) in measured.enumerated() where count > 0 {
            let others = Set((0..<min(friends, count)).map { step in (index * friends + step) % count })
            for other in others.sorted() {
                try stance(measuredPerson, person(other))
                try stance(person(other), measuredPerson)
            }
        }
        try flush()
        try sink.finish(lastReceipt: receipt)
        batches.people = count
        batches.seconds = Date().timeIntervalSince(started)
        return batches
    }

    /// Where the rows go: PostgreSQL's relay table by `COPY`, or SQLite's, in one transaction.
    final class Sink {
        private let postgres: PostgresConnection?
        private let sqlite: SQLiteConnection?
        private var version: Int64 = 1

        init(_ url: String) throws {
            if url.hasPrefix("postgres") {
                // A COPY of 20,000 rows is one statement: the server's statement timeout is this wait.
                let connection = try PostgresConnection(url, limits: PostgresLimits(wait: 300))
                try connection.execute("BEGIN")
                // The sequencer's lock, taken first: no process numbers changes meanwhile.
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(PostgresRelaySequencer.lock)])
                postgres = connection
                sqlite = nil
            } else {
                let connection = try SQLiteConnection(path: url, mode: .readWrite)
                try connection.execute("BEGIN IMMEDIATE")
                sqlite = connection
                postgres = nil
            }
        }

        func lastSequence() throws -> UInt64 {
            if let postgres {
                return UInt64(
                    clamping: try postgres.execute("SELECT coalesce(max(sequence), 0) AS last FROM relay_registers")
                        .int(0, "last"))
            }
            return UInt64(clamping: try sqlite?.integer("SELECT coalesce(max(sequence), 0) FROM relay_registers") ?? 0)
        }

        func lastReceipt() throws -> Int64 {
            if let postgres {
                return try postgres.execute(PostgresFeedRelayStore.lastReceiptQuery).int(0, "n")
            }
            return try sqlite?.integer("SELECT coalesce(max(last_receipt), 0) FROM relay_clock") ?? 0
        }

        /// Writes `rows` numbered from `firstSequence`, with the columns the relay's stores find
        /// them by (``RelayKey/indexColumns``), as the stores write them.
        func insert(_ rows: [(key: RelayKey, delta: FeedReplica)], firstSequence: UInt64) throws {
            if let postgres {
                let values = rows.enumerated().compactMap { offset, row -> [PostgresValue]? in
                    guard let register = FeedRelayState.StoredRegister(sequence: 1, delta: row.delta) else {
                        return nil
                    }
                    return [
                        .text(row.key.storageKey), .int(Int64(clamping: firstSequence) + Int64(offset)),
                        .bytes(row.delta.wireEncoded()), .int(version),
                    ] + PostgresFeedRelayStore.indexValues(register)
                }
                try postgres.copy(
                    into: "relay_registers",
                    columns: ["key", "sequence", "register", "version", "kind", "party", "other", "item", "is_public"],
                    rows: values)
            } else if let sqlite {
                let statement = try sqlite.prepare(
                    "INSERT INTO relay_registers (key, sequence, register, kind, party, other, item, is_public) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                for (offset, row) in rows.enumerated() {
                    guard let register = FeedRelayState.StoredRegister(sequence: 1, delta: row.delta) else { continue }
                    try statement.run(
                        [
                            .text(row.key.storageKey), .integer(Int64(clamping: firstSequence) + Int64(offset)),
                            .blob(row.delta.wireEncoded()),
                        ] + SQLiteFeedRelayStore.indexValues(register))
                }
            }
        }

        /// The receipt clock moved on, and the transaction committed.
        func finish(lastReceipt: Int64) throws {
            if let postgres {
                try postgres.execute("UPDATE relay_clock SET last_receipt = $1", [.int(lastReceipt)])
                try postgres.execute("COMMIT")
                // As after any bulk load: the planner's statistics of the tables just filled.
                try postgres.execute("ANALYZE relay_registers")
            } else if let sqlite {
                try sqlite.prepare("INSERT OR REPLACE INTO relay_clock (singleton, last_receipt) VALUES (1, ?)")
                    .run([.integer(lastReceipt)])
                try sqlite.execute("COMMIT")
            }
        }
    }
}

/// The CPU time a process has used, in seconds (Linux's `/proc/PID/stat`: user and system time,
/// and with `children` those of its children that ended and were waited for), nil where that
/// cannot be read.
func cpuSeconds(of pid: pid_t, children: Bool = false) -> Double? {
    let stat: String
    do {
        stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    } catch {
        return nil  // Not Linux, or the process is gone.
    }
    guard let close = stat.lastIndex(of: ")") else { return nil }
    // After the name: state (1), ..., utime (12), stime (13), counting from the state.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 15, let user = Double(fields[11]), let system = Double(fields[12]),
        let waitedUser = Double(fields[13]), let waitedSystem = Double(fields[14])
    else { return nil }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return (user + system + (children ? waitedUser + waitedSystem : 0)) / (ticks > 0 ? ticks : 100)
}

/// The CPU time a PostgreSQL cluster whose postmaster is `postmaster` has used, in seconds: the
/// postmaster's with every child that ended (a backend whose connection closed), and its children
/// running now; so the figure only grows, however connections come and go.
func cpuSeconds(ofCluster postmaster: pid_t) -> Double {
    let children: [pid_t]
    do { children = try ThrowawayPostgres.children(of: postmaster) } catch { return .nan }
    return (cpuSeconds(of: postmaster, children: true) ?? .nan)
        + children.compactMap { cpuSeconds(of: $0) }.reduce(0, +)
}

/// The CPU time the processes `pids` have used together, in seconds (those that cannot be read
/// count nothing).
func cpuSeconds(of pids: [pid_t]) -> Double { pids.compactMap { cpuSeconds(of: $0) }.reduce(0, +) }
