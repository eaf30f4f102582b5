import Foundation
import GlowCore
import Testing

@testable import GlowStorage

/// The storage layer itself: named migrations checked against the file, files that are not ours
/// refused byte for byte, state that never runs ahead of the file nor behind another writer.
@Suite("Storage layer")
struct SQLiteStoreTests {
    /// A small schema of two steps: notes, then their tags; a deferred foreign key lets a test
    /// make a commit fail (a tag of a note that does not exist fails at COMMIT, not before).
    static let steps = [
        Migration("notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"),
        Migration(
            "tags",
            """
            CREATE TABLE tags (
                note INTEGER NOT NULL REFERENCES notes (id) DEFERRABLE INITIALLY DEFERRED,
                tag TEXT NOT NULL
            );
            """),
    ]
    static let schema = DatabaseSchema(kind: "notebook", applicationID: 0x4E4F_5445, migrations: steps)

    /// The notes, by id.
    @Sendable static func load(_ connection: SQLiteConnection) throws(StoreError) -> [Int64: String] {
        var notes: [Int64: String] = [:]
        let rows = try connection.prepare("SELECT id, text FROM notes")
        while try rows.step() { notes[rows.integer(0)] = rows.text(1) }
        return notes
    }

    static func open(_ path: String, create: Bool = true) throws -> SQLiteStore<[Int64: String]> {
        try SQLiteStore(path: path, schema: schema, create: create, load: load)
    }

    /// Adds a note through the store.
    static func add(_ store: SQLiteStore<[Int64: String]>, _ id: Int64, _ text: String) throws {
        _ = try store.write { (notes, connection) throws(StoreError) in
            try connection.prepare("INSERT INTO notes (id, text) VALUES (?, ?)").run([.integer(id), .text(text)])
            notes[id] = text
        }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func code(_ error: any Error) -> StoreError.Code? { (error as? StoreError)?.code }

    @Test("a new file records its steps by name; opening it again runs nothing")
    func namedSteps() throws {
        let path = StorageTests.temporary()
        let store = try Self.open(path)
        try Self.add(store, 1, "first")
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try connection.texts("SELECT name FROM glow_migrations ORDER BY position") == ["notes", "tags"])
        #expect(try connection.integer("PRAGMA user_version") == 2)
        #expect(try connection.integer("PRAGMA application_id") == 0x4E4F_5445)
        #expect(try connection.texts("PRAGMA journal_mode") == ["wal"])
        #expect(try Self.open(path).read { $0 } == [1: "first"])
        // No temporary file of the making is left beside it.
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasSuffix(".new") })
    }

    @Test("a file of the first step only gains the second, and its notes are kept")
    func migratesForward() throws {
        let path = StorageTests.temporary()
        _ = try SQLiteStore(
            path: path,
            schema: DatabaseSchema(kind: "notebook", applicationID: 0x4E4F_5445, migrations: [Self.steps[0]]),
            load: Self.load)
        let early = try SQLiteStore(
            path: path,
            schema: DatabaseSchema(kind: "notebook", applicationID: 0x4E4F_5445, migrations: [Self.steps[0]]),
            load: Self.load)
        try Self.add(early, 7, "kept")
        let store = try Self.open(path)
        #expect(try store.read { $0 } == [7: "kept"])
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try connection.texts("SELECT name FROM glow_migrations ORDER BY position") == ["notes", "tags"])
    }

    /// Files that must be refused, each made by `make` at a path, with the code expected. The
    /// first five are refused from their header, read through SQLite before a connection that may
    /// write opens them.
    static let refusals: [(String, StoreError.Code, @Sendable (String) throws -> Void)] = [
        ("a zero-byte file", .corrupt, { path in try Data().write(to: URL(fileURLWithPath: path)) }),
        ("text", .corrupt, { path in try Data("not a database".utf8).write(to: URL(fileURLWithPath: path)) }),
        (
            "another program's database with user_version 1 and no tables", .corrupt,
            { path in try SQLiteConnection(path: path).execute("PRAGMA user_version = 1") }
        ),
        (
            "another program's database with tables", .corrupt,
            { path in try SQLiteConnection(path: path).execute("CREATE TABLE notes (text TEXT)") }
        ),
        (
            "another program's database in write-ahead-log mode", .corrupt,
            { path in
                let other = try SQLiteConnection(path: path)
                _ = try other.texts("PRAGMA journal_mode = WAL")
                try other.execute("CREATE TABLE notes (text TEXT)")
            }
        ),
        (
            "a notebook with a step this version does not know", .newerSchema,
            { path in
                _ = try SQLiteStoreTests.open(path)
                let connection = try SQLiteConnection(path: path, mode: .readWrite)
                try connection.execute("INSERT INTO glow_migrations (position, name) VALUES (3, 'colours')")
                try connection.execute("PRAGMA user_version = 3")
            }
        ),
        (
            "a notebook whose second step has another name", .corrupt,
            { path in
                _ = try SQLiteStoreTests.open(path)
                try SQLiteConnection(path: path, mode: .readWrite).execute(
                    "UPDATE glow_migrations SET name = 'labels' WHERE position = 2")
            }
        ),
        (
            "a notebook whose version and recorded steps disagree", .corrupt,
            { path in
                _ = try SQLiteStoreTests.open(path)
                try SQLiteConnection(path: path, mode: .readWrite).execute(
                    "DELETE FROM glow_migrations WHERE position = 2")
            }
        ),
        (
            "a notebook marked as having run no step", .corrupt,
            { path in
                _ = try SQLiteStoreTests.open(path)
                try SQLiteConnection(path: path, mode: .readWrite).execute("PRAGMA user_version = 0")
            }
        ),
    ]

    @Test("files that are not this schema's are refused by name and left byte for byte", arguments: 0..<9)
    func refusals(index: Int) throws {
        let (name, code, make) = Self.refusals[index]
        let path = StorageTests.temporary()
        try make(path)
        let before = try Self.bytes(path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(name.isEmpty == false)
        #expect {
            _ = try Self.open(path)
        } throws: { error in
            Self.code(error) == code && "\(error)".contains(path)
        }
        #expect {
            _ = try SQLiteStore(path: path, schema: Self.schema, readOnly: true, load: Self.load)
        } throws: { error in
            Self.code(error) == code
        }
        #expect(try Self.bytes(path) == before, "\(name): the file is as it was")
        if index < 5 {
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == entries,
                "\(name): no file was made beside it")
        }
    }

    @Test("a missing file is made only when asked; a read-only store creates nothing and writes nothing")
    func missingAndReadOnly() throws {
        let missing = StorageTests.temporary()
        #expect {
            _ = try Self.open(missing, create: false)
        } throws: { error in
            Self.code(error) == .cannotOpen
        }
        #expect(throws: StoreError.self) {
            _ = try SQLiteStore(path: missing, schema: Self.schema, readOnly: true, load: Self.load)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(throws: StoreError.self) { _ = try Self.open("") }

        let path = StorageTests.temporary()
        try Self.add(try Self.open(path), 1, "one")
        let reader = try SQLiteStore(path: path, schema: Self.schema, readOnly: true, load: Self.load)
        #expect(try reader.read { $0 } == [1: "one"])
        #expect {
            try Self.add(reader, 2, "two")
        } throws: { error in
            Self.code(error) == .writeFailed
        }
        #expect(try Self.open(path).read { $0 } == [1: "one"])
    }

    @Test("a failed body or commit leaves the file as it was, and the state is read again from it")
    func failuresDropTheState() throws {
        let path = StorageTests.temporary()
        let store = try Self.open(path)
        try Self.add(store, 1, "one")
        try store.withConnection { (connection) throws(StoreError) in try connection.execute("PRAGMA foreign_keys = ON")
        }
        // The body changes the state, then fails: nothing of it stays.
        #expect(throws: StoreError.self) {
            _ = try store.write { (notes, connection) throws(StoreError) in
                try connection.prepare("INSERT INTO notes (id, text) VALUES (2, 'two')").run([])
                notes[2] = "two"
                throw StoreError(.refused, "stopped on purpose", path: path)
            }
        }
        #expect(try store.read { $0 } == [1: "one"])
        // The commit itself fails (a deferred foreign key): the state changed in the body is dropped.
        #expect {
            _ = try store.write { (notes, connection) throws(StoreError) in
                try connection.prepare("INSERT INTO notes (id, text) VALUES (3, 'three')").run([])
                try connection.prepare("INSERT INTO tags (note, tag) VALUES (99, 'dangling')").run([])
                notes[3] = "three"
            }
        } throws: { error in
            Self.code(error) == .writeFailed && "\(error)".contains("FOREIGN KEY")
        }
        #expect(try store.read { $0 } == [1: "one"], "memory is not ahead of the file")
        #expect(try Self.open(path).read { $0 } == [1: "one"])
        try Self.add(store, 4, "four")
        #expect(try Self.open(path).read { $0 } == [1: "one", 4: "four"])
    }

    @Test("two stores on one file: each write first reads what the other committed; refresh does too")
    func twoWriters() throws {
        let path = StorageTests.temporary()
        let first = try Self.open(path)
        let second = try Self.open(path)
        try Self.add(first, 1, "from the first")
        #expect(try second.read { $0 } == [:], "reads cost no I/O: the second has not looked yet")
        let (seen, reloaded, _) = try second.write { (notes, _) throws(StoreError) in notes }
        #expect(seen == [1: "from the first"] && reloaded)
        let (_, again, _) = try second.write { (notes, _) throws(StoreError) in notes }
        #expect(!again, "nothing new: not read again")
        try Self.add(second, 2, "from the second")
        #expect(try first.refresh() == [1: "from the first", 2: "from the second"])
        #expect(try first.refresh() == nil)
        // A state that cannot be read (a row the loader refuses) is an error, never an old answer.
        try SQLiteConnection(path: path, mode: .readWrite).execute("DROP TABLE tags; ALTER TABLE notes RENAME TO gone")
        #expect(throws: StoreError.self) { try first.refresh() }
        #expect(throws: StoreError.self) { try first.read { $0 } }
    }

    @Test("every kind of Glow database has an application id of its own, and refuses the others' files")
    func kinds() throws {
        let kinds = DatabaseSchema.all
        #expect(Set(kinds.map(\.applicationID)).count == kinds.count && kinds.count == 4)
        for kind in kinds {
            let path = StorageTests.temporary()
            _ = try SQLiteStore(path: path, schema: kind) { (_: SQLiteConnection) throws(StoreError) in () }
            for other in kinds where other.kind != kind.kind {
                #expect {
                    _ = try SQLiteStore(path: path, schema: other) { (_: SQLiteConnection) throws(StoreError) in () }
                } throws: { error in
                    Self.code(error) == .corrupt && "\(error)".contains(other.kind)
                }
            }
        }
    }

    @Test("observers hear each change once, in order, and stop when cancelled or freed")
    func observers() throws {
        let observers = ChangeObservers<Int>()
        let heard = Locked<[Int]>([])
        let kept = observers.add { value in heard.withLock { $0.append(value) } }
        var freed: DatabaseObservation? = observers.add { value in heard.withLock { $0.append(-value) } }
        observers.notify(1)
        freed = nil
        observers.notify(2)
        kept.cancel()
        observers.notify(3)
        #expect(freed == nil)
        #expect(heard.withLock { $0 } == [1, -1, 2])
    }
}
