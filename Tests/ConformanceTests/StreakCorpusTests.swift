import Foundation
import GlowModel
import Testing

@Suite("Streaks corpus")
struct StreakCorpusTests {
    static let cases = Corpus.cases(area: "streaks")

    @Test("every case", arguments: cases)
    func run(_ testCase: CorpusCase) throws {
        let operation = try #require(
            StreakOperations.all[testCase.operation], "no operation \(testCase.operation) in \(testCase.file)")
        try CorpusCheck.check(testCase, operation)
    }

    @Test("the corpus has at least 250 cases and unique ids")
    func size() {
        #expect(Self.cases.count >= 250)
        let ids = Self.cases.map(\.id)
        #expect(Set(ids).count == ids.count, "duplicate case ids")
    }

    @Test("every STREAK rule has a case, and every case names defined rules")
    func coverage() throws {
        let defined = try Corpus.definedRules(document: "streaks.md", prefix: "STREAK")
        #expect(defined.count >= 20)
        let covered = Set(Self.cases.flatMap(\.rules))
        let missing = defined.subtracting(covered).sorted()
        #expect(missing.isEmpty, "rules without a case: \(missing)")
        let undefined = covered.filter { $0.hasPrefix("STREAK-") }.subtracting(defined).sorted()
        #expect(undefined.isEmpty, "cases cite undefined rules: \(undefined)")
    }

    /// Every kind with every schedule the spec allows it (one-off kinds: none) has 3 cases.
    @Test("every kind and schedule pair has at least three cases")
    func kindSchedulePairs() {
        var counts: [String: Int] = [:]
        for testCase in Self.cases {
            let goals = (testCase.input["goals"]?.array ?? []) + (testCase.input["goal"].map { [$0] } ?? [])
            for goal in goals {
                guard let kind = goal["kind"]?["type"]?.string else { continue }
                let schedule = goal["schedule"]
                let rule = schedule?["type"]?.string ?? schedule?.array?.first?["rule"]?["type"]?.string ?? "none"
                counts["\(kind)/\(rule)", default: 0] += 1
            }
        }
        let rules = ["daily", "weekdays", "timesPerWeek", "timesPerMonth", "everyNDays"]
        var required = ["single/none", "subgoals/none", "progress/none", "countdown/none"]
        for kind in ["streak", "tally", "value", "subgoals"] {
            required += rules.map { "\(kind)/\($0)" }
        }
        let thin = required.filter { counts[$0, default: 0] < 3 }
        #expect(thin.isEmpty, "pairs with fewer than 3 cases: \(thin.map { "\($0) (\(counts[$0, default: 0]))" })")
    }
}
