import Foundation
import GlowModel

/// The model area's operations: each turns a case's input into the output the corpus expects,
/// or throws the ``ModelError`` the corpus names.
package enum ModelOperations {
    package typealias Operation = @Sendable (JSONValue) throws -> JSONValue

    package static let all: [String: Operation] = [
        "day.parse": dayParse,
        "day.fromComponents": dayFromComponents,
        "day.fromDaysSince1970": { input in
            let day = try Day(daysSince1970: try input.int("daysSince1970"))
            return .object(["day": .string(day.description)])
        },
        "day.add": { input in
            let day = try Day(iso: try input.string("day")).adding(days: try input.int("days"))
            return .object(["day": .string(day.description)])
        },
        "day.between": { input in
            let from = try Day(iso: try input.string("from"))
            let to = try Day(iso: try input.string("to"))
            return .object(["days": .int(from.days(to: to))])
        },
        "day.period": dayPeriod,
        "instant.parse": { input in
            let instant = try Instant(rfc3339: try input.string("text"))
            return .object([
                "canonical": .string(instant.description),
                "millisecondsSince1970": .int(Int(instant.millisecondsSince1970)),
            ])
        },
        "timezone.validate": { input in
            let zone = try TimeZoneID(try input.string("timeZone"))
            return .object(["identifier": .string(zone.identifier), "known": .bool(zone.isKnown)])
        },
        "boundary.dayOf": { input in
            let instant = try Instant(rfc3339: try input.string("instant"))
            let boundary = try boundary(input)
            return .object([
                "day": .string(boundary.day(containing: instant).description),
                "warning": boundary.warning.map { .string($0.code) } ?? .null,
            ])
        },
        "boundary.instants": { input in
            let boundary = try boundary(input)
            let day = try Day(iso: try input.string("day"))
            return .object([
                "first": boundary.firstInstant(of: day).map { .string($0.description) } ?? .null,
                "last": boundary.lastInstant(of: day).map { .string($0.description) } ?? .null,
                "warning": boundary.warning.map { .string($0.code) } ?? .null,
            ])
        },
        "uuid.parse": { input in
            let id = try GoalID(try input.string("text"))
            return .object(["canonical": .string(id.description), "version": .int(id.version)])
        },
        "uuid.v7": { input in
            let id: GoalID = UUIDv7Generator.make(
                unixMillis: Int64(try input.int("unixMillis")), randA: UInt64(try input.int("randA")),
                randB: UInt64(try input.string("randB"), radix: 16) ?? 0)
            return .object(["uuid": .string(id.description)])
        },
        "amount.parse": { input in
            let amount = try Amount(parsing: try input.string("text"))
            return .object(["canonical": .string(amount.description), "thousandths": .int(Int(amount.thousandths))])
        },
        "schedule.entryOn": { input in
            let schedule = try decode(Schedule.self, try input.required("schedule"))
            let entry = schedule.entry(on: try Day(iso: try input.string("day")))
            return try reencode(entry)
        },
        "json.decode": jsonDecode,
        "draft.validate": { input in
            let draft = try decode(GoalDraft.self, try input.required("draft"))
            let today = try Day(iso: try input.string("today"))
            // makeGoal is what the Add-goal flow calls; its error carries every issue.
            let id = try GoalID("01900000-0000-7000-8000-000000000001")
            let goal = try draft.makeGoal(id: id, today: today, now: .epoch)
            var made: [String: JSONValue] = [
                "startDay": .string(goal.startDay.description), "title": .string(goal.title),
            ]
            if let reminders = goal.reminders { made["reminders"] = try reencode(reminders) }
            return .object(made)
        },
        "checkin.record": checkInRecord,
        "checkin.merge": { input in
            let records = try (input["checkIns"]?.array ?? []).map { try decode(CheckIn.self, $0) }
            guard var merged = records.first else { throw CorpusInputError(description: "no check-ins") }
            for record in records.dropFirst() {
                guard record.key == merged.key else {
                    throw CorpusInputError(description: "check-ins of different goals or Days")
                }
                merged = merged.merging(record)
            }
            return try reencode(merged)
        },
        "catalogue.template": { input in
            let id = try TemplateID(try input.string("id"))
            guard let template = InspirationCatalogue.template(id) else {
                return .object(["found": .bool(false)])
            }
            let issues = template.draft.validate(today: try Day(iso: "2026-01-01"))
            return .object([
                "found": .bool(true), "interest": .string(template.interestID.rawValue),
                "title": .string(template.draft.title), "kind": .string(template.draft.kind.name.rawValue),
                "valid": .bool(issues.isEmpty),
            ])
        },
    ]

    static func boundary(_ input: JSONValue) throws -> DayBoundary {
        try DayBoundary(
            timeZone: try TimeZoneID(try input.string("timeZone")),
            dayStartMinutes: input["dayStartMinutes"]?.int ?? 0,
            weekStart: try input["weekStart"].map { try decode(Weekday.self, $0) } ?? .monday)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
        try GlowJSON.decode(T.self, from: value.data)
    }

    static func reencode<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValue.parse(try GlowJSON.encode(value))
    }

    static func dayParse(_ input: JSONValue) throws -> JSONValue {
        let day = try Day(iso: try input.string("text"))
        return describe(day)
    }

    static func dayFromComponents(_ input: JSONValue) throws -> JSONValue {
        let day = try Day(year: try input.int("year"), month: try input.int("month"), day: try input.int("day"))
        return describe(day)
    }

    static func describe(_ day: Day) -> JSONValue {
        .object([
            "canonical": .string(day.description), "daysSince1970": .int(day.daysSince1970),
            "weekday": .string(day.weekday.rawValue), "dayOfYear": .int(day.dayOfYear),
        ])
    }

    static func dayPeriod(_ input: JSONValue) throws -> JSONValue {
        let day = try Day(iso: try input.string("day"))
        switch try input.string("period") {
        case "week":
            let weekStart = try decode(Weekday.self, try input.required("weekStart"))
            let week = day.week(startingOn: weekStart)
            return .object([
                "first": .string(week.lowerBound.description), "last": .string(week.upperBound.description),
            ])
        case "month":
            let month = day.calendarMonth
            return .object([
                "first": .string(month.lowerBound.description), "last": .string(month.upperBound.description),
            ])
        case "isoWeek":
            let (year, week) = day.isoWeek
            return .object(["year": .int(year), "week": .int(week)])
        case let other:
            throw CorpusInputError(description: "unknown period \(other)")
        }
    }

    static let decodableTypes: [String: @Sendable (JSONValue) throws -> JSONValue] = [
        "Goal": { try reencode(try decode(Goal.self, $0)) },
        "GoalDraft": { try reencode(try decode(GoalDraft.self, $0)) },
        "GoalKind": { try reencode(try decode(GoalKind.self, $0)) },
        "Schedule": { try reencode(try decode(Schedule.self, $0)) },
        "ScheduleRule": { try reencode(try decode(ScheduleRule.self, $0)) },
        "CheckIn": { try reencode(try decode(CheckIn.self, $0)) },
        "CheckInLog": { try reencode(try decode(CheckInLog.self, $0)) },
        "Profile": { try reencode(try decode(Profile.self, $0)) },
        "DayBoundary": { try reencode(try decode(DayBoundary.self, $0)) },
        "Day": { try reencode(try decode(Day.self, $0)) },
        "Instant": { try reencode(try decode(Instant.self, $0)) },
        "Amount": { try reencode(try decode(Amount.self, $0)) },
        "Weekday": { try reencode(try decode(Weekday.self, $0)) },
        "Visibility": { try reencode(try decode(Visibility.self, $0)) },
    ]

    static func jsonDecode(_ input: JSONValue) throws -> JSONValue {
        let type = try input.string("type")
        guard let decodeAndEncode = decodableTypes[type] else {
            throw CorpusInputError(description: "json.decode does not know type \(type)")
        }
        // A `text` input carries raw JSON text, for cases whose JSON is itself malformed.
        if let text = input["text"]?.string {
            guard let value = try? JSONValue.parse(Data(text.utf8)) else {
                _ = try GlowJSON.decode(Goal.self, from: text)  // reports the syntax error as the model does
                throw CorpusInputError(description: "unreachable")
            }
            return .object(["canonical": try decodeAndEncode(value)])
        }
        return .object(["canonical": try decodeAndEncode(try input.required("json"))])
    }

    static func checkInRecord(_ input: JSONValue) throws -> JSONValue {
        let goal = try decode(Goal.self, try input.required("goal"))
        let day = try Day(iso: try input.string("day"))
        let device = try DeviceID(try input.string("deviceID"))
        var entry: CheckIn? = nil
        for tapValue in try input.required("taps").array ?? [] {
            let at = try Instant(rfc3339: try tapValue.string("at"))
            let zone = try TimeZoneID(try tapValue.string("timeZone"))
            let device = try tapValue["deviceID"]?.string.map { try DeviceID($0) } ?? device
            if try tapValue.string("tap") == "delete" {
                guard let current = entry else { throw CorpusInputError(description: "delete before any tap") }
                entry = current.deleting(at: at, by: device)
                continue
            }
            entry = try CheckIn.record(
                try tap(tapValue), for: goal, on: day, at: at, timeZone: zone, deviceID: device, existing: entry)
        }
        guard let entry else { throw CorpusInputError(description: "no taps") }
        return try reencode(entry)
    }

    /// A tap of the corpus: `{"tap": "done" | "skip" | "add" (amount) | "count" (delta) |
    /// "check" / "uncheck" (items) | "value" (value)}`.
    static func tap(_ value: JSONValue) throws -> CheckInTap {
        func items() throws -> Set<SubgoalItemID> {
            Set(try (value.required("items").array ?? []).map { try SubgoalItemID($0.string ?? "") })
        }
        switch try value.string("tap") {
        case "done": return .done
        case "skip": return .skip
        case "add": return .add(try Amount(parsing: try value.string("amount")))
        case "count": return .count(try value.int("delta"))
        case "check": return .check(try items())
        case "uncheck": return .uncheck(try items())
        case "value": return .value(try Amount(parsing: try value.string("value")))
        case let other: throw CorpusInputError(description: "unknown tap \(other)")
        }
    }
}
