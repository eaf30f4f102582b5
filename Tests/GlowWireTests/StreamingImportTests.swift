import Foundation
import GlowBundle
import GlowModel
import Testing

/// Streamed imports (BUNDLE-26): from chunks, a file handle or an async sequence, with progress,
/// cancellation and failing sources, each all or nothing.
@Suite("Streaming import")
struct StreamingImportTests {
    static let sample = DamageTests.sample
    static let device = DamageTests.device

    /// The sample cut into chunks of `size` bytes.
    static func chunks(_ size: Int) -> [[UInt8]] {
        stride(from: 0, to: sample.count, by: size).map { Array(sample[$0..<min(sample.count, $0 + size)]) }
    }

    @Test("progress grows chunk by chunk to the whole file and every record", arguments: [1_000, 4_096, 65_536])
    func progress(chunkSize: Int) throws {
        var pending = Self.chunks(chunkSize)[...]
        var seen: [ImportProgress] = []
        var data = Self.device
        let result = try BundleReader().import(
            reading: { pending.popFirst() }, totalBytes: Self.sample.count, into: &data
        ) { progress in
            seen.append(progress)
            return true
        }
        #expect(data == (try BundleReader().importing(Self.sample, into: Self.device)))
        #expect(seen.count == Self.chunks(chunkSize).count)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesRead < $1.bytesRead && $0.records <= $1.records })
        let last = try #require(seen.last)
        let counts = result.summary.counts
        #expect(last.bytesRead == Self.sample.count && last.fraction == 1)
        #expect(last.records == counts.profiles + counts.goals + counts.checkInBlocks + counts.other)
        #expect(last.checkIns == counts.checkIns && counts.checkIns > 1_000)
        // The device held three of the goals already: the import changed the profile, the other
        // goals and every check-in.
        #expect(result.changes.profile && result.changes.goals.count == counts.goals - 3)
        #expect(result.changes.checkInCount == counts.checkIns)
    }

    @Test("cancelling from the progress handler imports nothing")
    func cancelled() {
        var pending = Self.chunks(4_096)[...]
        var data = Self.device
        var calls = 0
        do {
            try BundleReader().import(reading: { pending.popFirst() }, into: &data) { _ in
                calls += 1
                return calls < 3
            }
            Issue.record("a cancelled import finished")
        } catch {
            #expect(error.code == .cancelled && error.section == .stream && error.offset == 3 * 4_096)
        }
        #expect(data == Self.device)
    }

    struct Unplugged: Error {}

    @Test("a source that fails is read_failed, and imports nothing")
    func failingSource() {
        var pending = Self.chunks(4_096)[...]
        var data = Self.device
        do {
            try BundleReader().import(
                reading: {
                    if pending.count < 3 { throw Unplugged() }
                    return pending.popFirst()
                }, into: &data)
            Issue.record("a failed source imported")
        } catch {
            #expect(error.code == .readFailed && error.message.contains("Unplugged"))
        }
        #expect(data == Self.device)
    }

    @Test("a bundle cut short in a stream is refused at its end, and imports nothing")
    func truncated() {
        var pending = Self.chunks(4_096).dropLast()
        var data = Self.device
        #expect(throws: BundleError.self) {
            try BundleReader().import(reading: { pending.popFirst() }, into: &data)
        }
        #expect(data == Self.device)
    }

    @Test("a file handle imports from its offset, with the rest of the file as the total")
    func fileHandle() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("glow-stream-\(UUID()).glow")
        try Data([0xFF, 0xFF] + Self.sample).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: 2)
        var data = Self.device
        var last = ImportProgress()
        try BundleReader().import(from: handle, into: &data) { progress in
            last = progress
            return true
        }
        #expect(last.totalBytes == Self.sample.count && last.fraction == 1)
        #expect(data == (try BundleReader().importing(Self.sample, into: Self.device)))
    }

    @Test("an async sequence of chunks imports the same data")
    func asyncSequence() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        for chunk in Self.chunks(8_192) { continuation.yield(chunk) }
        continuation.finish()
        var data = Self.device
        var reports = 0
        let result = try await BundleReader().import(stream, totalBytes: Self.sample.count, into: &data) { _ in
            reports += 1
        }
        #expect(reports == Self.chunks(8_192).count)
        #expect(result.summary.fileSize == Self.sample.count)
        #expect(data == (try BundleReader().importing(Self.sample, into: Self.device)))
    }

    @Test("cancelling the task stops an async import between chunks, and imports nothing")
    func asyncCancelled() async {
        // A source that never ends: only cancellation stops it.
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        continuation.yield(Array(Self.sample.prefix(4_096)))
        let task = Task {
            var data = Self.device
            do {
                try await BundleReader().import(stream, into: &data)
                return (data, BundleError.Code?.none)
            } catch {
                return (data, (error as? BundleError)?.code)
            }
        }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        continuation.yield(Array(Self.sample.dropFirst(4_096).prefix(4_096)))
        let (data, code) = await task.value
        #expect(code == .cancelled)
        #expect(data == Self.device)
    }

    @Test("another person's bundle is refused after reading, and imports nothing")
    func otherPerson() throws {
        var data = Self.device
        try data.setProfile(
            Profile(
                userID: UserID(high: 0xBAD, low: 1), displayName: "Noor", boundary: DayBoundary(timeZone: .utc),
                createdAt: .epoch, modifiedAt: .epoch))
        let before = data
        var pending = Self.chunks(65_536)[...]
        do {
            try BundleReader().import(reading: { pending.popFirst() }, into: &data)
            Issue.record("another person's bundle imported")
        } catch {
            #expect(error.code == .userMismatch)
        }
        #expect(data == before)
    }
}
