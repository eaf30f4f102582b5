import Foundation
import Testing

@testable import GlowStorage

/// The one atomic file write (issue 26): whole or not at all, modes kept, devices written in
/// place, failures typed, and nothing left behind.
@Suite("Atomic file")
struct AtomicFileTests {
    static func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test("a new file and a replaced one hold exactly the bytes; the mode of the old file is kept")
    func replaces() throws {
        let path = StorageTests.temporary("out.glow")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try AtomicFile.write([1, 2, 3], to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1, 2, 3]))
        chmod(path, 0o640)
        try AtomicFile.write(Array(repeating: 7, count: 100_000), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 7, count: 100_000))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o640)
        #expect(try Self.entries(folder) == ["out.glow"], "no temporary file is left")
    }

    @Test("a directory, a missing folder: a typed error naming the path, and nothing changed")
    func refuses() throws {
        let path = StorageTests.temporary("out.glow")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect {
            try AtomicFile.write([1], to: folder)
        } throws: { error in
            (error as? StoreError)?.code == .writeFailed && (error as? StoreError)?.path == folder
                && "\(error)".contains("directory")
        }
        let missing = folder + "/no/such/folder/out.glow"
        #expect {
            try AtomicFile.write([1], to: missing)
        } throws: { error in
            (error as? StoreError)?.code == .writeFailed && "\(error)".contains("No such file")
        }
        #expect(try Self.entries(folder).isEmpty)
    }

    @Test("a device is written in place: /dev/null takes the bytes, /dev/full fails with the reason")
    func devices() throws {
        try AtomicFile.write([1, 2, 3], to: "/dev/null")
        #expect {
            try AtomicFile.write(Array(repeating: 1, count: 10), to: "/dev/full")
        } throws: { error in
            (error as? StoreError)?.code == .writeFailed && "\(error)".contains("No space left")
        }
    }

    @Test("temporary files of killed writers are removed; a live writer's are left alone")
    func staleTemporaries() throws {
        let path = StorageTests.temporary("out.json")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let stale = folder.appendingPathComponent(".out.json.glow-99999999-7.tmp").path
        let older = folder.appendingPathComponent(".out.json.glow-tool-99999998-7.tmp").path
        let live = folder.appendingPathComponent(".out.json.glow-\(getpid())-7.tmp").path
        for file in [stale, older, live] { #expect(FileManager.default.createFile(atPath: file, contents: Data([9]))) }
        try AtomicFile.write([1], to: path)
        #expect(!FileManager.default.fileExists(atPath: stale) && !FileManager.default.fileExists(atPath: older))
        #expect(FileManager.default.fileExists(atPath: live))
    }
}
