import Foundation
import GlowBundle
import GlowModel
import GlowStreaks
import GlowWire
import Testing

extension Samples {
    static var dataSet: DataSet {
        let goals = Samples.goals
        let checkIns = goals.flatMap { Samples.checkIns(for: $0, days: 60) }
        return try! DataSet(profile: Samples.profile, goals: goals, checkIns: checkIns)
    }

    static let options = BundleOptions(createdAt: now, deviceID: device)
}

@Suite("Bundles")
struct BundleTests {
    @Test("export then import into an empty store gives back equal data and equal streaks")
    func roundTrip() throws {
        let data = Samples.dataSet
        let bytes = BundleWriter.bundle(data, options: Samples.options)
        let (imported, summary) = try BundleReader().dataSet(bytes)
        #expect(imported == data)
        #expect(summary.counts == RecordCounts(data))
        #expect(summary.manifest.exporterName == BundleOptions.sdkName)
        #expect(summary.fileSize == bytes.count)
        let today = Samples.today.advanced(by: 30)
        let before = TodayQuery.items(
            goals: data.sortedGoals, checkIns: data.checkIns, weekStart: .monday, today: today)
        let after = TodayQuery.items(
            goals: imported.sortedGoals, checkIns: imported.checkIns, weekStart: .monday, today: today)
        #expect(before == after)
        #expect(BundleWriter.bundle(imported, options: Samples.options) == bytes, "re-export is byte-identical")
    }

    @Test("any chunking of the input reads the same", arguments: [1, 7, 100, 4096, 1 << 20])
    func chunking(size: Int) throws {
        let bytes = BundleWriter.bundle(Samples.dataSet, options: Samples.options)
        var offset = 0
        let (data, _) = try BundleReader().dataSet {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return Array(bytes[offset..<min(bytes.count, offset + size)])
        }
        #expect(data == Samples.dataSet)
    }

    @Test("every compression level writes a readable bundle", arguments: 0...9)
    func levels(level: Int) throws {
        var options = Samples.options
        options.level = level
        let bytes = BundleWriter.bundle(Samples.dataSet, options: options)
        #expect(try BundleReader().dataSet(bytes).0 == Samples.dataSet)
    }

    static func code(_ bytes: [UInt8], limits: BundleLimits = .default) -> String? {
        do {
            _ = try BundleReader(limits: limits).verify(bytes)
            return nil
        } catch {
            return error.code.description
        }
    }

    @Test("damage is caught with the right code")
    func damage() {
        let good = BundleWriter.bundle(Samples.dataSet, options: Samples.options)
        #expect(Self.code(good) == nil)
        #expect(Self.code(Array(good.prefix(10))) == "truncated")
        #expect(Self.code(Array(good.prefix(good.count / 2))) == "truncated")
        #expect(Self.code(Array(good.dropLast(3))) == "truncated")
        #expect(Self.code(good + [0]) == "trailing_data")
        var flipped = good
        flipped[good.count - 6] ^= 1  // the trailer's CRC
        #expect(Self.code(flipped) == "checksum_mismatch")
        var header = good
        header[9] ^= 1  // minor version without fixing the header CRC
        #expect(Self.code(header) == "checksum_mismatch")
        var stream = good
        stream[BundleHeader.size + 40] ^= 0x55
        #expect(Self.code(stream) != nil)
        #expect(
            Self.code(
                good,
                limits: BundleLimits(maxBundleSize: good.count - 1, maxUncompressedSize: 1 << 30, maxFrameSize: 1 << 20)
            )
                == "limit_exceeded")
        #expect(
            Self.code(
                good, limits: BundleLimits(maxBundleSize: 1 << 30, maxUncompressedSize: 1000, maxFrameSize: 1 << 20))
                == "limit_exceeded")
        #expect(
            Self.code(
                good, limits: BundleLimits(maxBundleSize: 1 << 30, maxUncompressedSize: 1 << 30, maxFrameSize: 100))
                == "limit_exceeded")
    }

    @Test(
        "files that are not bundles get a hint",
        arguments: [
            ([0x50, 0x4B, 0x03, 0x04, 0, 0, 0, 0], "zip"), ([0x1F, 0x8B, 8, 0, 0, 0, 0, 0], "gzip"),
            (Array(#"  {"goals": []}"#.utf8), "JSON"), (Array("hello world, not a bundle".utf8), "plain text"),
            ([0x89, 0x47, 0x4C, 0x57, 0x0A, 0x1A, 0x0A, 0x01, 0x00], "newline translation"),
            ([0x09, 0x47, 0x4C, 0x57, 0x0D, 0x0A, 0x1A, 0x0A, 0x01], "7-bit"), ([], "empty"),
        ] as [([UInt8], String)])
    func hints(bytes: [UInt8], hint: String) {
        do {
            _ = try BundleReader().verify(bytes)
            Issue.record("accepted garbage")
        } catch {
            #expect(error.code == .badMagic)
            #expect(error.message.contains(hint), "\(error.message)")
        }
    }

    @Test("a bad bundle leaves the destination exactly as it was")
    func allOrNothing() throws {
        let destination = Samples.dataSet
        var other = DataSet()
        var goal = Samples.goals[0]
        try goal.edit(at: goal.modifiedAt.adding(milliseconds: 1000)) { $0.title = "Changed on the other phone" }
        other.put(goal)
        let good = BundleWriter.bundle(other, options: Samples.options)
        let bad = Array(good.dropLast(1))
        var store = destination
        #expect(throws: BundleError.self) { try BundleReader().import(bad, into: &store) }
        #expect(store == destination, "the failed import changed nothing")
        try BundleReader().import(good, into: &store)
        #expect(store != destination)
        #expect(store.goals[goal.id]?.title == "Changed on the other phone")
    }

    @Test("another person's bundle is refused")
    func userMismatch() throws {
        var theirs = DataSet()
        theirs.profile = try Profile(
            userID: UserID(high: 9, low: 9), displayName: "Someone else", boundary: Samples.profile.boundary,
            createdAt: Samples.now, modifiedAt: Samples.now)
        let bytes = BundleWriter.bundle(theirs, options: Samples.options)
        do {
            _ = try BundleReader().importing(bytes, into: Samples.dataSet)
            Issue.record("imported another person's data")
        } catch {
            #expect(error.code == .userMismatch)
        }
    }

    @Test("a decompression bomb fails fast")
    func bomb() throws {
        // One frame claiming a huge goal whose payload is zeros: 64 MiB of zeros compress to ~64 KiB.
        var data = DataSet()
        data.profile = Samples.profile
        var goal = Samples.goals[1]
        try goal.edit(at: goal.modifiedAt) { $0.note = String(repeating: "a", count: 400) }
        data.put(goal)
        let bytes = BundleWriter.bundle(data, options: Samples.options)
        let limits = BundleLimits(maxBundleSize: 1 << 30, maxUncompressedSize: 200, maxFrameSize: 1 << 20)
        do {
            _ = try BundleReader(limits: limits).verify(bytes)
            Issue.record("read past the limit")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.offset == 200)
        }
    }
}
