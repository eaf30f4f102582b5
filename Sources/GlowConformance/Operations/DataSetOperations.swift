import Foundation
import GlowModel
import GlowStreaks

/// The operations that change a person's data step by step: `dataset.apply` (model area,
/// MODEL-56 ... MODEL-62) and `streaks.track` (streaks area, STREAK-26). Both read the same
/// step language (Spec/README.md); each step answers with its changes or its error code, and a
/// failed step changes nothing, so the steps after it go on.
package enum DataSetOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "dataset.apply": apply,
        "streaks.track": track,
    ]

    static func apply(_ input: JSONValue) throws -> JSONValue {
        let boundary = try ModelOperations.boundary(try input.required("boundary"))
        var data = try ModelOperations.decode(DataSet.self, try input.required("dataSet"))
        var results: [JSONValue] = []
        for step in try input.required("steps").array ?? [] {
            let change = try Step(step)
            do {
                results.append(.object(["changes": json(try change.apply(to: &data, boundary: boundary))]))
            } catch let error as ModelError {
                results.append(.object(["error": .string(error.code.description)]))
            }
        }
        let final = try ModelOperations.reencode(data)
        return .object([
            "steps": .array(results), "profile": final["profile"] ?? .null, "goals": final["goals"] ?? .array([]),
            "checkIns": final["checkIns"] ?? .array([]),
        ])
    }

    static func track(_ input: JSONValue) throws -> JSONValue {
        let setup = try StreakOperations.setup(input)
        var data = DataSet()
        for goal in setup.goals { try data.add(goal) }
        for checkIn in setup.checkIns { try data.put(checkIn) }
        var tracker = try Tracker(
            data: data, now: try Instant(rfc3339: try input.string("now")),
            boundary: setup.boundary)
        var results: [JSONValue] = []
        for step in try input.required("steps").array ?? [] {
            do {
                let update: Tracker.Update
                if (try step.string("do")) == "advance" {
                    update = tracker.advance(to: try Instant(rfc3339: try step.string("at")))
                } else {
                    update = try Step(step).apply(to: &tracker)
                }
                results.append(
                    .object([
                        "new": .array(update.newMilestones.map(Self.json)),
                        "revoked": .array(
                            update.revokedMilestones.map {
                                .object([
                                    "goalID": .string($0.goalID.description), "milestone": .int($0.milestone),
                                    "streakStart": .string($0.streakStart.description),
                                ])
                            }),
                        "newDay": .bool(update.newDay), "today": .string(tracker.today.description),
                    ]))
            } catch let error as ModelError {
                results.append(.object(["error": .string(error.code.description)]))
            }
        }
        return .object([
            "steps": .array(results), "items": StreakOperations.todayJSON(tracker.todayItems),
            "strengths": StreakOperations.strengthsJSON(tracker.todayItems),
        ])
    }

    /// A milestone of a tracker step, with its goal (several goals may reach milestones at once).
    package static func json(_ milestone: Milestone) -> JSONValue {
        guard case .object(var members) = StreakOperations.json(milestone) else { return .null }
        members["goalID"] = .string(milestone.id.goalID.description)
        return .object(members)
    }

    /// What a step changed (MODEL-62): goals and check-in keys in identifier, then Day order.
    static func json(_ changes: DataSet.Changes) -> JSONValue {
        let keys = changes.days.keys.sorted().flatMap { goal in
            changes.days[goal]!.map { day in
                JSONValue.object(["goalID": .string(goal.description), "day": .string(day.description)])
            }
        }
        return .object([
            "profile": .bool(changes.profile), "goals": .array(changes.goals.sorted().map { .string($0.description) }),
            "checkIns": .array(keys), "otherRecords": .int(changes.otherRecords),
        ])
    }
}

/// One step of the step language: `{"do": ..., ...}`.
package struct Step {
    package let value: JSONValue
    package let verb: String

    package init(_ value: JSONValue) throws {
        self.value = value
        verb = try value.string("do")
    }

    var goalID: GoalID { get throws { try GoalID(try value.string("goalID")) } }
    package var at: Instant { get throws { try Instant(rfc3339: try value.string("at")) } }
    var day: Day { get throws { try Day(iso: try value.string("day")) } }
    var device: DeviceID { get throws { try DeviceID(try value.string("deviceID")) } }

    /// Applies the step to a data set.
    package func apply(to data: inout DataSet, boundary: DayBoundary) throws -> DataSet.Changes {
        switch verb {
        case "tap":
            let tap = try ModelOperations.tap(value)
            if value["day"] != nil {
                return try data.tap(tap, goal: goalID, on: day, at: at, device: device, boundary: boundary)
            }
            return try data.tap(tap, goal: goalID, at: at, device: device, boundary: boundary)
        case "undo": return try data.undo(goal: goalID, on: day, at: at, device: device)
        case "note": return try data.setNote(value["note"]?.string, goal: goalID, on: day, at: at)
        case "addGoal": return try data.add(try ModelOperations.decode(Goal.self, try value.required("goal")))
        case "editGoal":
            let set = try value.required("set")
            return try data.editGoal(goalID, at: at) { (fields: inout Goal.Changes) throws(ModelError) in
                Self.edit(&fields, set)
            }
        case "archive": return try data.archiveGoal(goalID, from: day, at: at)
        case "unarchive": return try data.unarchiveGoal(goalID, from: day, at: at)
        case "deleteGoal": return try data.deleteGoal(goalID, at: at)
        case "setProfile":
            return try data.setProfile(try ModelOperations.decode(Profile.self, try value.required("profile")))
        case "editProfile":
            let boundaryValue = try profileBoundary(data.profile?.boundary)
            let set = try value.required("set")
            return try data.editProfile(at: at) { (fields: inout Profile.Changes) throws(ModelError) in
                if let name = set["displayName"]?.string { fields.displayName = name }
                if let boundaryValue { fields.boundary = boundaryValue }
            }
        case "merge": return data.merge(try ModelOperations.decode(DataSet.self, try value.required("dataSet")))
        default: throw CorpusInputError(description: "unknown step \(verb)")
        }
    }

    /// Applies the step to a tracker, with the tracker's boundary.
    func apply(to tracker: inout Tracker) throws -> Tracker.Update {
        switch verb {
        case "tap":
            let tap = try ModelOperations.tap(value)
            if value["day"] != nil { return try tracker.tap(tap, goal: goalID, on: day, at: at, device: device) }
            return try tracker.tap(tap, goal: goalID, at: at, device: device)
        case "undo": return try tracker.undo(goal: goalID, on: day, at: at, device: device)
        case "archive": return try tracker.archiveGoal(goalID, from: day, at: at)
        case "unarchive": return try tracker.unarchiveGoal(goalID, from: day, at: at)
        case "deleteGoal": return try tracker.deleteGoal(goalID, at: at)
        case "merge": return try tracker.merge(try ModelOperations.decode(DataSet.self, try value.required("dataSet")))
        default: throw CorpusInputError(description: "streaks.track does not take step \(verb)")
        }
    }

    /// The editable goal fields a step's `set` names: `title`, `emoji`, `note` (null removes the
    /// last two), `endDay` (null removes it), `visibility`.
    static func edit(_ fields: inout Goal.Changes, _ set: JSONValue) {
        if let title = set["title"]?.string { fields.title = title }
        if let emoji = set["emoji"] { fields.emoji = emoji.string }
        if let note = set["note"] { fields.note = note.string }
        if let end = set["endDay"] { fields.endDay = end.string.flatMap { try? Day(iso: $0) } }
        if let visibility = set["visibility"]?.string, let value = Visibility(rawValue: visibility) {
            fields.visibility = value
        }
    }

    /// The boundary a profile edit's `set` gives (`timeZone`, `dayStartMinutes`, `weekStart`
    /// over the current ones), or nil when it names none of them.
    func profileBoundary(_ current: DayBoundary?) throws -> DayBoundary? {
        let set = try value.required("set")
        guard set["timeZone"] != nil || set["dayStartMinutes"] != nil || set["weekStart"] != nil else { return nil }
        return try DayBoundary(
            timeZone: try set["timeZone"]?.string.map { try TimeZoneID($0) } ?? current?.timeZone ?? .utc,
            dayStartMinutes: set["dayStartMinutes"]?.int ?? current?.dayStartMinutes ?? 0,
            weekStart: try set["weekStart"].map { try ModelOperations.decode(Weekday.self, $0) } ?? current?.weekStart
                ?? .monday)
    }
}
