import Foundation
import GlowWire
import Testing

@Suite("Wire corpus")
struct WireCorpusTests {
    static let cases = Corpus.cases(area: "wire")

    @Test("every case", arguments: cases)
    func run(_ testCase: CorpusCase) throws {
        let operation = try #require(
            WireOperations.all[testCase.operation], "no operation \(testCase.operation) in \(testCase.file)")
        try CorpusCheck.check(testCase, operation)
    }

    @Test("the corpus has at least 60 cases and unique ids")
    func size() {
        #expect(Self.cases.count >= 60)
        let ids = Self.cases.map(\.id)
        #expect(Set(ids).count == ids.count, "duplicate case ids")
    }

    @Test("every WIRE rule has a case, and every case names defined rules")
    func coverage() throws {
        let defined = try Corpus.definedRules(document: "wire.md", prefix: "WIRE")
        #expect(defined.count >= 20)
        let covered = Set(Self.cases.flatMap(\.rules).filter { $0.hasPrefix("WIRE-") })
        #expect(defined.subtracting(covered).isEmpty, "rules without a case: \(defined.subtracting(covered).sorted())")
        #expect(
            covered.subtracting(defined).isEmpty, "cases cite undefined rules: \(covered.subtracting(defined).sorted())"
        )
    }
}
