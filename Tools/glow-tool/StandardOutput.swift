import GlowCore
import GlowStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What glow-tool prints goes straight to file descriptor 1, unbuffered, so a failed write is
/// seen rather than lost in a buffer: the first failure is kept, nothing more is written, and
/// the run ends with exit code 1 (`flushStandardOutput()` in main.swift).
enum StandardOutput {
    /// The reason of the first failed write, if any.
    static let failure = Locked<String?>(nil)
}

/// glow-tool's `print`: Swift's, written through ``StandardOutput``.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator) + terminator
    guard StandardOutput.failure.withLock({ $0 == nil }) else { return }
    do {
        try AtomicFile.writeAll(Array(text.utf8), to: STDOUT_FILENO, path: "standard output")
    } catch {
        StandardOutput.failure.withLock { $0 = error.message }
    }
}
