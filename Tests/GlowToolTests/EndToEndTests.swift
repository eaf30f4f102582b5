import Foundation
import Testing

/// Runs the built `glow-tool` and checks what a person sees: standard output, standard error and
/// the exit code.
@Suite("glow-tool end to end")
struct EndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sample = root.appendingPathComponent("Spec/examples/sample.glow").path

    /// The directory of the built products: beside the test bundle.
    static let products: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("glow-tool").path) { return url }
        }
        return root.appendingPathComponent(".build/debug")
    }()

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        let output: Data
    }

    static func run(_ arguments: [String], stdin: Data = Data()) throws -> Run {
        try run(tool: "glow-tool", arguments, stdin: stdin)
    }

    /// Runs glow-tool from `folder`.
    static func run(_ arguments: [String], in folder: String) throws -> Run {
        try run(executable: products.appendingPathComponent("glow-tool"), arguments, in: URL(fileURLWithPath: folder))
    }

    static func run(tool: String, _ arguments: [String], stdin: Data = Data()) throws -> Run {
        try run(executable: products.appendingPathComponent(tool), arguments, stdin: stdin)
    }

    /// Runs any program from `folder` (the repository's root by default); its standard output
    /// goes to `stdout` when given (a device, say), else into ``Run/stdout``.
    static func run(
        executable: URL, _ arguments: [String], stdin: Data = Data(), stdout: FileHandle? = nil, in folder: URL = root
    ) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = stdout ?? output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        if stdout != nil { try output.fileHandleForWriting.close() }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self), output: out)
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("glow-tool-\(UUID().uuidString)-\(name)").path
    }

    @Test("--version and --help")
    func versionAndHelp() throws {
        let version = try Self.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("glow-tool 0.1.0"))
        let help = try Self.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS:") && help.stdout.contains("decode-raw"))
        let sub = try Self.run(["verify", "--help"])
        #expect(sub.status == 0 && sub.stdout.contains("USAGE: glow-tool verify <bundle>"))
    }

    @Test("bad usage exits 64 with the usage on standard error")
    func usage() throws {
        let run = try Self.run(["inspect"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("glow-tool: error: missing BUNDLE"))
        #expect(run.stderr.contains("Usage: glow-tool inspect <bundle>"))
        #expect(try Self.run(["nonsense"]).status == 64)
        #expect(try Self.run(["convert", Self.sample, "out.xml"]).status == 64)
    }

    @Test("inspect shows header, manifest, counts and sizes, as text and JSON")
    func inspect() throws {
        let text = try Self.run(["inspect", Self.sample])
        #expect(text.status == 0)
        #expect(text.stdout.contains("format        1.0"))
        #expect(text.stdout.contains("15 goals"))
        #expect(text.stdout.contains("per check-in"))
        let json = try Self.run(["inspect", "--json", Self.sample])
        let object = try JSONSerialization.jsonObject(with: json.output) as? [String: Any]
        #expect((object?["counts"] as? [String: Any])?["goals"] as? Int == 15)
        #expect(object?["version"] as? String == "1.0")
    }

    @Test("verify: 0 for a good bundle, 1 naming the code and place for a damaged one")
    func verify() throws {
        #expect(try Self.run(["verify", Self.sample]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.sample))
        bytes.removeLast(3)
        let damaged = try Self.run(["verify", "-"], stdin: bytes)
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("truncated in the trailer"))
        let json = try Self.run(["verify", "--json", "-"], stdin: bytes)
        #expect(json.status == 1 && json.stdout.contains("\"code\" : \"truncated\""))
        let text = try Self.run(["verify", "-"], stdin: Data("{\"goals\": []}".utf8))
        #expect(text.status == 1 && text.stderr.contains("looks like JSON"))
    }

    @Test("convert to JSON and back gives the same data; export and merge agree")
    func convertExportMerge() throws {
        let json = Self.temporary("sample.json")
        let bundle = Self.temporary("again.glow")
        defer { [json, bundle].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        #expect(try Self.run(["convert", Self.sample, json]).status == 0)
        #expect(try Self.run(["export", json, "-o", bundle, "--created-at", "2026-11-28T21:30:00Z"]).status == 0)
        let original = try Self.run(["convert", Self.sample, "-", "--to", "json"])
        let again = try Self.run(["convert", bundle, "-", "--to", "json"])
        #expect(original.status == 0 && original.output == again.output)
        let merged = try Self.run(["merge", Self.sample, json, bundle, "-o", "-", "--to", "json"])
        #expect(merged.status == 0 && merged.output == original.output, "merging copies of the same data is idempotent")
        let stdinExport = try Self.run(["export", "-", "-o", "-"], stdin: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(stdinExport.status == 0 && stdinExport.output.prefix(4) == Data([0x89, 0x47, 0x4C, 0x57]))
    }

    @Test("a failed write leaves no partial file behind")
    func atomicWrites() throws {
        let target = Self.temporary("never.glow")
        let run = try Self.run(["export", "-", "-o", target], stdin: Data("{\"goals\": [{}]}".utf8))
        #expect(run.status == 1)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("decode-raw prints a field tree like protoc --decode_raw")
    func decodeRaw() throws {
        let run = try Self.run(["decode-raw", "--hex", "-"], stdin: Data("08 96 01 12 03 61 62 63 1a 02 08 01".utf8))
        #expect(run.status == 0)
        #expect(run.stdout == "1: 150\n2: \"abc\"\n3 {\n  1: 1\n}\n")
        let bad = try Self.run(["decode-raw", "--hex", "-"], stdin: Data("08".utf8))
        #expect(bad.status == 1 && bad.stderr.contains("truncated"))
    }

    @Test("stats shows Today, streaks and consistency per goal")
    func stats() throws {
        let text = try Self.run(["stats", Self.sample, "--day", "2026-11-28"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("\u{2068}Mia\u{2069} · 14 goals · 2026-11-28 (Europe/London)"))
        #expect(text.stdout.contains("Meditate for 10 minutes"))
        let json = try Self.run(["stats", Self.sample, "--day", "2026-11-28", "--json"])
        let object = try JSONSerialization.jsonObject(with: json.output) as? [String: Any]
        let goals = object?["goals"] as? [[String: Any]] ?? []
        #expect(goals.count == 14)
        #expect(goals.first?["currentStreak"] as? Int == 82)
        #expect(try Self.run(["stats", Self.sample, "--day", "2026-02-30"]).status == 64)
    }

    /// The committed sample is what the generator writes, byte for byte. Re-record with
    /// `swift run glow-sample` (an explicit step, never done by a test).
    @Test("the sample files match their generator")
    func golden() throws {
        let directory = Self.temporary("sample")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try Self.run(tool: "glow-sample", [directory])
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["sample.glow", "sample.json"] {
            let fresh = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
            let committed = try Data(contentsOf: Self.root.appendingPathComponent("Spec/examples/\(name)"))
            // Compared as one Bool: a failed comparison of two large byte strings would make the
            // test library compute their difference, which takes minutes.
            let same = fresh == committed
            #expect(
                same,
                "\(name) is stale (\(fresh.count) bytes, committed \(committed.count)): run `swift run glow-sample`")
        }
    }
}

@Suite("glow-tool themes")
struct ThemeCommandTests {
    @Test("themes audit passes for every theme and prints each pair")
    func audit() throws {
        let run = try EndToEndTests.run(["themes", "audit"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("default / light: all 27 pairs pass"))
        #expect(run.stdout.contains("black-and-white / dark: all 27 pairs pass"))
        let json = try EndToEndTests.run(["themes", "audit", "--theme", "ocean", "--mode=dark", "--json"])
        let rows = try JSONSerialization.jsonObject(with: json.output) as? [[String: Any]]
        #expect(rows?.count == 27 && rows?.allSatisfy { $0["passed"] as? Bool == true } == true)
    }

    @Test("themes tokens prints DTCG JSON; unknown themes and modes are usage errors")
    func tokens() throws {
        let run = try EndToEndTests.run(["themes", "tokens", "--theme", "sunset", "--mode", "light"])
        #expect(run.status == 0)
        let object = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        let color = (object?["glow"] as? [String: Any])?["color"] as? [String: Any]
        #expect(color?["sunset"] != nil && color?["default"] == nil)
        #expect(try EndToEndTests.run(["themes", "tokens", "--theme", "neon"]).status == 64)
        #expect(try EndToEndTests.run(["themes", "audit", "--mode", "dim"]).status == 64)
        #expect(try EndToEndTests.run(["themes", "paint"]).status == 64)
    }
}

@Suite("glow-tool conformance")
struct ConformanceCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/misbehaving_testee.py").path
    static var tool: String { EndToEndTests.products.appendingPathComponent("glow-tool").path }

    @Test("the SDK's own testee passes every case of every area")
    func ownTestee() throws {
        let junit = EndToEndTests.temporary("junit.xml")
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let run = try EndToEndTests.run(["conformance", "--testee", "\(Self.tool) testee", "--junit", junit])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("0 unexpected failures, 0 listed cases now passing"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        let streaks = try Self.corpusCount(area: "streaks")
        #expect(
            xml.contains(
                "<testsuite name=\"streaks\" tests=\"\(streaks.required + streaks.recommended)\" failures=\"0\""))
        #expect(!xml.contains("<failure"))
    }

    /// Debian's Python, which has `python3-protobuf` (what `.ci/run` installs).
    static let python = "/usr/bin/python3"

    @Test("the Python testee passes every area, with its reviewed failure list")
    func pythonTestee() throws {
        let run = try EndToEndTests.run([
            "conformance", "--testee", "\(Self.python) Tools/conformance/testee.py", "--failure-list",
            "Tools/conformance/python-failures.txt",
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let model = try Self.corpusCount(area: "model", excluding: "catalogue-")
        #expect(Self.summary(run.stdout, area: "model", level: "Required") == [model.required, 0, 0, 0])
        for area in ["streaks", "wire", "bundle"] {
            let count = try Self.corpusCount(area: area)
            #expect(Self.summary(run.stdout, area: area, level: "Required") == [count.required, 0, 0, 0], "\(area)")
        }
    }

    @Test("the runner reports a wrong answer, a crash, a hang and a malformed response, and goes on")
    func misbehaving() throws {
        let junit = EndToEndTests.temporary("junit.xml")
        defer { try? FileManager.default.removeItem(atPath: junit) }
        let run = try EndToEndTests.run([
            "conformance", "--testee", "\(Self.python) \(Self.fixture)", "--area", "model", "--timeout", "1", "--junit",
            junit,
        ])
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAIL model/day-parse-001 (Required) failed: canonical: expected"))
        #expect(run.stdout.contains("FAIL model/day-parse-002 (Required) crash: the testee exited (status 3)"))
        #expect(run.stdout.contains("FAIL model/day-parse-003 (Required) timeout"))
        #expect(run.stdout.contains("FAIL model/day-parse-004 (Required) malformed_response"))
        #expect(run.stdout.contains("FAIL model/day-parse-005 (Required) failed: the response is neither"))
        // After each of those the testee was restarted: every other case still got its answer.
        let model = try Self.corpusCount(area: "model")
        #expect(Self.summary(run.stdout, area: "model", level: "Required") == [0, 5, model.required - 5, 0])
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<failure type=\"crash\""))
        #expect(xml.contains("<failure type=\"timeout\""))
    }

    /// The number of Required and Recommended cases of an area's corpus, leaving out the cases
    /// whose id starts with `excluding`.
    static func corpusCount(area: String, excluding: String? = nil) throws -> (required: Int, recommended: Int) {
        let folder = EndToEndTests.root.appendingPathComponent("Spec/corpus/\(area)")
        var counts = (required: 0, recommended: 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let file = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            for case let entry as [String: Any] in file["cases"] as! [Any] {
                if let excluding, (entry["id"] as! String).hasPrefix(excluding) { continue }
                if (entry["flags"] as? [String] ?? []).contains("Recommended") {
                    counts.recommended += 1
                } else {
                    counts.required += 1
                }
            }
        }
        return counts
    }

    /// The numbers (passed, failed, skipped, expected failures) of one line of the runner's
    /// summary table.
    static func summary(_ output: String, area: String, level: String) -> [Int]? {
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 6, words[0] == area, words[1] == level {
                return words.dropFirst(2).compactMap { Int($0) }
            }
        }
        return nil
    }

    @Test("a listed case that now passes fails the run, so the list stays true")
    func staleList() throws {
        let list = EndToEndTests.temporary("failures.txt")
        defer { try? FileManager.default.removeItem(atPath: list) }
        try "# stale\nmodel/day-parse-001\n".write(toFile: list, atomically: true, encoding: .utf8)
        let run = try EndToEndTests.run([
            "conformance", "--testee", "\(Self.tool) testee", "--area", "model", "--failure-list", list,
        ])
        #expect(run.status == 1)
        #expect(run.stdout.contains("NOW PASSING model/day-parse-001: remove it from the failure list"))
    }

    @Test("usage mistakes exit 64")
    func usage() throws {
        #expect(try EndToEndTests.run(["conformance"]).status == 64)
        #expect(try EndToEndTests.run(["conformance", "--testee", "x", "--area", "nowhere"]).status == 64)
        #expect(try EndToEndTests.run(["conformance", "--testee", "x", "--timeout", "-1"]).status == 64)
    }
}

@Suite("glow-tool auth verify-token")
struct VerifyTokenTests {
    /// The corpus's valid Apple token (idtoken-003), its key set and nonce, written to files.
    static func fixture() throws -> (token: String, keys: String, nonce: String, now: String) {
        let url = EndToEndTests.root.appendingPathComponent("Spec/corpus/auth/id_token.json")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let cases = document["cases"] as! [[String: Any]]
        let input = cases.first { $0["id"] as? String == "idtoken-003" }!["input"] as! [String: Any]
        let token = EndToEndTests.temporary("apple.jwt")
        let keys = EndToEndTests.temporary("apple-keys.json")
        try (input["token"] as! String).write(toFile: token, atomically: true, encoding: .utf8)
        try JSONSerialization.data(withJSONObject: input["keySet"]!).write(to: URL(fileURLWithPath: keys))
        return (token, keys, input["nonce"] as! String, "\(input["now"] as! Int)")
    }

    @Test("a valid token prints the verdict and the identity, never the token or the nonce")
    func valid() throws {
        let (token, keys, nonce, now) = try Self.fixture()
        let arguments = [
            "auth", "verify-token", token, "--keys", keys, "--audience", "app.glowritual.ios", "--provider", "apple",
            "--nonce", nonce, "--at", now,
        ]
        let run = try EndToEndTests.run(arguments)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("valid\n"))
        #expect(run.stdout.contains("001234.abcdef0123456789.0042"))
        #expect(run.stdout.contains("ana@example.com (verified)"))
        let text = try String(contentsOfFile: token, encoding: .utf8)
        for secret in [nonce] + text.split(separator: ".").map(String.init) { #expect(!run.stdout.contains(secret)) }
        let json = try EndToEndTests.run(arguments + ["--json"])
        let verdict = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(verdict["valid"] as? Bool == true)
        #expect(verdict["linkByEmail"] as? Bool == true)
    }

    @Test(
        "a token that breaks a rule exits 1 with the rule's code",
        arguments: [
            (["--nonce", "another"], "nonce_mismatch"), (["--audience", "com.example.other"], "wrong_audience"),
            (["--at", "1900000000"], "token_expired"), (["--provider", "google"], "wrong_issuer"),
        ])
    func invalid(changes: [String], code: String) throws {
        let (token, keys, nonce, now) = try Self.fixture()
        var options = [
            "--keys": keys, "--audience": "app.glowritual.ios", "--provider": "apple", "--nonce": nonce, "--at": now,
        ]
        options[changes[0]] = changes[1]
        let run = try EndToEndTests.run(
            ["auth", "verify-token", token, "--json"]
                + options.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
        #expect(run.status == 1)
        let verdict = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        #expect(verdict["valid"] as? Bool == false)
        #expect(verdict["error"] as? String == code)
    }

    @Test("missing keys, audience or issuer, and unknown providers, are usage errors")
    func usage() throws {
        let (token, keys, _, _) = try Self.fixture()
        for arguments in [
            ["auth", "verify-token", token, "--audience", "a", "--provider", "apple"],
            ["auth", "verify-token", token, "--keys", keys, "--provider", "apple"],
            ["auth", "verify-token", token, "--keys", keys, "--audience", "a"],
            ["auth", "verify-token", token, "--keys", keys, "--audience", "a", "--provider", "facebook"],
            [
                "auth", "verify-token", token, "--keys", keys, "--audience", "a", "--issuer", "x", "--algorithms",
                "HS256",
            ],
            ["auth", "sign-token"],
        ] {
            #expect(try EndToEndTests.run(arguments).status == 64, "\(arguments)")
        }
    }
}
