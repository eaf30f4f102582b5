import Foundation
import Testing

/// No branch and no memory address of AES-256-GCM, HMAC or keyed BLAKE2b depends on a key or the
/// plaintext: `Tools/crypto-ct/harness.c` marks them undefined and valgrind's memcheck reports any
/// use of them in a branch or an address, at `-O0` (the tests' build) and `-O2` (a release's), with
/// each C compiler on the machine. Two planted leaks, a table lookup and a branch on the key, show
/// that the check sees them. Without valgrind or a C compiler these tests are skipped, unless
/// `GLOW_REQUIRE_VALGRIND=1` (CI) makes that a failure.
@Suite("Constant time under memcheck")
struct ConstantTimeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static let valgrind = executable("valgrind")
    static let compilers = ["cc", "clang"].compactMap(executable)
    static let required = ProcessInfo.processInfo.environment["GLOW_REQUIRE_VALGRIND"] == "1"
    static var runnable: Bool {
        valgrind != nil && !compilers.isEmpty
            && FileManager.default.fileExists(atPath: "/usr/include/valgrind/memcheck.h")
    }

    /// Runs `executable` with `arguments`: its exit status and what it wrote to standard error.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let error = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, error)
    }

    /// The harness built with `compiler` at `optimization` into a temporary folder (DWARF 4, which
    /// Debian's valgrind reads; clang writes DWARF 5 otherwise).
    static func build(_ compiler: String, _ optimization: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-ct-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("harness").path
        let library = root.appendingPathComponent("Sources/CGlowCrypto")
        let sources = try FileManager.default.contentsOfDirectory(atPath: library.path).filter { $0.hasSuffix(".c") }
            .map { library.appendingPathComponent($0).path }
        let built = try run(
            compiler,
            [
                optimization, "-std=c11", "-gdwarf-4", "-I", library.appendingPathComponent("include").path, "-I",
                library.path,
                root.appendingPathComponent("Tools/crypto-ct/harness.c").path, "-o", output,
            ] + sources)
        #expect(built.status == 0, "\(compiler) \(optimization) did not build the harness: \(built.error)")
        return output
    }

    @Test("valgrind is installed where it is required")
    func available() {
        if Self.required { #expect(Self.runnable, "GLOW_REQUIRE_VALGRIND=1 but valgrind or a C compiler is missing") }
    }

    @Test("no secret reaches a branch or an address", .enabled(if: runnable), arguments: ["-O0", "-O2"])
    func constantTime(_ optimization: String) throws {
        for compiler in Self.compilers {
            let harness = try Self.build(compiler, optimization)
            let checked = try Self.run(Self.valgrind!, ["-q", "--error-exitcode=99", harness])
            #expect(checked.status == 0, "\(compiler) \(optimization): \(checked.error)")
            #expect(!checked.error.contains("uninitialised"), "\(compiler) \(optimization): \(checked.error)")
            try FileManager.default.removeItem(atPath: (harness as NSString).deletingLastPathComponent)
        }
    }

    @Test("a lookup indexed by the key and a branch on it are reported", .enabled(if: runnable))
    func plantedLeaks() throws {
        let harness = try Self.build(Self.compilers[0], "-O2")
        for leak in ["table", "branch"] {
            let checked = try Self.run(Self.valgrind!, ["-q", "--error-exitcode=99", harness, leak])
            #expect(checked.status == 99 && checked.error.contains("uninitialised"), "the planted \(leak) went unseen")
        }
        try FileManager.default.removeItem(atPath: (harness as NSString).deletingLastPathComponent)
    }
}
