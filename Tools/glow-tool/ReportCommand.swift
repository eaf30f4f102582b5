import Foundation
import GlowModel
import GlowStreaks
import GlowThemes

/// `glow-tool report`: a person's year at a glance as one self-contained HTML page (issue 18):
/// inline CSS and SVG only, no script and nothing fetched, in the chosen theme's colours. Every
/// figure is the SDK's own (Today, the Overview query), and each is also in a `data-` attribute,
/// so a test can read the page back and compare.
enum ReportCommand {
    /// What `glow-tool report` was asked.
    struct Options: Equatable {
        var input: String
        var output: String?
        var theme: String?
        var mode: String?
        var day: String?
        var weeks = 53
    }

    static func run(_ options: Options) throws {
        let data = try Files.dataSet(options.input)
        let boundary = data.profile?.boundary ?? (try! DayBoundary(timeZone: .utc))
        var today = boundary.day(containing: .now)
        if let text = options.day {
            do { today = try Day(iso: text) } catch { throw UsageErrorInRun(message: "--day: \(error.message)") }
        }
        guard (1...520).contains(options.weeks) else {
            throw UsageErrorInRun(message: "--weeks takes 1 ... 520 weeks, not \(options.weeks)")
        }
        var mode = Mode.light
        if let text = options.mode {
            do { mode = try Mode(parsing: text) } catch { throw UsageErrorInRun(message: "--mode: \(error.message)") }
        }
        let themeID = options.theme ?? data.profile?.themeID.rawValue ?? Theme.standard.id
        let (theme, fellBack) = Theme.resolve(id: themeID)
        if options.theme != nil && fellBack {
            throw UsageErrorInRun(message: "--theme: there is no theme '\(themeID)'")
        }
        let html = page(data, boundary: boundary, today: today, theme: theme, mode: mode, weeks: options.weeks)
        try Files.write(Array(html.utf8), to: options.output ?? "-")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func percent(_ consistency: Consistency?) -> String {
        guard let thousandths = consistency?.thousandths else { return "–" }
        return "\(thousandths / 10)%"
    }

    /// The page.
    static func page(_ data: DataSet, boundary: DayBoundary, today: Day, theme: Theme, mode: Mode, weeks: Int)
        -> String
    {
        let palette = theme.palette(mode)
        func color(_ role: Role) -> String { palette[role].hex }
        let evaluations = TodayQuery.evaluations(data, weekStart: boundary.weekStart, today: today)
        let name = escape(data.profile?.displayName ?? "Someone")
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(name) · \(today)</title>
            <style>
            body{margin:0;padding:24px;font:16px/1.4 system-ui,sans-serif;background:\(color(.background));color:\(color(.primaryText))}
            h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.2em;margin:24px 0 8px}
            .muted{color:\(color(.secondaryText))}
            .goal{background:\(color(.surface));border-radius:14px;padding:12px 16px;margin:12px 0;overflow-wrap:anywhere}
            .figures{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0 8px}
            svg{max-width:100%;height:auto}
            .bar{height:12px;border-radius:6px;background:\(color(.heatmap0));overflow:hidden}
            .bar>div{height:100%;background:\(color(.heatmap4))}
            ul{padding-left:20px}
            @media print{body{background:#fff}}
            </style></head><body>
            <h1>\(name)</h1>
            <p class="muted" data-day="\(today)">\(today) · \(escape(theme.name)) theme</p>

            """
        html += "<h2>Today</h2><ul class=\"today\">\n"
        for evaluation in evaluations where evaluation.isOnToday {
            let status = evaluation.status(on: today).name
            html +=
                "<li data-goal=\"\(evaluation.goal.id)\" data-status=\"\(status)\">\(escape(evaluation.goal.emoji ?? "")) \(escape(evaluation.goal.title)): \(status)</li>\n"
        }
        html += "</ul>\n<h2>Goals</h2>\n"
        for evaluation in evaluations {
            let item = OverviewQuery.item(evaluation, weeks: weeks)
            let goal = evaluation.goal
            html += """
                <section class="goal" data-goal="\(goal.id)" data-current="\(item.current?.length ?? 0)" data-longest="\(item.longest?.length ?? 0)" data-last7="\(item.last7?.thousandths ?? -1)" data-last30="\(item.last30?.thousandths ?? -1)" data-last365="\(item.last365?.thousandths ?? -1)">
                <h3>\(escape(goal.emoji ?? "")) \(escape(goal.title))</h3>

                """
            if let completion = evaluation.completion {
                let share = min(1000, max(0, completion.thousandths))
                html += """
                    <div class="bar" role="img" aria-label="\(completion.thousandths / 10)% done" data-completion="\(completion.thousandths)"><div style="width:\(Double(share) / 10)%"></div></div>

                    """
            } else {
                html += """
                    <div class="figures"><span>Streak \(item.current?.length ?? 0) days</span><span>Longest \(item.longest?.length ?? 0)</span><span>7 days \(percent(item.last7))</span><span>30 days \(percent(item.last30))</span><span>365 days \(percent(item.last365))</span></div>

                    """
                html += grid(item, evaluation: evaluation, weekStart: boundary.weekStart, color: color)
            }
            let reached = evaluation.milestones.map(\.id.milestone)
            if !reached.isEmpty {
                html +=
                    "<p class=\"muted\" data-milestones=\"\(reached.map(String.init).joined(separator: ","))\">Milestones: \(reached.map { "\($0) days" }.joined(separator: ", "))</p>\n"
            }
            html += "</section>\n"
        }
        html += "<h2>Legend</h2><p>"
        for level in 0...4 {
            html +=
                "<svg width=\"14\" height=\"14\" role=\"img\" aria-label=\"level \(level)\"><rect width=\"14\" height=\"14\" rx=\"3\" fill=\"\(color(Role.heatmap(level: level)))\"/></svg> "
        }
        html += "<span class=\"muted\">less → more</span></p>\n</body></html>\n"
        return html
    }

    /// The contribution-style grid: one column per week (weeks start on the person's week start),
    /// one square per Day, coloured by its heatmap level, named for screen readers.
    static func grid(
        _ item: OverviewItem, evaluation: GoalEvaluation, weekStart: Weekday, color: (Role) -> String
    ) -> String {
        guard let first = item.grid.first?.day else { return "" }
        let offset = (first.weekday.isoNumber - weekStart.isoNumber + 7) % 7
        let columns = (item.grid.count + offset + 6) / 7
        var svg =
            "<svg class=\"grid\" viewBox=\"0 0 \(columns * 14) 98\" width=\"\(columns * 14)\" height=\"98\" role=\"img\" aria-label=\"\(escape(item.title)): \(item.grid.count) days\">"
        for (index, cell) in item.grid.enumerated() {
            let position = index + offset
            let status = evaluation.status(on: cell.day).name
            svg +=
                "<rect class=\"cell\" x=\"\(position / 7 * 14)\" y=\"\(position % 7 * 14)\" width=\"12\" height=\"12\" rx=\"3\" fill=\"\(color(Role.heatmap(level: cell.level)))\" data-day=\"\(cell.day)\" data-level=\"\(cell.level)\"><title>\(cell.day): \(status)</title></rect>"
        }
        return svg + "</svg>\n"
    }
}
