import Foundation
import GlowBundle
import Testing

/// glow-tool with encrypted bundles (BUNDLE-29 ... BUNDLE-35): sealing an export, reading it
/// everywhere a bundle is read, and refusing a wrong secret or a changed file without writing.
@Suite("glow-tool and encrypted bundles")
struct EncryptedBundleTests {
    static let passphrase = Data("a phrase to remember\n".utf8)
    static let day = "2026-11-28"

    /// The sample sealed with a recovery key: the file and the key's words.
    static func sealedSample() throws -> (path: String, words: String) {
        let path = EndToEndTests.temporary("sealed.glow")
        let run = try EndToEndTests.run(
            ["convert", EndToEndTests.sample, path, "--encrypt", "--recovery-key", "--passphrase-fd", "0"],
            stdin: passphrase)
        #expect(run.status == 0, "\(run.stderr)")
        let words = try #require(run.stderr.split(separator: "\n").last.map(String.init))
        #expect(words.split(separator: " ").count == 34 && RecoveryKey.isWords(words))
        return (path, words)
    }

    @Test("an encrypted export reads as the plain one in stats, inspect, verify, report and merge")
    func readsEverywhere() throws {
        let (path, words) = try Self.sealedSample()
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 8)
        #expect(head.map { BundleEnvelope.isEncrypted(head: [UInt8]($0)) } == true)
        // (inspect shows the bundle's own creation instant, which a convert renews: checked apart.)
        let inspect = try EndToEndTests.run(
            ["inspect", path, "--json", "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(inspect.status == 0 && inspect.stdout.contains("\"checkIns\" : 4418"), "\(inspect.stdout.prefix(300))")
        for command in [["stats", "--day", Self.day], ["report", "--day", Self.day]] {
            let plain = try EndToEndTests.run([command[0], EndToEndTests.sample] + command.dropFirst())
            let sealed = try EndToEndTests.run(
                [command[0], path] + command.dropFirst() + ["--passphrase-fd", "0"], stdin: Self.passphrase)
            let byKey = try EndToEndTests.run(
                [command[0], path] + command.dropFirst() + ["--passphrase-fd", "0"], stdin: Data(words.utf8))
            #expect(sealed.status == 0 && byKey.status == 0, "\(command[0]): \(sealed.stderr) \(byKey.stderr)")
            #expect(
                !plain.stdout.isEmpty && sealed.stdout == plain.stdout && byKey.stdout == plain.stdout, "\(command[0])")
        }
        let verify = try EndToEndTests.run(["verify", path, "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(verify.status == 0 && verify.stdout.hasPrefix("ok:"))
        // A line ended CR LF (a file written on Windows) is the same passphrase.
        let crlf = try EndToEndTests.run(
            ["verify", path, "--passphrase-fd", "0"], stdin: Data("a phrase to remember\r\n".utf8))
        #expect(crlf.status == 0, "\(crlf.stderr)")
        // verify --json reports an envelope's refusal as JSON too.
        let json = try EndToEndTests.run(
            ["verify", path, "--json", "--passphrase-fd", "0"], stdin: Data("not the phrase\n".utf8))
        #expect(json.status == 1 && json.stdout.contains("wrong_passphrase") && json.stdout.contains("\"ok\" : false"))
        // Only the descriptor's first line is the passphrase.
        let firstLine = try EndToEndTests.run(
            ["verify", path, "--passphrase-fd", "0"], stdin: Self.passphrase + Data("and more lines\n".utf8))
        #expect(firstLine.status == 0, "\(firstLine.stderr)")
        // Merged with itself in plain: the same person's data, the same result as plain with plain.
        let merged = EndToEndTests.temporary("merged.json")
        let reference = EndToEndTests.temporary("reference.json")
        let run = try EndToEndTests.run(
            ["merge", "-o", merged, path, EndToEndTests.sample, "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try EndToEndTests.run(["merge", "-o", reference, EndToEndTests.sample, EndToEndTests.sample]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: merged)) == Data(contentsOf: URL(fileURLWithPath: reference)))
    }

    @Test("a wrong passphrase or a changed file is refused, and nothing is written or imported")
    func refusals() throws {
        let (path, _) = try Self.sealedSample()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 1] ^= 1
        let tampered = EndToEndTests.temporary("tampered.glow")
        try bytes.write(to: URL(fileURLWithPath: tampered))
        let output = EndToEndTests.temporary("out.glow")
        let database = EndToEndTests.temporary("store.sqlite")
        let cases: [([String], Data, String)] = [
            (["convert", path, output, "--passphrase-fd", "0"], Data("not the phrase\n".utf8), "wrong_passphrase"),
            (["convert", tampered, output, "--passphrase-fd", "0"], Self.passphrase, "chunk_tampered"),
            (["stats", tampered, "--passphrase-fd", "0"], Self.passphrase, "chunk_tampered"),
            (
                ["store", "--db", database, "import", tampered, "--passphrase-fd", "0"], Self.passphrase,
                "chunk_tampered"
            ),
            (["verify", path], Data(), "no terminal to ask on"),
        ]
        for (arguments, stdin, message) in cases {
            let run = try EndToEndTests.run(arguments, stdin: stdin)
            #expect(run.status == 1 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: database))
        // The good file imports.
        let imported = try EndToEndTests.run(
            ["store", "--db", database, "import", path, "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test(
        "the options are checked before anything runs",
        arguments: [
            (["stats", "x.glow", "--encrypt"], "--encrypt and --recovery-key apply to"),
            (["convert", "a.glow", "b.glow", "--recovery-key"], "--recovery-key goes with --encrypt"),
            (["stats", "x.glow", "--passphrase-env", "A", "--passphrase-fd", "0"], "not both"),
            (["themes", "audit", "--passphrase-env", "A"], "takes no passphrase"),
            (["stats", "x.glow", "--passphrase-fd", "two"], "file descriptor number"),
        ])
    func usage(arguments: [String], message: String) throws {
        let run = try EndToEndTests.run(arguments)
        #expect(run.status == 64 && run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("only a bundle is encrypted, and only with a passphrase of eight characters or more")
    func writing() throws {
        let json = try EndToEndTests.run(
            ["convert", EndToEndTests.sample, EndToEndTests.temporary("x.json"), "--encrypt", "--passphrase-fd", "0"],
            stdin: Self.passphrase)
        #expect(json.status == 64 && json.stderr.contains("only a bundle can be encrypted"))
        let short = try EndToEndTests.run(
            ["convert", EndToEndTests.sample, EndToEndTests.temporary("x.glow"), "--encrypt", "--passphrase-fd", "0"],
            stdin: Data("short\n".utf8))
        #expect(short.status == 1 && short.stderr.contains("at least 8"))
    }
}
