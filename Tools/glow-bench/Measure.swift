import Foundation
import GlowBundle
import GlowModel

/// Timing: warm-ups, then samples; the median and the spread of the samples.
struct Timing: Encodable {
    let samples: [Double]

    var median: Double {
        let sorted = samples.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }
    /// The spread: (max − min) / median.
    var spread: Double { median == 0 ? 0 : (max - min) / median }

    /// Times `body` on a fresh value from `setup` each sample: making the value and dropping it
    /// afterwards are not timed. A failure of either ends the measurement and is thrown.
    static func measure<Value>(
        samples: Int, warmups: Int = 1, setup: () throws -> Value, _ body: (inout Value) throws -> Void
    ) rethrows -> Timing {
        let clock = ContinuousClock()
        var seconds: [Double] = []
        for sample in 0..<(warmups + samples) {
            var value = try setup()
            let elapsed = try clock.measure { try body(&value) }
            if sample >= warmups {
                seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            blackHole(value)
        }
        return Timing(samples: seconds)
    }

    /// Times `body`: warm-ups, then samples. A failure ends the measurement and is thrown.
    static func measure(samples: Int, warmups: Int = 1, _ body: () throws -> Void) rethrows -> Timing {
        for _ in 0..<warmups { try body() }
        let clock = ContinuousClock()
        return Timing(
            samples: try (0..<samples).map { _ in
                let elapsed = try clock.measure(body)
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            })
    }

    /// Times `body` on a fresh value from `setup` each sample, awaiting both: making the value is
    /// not timed. A failure of either ends the measurement and is thrown.
    static func measure<Value>(
        samples: Int, warmups: Int = 1, setup: () async throws -> Value, _ body: (Value) async throws -> Void
    ) async rethrows -> Timing {
        let clock = ContinuousClock()
        var seconds: [Double] = []
        for sample in 0..<(warmups + samples) {
            let value = try await setup()
            let start = clock.now
            try await body(value)
            let elapsed = clock.now - start
            if sample >= warmups { seconds.append(elapsed.seconds) }
            blackHole(value)
        }
        return Timing(samples: seconds)
    }

    /// Times `body`, awaiting it: warm-ups, then samples. A failure ends the measurement and is
    /// thrown.
    static func measure(samples: Int, warmups: Int = 1, _ body: () async throws -> Void) async rethrows -> Timing {
        for _ in 0..<warmups { try await body() }
        let clock = ContinuousClock()
        var seconds: [Double] = []
        for _ in 0..<samples {
            let start = clock.now
            try await body()
            seconds.append((clock.now - start).seconds)
        }
        return Timing(samples: seconds)
    }

    /// Times two bodies meant to cost the same, alternating them sample by sample (each sample
    /// runs its body `repeats` times), so that a drift in the machine's speed falls on both alike.
    /// A failure of either ends the measurement and is thrown.
    static func pair(
        samples: Int, repeats: Int = 1, _ first: () throws -> Void, _ second: () throws -> Void
    ) rethrows -> (Timing, Timing) {
        try first()
        try second()
        let clock = ContinuousClock()
        func once(_ body: () throws -> Void) rethrows -> Double {
            let elapsed = try clock.measure { for _ in 0..<repeats { try body() } }
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                / Double(repeats)
        }
        var a: [Double] = []
        var b: [Double] = []
        for sample in 0..<samples {
            // Which body goes first alternates too.
            if sample % 2 == 0 {
                a.append(try once(first))
                b.append(try once(second))
            } else {
                b.append(try once(second))
                a.append(try once(first))
            }
        }
        return (Timing(samples: a), Timing(samples: b))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(median, forKey: .median)
        try container.encode(min, forKey: .min)
        try container.encode(max, forKey: .max)
        try container.encode(samples.count, forKey: .samples)
    }

    enum Keys: String, CodingKey {
        case median, min, max, samples
    }
}

extension Duration {
    /// The span in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Keeps the optimiser from removing work whose result is unused.
@inline(never) func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
func rate(_ count: Int, _ seconds: Double) -> String {
    let perSecond = Double(count) / seconds
    return perSecond >= 1e6 ? String(format: "%.1f M/s", perSecond / 1e6) : String(format: "%.0f k/s", perSecond / 1e3)
}

/// The peak resident memory of this process so far, from /proc (Linux), in bytes.
func peakResidentBytes() -> Int? {
    // Optional by design: /proc exists on Linux only, and without it there is no figure (nil), not
    // a failed run.
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
    return nil
}

/// The resident memory of this process now, from /proc (Linux), in bytes, after handing freed
/// heap pages back to the system so that only live data counts.
func residentBytes() -> Int? {
    // glibc's malloc_trim, found at run time: Swift's Glibc module does not export it.
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(nil, "malloc_trim") { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
    // Optional by design, as in peakResidentBytes(): no /proc, no figure.
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.filter(\.isNumber)).map { $0 * 1024 }
    }
    return nil
}

/// What holding a person's imported history costs in memory: measured in a child process, so
/// that nothing else this run allocated is counted.
enum ResidentMemory {
    /// The ways an app could hold the data.
    static let shapes = ["dataset", "checkins", "codable"]

    /// Imports the bundle at `path` and prints the check-in count and the resident bytes that
    /// holding the data as `shape` adds: a `DataSet` (columnar histories), the same check-ins as
    /// `[CheckIn]`, or Codable structs decoded from JSON as an app would write them. A bundle that
    /// cannot be read or decoded, or JSON that cannot be written or read back, is thrown.
    static func child(shape: String, path: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        switch shape {
        case "dataset":
            let before = residentBytes() ?? 0
            let (data, _) = try BundleReader().dataSet(bytes)
            let after = residentBytes() ?? 0
            withExtendedLifetime(data) { print("\(data.checkInCount) \(after - before)") }
        case "checkins":
            let (data, _) = try BundleReader().dataSet(bytes)
            let before = residentBytes() ?? 0
            let list = data.checkIns
            let after = residentBytes() ?? 0
            withExtendedLifetime(list) { print("\(list.count) \(after - before)") }
        case "codable":
            let (data, _) = try BundleReader().dataSet(bytes)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            let json = try encoder.encode(AppModel.export(data))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            let before = residentBytes() ?? 0
            let decoded = try decoder.decode(AppModel.Export.self, from: json)
            let after = residentBytes() ?? 0
            withExtendedLifetime((json, decoded)) { print("\(decoded.checkIns.count) \(after - before)") }
        default:
            throw BenchFailure("--resident: no shape '\(shape)' (\(shapes.joined(separator: ", ")))")
        }
    }

    /// Runs the child for `shape` on the bundle at `path`: the check-ins held and the resident
    /// bytes they cost. A child that does not start, fails (it says why on standard error) or
    /// prints no figures is thrown.
    static func measure(shape: String, path: String) throws -> (checkIns: Int, bytes: Int) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--resident", shape, path]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let output = String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        child.waitUntilExit()
        let fields = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard child.terminationStatus == 0, fields.count == 2 else {
            throw BenchFailure(
                "holding the history as \(shape): the child exited \(child.terminationStatus) with '\(output)'")
        }
        return (fields[0], fields[1])
    }
}
