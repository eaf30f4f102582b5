import Foundation
import Testing

@testable import GlowAuth

@Suite("Password policy")
struct PasswordPolicyTests {
    static let specFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Spec")

    @Test("the built-in blocklist is the spec's file, entry for entry")
    func blocklistMatchesSpec() throws {
        let text = try String(
            contentsOf: Self.specFolder.appendingPathComponent("auth/blocklist.txt"), encoding: .utf8)
        let entries = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(Set(entries) == Blocklist.entries)
        #expect(entries.count == Blocklist.entries.count, "an entry is listed twice")
        for entry in entries {
            #expect(entry == entry.lowercased() && entry.unicodeScalars.count >= 8, "\(entry)")
        }
    }

    /// A password, the policy's minimum, the e-mail, and the code expected (nil: accepted, with
    /// that many code points).
    static let table: [(String, Int, String?, String?, Int?)] = [
        ("fourteen chars", 15, nil, "password_too_short", nil),
        ("fifteen charsss", 15, nil, nil, 15),
        ("🌸🌸🌸🌸🌸🌸🌸🌸🌸🌸🌸🌸🌸🌸🌸", 15, nil, nil, 15),
        ("🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵", 15, nil, "password_too_short", nil),
        // NFKC: e + combining acute becomes é, so 15 typed code points are 14.
        ("cafe\u{301} au lait k", 15, nil, "password_too_short", nil),
        ("ＡＢＣＤＷＸＹＺ", 8, nil, nil, 8),
        ("ＡＢＣＤＥＦＧＨ", 8, nil, "password_common", nil),
        ("with a\u{0}nul inside it", 15, nil, "password_forbidden_character", nil),
        ("tab\tseparated words", 15, nil, "password_forbidden_character", nil),
        ("del\u{7F}ete me please now", 15, nil, "password_forbidden_character", nil),
        ("PassWord123", 8, nil, "password_common", nil),
        ("password123 ", 8, nil, nil, 12),
        ("my glow ritual passphrase", 15, nil, "password_contains_context", nil),
        ("a long phrase with anna in it", 15, "Anna@example.com", "password_contains_context", nil),
        ("a long phrase with bob in it", 15, "bob@example.com", nil, 28),
        ("   leading and trailing   ", 15, nil, nil, 26),
    ]

    @Test("every edge of the policy", arguments: 0..<table.count)
    func edges(row: Int) throws {
        let (password, minimum, email, code, length) = Self.table[row]
        let policy = try PasswordPolicy(minimumLength: minimum)
        if let code {
            #expect(throws: AuthError.self) { try policy.check(password, email: email) }
            do {
                _ = try policy.check(password, email: email)
            } catch {
                #expect(error.code.description == code, "\(password.debugDescription)")
                #expect(!error.description.contains(password), "an error shows the password")
            }
        } else {
            let accepted = try policy.check(password, email: email)
            #expect(accepted.length == length)
            #expect(accepted.normalized == password.precomposedStringWithCompatibilityMapping)
        }
    }

    @Test("64 and 4,096 code points pass; 4,097 and a megabyte do not, the megabyte unread")
    func lengths() throws {
        let policy = try PasswordPolicy()
        #expect(try policy.check(String(repeating: "x1", count: 32)).length == 64)
        #expect(try policy.check(String(repeating: "🌸", count: 4_096)).length == 4_096)
        for (password, rule) in [
            (String(repeating: "x", count: 4_097), "AUTH-6"), (String(repeating: "🌸", count: 4_097), "AUTH-1"),
            (String(repeating: "a", count: 1 << 20), "AUTH-1"),
        ] {
            do {
                _ = try policy.check(password)
                Issue.record("a password of \(password.unicodeScalars.count) code points passed")
            } catch {
                #expect(error.code == .passwordTooLong && error.rule == rule)
            }
        }
    }

    @Test("the minimum is 8 ... 64, 15 by default")
    func minimum() throws {
        #expect(try PasswordPolicy().minimumLength == 15)
        for minimum in [8, 64] { #expect(try PasswordPolicy(minimumLength: minimum).minimumLength == minimum) }
        for minimum in [7, 65, 0, -1] {
            #expect(
                throws: AuthError(.invalidPolicy, "a minimum length of \(minimum) is outside 8...64", rule: "AUTH-5")
            ) {
                try PasswordPolicy(minimumLength: minimum)
            }
        }
    }

    @Test("a kept password never shows itself")
    func redacted() throws {
        let password = try PasswordPolicy().check("correct horse battery")
        #expect("\(password)" == "Password(21 characters)")
        #expect(String(reflecting: password) == "Password(21 characters)")
        #expect(!"\([password])".contains("horse"))
    }

    @Test("README's example answers as README says")
    func readmeExample() throws {
        let policy = try PasswordPolicy()
        let password = try policy.check("quiet morning walks", email: "mia@example.com")
        #expect("\(password)" == "Password(19 characters)")
        let readme = try String(
            contentsOf: Self.specFolder.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8
        )
        #expect(readme.contains(#"policy.check("quiet morning walks", email: "mia@example.com")"#))
        #expect(readme.contains("// Password(19 characters)"))
    }
}
