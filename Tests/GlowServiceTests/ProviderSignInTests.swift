import Foundation
import GlowClient
import GlowModel
import GlowProtocol
import GlowToolSupport
import Testing

/// glow-server configured for Google sign-in: an ID token signed (with the corpus's test key,
/// through openssl) for a nonce the server issued signs in once, over HTTP (AUTH-22, AUTH-46).
@Suite("glow-server's provider sign-in")
struct ProviderSignInTests {
    static let client = "1234567890-glow.apps.googleusercontent.com"

    /// An ID token for `nonce` signed now, and the key set that verifies it, from the corpus's
    /// JOSE helpers.
    static func token(nonce: String) throws -> (token: String, keySet: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.currentDirectoryURL = ServerConformanceTests.root.appendingPathComponent("Tools/corpus")
        process.arguments = [
            "-c",
            """
            import json, sys, time
            import jose_fixtures as j
            now = int(time.time())
            claims = j.google_claims(nonce=sys.argv[1], iat=now - 10, exp=now + 600)
            print(json.dumps({'token': j.token(j.hdr(), claims), 'keys': j.SET}))
            """,
            nonce,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let keys = try JSONSerialization.data(withJSONObject: try #require(json["keys"]))
        return (try #require(json["token"] as? String), String(decoding: keys, as: UTF8.self))
    }

    @Test(
        "a Google ID token for an issued nonce signs in once; its replay and an unconfigured provider are refused",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func google() async throws {
        let folder = try ServerExecutableTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/mail", withIntermediateDirectories: true)
        let keys = folder + "/google-keys.json"
        let server = try ServerProcess(arguments: [
            "--database", folder + "/server.sqlite", "--mail-dir", folder + "/mail", "--google-client-id", Self.client,
            "--google-key-set", "file://" + keys,
        ])
        defer { server.stop() }
        let client = ServiceClient(base: server.url)

        let nonce = try await client.signInNonce()
        #expect(nonce.expiry > Instant.now && !nonce.nonce.isEmpty)
        let signed = try Self.token(nonce: nonce.nonce)
        try Data(signed.keySet.utf8).write(to: URL(fileURLWithPath: keys))
        let session = try await client.signIn(
            provider: .google, idToken: signed.token, nonce: nonce.nonce, device: "phone")
        // The answer is a session like any other: its keeper lists it.
        let listed = try await SessionKeeper(client: client, session: session).sessions()
        #expect(listed.map(\.id) == [session.id] && listed[0].device == "phone")
        // The nonce is used up: the same token again is refused (AUTH-46).
        do {
            _ = try await client.signIn(provider: .google, idToken: signed.token, nonce: nonce.nonce, device: "phone")
            Issue.record("a replayed ID token signed in")
        } catch {
            #expect(error.code.description == "nonce_invalid" && error.status == 400)
        }
        // Apple is not configured on this server.
        do {
            let other = try await client.signInNonce()
            _ = try await client.signIn(provider: .apple, idToken: signed.token, nonce: other.nonce)
            Issue.record("an unconfigured provider signed in")
        } catch {
            #expect(error.code.description == "unknown_provider")
        }
    }

    @Test("a key set without its provider's client id is a usage error")
    func keySetAlone() throws {
        let (status, _, errors) = try ServerExecutableTests.run(
            "glow-server", ["--google-key-set", "file:///tmp/keys.json"])
        #expect(status == 64 && errors.contains("--google-client-id"), "\(errors)")
    }
}
