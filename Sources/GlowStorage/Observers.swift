import GlowCore

/// Who listens to a store's committed changes (GRDB's `ValueObservation` in miniature): each
/// observer hears every change once, after it is committed, on the thread that made or found it.
package final class ChangeObservers<Change: Sendable>: Sendable {
    private let state = Locked<(next: UInt64, observers: [UInt64: @Sendable (Change) -> Void])>((0, [:]))

    /// No observers yet.
    package init() {}

    /// Adds an observer; it hears changes until the returned observation is cancelled or freed.
    package func add(_ observer: @escaping @Sendable (Change) -> Void) -> DatabaseObservation {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
        return DatabaseObservation { [weak self] in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    /// Every change told from now on, as an async sequence that ends when its consumer stops
    /// iterating. A consumer more than `buffer` changes behind loses the oldest it has not read
    /// (a change that carries the whole committed state makes the newest all it needs).
    package func stream(buffer: Int = 256) -> AsyncStream<Change> {
        AsyncStream(bufferingPolicy: .bufferingNewest(buffer)) { continuation in
            let observation = add { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// Tells every observer, outside the lock (an observer may read the store again).
    package func notify(_ change: Change) {
        let observers = state.withLock { state in state.observers.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers { observer(change) }
    }
}

/// An observer's registration: it ends with ``cancel()``, or when this is freed.
public final class DatabaseObservation: Sendable {
    private let end: Locked<(@Sendable () -> Void)?>

    package init(_ end: @escaping @Sendable () -> Void) {
        self.end = Locked(end)
    }

    deinit { cancel() }

    /// Stops the observer from hearing further changes.
    public func cancel() {
        let end = end.withLock { end -> (@Sendable () -> Void)? in
            defer { end = nil }
            return end
        }
        end?()
    }
}
