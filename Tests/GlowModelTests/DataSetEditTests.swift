import GlowModel
import Testing

/// The data set's mutations (MODEL-56 ... MODEL-62): what an app calls to record taps and edit
/// goals, and the errors it gets when a call cannot be honoured.
@Suite("Data set mutations")
struct DataSetEditTests {
    static let phone = DeviceID(high: 0xA, low: 1)
    static let watch = DeviceID(high: 0xA, low: 2)
    static let person = UserID(high: 0xE, low: 1)
    static let london = try! DayBoundary(timeZone: TimeZoneID("Europe/London"), dayStartMinutes: 180)
    static let start = try! Day(iso: "2025-03-01")
    static let created = try! Instant(rfc3339: "2025-03-01T08:00:00Z")

    static let water = GoalID(high: 1, low: 1)
    static let read = GoalID(high: 1, low: 2)
    static let saving = GoalID(high: 1, low: 3)
    static let trip = GoalID(high: 1, low: 4)
    static let gone = GoalID(high: 1, low: 5)
    static let resting = GoalID(high: 1, low: 6)
    static let nowhere = GoalID(high: 9, low: 9)

    static func at(_ text: String) -> Instant { try! Instant(rfc3339: text) }
    static func day(_ text: String) -> Day { try! Day(iso: text) }

    static func goal(_ id: GoalID, _ title: String, _ kind: GoalKind, end: Day? = nil) -> Goal {
        try! Goal(
            id: id, title: title, kind: kind,
            schedule: kind.isRecurring ? try Schedule(.daily, from: start) : nil, startDay: start, endDay: end,
            createdAt: created, modifiedAt: created)
    }

    /// Goals of several kinds and states, a profile in London with a 03:00 day start, and one
    /// tally entry on 2025-03-09.
    static func data() -> DataSet {
        var data = DataSet()
        try! data.setProfile(
            Profile(userID: person, displayName: "Mia", boundary: london, createdAt: created, modifiedAt: created))
        try! data.add(goal(water, "Water", .tally(TallyConfig(dailyTarget: 8, unit: "glasses"))))
        try! data.add(goal(read, "Read", .streak))
        try! data.add(
            goal(
                saving, "Save", .progress(ProgressConfig(target: Amount(parsing: "100"), unit: "€")),
                end: day("2025-03-20")))
        try! data.add(goal(trip, "Trip", .countdown(CountdownConfig(targetDay: day("2025-06-01")))))
        try! data.add(goal(gone, "Gone", .streak))
        try! data.deleteGoal(gone, at: at("2025-03-02T08:00:00Z"))
        try! data.add(goal(resting, "Rest", .streak))
        try! data.archiveGoal(resting, from: day("2025-03-05"), at: at("2025-03-05T08:00:00Z"))
        try! data.tap(.count(2), goal: water, at: at("2025-03-09T10:00:00Z"), device: phone, boundary: london)
        return data
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var code: ModelError.Code
        var rule: String?
        var change: @Sendable (inout DataSet) throws -> DataSet.Changes
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "a tap for a goal the data set lacks", code: .notFound, rule: "MODEL-56") {
            try $0.tap(.done, goal: nowhere, at: at("2025-03-09T10:00:00Z"), device: phone, boundary: london)
        },
        Refusal(name: "a tap for a deleted goal", code: .goalDeleted, rule: "MODEL-56") {
            try $0.tap(.done, goal: gone, at: at("2025-03-09T10:00:00Z"), device: phone, boundary: london)
        },
        Refusal(name: "a tap before the goal starts", code: .invalidCheckIn, rule: "MODEL-57") {
            try $0.tap(.done, goal: read, at: at("2025-02-28T10:00:00Z"), device: phone, boundary: london)
        },
        Refusal(name: "a tap after the goal ended", code: .invalidCheckIn, rule: "MODEL-57") {
            try $0.tap(
                .add(try Amount(parsing: "5")), goal: saving, at: at("2025-03-21T10:00:00Z"), device: phone,
                boundary: london)
        },
        Refusal(name: "a tap on an archived Day", code: .invalidCheckIn, rule: "MODEL-57") {
            try $0.tap(.done, goal: resting, at: at("2025-03-09T10:00:00Z"), device: phone, boundary: london)
        },
        Refusal(name: "a tap that does not fit the kind", code: .invalidCheckIn, rule: "MODEL-34") {
            try $0.tap(.done, goal: water, at: at("2025-03-09T10:00:00Z"), device: phone, boundary: london)
        },
        Refusal(name: "a tap on a countdown", code: .invalidCheckIn, rule: "MODEL-34") {
            try $0.tap(.done, goal: trip, at: at("2025-03-09T10:00:00Z"), device: phone, boundary: london)
        },
        Refusal(name: "an amount past the limit", code: .invalidAmount, rule: nil) {
            try $0.tap(
                .add(try Amount(thousandths: Amount.limit)), goal: saving, at: at("2025-03-09T10:00:00Z"),
                device: phone, boundary: london)
            return try $0.tap(
                .add(try Amount(thousandths: 1)), goal: saving, at: at("2025-03-09T10:01:00Z"),
                device: phone, boundary: london)
        },
        Refusal(name: "a backfill of a Day after today", code: .invalidCheckIn, rule: "MODEL-58") {
            // 02:00 on the 10th is still the 9th with a 03:00 day start: the 10th is tomorrow.
            try $0.tap(
                .count(1), goal: water, on: day("2025-03-10"), at: at("2025-03-10T02:00:00Z"), device: phone,
                boundary: london)
        },
        Refusal(name: "an undo of a Day without an entry", code: .notFound, rule: "MODEL-59") {
            try $0.undo(goal: water, on: day("2025-03-08"), at: at("2025-03-09T10:00:00Z"), device: phone)
        },
        Refusal(name: "an undo of a Day undone already", code: .notFound, rule: "MODEL-59") {
            try $0.undo(goal: water, on: day("2025-03-09"), at: at("2025-03-09T11:00:00Z"), device: phone)
            return try $0.undo(goal: water, on: day("2025-03-09"), at: at("2025-03-09T12:00:00Z"), device: watch)
        },
        Refusal(name: "an undo for a deleted goal", code: .goalDeleted, rule: "MODEL-56") {
            try $0.undo(goal: gone, on: day("2025-03-09"), at: at("2025-03-09T12:00:00Z"), device: watch)
        },
        Refusal(name: "a note on a Day without an entry", code: .notFound, rule: "MODEL-59") {
            try $0.setNote("tired", goal: read, on: day("2025-03-09"), at: at("2025-03-09T10:00:00Z"))
        },
        Refusal(name: "a note over 500 characters", code: .invalidCheckIn, rule: nil) {
            try $0.setNote(
                String(repeating: "a", count: 501), goal: water, on: day("2025-03-09"),
                at: at("2025-03-09T10:00:00Z"))
        },
        Refusal(name: "a goal whose id is held", code: .duplicateID, rule: "MODEL-60") {
            try $0.add(goal(water, "Water again", .streak))
        },
        Refusal(name: "a goal whose id a tombstone keeps", code: .duplicateID, rule: "MODEL-60") {
            try $0.add(goal(gone, "Gone again", .streak))
        },
        Refusal(name: "a new goal that is a tombstone", code: .invalidGoal, rule: "MODEL-60") {
            try $0.add(goal(nowhere, "Never", .streak).deleting(at: created))
        },
        Refusal(name: "an edit of a goal the data set lacks", code: .notFound, rule: "MODEL-56") {
            try $0.editGoal(nowhere, at: created) { $0.title = "x" }
        },
        Refusal(name: "an edit of a deleted goal", code: .goalDeleted, rule: "MODEL-56") {
            try $0.editGoal(gone, at: created) { $0.title = "x" }
        },
        Refusal(name: "an edit that breaks a goal rule", code: .invalidGoal, rule: nil) {
            try $0.editGoal(read, at: created) { $0.title = "   " }
        },
        Refusal(name: "archiving an archived goal", code: .invalidGoal, rule: nil) {
            try $0.archiveGoal(resting, from: day("2025-03-09"), at: at("2025-03-09T10:00:00Z"))
        },
        Refusal(name: "unarchiving a goal that is not archived", code: .invalidGoal, rule: "MODEL-47") {
            try $0.unarchiveGoal(read, from: day("2025-03-09"), at: at("2025-03-09T10:00:00Z"))
        },
        Refusal(name: "deleting a deleted goal", code: .goalDeleted, rule: "MODEL-56") {
            try $0.deleteGoal(gone, at: at("2025-03-09T10:00:00Z"))
        },
        Refusal(name: "another person's profile", code: .invalidProfile, rule: "MODEL-61") {
            try $0.setProfile(
                Profile(
                    userID: UserID(high: 0xE, low: 2), displayName: "Noor", boundary: london, createdAt: created,
                    modifiedAt: created))
        },
        Refusal(name: "an edit of a profile the data set lacks", code: .notFound, rule: "MODEL-61") { _ in
            var empty = DataSet()
            return try empty.editProfile(at: created) { $0.displayName = "x" }
        },
    ]

    @Test("a change that cannot be honoured is refused with a typed error and changes nothing", arguments: refusals)
    func refused(_ refusal: Refusal) {
        let before = Self.data()
        var data = before
        do {
            _ = try refusal.change(&data)
            Issue.record("\(refusal.name) was accepted")
        } catch let error as ModelError {
            #expect(error.code == refusal.code, "\(error)")
            if let rule = refusal.rule { #expect(error.rule == rule, "\(error)") }
            #expect(!error.message.isEmpty)
        } catch {
            Issue.record("not a ModelError: \(error)")
        }
        // A refusal in the middle of a two-step change keeps the first step only.
        if refusal.name != "an amount past the limit" && refusal.name != "an undo of a Day undone already" {
            #expect(data == before)
        }
    }

    @Test("a tap's Day comes from the boundary: 01:30 with a 03:00 day start is yesterday")
    func lateNight() throws {
        var data = Self.data()
        let changes = try data.tap(
            .count(1), goal: Self.water, at: Self.at("2025-03-10T01:30:00Z"), device: Self.phone,
            boundary: Self.london)
        let key = CheckInKey(goalID: Self.water, day: Self.day("2025-03-09"))
        #expect(changes.contains(key))
        #expect(changes.days == [Self.water: [Self.day("2025-03-09")]])
        #expect(changes.goals.isEmpty && !changes.profile)
        #expect(data.checkIn(key)?.log == .tally(3))
        #expect(data.checkIn(CheckInKey(goalID: Self.water, day: Self.day("2025-03-10"))) == nil)
    }

    @Test("after a flight to Tokyo the same instant is a later Day, and the tap keeps Tokyo's zone")
    func timeZoneChange() throws {
        var data = Self.data()
        let tokyo = try DayBoundary(timeZone: TimeZoneID("Asia/Tokyo"), dayStartMinutes: 180)
        // 20:00 UTC on the 9th is 05:00 on the 10th in Tokyo, past the 03:00 day start.
        try data.tap(.done, goal: Self.read, at: Self.at("2025-03-09T20:00:00Z"), device: Self.phone, boundary: tokyo)
        let entry = try #require(data.checkIn(CheckInKey(goalID: Self.read, day: Self.day("2025-03-10"))))
        #expect(entry.timeZone.identifier == "Asia/Tokyo")
        #expect(entry.taps.map(\.deviceID) == [Self.phone])
    }

    @Test("taps from two devices on one Day add up, and an undo hides them all")
    func tapsAndUndo() throws {
        var data = Self.data()
        let day = Self.day("2025-03-09")
        let key = CheckInKey(goalID: Self.water, day: day)
        try data.tap(
            .count(3), goal: Self.water, at: Self.at("2025-03-09T11:00:00Z"), device: Self.watch,
            boundary: Self.london)
        #expect(data.checkIn(key)?.log == .tally(5))
        let undo = try data.undo(goal: Self.water, on: day, at: Self.at("2025-03-09T12:00:00Z"), device: Self.phone)
        #expect(undo.days == [Self.water: [day]])
        #expect(data.checkIn(key)?.deleted == true)
        // A tap right after the undo, in the same second, starts the Day over and is not hidden.
        try data.tap(
            .count(1), goal: Self.water, at: Self.at("2025-03-09T12:00:00.400Z"), device: Self.phone,
            boundary: Self.london)
        let entry = try #require(data.checkIn(key))
        #expect(entry.log == .tally(1) && !entry.deleted)
        #expect(entry.lastRecordedAt == Self.at("2025-03-09T12:00:01Z"))
    }

    @Test("an undo tap is the undo of the Day: the same entry, and refused where there is nothing to undo")
    func undoTap() throws {
        let day = Self.day("2025-03-09")
        let when = Self.at("2025-03-09T12:00:00Z")
        var tapped = Self.data()
        var undone = Self.data()
        let changes = try tapped.tap(
            .undo, goal: Self.water, on: day, at: when, device: Self.phone, boundary: Self.london)
        #expect(changes == (try undone.undo(goal: Self.water, on: day, at: when, device: Self.phone)))
        #expect(tapped == undone && tapped.checkIn(CheckInKey(goalID: Self.water, day: day))?.deleted == true)
        #expect {
            try tapped.tap(.undo, goal: Self.water, on: day, at: when, device: Self.phone, boundary: Self.london)
        } throws: { error in
            (error as? ModelError)?.code == .notFound
        }
        #expect(tapped == undone, "a refused undo changes nothing")
    }

    @Test("a backfill records a past Day with the instant it was made")
    func backfill() throws {
        var data = Self.data()
        let made = Self.at("2025-03-09T10:00:00Z")
        try data.tap(
            .done, goal: Self.read, on: Self.day("2025-03-07"), at: made, device: Self.phone,
            boundary: Self.london)
        let entry = try #require(data.checkIn(CheckInKey(goalID: Self.read, day: Self.day("2025-03-07"))))
        #expect(entry.lastRecordedAt == made && entry.log == .done)
    }

    @Test("a note is set, replaced and removed; the same note again is no change")
    func notes() throws {
        var data = Self.data()
        let day = Self.day("2025-03-09")
        let key = CheckInKey(goalID: Self.water, day: day)
        #expect(!(try data.setNote("hot day", goal: Self.water, on: day, at: Self.at("2025-03-09T12:00:00Z"))).isEmpty)
        #expect(try data.setNote("hot day", goal: Self.water, on: day, at: Self.at("2025-03-09T13:00:00Z")).isEmpty)
        // A clock that went back still replaces the note: its instant is made later.
        try data.setNote("cool", goal: Self.water, on: day, at: Self.at("2025-03-09T11:00:00Z"))
        #expect(data.checkIn(key)?.note == "cool")
        #expect(data.checkIn(key)?.noteAt == Self.at("2025-03-09T12:00:00.001Z"))
        try data.setNote(nil, goal: Self.water, on: day, at: Self.at("2025-03-09T14:00:00Z"))
        #expect(data.checkIn(key)?.note == nil)
    }

    @Test("a goal edit wins over the version it edited even when the clock went back")
    func editStamp() throws {
        var data = Self.data()
        let held = try #require(data.goals[Self.read])
        let changes = try data.editGoal(Self.read, at: Self.at("2025-02-01T00:00:00Z")) { $0.title = "Read more" }
        #expect(changes.goals == [Self.read] && changes.days.isEmpty)
        let edited = try #require(data.goals[Self.read])
        #expect(edited.title == "Read more")
        #expect(edited.modifiedAt == (try held.modifiedAt.adding(milliseconds: 1)))
        // Another device still holding the old version does not bring it back.
        var other = DataSet()
        other.put(held)
        #expect(other.merging(data).goals[Self.read]?.title == "Read more")
        #expect(data.merging(other) == data)
    }

    @Test("an edit that changes nothing changes nothing, not even modifiedAt")
    func emptyEdit() throws {
        var data = Self.data()
        let before = data
        #expect(try data.editGoal(Self.read, at: Self.at("2025-03-09T10:00:00Z")) { $0.title = "Read" }.isEmpty)
        #expect(try data.editProfile(at: Self.at("2025-03-09T10:00:00Z")) { $0.displayName = "Mia" }.isEmpty)
        #expect(data == before)
    }

    @Test("archive and unarchive open and close a period; taps follow it")
    func archive() throws {
        var data = Self.data()
        try data.archiveGoal(Self.read, from: Self.day("2025-03-10"), at: Self.at("2025-03-10T10:00:00Z"))
        #expect(data.goals[Self.read]?.archived == true)
        #expect(throws: ModelError.self) {
            try data.tap(
                .done, goal: Self.read, at: Self.at("2025-03-11T10:00:00Z"), device: Self.phone,
                boundary: Self.london)
        }
        try data.unarchiveGoal(Self.read, from: Self.day("2025-03-12"), at: Self.at("2025-03-12T10:00:00Z"))
        try data.tap(
            .done, goal: Self.read, at: Self.at("2025-03-12T10:00:00Z"), device: Self.phone,
            boundary: Self.london)
        #expect(data.checkIns(of: Self.read).map(\.day) == [Self.day("2025-03-12")])
    }

    @Test("a deleted goal keeps its check-ins, so a device still logging it merges without conflict")
    func delete() throws {
        var data = Self.data()
        var watch = data
        let changes = try data.deleteGoal(Self.water, at: Self.at("2025-03-09T12:00:00Z"))
        #expect(changes.goals == [Self.water])
        #expect(data.goals[Self.water]?.deleted == true)
        #expect(data.checkIns(of: Self.water).count == 1)
        try watch.tap(
            .count(1), goal: Self.water, at: Self.at("2025-03-09T11:00:00Z"), device: Self.watch,
            boundary: Self.london)
        let merged = data.merging(watch)
        #expect(merged == watch.merging(data))
        #expect(merged.goals[Self.water]?.deleted == true)
        #expect(merged.checkIn(CheckInKey(goalID: Self.water, day: Self.day("2025-03-09")))?.log == .tally(3))
    }

    @Test("a merge reports exactly what changed, and nothing the second time")
    func mergeChanges() throws {
        let base = Self.data()
        var watch = base
        try watch.tap(
            .count(1), goal: Self.water, at: Self.at("2025-03-09T11:00:00Z"), device: Self.watch,
            boundary: Self.london)
        try watch.tap(
            .done, goal: Self.read, at: Self.at("2025-03-09T11:00:00Z"), device: Self.watch,
            boundary: Self.london)
        try watch.editGoal(Self.saving, at: Self.at("2025-03-09T11:00:00Z")) { $0.emoji = "💶" }
        var phone = base
        let changes = phone.merge(watch)
        let day = Self.day("2025-03-09")
        #expect(changes.goals == [Self.saving])
        #expect(changes.days == [Self.water: [day], Self.read: [day]])
        #expect(changes.affectedGoals == [Self.water, Self.read, Self.saving])
        #expect(changes.checkInCount == 2 && !changes.profile && changes.otherRecords == 0)
        #expect(phone.merge(watch).isEmpty)
        #expect(phone == watch)
    }

    @Test("the change set records Days in order without repeats, wherever they arrive")
    func changeSet() {
        var changes = DataSet.Changes()
        for text in ["2025-03-05", "2025-03-01", "2025-03-05", "2025-03-09", "2025-03-03"] {
            changes.insert(CheckInKey(goalID: Self.water, day: Self.day(text)))
        }
        #expect(changes.days[Self.water] == ["2025-03-01", "2025-03-03", "2025-03-05", "2025-03-09"].map(Self.day))
        #expect(!changes.contains(CheckInKey(goalID: Self.water, day: Self.day("2025-03-02"))))
        var other = DataSet.Changes()
        other.insert(CheckInKey(goalID: Self.water, day: Self.day("2025-03-02")))
        other.goals = [Self.read]
        changes.formUnion(other)
        #expect(changes.checkInCount == 5 && changes.goals == [Self.read])
    }
}
