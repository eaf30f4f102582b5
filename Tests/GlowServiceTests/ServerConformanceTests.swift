import Foundation
import GlowConformance
import GlowProtocol
import Testing

/// The server area of the corpus (Spec/server.md 9.6), played over HTTP against glow-server's
/// handler in this process, as `glow-tool conformance --server` plays it against any server.
@Suite("server conformance")
struct ServerConformanceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let corpus = Corpus(directory: root.appendingPathComponent("Spec/corpus"))

    @Test("every case of the server area passes against glow-server")
    func corpusCases() throws {
        let cases = Self.corpus.serverCases()
        #expect(cases.count >= 30)
        let server = try TestServer()
        defer { server.stop() }
        let runner = ServerRunner(base: server.url, mailDirectory: server.mailFolder)
        // One after another: a case's throttling waits are timed in seconds.
        for testCase in cases {
            let verdict = runner.play(testCase)
            #expect(verdict == .passed, "\(testCase.reference): \(testCase.comment)")
        }
    }

    @Test("the runner finds a setup that would fail cases, and names the one thing to change")
    func setupChecks() throws {
        let good = try TestServer()
        defer { good.stop() }
        #expect(ServerRunner(base: good.url, mailDirectory: good.mailFolder).setupProblem() == nil)
        let elsewhere = good.folder + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let wrongFolder = ServerRunner(base: good.url, mailDirectory: elsewhere, timeout: 2).setupProblem()
        #expect(wrongFolder?.contains("start it with --mail-dir \(elsewhere)") == true, "\(wrongFolder ?? "none")")

        let untrusting = try TestServer(trustForwardedFor: false)
        defer { untrusting.stop() }
        let trust = ServerRunner(base: untrusting.url, mailDirectory: untrusting.mailFolder).setupProblem()
        #expect(trust?.contains("start it with --trust-forwarded-for") == true, "\(trust ?? "none")")

        // One call a minute, one at once: the runner's second call is throttled (SERVER-11).
        let strict = try TestServer(clientLimit: try #require(ClientLimit(intervalMilliseconds: 60_000, burst: 1)))
        defer { strict.stop() }
        let throttled = ServerRunner(base: strict.url, mailDirectory: strict.mailFolder).setupProblem()
        #expect(throttled?.contains("SERVER-11") == true, "\(throttled ?? "none")")
        for problem in [wrongFolder, trust, throttled] { #expect(problem?.contains("\n") == false) }
    }

    @Test("the runner fails a case whose expectation the server does not meet")
    func runnerCatchesWrongAnswers() throws {
        let server = try TestServer()
        defer { server.stop() }
        let runner = ServerRunner(base: server.url, mailDirectory: server.mailFolder)
        let wrong: [(String, String)] = [
            (#"{"call": "health", "expect": {"status": 201}}"#, "status 200, expected 201"),
            (#"{"call": "health", "expect": {"body": {"status": "down"}}}"#, "Health.status is \"ok\""),
            (#"{"call": "health", "expect": {"headers": {"Allow": {"present": true}}}}"#, "no header Allow"),
            (#"{"call": "sessions", "expect": {"error": {"code": "invalid_session"}}}"#, "ServiceError.code"),
            (#"{"mail": {"to": "nobody@example.com", "kind": "confirmSignUp"}}"#, "no confirmSignUp mail"),
            (#"{"call": "sessions", "token": "never.captured"}"#, "nothing was captured as never.captured"),
            (#"{"call": "health", "body": {"status": "ok"}}"#, "this call takes no body"),
            (#"{"call": "sign-up", "body": {"nickname": "x"}}"#, "SignUpRequest has no field nickname"),
        ]
        for (exchange, reason) in wrong {
            let text =
                #"{"area": "server", "operation": "server.exchanges", "cases": [{"id": "x", "input": {"exchanges": ["#
                + exchange + #"]}, "result": "valid"}]}"#
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString).json")
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let testCase = try #require(try Corpus.load(file, area: "server").first)
            guard case .failed(let why) = runner.play(testCase) else {
                Issue.record("\(exchange) passed")
                continue
            }
            #expect(why.contains(reason), "\(exchange): \(why)")
        }
    }
}
