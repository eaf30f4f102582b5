import Foundation
import GlowBundle
import Testing

/// glow-tool and the independent Python testee (`Tools/conformance/testee.py`) give the same error
/// for every tampered file of the corpus: the envelope's (`bundle.decrypt`) and the bundle's
/// (`bundle.read`), the latter also sealed in an envelope, where the bundle's own sections and
/// offsets still hold (BUNDLE-13). glow-tool is the built binary (`verify --json`); the testee is
/// spoken to over its protocol (CONF-2), so neither side's answer is written down here.
@Suite("glow-tool and the Python testee on tampered files")
struct TamperComparisonTests {
    static let folder = EndToEndTests.root.appendingPathComponent("Spec/corpus/bundle")
    static let python = URL(fileURLWithPath: "/usr/bin/python3")
    static let passphrase = "a passphrase for sealing tampered bundles"

    /// An invalid case of the corpus that names a file, and its input.
    struct TamperCase {
        let reference: String
        let operation: String
        let input: [String: Any]
        var file: String { input["file"] as? String ?? "" }
    }

    /// The invalid cases of `operation` that name a file and set no limits and no memory budget
    /// (glow-tool reads with the default limits and the cap's memory), from every file of the
    /// bundle area.
    static func cases(_ operation: String) throws -> [TamperCase] {
        var found: [TamperCase] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        for name in names.sorted() {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            guard document["operation"] as? String == operation else { continue }
            for entry in try #require(document["cases"] as? [[String: Any]]) {
                guard entry["result"] as? String == "invalid", let input = entry["input"] as? [String: Any],
                    input["file"] is String, input["limits"] == nil, input["memoryBudgetKiB"] == nil
                else { continue }
                found.append(
                    TamperCase(reference: "bundle/\(entry["id"] as? String ?? "?")", operation: operation, input: input)
                )
            }
        }
        return found
    }

    /// The testee's answers to `cases`, in order, in one run of it (CONF-1 ... CONF-4).
    static func testeeAnswers(_ cases: [TamperCase]) throws -> [[String: Any]] {
        var frames = Data()
        for testCase in cases {
            var input = testCase.input
            input["fileBase64"] = try Data(contentsOf: folder.appendingPathComponent(testCase.file))
                .base64EncodedString()
            let request: [String: Any] = [
                "id": testCase.reference, "area": "bundle", "operation": testCase.operation, "input": input,
            ]
            let body = try JSONSerialization.data(withJSONObject: request)
            withUnsafeBytes(of: UInt32(body.count).littleEndian) { frames.append(contentsOf: $0) }
            frames.append(body)
        }
        let run = try EndToEndTests.run(
            executable: python, ["Tools/conformance/testee.py"], stdin: frames)
        #expect(run.status == 0, "\(run.stderr)")
        var answers: [[String: Any]] = []
        var bytes = [UInt8](run.output)[...]
        while bytes.count >= 4 {
            let length = bytes.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
            let body = Data(bytes.dropFirst(4).prefix(length))
            answers.append(try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any]))
            bytes = bytes.dropFirst(4 + length)
        }
        try #require(answers.count == cases.count, "the testee answered \(answers.count) of \(cases.count)")
        return answers
    }

    /// glow-tool's `verify --json` error for the file at `path`, the secret (if any) given on
    /// descriptor 0; nil when it found none.
    static func toolError(_ path: String, secret: String?) throws -> [String: Any]? {
        let run = try EndToEndTests.run(
            ["verify", path, "--json"] + (secret == nil ? [] : ["--passphrase-fd", "0"]),
            stdin: Data(((secret ?? "") + "\n").utf8))
        let object = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        let report = try #require(object, "\(path): no JSON on standard output: \(run.stderr)")
        guard report["ok"] as? Bool == false else { return nil }
        #expect(run.status == 1, "\(path)")
        return report["error"] as? [String: Any]
    }

    /// How a program that reads both kinds of file takes these bytes (BUNDLE-29): by their first four
    /// bytes, which tell the two signatures apart; fewer say nothing of the kind.
    enum Kind { case encrypted, plain, either }

    static func kind(of bytes: [UInt8]) -> Kind {
        guard bytes.count >= 4 else { return .either }
        return bytes.starts(with: BundleEnvelope.magic.prefix(4)) ? .encrypted : .plain
    }

    /// The members both give, compared: the code always, the section and offset where the kind of
    /// the file is known from its bytes.
    static func compare(_ tool: [String: Any]?, _ answer: [String: Any], kind: Kind, _ label: String) {
        guard let expected = answer["error"] as? [String: Any] else {
            Issue.record("\(label): the testee gave no error: \(answer)")
            return
        }
        guard let tool else {
            Issue.record("\(label): glow-tool found nothing wrong; the testee says \(expected["code"] ?? "?")")
            return
        }
        #expect(tool["code"] as? String == expected["code"] as? String, "\(label): \(tool) against \(expected)")
        guard kind != .either else { return }
        #expect(tool["section"] as? String == expected["section"] as? String, "\(label): \(tool) against \(expected)")
        #expect(tool["offset"] as? Int == expected["offset"] as? Int, "\(label): \(tool) against \(expected)")
    }

    @Test(
        "every tampered encrypted bundle gets the testee's code, section and offset from glow-tool",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func envelopeSet() throws {
        let cases = try Self.cases("bundle.decrypt")
        #expect(cases.count >= 40)
        let answers = try Self.testeeAnswers(cases)
        var compared = 0
        for (testCase, answer) in zip(cases, answers) {
            let path = Self.folder.appendingPathComponent(testCase.file).path
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let kind = Self.kind(of: bytes)
            // glow-tool reads a plain bundle as one (it tells the kinds apart by the signature), so
            // a plain bundle handed to bundle.decrypt has no counterpart in it.
            guard kind != .plain else { continue }
            let secret = testCase.input["passphrase"] as? String ?? testCase.input["recoveryKey"] as? String
            Self.compare(try Self.toolError(path, secret: secret), answer, kind: kind, testCase.reference)
            compared += 1
        }
        #expect(compared >= cases.count - 1, "compared \(compared) of \(cases.count)")
    }

    @Test(
        "every tampered bundle gets the testee's code, section and offset from glow-tool, plain and sealed",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func bundleSet() throws {
        // An encrypted file handed to bundle.read is one glow-tool opens as such (BUNDLE-29).
        let cases = try Self.cases("bundle.read").filter { testCase in
            Self.kind(of: [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(testCase.file))))
                != .encrypted
        }
        #expect(cases.count >= 30)
        let answers = try Self.testeeAnswers(cases)
        let sealedFolder = EndToEndTests.temporary("sealed")
        try FileManager.default.createDirectory(atPath: sealedFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: sealedFolder) }
        let small = EnvelopeKDF(memoryKiB: 64, iterations: 1, parallelism: 1)
        for (index, (testCase, answer)) in zip(cases, answers).enumerated() {
            let path = Self.folder.appendingPathComponent(testCase.file).path
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            Self.compare(try Self.toolError(path, secret: nil), answer, kind: .plain, testCase.reference)
            // Sealed, the bundle's errors keep the bundle's sections and offsets (BUNDLE-13).
            let sealed = "\(sealedFolder)/\(index).glow"
            try Data(try EnvelopeSealer.seal(bytes, passphrase: Self.passphrase, kdf: small))
                .write(to: URL(fileURLWithPath: sealed))
            Self.compare(
                try Self.toolError(sealed, secret: Self.passphrase), answer, kind: .plain,
                "\(testCase.reference), sealed")
        }
    }
}
