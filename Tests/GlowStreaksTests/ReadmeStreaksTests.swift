import GlowModel
import GlowStreaks
import Testing

/// README's GlowStreaks block, compiled and run (Tests/PackageTests/ReadmeBlocksTests.swift checks
/// that the code between the markers is the block).
@Suite("README: GlowStreaks")
struct ReadmeStreaksTests {
    @Test("twelve Days done make a streak of 12, and today is still pending")
    func block() throws {
        let today = try Day(iso: "2026-11-28")
        let start = today.advanced(by: -30)
        let goal = try Goal(
            id: GoalID(high: 1, low: 1), title: "Stretch", kind: .streak, schedule: Schedule(.daily, from: start),
            startDay: start, createdAt: .epoch, modifiedAt: .epoch)
        var data = try DataSet(profile: nil, goals: [goal], checkIns: [])
        for back in 1...12 {
            let day = today.advanced(by: -back)
            try data.tap(
                .done, goal: goal.id, on: day, at: try Instant(rfc3339: "2026-11-28T12:00:00Z"),
                device: DeviceID(high: 9, low: 9), boundary: .utc)
        }
        let checkIns = data.checkIns(of: goal.id)
        let goals = [goal]
        // README: begin
        let evaluation = GoalEvaluation(goal: goal, checkIns: checkIns, weekStart: .monday, today: today)
        let streak = evaluation.currentStreak?.length  // 12
        let status = evaluation.status(on: today)  // .pending: today never breaks a streak
        let due = TodayQuery.items(goals: goals, checkIns: checkIns, weekStart: .monday, today: today)
        // README: end
        #expect(streak == 12)
        #expect(status == .pending)
        #expect(due.map(\.goalID) == [goal.id])
    }
}
