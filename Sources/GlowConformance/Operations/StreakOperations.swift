import Foundation
import GlowModel
import GlowStreaks

/// The streaks area's operations. Inputs use a compact form that `Spec/streaks.md` describes:
/// goals may omit `id`, `title`, `createdAt` and `modifiedAt` and give `schedule` as one rule;
/// check-ins give a `day`, or an instant `at` with the `timeZone` in force when recorded.
package enum StreakOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "streaks.evaluate": evaluate,
        "streaks.today": today,
        "streaks.overview": overview,
        "streaks.milestoneChanges": milestoneChanges,
    ]

    static let defaultGoalID = "01938a6e-7c00-7abc-8def-0123456789ab"

    package struct Setup {
        package var boundary: DayBoundary
        package var today: Day
        package var goals: [Goal]
        package var checkIns: [CheckIn]
    }

    package static func setup(_ input: JSONValue) throws -> Setup {
        let profile = try input.required("profile")
        let boundary = try ModelOperations.boundary(profile)
        let today: Day
        if let now = input["now"]?.string {
            today = boundary.day(containing: try Instant(rfc3339: now))
        } else {
            today = try Day(iso: try input.string("today"))
        }
        var goalValues = input["goals"]?.array ?? []
        if let single = input["goal"] { goalValues.append(single) }
        let goals = try goalValues.map { try goal($0) }
        let checkIns = try (input["checkIns"]?.array ?? []).enumerated().map { index, value in
            try checkIn(value, index: index, dayStartMinutes: boundary.dayStartMinutes)
        }
        return Setup(boundary: boundary, today: today, goals: goals, checkIns: checkIns)
    }

    static func goal(_ value: JSONValue) throws -> Goal {
        guard case .object(var members) = value else { throw CorpusInputError(description: "a goal is an object") }
        members["id"] = members["id"] ?? .string(defaultGoalID)
        members["title"] = members["title"] ?? .string("Goal")
        members["createdAt"] = members["createdAt"] ?? .string("2000-01-01T00:00:00.000Z")
        members["modifiedAt"] = members["modifiedAt"] ?? members["createdAt"]
        if case .object = members["schedule"], let start = members["startDay"] {
            members["schedule"] = .array([.object(["effective": start, "rule": members["schedule"]!])])
        }
        return try ModelOperations.decode(Goal.self, .object(members))
    }

    /// A compact check-in (streaks.md 2.10): one device's contribution to a Day, recorded at its
    /// `modifiedAt` (default 2000-01-01T00:00:00.000Z plus its index in milliseconds, so later
    /// inputs are later), or at `at` when given, whose Day then follows from the zone.
    static func checkIn(_ value: JSONValue, index: Int, dayStartMinutes: Int) throws -> CheckIn {
        let modified =
            try value["modifiedAt"]?.string.map { try Instant(rfc3339: $0) }
            ?? Instant(millisecondsSince1970: 946_684_800_000 + Int64(index))
        let recorded: Instant
        let zone: TimeZoneID
        let day: Day
        if let at = value["at"]?.string {
            recorded = try Instant(rfc3339: at)
            zone = try TimeZoneID(try value.string("timeZone"))
            day = try DayBoundary(timeZone: zone, dayStartMinutes: dayStartMinutes).day(containing: recorded)
        } else {
            day = try Day(iso: try value.string("day"))
            zone = .utc
            recorded = modified
        }
        return try CheckIn(
            goalID: try GoalID(value["goalID"]?.string ?? defaultGoalID), day: day,
            log: try ModelOperations.decode(CheckInLog.self, try value.required("log")), firstRecordedAt: recorded,
            lastRecordedAt: recorded, timeZone: zone,
            deviceID: try value["deviceID"]?.string.map { try DeviceID($0) } ?? DeviceID(high: 0, low: 1),
            modifiedAt: modified, deleted: value["deleted"].map { $0 == .bool(true) } ?? false)
    }

    package static func json(_ streak: Streak?) -> JSONValue {
        guard let streak else { return .null }
        return .object([
            "length": .int(streak.length), "start": .string(streak.start.description),
            "end": .string(streak.end.description),
        ])
    }

    package static func json(_ consistency: Consistency?) -> JSONValue {
        guard let consistency else { return .null }
        return .object(["done": .int(consistency.done), "due": .int(consistency.due)])
    }

    /// A strength as the corpus writes it (STREAK-27 ... STREAK-29), or null.
    package static func json(_ strength: Strength?) -> JSONValue {
        guard let strength else { return .null }
        return .object([
            "score": .int(Int(strength.score)), "thousandths": .int(strength.thousandths),
            "change7": .int(strength.change(overLast: 7)), "change30": .int(strength.change(overLast: 30)),
            "moves": .array(
                strength.moves.map {
                    .object([
                        "day": .string($0.day.description), "change": .int(Int($0.change)),
                        "reported": .int($0.reportedChange), "value": .int($0.value),
                    ])
                }),
        ])
    }

    package static func json(_ milestone: Milestone) -> JSONValue {
        .object([
            "milestone": .int(milestone.id.milestone), "streakStart": .string(milestone.id.streakStart.description),
            "reachedOn": .string(milestone.reachedOn.description),
        ])
    }

    static func evaluate(_ input: JSONValue) throws -> JSONValue {
        let setup = try setup(input)
        guard let goal = setup.goals.first else { throw CorpusInputError(description: "no goal") }
        let evaluation = GoalEvaluation(
            goal: goal, checkIns: setup.checkIns, weekStart: setup.boundary.weekStart, today: setup.today)
        var output: [String: JSONValue] = [
            "today": .string(setup.today.description),
            "current": json(evaluation.currentStreak),
            "longest": json(evaluation.longestStreak),
            "milestones": .array(evaluation.milestones.map(json)),
            "consistency": .object([
                "last7": json(evaluation.consistency(lastDays: 7)),
                "last30": json(evaluation.consistency(lastDays: 30)),
                "last365": json(evaluation.consistency(lastDays: 365)),
                "sinceStart": json(evaluation.consistency(lastDays: nil)),
            ]),
            "onToday": .bool(evaluation.isOnToday),
            "strength": json(evaluation.strength),
        ]
        if let completion = evaluation.completion {
            output["completion"] = .object([
                "done": .bool(completion.done), "doneOn": completion.doneOn.map { .string($0.description) } ?? .null,
                "thousandths": .int(completion.thousandths), "daysLeft": completion.daysLeft.map { .int($0) } ?? .null,
            ])
        } else {
            output["completion"] = .null
        }
        if let range = input["range"] {
            let days = try Day(iso: try range.string("from"))...(try Day(iso: try range.string("to")))
            output["statuses"] = .array(evaluation.statuses(in: days).map { .string($0.name) })
        }
        return .object(output)
    }

    static func today(_ input: JSONValue) throws -> JSONValue {
        let setup = try setup(input)
        let items = TodayQuery.items(
            goals: setup.goals, checkIns: setup.checkIns, weekStart: setup.boundary.weekStart, today: setup.today)
        return .object(["items": todayJSON(items), "strengths": strengthsJSON(items)])
    }

    /// Each Today item's reported strength, in the items' order, null for kinds without one
    /// (STREAK-30).
    static func strengthsJSON(_ items: [TodayItem]) -> JSONValue {
        .array(items.map { item in item.strength.map { .int($0) } ?? .null })
    }

    /// Today's items as the corpus writes them.
    static func todayJSON(_ items: [TodayItem]) -> JSONValue {
        .array(
            items.map { item in
                .object([
                    "goalID": .string(item.goalID.description), "status": .string(item.status.name),
                    "thousandths": .int(item.thousandths), "streak": .int(item.streak),
                    "daysLeft": item.daysLeft.map { .int($0) } ?? .null,
                ])
            })
    }

    static func overview(_ input: JSONValue) throws -> JSONValue {
        let setup = try setup(input)
        let items = OverviewQuery.items(
            goals: setup.goals, checkIns: setup.checkIns, weekStart: setup.boundary.weekStart, today: setup.today,
            weeks: try input.int("weeks"))
        return .object([
            "items": .array(
                items.map { item in
                    let levels = item.grid.map { String($0.level) }
                    let weeks = stride(from: 0, to: levels.count, by: 7).map {
                        JSONValue.string(levels[$0..<Swift.min($0 + 7, levels.count)].joined())
                    }
                    return .object([
                        "goalID": .string(item.goalID.description), "current": json(item.current),
                        "longest": json(item.longest), "last7": json(item.last7), "last30": json(item.last30),
                        "last365": json(item.last365), "sinceStart": json(item.sinceStart),
                        "firstDay": .string(item.grid.first?.day.description ?? ""), "grid": .array(weeks),
                    ])
                })
        ])
    }

    static func milestoneChanges(_ input: JSONValue) throws -> JSONValue {
        let setup = try setup(input)
        guard let goal = setup.goals.first else { throw CorpusInputError(description: "no goal") }
        let evaluation = GoalEvaluation(
            goal: goal, checkIns: setup.checkIns, weekStart: setup.boundary.weekStart, today: setup.today)
        let announced = Set(
            try (input["announced"]?.array ?? []).map { value in
                Milestone.ID(
                    goalID: goal.id, milestone: try value.int("milestone"),
                    streakStart: try Day(iso: try value.string("streakStart")))
            })
        let (new, revoked) = Milestone.changes(announced: announced, current: evaluation.milestones)
        return .object([
            "new": .array(new.map(json)),
            "revoked": .array(
                revoked.map {
                    .object(["milestone": .int($0.milestone), "streakStart": .string($0.streakStart.description)])
                }),
        ])
    }
}
