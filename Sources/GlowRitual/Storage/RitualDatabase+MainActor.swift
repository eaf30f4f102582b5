import Dispatch
import GlowStorage

extension RitualDatabase {
    /// Tells `observer`, on the main actor, of every change committed to the file (see
    /// ``observe(_:)``): at once when the change was made or found on the main actor (a store's
    /// own change is shown before its method returns), else as soon as the main actor runs.
    @MainActor
    func observeOnMain(_ observer: @escaping @MainActor @Sendable (DatabaseChange) -> Void) -> DatabaseObservation {
        MainQueue.mark()
        return observe { change in
            if MainQueue.isCurrent {
                MainActor.assumeIsolated { observer(change) }
            } else {
                Task { @MainActor in observer(change) }
            }
        }
    }
}

/// Whether code runs on the main queue, the main actor's executor (on Linux its jobs may run on a
/// thread that is not the process's first, so `Thread.isMainThread` cannot tell).
private enum MainQueue {
    /// The key, in a box the compiler takes as sendable on every platform (a key is only an
    /// identity: it is never changed after it is made).
    final class Key: @unchecked Sendable {
        let value = DispatchSpecificKey<Bool>()
    }
    static let box = Key()
    static var key: DispatchSpecificKey<Bool> { box.value }

    /// Marks the main queue, once; called on the main actor.
    @MainActor static func mark() {
        if DispatchQueue.getSpecific(key: key) != true { DispatchQueue.main.setSpecific(key: key, value: true) }
    }

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
