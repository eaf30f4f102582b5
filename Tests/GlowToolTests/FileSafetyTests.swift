import Foundation
import Testing

/// Files are never lost and every input mistake gets a sentence (issue 11): outputs replace their
/// target whole or not at all, writing onto the input works, temporary files of killed runs are
/// cleaned up, and directories, devices, missing files and testees that cannot start are named.
@Suite("glow-tool files and inputs")
struct FileSafetyTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("glow-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("convert onto its own input replaces it with the converted data")
    func outputIsInput() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("person.json").path
        #expect(try EndToEndTests.run(["convert", EndToEndTests.sample, path]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let run = try EndToEndTests.run(["convert", path, path, "--to", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the same data, written again")
        let bundle = try EndToEndTests.run(["convert", path, path, "--to", "bundle"])
        #expect(bundle.status == 0)
        #expect(try EndToEndTests.run(["verify", path]).status == 0, "the input became a valid bundle")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["person.json"])
    }

    @Test("an existing output is replaced whole, keeping its permissions")
    func existingOutput() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(try EndToEndTests.run(["convert", EndToEndTests.sample, path]).status == 0)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("{") && text.contains("\"goals\""))
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o640)
    }

    @Test("a failed run leaves an existing output exactly as it was")
    func failedRunKeepsOutput() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("keep.glow").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        let run = try EndToEndTests.run(["export", "-", "-o", path], stdin: Data("{\"goals\": [{}]}".utf8))
        #expect(run.status == 1)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["keep.glow"])
    }

    @Test("a folder that cannot be written to is an error, and nothing is left behind")
    func unwritableFolder() throws {
        // /proc/self refuses new files even to root; elsewhere a folder without write permission.
        var target = "/proc/self/glow-out.json"
        var folder: URL? = nil
        if !FileManager.default.fileExists(atPath: "/proc/self") {
            folder = try Self.folder()
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: folder!.path)
            target = folder!.appendingPathComponent("out.json").path
        }
        defer {
            if let folder {
                try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
                try? FileManager.default.removeItem(at: folder)
            }
        }
        let run = try EndToEndTests.run(["convert", EndToEndTests.sample, target])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot write '\(target)'"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("temporary files of a killed run are removed by the next run; live ones are not")
    func staleTemporaries() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A process id that cannot exist (above the kernel's limit), and this test's own, alive.
        let stale = folder.appendingPathComponent(".out.json.glow-tool-99999999-7.tmp").path
        let live = folder.appendingPathComponent(".out.json.glow-tool-\(getpid())-7.tmp").path
        for path in [stale, live] { try Data("partial".utf8).write(to: URL(fileURLWithPath: path)) }
        let output = folder.appendingPathComponent("out.json").path
        #expect(try EndToEndTests.run(["convert", EndToEndTests.sample, output]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    @Test("a device as output is written in place, never replaced")
    func deviceOutput() throws {
        let run = try EndToEndTests.run(["convert", EndToEndTests.sample, "/dev/null", "--to", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(attributes[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    @Test(
        "inputs that are not files get a sentence and exit 1",
        arguments: [
            (["inspect", "/tmp"], "it is a directory"), (["verify", "/tmp"], "it is a directory"),
            (["stats", "/tmp"], "it is a directory"), (["convert", "/tmp", "x.json"], "it is a directory"),
            (["inspect", "/nonexistent/b.glow"], "No such file or directory"),
            (["verify", "/dev/null"], "the file is empty"),
            (["stats", "/dev/null"], "is empty"), (["convert", "/dev/null", "x.json"], "is empty"),
            (["export", "/dev/null", "-o", "x.glow"], "is empty"),
            (["merge", "/dev/null", "-o", "x.glow"], "is empty"),
        ])
    func notFiles(arguments: [String], message: String) throws {
        let run = try EndToEndTests.run(arguments)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("glow-tool: error: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line, no stack trace: \(run.stderr)")
    }

    @Test("a testee that cannot start is named, not reported as a table of failures")
    func testeeCannotStart() throws {
        let run = try EndToEndTests.run(["conformance", "--testee", "/nonexistent/testee", "--area", "themes"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot start the testee '/nonexistent/testee': the command was not found"))
        #expect(run.stdout.isEmpty)
    }

    @Test("hex text is strict: signs and stray characters are refused with their offset")
    func strictHex() throws {
        for (text, offset) in [("+8+1", 0), ("08 0g", 4), ("0x08", 1)] {
            let run = try EndToEndTests.run(["decode-raw", "--hex", "-"], stdin: Data(text.utf8))
            #expect(run.status == 1)
            #expect(run.stderr.contains("not a hex digit at offset \(offset)"), "\(text): \(run.stderr)")
        }
        let odd = try EndToEndTests.run(["decode-raw", "--hex", "-"], stdin: Data("080".utf8))
        #expect(odd.status == 1 && odd.stderr.contains("odd number of digits"))
    }
}

@Suite("glow-tool verify on damaged files")
struct DamagedFileTests {
    @Test("every damaged file exits 1 with one line naming the code, never a signal")
    func damaged() throws {
        let sample = try Data(contentsOf: URL(fileURLWithPath: EndToEndTests.sample))
        let folder = try FileSafetyTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var damaged: [Data] = [
            Data(), sample.prefix(5), sample.prefix(24), sample.prefix(sample.count / 2), sample.dropLast(),
        ]
        for offset in [0, 9, 23, 24, 30, 500, sample.count / 2, sample.count - 30, sample.count - 1] {
            var copy = sample
            copy[offset] ^= 0xFF
            damaged.append(copy)
        }
        damaged.append(sample + Data([0]))
        for (index, bytes) in damaged.enumerated() {
            let path = folder.appendingPathComponent("damaged-\(index).glow").path
            try bytes.write(to: URL(fileURLWithPath: path))
            let run = try EndToEndTests.run(["verify", path])
            #expect(run.status == 1, "damaged-\(index): \(run.status)")
            #expect(run.stderr.hasPrefix("glow-tool: error: \(path): ") && run.stderr.split(separator: "\n").count == 1)
        }
    }
}

@Suite("glow-tool and unknown time zones")
struct UnknownZoneTests {
    @Test("a profile whose zone this system does not know: stats computes in UTC and says so")
    func unknownProfileZone() throws {
        let converted = try EndToEndTests.run(["convert", EndToEndTests.sample, "-", "--to", "json"])
        var text = String(decoding: converted.output, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"Europe/London\"", with: "\"Mars/Olympus_Mons\"")
        let run = try EndToEndTests.run(["stats", "-", "--day", "2026-11-28"], stdin: Data(text.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: this device does not know the time zone \"Mars/Olympus_Mons\""))
        #expect(run.stdout.contains("Meditate for 10 minutes"))
    }
}

@Suite("glow-tool at the edges of time and size")
struct EdgeInputTests {
    @Test("stats about 9999-12-31 answers at once")
    func lastDay() throws {
        let run = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", "9999-12-31"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("9999-12-31"))
    }

    @Test("a sparse 3 GB file is refused by its size before a byte is read")
    func sparseFile() throws {
        let folder = try FileSafetyTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        for arguments in [
            ["export", path, "-o", folder.appendingPathComponent("out.glow").path], ["decode-raw", path],
        ] {
            let run = try EndToEndTests.run(arguments)
            #expect(run.status == 1)
            #expect(run.stderr.contains("is 3221225472 bytes"), "\(run.stderr)")
        }
    }
}
