import Foundation
import GlowAuth
import GlowBundle
import GlowCore
import GlowModel
import GlowReminders
import GlowStreaks
import GlowToolSupport
import GlowWire

// glow-bench: the SDK against what an app would otherwise write (Codable with JSONEncoder or a
// binary property list, compressed with zlib), measured side by side in one run.
// Usage: swift run -c release glow-bench [--json] [--only NAME] [--set NAME] [--samples N] (see `usage`)

let arguments = Array(CommandLine.arguments.dropFirst())

/// Ends the run over a failure in `section` (a measurement as `--only` names it, with the data set
/// it ran on): `glow-bench: section (set): error` on standard error and status 1. Every failure of
/// storage, crypto or output comes here, thrown up from where it happened: none is swallowed or
/// crashes the tool, and none leaves a figure of work that did not run.
func fail(_ section: String, set: String? = nil, _ error: any Error) -> Never {
    let name = set.map { "\(section) (\($0))" } ?? section
    FileHandle.standardError.write(Data("glow-bench: \(name): \(error)\n".utf8))
    exit(1)
}

/// A failure glow-bench finds itself (a child process that failed, a corpus it cannot read),
/// said as it is.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Removes a temporary file or folder of `section`'s. One that cannot be removed is said on
/// standard error and left behind: the figures measured with it stand.
func removeTemporary(_ url: URL, section: String) {
    do {
        try FileManager.default.removeItem(at: url)
    } catch {
        FileHandle.standardError.write(Data("glow-bench: \(section): \(url.path) stays: \(error)\n".utf8))
    }
}

// The child process that measures the peak memory of verifying a bundle file.
if arguments.first == "--verify-peak", arguments.count == 2 {
    do {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: arguments[1]))
        let before = peakResidentBytes() ?? 0
        // The reader takes chunks from a function that cannot throw: a failed read ends the
        // chunks, and is what is thrown rather than the truncated bundle the reader then sees.
        var readFailure: (any Error)?
        let summary: BundleSummary
        do {
            summary = try BundleReader().read({
                do {
                    let data = try handle.read(upToCount: 64 * 1024) ?? Data()
                    return data.isEmpty ? nil : Array(data)
                } catch {
                    readFailure = error
                    return nil
                }
            }) { _ in }
        } catch {
            throw readFailure ?? error
        }
        if let readFailure { throw readFailure }
        print("\(summary.counts.checkIns) \(before) \(peakResidentBytes() ?? 0)")
        exit(0)
    } catch {
        fail("memory", error)
    }
}

// The child process that measures what holding an imported history costs in memory.
if arguments.first == "--resident", arguments.count == 3 {
    do {
        try ResidentMemory.child(shape: arguments[1], path: arguments[2])
        exit(0)
    } catch {
        fail("memory", error)
    }
}

let usage = """
    usage: glow-bench [--json] [--only NAME] [--set NAME] [--samples N] [--no-baselines] [--against BENCH]
      --only      encode, decode, size, bundle, encrypted, levels, merge, streaks, reminders, memory, auth, feed, store,
                  report, server, crypto, sync or app
      --set       typical, heavy or extreme
      --samples   samples per measurement after the warm-up (at least 1)
      --against   another tree's glow-bench (an executable): streaks, Today and the Overview are
                  measured in turns with it, five runs each, and printed side by side
    """
let measurementNames = [
    "encode", "decode", "size", "bundle", "encrypted", "levels", "merge", "streaks", "reminders", "memory", "auth",
    "feed", "store", "report", "server", "crypto", "sync", "app",
]
let setNames = [DataSets.typical, DataSets.heavy, DataSets.extreme].map(\.name)

/// The command line, checked: a mistyped name or flag stops the run with a message instead of
/// measuring nothing.
struct BenchArguments {
    var json = false
    var noBaselines = false
    var only: String?
    var set: String?
    var samples: Int?
    /// Another build's glow-bench to measure streaks against, in turns (issue 48).
    var against: String?

    init(_ arguments: [String]) throws(UsageError) {
        var parser = try OptionParser(
            arguments, command: "glow-bench", valued: ["--only", "--set", "--samples", "--against"])
        json = parser.flag("--json")
        noBaselines = parser.flag("--no-baselines")
        only = try parser.choice("--only", from: measurementNames)
        set = try parser.choice("--set", from: setNames)
        samples = try parser.integer("--samples", atLeast: 1)
        against = try parser.value("--against")
        if let against, !FileManager.default.isExecutableFile(atPath: against) {
            throw UsageError(message: "--against \(against): not an executable glow-bench", command: "glow-bench")
        }
        try parser.finish()
    }
}

if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
let parsed: BenchArguments
do {
    parsed = try BenchArguments(arguments)
} catch {
    FileHandle.standardError.write(Data("glow-bench: \(error)\n\(usage)\n".utf8))
    exit(2)
}
let json = parsed.json
let only = parsed.only
func wanted(_ name: String) -> Bool { only == nil || only == name }

let report = Locked<[String: [String: Double]]>([:])
func record(_ set: String, _ key: String, _ value: Double) {
    report.withLock { $0[set, default: [:]][key] = value }
}
func say(_ line: String) { if !json { print(line) } }

/// Created 1,700,000,000,000 ms after the epoch (2023-11-14T22:13:20Z).
let options = BundleOptions(level: 6, createdAt: Instant(Date(timeIntervalSince1970: 1_700_000_000)))

say(
    "glow-bench: \(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, Swift release build"
)

let onlySet = parsed.set
let samplesOverride = parsed.samples

for spec in [DataSets.typical, DataSets.heavy, DataSets.extreme] where onlySet == nil || onlySet == spec.name {
    let data: DataSet
    do { data = try DataSets.make(spec) } catch { fail("data set", set: spec.name, error) }
    let checkIns = data.checkInCount
    say("\n== \(spec.name): \(data.goals.count) goals, \(checkIns) check-ins over \(spec.days) days")
    record(spec.name, "checkIns", Double(checkIns))
    let blocks = data.blocks
    let goals = data.sortedGoals
    // Codable on a million check-ins takes minutes (see BENCHMARKS.md); --no-baselines is for profiling.
    let baselines = spec.name != "extreme" && !parsed.noBaselines
    let samples = samplesOverride ?? (spec.name == "typical" ? 9 : spec.name == "heavy" ? 7 : 3)
    let slowSamples = spec.name == "typical" ? 5 : 3

    // The GlowWire form: every record's canonical bytes.
    func wireEncode() -> [[UInt8]] {
        [data.profile!.wireEncoded()] + goals.map { $0.wireEncoded() } + blocks.map { $0.wireEncoded() }
    }
    let wire = wireEncode()
    let wireSize = wire.reduce(0) { $0 + $1.count }
    /// Decoding into the SDK's model values: the profile, the goals, and each goal's check-ins,
    /// as the JSON baseline decodes into its structs (no store is built in either).
    func wireDecode() throws -> (Profile, [Goal], [CheckInBlock]) {
        (
            try Profile(wire: wire[0]), try wire[1...goals.count].map { try Goal(wire: $0) },
            try wire[(goals.count + 1)...].map { try CheckInBlock(wire: $0) }
        )
    }
    if wanted("decode") {
        do {
            let (profile, decodedGoals, decodedBlocks) = try wireDecode()
            precondition(
                profile == data.profile && decodedGoals == goals && decodedBlocks == blocks, "GlowWire round trip")
        } catch {
            fail("decode", set: spec.name, error)
        }
    }

    let app =
        baselines
        ? AppModel.export(data)
        : AppModel.Export(
            profile: .init(id: UUID(), displayName: "", interests: [], timeZone: "", createdAt: Date()), goals: [],
            checkIns: [])
    let jsonEncoder = JSONEncoder()
    jsonEncoder.dateEncodingStrategy = .millisecondsSince1970
    let jsonDecoder = JSONDecoder()
    jsonDecoder.dateDecodingStrategy = .millisecondsSince1970
    let plistEncoder = PropertyListEncoder()
    plistEncoder.outputFormat = .binary
    let needsBaselines = baselines && (wanted("encode") || wanted("decode") || wanted("size"))
    let jsonBytes: Data
    let plistBytes: Data
    do {
        jsonBytes = needsBaselines ? try jsonEncoder.encode(app) : Data()
        plistBytes = needsBaselines ? try plistEncoder.encode(app) : Data()
    } catch {
        fail("data set", set: spec.name, error)
    }

    /// Prints and records GlowWire's figures for `operation` and, when the baselines run, each
    /// baseline's with GlowWire's ratio to it. A failure of any of them is thrown.
    func compare(
        _ operation: String, glow: () throws -> Void, note: String = "",
        json: (name: String, body: () throws -> Void), plist: () throws -> Void
    ) throws {
        // The SDK side is cheap to sample: three times the samples steady its median on a busy machine.
        let glow = try Timing.measure(samples: samples * 3, glow)
        record(spec.name, "\(operation)GlowWire", glow.median)
        say(
            "\(operation)   GlowWire      \(milliseconds(glow.median)) (±\(Int(glow.spread * 100))%)  \(rate(checkIns, glow.median)) check-ins  \(String(format: "%.0f", Double(wireSize) / glow.median / 1e6)) MB/s\(note)"
        )
        guard baselines else { return }
        let jsonTime = try Timing.measure(samples: slowSamples, json.body).median
        let plistTime = try Timing.measure(samples: slowSamples, plist).median
        record(spec.name, "\(operation)JSON", jsonTime)
        record(spec.name, "\(operation)Plist", plistTime)
        record(spec.name, "\(operation)RatioJSON", jsonTime / glow.median)
        for (name, time) in [(json.name, jsonTime), ("PropertyList", plistTime)] {
            let padded = name.padding(toLength: 13, withPad: " ", startingAt: 0)
            say(
                "\(operation)   \(padded) \(milliseconds(time))  \(rate(checkIns, time)) check-ins  → GlowWire is \(String(format: "%.0f", time / glow.median))×"
            )
        }
    }
    if wanted("encode") {
        do {
            try compare(
                "encode", glow: { blackHole(wireEncode()) },
                json: ("JSONEncoder", { blackHole(try jsonEncoder.encode(app)) }),
                plist: { blackHole(try plistEncoder.encode(app)) })
        } catch {
            fail("encode", set: spec.name, error)
        }
    }
    if wanted("decode") {
        do {
            try compare(
                "decode", glow: { blackHole(try wireDecode()) }, note: "  (into validated model values)",
                json: ("JSONDecoder", { blackHole(try jsonDecoder.decode(AppModel.Export.self, from: jsonBytes)) }),
                plist: { blackHole(try PropertyListDecoder().decode(AppModel.Export.self, from: plistBytes)) })
        } catch {
            fail("decode", set: spec.name, error)
        }
    }
    let bundle = BundleWriter.bundle(data, options: options)
    if wanted("size") {
        let perCheckIn = { (bytes: Int) in String(format: "%.2f", Double(bytes) / Double(checkIns)) }
        record(spec.name, "sizeGlowWire", Double(wireSize))
        record(spec.name, "sizeBundle", Double(bundle.count))
        record(spec.name, "bundleBytesPerCheckIn", Double(bundle.count) / Double(checkIns))
        say(
            "size     GlowWire raw  \(wireSize) B (\(perCheckIn(wireSize)) per check-in)   bundle \(bundle.count) B (\(perCheckIn(bundle.count)) per check-in)"
        )
        if baselines {
            let jsonZlib = deflated(Array(jsonBytes), level: 6)
            record(spec.name, "sizeJSON", Double(jsonBytes.count))
            record(spec.name, "sizeJSONZlib", Double(jsonZlib))
            say(
                "size     JSON raw      \(jsonBytes.count) B (\(perCheckIn(jsonBytes.count)) per check-in)   JSON+zlib 6 \(jsonZlib) B (\(perCheckIn(jsonZlib)) per check-in)  → bundle is \(String(format: "%.1f", Double(jsonZlib) / Double(bundle.count)))× smaller"
            )
            say("size     plist binary  \(plistBytes.count) B (\(perCheckIn(plistBytes.count)) per check-in)")
        }
    }
    if wanted("bundle") {
        do {
            let export = Timing.measure(samples: samples) { blackHole(BundleWriter.bundle(data, options: options)) }
            // Import as the issue defines it: verify and decode every record (merging into a store
            // is the merge benchmark's).
            let importing = try Timing.measure(samples: samples) {
                var records: [BundleRecord] = []
                blackHole(try BundleReader().read(BundleReader.chunks(bundle)) { records.append($0) })
                blackHole(records)
            }
            let intoStore = try Timing.measure(samples: samples) { blackHole(try BundleReader().dataSet(bundle)) }
            record(spec.name, "importIntoDataSet", intoStore.median)
            let stream = Array(bundle[BundleHeader.size..<(bundle.count - 24)])
            let inflateOnly = try Timing.measure(samples: samples) { blackHole(try inflatedSize(stream)) }
            record(spec.name, "export", export.median)
            record(spec.name, "import", importing.median)
            record(spec.name, "inflateOnly", inflateOnly.median)
            say(
                "bundle   export \(milliseconds(export.median))   import (verify + decode) \(milliseconds(importing.median))   zlib inflate alone \(milliseconds(inflateOnly.median)) → import is \(String(format: "%.2f", importing.median / inflateOnly.median))× inflate; into a DataSet \(milliseconds(intoStore.median))"
            )
        } catch {
            fail("bundle", set: spec.name, error)
        }
    }
    if wanted("encrypted") && spec.name == "heavy" {
        do {
            // Encrypted bundles (BUNDLE-29 ...): the chunks' cost apart from the one key derivation,
            // measured with the smallest parameters, and the derivation at the writer's defaults.
            let small = EnvelopeKDF(memoryKiB: 8, iterations: 1, parallelism: 1)
            func sealer() throws -> EnvelopeSealer {
                try EnvelopeSealer(
                    passphrase: "benchmark", recoveryKey: nil, kdf: small, salt: Array(repeating: 1, count: 16),
                    fileKey: Array(repeating: 2, count: 32))
            }
            var probe = try sealer()
            let sealed = try probe.seal(bundle) + probe.finish()
            let export = Timing.measure(samples: samples) { blackHole(BundleWriter.bundle(data, options: options)) }
            let sealing = try Timing.measure(samples: samples) {
                var writer = try sealer()
                blackHole(try writer.seal(bundle) + writer.finish())
            }
            let plainImport = try Timing.measure(samples: samples) { blackHole(try BundleReader().dataSet(bundle)) }
            let opening = try Timing.measure(samples: samples) {
                var opener = EnvelopeOpener(secret: .passphrase("benchmark"))
                blackHole(try opener.open(sealed) + opener.finish())
            }
            let sealedImport = try Timing.measure(samples: samples) {
                var opener = EnvelopeOpener(secret: .passphrase("benchmark"))
                let pieces = BundleReader.chunks(sealed)
                var plain: [[UInt8]] = []
                while let piece = pieces() { plain.append(try opener.open(piece)) }
                plain.append(try opener.finish())
                var index = 0
                blackHole(
                    try BundleReader().dataSet(reading: {
                        defer { index += 1 }
                        return index < plain.count ? plain[index] : nil
                    }))
            }
            let derivation = try Timing.measure(samples: Swift.min(samples, 5)) {
                blackHole(try EnvelopeSealer(passphrase: "benchmark"))
            }
            record(spec.name, "sealBytes", Double(sealed.count))
            record(spec.name, "seal", sealing.median)
            record(spec.name, "open", opening.median)
            record(spec.name, "importSealed", sealedImport.median)
            record(spec.name, "keyDerivation", derivation.median)
            say(
                "sealed   \(sealed.count) B (\(sealed.count - bundle.count) B more than plain); seal \(milliseconds(sealing.median)) beside export \(milliseconds(export.median)) (\(String(format: "%.2f", (export.median + sealing.median) / export.median))× writing plain); open \(milliseconds(opening.median)); open and read into a DataSet \(milliseconds(sealedImport.median)) against plain \(milliseconds(plainImport.median)) (\(String(format: "%.2f", sealedImport.median / plainImport.median))×)"
            )
            say(
                "sealed   key derivation at the writer's parameters (Argon2id, 64 MiB, 3 passes, 1 lane): \(milliseconds(derivation.median)), once per file"
            )
        } catch {
            fail("encrypted", set: spec.name, error)
        }
    }
    if wanted("crypto") && spec.name == "extreme" {
        do {
            try CryptoBench.openExtreme(bundle, samples: samples)
        } catch {
            fail("crypto", set: spec.name, error)
        }
    }
    if wanted("levels") && spec.name == "heavy" {
        say("levels   level  bytes    per check-in  export")
        for level in [1, 3, 6, 9] {
            var levelOptions = options
            levelOptions.level = level
            let bytes = BundleWriter.bundle(data, options: levelOptions)
            let time = Timing.measure(samples: 5) { blackHole(BundleWriter.bundle(data, options: levelOptions)) }
            record(spec.name, "level\(level)Bytes", Double(bytes.count))
            record(spec.name, "level\(level)Export", time.median)
            say(
                "         \(level)      \(bytes.count)   \(String(format: "%.2f", Double(bytes.count) / Double(checkIns)))          \(milliseconds(time.median))"
            )
        }
    }
    if wanted("merge") && spec.name == "heavy" {
        do {
            var other = try DataSets.make(DataSets.Spec(name: "heavy-b", goals: 50, days: 5 * 365, seed: 2))
            for goal in other.sortedGoals.prefix(10) {
                var edited = goal
                try edited.edit(at: edited.modifiedAt.adding(milliseconds: 1000)) { $0.title += " (edited)" }
                other.put(edited)
            }
            let time = Timing.measure(samples: 5) { blackHole(data.merging(other)) }
            record(spec.name, "merge", time.median)
            say(
                "merge    two heavy data sets: \(milliseconds(time.median))  (\(rate(checkIns * 2, time.median)) records)"
            )
        } catch {
            fail("merge", set: spec.name, error)
        }
    }
    if wanted("streaks") && spec.name != "extreme" {
        do {
            let today = try Day(iso: "2021-01-04").advanced(by: spec.days - 1)
            // Straight from each goal's history columns, as the DataSet keeps them.
            let evaluate = Timing.measure(samples: samples) {
                for goal in goals {
                    let evaluation = GoalEvaluation(
                        goal: goal, history: data.history(of: goal.id), weekStart: .monday, today: today)
                    blackHole(
                        (evaluation.currentStreak, evaluation.longestStreak, evaluation.consistency(lastDays: 30)))
                }
            }
            let todayTime = Timing.measure(samples: samples) {
                blackHole(TodayQuery.evaluations(data, weekStart: .monday, today: today).compactMap(TodayQuery.item))
            }
            let overview = Timing.measure(samples: samples) {
                blackHole(
                    TodayQuery.evaluations(data, weekStart: .monday, today: today).map { OverviewQuery.item($0) })
            }
            // Strength (STREAK-27 ... STREAK-29) with everything a Today or Overview row shows of it.
            let strength = Timing.measure(samples: samples) {
                for goal in goals {
                    let evaluation = GoalEvaluation(
                        goal: goal, history: data.history(of: goal.id), weekStart: .monday, today: today)
                    guard let strength = evaluation.strength else { continue }
                    blackHole(
                        (
                            strength.thousandths, strength.change(overLast: 7), strength.change(overLast: 30),
                            strength.moves
                        ))
                }
            }
            record(spec.name, "streaks", evaluate.median)
            record(spec.name, "today", todayTime.median)
            record(spec.name, "overview", overview.median)
            record(spec.name, "strength", strength.median)
            say(
                "streaks  every goal \(milliseconds(evaluate.median))   Today \(milliseconds(todayTime.median))   Overview (12 weeks) \(milliseconds(overview.median))"
            )
            say(
                "strength every goal, with its 7- and 30-Day change and moves: \(milliseconds(strength.median)) (\(String(format: "%.2f", strength.median / overview.median))× the Overview)"
            )
            if let against = parsed.against {
                SideBySide.streaks(against: against, set: spec.name, samples: samples)
            }
            // The incremental path: a tap at noon of the last Day, then the Today list, on a tracker
            // that keeps every goal evaluated. Each sample taps the next goal.
            let boundary = try DayBoundary(timeZone: .utc, dayStartMinutes: 0, weekStart: .monday)
            let noon = try Instant(millisecondsSince1970: Int64(today.daysSince1970) * 86_400_000 + 43_200_000)
            var tracker = try Tracker(data: data, now: noon, boundary: boundary)
            let device = DeviceID(high: 0x0193_0000_0000_7000, low: 0x8000_0000_0000_0bad)
            // As in an app, the tracker owns its data: a first tap on every goal (not measured) makes
            // each history its own rather than shared with this run's copy. A `.done` does not fit a
            // tally, value or subgoal goal (MODEL-34): the tracker's refusal is expected here and is
            // part of what the samples below time; any other failure ends the run.
            for goal in goals {
                do throws(ModelError) {
                    try tracker.tap(CheckInTap.done, goal: goal.id, at: noon, device: device)
                } catch {
                    guard error.rule == "MODEL-34" else { throw error }
                }
            }
            var next = 0
            let tapThenToday = try Timing.measure(samples: Swift.min(goals.count - 1, 40)) {
                let goal = goals[next % goals.count]
                next += 1
                // The clock moves on a second per tap, as it would.
                let at = try noon.adding(milliseconds: Int64(next) * 1000)
                do throws(ModelError) {
                    blackHole(try tracker.tap(CheckInTap.done, goal: goal.id, at: at, device: device))
                } catch {
                    // Refused as above: the refusal is the tap measured.
                    guard error.rule == "MODEL-34" else { throw error }
                }
                blackHole(tracker.todayItems)
            }
            // The alternative the checkpoint spares (STREAK-26): the tapped goal's whole history
            // walked again, with its Today item, on the same data.
            next = 0
            let walkedAgain = Timing.measure(samples: Swift.min(goals.count - 1, 40)) {
                let goal = goals[next % goals.count]
                next += 1
                let evaluation = GoalEvaluation(
                    goal: goal, history: tracker.data.history(of: goal.id), weekStart: .monday, today: today)
                blackHole(TodayQuery.item(evaluation))
            }
            // The evaluation alone, brought up to date after a change today: resumed from its
            // checkpoint against walked from the start (each sample resumes the next goal's own,
            // unshared evaluation, so no list is copied).
            var pool: [GoalEvaluation?] = goals.map {
                GoalEvaluation(goal: $0, history: tracker.data.history(of: $0.id), weekStart: .monday, today: today)
            }
            next = 0
            let resumed = Timing.measure(samples: Swift.min(goals.count - 1, 40)) {
                let index = next % goals.count
                next += 1
                var evaluation = pool[index].take()!
                evaluation.update(checkInsChangedOn: [today], history: tracker.data.history(of: goals[index].id))
                blackHole(TodayQuery.item(evaluation))
                pool[index] = evaluation
            }
            record(spec.name, "tapThenToday", tapThenToday.median)
            record(spec.name, "tappedGoalWalkedAgain", walkedAgain.median)
            record(spec.name, "evaluationResumed", resumed.median)
            say(
                "resume   a goal's evaluation after a change today, with its Today item, resumed from its checkpoint: \(String(format: "%.4f", resumed.median * 1000)) ms"
                    + " (the walk from the start of the same goals: \(String(format: "%.2f", walkedAgain.median / resumed.median))× that)"
            )
            say(
                "tap      a tap, then Today (the walk resumed): \(String(format: "%.3f", tapThenToday.median * 1000)) ms;"
                    + " the tapped goal walked from its start instead: \(String(format: "%.3f", walkedAgain.median * 1000)) ms"
                    + " (\(String(format: "%.2f", walkedAgain.median / tapThenToday.median))× the whole tap)")
        } catch {
            fail("streaks", set: spec.name, error)
        }
    }
    if wanted("reminders") && spec.name != "extreme" {
        do {
            // Every goal reminded at 07:30 and 20:00, the evening nudge at 21:00 and quiet hours from
            // 22:00 to 07:00, in London (daylight saving at either end of the year), at noon of the
            // last Day: the week's plan from a tracker's evaluations, and a re-plan after an undo.
            let today = try Day(iso: "2021-01-04").advanced(by: spec.days - 1)
            let boundary = try DayBoundary(
                timeZone: TimeZoneID("Europe/London"), dayStartMinutes: 0, weekStart: .monday)
            let noon = boundary.instant(atOrAfter: 720, on: today)
            let device = DeviceID(high: 0x0193_0000_0000_7000, low: 0x8000_0000_0000_0bad)
            // The settings are the goals' and the profile's own, as a device keeps them.
            let times = try GoalReminders(times: [450, 1200])
            let person = try PersonReminders(
                streakAtRisk: .init(minute: 1260, minimumStreak: 3), quietHours: .init(start: 1320, end: 420))
            var remindful = data
            for goal in goals where !goal.deleted {
                try remindful.editGoal(goal.id, at: noon) { $0.reminders = times }
            }
            if remindful.profile != nil {
                try remindful.editProfile(at: noon) { $0.reminders = person }
            } else {
                try remindful.setProfile(
                    Profile(
                        userID: UserID(high: 0x0193_0000_0000_7000, low: 0x8000_0000_0000_0001), displayName: "Bench",
                        boundary: boundary, reminders: person, createdAt: noon, modifiedAt: noon))
            }
            var tracker = try Tracker(data: remindful, now: noon, boundary: boundary)
            let week = try Timing.measure(samples: samples) {
                blackHole(try ReminderKeeper(tracker: tracker).plan)
            }
            let fresh = try Timing.measure(samples: samples) {
                blackHole(try ReminderPlanner.plan(data: remindful, boundary: boundary, now: noon))
            }
            var keeper = try ReminderKeeper(tracker: tracker)
            var next = 0
            var touched = 0
            // Undo a check-in of today, untimed as the tracker's own
            // work: the Day waits again, so its reminder of tonight, and perhaps a nudge, come back.
            // What is timed is the keeper's re-plan and the change it gives.
            // Only goals with a check-in today: every sample undoes one, so none times nothing.
            let undoable = goals.filter { data.checkIn(CheckInKey(goalID: $0.id, day: today)) != nil }
            let replan = try Timing.measure(
                samples: Swift.min(undoable.count - 1, 40),
                setup: { () throws -> Tracker.Update in
                    let goal = undoable[next % undoable.count]
                    next += 1
                    let at = try noon.adding(milliseconds: Int64(next) * 1000)
                    return try tracker.undo(goal: goal.id, on: today, at: at, device: device)
                },
                { update in
                    let change = keeper.refresh(tracker, after: update)
                    touched += change.cancel.count + change.add.count
                    blackHole(change)
                })
            record(spec.name, "remindersWeek", week.median)
            record(spec.name, "remindersFresh", fresh.median)
            record(spec.name, "remindersReplan", replan.median)
            say(
                "reminders the week's plan of \(goals.count) goals from a tracker: \(milliseconds(week.median)) (from the data alone \(milliseconds(fresh.median)))   an undo, then the change: \(String(format: "%.3f", replan.median * 1000)) ms (\(touched) notifications cancelled or added)"
            )
        } catch {
            fail("reminders", set: spec.name, error)
        }
    }
    if wanted("memory") && spec.name == "extreme" {
        do {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("glow-bench-extreme.glow").path
            try Data(bundle).write(to: URL(fileURLWithPath: path))
            defer { removeTemporary(URL(fileURLWithPath: path), section: "memory") }
            // What holding the imported history costs, per check-in, three ways (one child each).
            var perCheckIn: [String: Double] = [:]
            for shape in ResidentMemory.shapes {
                let (count, bytes) = try ResidentMemory.measure(shape: shape, path: path)
                guard count > 0 else { continue }
                perCheckIn[shape] = Double(bytes) / Double(count)
                record(spec.name, "resident_\(shape)_bytesPerCheckIn", Double(bytes) / Double(count))
            }
            if let columns = perCheckIn["dataset"] {
                let others = [
                    ("[CheckIn]", perCheckIn["checkins"]), ("JSON-decoded Codable structs", perCheckIn["codable"]),
                ]
                .compactMap { name, value in value.map { String(format: "%@ %.0f B (%.1f×)", name, $0, $0 / columns) } }
                say(
                    "memory   the imported history held resident: DataSet \(String(format: "%.1f", columns)) B per check-in; \(others.joined(separator: ", "))"
                )
            }
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["--verify-peak", path]
            let pipe = Pipe()
            child.standardOutput = pipe
            try child.run()
            let output = String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
            child.waitUntilExit()
            let fields = output.split(separator: " ").compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            // A child that failed has said why on standard error.
            guard child.terminationStatus == 0, fields.count == 3 else {
                throw BenchFailure("verifying the bundle: the child exited \(child.terminationStatus) with '\(output)'")
            }
            record(spec.name, "verifyPeakBytes", Double(fields[2]))
            say(
                "memory   verifying the \(bundle.count / 1024) KiB bundle of \(fields[0]) check-ins: peak \(fields[2] >> 20) MiB resident (\(fields[1] >> 20) MiB before reading)"
            )
        } catch {
            fail("memory", set: spec.name, error)
        }
    }
}

// The own crypto beside libargon2 and libcrypto, once per run (CryptoBench.swift).
if wanted("crypto") && (onlySet == nil || only == "crypto") {
    do { try CryptoBench.run(samples: samplesOverride ?? 7) } catch { fail("crypto", error) }
}

// Accounts and ID tokens, once per run: not per data set (AuthBench.swift).
if wanted("auth") && (onlySet == nil || only == "auth") {
    do { try AuthBench.run() } catch { fail("auth", error) }
}

// glow-server's, once per run (ServerBench.swift): the devices are URLSession's tasks.
if wanted("server") && (onlySet == nil || only == "server") {
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        do { try await ServerBench.run() } catch { fail("server", error) }
        finished.signal()
    }
    finished.wait()
}

// The feed's figures, once per run (FeedBench.swift).
if wanted("feed") && (onlySet == nil || only == "feed") {
    do { try FeedBench.run() } catch { fail("feed", error) }
}

// The durable store's, on the heavy person (StoreBench.swift).
if wanted("store") && (onlySet == nil || only == "store") {
    do { try await StoreBench.run() } catch { fail("store", error) }
}

// A person's own data between their devices, on the heavy person (SyncBench.swift).
if wanted("sync") && (onlySet == nil || only == "sync") {
    do { try SyncBench.run() } catch { fail("sync", error) }
}

// The app object on the main actor, on the heavy person (AppBench.swift).
if wanted("app") && (onlySet == nil || only == "app") {
    do { try await AppBench.run() } catch { fail("app", error) }
}

// The HTML report, on the heavy person (ReportBench.swift).
if wanted("report") && (onlySet == nil || only == "report") {
    do { try ReportBench.run() } catch { fail("report", error) }
}

if json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
        print(String(decoding: try encoder.encode(report.withLock { $0 }), as: UTF8.self))
    } catch {
        fail("json", error)
    }
}
