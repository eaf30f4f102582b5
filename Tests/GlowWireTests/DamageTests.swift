import Foundation
import GlowBundle
import GlowModel
import GlowWire
import Testing

/// The sample person's bundle damaged systematically (issue 11): cut at every byte where the
/// reader changes state, and every byte of its header, first 4 KiB and trailer flipped. Each damaged file is refused with a typed
/// error, or (a flip that leaves the inflated frames identical) read unchanged, and an import of
/// it into an existing data set leaves that data set exactly as it was.
@Suite("Damaged bundles")
struct DamageTests {
    static let sample: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Spec/examples/sample.glow")
        return Array(try! Data(contentsOf: url))
    }()

    static let original = try! BundleReader().dataSet(sample).0

    /// A device that already holds data: the sample's goals, nothing else.
    static let device: DataSet = {
        var data = DataSet()
        for goal in original.sortedGoals.prefix(3) { data.put(goal) }
        return data
    }()

    /// Where the sample is cut: every byte of the header, of the first KiB of the stream and of
    /// the last 256 bytes (the stream's end and the trailer), where the reader changes state, and
    /// every 41st byte in between, where it is in the middle of inflating. Every byte there would
    /// cost minutes of debug-build time for the same path; the fuzz targets cut anywhere, in
    /// release. In slices that run in parallel.
    static let slices = 4

    static var cuts: [Int] {
        let count = sample.count
        let head = 0..<(BundleHeader.size + 1024)
        let tail = (count - 256)..<count
        return Array(head) + Array(stride(from: head.upperBound, to: tail.lowerBound, by: 41)) + Array(tail)
    }

    @Test("a bundle cut anywhere is refused as truncated", arguments: 0..<slices)
    func everyCut(slice: Int) {
        #expect(Self.sample.count > 10_000)
        for length in Self.cuts.enumerated().filter({ $0.offset % Self.slices == slice }).map(\.element) {
            do {
                _ = try BundleReader().verify(Array(Self.sample.prefix(length)))
                Issue.record("a bundle cut to \(length) bytes verified")
            } catch {
                // The empty file is bad_magic; a cut inside the header, the stream, a frame or the
                // trailer is truncated (BUNDLE-2, BUNDLE-5, BUNDLE-7, BUNDLE-8).
                #expect(
                    error.code == .truncated || (length == 0 && error.code == .badMagic),
                    "cut at \(length): \(error)")
            }
        }
    }

    /// The offsets whose flip is tried: the header, the first 4 KiB of the stream, the trailer.
    static var flipped: [Int] {
        let count = sample.count
        return Array(0..<Swift.min(count, BundleHeader.size + 4096)) + Array((count - BundleTrailer.size)..<count)
    }

    @Test(
        "a flipped byte in the header, the first 4 KiB or the trailer is refused, or changes nothing",
        arguments: 0..<slices)
    func everyFlip(slice: Int) {
        var refused = 0
        var unchanged = 0
        let offsets = Self.flipped.enumerated().filter { $0.offset % Self.slices == slice }.map(\.element)
        for offset in offsets {
            var damaged = Self.sample
            damaged[offset] ^= 0xFF
            var store = Self.device
            do {
                try BundleReader().import(damaged, into: &store)
                // Only a flip that leaves the inflated frames identical can pass every check.
                #expect(store == Self.device.merging(Self.original), "flip at \(offset) changed the data")
                unchanged += 1
            } catch {
                refused += 1
                #expect(!error.code.description.isEmpty && error.offset >= 0, "flip at \(offset): \(error)")
                #expect(store == Self.device, "a refused import at \(offset) changed the destination")
            }
        }
        #expect(refused > offsets.count * 9 / 10, "\(refused) refused, \(unchanged) read unchanged")
    }

    @Test("the trailer and header flips give the codes their rules name")
    func flipCodes() {
        func code(flipping offset: Int) -> String? {
            var damaged = Self.sample
            damaged[offset] ^= 0xFF
            do {
                _ = try BundleReader().verify(damaged)
                return nil
            } catch {
                return error.code.description
            }
        }
        #expect(code(flipping: 0) == "bad_magic")  // BUNDLE-1
        #expect(code(flipping: 9) == "checksum_mismatch")  // the version, without its header CRC
        #expect(code(flipping: 21) == "checksum_mismatch")  // the header CRC itself
        let trailer = Self.sample.count - BundleTrailer.size
        for offset in trailer..<Self.sample.count {
            #expect(code(flipping: offset) == "checksum_mismatch", "trailer byte \(offset - trailer)")
        }
    }

    @Test("50,000 unknown records in descending order are kept without quadratic work")
    func manyUnknownRecords() throws {
        var data = DataSet()
        data.profile = Self.original.profile
        let count = 50_000
        var frames: [[UInt8]] = []
        frames.reserveCapacity(count)
        for index in (0..<count).reversed() {
            // BundleFrame field 9, length 4, a big-endian index: an unknown record type.
            frames.append([
                0x4A, 0x04, UInt8(index >> 24), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF),
                UInt8(index & 0xFF),
            ])
        }
        var other = DataSet()
        for frame in frames { other.keepUnknownRecord(frame) }
        #expect(other.otherRecordCount == count)
        #expect(other.otherRecords.first == frames.last && other.otherRecords.last == frames.first)
    }
}
