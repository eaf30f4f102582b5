import GlowModel
import GlowReminders

/// The reminders area's operations (Spec/reminders.md 10.5): a plan, and the change between two.
package enum ReminderOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "reminders.plan": { input in json(try plan(input)) },
        "reminders.change": { input in
            let change = try plan(try input.required("after")).change(from: try plan(try input.required("before")))
            return .object(["cancel": .array(change.cancel.map { .string($0) }), "add": .array(change.add.map(json))])
        },
    ]

    /// The plan of a `reminders.plan` input.
    static func plan(_ input: JSONValue) throws -> ReminderPlan {
        let setup = try StreakOperations.setup(input)
        let data = try DataSet(profile: nil, goals: setup.goals, checkIns: setup.checkIns)
        let now = try Instant(rfc3339: try input.string("now"))
        var settings: [GoalID: GoalReminders] = [:]
        if case .object(let members)? = input["settings"] {
            for (key, value) in members {
                let times = try (value["times"]?.array ?? []).map { item in
                    guard let minute = item.int else { throw CorpusInputError(description: "a time is a number") }
                    return minute
                }
                let weekdays = try value["weekdays"]?.array.map { items in
                    Set(
                        try items.map { item in
                            guard let name = item.string, let day = Weekday(rawValue: name) else {
                                throw CorpusInputError(description: "\(item) is no weekday")
                            }
                            return day
                        })
                }
                var enabled = true
                if case .bool(let flag)? = value["enabled"] { enabled = flag }
                do {
                    settings[try GoalID(key)] = try GoalReminders(times: times, weekdays: weekdays, enabled: enabled)
                } catch let error as ReminderError {
                    throw error.under("settings.\(key).")
                }
            }
        }
        let person = input["person"] ?? .object([:])
        let reminders: PersonReminders
        do {
            let risk = try person["streakAtRisk"].flatMap { value -> PersonReminders.StreakAtRisk? in
                guard case .object = value else { return nil }
                return try PersonReminders.StreakAtRisk(
                    minute: try value.int("minute"), minimumStreak: try value.int("minimumStreak"))
            }
            let quiet = try person["quietHours"].flatMap { value -> PersonReminders.QuietHours? in
                guard case .object = value else { return nil }
                return try PersonReminders.QuietHours(start: try value.int("start"), end: try value.int("end"))
            }
            reminders = try PersonReminders(
                streakAtRisk: risk, quietHours: quiet, snoozeMinutes: person["snoozeMinutes"]?.int ?? 10)
        } catch let error as ReminderError {
            throw error.under("person.")
        }
        let snoozes = try (input["snoozes"]?.array ?? []).map { value in
            Snooze(goal: try GoalID(try value.string("goal")), at: try Instant(rfc3339: try value.string("at")))
        }
        return try ReminderPlanner.plan(
            data: data, boundary: setup.boundary, now: now, days: input["days"]?.int ?? 7, settings: settings,
            person: reminders, snoozes: snoozes)
    }

    static func json(_ plan: ReminderPlan) -> JSONValue {
        .object(["notifications": .array(plan.notifications.map(json)), "leftOut": .array(plan.leftOut.map(json))])
    }

    static func json(_ notification: PlannedNotification) -> JSONValue {
        .object([
            "id": .string(notification.id), "at": .string(notification.at.description),
            "goal": .string(notification.goal.description), "kind": .string(notification.kind.rawValue),
            "day": .string(notification.day.description), "thread": .string(notification.thread),
            "key": .string(notification.key), "arguments": .array(notification.arguments.map { .string($0) }),
        ])
    }
}
