import Foundation

/// Another tree's glow-bench measured in turns with this one (issue 48): each turn runs both as
/// child processes (`--only streaks --set SET --json`), this build first on even turns and the
/// other first on odd ones, so both measure from a fresh process and a drift in the machine's
/// speed falls on both alike.
enum SideBySide {
    /// The figures compared, by their JSON key, with how they are printed.
    static let figures = [("streaks", "every goal's streaks"), ("today", "Today"), ("overview", "the Overview")]
    /// Turns of each.
    static let turns = 7

    /// Runs this build and `against` in turns and prints, for each figure, both builds' medians
    /// and the range and median of the ratio of this build's to the other's, turn by turn.
    static func streaks(against: String, set: String, samples: Int) {
        let this = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        var ours: [String: [Double]] = [:]
        var theirs: [String: [Double]] = [:]
        for turn in 0..<turns {
            let order = turn % 2 == 0 ? [this, against] : [against, this]
            for executable in order {
                guard let figures = run(executable, set: set, samples: samples) else { return }
                for (key, _) in Self.figures {
                    guard let value = figures[key] else {
                        say("against  \(executable) gave no '\(key)' figure for \(set)")
                        return
                    }
                    if executable == this {
                        ours[key, default: []].append(value)
                    } else {
                        theirs[key, default: []].append(value)
                    }
                }
            }
        }
        say("against  \(against), \(turns) turns, each build a fresh process:")
        for (key, name) in figures {
            let (mine, other) = (ours[key] ?? [], theirs[key] ?? [])
            let ratios = zip(mine, other).map { $0 / $1 }
            let median = ratios.sorted()[ratios.count / 2]
            record(set, "\(key).against", other.sorted()[other.count / 2])
            record(set, "\(key).ratio", median)
            say(
                "against    \(name): \(range(mine, milliseconds)) beside \(range(other, milliseconds)) → \(range(ratios) { String(format: "%.2f×", $0) }), median \(String(format: "%.2f×", median))"
            )
        }
    }

    /// `values` as "least–most".
    static func range(_ values: [Double], _ format: (Double) -> String) -> String {
        guard let low = values.min(), let high = values.max() else { return "-" }
        return low == high ? format(low) : "\(format(low))–\(format(high))"
    }

    /// A build's medians for `set`, in seconds, or nil (said why) when it does not run.
    static func run(_ executable: String, set: String, samples: Int) -> [String: Double]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--only", "streaks", "--set", set, "--json", "--samples", "\(samples)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            say("against  \(executable) did not start: \(error)")
            return nil
        }
        let data: Data
        do {
            data = try output.fileHandleForReading.readToEnd() ?? Data()
        } catch {
            say("against  \(executable)'s output could not be read: \(error)")
            return nil
        }
        process.waitUntilExit()
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            say("against  \(executable) exited \(process.terminationStatus) without JSON: \(error)")
            return nil
        }
        guard process.terminationStatus == 0, let sets = parsed as? [String: Any],
            let figures = sets[set] as? [String: Double]
        else {
            say("against  \(executable) exited \(process.terminationStatus) without figures for \(set)")
            return nil
        }
        return figures
    }
}
