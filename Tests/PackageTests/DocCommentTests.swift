import Foundation
import Testing

/// Every public declaration has a doc comment (issue 45): what Xcode's Quick Help shows a reader
/// of the SDK. A declaration is public when it says so (`public`, `open`), or when it is a case of
/// a public enum, a requirement of a public protocol or a member of a public extension, which
/// take their access from it.
@Suite("Doc comments")
struct DocCommentTests {
    /// A public declaration without a doc comment: its file, line and text.
    struct Finding: CustomStringConvertible, Equatable {
        let file: String
        let line: Int
        let text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    /// What a brace opened.
    enum Scope {
        case publicEnum, publicProtocol, other
    }

    static let declarationWords: Set<String> = [
        "func", "var", "let", "init", "struct", "class", "enum", "protocol", "typealias", "case", "subscript",
        "actor", "associatedtype", "convenience", "required", "static", "final", "indirect", "mutating",
        "nonisolated", "override", "prefix", "postfix", "infix", "operator", "macro", "private(set)",
        "package(set)", "internal(set)", "fileprivate(set)", "lazy", "weak", "unowned",
    ]

    /// The line with string literals' contents and any `//` comment taken out, so their braces do
    /// not count.
    static func code(_ line: Substring) -> String {
        var out = ""
        var inString = false
        var escaped = false
        var previous: Character = " "
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    out.append(character)
                }
                continue
            }
            if character == "/" && previous == "/" {
                out.removeLast()
                break
            }
            if character == "\"" { inString = true }
            out.append(character)
            previous = character
        }
        return out
    }

    /// The public declarations of one file's text that have no doc comment above them (attributes
    /// between the two are allowed).
    static func findings(in text: String, file: String) -> [Finding] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var scopes: [Scope] = []
        var findings: [Finding] = []
        var inMultilineString = false
        for (index, raw) in lines.enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.components(separatedBy: "\"\"\"").count % 2 == 0 {
                inMultilineString.toggle()
                continue
            }
            if inMultilineString || trimmed.hasPrefix("//") { continue }
            let code = Self.code(raw[...]).trimmingCharacters(in: .whitespaces)
            var words = code.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
            let isPublic = words.first == "public" || words.first == "open"
            let declares = words.dropFirst(isPublic ? 1 : 0).first.map(Self.declarationWords.contains) ?? false
            let inherited: Bool
            switch scopes.last {
            case .publicEnum: inherited = words.first == "case" || words.first == "indirect"
            case .publicProtocol: inherited = declares
            default: inherited = false
            }
            if (isPublic && declares) || inherited {
                var above = index - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let previous = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
                if !previous.hasPrefix("///") && !previous.hasSuffix("*/") {
                    findings.append(Finding(file: file, line: index + 1, text: trimmed))
                }
            }
            for character in code {
                if character == "{" {
                    let opensEnum = isPublic && words.contains("enum")
                    // A public extension's members take its access, as a protocol's requirements do.
                    let opensProtocol = isPublic && (words.contains("protocol") || words.contains("extension"))
                    let already = scopes.count
                    scopes.append(opensEnum ? .publicEnum : opensProtocol ? .publicProtocol : .other)
                    // Only the first brace of the line opens the declared type's body.
                    if scopes.count > already + 1 { scopes[scopes.count - 1] = .other }
                } else if character == "}" {
                    _ = scopes.popLast()
                }
            }
        }
        return findings
    }

    @Test("every public declaration of the SDK's sources has a doc comment")
    func everyPublicDeclaration() throws {
        let sources = ReadmeBlocksTests.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var findings: [Finding] = []
        var checked = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            findings += Self.findings(in: text, file: file.path.replacingOccurrences(of: sources.path + "/", with: ""))
            checked += 1
        }
        #expect(checked > 100)
        #expect(
            findings.isEmpty,
            "\(findings.count) without a doc comment:\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test(
        "a public declaration, enum case or protocol requirement without a doc comment is found; one with it is not",
        arguments: [
            ("public func tap() {}", 1),
            ("/// Taps.\npublic func tap() {}", 0),
            ("/// Taps.\n@discardableResult\npublic func tap() -> Int { 1 }", 0),
            ("/// Kinds.\npublic enum Kind {\n    case one\n    /// Two.\n    case two\n}", 1),
            ("/// Kinds.\nenum Kind {\n    case one\n}", 0),
            ("/// A source.\npublic protocol Source {\n    var data: Int { get }\n}", 1),
            ("/// A thing.\npublic struct Thing {\n    let hidden = \"{\"\n    public var shown: Int\n}", 1),
            ("let sql = \"\"\"\n    public func notCode() {}\n    \"\"\"", 0),
            ("/// An extension's member.\npublic extension Int {\n    var twice: Int { self * 2 }\n}", 1),
        ])
    func checker(_ source: String, _ expected: Int) {
        #expect(Self.findings(in: source, file: "Example.swift").count == expected, "\(source)")
    }
}
