import Foundation
import GlowAuth
import GlowServerStores
import GlowStorage
import Testing

@testable import GlowService

/// glow-server's mail outbox: every mail is kept in the database until a delivery takes it.
@Suite("mail outbox")
struct OutboxTests {
    /// A scratch folder holding a `mail` folder and a server database: the folder and the
    /// database's path. The caller removes the folder.
    static func scratch() throws -> (folder: String, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-outbox-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder + "/mail", withIntermediateDirectories: true)
        let path = folder + "/server.sqlite"
        _ = try SQLiteServerDatabase(path: path)
        return (folder, path)
    }

    @Test("a mail whose delivery fails stays in the outbox, and the next mailer delivers it")
    func keptUntilDelivered() throws {
        let (folder, path) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reports = ReportBox()
        let failing = ServiceMailer(
            destination: .command("exit 3"), outbox: try SQLiteMailOutbox(path: path), retry: 1,
            report: { reports.add($0) })
        failing.send(.passwordReset(to: "ana@example.com", token: SecretToken("tok")))
        failing.flush()
        let outbox = try SQLiteMailOutbox(path: path)
        let waiting = try outbox.waiting()
        #expect(
            waiting.count == 1 && waiting.first?.kind == "passwordReset"
                && waiting.first?.recipient == "ana@example.com")
        #expect(waiting.first?.message.contains("X-Glow-Token: tok") == true)
        #expect(reports.all.contains { $0.contains("kept to try again") && $0.contains("status 3") }, "\(reports.all)")

        // A process that starts later (its claim on the mail expired) delivers what was left.
        let working = ServiceMailer(
            destination: .directory(folder + "/mail"), outbox: try SQLiteMailOutbox(path: path), retry: 0.2,
            report: { Issue.record("\($0)") })
        working.start()
        let deadline = Date().addingTimeInterval(5)
        while try !outbox.waiting().isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        working.flush()
        #expect(try outbox.waiting().isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/mail").filter {
            $0.hasSuffix(".eml")
        }
        #expect(files.count == 1)
    }

    @Test("an address whose mail fails holds up nobody else's: the mails after it go out at once")
    func oneFailureHoldsNoOne() throws {
        let (folder, path) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reports = ReportBox()
        // The mail command refuses one address (valid under AUTH-36) and takes every other.
        let command =
            "text=$(cat); case \"$text\" in *'To: refused@example.com'*) exit 5;; esac; "
            + "printf '%s' \"$text\" > '\(folder)/mail/'$(date +%s%N).eml"
        let mailer = ServiceMailer(
            destination: .command(command), outbox: try SQLiteMailOutbox(path: path), retry: 60,
            report: { reports.add($0) })
        // Waiting together, as after the mail service was away: one drain claims all three, the
        // refused one first.
        let outbox = try SQLiteMailOutbox(path: path)
        for recipient in ["refused@example.com", "bea@example.com", "cai@example.com"] {
            try outbox.add(recipient: recipient, kind: "passwordChanged", message: "To: \(recipient)\r\n\r\nhello")
        }
        mailer.start()
        let deadline = Date().addingTimeInterval(5)
        while try outbox.waiting().count > 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        mailer.flush()
        let delivered = try FileManager.default.contentsOfDirectory(atPath: folder + "/mail").map {
            try String(contentsOfFile: folder + "/mail/" + $0, encoding: .utf8)
        }
        #expect(delivered.count == 2, "the two mails after the refused one went out without waiting for a retry")
        #expect(
            delivered.contains { $0.contains("To: bea@example.com") }
                && delivered.contains { $0.contains("To: cai@example.com") })
        let waiting = try SQLiteMailOutbox(path: path).waiting()
        #expect(waiting.map(\.recipient) == ["refused@example.com"], "only the refused mail waits")
        #expect(
            reports.all.contains { $0.contains("refused@example.com") && $0.contains("status 5") }, "\(reports.all)")
    }

    @Test(
        "a refused mail is tried again after half its age (at least the retry, at most 15 minutes)",
        arguments: [(0.0, 30.0, 30), (100, 30, 50), (1_801, 30, 900), (5_000, 30, 900), (0, 0.01, 1)]
    )
    func backoff(age: Double, retry: Double, wait: Int) {
        #expect(ServiceMailer.backoff(age: age, retry: retry) == wait)
    }

    @Test("a mail that waited an hour is given up, reported and removed with its token")
    func givenUp() throws {
        let (folder, path) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outbox = try SQLiteMailOutbox(path: path)
        try outbox.add(recipient: "old@example.com", kind: "passwordReset", message: "X-Glow-Token: stale\r\n\r\n")
        try outbox.add(recipient: "new@example.com", kind: "passwordReset", message: "X-Glow-Token: fresh\r\n\r\n")
        // The first has waited an hour and a second; the second is new.
        let connection = try DatabaseSchema.server.open(path: path, create: false)
        try connection.execute(
            "UPDATE mail_outbox SET created_at = created_at - 3601000 WHERE recipient = 'old@example.com'")
        let reports = ReportBox()
        let mailer = ServiceMailer(
            destination: .command("exit 4"), outbox: outbox, retry: 60, report: { reports.add($0) })
        mailer.start()
        let deadline = Date().addingTimeInterval(5)
        while try outbox.waiting().count > 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        mailer.flush()
        let waiting = try outbox.waiting()
        #expect(waiting.map(\.recipient) == ["new@example.com"], "the stale token is gone, the fresh one waits")
        #expect(reports.all.contains { $0.contains("old@example.com") && $0.contains("given up") }, "\(reports.all)")
        #expect(reports.all.contains { $0.contains("new@example.com") && $0.contains("try again in 60 s") })
    }

    @Test("the outbox's table belongs to the server database: another file is refused as it is")
    func foreignFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glow-outbox-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        let bytes = Data("not a database".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try SQLiteMailOutbox(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(throws: (any Error).self) { try SQLiteMailOutbox(path: folder + "/missing.sqlite") }
        #expect(!FileManager.default.fileExists(atPath: folder + "/missing.sqlite"))
    }
}
