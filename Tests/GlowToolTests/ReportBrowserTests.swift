import Foundation
import GlowBundle
import GlowModel
import GlowStreaks
import Testing

/// `glow-tool report` in a real browser (issue 18): Debian's Chromium, headless, renders the
/// sample person's page at a phone's width and a desktop's, and the DOM shows no console error,
/// every grid with its cells drawn, and every text inside its box. Runs where Chromium is
/// installed; `.ci/run` installs it and sets `GLOW_REQUIRE_CHROMIUM`, so there it cannot skip.
///
/// `GLOW_REPORT_SCREENSHOT=Spec/examples/report.png swift test --filter ReportBrowser` writes the
/// screenshot the README shows.
@Suite(
    "glow-tool report in Chromium",
    .enabled(
        if: HeadlessChromium.executable != nil || ProcessInfo.processInfo.environment["GLOW_REQUIRE_CHROMIUM"] != nil,
        "Chromium is not installed"))
struct ReportBrowserTests {
    /// What the page's DOM says, gathered in one evaluation: each goal's drawn cells, every text
    /// element that overflows its box or the viewport, and whether the page scrolls sideways.
    static let survey = """
        (() => {
          const width = document.documentElement.clientWidth;
          const name = (element) => element.tagName.toLowerCase() + ' "' + element.textContent.trim().slice(0, 40) + '"';
          const overflowing = [];
          for (const element of document.querySelectorAll('h1, h2, h3, p, li, span, .figures, .goal')) {
            const box = element.getBoundingClientRect();
            if (element.scrollWidth > element.clientWidth + 1 || box.left < -0.5 || box.right > width + 0.5) {
              overflowing.push(name(element));
            }
          }
          const goals = [...document.querySelectorAll('section.goal')].map((section) => {
            const cells = [...section.querySelectorAll('svg.grid rect')];
            const grid = section.querySelector('svg.grid');
            const outside = grid && grid.getBoundingClientRect().right > section.getBoundingClientRect().right + 0.5;
            // The latest Day's cell is in view: inside the section's box, not scrolled away.
            const box = section.getBoundingClientRect();
            const last = cells.length ? cells[cells.length - 1].getBoundingClientRect() : null;
            const latestInView = !last || (last.left >= box.left - 0.5 && last.right <= box.right + 0.5);
            return {
              latestInView,
              cellSize: cells.length ? cells[0].getBoundingClientRect().width : 0,
              goal: section.dataset.goal,
              cells: cells.length,
              drawn: cells.filter((cell) => { const box = cell.getBoundingClientRect(); return box.width >= 2 && box.height >= 2; }).length,
              outside: !!outside,
            };
          });
          return { width, overflowing, goals, sideways: document.documentElement.scrollWidth > width };
        })()
        """

    /// The sample person's page, as `glow-tool report` writes it, in a file the browser opens.
    static func page(_ extra: String = "", mode: String = "light", weeks: Int = 53) throws -> URL {
        let run = try EndToEndTests.run(
            ["report", EndToEndTests.sample, "--day", ReportCommandTests.day, "--mode", mode, "--weeks", "\(weeks)"])
        guard run.status == 0 else { throw BrowserFailure(description: "glow-tool report failed: \(run.stderr)") }
        let url = URL(fileURLWithPath: EndToEndTests.temporary("report.html"))
        try Data(run.stdout.replacingOccurrences(of: "</body>", with: extra + "</body>").utf8).write(to: url)
        return url
    }

    static func browser() throws -> HeadlessChromium {
        guard let executable = HeadlessChromium.executable else {
            throw BrowserFailure(description: "GLOW_REQUIRE_CHROMIUM is set, but there is no /usr/bin/chromium")
        }
        let browser = try HeadlessChromium(executable: executable)
        try browser.openPage()
        return browser
    }

    @Test(
        "light and dark, at 360 and 1280 pixels: no console error, every grid's cells drawn, every text inside its box")
    func rendersCleanly() throws {
        let (data, _) = try BundleReader().dataSet(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: EndToEndTests.sample))))
        let today = try Day(iso: ReportCommandTests.day)
        let evaluations = TodayQuery.evaluations(data, weekStart: data.profile!.boundary.weekStart, today: today)
        func expected(_ weeks: Int) -> [Int] {
            evaluations.map { evaluation in
                evaluation.completion == nil ? OverviewQuery.item(evaluation, weeks: weeks).grid.count : 0
            }
        }
        #expect(expected(53).contains { $0 > 300 }, "the sample person has goals with a year's grid")

        let browser = try Self.browser()
        // Ten years of weeks keep their cells' size too: the grid's box scrolls (issue 27).
        for (mode, width, weeks) in [
            ("light", 360, 53), ("light", 1280, 53), ("dark", 360, 53), ("dark", 1280, 53), ("light", 1280, 520),
        ] {
            let expected = expected(weeks)
            try browser.load(try Self.page(mode: mode, weeks: weeks), width: width)
            let survey = try #require(try browser.evaluate(Self.survey) as? [String: Any])
            #expect(survey["width"] as? Int == width)
            #expect(survey["overflowing"] as? [String] == [], "\(mode) at \(width) px")
            #expect(survey["sideways"] as? Bool == false, "\(mode) at \(width) px the page scrolls sideways")
            let goals = try #require(survey["goals"] as? [[String: Any]])
            #expect(goals.map { $0["goal"] as? String } == evaluations.map { $0.goal.id.description })
            #expect(goals.map { $0["cells"] as? Int } == expected, "\(mode) at \(width) px")
            #expect(goals.map { $0["drawn"] as? Int } == expected, "\(mode) at \(width) px: cells with no size")
            #expect(
                goals.allSatisfy { $0["outside"] as? Bool == false }, "\(mode) at \(width) px a grid leaves its box")
            #expect(
                goals.allSatisfy { $0["latestInView"] as? Bool == true }, "\(mode) at \(width) px: today out of view")
            // Days stay big enough to see and to tap: the grid scrolls rather than shrinks.
            let sizes = goals.compactMap { $0["cellSize"] as? Double }.filter { $0 > 0 }
            #expect(
                !sizes.isEmpty && sizes.allSatisfy { $0 >= 8 },
                "\(mode) at \(width) px: cells of \(sizes.min() ?? 0) px")
            if mode == "light" && width == 1280 && weeks == 53 {
                let shot = try browser.screenshot(width: width, height: 1100)
                #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                // The PNG's header: its width and height, big-endian, at 16 and 20.
                #expect(shot[16..<24].elementsEqual([0, 0, 0x05, 0x00, 0, 0, 0x04, 0x4C]), "1280 × 1100")
                if let path = ProcessInfo.processInfo.environment["GLOW_REPORT_SCREENSHOT"] {
                    try shot.write(to: URL(fileURLWithPath: path, relativeTo: EndToEndTests.root))
                }
            }
        }
        #expect(browser.errors == [])
    }

    @Test("the checks see what they look for: a fetch the page's policy blocks, a text that overflows")
    func checksCanFail() throws {
        let browser = try Self.browser()
        let page = try Self.page(
            #"<img src="https://glow.invalid/pixel.png" alt=""><p style="width:40px;white-space:nowrap">an unbreakable line</p>"#
        )
        try browser.load(page, width: 360)
        let survey = try #require(try browser.evaluate(Self.survey) as? [String: Any])
        #expect((survey["overflowing"] as? [String])?.contains { $0.contains("an unbreakable line") } == true)
        browser.waitForError(containing: "glow.invalid")
        #expect(browser.errors.contains { $0.contains("glow.invalid") }, "\(browser.errors)")
    }
}
