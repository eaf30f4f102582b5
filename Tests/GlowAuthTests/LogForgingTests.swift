import GlowCore
import Testing

@testable import GlowAuth

/// A stranger's text in an error message is quoted, escaped and cut (issue 25, hole 8): a token's
/// `kid` or `alg` with newlines, escape codes or a megabyte of text cannot forge a log line.
@Suite("Forged log lines")
struct LogForgingTests {
    struct NoFetch: KeySetFetcher {
        func fetchKeySet(from url: String) async throws -> KeySetResponse { KeySetResponse(body: [], maxAge: nil) }
    }

    /// A forged second log line, an ANSI colour, a right-to-left override and a long tail.
    static let hostile = "k1\n2026-12-01 ADMIN LOGIN ok\u{1B}[31m\u{202E}" + String(repeating: "x", count: 10_000)

    /// The message of verifying a token whose header `field` is the hostile text.
    static func message(header field: String, keySet: String = #"{"keys":[]}"#) throws -> String {
        let verifier = try IDTokenVerifier(provider: .google, clientIDs: ["app"], keys: KeySetCache(fetcher: NoFetch()))
        var header = ["alg": "RS256", "kid": "k1"]
        header[field] = hostile
        let json =
            "{"
            + header.sorted { $0.key < $1.key }.map { key, value in
                "\"\(key)\":\""
                    + value.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(
                        of: "\u{1B}", with: "\\u001b") + "\""
            }.joined(separator: ",") + "}"
        let token = Base64.url.encode(Array(json.utf8)) + ".e30.AA"
        do {
            _ = try verifier.verify(token, nonce: nil, at: 0, keySet: JSONWebKeySet(json: Array(keySet.utf8)))
        } catch {
            return error.message
        }
        Issue.record("a hostile token was accepted")
        return ""
    }

    @Test("an unknown kid and an unknown alg are named quoted, escaped and cut", arguments: ["kid", "alg"])
    func quoted(_ field: String) throws {
        let message = try Self.message(header: field)
        #expect(message.contains("'k1\\u{a}2026-12-01 ADMIN"), "\(message)")
        #expect(!message.contains("\n") && !message.contains("\u{1B}") && !message.contains("\u{202E}"))
        #expect(message.count < 300, "cut: \(message.count) characters")
    }

    @Test("quoting: quotes and backslashes escaped, control and bidirectional characters written out, long text cut")
    func quoting() {
        #expect("it's".quoted() == #"'it\'s'"#)
        #expect(#"a\b"#.quoted() == #"'a\\b'"#)
        #expect("a\u{0}b\u{85}c\u{2028}d\u{2066}".quoted() == #"'a\u{0}b\u{85}c\u{2028}d\u{2066}'"#)
        #expect(String(repeating: "é", count: 100).quoted(limit: 3) == "'ééé…'")
        #expect("👩‍👩‍👧‍👦".quoted(limit: 1) == "'👩‍👩‍👧‍👦'")
    }
}
