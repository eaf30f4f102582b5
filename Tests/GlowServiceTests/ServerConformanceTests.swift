import Foundation
import GlowConformance
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
