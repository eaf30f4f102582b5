import Foundation
import GlowToolSupport
import Testing

/// A throwaway PostgreSQL cluster for one test suite (GlowToolSupport's `ThrowawayPostgres`),
/// whose failure to stop is the test's.
final class TemporaryPostgres {
    let cluster: ThrowawayPostgres

    /// Whether the tests that need PostgreSQL run: it is installed, or CI requires it.
    static var available: Bool { ThrowawayPostgres.available }

    typealias Failure = ThrowawayPostgres.Failure

    init() throws { cluster = try ThrowawayPostgres() }

    var folder: URL { cluster.folder }
    var conninfo: String { cluster.conninfo }

    func stop() {
        do {
            try cluster.stop()
        } catch {
            Issue.record("the throwaway cluster did not stop: \(error)")
        }
    }
}
