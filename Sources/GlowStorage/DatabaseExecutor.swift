import Dispatch
import GlowCore

/// The serial queue a database's reads and writes run on, one job after another and never on the
/// caller's thread (issue 58): an app's main actor hands a change over and awaits its result, so a
/// commit waiting for another process's lock on the file, or a read of the whole data set, never
/// holds up the screen.
///
/// One per database object (GRDB's `DatabaseQueue` is the model): what runs on it sees the
/// database's state as the previous job left it, so a job that reads and then writes decides on
/// what it writes over. A job runs to its end once started; a task cancelled before its job starts
/// is answered without running it.
package final class DatabaseExecutor: Sendable {
    private let queue: DispatchQueue

    /// A queue named `label` (a debugger shows it beside the thread that runs it).
    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Runs `body` on the queue, after every job given before it, and returns its result.
    ///
    /// - Throws: what `body` throws; `cancelled` when the calling task was cancelled before the
    ///   job started (nothing of it ran).
    package func run<T: Sendable, Failure: Error>(
        cancelled: @escaping @Sendable () -> Failure, _ body: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let stopped = Locked<Bool>(false)
        // The body, and all it holds (a database's last reference, whose release closes its file),
        // is let go before the caller goes on, never beside it.
        let job = Locked<(@Sendable () throws(Failure) -> T)?>(body)
        let result: Result<T, Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    let result: Result<T, Failure>
                    do {
                        let body = job.withLock { job in job.take() }
                        // Cancelled while it waited its turn: it does not start.
                        if stopped.withLock({ $0 }) {
                            result = .failure(cancelled())
                        } else if let body {
                            result = Result { () throws(Failure) -> T in try body() }
                        } else {
                            preconditionFailure("a job runs once")
                        }
                    }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            stopped.withLock { $0 = true }
        }
        return try result.get()
    }

    /// Runs `body` on the queue, after every job given before it, whether or not the calling task
    /// is cancelled: for work that must happen once asked for (closing the file).
    package func runWhole<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
