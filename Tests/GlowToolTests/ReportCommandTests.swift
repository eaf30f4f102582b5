import Foundation
import GlowBundle
import GlowModel
import GlowStreaks
import Testing

/// `glow-tool report` (issue 18): the page's figures and grid cells are the SDK's for the sample
/// person, and the page is self-contained.
@Suite("glow-tool report")
struct ReportCommandTests {
    static let day = "2026-11-28"

    /// Every match of `pattern`'s first two groups in `text`.
    static func pairs(_ pattern: String, in text: String) throws -> [(String, String)] {
        let expression = try NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).map { match in
            (String(text[Range(match.range(at: 1), in: text)!]), String(text[Range(match.range(at: 2), in: text)!]))
        }
    }

    /// "100:1,3:40" as [100: 1, 3: 40].
    static func counts(_ text: String) -> [Int: Int] {
        Dictionary(
            text.split(separator: ",").map { pair in
                let parts = pair.split(separator: ":")
                return (Int(parts[0]) ?? -1, Int(parts[1]) ?? -1)
            }, uniquingKeysWith: { _, _ in -1 })
    }

    /// A grid's month labels: each stands over the column of its month's first Day, and every
    /// month that begins three or more columns into the grid has one; only the first label may
    /// stand over a column with no first Day, and then it names that column's month.
    static func checkMonths(_ section: String, title: String) throws {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let labels = try pairs(#"<text class="month" x="(\d+)" y="10">(\w+)</text>"#, in: section)
        let cells = try pairs(#"<rect x="(\d+)" y="\d+" class="l\d" data-day="([0-9-]+)""#, in: section)
        let firsts = cells.filter { $0.1.hasSuffix("-01") }
        let name = { (day: String) in names[Int(day.split(separator: "-")[1])! - 1] }
        let origin = Int(cells.first!.0)!
        let expected =
            firsts.filter { Int($0.0)! - origin >= 3 * 14 }.map { ($0.0, name($0.1)) }
        #expect(!labels.isEmpty, "\(title): month labels")
        #expect(labels.suffix(expected.count).map(\.0) == expected.map(\.0), "\(title): months over their first Days")
        #expect(labels.suffix(expected.count).map(\.1) == expected.map(\.1), "\(title): the months' names")
        for (x, month) in labels.dropLast(expected.count) {
            let column = cells.filter { $0.0 == x }
            #expect(!column.isEmpty && column.contains { name($0.1) == month }, "\(title): \(month) at \(x)")
        }
        #expect(labels.count <= expected.count + 1)
    }

    @Test("every figure and every grid cell is the Overview query's; Today is the SDK's; nothing is fetched")
    func figures() throws {
        let run = try EndToEndTests.run(["report", EndToEndTests.sample, "--day", Self.day, "--weeks", "20"])
        #expect(run.status == 0, "\(run.stderr)")
        let html = run.stdout
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"))
        let (data, _) = try BundleReader().dataSet(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: EndToEndTests.sample))))
        let boundary = data.profile!.boundary
        let today = try Day(iso: Self.day)
        let evaluations = TodayQuery.evaluations(data, weekStart: boundary.weekStart, today: today)
        let sections = html.components(separatedBy: "<section class=\"goal\"").dropFirst()
        #expect(sections.count == evaluations.count)
        for (section, evaluation) in zip(sections, evaluations) {
            let item = OverviewQuery.item(evaluation, weeks: 20)
            let attributes = Dictionary(
                try Self.pairs(#"data-(\w+)="([^"]*)""#, in: section.components(separatedBy: ">").first!),
                uniquingKeysWith: { a, _ in a })
            #expect(attributes["goal"] == evaluation.goal.id.description)
            #expect(attributes["current"] == "\(item.current?.length ?? 0)", "\(item.title)")
            #expect(attributes["longest"] == "\(item.longest?.length ?? 0)")
            #expect(attributes["last7"] == "\(item.last7?.thousandths ?? -1)")
            #expect(attributes["last30"] == "\(item.last30?.thousandths ?? -1)")
            #expect(attributes["last365"] == "\(item.last365?.thousandths ?? -1)")
            let milestones = Dictionary(evaluation.milestones.map { ($0.id.milestone, 1) }, uniquingKeysWith: +)
            #expect(
                try Self.pairs(#"(data-milestones)="([^"]*)""#, in: section).first.map { Self.counts($0.1) } ?? [:]
                    == milestones, "\(item.title): the milestones reached")
            let cells = try Self.pairs(#"class="l(\d)" data-day="([0-9-]+)""#, in: section)
            if evaluation.completion == nil {
                #expect(cells.map(\.1) == item.grid.map(\.day.description), "\(item.title): the grid's Days")
                #expect(cells.map(\.0) == item.grid.map { "\($0.level)" }, "\(item.title): the grid's levels")
                try Self.checkMonths(section, title: item.title)
            } else {
                #expect(cells.isEmpty && section.contains("data-completion=\"\(evaluation.completion!.thousandths)\""))
            }
        }
        let todayRows = try Self.pairs(#"<li data-goal="([^"]+)" data-status="([^"]+)""#, in: html)
        #expect(
            todayRows.map(\.0) == evaluations.filter(\.isOnToday).map(\.goal.id.description)
                && todayRows.map(\.1) == evaluations.filter(\.isOnToday).map { $0.status(on: today).name })
    }

    @Test("the page's streaks and consistency are glow-tool stats's, goal by goal")
    func sameAsStats() throws {
        let page = try EndToEndTests.run(["report", EndToEndTests.sample, "--day", Self.day]).stdout
        let stats = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", Self.day, "--json"])
        let goals = try #require(
            (try JSONSerialization.jsonObject(with: stats.output) as? [String: Any])?["goals"] as? [[String: Any]])
        // Each section's opening tag: its goal and figures.
        let sections = try Self.pairs(#"<section class="goal" data-goal="([^"]+)"([^>]*)>"#, in: page)
        #expect(sections.count == goals.count && !goals.isEmpty)
        for (id, tag) in sections {
            let goal = try #require(goals.first { $0["goalID"] as? String == id }, "\(id) is in stats")
            let figures = Dictionary(try Self.pairs(#"data-(\w+)="(-?\d+)""#, in: tag), uniquingKeysWith: { a, _ in a })
            // A share of Days done in thousandths, rounded down; -1 where nothing was due.
            func share(_ key: String) -> String {
                let window = goal[key] as? [String: Int] ?? [:]
                let (done, due) = (window["done"] ?? 0, window["due"] ?? 0)
                return due == 0 ? "-1" : "\(done * 1000 / due)"
            }
            #expect(figures["current"] == "\(goal["currentStreak"] as? Int ?? -2)", "\(id)")
            #expect(figures["longest"] == "\(goal["longestStreak"] as? Int ?? -2)", "\(id)")
            #expect(figures["last7"] == share("last7") && figures["last30"] == share("last30"), "\(id)")
            #expect(figures["strength"] == "\(goal["strength"] as? Int ?? -1)", "\(id)")
        }
    }

    @Test("each recurring goal's strength chart draws the SDK's strength through each of its Days")
    func strengthChart() throws {
        let page = try EndToEndTests.run(["report", EndToEndTests.sample, "--day", Self.day]).stdout
        let (data, _) = try BundleReader().dataSet(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: EndToEndTests.sample))))
        let today = try Day(iso: Self.day)
        let evaluations = TodayQuery.evaluations(data, weekStart: data.profile!.boundary.weekStart, today: today)
        let sections = page.components(separatedBy: "<section class=\"goal\"").dropFirst()
        #expect(sections.count == evaluations.count)
        var charts = 0
        for (section, evaluation) in zip(sections, evaluations) {
            let points = try Self.pairs(#"<circle [^>]*data-day="([0-9-]+)" data-strength="(\d+)""#, in: section)
            guard let strength = evaluation.strength else {
                #expect(points.isEmpty && !section.contains("Strength"), "\(evaluation.goal.title) has no strength")
                continue
            }
            charts += 1
            let series = strength.series(lastDays: 84)  // the chart's twelve weeks
            #expect(points.map(\.0) == series.map(\.day.description), "\(evaluation.goal.title): the chart's Days")
            #expect(
                points.map(\.1) == series.map { "\($0.thousandths)" }, "\(evaluation.goal.title): the chart's values")
            #expect(section.contains(strength.weekSummary(last7: evaluation.consistency(lastDays: 7))))
            #expect(section.contains(strength.monthSummary), "the 30 Days and what moved them")
        }
        #expect(charts >= 5)
    }

    @Test("a Glow database is read as it is, without a write; other databases are refused by name")
    func database() throws {
        let path = EndToEndTests.temporary("report.sqlite")
        #expect(try EndToEndTests.run(["store", "--db", path, "import", EndToEndTests.sample]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let fromDatabase = try EndToEndTests.run(["report", path, "--day", Self.day])
        let fromBundle = try EndToEndTests.run(["report", EndToEndTests.sample, "--day", Self.day])
        #expect(fromDatabase.status == 0, "\(fromDatabase.stderr)")
        #expect(fromDatabase.stdout == fromBundle.stdout && fromBundle.stdout.contains("<section class=\"goal\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // Writing the page over its own input is refused before anything is written.
        let link = EndToEndTests.temporary("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        for output in [path, link] {
            let over = try EndToEndTests.run(["report", path, "-o", output, "--day", Self.day])
            #expect(over.status == 64 && over.stderr.contains("is the input"), "\(over.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // A SQLite file that is some other program's: refused, named, and left alone.
        let foreign = EndToEndTests.temporary("foreign.sqlite")
        var bytes = [UInt8](before)
        bytes.replaceSubrange(68..<72, with: [0, 0, 0, 7])  // the header's application_id
        try Data(bytes).write(to: URL(fileURLWithPath: foreign))
        let refused = try EndToEndTests.run(["report", foreign, "--day", Self.day])
        #expect(
            refused.status == 1 && refused.stderr.contains("not a Glow database") && refused.stderr.contains(foreign))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: foreign))) == bytes)
    }

    @Test("a person with no goals gets a page that says so")
    func empty() throws {
        let path = EndToEndTests.temporary("empty.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        let run = try EndToEndTests.run(["report", path, "--day", Self.day])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Nothing is due today.") && run.stdout.contains("No goals yet."))
        #expect(!run.stdout.contains("<section class=\"goal\"") && run.stdout.contains("<h1><bdi>Someone</bdi></h1>"))
        let sample = try EndToEndTests.run(["report", EndToEndTests.sample, "--day", Self.day])
        #expect(!sample.stdout.contains("Nothing is due today.") && !sample.stdout.contains("No goals yet."))
    }

    @Test("themes and modes colour the page; mistakes are usage errors")
    func options() throws {
        let light = try EndToEndTests.run(["report", EndToEndTests.sample, "--day", Self.day, "--theme", "ocean"])
        let dark = try EndToEndTests.run(
            ["report", EndToEndTests.sample, "--day", Self.day, "--theme", "ocean", "--mode", "dark"])
        #expect(light.status == 0 && dark.status == 0 && light.stdout != dark.stdout)
        #expect(light.stdout.contains("Ocean theme"))
        // Printed, the dark page takes the light palette; the light page needs no such rule.
        let background = try Self.pairs(#"(body)\{background:(#[0-9A-F]{6})"#, in: light.stdout).map(\.1)
        let printed = try Self.pairs(#"(@media print)\{body\{background:(#[0-9A-F]{6})"#, in: dark.stdout).map(\.1)
        #expect(background.count == 1 && printed == background)
        #expect(!light.stdout.contains("@media print{body"))
        #expect(try Self.pairs(#"(body)\{background:(#[0-9A-F]{6})"#, in: dark.stdout).first?.1 != background.first)
        let output = EndToEndTests.temporary("report.html")
        #expect(try EndToEndTests.run(["report", EndToEndTests.sample, "-o", output, "--day", Self.day]).status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try EndToEndTests.run(["report", EndToEndTests.sample, "--theme", "neon"]).status == 64)
        #expect(try EndToEndTests.run(["report", EndToEndTests.sample, "--weeks", "0"]).status == 64)
        #expect(try EndToEndTests.run(["report", EndToEndTests.sample, "--mode", "dim"]).status == 64)
    }
}
