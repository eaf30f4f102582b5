import Foundation
import GlowStreaks
import Testing

/// glow-tool stats shows strength (STREAK-27 ... STREAK-29): the figure, the week's change, and
/// the 30 Days with the Days that moved it, in text and in JSON.
@Suite("glow-tool stats and strength")
struct StrengthOutputTests {
    static let day = "2026-11-28"

    /// The sample's profile with one daily yes/no goal started on 2026-11-26 and done on that Day
    /// and the two after: three strength units of value 1000, written as JSON at `path`.
    static func threeDays(_ path: String) throws {
        let url = EndToEndTests.root.appendingPathComponent("Spec/examples/sample.json")
        let sample = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let goals = try #require(sample["goals"] as? [[String: Any]])
        var goal = try #require(goals.first { ($0["kind"] as? [String: Any])?["type"] as? String == "streak" })
        goal["title"] = "Stretch"
        goal["startDay"] = "2026-11-26"
        goal["schedule"] = [["effective": "2026-11-26", "rule": ["type": "daily"]]]
        goal.removeValue(forKey: "forgiveness")
        let checkIns = try #require(sample["checkIns"] as? [[String: Any]])
        let template = try #require(checkIns.first { $0["goalID"] as? String == goal["id"] as? String })
        let days = ["2026-11-26", "2026-11-27", "2026-11-28"]
        let mine = days.map { day in
            var checkIn = template
            checkIn["day"] = day
            checkIn.removeValue(forKey: "note")
            checkIn["log"] = ["type": "done"]
            for key in ["firstRecordedAt", "lastRecordedAt", "modifiedAt"] { checkIn[key] = "\(day)T12:00:00.000Z" }
            return checkIn
        }
        let data: [String: Any] = ["profile": sample["profile"] as Any, "goals": [goal], "checkIns": mine]
        try JSONSerialization.data(withJSONObject: data).write(to: URL(fileURLWithPath: path))
    }

    @Test("three done Days of a daily goal: the strength, its changes and its moves as STREAK-27 computes them")
    func threeDoneDays() throws {
        let path = EndToEndTests.temporary("three.json")
        try Self.threeDays(path)
        let full: Int64 = 1 << 30
        let m = Strength.multiplier(for: .daily)
        // STREAK-27: each done Day takes S to floor((S × M + 2^30 × (2^30 − M)) / 2^30).
        var scores: [Int64] = [0]
        for _ in 0..<3 { scores.append((scores.last! * m + full * (full - m)) >> 30) }
        let reported = scores.map { Int(($0 * 1000) >> 30) }
        // Loop's score after three checked Days: 1 − 0.5^(3/13), 0.147... (rounded down on the way).
        #expect(abs(reported[3] - Int(1000 * (1 - pow(0.5, 3.0 / 13)))) <= 1)
        let json = try EndToEndTests.run(["stats", path, "--day", Self.day, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let row = try #require((stats["goals"] as? [[String: Any]])?.first)
        #expect(row["strength"] as? Int == reported[3])
        // Nothing before the start: the strength through 7 and 30 Days ago is 0.
        #expect(row["strengthChange7"] as? Int == reported[3] && row["strengthChange30"] as? Int == reported[3])
        // The moves (STREAK-29): the first unit lifted the reported strength most; nothing pulled it
        // down, so it is the one move.
        let moves = try #require(row["strengthMoves"] as? [[String: Any]])
        #expect(moves.map { $0["day"] as? String } == ["2026-11-26"])
        #expect(moves.map { $0["change"] as? Int } == [reported[1] - reported[0]])
        #expect(moves.map { $0["outcome"] as? String } == ["done"])
        let lift = reported[1] - reported[0]
        let month =
            "up \(reported[3] / 10).\(reported[3] % 10) points in 30 days: done on 2026-11-26 (+\(lift / 10).\(lift % 10))"
        #expect(row["strengthMonth"] as? String == month)
        // The text: the figure and the week's change in the table, the 30 Days under it.
        let text = try EndToEndTests.run(["stats", path, "--day", Self.day])
        #expect(text.status == 0)
        let line = try #require(text.stdout.split(separator: "\n").first { $0.contains("Stretch") })
        #expect(line.hasSuffix("\((reported[3] + 5) / 10)% (+\(reported[3] / 10).\(reported[3] % 10))"), "\(line)")
        #expect(text.stdout.contains("Strength over 30 days:\n  \u{2068}Stretch\u{2069}: \(month)\n"), "\(text.stdout)")
    }

    @Test("one-off goals show no strength; the sample's recurring goals each show theirs and their 30 Days")
    func sample() throws {
        let json = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", Self.day, "--json"])
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(stats["goals"] as? [[String: Any]])
        let text = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", Self.day]).stdout
        for row in rows {
            let kind = try #require(row["kind"] as? String)
            let title = try #require(row["title"] as? String)
            if ["single", "progress", "countdown"].contains(kind) {
                #expect(row["strength"] == nil && row["strengthMoves"] == nil, "\(title)")
                continue
            }
            guard let strength = row["strength"] as? Int, let month = row["strengthMonth"] as? String else { continue }
            #expect((0...1000).contains(strength))
            let moves = try #require(row["strengthMoves"] as? [[String: Any]])
            // STREAK-29: the lift, then the drop, each when there is one, and none that moved nothing.
            let changes = moves.compactMap { $0["change"] as? Int }
            #expect(changes.count == moves.count && changes.count <= 2 && !changes.contains(0), "\(title): \(changes)")
            #expect(changes.count < 2 || (changes[0] > 0 && changes[1] < 0), "\(title): \(changes)")
            for move in moves {
                let outcome = move["outcome"] as? String ?? "?"
                #expect(month.contains("\(outcome) on \(move["day"] as? String ?? "?")"), "\(title)")
            }
            #expect(text.contains("\u{2068}\(title)\u{2069}: \(month)\n"), "\(title)")
        }
    }

    @Test("the sample's stats read as a person reads them: words agree with numbers, percentages round half up")
    func readingCheck() throws {
        let json = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", Self.day, "--json"])
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(stats["goals"] as? [[String: Any]])
        let text = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", Self.day]).stdout
        var checked = 0
        for row in rows {
            guard let change = row["strengthChange30"] as? Int, let title = row["title"] as? String else { continue }
            let line = try #require(
                text.split(separator: "\n").first { $0.hasPrefix("  \u{2068}\(title)\u{2069}: ") }, "\(title)")
            let words = line.split(separator: ":", maxSplits: 1)[1].split(separator: " ")
            let direction = words.first.map(String.init)
            #expect(direction == (change > 0 ? "up" : change < 0 ? "down" : "steady"), "\(title): \(line), \(change)")
            // Every named move changed the figure: no "±0.0", no "+0.0" or "−0.0".
            #expect(!line.contains("±") && !line.contains("+0.0)") && !line.contains("−0.0)"), "\(line)")
            checked += 1
        }
        #expect(checked >= 8)
        // "67% (2/3)": every consistency in the table is done / due rounded half up.
        let pattern = try NSRegularExpression(pattern: #"(\d+)% \((\d+)/(\d+)\)"#)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        #expect(matches.count >= 10)
        for match in matches {
            let numbers = (1...3).map { Int(text[Range(match.range(at: $0), in: text)!])! }
            #expect(numbers[0] == (200 * numbers[1] + numbers[2]) / (2 * numbers[2]), "\(numbers)")
        }
    }
}
