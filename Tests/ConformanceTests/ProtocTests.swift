import Foundation
import GlowConformance
import GlowFeed
import GlowWire
import Testing

/// Proof that standard Protocol Buffers tools read and write our records (issue: compatibility):
/// `protoc --decode` prints every golden vector as the corpus expects, and what `protoc
/// --encode` writes from that text decodes in Swift to the same canonical bytes.
///
/// Without `protoc` these tests are skipped, unless `GLOW_REQUIRE_PROTOC=1` (CI) makes a
/// missing `protoc` a failure.
@Suite("protoc compatibility")
struct ProtocTests {
    struct Vector: Sendable, CustomStringConvertible {
        let id: String
        let message: String
        let hex: String
        let text: String
        var description: String { id }
    }

    static let protoc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/protoc" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    static let required = ProcessInfo.processInfo.environment["GLOW_REQUIRE_PROTOC"] == "1"

    /// The records' golden vectors, and the feed's messages (FEED-28), whose bytes are in their
    /// `protoc` member.
    static let vectors: [Vector] = [
        "corpus/wire/canonical.json", "corpus/wire/reminder_settings.json", "corpus/feed/wire.json",
    ].flatMap { path in
        let url = Repository.spec.appendingPathComponent(path)
        guard let data = try? Data(contentsOf: url), let document = try? JSONValue.parse(data) else {
            return [Vector]()
        }
        return (document["cases"]?.array ?? []).compactMap { item in
            guard let id = item["id"]?.string,
                let hex = item["protoc"]?["hex"]?.string ?? item["input"]?["hex"]?.string,
                let message = item["protoc"]?["message"]?.string, let text = item["protoc"]?["text"]?.string
            else { return nil }
            return Vector(id: id, message: message, hex: hex, text: text)
        }
    }

    static func run(_ arguments: [String], input: Data) throws -> (status: Int32, output: Data, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: protoc!)
        process.arguments = arguments
        process.currentDirectoryURL = Repository.spec
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, error)
    }

    @Test("protoc is installed where it is required")
    func available() {
        if Self.required {
            #expect(Self.protoc != nil, "GLOW_REQUIRE_PROTOC=1 but protoc is not on the PATH")
        }
        #expect(Self.vectors.count >= 40, "the golden vectors carry protoc text")
        #expect(Self.vectors.contains { $0.message == "glow.v1.FeedDelta" }, "the feed's messages are among them")
    }

    @Test("protoc --decode prints each golden vector", .enabled(if: protoc != nil), arguments: vectors)
    func decode(_ vector: Vector) throws {
        let bytes = try WireOperations.bytes(hex: vector.hex)
        let result = try Self.run(["--decode=\(vector.message)", "glow.proto"], input: Data(bytes))
        #expect(result.status == 0, "\(result.error)")
        #expect(String(decoding: result.output, as: UTF8.self) == vector.text)
    }

    @Test("what protoc --encode writes decodes in Swift", .enabled(if: protoc != nil), arguments: vectors)
    func encode(_ vector: Vector) throws {
        let result = try Self.run(["--encode=\(vector.message)", "glow.proto"], input: Data(vector.text.utf8))
        #expect(result.status == 0, "\(result.error)")
        let name = String(vector.message.dropFirst("glow.v1.".count))
        if name == "FeedDelta" {
            let decoded = try FeedReplica(wire: Array(result.output))
            #expect(WireOperations.hex(decoded.wireEncoded()) == vector.hex)
            return
        }
        let codec = try #require(WireOperations.codecs[name])
        let decoded = try codec.decode(Array(result.output), .default)
        #expect(WireOperations.hex(decoded.bytes) == vector.hex)
    }
}
