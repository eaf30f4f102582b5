import Foundation
import GlowAuth
import GlowCore
import GlowFeed
import GlowPostgres
import GlowRelay
import GlowServerStores
import GlowStorage
import GlowWire

/// A server's accounts and relay in one PostgreSQL database, shared by every process of a
/// deployment: the accounts and the relay as rows each request reads and writes by index
/// (``PostgresAccountStore``, ``PostgresFeedRelayStore``). Open one per process, and any number of
/// processes answer alike.
public final class PostgresServerDatabase: Sendable {
    /// The database's URL without its password.
    public let name: String
    /// The account service's records.
    public let accounts: PostgresAccountStore
    /// The relay's state.
    public let relay: PostgresFeedRelayStore
    /// People's sync logs.
    public let sync: PostgresSyncLogStore

    /// Connects to the database at `url` (`postgres://user@host/db`, or a libpq connection
    /// string) and brings it to the server's schema. The account store and the relay's store each
    /// hold up to `connections` connections (``PostgresConnectionPool``): as many as the threads
    /// that serve requests. A request that finds every connection of a store in use waits at most
    /// `poolWait` seconds for one, then fails as `busy` (`503` to the device). Every connection
    /// waits on the database no longer than `limits` allow (``PostgresLimits``): a database that
    /// stalls fails the request as `write_failed` (`503`), and a process that stalls inside a
    /// transaction loses its session, and its locks, once the wait has passed.
    ///
    /// - Throws: ``StoreError``: `cannot_open` when it cannot be reached, `corrupt` for a database
    ///   that is another's, `newer_schema`, `write_failed`.
    public init(
        url: String, connections: Int = 4, poolWait: Double = 2, limits: PostgresLimits = .standard,
        report: @escaping @Sendable (String) -> Void = PostgresServerDatabase.standardErrorReport
    ) throws(StoreError) {
        let name = Self.redacted(url)
        self.name = name
        let connect: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url, limits: limits)
        }
        do {
            let connection = try connect()
            try PostgresMigrator.migrate(.postgresServer, on: connection, name: name)
            try PostgresFeedRelayStore.indexOlderRows(connection, name: name)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.cannotOpen, "the database cannot be reached: \(error)", path: name)
        }
        let copies = max(connections, 1)
        accounts = PostgresAccountStore(
            name: name, pool: PostgresConnectionPool(size: copies, wait: poolWait, name: name, connect: connect))
        // The numbering has a connection of its own, so requests never wait for it nor it for them;
        // it starts with what a process that died between a write's commit and its numbering left.
        let sequencer = PostgresRelaySequencer(name: name, connect: connect, report: report)
        relay = PostgresFeedRelayStore(
            name: name, pool: PostgresConnectionPool(size: copies, wait: poolWait, name: name, connect: connect),
            sequencer: sequencer, wait: limits.wait)
        behindAfter = 3 * limits.wait
        sequencer.start()
        sync = PostgresSyncLogStore(
            name: name, pool: PostgresConnectionPool(size: copies, wait: poolWait, name: name, connect: connect))
    }

    /// How long, in seconds, a change may wait for its number before health says the numbering is
    /// behind: three times the database wait, longer than a paused process holds its lock.
    public let behindAfter: Double

    /// Writes a line to standard error: the default report of the relay's numbering.
    public static let standardErrorReport: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(("glow-server: " + line + "\n").utf8))
    }

    /// Reads from the database: nil when it answers, else what is wrong (SERVER-7).
    public func problem() -> String? {
        do {
            _ = try relay.pool.withConnection { (connection) throws(StoreError) in
                try PostgresFeedRelayStore.postgres(
                    { () throws(PostgresError) in try connection.execute("SELECT 1 AS answers") }, name)
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// How far the relay's numbering is behind, in words a client may read: nil while every
    /// change kept waits less than ``behindAfter`` for its number (FEED-25), else how many batches
    /// wait and for how long; a kept write reaches nobody until it has its number. Why a batch was
    /// set aside goes to the report, not here. Nil too when the database does not answer, which
    /// ``problem()`` says.
    public func numberingBehind() -> String? {
        let found: (waiting: Int64, oldest: Int64)
        do {
            found = try relay.pool.withConnection { (connection) throws(StoreError) in
                try PostgresFeedRelayStore.postgres(
                    { () throws(PostgresError) in
                        let found = try connection.execute(
                            "SELECT count(DISTINCT batch) AS waiting, coalesce((extract(epoch FROM clock_timestamp() "
                                + "- min(waiting_since)) * 1000)::bigint, 0) AS oldest FROM relay_pending")
                        return (try found.int(0, "waiting"), try found.int(0, "oldest"))
                    }, name)
            }
        } catch {
            return nil
        }
        guard Double(found.oldest) > behindAfter * 1_000 else { return nil }
        return "the relay's numbering is behind: \(found.waiting) batches of kept writes wait for their numbers, "
            + "the oldest for \(String(format: "%.1f", Double(found.oldest) / 1_000)) s; they reach others once numbered"
    }

    /// A database's URL or connection string as a log or an answer may show it: every password
    /// it holds withheld, in the user part of a URL (`postgres://user:***@host/db`), in its query
    /// (`?password=***`) and in a connection string (`password=***`), quoted or not.
    package static func redacted(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
                let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
            {
                text = String(text[..<colon]) + ":***" + String(text[at...])
            }
        }
        // `password=VALUE` in a query (up to `&` or `#`) or in a connection string (up to a space,
        // or its closing quote), wherever it stands.
        var out = ""
        var rest = Substring(text)
        while let found = rest.range(of: "password=", options: .caseInsensitive) {
            out += rest[..<found.upperBound] + "***"
            var end = found.upperBound
            if end < rest.endIndex, rest[end] == "'" {
                end = rest.index(after: end)
                while end < rest.endIndex, rest[end] != "'" {
                    if rest[end] == "\\", rest.index(after: end) < rest.endIndex { end = rest.index(after: end) }
                    end = rest.index(after: end)
                }
                if end < rest.endIndex { end = rest.index(after: end) }
            } else {
                while end < rest.endIndex, !" &#".contains(rest[end]) { end = rest.index(after: end) }
            }
            rest = rest[end...]
        }
        return out + rest
    }
}
