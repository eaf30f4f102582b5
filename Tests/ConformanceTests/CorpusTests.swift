import Foundation
import GlowConformance
import Testing

/// The repository's corpus, found through this file's path.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let spec = root.appendingPathComponent("Spec")
    static let corpus = Corpus(directory: spec.appendingPathComponent("corpus"))
}

/// One area of the corpus and the spec document whose rules it checks.
struct CorpusArea: Sendable, CustomStringConvertible {
    let name: String
    let minimumCases: Int
    let document: String
    let prefix: String

    var description: String { name }

    static let all = [
        CorpusArea(name: "model", minimumCases: 120, document: "model.md", prefix: "MODEL"),
        CorpusArea(name: "streaks", minimumCases: 250, document: "streaks.md", prefix: "STREAK"),
        CorpusArea(name: "wire", minimumCases: 60, document: "wire.md", prefix: "WIRE"),
        CorpusArea(name: "bundle", minimumCases: 40, document: "bundle.md", prefix: "BUNDLE"),
        CorpusArea(name: "themes", minimumCases: 40, document: "themes.md", prefix: "THEME"),
        CorpusArea(name: "auth", minimumCases: 300, document: "auth.md", prefix: "AUTH"),
        CorpusArea(name: "feed", minimumCases: 150, document: "feed.md", prefix: "FEED"),
        CorpusArea(name: "server", minimumCases: 30, document: "server.md", prefix: "SERVER"),
        CorpusArea(name: "reminders", minimumCases: 150, document: "reminders.md", prefix: "REMIND"),
        CorpusArea(name: "sync", minimumCases: 80, document: "sync.md", prefix: "SYNC"),
    ]
}

/// Runs every case of every area through the protocol's request and the SDK's own answer, in
/// process; adding a case adds a test.
@Suite("Corpus")
struct CorpusTests {
    /// Every case; the server area's exchanges are played against a server (GlowServiceTests), not here.
    static let all = Repository.corpus.cases()
    static let cases = Repository.corpus.testeeCases()

    @Test("every case", arguments: cases)
    func run(_ testCase: CorpusCase) {
        let response = Conformance.respond(to: Conformance.request(for: testCase, corpus: Repository.corpus))
        let verdict = Conformance.verdict(testCase, response: response)
        #expect(verdict == .passed, "\(testCase.reference): \(testCase.comment)")
    }

    @Test("every folder of the corpus is an area this suite knows")
    func areas() {
        #expect(Set(Repository.corpus.areas) == Set(CorpusArea.all.map(\.name)))
    }

    @Test("each area has its minimum number of cases, with unique ids", arguments: CorpusArea.all)
    func size(_ area: CorpusArea) {
        let ids = Self.all.filter { $0.area == area.name }.map(\.id)
        #expect(ids.count >= area.minimumCases)
        #expect(Set(ids).count == ids.count, "duplicate case ids in \(area.name)")
    }

    /// A rule may be shown by a case of any area (unknown fields of the model, say, only by the wire).
    @Test("every rule of each spec document has a case, and every case names defined rules", arguments: CorpusArea.all)
    func coverage(_ area: CorpusArea) throws {
        let defined = try Corpus.definedRules(
            document: Repository.spec.appendingPathComponent(area.document), prefix: area.prefix)
        #expect(defined.count >= 10, "the rule parser found too few rules in \(area.document)")
        let covered = Set(Self.all.flatMap(\.rules).filter { $0.hasPrefix(area.prefix + "-") })
        #expect(defined.subtracting(covered).isEmpty, "rules without a case: \(defined.subtracting(covered).sorted())")
        #expect(
            covered.subtracting(defined).isEmpty, "cases cite undefined rules: \(covered.subtracting(defined).sorted())"
        )
    }

    @Test("the verdict catches a wrong result, a wrong error and a malformed response")
    func verdicts() throws {
        let valid = try #require(Self.cases.first { $0.reference == "model/day-parse-001" })
        let invalid = try #require(
            Self.cases.first { $0.valid == false && $0.area == "wire" && $0.error?["offset"] != nil })
        #expect(
            Conformance.verdict(valid, response: .object(["result": .object(["canonical": .string("x")])])) != .passed)
        #expect(
            Conformance.verdict(valid, response: .object(["error": .object(["code": .string("invalid_day")])]))
                != .passed)
        #expect(
            Conformance.verdict(invalid, response: .object(["error": .object(["code": .string("truncated")])]))
                != .passed)
        #expect(Conformance.verdict(valid, response: .object(["answer": .int(42)])) != .passed)
        #expect(Conformance.verdict(valid, response: .object(["skipped": .string("not yet")])) == .skipped("not yet"))
    }
}
