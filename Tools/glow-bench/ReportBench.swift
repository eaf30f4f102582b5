import Foundation
import GlowBundle
import GlowModel
import GlowReport
import GlowStreaks
import GlowThemes

/// `glow-tool report`'s page (issue 18's target: the heavy person's in under 200 ms and 3 MB),
/// against the floor under it: the Today and Overview queries whose answers the page draws.
enum ReportBench {
    static func run() throws {
        say("\n== report: the heavy person's year as one HTML page (53 weeks per goal)")
        let data = try DataSets.make(DataSets.heavy)
        let today = data.checkIns.map(\.day).max()!
        let bundle = BundleWriter.bundle(data, options: BundleOptions(createdAt: .epoch))
        var size = 0
        let page = try Timing.measure(samples: 7) {
            let html = try ReportPage.html(data, today: today, theme: .standard, mode: .light)
            size = html.utf8.count
            blackHole(html)
        }
        let fromBundle = try Timing.measure(samples: 7) {
            let read = try BundleReader().dataSet(bundle).0
            blackHole(try ReportPage.html(read, today: today, theme: .standard, mode: .light))
        }
        let queries = Timing.measure(samples: 7) {
            let evaluations = TodayQuery.evaluations(data, weekStart: .monday, today: today)
            blackHole(evaluations.map { OverviewQuery.item($0, weeks: 53) })
        }
        record("report", "pageHeavy", page.median)
        record("report", "fromBundleHeavy", fromBundle.median)
        record("report", "bytesHeavy", Double(size))
        say(
            "report   the heavy person's page: \(milliseconds(page.median)), \(String(format: "%.2f", Double(size) / 1_000_000)) MB (targets < 200 ms, < 3 MB); the queries it draws alone: \(milliseconds(queries.median)) (the page costs \(String(format: "%.1f", page.median / queries.median))× them)"
        )
        say(
            "report   from the heavy bundle's bytes (read, then the page): \(milliseconds(fromBundle.median)); the page is \(String(format: "%.1f", Double(size) / Double(bundle.count)))× the bundle's \(bundle.count / 1000) KB"
        )
    }
}
