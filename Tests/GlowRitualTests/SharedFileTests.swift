import Foundation
import GlowStorage
import Testing

@testable import GlowRitual

/// Nothing of the package opens a database file except through SQLite once a connection of the
/// process may hold it (issue 58, finding 7): closing a file descriptor of the file in any other
/// way drops every POSIX lock the process holds on it (sqlite.org/howtocorrupt.html 2.2), and an
/// outside client that closes the file then deletes the write-ahead log under the writers.
///
/// Two writer processes (`Tools/glow-share-child`), each opening a second connection on the file
/// before every change, write while Debian's `sqlite3` opens and closes the file read-write again
/// and again; afterwards every change a writer said was committed is in the file.
@Suite("A file shared with other connections")
struct SharedFileTests {
    static let writes = 150

    /// The `sqlite3` command-line client, when installed (Tools/install-packages.sh installs it).
    static let sqlite3: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The writers' kinds of file: a person's database and a glow-server database.
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case app, server
        var description: String { rawValue }
    }

    /// A new file of `kind` at a temporary path.
    static func make(_ kind: Kind) async throws -> String {
        let path = DatabaseTests.temporary()
        switch kind {
        case .app: _ = try await RitualDatabase(path: path)
        case .server: _ = try SQLiteStore(path: path, schema: .server) { _ throws(StoreError) in 0 }
        }
        return path
    }

    /// The changes of writer `name` the file at `path` holds, by number.
    static func stored(_ kind: Kind, _ name: String, in path: String) async throws -> Set<Int> {
        switch kind {
        case .app:
            let database = try await RitualDatabase(path: path, create: false)
            await #expect(try database.integrityCheck())
            var found: Set<Int> = []
            for index in 0..<writes where try await database.deviceValue("\(name).\(index)") != nil {
                found.insert(index)
            }
            return found
        case .server:
            let connection = try SQLiteConnection(path: path, mode: .readOnly)
            #expect(try connection.texts("PRAGMA integrity_check") == ["ok"])
            let rows = try connection.prepare("SELECT message FROM mail_outbox WHERE recipient = ?")
            try rows.bind([.text(name)])
            var found: Set<Int> = []
            while try rows.step() { found.insert(Int(rows.text(0)) ?? -1) }
            return found
        }
    }

    @Test(
        "two writers and an outside client that opens and closes the file: no answered write is lost",
        arguments: Kind.allCases)
    func outsideClient(_ kind: Kind) async throws {
        let sqlite3 = try #require(Self.sqlite3, "Debian's sqlite3 is missing: run Tools/install-packages.sh")
        let path = try await Self.make(kind)
        var writers: [(name: String, process: Process, output: Pipe)] = []
        for name in ["a", "b"] {
            let writer = Process()
            writer.executableURL = CrashTests.products.appendingPathComponent("glow-share-child")
            writer.arguments = [kind.rawValue, path, name, String(Self.writes)]
            let output = Pipe()
            writer.standardOutput = output
            writer.standardError = FileHandle.nullDevice
            try writer.run()
            writers.append((name, writer, output))
        }
        // The outside client: open read-write, read, close, until both writers are done.
        var outsideRuns = 0
        var outsideReads = 0
        while writers.contains(where: { $0.process.isRunning }) {
            let outside = Process()
            outside.executableURL = URL(fileURLWithPath: sqlite3)
            outside.arguments = [path, "SELECT count(*) FROM sqlite_schema;"]
            outside.standardOutput = FileHandle.nullDevice
            outside.standardError = FileHandle.nullDevice
            try outside.run()
            outside.waitUntilExit()
            outsideRuns += 1
            if outside.terminationStatus == 0 { outsideReads += 1 }
        }
        #expect(outsideReads > 5, "the outside client read the file \(outsideReads) times of \(outsideRuns)")
        for writer in writers {
            writer.process.waitUntilExit()
            let said = String(decoding: writer.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let answered = Set(said.split(separator: "\n").compactMap { Int($0.dropFirst("wrote ".count)) })
            #expect(writer.process.terminationStatus == 0, "writer \(writer.name) failed")
            #expect(answered.count == Self.writes, "writer \(writer.name) answered \(answered.count) writes")
            let lost = answered.subtracting(try await Self.stored(kind, writer.name, in: path))
            #expect(lost.isEmpty, "\(kind): \(lost.count) answered writes of \(writer.name) are gone")
        }
    }
}
