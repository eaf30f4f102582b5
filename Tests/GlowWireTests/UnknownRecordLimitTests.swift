import Foundation
import GlowBundle
import GlowModel
import Testing

/// Records of unknown types are bounded in bytes as well as in number (BUNDLE-28, issue 27): a
/// small bundle of large unknown records no longer makes a reader hold (or a store write) a
/// gigabyte it cannot show.
@Suite("Unknown records in bytes")
struct UnknownRecordLimitTests {
    /// A `BundleFrame` message of an unknown type (field 9) holding `size` bytes, the first `n`.
    static func record(_ n: UInt8, size: Int) -> [UInt8] {
        var length: [UInt8] = []
        var value = size
        repeat {
            length.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
            value >>= 7
        } while value > 0
        return [0x4A] + length + [n] + [UInt8](repeating: 0, count: size - 1)
    }

    /// Twenty records of a mebibyte each, compressed to little.
    static func bundle() -> [UInt8] {
        var data = DataSet()
        for n in 0..<20 { data.keepUnknownRecord(record(UInt8(n), size: 1 << 20)) }
        return BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch))
    }

    @Test("past 16 MiB by default: limit_exceeded under BUNDLE-28, at the frame that passes it")
    func refusedByDefault() throws {
        let bytes = Self.bundle()
        #expect(bytes.count < 1 << 20, "a small file")
        #expect {
            _ = try BundleReader().dataSet(bytes)
        } throws: { error in
            guard let error = error as? BundleError else { return false }
            // Frames of 1 MiB and 5 bytes follow the manifest: the 16th takes the sum past 16 MiB.
            return error.code == .limitExceeded && error.rule == "BUNDLE-28" && error.offset > 15 << 20
                && error.offset < 16 << 20
        }
    }

    @Test("under a limit that holds them, every record is kept whole")
    func keptUnderTheLimit() throws {
        var limits = BundleLimits.default
        limits.maxUnknownBytes = 32 << 20
        let (data, summary) = try BundleReader(limits: limits).dataSet(Self.bundle())
        #expect(data.otherRecords.count == 20 && summary.counts.other == 20)
        #expect(Set(data.otherRecords) == Set((0..<20).map { Self.record(UInt8($0), size: 1 << 20) }))
    }
}
