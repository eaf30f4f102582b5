import Foundation
import Testing

@testable import GlowPostgres

/// The PostgreSQL client of glow-server's store (issue 28) against a throwaway cluster: values
/// go in as parameters and come back as they went, a transaction is all or nothing, and every
/// failure is a typed error with the server's SQLSTATE.
@Suite("PostgreSQL connection", .enabled(if: TemporaryPostgres.available), .serialized)
final class PostgresConnectionTests {
    let cluster: TemporaryPostgres

    init() throws { cluster = try TemporaryPostgres() }
    deinit { cluster.stop() }

    @Test("text, bytes, whole numbers and null go in as parameters and come back as they went")
    func roundTrip() throws {
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute("CREATE TABLE things (id bigint PRIMARY KEY, name text, data bytea)")
        let rows: [(Int64, PostgresValue, PostgresValue)] = [
            (Int64.min, .text("Ana's 'quoted' ; DROP TABLE things; --"), .bytes(Array(0...255))),
            (0, .text("é ✓ 🌟 日本"), .bytes([])),
            (Int64.max, .null, .null),
        ]
        for (id, name, data) in rows {
            let insert = try connection.execute(
                "INSERT INTO things (id, name, data) VALUES ($1, $2, $3)", [.int(id), name, data])
            #expect(insert.affectedRows == 1)
        }
        let read = try connection.execute("SELECT id, name, data FROM things ORDER BY id")
        #expect(read.columns == ["id", "name", "data"])
        #expect(read.rows == rows.map { [.int($0.0), $0.1, $0.2] })
        #expect(try read.int(0, "id") == Int64.min && read.bytes(0, "data") == Array(0...255))
        #expect(throws: PostgresError.self) { try read.text(0, "id") }
        #expect(throws: PostgresError.self) { try read.cell(9, "id") }
    }

    @Test("COPY takes text, bytes, whole numbers and null as they are, escapes and all, in chunks")
    func copyRoundTrip() throws {
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute(#"CREATE TABLE "copied ""rows""" (id bigint PRIMARY KEY, name text, data bytea)"#)
        var rows: [[PostgresValue]] = [
            [.int(Int64.min), .text("tab\there\nnew line\r\\N back\\slash \\. é ✓ 🌟"), .bytes(Array(0...255))],
            [.int(0), .text(#"\N"#), .bytes([])],
            [.int(Int64.max), .null, .null],
            [.int(1), .text(""), .bytes([0x5C, 0x09, 0x0A])],
        ]
        // More than one chunk of 64 KiB on the wire.
        rows += (2..<20_002).map { [.int(Int64($0)), .text("row \($0)\t"), .bytes([UInt8($0 % 256)])] }
        let added = try connection.copy(into: #"copied "rows""#, columns: ["id", "name", "data"], rows: rows)
        #expect(added == rows.count)
        let read = try connection.execute(#"SELECT id, name, data FROM "copied ""rows""" ORDER BY id"#)
        #expect(
            read.rows
                == rows.sorted { a, b in
                    if case .int(let x) = a[0], case .int(let y) = b[0] { return x < y }
                    return false
                })
    }

    @Test("a COPY the server refuses adds nothing, says why, and leaves the connection working")
    func copyRefusals() throws {
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute("CREATE TABLE counted (id bigint PRIMARY KEY, name text NOT NULL)")
        let cases: [(table: String, rows: [[PostgresValue]], sqlState: String?)] = [
            ("not_there", [[.int(1), .text("a")]], "42P01"),
            ("counted", [[.int(1), .text("a")], [.int(1), .text("b")]], "23505"),
            ("counted", [[.int(1), .text("a")], [.int(2), .null]], "23502"),
            ("counted", [[.int(1), .text("a")], [.text("two"), .text("b")]], "22P02"),
            ("counted", [[.int(1), .text("a")], [.int(2)]], nil),
        ]
        for (table, rows, sqlState) in cases {
            do {
                try connection.copy(into: table, columns: ["id", "name"], rows: rows)
                Issue.record("\(table) \(rows) was taken")
            } catch {
                #expect(error.code == .queryFailed, "\(error)")
                #expect(error.sqlState == sqlState, "\(error)")
            }
            #expect(try connection.execute("SELECT count(*) AS n FROM counted").int(0, "n") == 0)
        }
        #expect(try connection.copy(into: "counted", columns: ["id", "name"], rows: [[.int(7), .text("x")]]) == 1)
    }

    @Test("a transaction whose body throws leaves nothing; one that returns is seen by another connection")
    func transactions() throws {
        let first = try PostgresConnection(cluster.conninfo)
        let second = try PostgresConnection(cluster.conninfo)
        try first.execute("CREATE TABLE log (id bigint PRIMARY KEY)")
        #expect(throws: PostgresError.self) {
            try first.transaction { (connection) throws(PostgresError) in
                try connection.execute("INSERT INTO log VALUES (1)")
                try connection.execute("INSERT INTO log VALUES (1)")
            }
        }
        #expect(try second.execute("SELECT count(*) AS n FROM log").int(0, "n") == 0)
        try first.transaction { (connection) throws(PostgresError) in
            try connection.execute("INSERT INTO log VALUES ($1)", [.int(2)])
        }
        #expect(try second.execute("SELECT count(*) AS n FROM log").int(0, "n") == 1)
        // The connection works on after a rolled-back transaction.
        #expect(try first.execute("SELECT 1 AS one").int(0, "one") == 1)
    }

    @Test(
        "refusals carry the server's SQLSTATE",
        arguments: [
            ("INSERT INTO dup VALUES (1); INSERT INTO dup VALUES (1)", "23505"),
            ("SELEC 1", "42601"),
            ("SELECT * FROM no_such_table", "42P01"),
        ])
    func sqlStates(_ sql: String, _ state: String) throws {
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute("CREATE TABLE IF NOT EXISTS dup (id bigint PRIMARY KEY)")
        try connection.execute("DELETE FROM dup")
        do {
            for statement in sql.split(separator: ";") { try connection.execute(String(statement)) }
            Issue.record("\(sql) was accepted")
        } catch {
            #expect(error.code == .queryFailed && error.sqlState == state, "\(error)")
            #expect(error.description.contains("(SQLSTATE \(state))"))
        }
    }

    @Test("text holding U+0000 is refused by the server as a typed error, not cut short")
    func nulInText() throws {
        let connection = try PostgresConnection(cluster.conninfo)
        try connection.execute("CREATE TABLE IF NOT EXISTS notes (body text)")
        do {
            try connection.execute("INSERT INTO notes VALUES ($1)", [.text("before\u{0}after")])
            Issue.record("text with U+0000 was stored")
        } catch {
            #expect(error.code == .queryFailed && error.sqlState == "22021", "\(error)")
        }
        #expect(try connection.execute("SELECT count(*) AS n FROM notes").int(0, "n") == 0)
    }

    @Test("a server that is not there is connection_failed, naming why")
    func noServer() throws {
        do {
            _ = try PostgresConnection("host=/nonexistent/glow dbname=postgres user=postgres connect_timeout=2")
            Issue.record("connected to nothing")
        } catch {
            #expect(error.code == .connectionFailed && error.message.contains("/nonexistent/glow"), "\(error)")
        }
    }

    /// The backend process serving `connection`.
    private func backend(_ connection: PostgresConnection) throws -> pid_t {
        pid_t(try connection.execute("SELECT pg_backend_pid() AS pid").int(0, "pid"))
    }

    @Test("a frozen backend costs its caller the wait and the connection, and nobody else anything")
    func frozenBackend() throws {
        let frozen = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 0.3))
        let other = try PostgresConnection(cluster.conninfo)
        let pid = try backend(frozen)
        #expect(kill(pid, SIGSTOP) == 0)
        defer { kill(pid, SIGCONT) }
        let start = ContinuousClock.now
        do {
            try frozen.execute("SELECT 1 AS one")
            Issue.record("a stopped backend answered")
        } catch {
            #expect(error.code == .timedOut, "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(2), "the wait is 0.3 s")
        #expect(!frozen.isOpen)
        // A closed connection says so at once, and another connection is served.
        #expect(throws: PostgresError.self) { try frozen.execute("SELECT 1 AS one") }
        #expect(try other.execute("SELECT 1 AS one").int(0, "one") == 1)
    }

    @Test("a deadline shorter than the wait ends the call at the deadline")
    func deadline() throws {
        let connection = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 30))
        let start = ContinuousClock.now
        do {
            try connection.until(.now + .milliseconds(200)) { () throws(PostgresError) in
                try connection.execute("SELECT pg_sleep(20)")
            }
            Issue.record("a 20 s sleep ended within a 200 ms deadline")
        } catch {
            #expect(error.code == .timedOut && error.message.contains("deadline"), "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("the server's timeouts: a statement, a lock wait, and a client quiet inside a transaction")
    func serverTimeouts() throws {
        let setup = try PostgresConnection(cluster.conninfo)
        try setup.execute("CREATE TABLE IF NOT EXISTS held (id bigint PRIMARY KEY, n bigint)")
        try setup.execute("INSERT INTO held VALUES (1, 0) ON CONFLICT (id) DO NOTHING")
        let short = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 0.4))
        // statement_timeout (57014) comes from the server before the client's own wait runs out.
        let settings = try short.execute("SHOW statement_timeout")
        #expect(try settings.text(0, "statement_timeout") == "400ms")
        // A lock held by a busy transaction: the waiter gives up with lock_not_available (55P03).
        let holder = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 30))
        try holder.execute("BEGIN")
        try holder.execute("SELECT n FROM held WHERE id = 1 FOR UPDATE")
        do {
            try short.execute("UPDATE held SET n = n + 1 WHERE id = 1")
            Issue.record("an update went past a held row lock")
        } catch {
            #expect(error.code == .queryFailed && error.sqlState == "55P03", "\(error)")
        }
        try holder.execute("ROLLBACK")
        // A client that takes the lock and goes quiet (a paused process) loses its session once
        // its wait has passed, and the lock with it.
        let paused = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 0.4))
        try paused.execute("BEGIN")
        try paused.execute("SELECT n FROM held WHERE id = 1 FOR UPDATE")
        let writer = try PostgresConnection(cluster.conninfo, limits: PostgresLimits(wait: 10))
        let start = ContinuousClock.now
        #expect(try writer.execute("UPDATE held SET n = n + 1 WHERE id = 1").affectedRows == 1)
        #expect(ContinuousClock.now - start < .seconds(5), "the paused session ends after 0.4 s")
        #expect(throws: PostgresError.self) { try paused.execute("COMMIT") }
    }

    @Test("a server that takes the connection and never speaks is timed_out after the wait")
    func silentServer() throws {
        let folder = cluster.folder.appendingPathComponent("silent")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.path + "/.s.PGSQL.5432"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        let start = ContinuousClock.now
        do {
            _ = try PostgresConnection(
                "host=\(folder.path) dbname=postgres user=postgres", limits: PostgresLimits(wait: 0.3))
            Issue.record("connected to a server that never spoke")
        } catch {
            #expect(error.code == .timedOut && error.message.contains("connecting"), "\(error)")
        }
        #expect(ContinuousClock.now - start < .seconds(3))
    }
}
