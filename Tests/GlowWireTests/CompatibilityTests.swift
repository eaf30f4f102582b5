import Foundation
import GlowBundle
import GlowModel
import Testing

/// Data written before check-ins kept their taps still reads unchanged (issue 12, MODEL-55):
/// `Spec/examples/compat/` keeps the sample person's bundle and JSON data set exactly as the SDK
/// wrote them then. Today's reader takes every check-in of them as its device's contribution, and
/// today's writers write the same bytes back, so an older app and a newer one exchange them freely.
@Suite("Compatibility with data written before taps")
struct CompatibilityTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Spec/examples/compat")

    static func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static func inflated(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        var output: [UInt8] = []
        let consumed = try Inflater().decompress(bytes) { output += $0 }
        #expect(consumed == bytes.count, "the stream ends where the trailer begins")
        return output
    }

    @Test("the old bundle reads, every check-in as one device's contribution, and re-exports byte for byte")
    func bundle() throws {
        let bytes = try Self.file("sample-before-taps.glow")
        let (data, summary) = try BundleReader().dataSet(bytes)
        #expect(summary.counts.checkIns > 4_000)
        for checkIn in data.checkIns {
            let devices = Set(checkIn.taps.map(\.deviceID))
            #expect(devices == [checkIn.deviceID] && checkIn.taps.count == (checkIn.deleted ? 2 : 1))
            #expect(checkIn.isCompact)
        }
        // The frames today's writer makes of the data are the frames the old bundle holds.
        let manifest = summary.manifest
        let options = BundleOptions(
            exporterName: manifest.exporterName, exporterVersion: manifest.exporterVersion,
            createdAt: manifest.createdAt, deviceID: manifest.deviceID)
        let stream = bytes[BundleHeader.size..<(bytes.count - 24)]
        #expect(BundleWriter.frames(data, options: options) == (try Self.inflated(stream)))
    }

    @Test("the old JSON data set reads to the same data and is written back byte for byte")
    func json() throws {
        let text = try Self.inflated(try Self.file("sample-before-taps.json.zlib")[...])
        let data = try GlowJSON.decode(DataSet.self, from: Data(text))
        let (fromBundle, _) = try BundleReader().dataSet(try Self.file("sample-before-taps.glow"))
        #expect(data == fromBundle)
        #expect(Array(try GlowJSON.encode(data)) + [0x0A] == text)  // the file ends with a newline
    }
}
