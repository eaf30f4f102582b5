import GlowModel
import Testing

@Suite("DayBoundary")
struct DayBoundaryTests {
    static let zones = [
        "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham",
        "Pacific/Apia", "America/St_Johns", "UTC",
    ]

    /// Every instant of a Day maps back to that Day, the instant before its start maps to an
    /// earlier Day, and Days tile time without gaps or overlaps (MODEL-10, MODEL-12).
    @Test("Days tile time in every zone and at every day start", arguments: zones, [0, 90, 150, 180, 1439])
    func tiling(zone: String, dayStart: Int) throws {
        let boundary = try DayBoundary(timeZone: try TimeZoneID(zone), dayStartMinutes: dayStart)
        // Weeks around the daylight-saving changes of both hemispheres, and Apia's skipped Day.
        let starts = ["2011-12-25", "2025-03-06", "2025-03-27", "2025-04-03", "2025-09-25", "2025-10-02", "2025-10-30"]
        for start in starts {
            var day = try Day(iso: start)
            for _ in 0..<8 {
                let range = boundary.instants(of: day)
                let next = boundary.instants(of: day.advanced(by: 1))
                #expect(range.upperBound == next.lowerBound || next.isEmpty || range.isEmpty)
                if let first = boundary.firstInstant(of: day), let last = boundary.lastInstant(of: day) {
                    #expect(boundary.day(containing: first) == day, "\(zone) \(day) first \(first)")
                    #expect(boundary.day(containing: last) == day, "\(zone) \(day) last \(last)")
                    #expect(try boundary.day(containing: first.adding(milliseconds: -1)) < day)
                    let hours = Double(last.millisecondsSince1970 - first.millisecondsSince1970 + 1) / 3_600_000
                    // A day start inside a transition shortens or lengthens the Day by that much; at
                    // midnight only Apia's skip (a whole Day) makes a Day other than 23...25 hours.
                    #expect(hours > 0 && hours <= 25, "\(zone) \(day) lasts \(hours) h")
                    if dayStart == 0 && zone != "Pacific/Apia" {
                        #expect([23, 23.5, 24, 24.5, 25].contains(hours), "\(zone) \(day) lasts \(hours) h")
                    }
                } else {
                    #expect(zone == "Pacific/Apia" && day.description == "2011-12-30")
                }
                day = day.advanced(by: 1)
            }
        }
    }

    @Test("a day start outside 0 ..< 1440 is refused", arguments: [-1, 1440, 10_000])
    func invalidDayStart(minutes: Int) {
        #expect(throws: ModelError.self) { try DayBoundary(timeZone: .utc, dayStartMinutes: minutes) }
    }

    @Test("weeks follow the week start")
    func weeks() throws {
        let sunday = try Day(iso: "2025-06-15")
        let monday = try DayBoundary(timeZone: .utc, weekStart: .monday)
        let sundayStart = try DayBoundary(timeZone: .utc, weekStart: .sunday)
        #expect(monday.week(containing: sunday).lowerBound.description == "2025-06-09")
        #expect(sundayStart.week(containing: sunday).lowerBound.description == "2025-06-15")
        #expect(monday.month(containing: sunday).upperBound.description == "2025-06-30")
    }
}
