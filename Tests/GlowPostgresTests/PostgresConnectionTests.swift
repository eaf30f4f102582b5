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
}
