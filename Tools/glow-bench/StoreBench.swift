import Foundation
import GlowAuth
import GlowBundle
import GlowModel
import GlowRitual
import GlowServerStores
import GlowStreaks

/// GlowRitual's durable store (issue 17's targets) on the heavy person: a tap made durable,
/// opening the database and answering Today, importing the heavy bundle into an empty database;
/// each against the same data kept in one JSON file rewritten on every change, which is what the
/// original app's UserDefaults amount to.
enum StoreBench {
    static let boundary = DayBoundary.utc
    /// 01938a6e-7c00-7abc-8def-00000000be0c.
    static let device = DeviceID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_BE0C)

    /// A new temporary folder; remove it with `removeTemporary(_:section:)`.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("glow-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The heavy person with one more goal to tap: a tally, so every tap is a change.
    static func person() throws -> (DataSet, GoalID, Day) {
        var data = try DataSets.make(DataSets.heavy)
        let today = data.checkIns.map(\.day).max()!
        let created = try Instant(millisecondsSince1970: 1_600_000_000_000)
        let goal = try Goal(
            id: GoalID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_BE0C), title: "Water",
            kind: .tally(TallyConfig(dailyTarget: 8, unit: "glasses")), schedule: Schedule(.daily, from: today),
            startDay: today, createdAt: created, modifiedAt: created)
        _ = try data.add(goal)
        return (data, goal.id, today)
    }

    /// Writes `data` as JSON the careful way: a temporary file, synced, renamed over the old one.
    static func rewrite(_ data: DataSet, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = try encoder.encode(data)
        let temporary = url.appendingPathExtension("tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw BenchFailure("cannot create \(temporary.path)")
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: bytes)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, url.path) == 0 else {
            throw BenchFailure("renaming \(temporary.path) to \(url.path) failed: \(String(cString: strerror(errno)))")
        }
    }

    static func percentile(_ samples: [Double], _ share: Double) -> Double {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
    }

    /// The account service's store on SQLite: one update (a throttle's count) among 1,000 and
    /// among 100,000 records; an update writes the records it changed, so its cost should not
    /// grow with the store. Against the same update in memory.
    static func accounts(in work: URL) throws {
        let throttle = try JSONDecoder().decode(
            AccountRecords.Throttle.self, from: Data(#"{"failures":1,"lastFailure":0}"#.utf8))
        var figures: [String] = []
        for count in [1_000, 100_000] {
            let store = try SQLiteAccountStore(path: work.appendingPathComponent("accounts-\(count).sqlite").path)
            let memory = InMemoryAccountStore()
            for target in [store, memory] as [any AccountStore] {
                try target.update { (records) throws(AuthError) in
                    for index in 0..<count { records.throttles["client-\(index)"] = throttle }
                }
            }
            var next = 0
            func one(_ target: any AccountStore) throws {
                next += 1
                try target.update { (records) throws(AuthError) in
                    records.throttles["client-\(next % count)"]?.failures += 1
                }
            }
            let durable = try Timing.measure(samples: 200) { try one(store) }
            let inMemory = try Timing.measure(samples: 200) { try one(memory) }
            record("store", "accountUpdate\(count)", durable.median)
            figures.append(
                "\(count) records \(milliseconds(durable.median)) (in memory \(String(format: "%.4f", inMemory.median * 1000)) ms)"
            )
        }
        say("store    one account-store update (a commit each): \(figures.joined(separator: "; "))")
    }

    static func run() async throws {
        say("\n== store: the heavy person in a durable database (SQLite, WAL, synchronous commits)")
        let (data, water, today) = try person()
        let bundle = BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch))
        let work = try folder()
        defer { removeTemporary(work, section: "store") }

        try accounts(in: work)

        // Importing the heavy bundle into an empty database.
        var databases = 0
        let importing = try await Timing.measure(samples: 5) {
            databases += 1
            return try await RitualDatabase(path: work.appendingPathComponent("import-\(databases).sqlite").path)
        } _: { database in
            blackHole(try await database.importBundle(bundle))
        }
        let json = work.appendingPathComponent("person.json")
        let importingJSON = try Timing.measure(samples: 5) {
            var target = DataSet()
            try BundleReader().import(bundle, into: &target)
            try rewrite(target, to: json)
        }
        record("store", "importHeavy", importing.median)
        say(
            "store    importing the heavy bundle into an empty database: \(milliseconds(importing.median)) (target < 200 ms); into a JSON file: \(milliseconds(importingJSON.median)) (\(String(format: "%.1f", importingJSON.median / importing.median))×)"
        )

        // Opening the database and answering Today.
        let path = work.appendingPathComponent("import-1.sqlite").path
        let opening = try await Timing.measure(samples: 7) {
            let database = try await RitualDatabase(path: path)
            blackHole(
                TodayQuery.evaluations(try await database.data, weekStart: .monday, today: today).filter(\.isOnToday))
        }
        let openingJSON = try Timing.measure(samples: 5) {
            let read = try JSONDecoder().decode(DataSet.self, from: Data(contentsOf: json))
            blackHole(TodayQuery.evaluations(read, weekStart: .monday, today: today).filter(\.isOnToday))
        }
        record("store", "openToday", opening.median)
        say(
            "store    opening the heavy person's database and answering Today: \(milliseconds(opening.median)) (target < 50 ms); from the JSON file: \(milliseconds(openingJSON.median)) (\(String(format: "%.0f", openingJSON.median / opening.median))×)"
        )

        // Taps, each durable before the next: the median and the 99th percentile.
        let database = try await RitualDatabase(path: path)
        let clock = ContinuousClock()
        var wall = boundary.firstInstant(of: today)!.millisecondsSince1970 + 3_600_000
        var taps: [Double] = []
        for _ in 0..<300 {
            wall += 1
            let now = try Instant(millisecondsSince1970: wall)
            let start = clock.now
            try await database.perform { (data) throws(ModelError) in
                try data.tap(.count(1), goal: water, at: now, device: device, boundary: boundary)
            }
            taps.append((clock.now - start).seconds)
        }
        var held = try await database.data
        let tapsJSON = try Timing.measure(samples: 5) {
            wall += 1
            _ = try held.tap(
                .count(1), goal: water, at: try Instant(millisecondsSince1970: wall), device: device,
                boundary: boundary)
            try rewrite(held, to: json)
        }
        let median = percentile(taps, 0.5)
        record("store", "tapMedian", median)
        record("store", "tapP99", percentile(taps, 0.99))
        say(
            "store    a tap made durable: median \(milliseconds(median)), 99th percentile \(milliseconds(percentile(taps, 0.99))) (target < 2 ms median); rewriting the JSON file: \(milliseconds(tapsJSON.median)) (\(String(format: "%.0f", tapsJSON.median / median))×)"
        )
    }
}
