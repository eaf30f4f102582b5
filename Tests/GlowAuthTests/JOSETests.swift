import GlowCore
import GlowCrypto
import Testing

@testable import GlowAuth

/// The pieces under ID-token verification that the corpus reaches only through whole tokens.
@Suite("JOSE pieces")
struct JOSETests {
    @Test("base64url and standard base64 round-trip every length, and only canonical text decodes")
    func base64() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for alphabet in [Base64.url, Base64.standard] {
                let text = alphabet.encode(bytes)
                #expect(text.count == (length * 4 + 2) / 3)
                #expect(alphabet.decode(text) == bytes)
            }
        }
        #expect(Base64.url.decode("_-8") == [0xFF, 0xEF])
        #expect(Base64.standard.decode("_-8") == nil)
        #expect(Base64.url.decode("AB") == nil, "unused bits set")
        #expect(Base64.url.decode("AA") == [0])
        #expect(Base64.url.decode("A") == nil, "a single character over")
        #expect(Base64.url.decode("AA==") == nil, "padding")
    }

    @Test(
        "the JSON reader refuses duplicates, deep nesting and broken text",
        arguments: [
            ("{\"a\":1,\"a\":2}", false), ("{\"a\":{\"b\":1,\"b\":1}}", false), ("{\"a\":1,\"b\":2}", true),
            (String(repeating: "[", count: 16) + String(repeating: "]", count: 16), true),
            (String(repeating: "[", count: 17) + String(repeating: "]", count: 17), false),
            ("{\"a\":\"\\ud83d\\ude00\"}", true), ("{\"a\":\"\\ud83d\"}", false), ("{\"a\":01}", false),
            ("{\"a\":1e999}", false), ("{\"a\":-0.5e-3}", true), ("{\"a\":tru}", false), ("{} x", false),
            ("{\"a\":\"\u{1}\"}", false), ("[1,]", false), ("{\"a\" 1}", false),
        ])
    func json(text: String, valid: Bool) throws {
        let parsed = try? JOSEJSON.parse(Array(text.utf8)).get()
        #expect((parsed != nil) == valid)
    }

    @Test("the JSON reader keeps booleans, numbers and escapes apart")
    func jsonValues() throws {
        let value = try JOSEJSON.parse(Array(#"{"t":true,"n":1,"s":"\u00e9\n","z":null,"a":[false]}"#.utf8)).get()
        #expect(value["t"] == .bool(true))
        #expect(value["n"] == .number(1))
        #expect(value["s"] == .string("é\n"))
        #expect(value["z"] == .null)
        #expect(value["a"] == .array([.bool(false)]))
        #expect(value["n"]!.string == nil)
    }

    @Test(
        "Cache-Control's max-age",
        arguments: [
            ("public, max-age=19845, must-revalidate, no-transform", 19845), ("max-age = 60", 60), ("MAX-AGE=5", 5),
            ("no-cache", nil), ("max-age=abc", nil), ("max-age=-5", nil), ("max-age=99999999999999999999999", Int.max),
        ] as [(String, Int?)])
    func cacheControl(header: String, maxAge: Int?) {
        #expect(KeySetResponse(body: [], cacheControl: header).maxAge == maxAge)
    }

    @Test("an ES256 signature becomes DER with minimal, non-negative integers")
    func derSignature() {
        let r = [UInt8](repeating: 0, count: 31) + [5]
        let s = [0x80] + [UInt8](repeating: 1, count: 31)
        let der = Crypto.derSignature(raw: r + s)!
        #expect(der == [0x30, 0x26, 0x02, 0x01, 0x05, 0x02, 0x21, 0x00] + s)
        #expect(
            Crypto.derSignature(raw: [UInt8](repeating: 0, count: 64)) == [
                0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00,
            ])
        #expect(Crypto.derSignature(raw: [UInt8](repeating: 1, count: 63)) == nil)
    }

    @Test("SHA-256 and HMAC-SHA-256 match their standards' vectors")
    func digests() {
        #expect(
            Crypto.hex(Crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // RFC 4231 test case 2.
        #expect(
            Crypto.hex(
                Crypto.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Crypto.randomBytes(32) != Crypto.randomBytes(32))
    }

    @Test("a provider or verifier with nothing to trust is refused")
    func configuration() async throws {
        #expect(throws: AuthError.self) {
            try IdentityProvider(id: "x", issuers: ["https://x"], keySetURL: "https://x/keys", algorithms: ["HS256"])
        }
        #expect(throws: AuthError.self) { try IdentityProvider(id: "x", issuers: [], keySetURL: "https://x/keys") }
        struct NoFetch: KeySetFetcher {
            func fetchKeySet(from url: String) async throws -> KeySetResponse { KeySetResponse(body: [], maxAge: nil) }
        }
        #expect(throws: AuthError.self) {
            try IDTokenVerifier(provider: .google, clientIDs: [], keys: KeySetCache(fetcher: NoFetch()))
        }
        #expect(throws: AuthError.self) {
            try IDTokenVerifier(provider: .google, clientIDs: [""], keys: KeySetCache(fetcher: NoFetch()))
        }
        // A cache that can only be awaited cannot serve a caller that waits on it.
        let verifier = try IDTokenVerifier(provider: .google, clientIDs: ["app"], keys: KeySetCache(fetcher: NoFetch()))
        let token = Base64.url.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8)) + ".e30.AA"
        do {
            _ = try verifier.verifySynchronously(token, nonce: nil, at: 0)
            Issue.record("a waiting fetcher answered synchronously")
        } catch {
            #expect(error.code == .keySetUnavailable)
            #expect(verifier.keys.fetchCount == 0)
        }
    }
}
