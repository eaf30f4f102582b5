import Foundation
import GlowAuth
import GlowRitual
import GlowWire

/// The auth area's operations: the password policy (AUTH-1 ... AUTH-10).
package enum AuthOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "auth.totp": { input in
            // AUTH-50: a secret as text or as base32, a time, digits and an HMAC.
            let secret =
                try input["secretText"]?.string.map { Array($0.utf8) }
                ?? TOTP.bytes(base32: try input.string("secretBase32"))
            guard let algorithm = TOTP.Algorithm(rawValue: try input.string("algorithm")) else {
                throw CorpusInputError(description: "unknown algorithm")
            }
            let code = TOTP.code(
                secret: secret, time: try input.int("time"), digits: try input.int("digits"), algorithm: algorithm)
            return .object(["code": .string(code)])
        },
        "auth.checkPassword": { input in
            let policy =
                try input["minimum"].map { _ in try PasswordPolicy(minimumLength: try input.int("minimum")) }
                ?? PasswordPolicy()
            let password = try policy.check(try text(input), email: input["email"]?.string)
            return .object(["length": .int(password.length), "normalized": .string(password.normalized)])
        },
        "auth.argon2id": { input in
            let tag = try Argon2id.tag(
                password: try hex(input, "password"), salt: try hex(input, "salt"),
                secret: input["secret"] == nil ? [] : try hex(input, "secret"),
                associatedData: input["ad"] == nil ? [] : try hex(input, "ad"), parameters: try parameters(input),
                tagLength: try input.int("tagLength"))
            return .object(["tag": .string(HexText.text(tag))])
        },
        "auth.parseHash": { input in
            let hash = try PasswordHash(phc: try input.string("hash"))
            return .object([
                "m": .int(hash.parameters.memoryKiB), "t": .int(hash.parameters.iterations),
                "p": .int(hash.parameters.parallelism), "salt": .string(HexText.text(hash.salt)),
                "tag": .string(HexText.text(hash.tag)), "phc": .string(hash.phc),
            ])
        },
        "auth.verifyPassword": { input in
            let hash = try PasswordHash(phc: try input.string("hash"))
            let hasher = try PasswordHasher(parameters: try input["current"].map(parameters) ?? .owasp)
            let match = try hasher.verify(try text(input), against: hash)
            return .object(["match": .bool(match), "rehash": .bool(match && hasher.needsRehash(hash))])
        },
        "auth.flow": { input in
            var flow = SignInFlow.signedOut
            if let start = input["start"] {
                do {
                    flow = try JSONDecoder().decode(SignInFlow.self, from: JSONEncoder().encode(start))
                } catch let error as DecodingError {
                    throw CorpusInputError(description: "start: \(error)")
                }
            }
            var states: [JSONValue] = []
            for event in input["events"]?.array ?? [] {
                try flow.apply(try flowEvent(event))
                states.append(.string(flow.rawValue))
            }
            return .object(["states": .array(states), "stored": .object(["state": .string(flow.rawValue)])])
        },
    ]

    /// An event of the flow: `{"event": NAME}`, with `hasGoals` (false when absent) for `signedIn`.
    static func flowEvent(_ value: JSONValue) throws -> SignInFlow.Event {
        let name = try value.string("event")
        var hasGoals = false
        if case .bool(let flag)? = value["hasGoals"] { hasGoals = flag }
        let events: [SignInFlow.Event] = [
            .startOnboarding, .continue, .back, .signedIn(hasGoals: hasGoals),
            .createdFirstGoal, .signOut, .deleteAccount, .cancelOnboarding,
        ]
        guard let event = events.first(where: { $0.name == name }) else {
            throw SignInFlowError.unknownEvent(name)
        }
        return event
    }

    /// `m`, `t` and `p` of `input`.
    static func parameters(_ input: JSONValue) throws -> Argon2Parameters {
        Argon2Parameters(memoryKiB: try input.int("m"), iterations: try input.int("t"), parallelism: try input.int("p"))
    }

    /// The bytes of a hexadecimal member.
    static func hex(_ input: JSONValue, _ key: String) throws -> [UInt8] {
        do {
            return try HexText.bytes(Array(try input.string(key).utf8))
        } catch {
            throw CorpusInputError(description: "\(key) is not hexadecimal")
        }
    }

    /// The password of a case: `password`, or `repeat` times `text` after an optional `prefix`,
    /// so that cases of kilobytes and megabytes stay small files.
    static func text(_ input: JSONValue) throws -> String {
        if let password = input["password"]?.string { return password }
        guard let repeated = input["repeat"] else { throw CorpusInputError(description: "no password") }
        let count = try repeated.int("count")
        guard (0...(1 << 24)).contains(count) else { throw CorpusInputError(description: "a repeat of \(count)") }
        return (repeated["prefix"]?.string ?? "") + String(repeating: try repeated.string("text"), count: count)
    }
}
