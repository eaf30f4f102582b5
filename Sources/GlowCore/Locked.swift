#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value that one thread at a time reads or changes, under a lock: the package's own, in place of
/// `Synchronization.Mutex`, which Apple platforms have only from iOS 18, macOS 15, watchOS 11 and
/// tvOS 18, so that an app supporting iOS 16 links the package (issue 58).
///
/// One POSIX mutex (not recursive: a body must not take the same lock again), allocated once and
/// never moved, guards the value, which may be noncopyable; ``withLock(_:)`` holds it for the body and releases it however
/// the body ends, a thrown error included.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock guarding `value`.
    package init(_ value: consuming Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "a mutex is made (pthread_mutex_init: \(status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held, and returns its result.
    ///
    /// - Throws: what `body` throws; the lock is released first.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
