import Foundation
import GlowConformance
import Testing

@Suite("Streaks corpus coverage")
struct StreakCorpusTests {
    static let cases = Repository.corpus.cases(area: "streaks")

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
