import Foundation
import GlowBundle
import GlowModel
import GlowStreaks
import Testing

/// README's "Your first app", compiled and run: the code between the markers below is README's
/// block line for line (the second test checks), so the walkthrough cannot drift from the API.
@Suite("README walkthrough")
struct WalkthroughTests {
    @Test("the walkthrough runs and does what its comments say")
    func walkthrough() throws {
        // README: begin
        // Mia lives in London and her day starts at 03:00. She picks "Drink 8 glasses of water".
        let start = try Instant(rfc3339: "2026-11-27T09:00:00Z")
        let london = try DayBoundary(timeZone: TimeZoneID("Europe/London"), dayStartMinutes: 180)
        let mia = try Profile(
            userID: UserID(high: 1, low: 1), displayName: "Mia", boundary: london, createdAt: start, modifiedAt: start)
        let draft = InspirationCatalogue.interest(try Slug("nutrition"))!.templates[0].draft
        let water = try draft.makeGoal(id: GoalID(high: 2, low: 1), today: london.day(containing: start), now: start)
        var app = try Tracker(data: DataSet(profile: mia, goals: [water], checkIns: []), now: start)

        // On her phone: a glass at 01:30 still counts for the 27th. Then she flies to New York.
        let (phone, watch) = (DeviceID(high: 3, low: 1), DeviceID(high: 3, low: 2))
        try app.tap(.count(1), goal: water.id, at: Instant(rfc3339: "2026-11-28T01:30:00Z"), device: phone)
        let newYork = try DayBoundary(timeZone: TimeZoneID("America/New_York"), dayStartMinutes: 180)
        try app.editProfile(at: Instant(rfc3339: "2026-11-28T12:00:00Z")) { $0.boundary = newYork }
        try app.tap(.count(2), goal: water.id, at: Instant(rfc3339: "2026-11-28T20:00:00Z"), device: phone)
        let halfway = app.todayItems[0]  // thousandths 250: 2 of 8 glasses on the 28th, New York time

        // A bundle takes her data to her watch, which logs offline; its bundle comes back and merges.
        let options = BundleOptions(createdAt: .now)
        var onWatch = try BundleReader().importing(BundleWriter.bundle(app.data, options: options), into: DataSet())
        let late = try Instant(rfc3339: "2026-11-28T21:00:00Z")
        try onWatch.tap(.count(3), goal: water.id, at: late, device: watch, boundary: newYork)
        try app.merge(BundleReader().importing(BundleWriter.bundle(onWatch, options: options), into: DataSet()))
        let merged = app.todayItems[0]  // thousandths 625: the phone's 2 and the watch's 3 glasses, none lost
        // README: end
        #expect(halfway.thousandths == 250 && halfway.status == .partial(thousandths: 250))
        #expect(merged.thousandths == 625 && merged.status == .partial(thousandths: 625))
        let day = { (text: String) in CheckInKey(goalID: water.id, day: try Day(iso: text)) }
        #expect(app.data.checkIn(try day("2026-11-27"))?.log == .tally(1))
        let eightyEight = try #require(app.data.checkIn(try day("2026-11-28")))
        #expect(eightyEight.log == .tally(5) && eightyEight.taps.count == 2)
        #expect(Set(eightyEight.taps.map(\.deviceID)) == [phone, watch])
        #expect(app.data == onWatch.merging(app.data))
    }

    @Test("README.md shows exactly the walkthrough's code")
    func readmeMatches() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let marker = "// README: "
        let lines = source.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex { $0.hasSuffix(marker + "begin") })
        let end = try #require(lines.firstIndex { $0.hasSuffix(marker + "end") })
        let tested = lines[(begin + 1)..<end].map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : $0 }
        // The Tracker's walkthrough, after the app object's block in "Your first app".
        let section = try #require(readme.range(of: "Use a `Tracker` instead"))
        let fence = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: fence.upperBound..<readme.endIndex))
        let shown = readme[fence.upperBound..<close.lowerBound].components(separatedBy: "\n")
        let imports = shown.prefix { $0.hasPrefix("import ") || $0.isEmpty }
        #expect(imports.contains("import GlowStreaks") && imports.contains("import GlowBundle"))
        #expect(Array(shown.dropFirst(imports.count)) == tested)
    }
}
