import Foundation
import GlowModel
import GlowReport
import GlowThemes
import Testing

/// `ReportPage` as an app calls it: what a person typed is text on the page and never markup,
/// the grid follows the person's week start, and a bad week count is a typed error.
@Suite("Report page")
struct ReportPageTests {
    static let person = UserID(high: 0xE, low: 7)
    static let created = try! Instant(rfc3339: "2026-10-01T09:00:00Z")
    static let start = try! Day(iso: "2026-10-01")
    static let today = try! Day(iso: "2026-11-28")
    static let device = try! DeviceID("01938a6e-7c00-7abc-8def-0000000000d7")

    /// A person named `name` who starts weeks on `weekStart`, with one daily goal titled `title`
    /// done on every Day since ``start``.
    static func person(name: String, title: String, weekStart: Weekday = .monday) throws -> DataSet {
        let boundary = try DayBoundary(timeZone: .utc, weekStart: weekStart)
        var data = DataSet()
        try data.setProfile(
            Profile(userID: person, displayName: name, boundary: boundary, createdAt: created, modifiedAt: created))
        let goal = try Goal(
            id: GoalID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_00A1), title: title, kind: .streak,
            schedule: Schedule(.daily, from: start), startDay: start, createdAt: created, modifiedAt: created)
        try data.add(goal)
        var day = start
        while day <= today {
            let noon = try Instant(millisecondsSince1970: Int64(day.daysSince1970) * 86_400_000 + 43_200_000)
            try data.tap(.done, goal: goal.id, at: noon, device: device, boundary: boundary)
            day = day.advanced(by: 1)
        }
        return data
    }

    @Test("names and titles are text, never markup, in elements and in attributes")
    func escapes() throws {
        let hostile = #"<img src=x onerror="alert(1)"> & <script>alert(2)</script>"#
        let name = #"<i onclick="x">Mia</i> & "co""#
        let data = try Self.person(name: name, title: hostile)
        let html = try ReportPage.html(data, today: Self.today, theme: .standard, mode: .light)
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains(#"onerror=""#))
        #expect(
            !html.contains("<i ")
                && html.contains(
                    "<h1><bdi>&lt;i onclick=&quot;x&quot;&gt;Mia&lt;/i&gt; &amp; &quot;co&quot;</bdi></h1>")
        )
        #expect(
            html.contains("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &lt;script&gt;alert(2)&lt;/script&gt;"))
        #expect(html.contains("aria-label=\"\u{2068}&lt;img"), "the grid's label is escaped inside its attribute")
    }

    @Test("a right-to-left override in a name stays inside it: names are isolated in elements and labels")
    func bidiIsolation() throws {
        let title = "Run 5k\u{202E} daily"
        let data = try Self.person(name: "Mia\u{202E}", title: title)
        let html = try ReportPage.html(data, today: Self.today, theme: .standard, mode: .light)
        #expect(html.contains("<h1><bdi>Mia\u{202E}</bdi></h1>"))
        #expect(html.contains("<title>\u{2068}Mia\u{202E}\u{2069} · "))
        #expect(html.contains("<bdi>\(title)</bdi></h3>") && html.contains("<bdi>\(title)</bdi>: "))
        #expect(html.contains("aria-label=\"\u{2068}\(title)\u{2069}: "))
        // Every occurrence of the override is inside an isolate: <bdi> or U+2068 ... U+2069.
        let outside = html.replacingOccurrences(of: "<bdi>[^<]*</bdi>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\u{2068}[^\u{2069}]*\u{2069}", with: "", options: .regularExpression)
        #expect(!outside.contains("\u{202E}"))
    }

    @Test("weekday names and columns follow the person's week start", arguments: [Weekday.monday, .sunday, .saturday])
    func weekStart(_ weekStart: Weekday) throws {
        let data = try Self.person(name: "Mia", title: "Stretch", weekStart: weekStart)
        let html = try ReportPage.html(data, today: Self.today, theme: .standard, mode: .light, weeks: 4)
        let names = html.components(separatedBy: #"<text class="weekday""#).dropFirst().map {
            String($0.split(separator: ">")[1].prefix(3))
        }
        let expected = stride(from: 0, to: 7, by: 2).map { row in
            String(Weekday(isoNumber: (weekStart.isoNumber - 1 + row) % 7 + 1)!.rawValue.prefix(3)).capitalized
        }
        #expect(names == expected)
        // Every cell in the first row is a Day of the week start.
        let firstRow = html.components(separatedBy: #"y="14" class="l"#).dropFirst().map {
            try? Day(iso: String($0.split(separator: "\"")[2]))
        }
        #expect(!firstRow.isEmpty && firstRow.allSatisfy { $0?.weekday == weekStart })
    }

    @Test("a week count outside 1 ... 520 is a typed error naming it", arguments: [0, -3, 521, Int.max])
    func badWeeks(_ weeks: Int) throws {
        let data = try Self.person(name: "Mia", title: "Stretch")
        #expect {
            _ = try ReportPage.html(data, today: Self.today, theme: .ocean, mode: .dark, weeks: weeks)
        } throws: { error in
            (error as? ReportError)?.code == .invalidWeeks && "\(error)".contains("not \(weeks)")
        }
        for weeks in [1, 520] {
            let html = try ReportPage.html(data, today: Self.today, theme: .ocean, mode: .dark, weeks: weeks)
            #expect(html.contains(#"<rect x="#))
        }
    }
}
