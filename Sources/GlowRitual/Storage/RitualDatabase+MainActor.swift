import GlowCore
import GlowStorage

/// The database's committed changes as the main actor's stores take them in (issue 58): one queue,
/// in commit order, drained on the main actor; each change goes to every store registered, one
/// store after another (a store may do its heavy part off the main actor and is awaited), before
/// the next change goes to any.
///
/// A store starts from ``latest``, the state as of the last change the queue took, and hears every
/// change after it: both happen on the main actor, so none is missed or heard twice. The database
/// feeds the queue only once a store asked for it (``RitualDatabase/mainState()``), so a tool that
/// never shows anything keeps no change for a main actor it never runs.
final class MainChanges: Sendable {
    /// A store's way to take in a change.
    typealias Observer = @MainActor @Sendable (DatabaseChange) async -> Void

    private struct State {
        /// Whether the database feeds the queue.
        var attached = false
        var pending: [DatabaseChange] = []
        /// Whether a drain runs (or is scheduled).
        var draining = false
        /// How many changes were taken into the queue.
        var taken: UInt64 = 0
        /// How many of them every store was given.
        var shown: UInt64 = 0
        /// The change the stores were last given, or are being given.
        var latest: DatabaseChange?
        var observers: [(id: UInt64, observer: Observer)] = []
        var next: UInt64 = 0
        var waiters: [(through: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Locked(State())

    /// Whether the database feeds the queue.
    var isAttached: Bool { state.withLock { $0.attached } }

    /// The state as of the last change the stores were given, once the queue is fed.
    @MainActor var latest: DatabaseChange? { state.withLock { $0.latest } }

    /// Starts the queue with the state the database holds (`initial`); called on the database's
    /// executor, so no change comes between.
    func attach(initial: DatabaseChange) {
        let attached = state.withLock { state -> Bool in
            guard !state.attached else { return false }
            state.attached = true
            return true
        }
        if attached { take(initial) }
    }

    /// Takes a change the database told (on its executor), to be given to the stores in order.
    func take(_ change: DatabaseChange) {
        let start = state.withLock { state -> Bool in
            guard state.attached else { return false }
            state.pending.append(change)
            state.taken += 1
            defer { state.draining = true }
            return !state.draining
        }
        if start { Task { @MainActor in await self.drain() } }
    }

    /// Registers a store's observer: it is given every change after ``latest``.
    @MainActor func add(_ observer: @escaping Observer) -> DatabaseObservation {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            state.observers.append((state.next, observer))
            return state.next
        }
        return DatabaseObservation { [weak self] in
            self?.state.withLock { $0.observers.removeAll { $0.id == id } }
        }
    }

    /// Waits until every store was given every change taken so far (at once when no store listens).
    /// Never called from an observer, which the queue is waiting for.
    func settled() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.shown < state.taken else { return true }
                state.waiters.append((state.taken, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Gives each waiting change to every store, in order, until none waits.
    @MainActor private func drain() async {
        while true {
            let next = state.withLock { state -> (DatabaseChange, [Observer])? in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return nil
                }
                let change = state.pending.removeFirst()
                state.latest = change
                return (change, state.observers.map(\.observer))
            }
            guard let (change, observers) = next else { return }
            for observer in observers { await observer(change) }
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.shown += 1
                let shown = state.shown
                let ready = state.waiters.filter { $0.through <= shown }.map(\.continuation)
                state.waiters.removeAll { $0.through <= shown }
                return ready
            }
            for waiter in ready { waiter.resume() }
        }
    }
}

extension RitualDatabase {
    /// The state the main actor's stores start from: the last change they were given, once the
    /// database feeds them (it starts to at the first call, on its executor, with what it holds).
    ///
    /// - Throws: ``StoreError`` when the state has to be read again and cannot be.
    @MainActor func mainState() async throws(StoreError) -> DatabaseChange {
        if let latest = main.latest { return latest }
        try await run { (job) throws(StoreError) in
            guard !job.database.main.isAttached else { return }
            let state = try job.held { $0 }
            job.database.main.attach(initial: DatabaseChange(external: state))
        }
        await main.settled()
        guard let latest = main.latest else { preconditionFailure("the queue holds the state it was started with") }
        return latest
    }

    /// Gives `observer`, on the main actor, every change committed after ``mainState()``'s, in
    /// order; the database waits for it before giving the next to any.
    @MainActor func observeOnMain(_ observer: @escaping MainChanges.Observer) -> DatabaseObservation {
        main.add(observer)
    }
}
