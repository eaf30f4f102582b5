import GlowCore
import GlowPostgres
import GlowServerStores
import GlowStorage

/// The mail outbox of a server's PostgreSQL database (`mail_outbox`), shared by every process: a
/// claim takes waiting mails no other process holds (`FOR UPDATE SKIP LOCKED`) and holds them for
/// a while, so two processes never deliver one mail at once.
public final class PostgresMailOutbox: MailOutbox {
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private let held = Locked<PostgresConnection?>(nil)
    /// The database, without its password.
    public let name: String

    /// The outbox of the server database at `url`, brought to the server's schema, on a
    /// connection that waits no longer than `limits` allow.
    ///
    /// - Throws: ``StoreError`` as ``PostgresServerDatabase/init(url:connections:poolWait:limits:)`` does.
    public init(url: String, limits: PostgresLimits = .standard) throws(StoreError) {
        name = PostgresServerDatabase.redacted(url)
        connect = { () throws(PostgresError) in try PostgresConnection(url, limits: limits) }
        do {
            let connection = try connect()
            try PostgresMigrator.migrate(.postgresServer, on: connection, name: name)
            held.withLock { $0 = connection }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.cannotOpen, "the database cannot be reached: \(error)", path: name)
        }
    }

    /// Runs `body` on the held connection (a new one after a loss).
    private func run<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(StoreError) -> T {
        var output: T?
        try held.withLock { (held) throws(StoreError) in
            do throws(PostgresError) {
                let connection: PostgresConnection
                if let existing = held { connection = existing } else { connection = try connect() }
                held = connection
                output = try body(connection)
            } catch {
                if held?.isUsable != true { held = nil }
                throw StoreError(.writeFailed, "the mail outbox: \(error.message)", path: name)
            }
        }
        guard let output else { preconditionFailure("the body ran") }
        return output
    }

    /// Keeps a mail to send.
    public func add(recipient: String, kind: String, message: String) throws(StoreError) {
        _ = try run { (connection) throws(PostgresError) in
            try connection.execute(
                "INSERT INTO mail_outbox (recipient, kind, message) VALUES ($1, $2, $3)",
                [.text(recipient), .text(kind), .text(message)])
        }
    }

    /// Up to `limit` mails no other deliverer holds, held for `seconds` by this one.
    public func claim(limit: Int, for seconds: Int) throws(StoreError) -> [OutboxMail] {
        try run { (connection) throws(PostgresError) -> [OutboxMail] in
            let rows = try connection.execute(
                """
                UPDATE mail_outbox SET claimed_until = now() + make_interval(secs => $2)
                WHERE id IN (SELECT id FROM mail_outbox WHERE claimed_until <= now() ORDER BY id LIMIT $1
                    FOR UPDATE SKIP LOCKED)
                RETURNING id, recipient, kind, message, extract(epoch FROM now() - created_at)::float8::text AS age
                """, [.int(Int64(limit)), .int(Int64(seconds))])
            return try Self.mails(rows).sorted { $0.id < $1.id }
        }
    }

    /// Takes a delivered mail out.
    public func remove(_ id: Int64) throws(StoreError) {
        _ = try run { (connection) throws(PostgresError) in
            try connection.execute("DELETE FROM mail_outbox WHERE id = $1", [.int(id)])
        }
    }

    /// Holds a mail whose delivery failed for `seconds` from now.
    public func postpone(_ id: Int64, for seconds: Int) throws(StoreError) {
        _ = try run { (connection) throws(PostgresError) in
            try connection.execute(
                "UPDATE mail_outbox SET claimed_until = now() + make_interval(secs => $2) WHERE id = $1",
                [.int(id), .int(Int64(seconds))])
        }
    }

    /// Takes out the mails that have waited `seconds` or longer, and returns them.
    public func removeOlder(than seconds: Int) throws(StoreError) -> [OutboxMail] {
        try run { (connection) throws(PostgresError) -> [OutboxMail] in
            try Self.mails(
                connection.execute(
                    "DELETE FROM mail_outbox WHERE created_at <= now() - make_interval(secs => $1) "
                        + "RETURNING id, recipient, kind, message, "
                        + "extract(epoch FROM now() - created_at)::float8::text AS age",
                    [.int(Int64(seconds))])
            ).sorted { $0.id < $1.id }
        }
    }

    /// Every mail waiting, oldest first.
    public func waiting() throws(StoreError) -> [OutboxMail] {
        try run { (connection) throws(PostgresError) -> [OutboxMail] in
            try Self.mails(
                connection.execute(
                    "SELECT id, recipient, kind, message, extract(epoch FROM now() - created_at)::float8::text AS age "
                        + "FROM mail_outbox ORDER BY id"))
        }
    }

    static func mails(_ rows: PostgresResult) throws(PostgresError) -> [OutboxMail] {
        var mails: [OutboxMail] = []
        for index in 0..<rows.rows.count {
            mails.append(
                OutboxMail(
                    id: try rows.int(index, "id"), recipient: try rows.text(index, "recipient"),
                    kind: try rows.text(index, "kind"), message: try rows.text(index, "message"),
                    age: Double(try rows.text(index, "age")) ?? 0))
        }
        return mails
    }
}
