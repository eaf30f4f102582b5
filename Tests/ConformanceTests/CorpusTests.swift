import Foundation
import Testing

/// One area of the conformance corpus: its folder, its operations, and the spec it checks.
struct CorpusArea: Sendable, CustomStringConvertible {
    let name: String
    let operations: [String: ModelOperations.Operation]
    let minimumCases: Int
    let document: String
    let prefix: String

    var description: String { name }

    static let all = [
        CorpusArea(
            name: "model", operations: ModelOperations.all, minimumCases: 120, document: "model.md", prefix: "MODEL"),
        CorpusArea(
            name: "streaks", operations: StreakOperations.all, minimumCases: 250, document: "streaks.md",
            prefix: "STREAK"),
        CorpusArea(name: "wire", operations: WireOperations.all, minimumCases: 60, document: "wire.md", prefix: "WIRE"),
        CorpusArea(
            name: "bundle", operations: BundleOperations.all, minimumCases: 40, document: "bundle.md", prefix: "BUNDLE"),
        CorpusArea(
            name: "themes", operations: ThemeOperations.all, minimumCases: 40, document: "themes.md", prefix: "THEME"),
    ]
}

/// Runs every case of every area through one generic loader; adding a case adds a test.
@Suite("Corpus")
struct CorpusTests {
    static let cases: [(area: String, testCase: CorpusCase)] = CorpusArea.all.flatMap { area in
        Corpus.cases(area: area.name).map { (area.name, $0) }
    }

    @Test("every case", arguments: cases.map(\.testCase))
    func run(_ testCase: CorpusCase) throws {
        let operations = CorpusArea.all.reduce(into: [String: ModelOperations.Operation]()) {
            $0.merge($1.operations) { a, _ in a }
        }
        let operation = try #require(
            operations[testCase.operation], "no operation \(testCase.operation) in \(testCase.file)")
        try CorpusCheck.check(testCase, operation)
    }

    @Test("every folder of the corpus is an area this suite runs")
    func areas() {
        #expect(Set(Corpus.areas) == Set(CorpusArea.all.map(\.name)))
    }

    @Test("each area has its minimum number of cases, with unique ids", arguments: CorpusArea.all)
    func size(_ area: CorpusArea) {
        let ids = Self.cases.filter { $0.area == area.name }.map(\.testCase.id)
        #expect(ids.count >= area.minimumCases)
        #expect(Set(ids).count == ids.count, "duplicate case ids in \(area.name)")
    }

    /// A rule may be shown by a case of any area (unknown fields of the model, say, only by the wire).
    @Test("every rule of each spec document has a case, and every case names defined rules", arguments: CorpusArea.all)
    func coverage(_ area: CorpusArea) throws {
        let defined = try Corpus.definedRules(document: area.document, prefix: area.prefix)
        #expect(defined.count >= 10, "the rule parser found too few rules in \(area.document)")
        let covered = Set(Self.cases.flatMap(\.testCase.rules).filter { $0.hasPrefix(area.prefix + "-") })
        #expect(defined.subtracting(covered).isEmpty, "rules without a case: \(defined.subtracting(covered).sorted())")
        #expect(
            covered.subtracting(defined).isEmpty, "cases cite undefined rules: \(covered.subtracting(defined).sorted())"
        )
    }
}
