import Foundation

/// One conformance case, shaped like a Wycheproof vector: an id, a comment, the spec rules it
/// checks, flags, an input, and either the expected output or the expected error.
struct CorpusCase: Sendable, CustomStringConvertible {
    let file: String
    let operation: String
    let id: String
    let comment: String
    let rules: [String]
    let flags: [String]
    let input: JSONValue
    let valid: Bool
    let expected: JSONValue?
    let error: JSONValue?

    var description: String { "\(id) (\(operation))" }
}

/// Reads `Spec/corpus/<area>/*.json` through `#filePath`, so the corpus needs no resource bundle
/// and adding a case to a file adds a test.
enum Corpus {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let specDirectory = repositoryRoot.appendingPathComponent("Spec")

    /// The areas: the folders of `Spec/corpus`.
    static var areas: [String] {
        let directory = specDirectory.appendingPathComponent("corpus")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    static func files(area: String) -> [URL] {
        let directory = specDirectory.appendingPathComponent("corpus").appendingPathComponent(area)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Every case of an area; a file that cannot be read yields one case that fails with the reason.
    static func cases(area: String) -> [CorpusCase] {
        files(area: area).flatMap { url -> [CorpusCase] in
            do {
                return try load(url)
            } catch {
                let broken = JSONValue.object(["reason": .string("\(error)")])
                return [
                    CorpusCase(
                        file: url.lastPathComponent, operation: "corpus.unreadable", id: url.lastPathComponent,
                        comment: "the file could not be read", rules: [], flags: [], input: broken, valid: true,
                        expected: nil, error: nil)
                ]
            }
        }
    }

    static func load(_ url: URL) throws -> [CorpusCase] {
        let document = try JSONValue.parse(try Data(contentsOf: url))
        let operation = try document.string("operation")
        guard let cases = document["cases"]?.array else {
            throw CorpusInputError(description: "\(url.lastPathComponent) has no \"cases\" array")
        }
        return try cases.map { item in
            let result = try item.string("result")
            guard result == "valid" || result == "invalid" else {
                throw CorpusInputError(description: "result must be valid or invalid, not \(result)")
            }
            return CorpusCase(
                file: url.lastPathComponent, operation: operation, id: try item.string("id"),
                comment: item["comment"]?.string ?? "",
                rules: item["rules"]?.array?.compactMap(\.string) ?? [],
                flags: item["flags"]?.array?.compactMap(\.string) ?? [],
                input: try item.required("input"), valid: result == "valid", expected: item["expected"],
                error: item["error"])
        }
    }

    /// The rule IDs with a given prefix that a spec document defines: every `**PREFIX-n**`.
    static func definedRules(document: String, prefix: String) throws -> Set<String> {
        let text = try String(contentsOf: specDirectory.appendingPathComponent(document), encoding: .utf8)
        var rules = Set<String>()
        var rest = text[...]
        while let range = rest.range(of: "**\(prefix)-") {
            let digits = rest[range.upperBound...].prefix { $0.isNumber }
            if rest[range.upperBound...].dropFirst(digits.count).hasPrefix("**") {
                rules.insert("\(prefix)-\(digits)")
            }
            rest = rest[range.upperBound...]
        }
        return rules
    }
}
