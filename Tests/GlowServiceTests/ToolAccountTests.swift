import Foundation
import GlowBundle
import GlowRitual
import GlowStorage
import Testing

/// `glow-tool account` and `glow-tool store sync` against a running server: two people try the
/// Glow feed from a terminal.
@Suite("glow-tool against a server")
struct ToolAccountTests {
    /// Runs glow-tool with `input` on its standard input: status, output, errors.
    static func tool(_ arguments: [String], input: String = "") throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = ServerExecutableTests.products.appendingPathComponent("glow-tool")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    static let sample = ServerConformanceTests.root.appendingPathComponent("Spec/examples/sample.glow").path
    static let password = "correct horse battery staple\n"

    /// A database holding the sample person, signed up and in on `server` as `name`.
    static func person(_ name: String, _ server: TestServer, _ folder: String) throws -> (
        database: String, account: String
    ) {
        let database = folder + "/\(name).sqlite"
        #expect(try tool(["store", "import", sample, "--db", database]).0 == 0)
        let address = "\(name)@example.com"
        let signUp = try tool(["account", "sign-up", "--server", server.url, "--email", address], input: password)
        #expect(signUp.0 == 0 && signUp.1.contains("confirmation mail"), "\(signUp)")
        let token = try server.mailedToken(to: address, kind: "confirmSignUp")
        let confirm = try tool(
            ["account", "confirm", "--server", server.url, "--token", token, "--db", database, "--device", "laptop"],
            input: password)
        #expect(confirm.0 == 0 && confirm.1.contains("signed up and in as"), "\(confirm)")
        let account = confirm.1.components(separatedBy: "signed up and in as ").last?.split(separator: " ").first
        return (database, account.map(String.init) ?? "")
    }

    @Test("sign up, confirm, list sessions, publish and sync, see a stranger's public items, sign out")
    func twoPeople() throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = server.folder
        let (ana, anaAccount) = try Self.person("ana", server, folder)
        let (bob, _) = try Self.person("bob", server, folder)

        let sessions = try Self.tool(["account", "sessions", "--db", ana])
        #expect(sessions.0 == 0 && sessions.1.contains("laptop") && sessions.1.contains("(this one)"), "\(sessions)")
        // Ana's device publishes her items, and the sync sends them; the session's server is kept.
        #expect(try Self.tool(["store", "feed", "--db", ana]).0 == 0)
        let sent = try Self.tool(["store", "sync", "--db", ana])
        #expect(sent.0 == 0 && sent.1.hasPrefix("synced "), "\(sent)")
        // Bob, a stranger, is sent her public goals' items, and nothing of her friends-only ones.
        let received = try Self.tool(["store", "sync", "--db", bob])
        #expect(received.0 == 0, "\(received)")
        let feed = try Self.tool(["store", "feed", "--db", bob, "--json", "--limit", "100"])
        #expect(feed.0 == 0, "\(feed)")
        let view = try JSONSerialization.jsonObject(with: Data(feed.1.utf8)) as? [String: Any]
        let items = (view?["items"] as? [[String: Any]]) ?? []
        let fromAna = Set(items.filter { $0["owner"] as? String == anaAccount }.compactMap { $0["title"] as? String })
        #expect(fromAna == ["Work out"], "only ana's public goal reaches a stranger: \(fromAna)")

        let out = try Self.tool(["account", "sign-out", "--db", ana])
        #expect(out.0 == 0 && out.1.contains("signed out"), "\(out)")
        let after = try Self.tool(["account", "sessions", "--db", ana])
        #expect(after.0 == 1 && after.2.contains("nobody is signed in"), "\(after)")
    }

    @Test(
        "account sync: a laptop's store syncs end to end encrypted, and a new one joins by a pairing code or the words")
    func syncOwnData() throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = server.folder
        let (laptop, _) = try Self.person("cy", server, folder)
        let notYet = try Self.tool(["account", "sync", "--db", laptop])
        #expect(notYet.0 == 1 && notYet.2.contains("does not sync yet"), "\(notYet)")
        let first = try Self.tool(["account", "sync", "--new", "--db", laptop])
        #expect(first.0 == 0 && first.1.contains("recovery words"), "\(first)")
        let words = first.1.split(separator: "\n").first { $0.split(separator: " ").count == 34 }.map(String.init)
        let twice = try Self.tool(["account", "sync", "--new", "--db", laptop])
        #expect(twice.0 == 1 && twice.2.contains("syncs already"), "\(twice)")
        let pair = try Self.tool(["account", "pair", "--db", laptop])
        #expect(pair.0 == 0, "\(pair)")
        let code = try #require(
            pair.1.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })

        // A second store signs in as the same person and pairs by the code.
        let desk = folder + "/desk.sqlite"
        #expect(try Self.tool(["store", "init", "--db", desk]).0 == 0)
        let signIn = try Self.tool(
            ["account", "sign-in", "--server", server.url, "--email", "cy@example.com", "--db", desk],
            input: Self.password)
        #expect(signIn.0 == 0, "\(signIn)")
        let paired = try Self.tool(["account", "sync", "--pair", code, "--db", desk])
        #expect(paired.0 == 0 && paired.1.contains("synced"), "\(paired)")
        #expect(try RitualDatabase.snapshot(path: desk) == RitualDatabase.snapshot(path: laptop))
        let reused = try Self.tool(["account", "sync", "--pair", code, "--db", folder + "/other.sqlite"])
        #expect(reused.0 != 0)

        // A tap on the desk reaches the laptop at its next sync.
        let tap = try Self.tool(["store", "tap", "Work out", "--db", desk])
        #expect(tap.0 == 0, "\(tap)")
        #expect(try Self.tool(["account", "sync", "--db", desk]).0 == 0)
        #expect(try Self.tool(["account", "sync", "--db", laptop]).0 == 0)
        #expect(try RitualDatabase.snapshot(path: desk) == RitualDatabase.snapshot(path: laptop))

        // The secret and the session's tokens are in the secret store beside the database, and in
        // none of the database's files (issue 58).
        let kept = try #require(try FileSecretStore(database: laptop).keptSession())
        let secret = try RecoveryKey(words: try #require(words))
        #expect(try FileSecretStore(database: laptop).secret(.syncSecret) == secret.bytes)
        let bytes = try Self.fileBytes(laptop)
        let traces: [(String, Data)] = [
            ("the sync secret", Data(secret.bytes)), ("its words", Data(try #require(words).utf8)),
            ("the access token", Data(kept.session.accessToken.utf8)),
            ("the refresh token", Data(kept.session.refreshToken.utf8)),
        ]
        for (what, trace) in traces {
            #expect(bytes.range(of: trace) == nil, "\(what) is in the database's files")
        }
        // The scan finds what is there: the account's id, which is no secret.
        #expect(bytes.range(of: Data(kept.session.account.rawValue.utf8)) != nil)

        // A third store restores from the words alone.
        let spare = folder + "/spare.sqlite"
        #expect(try Self.tool(["store", "init", "--db", spare]).0 == 0)
        _ = try Self.tool(
            ["account", "sign-in", "--server", server.url, "--email", "cy@example.com", "--db", spare],
            input: Self.password)
        let restored = try Self.tool(["account", "sync", "--words", "--db", spare], input: (words ?? "") + "\n")
        #expect(restored.0 == 0, "\(restored)")
        #expect(try RitualDatabase.snapshot(path: spare) == RitualDatabase.snapshot(path: laptop))
    }

    /// The bytes of the database at `path` with its write-ahead log and shared memory.
    static func fileBytes(_ path: String) throws -> Data {
        try ["", "-wal", "-shm"].reduce(into: Data()) { bytes, suffix in
            if FileManager.default.fileExists(atPath: path + suffix) {
                bytes += try Data(contentsOf: URL(fileURLWithPath: path + suffix))
            }
        }
    }

    @Test("a session an earlier glow-tool kept in the database moves to the secret store and leaves the file")
    func earlierSessionMoves() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (database, _) = try Self.person("dee", server, server.folder)
        let secrets = FileSecretStore(database: database)
        let kept = try #require(try secrets.keptSession())
        // As an earlier version kept it: in the database's device values, the store empty.
        try await RitualDatabase(path: database, secrets: InMemorySecretStore()).setDeviceValue(
            Array(try JSONEncoder().encode(kept.session)), for: "server.session")
        try secrets.removeSecret(.session)
        let sessions = try Self.tool(["account", "sessions", "--db", database])
        #expect(sessions.0 == 0 && sessions.1.contains("(this one)"), "\(sessions)")
        #expect(try secrets.keptSession()?.session.account == kept.session.account)
        #expect(try await RitualDatabase(path: database).deviceValue("server.session") == [])
    }

    @Test("a wrong password, an empty one, a missing option and a server that is not a URL are each refused")
    func refusals() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (database, _) = try Self.person("cy", server, server.folder)
        let wrong = try Self.tool(
            ["account", "sign-in", "--email", "cy@example.com", "--db", database], input: "not the password at all\n")
        #expect(wrong.0 == 1 && wrong.2.contains("invalid_credentials"), "\(wrong)")
        let empty = try Self.tool(["account", "sign-up", "--server", server.url, "--email", "dee@example.com"])
        #expect(empty.0 == 64 && empty.2.contains("standard input"), "\(empty)")
        let missing = try Self.tool(["account", "confirm", "--server", server.url])
        #expect(missing.0 == 64 && missing.2.contains("--token"), "\(missing)")
        let bad = try Self.tool(
            ["account", "sign-up", "--server", "ftp://x", "--email", "e@example.com"], input: "pw\n")
        #expect(bad.0 == 64 && bad.2.contains("http://"), "\(bad)")
    }
}
