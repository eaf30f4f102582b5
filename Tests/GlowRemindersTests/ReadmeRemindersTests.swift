import GlowModel
import GlowReminders
import GlowStreaks
import Testing

/// README's GlowReminders block, compiled and run (Tests/PackageTests/ReadmeBlocksTests.swift
/// checks that the code between the markers is the block).
@Suite("README: GlowReminders")
struct ReadmeRemindersTests {
    @Test("setting a goal's reminders re-plans that goal")
    func block() throws {
        let created = try Instant(rfc3339: "2026-11-28T06:00:00Z")
        let boundary = try DayBoundary(timeZone: TimeZoneID("Europe/London"))
        let profile = try Profile(
            userID: UserID(high: 1, low: 1), displayName: "Mia", boundary: boundary, createdAt: created,
            modifiedAt: created)
        let start = boundary.day(containing: .now)
        let goal = try Goal(
            id: GoalID(high: 2, low: 1), title: "Water", kind: .tally(TallyConfig(dailyTarget: 8, unit: "glasses")),
            schedule: Schedule(.daily, from: start), startDay: start, createdAt: created, modifiedAt: created)
        var tracker = try Tracker(data: DataSet(profile: profile, goals: [goal], checkIns: []), now: .now)
        var keeper = try ReminderKeeper(tracker: tracker)
        #expect(keeper.plan.notifications.isEmpty)
        // README: begin
        let update = try tracker.editGoal(goal.id, at: .now) { $0.reminders = try GoalReminders(times: [450, 1200]) }
        let change = keeper.refresh(tracker, after: update)  // cancel change.cancel, add change.add
        // README: end
        #expect(change.cancel.isEmpty && !change.add.isEmpty)
        #expect(Set(change.add.map(\.goal)) == [goal.id])
    }
}
