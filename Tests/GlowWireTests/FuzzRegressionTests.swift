import Foundation
import GlowFuzzing
import Testing

/// Every input that ever broke a fuzz target, kept under `FuzzTesting/Regressions/<target>/`,
/// replayed through the same harness the fuzzer runs (issue 11): a crash comes back as a crash.
@Suite("Fuzzing regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("FuzzTesting/Regressions")

    @Test("every kept input runs through its harness", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        let directory = Self.folder.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        #expect(!names.isEmpty, "FuzzTesting/Regressions/\(target.rawValue) holds the target's kept inputs")
        for name in names.sorted() {
            target.run(Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }
}
