import Foundation

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

    static func measure(samples: Int, warmups: Int = 1, _ body: () -> Void) -> Timing {
        for _ in 0..<warmups { body() }
        let clock = ContinuousClock()
        return Timing(
            samples: (0..<samples).map { _ in
                let elapsed = clock.measure(body)
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            })
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
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
    return nil
}
