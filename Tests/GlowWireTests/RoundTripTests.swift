import Foundation
import GlowModel
import GlowWire
import Testing

/// Sample values of every model type that has a binary form.
enum Samples {
    static let now = try! Instant(rfc3339: "2026-11-29T09:15:27.345Z")
    static let today = try! Day(iso: "2026-11-29")
    static let device = try! DeviceID("01938a6e-7c00-7abc-8def-00000000d001")
    static let london = try! TimeZoneID("Europe/London")

    static var goals: [Goal] {
        InspirationCatalogue.interests.flatMap(\.templates).enumerated().map { index, template in
            var draft = template.draft
            draft.note = index % 3 == 0 ? "note \(index) ✨" : nil
            draft.endDay = index % 4 == 0 ? today.advanced(by: 90) : nil
            draft.forgiveness =
                index % 5 == 0 && draft.kind.isRecurring ? Forgiveness(allowance: 2, period: .month) : nil
            draft.visibility = Visibility.allCases[index % 3]
            var goal = try! draft.makeGoal(
                id: GoalID(high: UInt64(index) << 20 | 0x7000, low: 0x8000_0000_0000_0001), today: today, now: now)
            if index % 6 == 0 && goal.kind.isRecurring {
                try! goal.edit(at: now) { changes throws(ModelError) in
                    try changes.schedule!.change(to: .everyNDays(3), from: today.advanced(by: 10))
                }
                try! goal.archive(from: today.advanced(by: 20), at: now)
                try! goal.unarchive(from: today.advanced(by: 25), at: now)
            }
            return goal
        }
    }

    static var profile: Profile {
        try! Profile(
            userID: UserID(high: 0x0193_8A6E_7C00_7ABC, low: 0x8DEF_0000_0000_00AA), displayName: "Mia 🌸",
            photoReference: "photos/mia.jpg", interests: [Slug("sleep"), Slug("self-care")], themeID: Slug("ocean"),
            boundary: DayBoundary(timeZone: london, dayStartMinutes: 180, weekStart: .sunday), createdAt: now,
            modifiedAt: now)
    }

    static func checkIns(for goal: Goal, days: Int) -> [CheckIn] {
        var result: [CheckIn] = []
        for offset in 0..<days {
            let day = goal.startDay.advanced(by: offset)
            let at = try! Instant(
                millisecondsSince1970: Int64(day.daysSince1970) * 86_400_000 + 25_200_000 + Int64(offset % 7) * 60_000)
            let tap: CheckInTap
            switch goal.kind {
            case .tally: tap = .count(offset % 9)
            case .value: tap = .value(try! Amount(parsing: "\(60 + offset % 20).5"))
            case .progress: tap = .add(try! Amount(parsing: "1.25"))
            case .subgoals(let config): tap = .check(Set(config.items.prefix(offset % 3 + 1).map(\.id)))
            case .single: tap = .done
            case .streak: tap = offset % 10 == 9 ? .skip : .done
            case .countdown: continue
            }
            guard var checkIn = try? CheckIn.record(tap, for: goal, on: day, at: at, timeZone: london, deviceID: device)
            else { continue }
            if offset % 11 == 5 { checkIn = try! checkIn.withNote("felt good", at: at) }
            if offset % 13 == 7 { checkIn = checkIn.deleting(at: try! at.adding(milliseconds: 3_600_000)) }
            result.append(checkIn)
        }
        return result
    }
}

@Suite("Round trips")
struct RoundTripTests {
    @Test("every goal of the catalogue round-trips and re-encodes to the same bytes")
    func goals() throws {
        for goal in Samples.goals {
            let bytes = goal.wireEncoded()
            let decoded = try Goal(wire: bytes)
            #expect(decoded == goal)
            #expect(decoded.wireEncoded() == bytes)
            #expect(try Goal(wire: Data(bytes)) == goal)
        }
    }

    @Test("profile, boundary, drafts, templates and interests round-trip")
    func others() throws {
        let profile = Samples.profile
        #expect(try Profile(wire: profile.wireEncoded()) == profile)
        #expect(try DayBoundary(wire: profile.boundary.wireEncoded()) == profile.boundary)
        for interest in InspirationCatalogue.interests {
            #expect(try Interest(wire: interest.wireEncoded()) == interest)
            for template in interest.templates {
                #expect(try GoalTemplate(wire: template.wireEncoded()) == template)
                #expect(try GoalDraft(wire: template.draft.wireEncoded()) == template.draft)
            }
        }
    }

    @Test("single check-ins and blocks of every log round-trip")
    func checkIns() throws {
        for goal in Samples.goals {
            let checkIns = Samples.checkIns(for: goal, days: 40)
            for checkIn in checkIns {
                #expect(try CheckIn(wire: checkIn.wireEncoded()) == checkIn)
            }
            let block = try CheckInBlock(goalID: goal.id, checkIns: checkIns.shuffled())
            let bytes = block.wireEncoded()
            let decoded = try CheckInBlock(wire: bytes)
            #expect(decoded == block)
            #expect(decoded.checkIns == checkIns)
            #expect(decoded.wireEncoded() == bytes)
        }
    }

    @Test("an empty block round-trips")
    func emptyBlock() throws {
        let block = try CheckInBlock(goalID: GoalID(high: 1, low: 2), checkIns: [])
        #expect(try CheckInBlock(wire: block.wireEncoded()) == block)
    }

    /// A daily habit kept for five years, with the recorded instant of every tap (issue budget:
    /// at most 4 bytes per check-in before compression).
    @Test("five years of a daily habit take at most 4 bytes per check-in")
    func compactness() throws {
        let goal = Samples.goals.first { $0.kind == .streak && $0.schedule?.entries.first?.rule == .daily }!
        var generator = SystemRandomNumberGenerator()
        var checkIns: [CheckIn] = []
        for offset in 0..<(5 * 365) {
            let day = goal.startDay.advanced(by: offset)
            // A tap between 07:00 and 08:00 local, recorded to the second as CheckIn.record keeps it.
            let seconds = Int64(day.daysSince1970) * 86_400 + 7 * 3600 + Int64.random(in: 0..<3600, using: &generator)
            checkIns.append(
                try CheckIn.record(
                    .done, for: goal, on: day,
                    at: Instant(millisecondsSince1970: seconds * 1000 + Int64.random(in: 0..<1000, using: &generator)),
                    timeZone: Samples.london, deviceID: Samples.device))
        }
        let bytes = try CheckInBlock(goalID: goal.id, checkIns: checkIns).wireEncoded()
        let perCheckIn = Double(bytes.count) / Double(checkIns.count)
        #expect(perCheckIn <= 4, "\(perCheckIn) bytes per check-in")
    }
}
