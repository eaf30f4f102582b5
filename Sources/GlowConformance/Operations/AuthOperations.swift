import Foundation
import GlowAuth

/// The auth area's operations: the password policy (AUTH-1 ... AUTH-10).
package enum AuthOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "auth.checkPassword": { input in
            let policy =
                try input["minimum"].map { _ in try PasswordPolicy(minimumLength: try input.int("minimum")) }
                ?? PasswordPolicy()
            let password = try policy.check(try text(input), email: input["email"]?.string)
            return .object(["length": .int(password.length), "normalized": .string(password.normalized)])
        }
    ]

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
