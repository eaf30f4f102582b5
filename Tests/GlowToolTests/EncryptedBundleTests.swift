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
        #expect(words.split(separator: " ").count == 34 && RecoveryKey.isMeantAsKey(words))
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
            (["stats", "x.glow", "--passphrase", "hunter2hunter2"], "never taken on the command line"),
            (
                ["convert", "a.glow", "b.glow", "--encrypt", "--password=hunter2hunter2"],
                "never taken on the command line"
            ),
            (["store", "--db", "x.sqlite", "today", "--encrypt"], "go with store export, not store today"),
            (["store", "--db", "x.sqlite", "import", "a.glow", "--encrypt"], "go with store export, not store import"),
            (["store", "--db", "x.sqlite", "today", "--passphrase-fd", "0"], "only store import and store export"),
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

    /// The sample with a note of random letters on every check-in: a bundle of several 64 KiB
    /// chunks once sealed, written as JSON at `path`.
    static func noisySample(_ path: String) throws {
        let url = EndToEndTests.root.appendingPathComponent("Spec/examples/sample.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let checkIns = try #require(object["checkIns"] as? [[String: Any]])
        object["checkIns"] = checkIns.map { checkIn in
            var noted = checkIn
            noted["note"] = String((0..<60).map { _ in letters.randomElement(using: &generator)! })
            return noted
        }
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }

    @Test("a change in the last of several chunks is refused after the others authenticated, and nothing is written")
    func lateTampering() throws {
        let json = EndToEndTests.temporary("noisy.json")
        try Self.noisySample(json)
        let sealed = EndToEndTests.temporary("noisy.glow")
        let seal = try EndToEndTests.run(
            ["convert", json, sealed, "--encrypt", "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(seal.status == 0, "\(seal.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: sealed))
        #expect(bytes.count > 3 * 65_536, "several chunks: \(bytes.count) bytes")
        // The whole file reads as the JSON it was made from.
        let plain = try EndToEndTests.run(["stats", json, "--day", Self.day])
        let opened = try EndToEndTests.run(
            ["stats", sealed, "--day", Self.day, "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(opened.status == 0 && opened.stdout == plain.stdout && !plain.stdout.isEmpty, "\(opened.stderr)")
        bytes[bytes.count - 20] ^= 0x40
        let tampered = EndToEndTests.temporary("late.glow")
        try bytes.write(to: URL(fileURLWithPath: tampered))
        let output = EndToEndTests.temporary("out.glow")
        let database = EndToEndTests.temporary("store.sqlite")
        for arguments in [
            ["convert", tampered, output], ["convert", tampered, output + ".json"], ["merge", "-o", output, tampered],
            ["stats", tampered], ["store", "--db", database, "import", tampered],
        ] {
            let run = try EndToEndTests.run(arguments + ["--passphrase-fd", "0"], stdin: Self.passphrase)
            #expect(run.status == 1 && run.stderr.contains("chunk_tampered"), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout.prefix(200))")
        }
        for path in [output, output + ".json", database] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) was made")
        }
    }

    @Test("store export --encrypt seals a database's data, which imports into another database")
    func storeExport() throws {
        let first = EndToEndTests.temporary("first.sqlite")
        let second = EndToEndTests.temporary("second.sqlite")
        let sealed = EndToEndTests.temporary("store.glow")
        #expect(try EndToEndTests.run(["store", "--db", first, "import", EndToEndTests.sample]).status == 0)
        let export = try EndToEndTests.run(
            ["store", "--db", first, "export", "-o", sealed, "--encrypt", "--recovery-key", "--passphrase-fd", "0"],
            stdin: Self.passphrase)
        #expect(export.status == 0, "\(export.stderr)")
        let words = try #require(export.stderr.split(separator: "\n").last.map(String.init))
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: sealed)).read(upToCount: 8)
        #expect(head.map { BundleEnvelope.isEncrypted(head: [UInt8]($0)) } == true)
        let imported = try EndToEndTests.run(
            ["store", "--db", second, "import", sealed, "--passphrase-fd", "0"], stdin: Data(words.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        let before = try EndToEndTests.run(["store", "--db", first, "overview", "--day", Self.day])
        let after = try EndToEndTests.run(["store", "--db", second, "overview", "--day", Self.day])
        #expect(before.status == 0 && !before.stdout.isEmpty && after.stdout == before.stdout)
        // merge and export seal too.
        let merged = EndToEndTests.temporary("merged.glow")
        let run = try EndToEndTests.run(
            ["merge", "-o", merged, EndToEndTests.sample, "--encrypt", "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(run.status == 0, "\(run.stderr)")
        let verify = try EndToEndTests.run(["verify", merged, "--passphrase-fd", "0"], stdin: Self.passphrase)
        #expect(verify.status == 0 && verify.stdout.hasPrefix("ok:"), "\(verify.stderr)")
    }

    @Test("a passphrase named by --passphrase-env opens the file")
    func environment() throws {
        let (path, _) = try Self.sealedSample()
        let variable = "GLOW_TEST_PASSPHRASE_\(UUID().uuidString.prefix(8))".replacingOccurrences(of: "-", with: "_")
        setenv(variable, "a phrase to remember", 1)
        defer { unsetenv(variable) }
        let run = try EndToEndTests.run(["verify", path, "--passphrase-env", variable])
        #expect(run.status == 0 && run.stdout.hasPrefix("ok:"), "\(run.stderr)")
        let wrong = try EndToEndTests.run(["verify", path, "--passphrase-env", variable + "_UNSET"])
        #expect(wrong.status == 1 && wrong.stderr.contains("holds no passphrase"), "\(wrong.stderr)")
    }

    /// Runs glow-tool on a terminal of its own (a pseudo-terminal Python's `pty` opens), typing
    /// `answers` one line at each prompt: its exit status and everything the terminal showed.
    static func onTerminal(_ arguments: [String], answers: [String]) throws -> (Int32, String) {
        let script = """
            import os, pty, signal, sys
            signal.alarm(30)
            answers = sys.argv[1].split('|')
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[2], sys.argv[2:])
            seen = b''
            def more():
                global seen
                try:
                    chunk = os.read(fd, 1024)
                except OSError:
                    chunk = b''
                seen += chunk
                return chunk
            for number, answer in enumerate(answers, 1):
                while not (seen.count(b'assphrase') >= number and seen.rstrip(b' ').endswith(b':')):
                    if not more():
                        break
                os.write(fd, answer.encode() + b'\\n')
            while more():
                pass
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode('utf-8', 'replace'))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let tool = EndToEndTests.products.appendingPathComponent("glow-tool").path
        let run = try EndToEndTests.run(
            executable: URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, answers.joined(separator: "|"), tool] + arguments)
        return (run.status, run.stdout)
    }

    @Test("at the terminal a new file's passphrase is typed twice, and two that differ write nothing")
    func prompt() throws {
        let sealed = EndToEndTests.temporary("typed.glow")
        let (status, shown) = try Self.onTerminal(
            ["convert", EndToEndTests.sample, sealed, "--encrypt"],
            answers: ["typed at the prompt", "typed at the prompt"])
        #expect(status == 0, "\(shown)")
        #expect(shown.contains("Passphrase for") && shown.contains("again") && !shown.contains("typed at"))
        let verify = try EndToEndTests.run(
            ["verify", sealed, "--passphrase-fd", "0"], stdin: Data("typed at the prompt\n".utf8))
        #expect(verify.status == 0, "\(verify.stderr)")
        // Reading asks once.
        let (readStatus, readShown) = try Self.onTerminal(["verify", sealed], answers: ["typed at the prompt"])
        #expect(readStatus == 0 && readShown.contains("ok:"), "\(readShown)")
        let other = EndToEndTests.temporary("slip.glow")
        let (slipStatus, slipShown) = try Self.onTerminal(
            ["convert", EndToEndTests.sample, other, "--encrypt"],
            answers: ["typed at the prompt", "typed at the prompz"])
        #expect(slipStatus == 1 && slipShown.contains("differ"), "\(slipShown)")
        #expect(!FileManager.default.fileExists(atPath: other))
    }

    @Test("a key derivation the machine cannot give its memory is kdf_failed, not a wrong passphrase")
    func derivationWithoutMemory() throws {
        let (path, _) = try Self.sealedSample()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // 262,144 KiB: the cap itself (BUNDLE-30), more than a process limited to 150 MB can take.
        bytes.replaceSubrange(10..<14, with: [0x00, 0x00, 0x04, 0x00])
        let large = EndToEndTests.temporary("large-kdf.glow")
        try bytes.write(to: URL(fileURLWithPath: large))
        let tool = EndToEndTests.products.appendingPathComponent("glow-tool").path
        let limited = try EndToEndTests.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "ulimit -v 150000 && exec \"$0\" verify \"$1\" --passphrase-fd 0", tool, large],
            stdin: Self.passphrase)
        #expect(limited.status == 1 && limited.stderr.contains("kdf_failed"), "\(limited.stderr)")
        #expect(!limited.stderr.contains("wrong_passphrase"))
    }
}

@Suite("glow-tool classes one secret and says what a refusal may mean")
struct SecretClassTests {
    @Test("words meant as a recovery key are invalid_recovery_key, with JSON under --json, never wrong_passphrase")
    func wordsMeantAsKey() throws {
        let (path, words) = try EncryptedBundleTests.sealedSample()
        let list = words.split(separator: " ").map(String.init)
        var swapped = list
        swapped.swapAt(0, 1)
        let wrong: [(String, String)] = [
            ("33 words", list.dropFirst().joined(separator: " ")),
            ("five-letter prefixes", list.map { String($0.prefix(5)) }.joined(separator: " ")),
            ("a wrong checksum", swapped.joined(separator: " ")),
        ]
        for (what, text) in wrong where text != words {
            let run = try EndToEndTests.run(["verify", path, "--json", "--passphrase-fd", "0"], stdin: Data(text.utf8))
            #expect(run.status == 1, "\(what)")
            let report = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
            let error = report?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_recovery_key", "\(what): \(run.stdout) \(run.stderr)")
            #expect(error?["section"] as? String == "envelope" && error?["offset"] as? Int == 0, "\(what)")
            #expect(!run.stderr.contains("wrong_passphrase"), "\(what): \(run.stderr)")
        }
    }

    @Test("a changed salt is wrong_passphrase whose message names the salt and parameters")
    func changedSalt() throws {
        let (path, _) = try EncryptedBundleTests.sealedSample()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[19] ^= 1
        let changed = EndToEndTests.temporary("salt.glow")
        try bytes.write(to: URL(fileURLWithPath: changed))
        let run = try EndToEndTests.run(
            ["verify", changed, "--passphrase-fd", "0"], stdin: EncryptedBundleTests.passphrase)
        #expect(run.status == 1 && run.stderr.contains("wrong_passphrase"), "\(run.stderr)")
        #expect(run.stderr.contains("salt") && run.stderr.contains("parameters"), "\(run.stderr)")
    }

    @Test("messages count chunks from 0, as BUNDLE-33 does")
    func chunksFromZero() throws {
        let (path, _) = try EncryptedBundleTests.sealedSample()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // A change in the first chunk (after the header of two stanzas and the MAC) is chunk 0's.
        bytes[36 + 98 + 32 + 10] ^= 1
        let changed = EndToEndTests.temporary("chunk0.glow")
        try bytes.write(to: URL(fileURLWithPath: changed))
        let run = try EndToEndTests.run(
            ["verify", changed, "--passphrase-fd", "0"], stdin: EncryptedBundleTests.passphrase)
        #expect(run.status == 1 && run.stderr.contains("chunk_tampered"), "\(run.stderr)")
        #expect(run.stderr.contains("chunk 0 ") && !run.stderr.contains("chunk 1 "), "\(run.stderr)")
    }

    @Test("a file of the encrypted signature's first bytes is truncated, and no secret is asked")
    func cutSignature() throws {
        let path = EndToEndTests.temporary("cut.glow")
        try Data(BundleEnvelope.magic.prefix(5)).write(to: URL(fileURLWithPath: path))
        let run = try EndToEndTests.run(["verify", path, "--json"])
        #expect(run.status == 1 && !run.stderr.contains("no terminal"), "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        let error = report?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "truncated" && error?["section"] as? String == "envelope")
        #expect(error?["offset"] as? Int == 5)
    }
}
