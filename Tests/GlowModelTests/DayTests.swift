import GlowModel
import Testing

@Suite("Day")
struct DayTests {
    /// Day numbers spread over the whole range, both ends included.
    static let numbers: [Int] = {
        var generator = SeededRandom(seed: 7)
        var numbers = [Day.min.daysSince1970, Day.max.daysSince1970, -1, 0, 1, 11_016, 19_782]
        for _ in 0..<500 {
            numbers.append(Int(generator.next() % UInt64(Day.supportedRange.count)) + Day.min.daysSince1970)
        }
        return numbers
    }()

    @Test("text, components and numbers agree over the whole range")
    func roundTrips() throws {
        for number in Self.numbers {
            let day = try Day(daysSince1970: number)
            #expect(try Day(iso: day.description) == day)
            let (y, m, d) = day.components
            #expect(try Day(year: y, month: m, day: d) == day)
            #expect(day.weekday.isoNumber == ((number % 7 + 7 + 3) % 7) + 1)
        }
    }

    @Test("consecutive numbers are consecutive dates")
    func consecutive() throws {
        var previous = Day.min
        for number in (Day.min.daysSince1970 + 1)...(Day.min.daysSince1970 + 800) {
            let day = try Day(daysSince1970: number)
            #expect(previous < day)
            #expect(previous.advanced(by: 1) == day)
            #expect(previous.distance(to: day) == 1)
            previous = day
        }
    }

    @Test("Day is Strideable, so ranges of Days work", arguments: [("2024-02-27", "2024-03-01", 4)])
    func ranges(first: String, last: String, count: Int) throws {
        let days = Array(try Day(iso: first)...(try Day(iso: last)))
        #expect(days.count == count)
        #expect(days.map(\.description) == ["2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01"])
    }

    @Test("errors carry their code and rule")
    func errors() {
        #expect(throws: ModelError.self) { try Day(iso: "2025-02-29") }
        do {
            _ = try Day(iso: "2025-02-29")
        } catch {
            #expect(error.code == .invalidDay)
            #expect(error.rule == "MODEL-3")
            #expect(error.description.contains("2025-02"))
        }
        #expect(Day("nonsense") == nil)
        #expect(Day("2024-02-29") != nil)
    }

    @Test(
        "month lengths",
        arguments: [(2024, 2, 29), (2025, 2, 28), (1900, 2, 28), (2000, 2, 29), (2025, 4, 30), (2025, 12, 31)])
    func monthLengths(year: Int, month: Int, length: Int) throws {
        #expect(Day.daysIn(month: month, year: year) == length)
        let day = try Day(year: year, month: month, day: 1)
        #expect(day.calendarMonth.count == length)
    }
}
