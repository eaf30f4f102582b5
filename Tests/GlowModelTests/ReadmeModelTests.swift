import GlowModel
import Testing

/// README's GlowModel block, compiled and run (Tests/PackageTests/ReadmeBlocksTests.swift checks
/// that the code between the markers is the block).
@Suite("README: GlowModel")
struct ReadmeModelTests {
    @Test("a late check-in belongs to yesterday, and a draft becomes a goal")
    func block() throws {
        // README: begin
        let boundary = try DayBoundary(timeZone: TimeZoneID("Europe/London"), dayStartMinutes: 180)
        let lateNight = try Instant(rfc3339: "2026-11-29T01:30:00Z")
        let day = boundary.day(containing: lateNight)  // 2026-11-28: before 03:00 it is still yesterday

        let draft = GoalDraft(
            title: "Drink water", emoji: "💧", kind: .tally(TallyConfig(dailyTarget: 8, unit: "glasses")),
            schedule: .daily)
        var ids = UUIDv7Generator()
        let goal = try draft.makeGoal(id: ids.next(), today: boundary.day(containing: .now), now: .now)
        // README: end
        #expect(day == (try Day(iso: "2026-11-28")))
        #expect(goal.title == "Drink water" && goal.startDay == boundary.day(containing: .now))
    }
}
