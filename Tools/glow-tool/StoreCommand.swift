import Foundation
import GlowActivity
import GlowBundle
import GlowFeed
import GlowModel
import GlowRitual
import GlowStorage
import GlowToolSupport

/// `glow-tool store`: the SDK without an app, on a durable database (issue 17). Every command
/// that changes something has committed it when it prints.
enum StoreCommand {
    /// What `glow-tool store` was asked.
    struct Options: Equatable {
        enum Action: Equatable {
            case initialise
            case importBundle(String)
            case tap(goal: String, tap: TapChoice)
            case undo(goal: String)
            case today
            case overview
            case feed(person: String?, limit: Int)
            case export(output: String)
            /// Sends the person's writes to the server and takes in what it has for them.
            case sync(server: String?)
        }

        var action: Action
        var database: String?
        var day: String?
        var json = false
    }

    /// The tap a command line asks for.
    enum TapChoice: Equatable {
        case done, skip
        case count(Int)
        case add(String)
        case value(String)
    }

    /// The database's path: `--db`, else `$XDG_DATA_HOME/glow/glow.sqlite`, else
    /// `~/.local/share/glow/glow.sqlite`.
    static func path(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        explicit ?? DataFolder.path("glow", environment: environment) + "/glow.sqlite"
    }

    /// Whether the action may make the database: only `init` and `import` do; every other one
    /// needs a database that is there (a typo in --db is "no such database", not a new file).
    static func creates(_ action: Options.Action) -> Bool {
        switch action {
        case .initialise, .importBundle: true
        default: false
        }
    }

    /// Of the store's actions, `import` alone reads a bundle and `export` alone writes one: the
    /// passphrase options go with those, and `--encrypt` with `export`.
    static func check(_ options: Options, _ secrets: SecretOptions) throws(UsageErrorInRun) {
        let name: String
        switch options.action {
        case .initialise: name = "init"
        case .importBundle: name = "import"
        case .tap: name = "tap"
        case .undo: name = "undo"
        case .today: name = "today"
        case .overview: name = "overview"
        case .feed: name = "feed"
        case .export: name = "export"
        case .sync: name = "sync"
        }
        if secrets.encrypt || secrets.recoveryKey, name != "export" {
            throw UsageErrorInRun(message: "--encrypt and --recovery-key go with store export, not store \(name)")
        }
        if secrets.passphraseEnvironment != nil || secrets.passphraseDescriptor != nil, name != "import",
            name != "export"
        {
            throw UsageErrorInRun(message: "only store import and store export take a passphrase, not store \(name)")
        }
    }

    static func run(_ options: Options, secrets: Secrets) async throws {
        try check(options, secrets.options)
        let path = Self.path(options.database)
        let creates = Self.creates(options.action)
        if case .export(let output) = options.action {
            // The database and its log are never an export's output: writing there would replace
            // the person's data with a bundle.
            for file in [path, path + "-wal", path + "-shm"] where output == file || Files.isSameFile(output, file) {
                throw UsageErrorInRun(
                    message: "-o '\(output)' is the database: the bundle would replace the person's data")
            }
        }
        // A bare file name lives in the current folder, which is there.
        let folder = (path as NSString).deletingLastPathComponent
        if creates, !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw DataFailure(message: "cannot make the folder '\(folder)': \(error.localizedDescription)")
            }
        }
        // An import's bundle is read, and a file that is no bundle refused, before the database
        // is opened or made.
        var incoming: [UInt8]?
        if case .importBundle(let input) = options.action {
            // An encrypted bundle is opened a chunk at a time as it is read (never held whole
            // beside its plain bytes), and every chunk authenticated before the database is opened.
            incoming = try Files.streaming(input, secrets: secrets) { next in
                let limit = BundleLimits.default.maxBundleSize
                var bytes: [UInt8] = []
                while let chunk = next() {
                    // The first byte tells a bundle, so other files are refused at once.
                    if bytes.isEmpty, Format(head: chunk) != .bundle {
                        throw DataFailure(
                            message: "'\(input)' is not a bundle: it does not begin with the bundle's magic")
                    }
                    bytes += chunk
                    guard bytes.count <= limit else {
                        throw DataFailure(
                            message: "'\(input)' holds more than \(limit) bytes of bundle; a bundle is at most that")
                    }
                }
                return bytes
            }
        }
        /// The failure to open: "no such database" when nothing is there, else the error itself.
        func failure(_ error: StoreError) -> DataFailure {
            var missing = false
            if error.code == .cannotOpen, !creates {
                do { missing = try !FileSystem.exists(path) } catch { missing = false }
            }
            return DataFailure(
                message: missing
                    ? "there is no Glow database at '\(path)' (glow-tool store init makes one)" : "\(error)")
        }
        // Reading is read-only: today, overview and export read a snapshot, which neither
        // migrates the file nor makes anything beside it.
        if let read = Self.reading(options, path: path, secrets: secrets) {
            let data: DataSet
            do { data = try RitualDatabase.snapshot(path: path) } catch { throw failure(error) }
            try read(data)
            return
        }
        let database: RitualDatabase
        do { database = try await RitualDatabase(path: path, create: creates) } catch { throw failure(error) }
        let device = try! DeviceID("01938a6e-7c00-7abc-8def-0000000007ee")
        do {
            let boundary = try await database.data.dayBoundary
            let day = try parseDay(options.day) ?? boundary.day(containing: .now)
            switch options.action {
            case .initialise:
                print("ok: \(path) holds \(try await database.data.goals.count) goals")
            case .importBundle(let input):
                guard let incoming else { preconditionFailure("an import reads its bundle before the database") }
                let result = try await database.importBundle(incoming)
                print(
                    "imported \(input): \(result.changes.goals.count) goals and \(result.changes.checkInCount) check-ins changed"
                )
            case .tap(let name, let choice):
                let goal = try Self.goal(named: name, in: try await database.data)
                let tap = try Self.tap(choice)
                let now = Instant.now
                try await database.perform { (data) throws(ModelError) in
                    day == boundary.day(containing: now)
                        ? try data.tap(tap, goal: goal.id, at: now, device: device, boundary: boundary)
                        : try data.tap(tap, goal: goal.id, on: day, at: now, device: device, boundary: boundary)
                }
                let taps = try await database.data.checkIn(CheckInKey(goalID: goal.id, day: day))?.taps.count ?? 0
                print("\(goal.title) on \(day): \(taps) tap\(taps == 1 ? "" : "s")")
            case .undo(let name):
                let goal = try Self.goal(named: name, in: try await database.data)
                try await database.perform { (data) throws(ModelError) in
                    try data.undo(goal: goal.id, on: day, at: .now, device: device)
                }
                print("\(goal.title) on \(day): undone")
            case .today, .overview, .export:
                preconditionFailure("a read goes through reading(_:path:)")
            case .sync:
                preconditionFailure("a sync goes through AccountCommand.sync")
            case .feed(let person, let limit):
                try FeedCommand.check(limit: limit)
                // The person's items as their device publishes them (FEED-22, FEED-23), beside
                // what the feed log already holds from the relay.
                let kept = try await database.deviceValue("auth.account")
                let who = person ?? kept.map { String(decoding: $0, as: UTF8.self) }
                guard let who, !who.isEmpty else {
                    throw UsageErrorInRun(message: "nobody is signed in on this database: give --person ID")
                }
                let now = boundary.firstInstant(of: day).map { max($0, .now) } ?? .now
                var replica = try await database.feed
                var clock = HybridClock(device: "glow-tool")
                if let latest = replica.latestStamp { try? clock.receive(latest, now: 0) }
                let before = replica.latestStamp
                do {
                    try replica.publish(
                        try await database.data, owner: who, boundary: boundary, today: day, clock: &clock,
                        now: now.millisecondsSince1970)
                } catch {
                    throw DataFailure(message: "\(error)")
                }
                try await database.recordFeed(replica.changes(since: before))
                let view = try FeedCommand.view(of: try await database.feed, for: who, day: day, limit: limit)
                print(options.json ? Report.json(view) : FeedCommand.text(view), terminator: "")
            }
        } catch let error as StoreError {
            throw DataFailure(message: "\(error)")
        }
    }

    /// What a command that only reads does with the data, or nil for one that writes.
    static func reading(_ options: Options, path: String, secrets: Secrets) -> ((DataSet) throws -> Void)? {
        switch options.action {
        case .today, .overview:
            return { data in
                let boundary = data.dayBoundary
                let day = try parseDay(options.day) ?? boundary.day(containing: .now)
                let stats = Report.Stats(data, boundary: boundary, today: day)
                let shown = options.action == .today ? stats.onlyToday : stats
                print(options.json ? Report.json(shown) : shown.text, terminator: "")
            }
        case .export(let output):
            return { data in
                try Files.writeBundle(
                    BundleWriter.bundle(data, options: BundleOptions(createdAt: .now)), to: output, format: .bundle,
                    secrets: secrets)
            }
        default:
            return nil
        }
    }

    /// A goal by its id, or by its title (any case) when one goal that is not deleted has it.
    static func goal(named name: String, in data: DataSet) throws -> Goal {
        if let id = try? GoalID(name), let goal = data.goals[id] { return goal }
        let matches = data.sortedGoals.filter { !$0.deleted && $0.title.lowercased() == name.lowercased() }
        guard matches.count == 1 else {
            throw DataFailure(
                message: matches.isEmpty
                    ? "no goal is called '\(name)'; give its title or id"
                    : "\(matches.count) goals are called '\(name)': give one of \(matches.map(\.id.description))")
        }
        return matches[0]
    }

    static func tap(_ choice: TapChoice) throws -> CheckInTap {
        do {
            switch choice {
            case .done: return .done
            case .skip: return .skip
            case .count(let delta): return .count(delta)
            case .add(let text): return .add(try Amount(parsing: text))
            case .value(let text): return .value(try Amount(parsing: text))
            }
        } catch {
            throw UsageErrorInRun(message: "not an amount: \(error.message)")
        }
    }
}

extension Report.Stats {
    /// The goals to look at today only.
    var onlyToday: Report.Stats {
        Report.Stats(name: name, day: day, timeZone: timeZone, goals: goals.filter(\.onToday))
    }
}
