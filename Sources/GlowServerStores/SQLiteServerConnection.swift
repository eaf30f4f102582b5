import Dispatch
import GlowStorage

/// A server store's SQLite connection, used by one request at a time, each of which waits at most
/// the database wait: for its turn on the connection, and then for SQLite's locks (the busy
/// timeout set to what is left of it). So under an outside lock on the file (another process's
/// `BEGIN EXCLUSIVE`, a backup holding it), every call, health included, answers `busy` (`503`
/// with `Retry-After`) within the wait, as on PostgreSQL (SERVER-7), instead of queueing behind
/// requests that each wait SQLite's own timeout.
package final class SQLiteServerConnection: @unchecked Sendable {
    private let connection: SQLiteConnection
    /// One request at a time; a semaphore, because its wait has a deadline.
    private let turn = DispatchSemaphore(value: 1)
    /// The longest a call waits, in seconds.
    package let wait: Double

    /// `connection`, whose calls wait at most `wait` seconds (clamped to 0.05 ... 3,600).
    package init(_ connection: SQLiteConnection, wait: Double) {
        self.connection = connection
        self.wait = wait.isFinite ? Swift.min(Swift.max(wait, 0.05), 3_600) : 3_600
    }

    /// The file's path.
    package var path: String { connection.path }

    /// Runs `body` on the connection once it is this call's turn, SQLite waiting for the file's
    /// locks no longer than what is left of the wait.
    ///
    /// - Throws: ``StoreError`` `busy` when the turn did not come within the wait; the body's.
    package func withConnection<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let start = DispatchTime.now()
        let deadline = start + wait
        guard turn.wait(timeout: deadline) == .success else {
            throw StoreError(
                .busy, "the database's connection stayed in use for \(wait) s (another process holds the file locked?)",
                path: connection.path)
        }
        defer { turn.signal() }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        connection.busyTimeout(milliseconds: Int32(Swift.max(1, ((wait - waited) * 1_000).rounded(.up))))
        return try body(connection)
    }
}
