import GlowCore

/// One store's work on the main actor, one job after another, even when a job awaits work it does
/// off the main actor (issue 58): a change the database told, a new Day's evaluation, a snooze.
/// While a job awaits, the main actor draws and answers; the store shows what its last finished job
/// left, never half of one.
///
/// A job must not wait for the database's changes to reach the stores (``MainChanges/settled()``):
/// a store takes them in through its lane, behind the job.
@MainActor
final class MainLane {
    private var tail: Task<Void, Never>?

    /// No job yet.
    nonisolated init() {}

    /// Starts `job` after every job given before it, without waiting for it.
    func enqueue(_ job: @escaping @MainActor () async -> Void) {
        let previous = tail
        tail = Task { @MainActor in
            await previous?.value
            await job()
        }
    }

    /// Runs `job` after every job given before it, and returns its result.
    func run<T: Sendable>(_ job: @escaping @MainActor () async -> T) async -> T {
        let previous = tail
        let task = Task { @MainActor () -> T in
            await previous?.value
            return await job()
        }
        tail = Task { @MainActor in _ = await task.value }
        return await task.value
    }

    /// Waits until every job given so far has finished.
    func idle() async {
        await tail?.value
    }
}

/// Runs `work` off the main actor, in a task of its own at the caller's priority, cancelled when
/// the caller is: what a store does with the whole data set (every goal evaluated, a plan, a feed's
/// derivation) while the main actor draws.
func offMain<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    let task = Task.detached(priority: Task.currentPriority) { work() }
    return await withTaskCancellationHandler {
        await task.value
    } onCancel: {
        task.cancel()
    }
}

/// Runs `body` with a question it can ask from any thread, a job of the database's executor
/// included (which runs outside the task): whether the calling task has been cancelled.
func withCancellationFlag<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation, _ body: (_ cancelled: @escaping @Sendable () -> Bool) async -> T
) async -> T {
    let flag = Locked(false)
    return await withTaskCancellationHandler(
        operation: { await body { flag.withLock { $0 } } }, onCancel: { flag.withLock { $0 = true } },
        isolation: isolation)
}
