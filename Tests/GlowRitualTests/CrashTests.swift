import Foundation
import GlowBundle
import GlowModel
import GlowStorage
import Testing

@testable import GlowRitual

/// Crash safety, proved (issue 17): a child process records taps, edits and bundle imports in a
/// loop, saying each one only after its commit returned; it is killed with SIGKILL at random
/// moments. After every kill the database opens, SQLite's integrity check passes, everything
/// the child said is there, and no import is there in part.
///
/// `GLOW_KILL_RUNS` sets the number of kills (20 by default; the README gives the long run's).
@Suite("Crash safety")
struct CrashTests {
    static let products: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("glow-crash-child").path) {
                return url
            }
        }
        return DatabaseTests.root.appendingPathComponent(".build/debug")
    }()

    /// Bundles of eight goals each with 200 check-ins, their goals' ids: big enough that a kill
    /// often lands inside an import.
    static func bundles(in folder: URL, count: Int) throws -> [(path: String, goals: [GoalID])] {
        try (0..<count).map { index in
            var data = DataSet()
            var goals: [GoalID] = []
            for offset in 0..<8 {
                // In cups: the child taps and edits only the goals counted in glasses.
                let goal = try DatabaseTests.goal(1_000 + index * 10 + offset, unit: "cups")
                _ = try data.add(goal)
                goals.append(goal.id)
                let first = try Instant(rfc3339: "2026-11-01T12:00:00Z").millisecondsSince1970
                for day in 0..<200 {
                    let instant = try Instant(millisecondsSince1970: first + Int64(day) * 86_400_000)
                    _ = try data.tap(
                        .count(1), goal: goal.id, at: instant, device: DatabaseTests.device,
                        boundary: DatabaseTests.boundary)
                }
            }
            let path = folder.appendingPathComponent("import-\(index).glow").path
            try Data(BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch)))
                .write(to: URL(fileURLWithPath: path))
            return (path, goals)
        }
    }

    @Test("killed at random moments, the database loses nothing it acknowledged and never holds half an import")
    func killed() async throws {
        let runs = Int(ProcessInfo.processInfo.environment["GLOW_KILL_RUNS"] ?? "") ?? 20
        let path = DatabaseTests.temporary()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            let database = try await RitualDatabase(path: path)
            for number in 1...4 {
                let goal = try DatabaseTests.goal(number)
                try await database.perform { (data) throws(ModelError) in try data.add(goal) }
            }
        }
        let imports = try Self.bundles(in: folder, count: 40)
        var taps: [CheckInKey: Int] = [:]
        var titles: [GoalID: Int] = [:]
        var acknowledgedImports: Set<Int> = []
        var killedDuringImport = 0
        var synced = 0
        var random = SystemRandomNumberGenerator()
        for run in 0..<runs {
            let child = Process()
            child.executableURL = Self.products.appendingPathComponent("glow-crash-child")
            child.arguments = [path, "\(run + 1)"] + imports.map(\.path)
            let output = Pipe()
            child.standardOutput = output
            child.standardError = FileHandle.nullDevice
            try child.run()
            usleep(UInt32.random(in: 30_000...250_000, using: &random))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "run \(run): the child ended by itself")
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // Only whole lines were said; a line cut by the kill was not.
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if text.hasSuffix("\n") == false, !lines.isEmpty { lines = lines.dropLast() }
            if lines.last?.hasPrefix("importing") == true { killedDuringImport += 1 }
            for line in lines {
                let words = line.split(separator: " ").map(String.init)
                switch words.first {
                case "tap":
                    let key = CheckInKey(goalID: try GoalID(words[1]), day: try Day(iso: words[2]))
                    taps[key] = max(taps[key] ?? 0, Int(words[3])!)
                case "edit":
                    let goal = try GoalID(words[1])
                    titles[goal] = max(titles[goal] ?? 0, Int(words[2])!)
                case "import":
                    acknowledgedImports.insert(Int(words[1])!)
                case "sync":
                    synced = max(synced, Int(words[1])!)
                default:
                    break
                }
            }
            let reopened = try await RitualDatabase(path: path)
            await #expect(try reopened.integrityCheck(), "run \(run)")
            let data = try await reopened.data
            for (key, count) in taps {
                let stored = data.checkIn(key)?.taps.count ?? 0
                #expect(stored >= count, "run \(run): \(key) held \(count) taps when acknowledged, now \(stored)")
            }
            for (goal, number) in titles {
                let stored = data.goals[goal].flatMap { Int($0.title.dropFirst("Goal ".count)) } ?? -1
                #expect(stored >= number, "run \(run): the title of \(goal) went back")
            }
            // A sync's delta and its cursor are there together or not at all: the people asked
            // are exactly p1 ... pCURSOR, and no acknowledged sync is missing.
            let cursor =
                try await reopened.deviceValue("feed.cursor").flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
            let feed = try await reopened.feed
            let asked = (1...(max(cursor, synced) + 1)).filter {
                feed.friendState("child", "p\($0)") == .requested
            }
            let together = asked == Array(1..<(cursor + 1))
            #expect(
                together, "run \(run): cursor \(cursor), but \(asked.count) people asked, the last \(asked.suffix(3))")
            #expect(cursor >= synced, "run \(run): acknowledged sync \(synced) is missing (cursor \(cursor))")
            for (index, bundle) in imports.enumerated() {
                // Each record of the import counts: every goal, and every goal's check-ins.
                let records = bundle.goals.map { (data.goals[$0] != nil ? 1 : 0) + data.history(of: $0).count }
                let whole = records.allSatisfy { $0 == 201 }
                #expect(
                    whole || records.allSatisfy { $0 == 0 }, "run \(run): import \(index) is there in part: \(records)")
                #expect(
                    whole || !acknowledgedImports.contains(index), "run \(run): acknowledged import \(index) is missing"
                )
            }
        }
        #expect(
            !taps.isEmpty && !acknowledgedImports.isEmpty && synced > 0, "the children did work before they were killed"
        )
        print(
            "crash test: \(runs) kills, \(killedDuringImport) during an import, \(taps.count) Days tapped, \(synced) syncs"
        )
    }
}
