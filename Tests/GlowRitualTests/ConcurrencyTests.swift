import Foundation
import GlowBundle
import GlowCore
import GlowModel
import GlowStorage
import Testing

@testable import GlowRitual

/// One writer at a time, readers from any task (issue 17): taps from several tasks, imports and
/// reads at once keep every invariant, and what the file holds afterwards is what was reported.
@Suite("Database under concurrent use")
struct ConcurrencyTests {
    /// Set when the writers are done, so the reader stops.
    final class Finished: Sendable {
        let value = Locked(false)
    }

    @Test("concurrent taps, imports and reads: no tap lost, no reader sees a half change")
    func stress() async throws {
        let path = DatabaseTests.temporary()
        let database = try await RitualDatabase(path: path)
        let goals = try (1...4).map { try DatabaseTests.goal($0) }
        for goal in goals {
            try await database.perform { (data) throws(ModelError) in try data.add(goal) }
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let imports = try CrashTests.bundles(in: folder, count: 6)
        let done = Finished()
        let tapsPerWriter = 150
        try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    let goal = goals[writer]
                    for index in 0..<tapsPerWriter {
                        let instant = try Instant(
                            millisecondsSince1970: try Instant(rfc3339: "2026-11-20T08:00:00Z").millisecondsSince1970
                                + Int64(index) * 60_000)
                        try await database.perform { (data) throws(ModelError) in
                            try data.tap(
                                .count(1), goal: goal.id, at: instant, device: DatabaseTests.device,
                                boundary: DatabaseTests.boundary)
                        }
                    }
                    return tapsPerWriter
                }
            }
            group.addTask {
                for bundle in imports {
                    try await database.importBundle(try [UInt8](Data(contentsOf: URL(fileURLWithPath: bundle.path))))
                }
                return 0
            }
            group.addTask {
                // A reader: every snapshot is whole, each import all there or not at all, and
                // taps only ever grow.
                var reads = 0
                var last: [GoalID: Int] = [:]
                while !done.value.withLock({ $0 }) || reads == 0 {
                    let data = try await database.data
                    for bundle in imports {
                        let present = bundle.goals.map { data.goals[$0] != nil && data.history(of: $0).count == 200 }
                        #expect(present.allSatisfy { $0 } || present.allSatisfy { !$0 })
                    }
                    for goal in goals {
                        let taps = data.history(of: goal.id).reduce(0) { $0 + $1.taps.count }
                        #expect(taps >= last[goal.id] ?? 0)
                        last[goal.id] = taps
                    }
                    reads += 1
                    await Task.yield()
                }
                return reads
            }
            var finished = 0
            for try await _ in group {
                finished += 1
                if finished == 4 { done.value.withLock { $0 = true } }
            }
        }
        let reopened = try await RitualDatabase(path: path)
        await #expect(try reopened.integrityCheck())
        await #expect(try reopened.data == database.data)
        for goal in goals.prefix(3) {
            let taps = try await reopened.data.history(of: goal.id).reduce(0) { $0 + $1.taps.count }
            #expect(taps == tapsPerWriter, "\(goal.title): every tap of its writer")
        }
        let stored = try await reopened.data
        #expect(imports.allSatisfy { bundle in bundle.goals.allSatisfy { stored.goals[$0] != nil } })
    }
}
