import Foundation
import Testing

/// Every tool of the repository answers `--help` and refuses arguments it does not know, before
/// it writes anything (issue 26: `glow-sample --help` once made a folder named `--help`, and a
/// corpus generator rewrote its files when asked for help).
@Suite("Tools' arguments")
struct ToolArgumentsTests {
    /// The corpus generators: every script of Tools/corpus that writes files.
    static let generators: [String] = {
        let folder = EndToEndTests.root.appendingPathComponent("Tools/corpus")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { name in
            guard name.hasSuffix(".py"),
                let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            else { return false }
            return text.hasPrefix("#!/usr/bin/env python3\n\"\"\"Writes")
                || text.hasPrefix("#!/usr/bin/env python3\n\"\"\"Splits")
        }.sorted()
    }()

    /// The Python tools that take an optional folder or nothing.
    static let pythonTools = [
        "Tools/conformance/testee.py", "Tools/conformance/protobuf_reencode.py",
        "Tools/conformance/check_characters.py", "FuzzTesting/seeds.py",
    ]

    /// Each file under Spec/ and its bytes.
    static func spec() throws -> [String: Data] {
        let base = EndToEndTests.root.appendingPathComponent("Spec")
        var files: [String: Data] = [:]
        let walker = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
        for case let url as URL in walker where !url.hasDirectoryPath {
            files[url.path] = try Data(contentsOf: url)
        }
        return files
    }

    static func python(_ arguments: [String]) throws -> EndToEndTests.Run {
        try EndToEndTests.run(executable: URL(fileURLWithPath: "/usr/bin/python3"), arguments)
    }

    @Test("the generators are found: there are a score of them")
    func generatorsFound() {
        #expect(Self.generators.count >= 20 && Self.generators.contains("open_enums.py"))
    }

    @Test(
        "every Python tool answers --help with exit 0 and refuses an unknown option with 64, writing nothing",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func pythonTools() throws {
        let before = try Self.spec()
        for script in Self.generators.map({ "Tools/corpus/" + $0 }) + Self.pythonTools {
            let help = try Self.python([script, "--help"])
            #expect(help.status == 0 && help.stdout.contains("Usage"), "\(script) --help: \(help.stderr)")
            let unknown = try Self.python([script, "--bogus"])
            #expect(unknown.status == 64 && unknown.stderr.contains("-h for help"), "\(script) --bogus")
        }
        #expect(try Self.spec() == before, "no file under Spec/ changed")
        #expect(!FileManager.default.fileExists(atPath: EndToEndTests.root.appendingPathComponent("--help").path))
    }

    @Test("glow-sample: --help and -h print help; an unknown option or a second argument is refused; nothing is made")
    func sample() throws {
        let folder = EndToEndTests.temporary("sample")
        for help in ["--help", "-h"] {
            let run = try EndToEndTests.run(tool: "glow-sample", [help])
            #expect(run.status == 0 && run.stdout.contains("USAGE: glow-sample"))
        }
        for bad in [["--bogus"], [folder, "extra"]] {
            let run = try EndToEndTests.run(tool: "glow-sample", bad)
            #expect(run.status == 64 && run.stderr.contains("glow-sample --help"), "\(bad)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(!FileManager.default.fileExists(atPath: EndToEndTests.root.appendingPathComponent("--bogus").path))
        let made = try EndToEndTests.run(tool: "glow-sample", [folder])
        #expect(made.status == 0)
        let sample = try Data(contentsOf: EndToEndTests.root.appendingPathComponent("Spec/examples/sample.glow"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("sample.glow")) == sample)
    }

    @Test("FuzzTesting/run.sh answers --help and refuses an unknown target before it builds anything")
    func fuzzRunner() throws {
        for (arguments, status) in [(["--help"], Int32(0)), (["-h"], 0), (["no-such-target"], 64)] {
            let run = try EndToEndTests.run(
                executable: URL(fileURLWithPath: "/bin/bash"), ["FuzzTesting/run.sh"] + arguments)
            let printed = run.stdout + run.stderr
            #expect(run.status == status && printed.contains("usage: run.sh"), "\(arguments)")
        }
    }

    @Test("glow-crash-child answers --help and refuses what is not DATABASE SEED")
    func crashChild() throws {
        let help = try EndToEndTests.run(tool: "glow-crash-child", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("usage: glow-crash-child"))
        let missing = try EndToEndTests.run(tool: "glow-crash-child", ["only-a-path"])
        #expect(missing.status == 64)
        let option = try EndToEndTests.run(tool: "glow-crash-child", ["--db", "7"])
        #expect(option.status == 64)
    }

    @Test("glow-share-child answers --help and refuses what is not app|server DATABASE NAME COUNT")
    func shareChild() throws {
        let help = try EndToEndTests.run(tool: "glow-share-child", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("usage: glow-share-child"))
        for arguments in [
            ["app", "only-a-path"], ["relay", "db", "a", "3"], ["app", "db", "a", "-1"], ["--db", "7"],
        ] {
            let refused = try EndToEndTests.run(tool: "glow-share-child", arguments)
            #expect(refused.status == 64 && refused.stderr.contains("usage: glow-share-child"), "\(arguments)")
        }
    }
}

/// Standard output that cannot take what glow-tool prints (a full device) is a failure with a
/// message and exit code 1, never a crash or a silent success (issue 27's first rows).
@Suite("Lost standard output")
struct LostOutputTests {
    static let commands: [[String]] = [
        ["stats", "Spec/examples/sample.glow", "--day", "2026-11-28"],
        ["inspect", "Spec/examples/sample.glow"],
        ["themes", "tokens"],
        ["convert", "Spec/examples/sample.glow", "--to", "json", "-"],
        ["export", "Spec/examples/sample.json", "-o", "-"],
    ]

    @Test("to /dev/full: exit 1 and a sentence on standard error", arguments: commands)
    func full(_ arguments: [String]) throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let run = try EndToEndTests.run(
            executable: EndToEndTests.products.appendingPathComponent("glow-tool"), arguments, stdout: full)
        #expect(run.status == 1, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("cannot write standard output"), "\(arguments): \(run.stderr)")
    }
}
