import GlowCore
import GlowModel
import GlowStreaks
import GlowThemes

/// Why a report could not be written.
public struct ReportError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<ReportError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on, naming the value that was wrong.
    public let message: String
    /// No spec rule: the limit is the report's own.
    public var rule: String? { nil }

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}

/// A person's year at a glance as one self-contained HTML page: inline CSS and SVG only, no
/// script and nothing fetched (the page's content security policy forbids it), in a theme's
/// colours, so it opens offline and prints.
///
/// Every figure is the SDK's own (``TodayQuery``, ``OverviewQuery``), and each is also written
/// in a `data-` attribute, so a program can read the page back and compare:
/// - each goal is a `<section class="goal">` with `data-goal`, `data-current`, `data-longest`
///   and `data-last7`/`30`/`365` (consistency in thousandths, -1 where none);
/// - each grid cell is a `<rect>` whose class `l0` … `l4` is its heatmap level, with `data-day`
///   and a `<title>` naming the Day's status for screen readers;
/// - each of Today's rows is an `<li>` with `data-goal` and `data-status`;
/// - a one-off goal's bar carries `data-completion` (thousandths).
public enum ReportPage {
    /// How many weeks a grid may show: one to ten years.
    public static let weekRange = 1...520

    /// The page for `data` as of `today`: Today, then per goal its streaks, consistency,
    /// milestones and a grid of the last `weeks` weeks aligned to the person's week start (a
    /// progress bar for a one-off goal), then a legend.
    ///
    /// - Throws: ``ReportError`` when `weeks` is outside ``weekRange``.
    public static func html(_ data: DataSet, today: Day, theme: Theme, mode: Mode, weeks: Int = 53)
        throws(ReportError) -> String
    {
        guard weekRange.contains(weeks) else {
            throw ReportError(
                .invalidWeeks, "a report shows \(weekRange.lowerBound) ... \(weekRange.upperBound) weeks, not \(weeks)")
        }
        let weekStart = data.dayBoundary.weekStart
        let evaluations = TodayQuery.evaluations(data, weekStart: weekStart, today: today)
        let person = data.profile?.displayName ?? "Someone"
        // On paper a dark page would be light text on white: print takes the light palette.
        let print = mode == .dark ? "@media print{\(colours(theme.palette(.light)))}\n" : ""
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(isolated(person))) · \(today)</title>
            <style>
            body{margin:0;padding:24px;font:16px/1.4 system-ui,sans-serif;print-color-adjust:exact;-webkit-print-color-adjust:exact}
            h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.2em;margin:24px 0 8px}h3{margin:4px 0}
            h1,h2,h3,p,li,span{overflow-wrap:anywhere}
            .goal,.legend{border-radius:14px;padding:12px 16px;margin:12px 0;min-width:0;break-inside:avoid}
            @media (min-width:1000px){.goals{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));column-gap:16px}}
            .figures{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0 8px}
            svg.grid{display:block;max-width:100%;height:auto}
            .weeks{overflow-x:auto;direction:rtl}.weeks>svg{direction:ltr}.weeks>svg.grid{max-width:none}
            .grid rect{width:12px;height:12px;rx:3px}.grid text{font-size:10px}
            svg.strength{display:block;max-width:100%;height:auto;margin:4px 0}.strength polyline{fill:none;stroke-width:1.5}.strength .axis{stroke-width:0.5;stroke-dasharray:2 3}
            .bar{height:12px;border-radius:6px;overflow:hidden}
            .bar>div{height:100%}
            ul{padding-left:20px}
            \(colours(theme.palette(mode)))
            \(print)</style></head><body>
            <h1>\(name(person))</h1>
            <p class="muted" data-day="\(today)">\(today) · \(escape(theme.name)) theme</p>

            """
        html += "<h2>Today</h2><ul class=\"today\">\n"
        for evaluation in evaluations where evaluation.isOnToday {
            let status = evaluation.status(on: today).name
            html +=
                "<li data-goal=\"\(evaluation.goal.id)\" data-status=\"\(status)\">\(escape(evaluation.goal.emoji ?? "")) \(name(evaluation.goal.title)): \(status)</li>\n"
        }
        html += "</ul>\n"
        if !evaluations.contains(where: \.isOnToday) {
            html += "<p class=\"muted\">Nothing is due today.</p>\n"
        }
        html += "<h2>Goals</h2>\n<div class=\"goals\">\n"
        if evaluations.isEmpty { html += "<p class=\"muted\">No goals yet.</p>\n" }
        for evaluation in evaluations {
            html += section(evaluation, weeks: weeks, weekStart: weekStart)
        }
        html += "</div>\n"
        html += "<section class=\"legend\"><h2>Legend</h2><p>"
        for level in 0...4 {
            html +=
                "<svg class=\"grid\" width=\"12\" height=\"12\" role=\"img\" aria-label=\"level \(level)\" style=\"display:inline\"><rect class=\"l\(level)\"/></svg> "
        }
        html += "<span class=\"muted\">less → more</span></p></section>\n</body></html>\n"
        return html
    }

    /// The page's colours, each a role of `palette` drawn on a role the theme audit pairs it with
    /// (THEME-11): text on the background and on surfaces, heatmap levels on a surface and on the
    /// level before.
    static func colours(_ palette: Palette) -> String {
        func color(_ role: Role) -> String { palette[role].hex }
        let levels = (0...4).map { ".l\($0){fill:\(color(Role.heatmap(level: $0)))}" }.joined()
        return """
            body{background:\(color(.background));color:\(color(.primaryText))}.muted{color:\(color(.secondaryText))}\
            .grid text{fill:\(color(.secondaryText))}\
            .goal,.legend{background:\(color(.surface))}\(levels)\
            .bar{background:\(color(.heatmap0))}.bar>div{background:\(color(.heatmap4))}\
            .strength polyline{stroke:\(color(.heatmap4))}.strength circle{fill:\(color(.heatmap4))}\
            .strength .axis{stroke:\(color(.secondaryText))}
            """
    }

    /// One goal's section: its figures, then its grid or its progress bar, then its milestones.
    static func section(_ evaluation: GoalEvaluation, weeks: Int, weekStart: Weekday) -> String {
        let item = OverviewQuery.item(evaluation, weeks: weeks)
        let goal = evaluation.goal
        var html = """
            <section class="goal" data-goal="\(goal.id)" data-current="\(item.current?.length ?? 0)" data-longest="\(item.longest?.length ?? 0)" data-last7="\(item.last7?.thousandths ?? -1)" data-last30="\(item.last30?.thousandths ?? -1)" data-last365="\(item.last365?.thousandths ?? -1)" data-strength="\(item.strength?.thousandths ?? -1)">
            <h3>\(escape(goal.emoji ?? "")) \(name(goal.title))</h3>

            """
        if let completion = evaluation.completion {
            let share = min(1000, max(0, completion.thousandths))
            html += """
                <div class="bar" role="img" aria-label="\(Percent.of(thousandths: completion.thousandths))% done" data-completion="\(completion.thousandths)"><div style="width:\(Double(share) / 10)%"></div></div>

                """
        } else {
            html += """
                <div class="figures"><span>Streak \(days(item.current?.length ?? 0))</span><span>Longest \(days(item.longest?.length ?? 0))</span><span>7 days \(percent(item.last7))</span><span>30 days \(percent(item.last30))</span><span>365 days \(percent(item.last365))</span></div>

                """
            // On a narrow screen the grid keeps its size and scrolls sideways in its box, the
            // latest weeks in view first (a right-to-left box starts at its right end).
            html += "<div class=\"weeks\">" + grid(item, evaluation: evaluation, weekStart: weekStart) + "</div>\n"
            if let strength = item.strength {
                html += """
                    <div class="figures"><span>Strength \(Percent.of(thousandths: strength.thousandths))%</span><span class="muted">\(strength.weekSummary(last7: item.last7))</span><span class="muted">\(strength.monthSummary)</span></div>
                    \(chart(strength, title: item.title))
                    """
            }
        }
        // Each milestone once, the highest first, with how many streaks reached it.
        let reached = Dictionary(evaluation.milestones.map { ($0.id.milestone, 1) }, uniquingKeysWith: +)
            .sorted { $0.key > $1.key }
        if !reached.isEmpty {
            let attribute = reached.map { "\($0.key):\($0.value)" }.joined(separator: ",")
            // Each kept on one line: "14 days ×13" with no-break spaces.
            let text = reached.map { threshold, count in
                "\(days(threshold))\(count > 1 ? " ×\(count)" : "")".replacingOccurrences(of: " ", with: "\u{A0}")
            }
            html +=
                "<p class=\"muted\" data-milestones=\"\(attribute)\">Milestones: \(text.joined(separator: " · "))</p>\n"
        }
        return html + "</section>\n"
    }

    /// The contribution-style grid: one column per week (weeks start on the person's week start),
    /// one square per Day, coloured by its heatmap level, named for screen readers; the months
    /// above the weeks they begin in, and every other weekday's name on the left.
    static func grid(_ item: OverviewItem, evaluation: GoalEvaluation, weekStart: Weekday) -> String {
        guard let first = item.grid.first?.day else { return "" }
        let offset = (first.weekday.isoNumber - weekStart.isoNumber + 7) % 7
        let columns = (item.grid.count + offset + 6) / 7
        let (left, top) = (28, 14)
        var svg =
            "<svg class=\"grid\" viewBox=\"0 0 \(left + columns * 14) \(top + 98)\" width=\"\(left + columns * 14)\" height=\"\(top + 98)\" role=\"img\" aria-label=\"\(escape(isolated(item.title))): \(item.grid.count) days\">"
        svg.reserveCapacity(item.grid.count * 80 + 1_000)
        for row in stride(from: 0, to: 7, by: 2) {
            let weekday = Weekday(isoNumber: (weekStart.isoNumber - 1 + row) % 7 + 1)!
            svg +=
                "<text class=\"weekday\" x=\"0\" y=\"\(top + row * 14 + 10)\">\(weekday.rawValue.prefix(3).capitalized)</text>"
        }
        for (column, month) in monthLabels(item.grid.map(\.day), offset: offset) {
            svg += "<text class=\"month\" x=\"\(left + column * 14)\" y=\"10\">\(monthNames[month - 1])</text>"
        }
        for (index, cell) in item.grid.enumerated() {
            let position = index + offset
            svg +=
                "<rect x=\"\(left + position / 7 * 14)\" y=\"\(top + position % 7 * 14)\" class=\"l\(cell.level)\" data-day=\"\(cell.day)\"><title>\(cell.day): \(evaluation.status(on: cell.day).name)</title></rect>"
        }
        return svg + "</svg>\n"
    }

    /// Days in a strength chart: the last twelve weeks.
    public static let chartDays = 84

    /// A small line chart of the strength through each of the last ``chartDays`` Days, 0 at the
    /// bottom and full strength at the top; each point carries its Day and value.
    static func chart(_ strength: Strength, title: String) -> String {
        let series = strength.series(lastDays: chartDays)
        let (width, height) = (chartDays * 3, 40)
        let points = series.enumerated().map { index, point in
            "\(index * 3),\(height - 2 - point.thousandths * (height - 4) / 1000)"
        }
        let first = series.first.map { Percent.of(thousandths: $0.thousandths) } ?? 0
        var svg =
            "<svg class=\"strength\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"\(escape(isolated(title))): strength from \(first)% to \(Percent.of(thousandths: strength.thousandths))% over \(chartDays) days\">"
        // Lines at 0, 50% and full strength, so a flat line still reads as high or low.
        for share in [0, 500, 1000] {
            let y = height - 2 - share * (height - 4) / 1000
            svg += "<line class=\"axis\" x1=\"0\" y1=\"\(y)\" x2=\"\(width)\" y2=\"\(y)\"/>"
        }
        svg += "<polyline points=\"\(points.joined(separator: " "))\"/>"
        for (index, point) in series.enumerated() {
            svg +=
                "<circle cx=\"\(index * 3)\" cy=\"\(height - 2 - point.thousandths * (height - 4) / 1000)\" r=\"0.5\" data-day=\"\(point.day)\" data-strength=\"\(point.thousandths)\"/>"
        }
        return svg + "</svg>\n"
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The grid's month labels, as (column, month): each month over the column of its first Day,
    /// and the first column's month when the next label leaves it room (three columns); a label
    /// that would crowd the one before is left out.
    static func monthLabels(_ days: [Day], offset: Int) -> [(column: Int, month: Int)] {
        var labels: [(column: Int, month: Int)] = []
        for (index, day) in days.enumerated() where index == 0 || day.day == 1 {
            let column = (index + offset) / 7
            if let last = labels.last, column - last.column < 3 {
                // The first column's month gives way to the month that begins just after it.
                guard labels.count == 1 && days.first?.day != 1 else { continue }
                labels.removeLast()
            }
            labels.append((column, day.month))
        }
        return labels
    }

    /// A name a person typed (their display name, a goal's title), escaped and isolated in a
    /// `<bdi>` element: a right-to-left override inside it cannot reorder the text around it.
    static func name(_ text: String) -> String { "<bdi>\(escape(text))</bdi>" }

    /// `text` between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, for places
    /// that hold text only (the page's title, an accessible label).
    static func isolated(_ text: String) -> String { "\u{2068}\(text)\u{2069}" }

    /// `text` safe inside an element or a quoted attribute.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 }) else { return text }
        return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// "1 day", "2 days".
    static func days(_ count: Int) -> String { count == 1 ? "1 day" : "\(count) days" }

    /// A consistency as a whole percentage rounded half up (STREAK-29), or a dash where there is
    /// none.
    static func percent(_ consistency: Consistency?) -> String {
        guard let thousandths = consistency?.thousandths else { return "–" }
        return "\(Percent.of(thousandths: thousandths))%"
    }
}

extension ErrorCode where Domain == ReportError {
    /// A number of weeks outside ``ReportPage/weekRange``.
    public static var invalidWeeks: Self { Self("invalid_weeks") }
}
