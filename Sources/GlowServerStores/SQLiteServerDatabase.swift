import Foundation
import GlowCore
import GlowStorage

/// A server's accounts and relay in one SQLite file, glow-server's embedded default: an account
/// store and a relay store on the same file, each seeing the other's commits.
public struct SQLiteServerDatabase: Sendable {
    /// The file's path.
    public let path: String
    /// The account service's records.
    public let accounts: SQLiteAccountStore
    /// The relay's state.
    public let relay: SQLiteFeedRelayStore
    /// People's sync logs.
    public let sync: SQLiteSyncLogStore

    /// How long a call waits for the file unless set, in seconds: as long as glow-server's
    /// database wait.
    public static let standardWait = 2.0

    /// Opens the server database at `path`, making it when there is no file. Every call waits at
    /// most `wait` seconds for the file, health included (``SQLiteServerConnection``): under an
    /// outside lock it answers `busy` then.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt` (another application's file, or a
    ///   row that does not read), `cannot_open`.
    public init(path: String, wait: Double = standardWait) throws(StoreError) {
        self.path = path
        accounts = try SQLiteAccountStore(path: path, schema: .server, wait: wait)
        relay = try SQLiteFeedRelayStore(path: path, schema: .server, wait: wait)
        sync = try SQLiteSyncLogStore(path: path, wait: wait)
    }

    /// Reads from the file: nil when it answers, else what is wrong (SERVER-7).
    public func problem() -> String? {
        do {
            _ = try relay.count("relay_clock")
            return nil
        } catch {
            return "\(error)"
        }
    }
}

/// The mail outbox of a server's SQLite file (`mail_outbox`), on a connection of its own.
public final class SQLiteMailOutbox: MailOutbox {
    private let connection: SQLiteServerConnection
    /// The file's path.
    public let path: String

    /// The outbox of the server database at `path`, which must be there; each call waits at most
    /// `wait` seconds for the file (``SQLiteServerConnection``).
    ///
    /// - Throws: ``StoreError`` as opening the server database does.
    public init(path: String, wait: Double = SQLiteServerDatabase.standardWait) throws(StoreError) {
        self.path = path
        connection = SQLiteServerConnection(
            try DatabaseSchema.server.open(path: path, create: false), wait: wait)
    }

    /// Keeps a mail to send.
    public func add(recipient: String, kind: String, message: String) throws(StoreError) {
        try connection.withConnection { (connection) throws(StoreError) in
            try connection.prepare(
                "INSERT INTO mail_outbox (recipient, kind, message, created_at) VALUES (?, ?, ?, ?)"
            ).run([.text(recipient), .text(kind), .text(message), .integer(Self.now())])
        }
    }

    /// Up to `limit` mails no other deliverer holds, held for `seconds` by this one.
    public func claim(limit: Int, for seconds: Int) throws(StoreError) -> [OutboxMail] {
        try connection.withConnection { (connection) throws(StoreError) -> [OutboxMail] in
            try connection.transaction { () throws(StoreError) -> [OutboxMail] in
                let now = Self.now()
                let mails = try Self.read(
                    connection, "WHERE claimed_until <= ? ORDER BY id LIMIT ?", [.integer(now), .integer(Int64(limit))])
                let hold = try connection.prepare("UPDATE mail_outbox SET claimed_until = ? WHERE id = ?")
                for mail in mails { try hold.run([.integer(now + Int64(seconds) * 1_000), .integer(mail.id)]) }
                return mails
            }
        }
    }

    /// Takes a delivered mail out.
    public func remove(_ id: Int64) throws(StoreError) {
        try connection.withConnection { (connection) throws(StoreError) in
            try connection.prepare("DELETE FROM mail_outbox WHERE id = ?").run([.integer(id)])
        }
    }

    /// Holds a mail whose delivery failed for `seconds` from now.
    public func postpone(_ id: Int64, for seconds: Int) throws(StoreError) {
        try connection.withConnection { (connection) throws(StoreError) in
            try connection.prepare("UPDATE mail_outbox SET claimed_until = ? WHERE id = ?").run([
                .integer(Self.now() &+ Int64(seconds) &* 1_000), .integer(id),
            ])
        }
    }

    /// Takes out the mails that have waited `seconds` or longer, and returns them.
    public func removeOlder(than seconds: Int) throws(StoreError) -> [OutboxMail] {
        try connection.withConnection { (connection) throws(StoreError) -> [OutboxMail] in
            try connection.transaction { () throws(StoreError) -> [OutboxMail] in
                let cutoff = Self.now() &- Int64(seconds) &* 1_000
                let old = try Self.read(connection, "WHERE created_at <= ? ORDER BY id", [.integer(cutoff)])
                try connection.prepare("DELETE FROM mail_outbox WHERE created_at <= ?").run([.integer(cutoff)])
                return old
            }
        }
    }

    /// Every mail waiting, oldest first.
    public func waiting() throws(StoreError) -> [OutboxMail] {
        try connection.withConnection { (connection) throws(StoreError) -> [OutboxMail] in
            try Self.read(connection, "ORDER BY id", [])
        }
    }

    static func read(_ connection: SQLiteConnection, _ clause: String, _ values: [Statement.Value])
        throws(StoreError) -> [OutboxMail]
    {
        let statement = try connection.prepare(
            "SELECT id, recipient, kind, message, created_at FROM mail_outbox \(clause)")
        try statement.bind(values)
        var mails: [OutboxMail] = []
        let now = now()
        while try statement.step() {
            mails.append(
                OutboxMail(
                    id: statement.integer(0), recipient: statement.text(1), kind: statement.text(2),
                    message: statement.text(3), age: Double(now &- statement.integer(4)) / 1_000))
        }
        return mails
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }
}
