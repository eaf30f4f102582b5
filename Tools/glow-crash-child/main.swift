import Foundation
import GlowFeed
import GlowModel
import GlowRitual

// The child of the crash test (Tests/GlowRitualTests/CrashTests.swift): records taps, edits and
// bundle imports on a database in a loop, and says each one's identity on standard output only
// after its commit returned. The parent kills it with SIGKILL at a random moment and checks that
// everything said is there.
//
//     glow-crash-child DATABASE SEED IMPORTS...
//
// It taps and edits the tally goals counted in glasses. Lines: `tap GOAL DAY COUNT` (the Day's
// check-in then held COUNT taps), `edit GOAL N` (the goal's title became "Goal N"), `importing I`
// before and `import I` after the import of IMPORTS[I], and `sync N` after a feed delta was
// recorded with its cursor, as a sync does: the delta asks person pN for friendship, and the
// device's `feed.cursor` becomes N in the same transaction.

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
let usage = "usage: glow-crash-child DATABASE SEED IMPORTS...\n"
if arguments.dropFirst().contains(where: { $0 == "-h" || $0 == "--help" }) {
    print("The crash test's child: taps, edits and imports on DATABASE until killed.\n" + usage, terminator: "")
    exit(0)
}
guard arguments.count >= 3, !arguments[1].hasPrefix("-"), let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
let imports = Array(arguments.dropFirst(3))
/// xorshift64*: deterministic per seed, enough to vary what each run does.
struct Generator {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Int((state &* 2_685_821_657_736_338_717) >> 33) % bound
    }
}

do {
    var generator = Generator(state: seed | 1)
    let database = try await RitualDatabase(path: arguments[1])
    let boundary = try DayBoundary(timeZone: .utc)
    let device = try DeviceID("01938a6e-7c00-7abc-8def-00000000c0de")
    let today = try Day(iso: "2026-11-30")
    // The goals counted in glasses are the child's to tap and edit; the imports bring others.
    let goals = try await database.data.sortedGoals.filter { goal in
        if case .tally(let tally) = goal.kind { return tally.unit == "glasses" && !goal.deleted }
        return false
    }.map(\.id)
    let start = try Instant(rfc3339: "2026-11-30T12:00:00Z").millisecondsSince1970
    var clock = start + Int64(seed % 1_000) * 1_000_000
    var nextImport = imports.isEmpty ? 0 : generator.next(imports.count)
    var imported = 0
    var synced = try await database.deviceValue("feed.cursor").flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    while true {
        clock += 1
        let now = try Instant(millisecondsSince1970: clock)
        let goal = goals[generator.next(goals.count)]
        switch generator.next(10) {
        case 0 where imported < imports.count:
            let index = nextImport
            nextImport = (nextImport + 1) % imports.count
            imported += 1
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: imports[index])))
            say("importing \(index)")
            try await database.importBundle(bytes)
            say("import \(index)")
        case 2:
            synced += 1
            var delta = FeedReplica()
            delta.writeStance(
                .want, from: "child", to: "p\(synced)", at: try Stamp(wall: clock, counter: 0, device: "child"))
            try await database.recordFeed(delta, deviceValues: ["feed.cursor": Array(String(synced).utf8)])
            say("sync \(synced)")
        case 1:
            // The clock only grows, from run to run too (each seed starts 1,000,000 ms later):
            // titles numbered by it say which edit is the later.
            let number = Int(clock - start)
            try await database.perform { (data) throws(ModelError) in
                try data.editGoal(goal, at: now) { (draft) throws(ModelError) in draft.title = "Goal \(number)" }
            }
            say("edit \(goal) \(number)")
        default:
            let day = try today.adding(days: -generator.next(30))
            let changes = try await database.perform { (data) throws(ModelError) in
                try data.tap(.count(1), goal: goal, on: day, at: now, device: device, boundary: boundary)
            }
            let count = try await database.data.checkIn(CheckInKey(goalID: goal, day: day))?.taps.count ?? 0
            precondition(!changes.isEmpty)
            say("tap \(goal) \(day) \(count)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("glow-crash-child: \(error)\n".utf8))
    exit(1)
}
