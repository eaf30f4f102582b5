import Foundation
import Testing

@testable import GlowModel

/// A history behind its API (issue 26): columns go in through a checked initialiser and come out
/// as they went in; entries are grouped by log without reading flag bits.
@Suite("Check-in history columns")
struct CheckInColumnsTests {
    static let goal = try! GoalID("01938a6e-7c00-7abc-8def-0000000000c1")
    static let context = CheckInHistory.Context(
        zone: try! TimeZoneID("Europe/London"), device: try! DeviceID("01938a6e-7c00-7abc-8def-00000000d001"))
    static let first = Int32(try! Day(iso: "2026-11-01").daysSince1970)

    /// Five Days: done, skip, a tally of 3, the items {a}, an amount of 1.5, the fourth undone; one
    /// context, so its column of zeros is empty, as a history gives it back.
    static func valid() -> CheckInHistory.Columns {
        CheckInHistory.Columns(
            days: [first, first + 1, first + 3, first + 4, first + 9], logTypes: [0, 1, 3, 4, 2],
            deleted: [false, false, false, true, false], numbers: [0, 0, 3, 0, 1_500],
            firstOffsets: [36_000_000, 0, 1, 2, 3], spans: [0, 0, 5, 0, 0], modifiedDeltas: [0, 0, 0, 0, 9],
            contextTable: [context], itemSets: [[SubgoalItemID(high: 1, low: 1)]])
    }

    @Test("checked columns make a history whose entries and columns are theirs")
    func roundTrip() throws {
        let history = try CheckInHistory(goalID: Self.goal, columns: Self.valid())
        #expect(history.count == 5 && history.columns == Self.valid())
        let amount = try Amount(thousandths: 1_500)
        #expect(history.log(at: 2) == .tally(3) && history.log(at: 4) == .amount(amount))
        #expect(history.isDeleted(at: 3) && !history.isDeleted(at: 2))
        #expect(history.firstRecordedAt(at: 0).millisecondsSince1970 == Int64(Self.first) * 86_400_000 + 36_000_000)
        // Built again from its check-ins, the history is equal and has the same columns.
        let rebuilt = try CheckInHistory(goalID: Self.goal, checkIns: Array(history))
        #expect(rebuilt == history && rebuilt.columns == history.columns)
        #expect(history.wholeCount == 0 && !(0..<5).contains { history.isKeptWhole(at: $0) })
    }

    /// Columns a reader must never hand over, each with the words its error names.
    static let refusals: [(String, @Sendable (inout CheckInHistory.Columns) -> Void, String)] = [
        ("a column of another length", { $0.spans = [0] }, "spans has 1 values for 5 entries"),
        ("log types missing", { $0.logTypes = [] }, "logTypes has 0 values"),
        ("Days out of order", { $0.days.swapAt(1, 2) }, "entry 2 is not after"),
        ("two entries on one Day", { $0.days[1] = $0.days[0] }, "entry 1 is not after"),
        ("a Day past 9999", { $0.days[4] = 3_000_000 }, "entry 4 has a Day outside"),
        ("an unknown log type", { $0.logTypes[1] = 6 }, "unknown log type 6"),
        ("a done entry with a number", { $0.numbers[0] = 7 }, "entry 0 is done or skipped"),
        ("an item set beyond the table", { $0.numbers[3] = 1 }, "item set 1 of 1"),
        ("a negative item set", { $0.numbers[3] = -1 }, "item set -1"),
        ("a context beyond the table", { $0.contexts = [0, 0, 1, 0, 0] }, "context 1 of 1"),
        ("no context table", { $0.contextTable = [] }, "without a context table"),
        (
            "an instant past 9999",
            {
                $0.days[4] = Int32(Day.max.daysSince1970); $0.modifiedDeltas[4] = Int32.max
            },
            "entry 4 has an instant outside"
        ),
    ]

    @Test("columns that break a rule are refused with the entry and the column named", arguments: 0..<12)
    func refusals(index: Int) {
        let (name, spoil, words) = Self.refusals[index]
        var columns = Self.valid()
        spoil(&columns)
        #expect(name.isEmpty == false)
        #expect {
            _ = try CheckInHistory(goalID: Self.goal, columns: columns)
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .invalidCheckIn && error.message.contains(words)
        }
    }

    @Test("log classes: entries with equal logs share a class, and each class's representative has its log")
    func classes() throws {
        var columns = Self.valid()
        // Days 5 ... 9 repeat: done, tally 3, items {a}, tally 3, done.
        columns.days += [Self.first + 10, Self.first + 11, Self.first + 12, Self.first + 13, Self.first + 14]
        columns.logTypes += [0, 3, 4, 3, 0]
        columns.deleted += [false, false, false, false, false]
        columns.numbers += [0, 3, 0, 3, 0]
        columns.firstOffsets += [0, 0, 0, 0, 0]
        columns.spans += [0, 0, 0, 0, 0]
        columns.modifiedDeltas += [0, 0, 0, 0, 0]
        let history = try CheckInHistory(goalID: Self.goal, columns: columns)
        let indices = Array(history.indices)
        let (classOf, representatives) = history.logClasses(of: indices)
        #expect(classOf.count == indices.count && representatives.count == 5, "done, skip, tally 3, {a}, 1.5")
        for index in indices {
            #expect(history.log(at: representatives[classOf[index]]) == history.log(at: index), "entry \(index)")
        }
        #expect(classOf[0] == classOf[5] && classOf[2] == classOf[6] && classOf[3] == classOf[7])
        // The same classes, judged once each: every entry gets its own log back.
        var calls = 0
        let logs = history.judgedByLog(indices) { index in
            calls += 1
            return history.log(at: index)
        }
        #expect(logs == indices.map { history.log(at: $0) } && calls == 5)
    }
}
