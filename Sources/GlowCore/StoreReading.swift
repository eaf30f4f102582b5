/// What one store of a shared database answered from, as another store on the same database can
/// confirm inside its own transaction: the database, the store's row of `glow_clock` and the
/// version the answer was read at.
///
/// The server authenticates a relay request from the account records it holds in memory (no
/// round trip) and hands this reading to the relay's store, whose transaction reads the accounts'
/// clock beside its own: when the clock still says `version`, nothing the answer rests on has
/// changed, so the request is one transaction that saw both; when it moved, the relay does nothing
/// and the request is authenticated again (SERVER-3).
public struct StoreReading: Hashable, Sendable, CustomStringConvertible {
    /// The database, as its stores name it (a file's path, a URL without its password).
    public let database: String
    /// The store's row of `glow_clock`.
    public let clock: String
    /// The clock's version the answer was read at.
    public let version: Int64

    /// A reading of `clock` at `version` in `database`.
    public init(database: String, clock: String, version: Int64) {
        self.database = database
        self.clock = clock
        self.version = version
    }

    /// `accounts at 12 in /path/server.sqlite`.
    public var description: String { "\(clock) at \(version) in \(database)" }

    /// The answer of a call given no reading to confirm, which always has one: nil answers only
    /// stand for a reading that no longer held.
    public static func answer<T>(unconfirmed answer: T?) -> T {
        guard let answer else { preconditionFailure("a call that confirms no reading answers") }
        return answer
    }
}
