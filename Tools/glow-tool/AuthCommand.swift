import Foundation
import GlowAuth
import GlowConformance

/// `glow-tool auth verify-token`: one ID token judged by Spec/auth.md 7.4, with the verdict and
/// what the token says about the person. The token, the nonce and the signature are never
/// printed.
enum AuthCommand {
    /// A fetcher that reads the key set from a file, as if the provider had served it.
    struct FileFetcher: BlockingKeySetFetcher {
        let bytes: [UInt8]
        func fetchKeySet(from url: String) throws -> KeySetResponse { KeySetResponse(body: bytes, maxAge: nil) }
    }

    static func verify(_ options: TokenOptions) throws -> Int32 {
        let token = String(
            decoding: try Files.read(options.token, limit: 4 * IDTokenVerifier.byteLimit, what: "a token"),
            as: UTF8.self
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
        let keys = try Files.read(options.keys, limit: JSONWebKeySet.byteLimit, what: "a key set")
        let base: IdentityProvider? =
            options.provider == "apple" ? .apple : options.provider == "google" ? .google : nil
        let provider: IdentityProvider
        do {
            provider = try IdentityProvider(
                id: base?.id ?? "custom", issuers: Set(options.issuers).union(base?.issuers ?? []),
                keySetURL: options.keys,
                algorithms: options.algorithms.isEmpty ? base?.algorithms ?? ["RS256"] : Set(options.algorithms),
                hashesNonce: options.hashNonce || (base?.hashesNonce ?? false), relayDomain: base?.relayDomain)
        } catch {
            throw UsageErrorInRun(message: error.message)
        }
        let verifier = try IDTokenVerifier(
            provider: provider, clientIDs: Set(options.audiences),
            keys: KeySetCache(blockingFetcher: FileFetcher(bytes: keys)))
        let now = options.at ?? Date().timeIntervalSince1970
        let nonce = options.nonce
        do {
            let identity = try verifier.verifySynchronously(token, nonce: nonce, at: now)
            print(options.json ? json(identity) : text(identity), terminator: "")
            return 0
        } catch {
            if options.json {
                struct Refusal: Encodable {
                    let valid = false
                    let error: String
                    let rule: String?
                    let message: String
                }
                print(
                    Report.json(Refusal(error: error.code.description, rule: error.rule, message: error.message)),
                    terminator: "")
            } else {
                print("invalid: \(error.code) [\(error.rule ?? "")]\n  \(error.message)")
            }
            return 1
        }
    }

    static func text(_ identity: VerifiedIdentity) -> String {
        let rows: [(String, String)] = [
            ("provider", identity.provider), ("subject", identity.subject),
            (
                "email",
                identity.email.map { $0 + (identity.emailVerified ? " (verified)" : " (not verified)") } ?? "none"
            ),
            ("relay address", identity.isPrivateRelay ? "yes" : "no"),
            ("may link by e-mail", identity.mayLinkByEmail ? "yes" : "no"),
            ("issued at", instant(identity.issuedAt)), ("expires at", instant(identity.expiresAt)),
        ]
        return "valid\n"
            + rows.map { "  " + $0.0.padding(toLength: 20, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }

    static func json(_ identity: VerifiedIdentity) -> String {
        struct Verdict: Encodable {
            let valid = true
            let provider: String
            let subject: String
            let email: String?
            let emailVerified: Bool
            let privateRelay: Bool
            let linkByEmail: Bool
            let issuedAt: Double
            let expiresAt: Double
        }
        return Report.json(
            Verdict(
                provider: identity.provider, subject: identity.subject, email: identity.email,
                emailVerified: identity.emailVerified, privateRelay: identity.isPrivateRelay,
                linkByEmail: identity.mayLinkByEmail, issuedAt: identity.issuedAt, expiresAt: identity.expiresAt))
    }

    static func instant(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
