import Foundation
import GlowFeed
import GlowModel
import GlowRelay
import GlowReminders

/// The reminders area's operations (Spec/reminders.md 10.5): a plan, and the change between two.
package enum ReminderOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "reminders.plan": { input in json(try plan(input)) },
        "reminders.change": { input in
            let change = try plan(try input.required("after")).change(from: try plan(try input.required("before")))
            return .object(["cancel": .array(change.cancel.map { .string($0) }), "add": .array(change.add.map(json))])
        },
        "reminders.push": { input in try push(input) },
    ]

    /// `reminders.push`: a relay script with devices, syncs and sends (REMIND-14 ... REMIND-21).
    static func push(_ input: JSONValue) throws -> JSONValue {
        // The relay's own outbox, as a server keeps it: events wait in the relay's write.
        let relay = FeedRelay(
            pushWindow: Int64(input["window"]?.int ?? Int(PushOutbox.standardWindow)),
            backgroundPushes: input["background"]?.bool ?? false)
        var names: [String: String] = [:]
        if case .object(let members)? = input["names"] {
            for (person, name) in members { names[person] = name.string }
        }
        var results: [JSONValue] = []
        // The code of the last proof push sent to each token for each caller, for `"proof": "sent"`.
        var codes: [String: String] = [:]
        for step in input["steps"]?.array ?? [] {
            let now = Int64(step["now"]?.int ?? 0)
            switch step["do"]?.string ?? "" {
            case "submit":
                do throws(FeedError) {
                    switch try FeedOperations.delta(of: step) {
                    case .failure(let refused): results.append(.object(["error": refused.code]))
                    case .success(let delta):
                        let sequence = try relay.submit(delta, from: step["person"]?.string ?? "", now: now)
                        results.append(.object(["sequence": .int(Int(sequence))]))
                    }
                } catch {
                    results.append(.object(["error": .string(error.code.description)]))
                }
            case "device":
                do {
                    let quiet = try step["quietHours"].flatMap { value -> PersonReminders.QuietHours? in
                        guard case .object = value else { return nil }
                        return try PersonReminders.QuietHours(start: try value.int("start"), end: try value.int("end"))
                    }
                    let (token, person) = (try step.string("token"), try step.string("person"))
                    let proof = step["proof"]?.string.map { $0 == "sent" ? codes[token + "\n" + person] ?? "" : $0 }
                    let registered = try relay.register(
                        try PushDevice(
                            token: token, person: person, timeZone: try TimeZoneID(try step.string("timeZone")),
                            quietHours: quiet, session: step["session"]?.string), proof: proof, now: now)
                    results.append(.object(registered ? [:] : ["error": .string("token_held")]))
                } catch let error as ModelError {
                    results.append(.object(["error": .string(error.code.description)]))
                } catch let error as FeedError {
                    results.append(.object(["error": .string(error.code.description)]))
                }
            case "erase":
                // FEED-31: the person's account deleted; their devices go with it.
                let sequence = try relay.erase(try step.string("person"), now: now)
                results.append(.object(["sequence": .int(Int(sequence))]))
            case "sync":
                // REMIND-19: the sync log kept a push of `records` records from the session.
                try relay.noteSync(
                    of: try step.string("person"), session: try step.string("session"),
                    records: try step.int("records"),
                    now: now)
                results.append(.object([:]))
            case "remove":
                try relay.removeDevice(token: try step.string("token"), of: nil)
                results.append(.object([:]))
            case "send":
                let pushes = try relay.duePushes(at: now) { names[$0] }
                for push in pushes where push.topic == "proof" {
                    if case .object(let payload) = try JSONValue.parse(Data(push.payload)),
                        let code = payload["glow-proof"]?.string
                    {
                        codes[push.token + "\n" + push.person] = code
                    }
                }
                results.append(.object(["pushes": .array(try pushes.map(json))]))
            default:
                results.append(.object(["error": .string("unknown_step")]))
            }
        }
        return .object(["steps": .array(results)])
    }

    /// A push as the corpus writes it; a proof push's random code as the text `code`.
    static func json(_ push: Push) throws -> JSONValue {
        var payload = try JSONValue.parse(Data(push.payload))
        if push.topic == "proof", case .object(var members) = payload, members["glow-proof"] != nil {
            members["glow-proof"] = .string("code")
            payload = .object(members)
        }
        return .object([
            "token": .string(push.token), "person": .string(push.person), "topic": .string(push.topic),
            "collapseId": .string(push.collapseID), "pushType": .string(push.pushType),
            "priority": .int(push.priority), "expiration": .int(Int(push.expiration)), "payload": payload,
        ])
    }

    /// The plan of a `reminders.plan` input.
    static func plan(_ input: JSONValue) throws -> ReminderPlan {
        let setup = try StreakOperations.setup(input)
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
                } catch {
                    throw error.at("settings.\(key)")
                }
            }
        }
        // The settings are the goals' own (MODEL-19), as a device keeps them.
        let goals = try setup.goals.map { goal in
            var held = goal
            try held.edit(at: goal.modifiedAt) { $0.reminders = settings[goal.id] }
            return held
        }
        let data = try DataSet(profile: nil, goals: goals, checkIns: setup.checkIns)
        let reminders = try person(input["person"] ?? .object([:]))
        let snoozes = try (input["snoozes"]?.array ?? []).map { value in
            Snooze(goal: try GoalID(try value.string("goal")), at: try Instant(rfc3339: try value.string("at")))
        }
        return try ReminderPlanner.plan(
            data: data, boundary: setup.boundary, now: now, days: input["days"]?.int ?? 7, person: reminders,
            snoozes: snoozes)
    }

    /// The person's settings of a `reminders.plan` input; a refusal is named from `person`.
    static func person(_ person: JSONValue) throws -> PersonReminders {
        let risk = try person["streakAtRisk"].flatMap { value -> (minute: Int, minimum: Int)? in
            guard case .object = value else { return nil }
            return (try value.int("minute"), try value.int("minimumStreak"))
        }
        let quiet = try person["quietHours"].flatMap { value -> (start: Int, end: Int)? in
            guard case .object = value else { return nil }
            return (try value.int("start"), try value.int("end"))
        }
        let snooze = person["snoozeMinutes"]?.int ?? PersonReminders.defaultSnoozeMinutes
        do {
            return try PersonReminders(
                streakAtRisk: try risk.map { (risk) throws(ModelError) in
                    try PersonReminders.StreakAtRisk(minute: risk.minute, minimumStreak: risk.minimum)
                },
                quietHours: try quiet.map { (quiet) throws(ModelError) in
                    try PersonReminders.QuietHours(start: quiet.start, end: quiet.end)
                },
                snoozeMinutes: snooze)
        } catch {
            throw error.at("person")
        }
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
