import Foundation
import Testing

@testable import GlowStorage

/// Shared helpers of the storage tests.
enum StorageTests {
    /// A database path in a new folder of its own.
    static func temporary(_ name: String = "glow.sqlite") -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-storage-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name).path
    }
}
