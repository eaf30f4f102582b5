import Foundation

/// One conformance case, shaped like a Wycheproof vector: an id, a comment, the spec rules it
/// checks, flags, an input, and either the expected output or the expected error.
package struct CorpusCase: Sendable, CustomStringConvertible {
    /// How much a case matters to conformance (conformance.md, CONF-6).
    package enum Level: String, Sendable, CaseIterable {
        case required = "Required"
        case recommended = "Recommended"
    }

    package let area: String
    package let file: String
    package let operation: String
    package let id: String
    package let comment: String
    package let rules: [String]
    package let flags: [String]
    package let input: JSONValue
    package let valid: Bool
    package let expected: JSONValue?
    package let error: JSONValue?

    /// `area/id`: how failure lists and reports name the case.
    package var reference: String { "\(area)/\(id)" }

    /// Recommended when the case carries the flag `Recommended`; Required otherwise.
    package var level: Level { flags.contains("Recommended") ? .recommended : .required }

    package var description: String { "\(reference) (\(operation))" }
}

/// A corpus folder (`Spec/corpus`): one folder per area, each with JSON case files; adding a case
/// to a file adds a test, and no code changes.
package struct Corpus: Sendable {
    /// The corpus folder.
    package let directory: URL

    package init(directory: URL) {
        self.directory = directory
    }

    /// The area whose exchanges a server plays (Spec/server.md 9.6).
    package static let serverArea = "server"
    /// The operation of the cases a server plays; every other case is a testee's.
    package static let serverOperation = "server.exchanges"

    /// The cases a server plays: the server area's exchanges.
    package func serverCases() -> [CorpusCase] {
        cases(area: Self.serverArea).filter { $0.operation == Self.serverOperation }
    }

    /// The cases a testee plays in these areas (every area when nil): all but a server's.
    package func testeeCases(areas names: [String]? = nil) -> [CorpusCase] {
        cases(areas: names).filter { $0.operation != Self.serverOperation }
    }

    /// The areas: the folders of the corpus.
    package var areas: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    package func files(area: String) -> [URL] {
        let directory = directory.appendingPathComponent(area)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Every case of an area; a file that cannot be read yields one case that fails with the reason.
    package func cases(area: String) -> [CorpusCase] {
        files(area: area).flatMap { url -> [CorpusCase] in
            do {
                return try Corpus.load(url, area: area)
            } catch {
                let broken = JSONValue.object(["reason": .string("\(error)")])
                return [
                    CorpusCase(
                        area: area, file: url.lastPathComponent, operation: "corpus.unreadable",
                        id: url.lastPathComponent,
                        comment: "the file could not be read: \(error)", rules: [], flags: [], input: broken,
                        valid: true,
                        expected: nil, error: nil)
                ]
            }
        }
    }

    /// Every case of every area, or of the areas named.
    package func cases(areas names: [String]? = nil) -> [CorpusCase] {
        (names ?? areas).flatMap { cases(area: $0) }
    }

    package static func load(_ url: URL, area: String) throws -> [CorpusCase] {
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
                area: area, file: url.lastPathComponent, operation: operation, id: try item.string("id"),
                comment: item["comment"]?.string ?? "",
                rules: item["rules"]?.array?.compactMap(\.string) ?? [],
                flags: item["flags"]?.array?.compactMap(\.string) ?? [],
                input: try item.required("input"), valid: result == "valid", expected: item["expected"],
                error: item["error"])
        }
    }

    /// The rule IDs with a given prefix that a spec document defines: every `**PREFIX-n**`.
    package static func definedRules(document: URL, prefix: String) throws -> Set<String> {
        let text = try String(contentsOf: document, encoding: .utf8)
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
