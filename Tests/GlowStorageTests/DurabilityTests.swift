import Foundation
import Testing

@testable import GlowStorage

/// Durability and protection on Apple platforms (issue 58), checked where the tests run: a
/// connection that writes asks for full syncs exactly where the platform has `F_FULLFSYNC`, and file
/// protection is given exactly where the platform has its classes, leaving files alone elsewhere.
@Suite("Durability and file protection")
struct DurabilityTests {
    @Test("a connection that writes syncs fully where F_FULLFSYNC exists, and as SQLite does elsewhere")
    func fullSync() throws {
        let path = StorageTests.temporary()
        let store = try SQLiteStoreTests.open(path)
        let full = try store.withConnection { (connection) throws(StoreError) in
            try connection.integer("PRAGMA fullfsync")
        }
        #if canImport(Darwin)
            #expect(full == 1)
        #else
            #expect(full == 0)
        #endif
        // A file replaced whole is still whole and synced through the same seam.
        try AtomicFile.write([1, 2, 3], to: path + ".probe")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".probe")) == Data([1, 2, 3]))
    }

    @Test("the default protection lets background work read the database once the device was unlocked")
    func defaultProtection() {
        #expect(FileProtection.default == .completeUntilFirstUserAuthentication)
        #expect(FileProtection.allCases.count == 4)
    }

    @Test(
        "protection is given where the platform has it; elsewhere the files are left as they were",
        arguments: FileProtection.allCases)
    func applied(_ protection: FileProtection) throws {
        let path = StorageTests.temporary()
        // Open while it is given: its log and shared memory are there.
        let store = try SQLiteStoreTests.open(path)
        defer { withExtendedLifetime(store) {} }
        try SQLiteStoreTests.add(store, 1, "one")
        func attributes() throws -> [[FileAttributeKey: Any]] {
            try [path, path + "-wal", path + "-shm"].map { try FileManager.default.attributesOfItem(atPath: $0) }
        }
        let before = try attributes()
        let given = try protection.apply(toDatabaseAt: path)
        #if canImport(Darwin) && !os(macOS)
            #expect(given)
            for file in [path, path + "-wal", path + "-shm"] {
                let read = try FileManager.default.attributesOfItem(atPath: file)[.protectionKey] as? FileProtectionType
                #expect(read?.rawValue.isEmpty == false, "\(file)")
            }
        #else
            #expect(!given)
            let after = try attributes()
            for (old, new) in zip(before, after) {
                #expect(old[.posixPermissions] as? Int == new[.posixPermissions] as? Int)
                #expect(old[.modificationDate] as? Date == new[.modificationDate] as? Date)
            }
        #endif
    }
}
