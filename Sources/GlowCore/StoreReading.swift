/// What one store of a shared database answered from, as another store on the same database can
/// confirm inside its own transaction: the database, and each row the answer read with the
/// version it had (0 for a row that was not there).
///
/// The server authenticates a relay request by reading the caller's session rows and hands this
/// reading to the relay's store, whose transaction reads the same rows' versions beside its own
/// work: when every row still has its version, nothing the answer rests on has changed, so the
/// request is one transaction that saw both; when one changed (a sign-out, a refresh, a
/// deletion), the relay does nothing and the request is authenticated again (SERVER-3). Only the
/// rows read are compared, so writes of other people never disturb a reading.
public struct StoreReading: Hashable, Sendable, CustomStringConvertible {
    /// One row an answer read.
    public struct Row: Hashable, Sendable {
        /// The row's map (its kind of record).
        public let map: String
        /// Its key.
        public let key: String
        /// Its version when it was read; 0 when there was no row.
        public let version: Int64

        /// The row of `key` in `map`, read at `version`.
        public init(map: String, key: String, version: Int64) {
            self.map = map
            self.key = key
            self.version = version
        }
    }

    /// The database, as its stores name it (a file's path, a URL without its password).
    public let database: String
    /// The rows the answer read, in the order it read them.
    public let rows: [Row]

    /// A reading of `rows` in `database`.
    public init(database: String, rows: [Row]) {
        self.database = database
        self.rows = rows
    }

    /// `2 rows of /path/server.sqlite`.
    public var description: String { "\(rows.count) rows of \(database)" }

    /// The answer of a call given no reading to confirm, which always has one: nil answers only
    /// stand for a reading that no longer held.
    public static func answer<T>(unconfirmed answer: T?) -> T {
        guard let answer else { preconditionFailure("a call that confirms no reading answers") }
        return answer
    }
}
