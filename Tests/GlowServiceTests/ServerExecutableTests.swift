import Foundation
import GlowToolSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `glow-server` as a person starts it, and `glow-tool conformance --server` against it.
@Suite("glow-server end to end")
struct ServerExecutableTests {
    static let products: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("glow-server").path) {
                return url
            }
        }
        return ServerConformanceTests.root.appendingPathComponent(".build/debug")
    }()

    static func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-server-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs a product to its end: its exit status, standard output and standard error.
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (
        Int32, String, String
    ) {
        let process = Process()
        process.executableURL = products.appendingPathComponent(tool)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test("glow-server serves the corpus to glow-tool conformance --server, and stops on SIGTERM")
    func serveAndStop() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/mail", withIntermediateDirectories: true)
        let server = try ServerProcess(arguments: [
            "--database", folder + "/server.sqlite", "--mail-dir", folder + "/mail",
        ])
        defer { server.crash() }
        let corpus = ServerConformanceTests.root.appendingPathComponent("Spec/corpus").path
        let (status, summary, errors) = try Self.run(
            "glow-tool",
            ["conformance", "--server", server.url.absoluteString, "--mail-dir", folder + "/mail", "--corpus", corpus])
        #expect(status == 0, "\(summary)\(errors)")
        #expect(summary.contains("server"))
        #expect(FileManager.default.fileExists(atPath: folder + "/server.sqlite"))
        // The database and every mail hold secrets (hashes, tokens): only the server's user reads them.
        let mails = try FileManager.default.contentsOfDirectory(atPath: folder + "/mail").map { folder + "/mail/" + $0 }
        #expect(!mails.isEmpty)
        for path in [folder + "/server.sqlite"] + mails {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode.map { $0 & 0o077 } == 0, "\(path) is \(String(mode ?? -1, radix: 8))")
        }
        server.stop()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        let rest = String(decoding: server.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("glow-server stopped"))
    }

    @Test("glow-tool conformance --server names in one line what to change in the setup, before any case")
    func setupFirst() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/mail", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        let server = try ServerProcess(arguments: [
            "--database", folder + "/server.sqlite", "--mail-dir", folder + "/mail",
        ])
        defer { server.crash() }
        let url = server.url.absoluteString
        let corpus = ServerConformanceTests.root.appendingPathComponent("Spec/corpus").path
        let setups: [([String], String)] = [
            ([], "give --mail-dir DIR"),
            (["--mail-dir", folder + "/missing"], "is not a folder here"),
            (["--mail-dir", folder + "/elsewhere", "--timeout", "2"], "mail does not arrive in \(folder)/elsewhere"),
        ]
        for (arguments, line) in setups {
            let (status, summary, errors) = try Self.run(
                "glow-tool", ["conformance", "--server", url, "--corpus", corpus] + arguments)
            #expect(status == 1, "\(arguments): \(summary)\(errors)")
            #expect(errors.contains("setup: ") && errors.contains(line), "\(arguments): \(errors)")
            #expect(errors.split(separator: "\n").count == 1 && summary.isEmpty, "one line, no cases: \(errors)")
        }
        // Nothing listens on port 1.
        let (status, _, errors) = try Self.run(
            "glow-tool",
            ["conformance", "--server", "http://127.0.0.1:1", "--mail-dir", folder + "/mail", "--corpus", corpus])
        #expect(status == 1 && errors.contains("cannot reach the server at http://127.0.0.1:1"), "\(errors)")
    }

    @Test(
        "bad options are refused with a message, before anything is made",
        arguments: [
            (["--listen", "localhost"], Int32(64), "HOST:PORT"),
            (["--database-wait", "0"], 64, "--database-wait takes seconds from 0.05 to 3600, not '0'"),
            (["--pool-wait", "x"], 64, "--pool-wait takes seconds from 0 to 3600, not 'x'"),
            (["--mail-dir", "/no/such/folder"], 66, "no such folder; make it first (mkdir -p /no/such/folder)"),
            (["--mail-dir", "/etc/passwd"], 66, "is a file, not a folder"),
            (["--mail-dir", "/tmp", "--mail-command", "cat"], 64, "one or the other"),
            (["--threads", "0"], 64, "at least 1"),
            (["--client-burst", "0"], 64, "--client-burst 0: not a whole number of at least 1"),
            (["--client-interval", "-5"], 64, "--client-interval -5: not a whole number of at least 0"),
            (["--client-interval", "9223372036854775807", "--client-burst", "3"], 64, "passes the longest wait"),
            (["--push-window", "90000"], 64, "--push-window 90000: at most 86400 seconds"),
            (["--push-window", "-1"], 64, "--push-window -1: not a whole number of at least 0"),
            (["--frobnicate"], 64, "unknown option"),
        ])
    func badOptions(_ arguments: [String], _ expected: Int32, _ message: String) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (status, _, errors) = try Self.run(
            "glow-server", arguments, environment: ["HOME": folder, "XDG_DATA_HOME": folder + "/data"])
        #expect(status == expected, "\(errors)")
        #expect(errors.contains(message), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/data"), "nothing is made for a refused start")
    }

    @Test("a database that is another application's is refused and left byte for byte")
    func foreignDatabase() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        let bytes = Data("my notes, not a database\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        let (status, _, errors) = try Self.run("glow-server", ["--listen", "127.0.0.1:0", "--database", path])
        #expect(status == 1)
        #expect(errors.contains("corrupt") && errors.contains(path), "\(errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
    }
}
