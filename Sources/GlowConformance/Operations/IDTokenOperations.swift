import Foundation
import GlowAuth
import GlowCore

/// The ID-token operations (AUTH-22 ... AUTH-34): one token against a fixed key set, and a
/// sequence of tokens through one cache of key sets.
package enum IDTokenOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "auth.verifyIdToken": { input in
            let response: FixtureFetcher.Response
            if let text = input["keySetText"]?.string {
                response = .set(Array(text.utf8), maxAge: nil)
            } else {
                response = .set(try setBytes(try input.required("keySet")), maxAge: nil)
            }
            let verifier = try verifier(input, fetcher: FixtureFetcher(responses: [], repeating: response))
            let nonce = input["nonce"]?.string
            let token = try input.string("token")
            let now = Double(try input.int("now"))
            return claims(try verifier.verifySynchronously(token, nonce: nonce, at: now))
        },
        "auth.keySetCache": { input in
            var responses: [FixtureFetcher.Response] = []
            for entry in input["responses"]?.array ?? [] {
                if entry["fail"] == .bool(true) {
                    responses.append(.failure)
                } else if let text = entry["keySetText"]?.string {
                    responses.append(.set(Array(text.utf8), maxAge: nil))
                } else {
                    responses.append(
                        .set(
                            try setBytes(try entry.required("keySet")),
                            maxAge: entry["maxAge"] == nil ? nil : try entry.int("maxAge")))
                }
            }
            let verifier = try verifier(input, fetcher: FixtureFetcher(responses: responses, repeating: .failure))
            var results: [JSONValue] = []
            for step in input["verifications"]?.array ?? [] {
                let token = try step.string("token")
                let now = Double(try step.int("now"))
                let nonce = step["nonce"]?.string
                do throws(AuthError) {
                    let identity = try verifier.verifySynchronously(token, nonce: nonce, at: now)
                    results.append(.object(["subject": .string(identity.subject)]))
                } catch {
                    results.append(.object(["error": .string(error.code.description)]))
                }
            }
            return .object(["results": .array(results), "fetches": .int(verifier.keys.fetchCount)])
        },
    ]

    /// The verifier a case names: `provider` (`apple` or `google`), `algorithms` instead of its
    /// own, and `clientIds`.
    static func verifier(_ input: JSONValue, fetcher: FixtureFetcher) throws -> IDTokenVerifier {
        let name = try input.string("provider")
        guard var provider = [IdentityProvider.apple, .google].first(where: { $0.id == name }) else {
            throw CorpusInputError(description: "unknown provider \(name)")
        }
        if let algorithms = input["algorithms"]?.array {
            provider = try IdentityProvider(
                id: provider.id, issuers: provider.issuers, keySetURL: provider.keySetURL,
                algorithms: Set(algorithms.compactMap(\.string)), hashesNonce: provider.hashesNonce,
                relayDomain: provider.relayDomain)
        }
        let clients = Set((input["clientIds"]?.array ?? []).compactMap(\.string))
        return try IDTokenVerifier(provider: provider, clientIDs: clients, keys: KeySetCache(blockingFetcher: fetcher))
    }

    /// What a verified token says, as the corpus spells it.
    static func claims(_ identity: VerifiedIdentity) -> JSONValue {
        func number(_ value: Double) -> JSONValue {
            value.rounded() == value && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
        }
        return .object([
            "provider": .string(identity.provider), "subject": .string(identity.subject),
            "email": identity.email.map(JSONValue.string) ?? .null, "emailVerified": .bool(identity.emailVerified),
            "privateRelay": .bool(identity.isPrivateRelay), "linkByEmail": .bool(identity.mayLinkByEmail),
            "issuedAt": number(identity.issuedAt), "expiresAt": number(identity.expiresAt),
        ])
    }

    static func setBytes(_ value: JSONValue) throws -> [UInt8] {
        Array(try JSONEncoder().encode(value))
    }
}

/// A key-set fetcher that answers from a case's fixtures: its responses in order, then one
/// response for ever.
package final class FixtureFetcher: BlockingKeySetFetcher {
    package enum Response: Sendable {
        case set([UInt8], maxAge: Int?)
        case failure
    }

    private let queue: Locked<[Response]>
    private let repeating: Response

    package init(responses: [Response], repeating: Response) {
        self.queue = Locked(responses)
        self.repeating = repeating
    }

    package func fetchKeySet(from url: String) throws -> KeySetResponse {
        let next = queue.withLock { $0.isEmpty ? repeating : $0.removeFirst() }
        switch next {
        case .set(let body, let maxAge): return KeySetResponse(body: body, maxAge: maxAge)
        case .failure: throw FixtureFailure()
        }
    }

    struct FixtureFailure: Error, CustomStringConvertible {
        var description: String { "the fixture server is down" }
    }
}
