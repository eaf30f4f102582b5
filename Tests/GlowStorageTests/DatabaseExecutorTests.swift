import Foundation
import GlowCore
import Testing

@testable import GlowStorage

/// The serial queue a database's work runs on (issue 58): jobs run one after another, in the
/// order given, and a job whose task was cancelled before its turn never starts.
@Suite("Database executor")
struct DatabaseExecutorTests {
    static func stopped() -> StoreError { StoreError(.cancelled, "stopped", path: "test") }

    @Test("jobs run one at a time, in the order given, and their errors come back typed")
    func order() async throws {
        let executor = DatabaseExecutor(label: "test")
        let log = Locked<[Int]>([])
        let running = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                // Given in order: each task gives its job before the next task starts.
                let given = Locked(false)
                group.addTask {
                    _ = try await executor.run(cancelled: Self.stopped) { () throws(StoreError) in
                        given.withLock { $0 = true }
                        let overlapping = running.withLock { running in
                            running += 1
                            return running > 1
                        }
                        usleep(500)
                        running.withLock { $0 -= 1 }
                        log.withLock { $0.append(overlapping ? -index : index) }
                    }
                }
                while !given.withLock({ $0 }) { await Task.yield() }
            }
            try await group.waitForAll()
        }
        #expect(log.withLock { $0 } == Array(0..<20), "one at a time, in order")
        await #expect(throws: StoreError.self) {
            try await executor.run(cancelled: Self.stopped) { () throws(StoreError) in
                throw StoreError(.busy, "held", path: "test")
            }
        }
    }

    @Test("a job given by a task cancelled before its turn never starts, and says so")
    func cancellation() async throws {
        let executor = DatabaseExecutor(label: "test")
        // A long job holds the queue; a job given behind it by a task then cancelled never runs.
        let release = Locked(false)
        let first = Task {
            try await executor.run(cancelled: Self.stopped) { () throws(StoreError) in
                while !release.withLock({ $0 }) { usleep(1000) }
            }
        }
        let started = Locked(false)
        let second = Task {
            try await executor.run(cancelled: Self.stopped) { () throws(StoreError) in started.withLock { $0 = true } }
        }
        try await Task.sleep(for: .milliseconds(50))
        second.cancel()
        release.withLock { $0 = true }
        try await first.value
        await #expect {
            try await second.value
        } throws: { error in
            (error as? StoreError)?.code == .cancelled
        }
        #expect(!started.withLock { $0 }, "the cancelled job did not start")
    }
}
