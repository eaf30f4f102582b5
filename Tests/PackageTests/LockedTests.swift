import Dispatch
import Testing

@testable import GlowCore

/// The package's own lock (issue 58), which takes the place of `Synchronization.Mutex` so the
/// package links on iOS 16: one thread at a time in a body, released however the body ends.
@Suite("The package's lock")
struct LockedTests {
    /// Why a body stopped.
    struct Stopped: Error, Equatable {
        let at: Int
    }

    /// A noncopyable value, as the storage layer keeps its connection's state.
    struct Unique: ~Copyable {
        var count = 0
    }

    @Test("concurrent bodies each see the last one's change: no increment is lost")
    func noLostUpdate() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                // A read, then a write, in one body: a race between them would lose increments.
                counter.withLock { value in
                    let read = value
                    value = read + 1
                }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("a body that throws releases the lock, its typed error passes through, and its change stays")
    func throwingBody() {
        let locked = Locked([Int]())
        let error = #expect(throws: Stopped.self) {
            try locked.withLock { (values) throws(Stopped) in
                values.append(1)
                throw Stopped(at: values.count)
            }
        }
        #expect(error == Stopped(at: 1))
        // Taken again at once: a lock left held would never return here.
        #expect(locked.withLock { $0 } == [1])
    }

    @Test("a noncopyable value is kept and changed in place")
    func noncopyable() {
        let locked = Locked(Unique())
        locked.withLock { $0.count += 2 }
        #expect(locked.withLock { $0.count } == 2)
    }
}
