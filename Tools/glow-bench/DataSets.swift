import Foundation
import GlowModel
import GlowWire

extension SeededRandom {
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// The benchmark's data sets: a person with `goals` goals kept for `days` Days, checking in on
/// most of them at about the same time each Day, as real habits go.
enum DataSets {
    struct Spec {
        let name: String
        let goals: Int
        let days: Int
        let seed: UInt64
    }

    static let typical = Spec(name: "typical", goals: 12, days: 365, seed: 1)
    static let heavy = Spec(name: "heavy", goals: 50, days: 5 * 365, seed: 2)
    static let extreme = Spec(name: "extreme", goals: 581, days: 1826, seed: 3)  // ≈ 1,000,000 check-ins

    static func make(_ spec: Spec) throws -> DataSet {
        let london = try TimeZoneID("Europe/London")
        let lisbon = try TimeZoneID("Europe/Lisbon")
        var random = SeededRandom(seed: spec.seed)
        let created = try Instant(millisecondsSince1970: 1_600_000_000_000)
        var ids = UUIDv7Generator(clock: { created }, random: SeededRandom(seed: spec.seed &* 31))
        let start = try Day(iso: "2021-01-04")
        let devices: [DeviceID] = [ids.next(), ids.next()]
        let templates = InspirationCatalogue.interests.flatMap(\.templates)
        var goals: [Goal] = []
        var checkIns: [CheckIn] = []
        checkIns.reserveCapacity(spec.goals * spec.days)
        for index in 0..<spec.goals {
            // Goals come from the catalogue's templates, made daily so they are due every Day.
            var draft = templates[index % templates.count].draft
            draft.title += index >= templates.count ? " \(index / templates.count + 1)" : ""
            if !draft.kind.isRecurring { draft.kind = .streak }
            draft.schedule = .daily
            let goal = try draft.makeGoal(id: ids.next(), today: start, now: created)
            goals.append(goal)
            let hour = 6 + random.below(16)
            let rate = 90 + random.below(10)
            var minute = random.below(60)
            for offset in 0..<spec.days where random.below(100) < rate {
                let day = start.advanced(by: offset)
                minute = max(0, min(119, minute + random.below(21) - 10))  // habits drift slowly
                let seconds = Int64(day.daysSince1970) * 86_400 + Int64(hour * 3600 + minute * 60 + random.below(60))
                let at = try Instant(millisecondsSince1970: seconds * 1000)
                let tap: CheckInTap
                switch goal.kind {
                case .tally(let config): tap = .count(max(1, config.dailyTarget - random.below(3)))
                case .value: tap = .value(try Amount(thousandths: Int64(7000 + random.below(2000) / 250 * 250)))
                case .subgoals(let config): tap = .check(Set(config.items.map(\.id)))
                default: tap = random.below(40) == 0 ? .skip : .done
                }
                let zone = offset % 365 < 10 ? lisbon : london
                checkIns.append(
                    try CheckIn.record(
                        tap, for: goal, on: day, at: at, timeZone: zone,
                        deviceID: devices[random.below(10) == 0 ? 1 : 0]))
            }
        }
        let profile = try Profile(
            userID: ids.next(), displayName: "Bench", interests: InspirationCatalogue.interests.map(\.id),
            boundary: try DayBoundary(timeZone: london), createdAt: created, modifiedAt: created)
        return try DataSet(profile: profile, goals: goals, checkIns: checkIns)
    }
}

/// What an app would write itself: plain Codable structs of the same data, with Foundation types.
enum AppModel {
    struct Export: Codable {
        var profile: Profile
        var goals: [Goal]
        var checkIns: [CheckIn]
    }

    struct Profile: Codable {
        var id: UUID
        var displayName: String
        var interests: [String]
        var timeZone: String
        var createdAt: Date
    }

    struct Goal: Codable {
        var id: UUID
        var title: String
        var emoji: String?
        var kind: String
        var target: Double?
        var unit: String?
        var schedule: String
        var startDay: String
        var createdAt: Date
        var modifiedAt: Date
        var deleted: Bool
    }

    struct CheckIn: Codable {
        var goalID: UUID
        var day: String
        var kind: String
        var count: Int?
        var value: Double?
        var items: [UUID]?
        var firstRecordedAt: Date
        var lastRecordedAt: Date
        var timeZone: String
        var deviceID: UUID
        var note: String?
        var modifiedAt: Date
        var deleted: Bool
    }

    static func export(_ data: DataSet) -> Export {
        func date(_ instant: Instant) -> Date {
            Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1000)
        }
        let profile = data.profile!
        return Export(
            profile: Profile(
                id: profile.userID.uuid, displayName: profile.displayName, interests: profile.interests.map(\.rawValue),
                timeZone: profile.boundary.timeZone.identifier, createdAt: date(profile.createdAt)),
            goals: data.sortedGoals.map { goal in
                var target: Double? = nil
                var unit: String? = nil
                if case .tally(let config) = goal.kind {
                    target = Double(config.dailyTarget)
                    unit = config.unit
                }
                return Goal(
                    id: goal.id.uuid, title: goal.title, emoji: goal.emoji, kind: goal.kind.name.rawValue,
                    target: target,
                    unit: unit, schedule: "daily", startDay: goal.startDay.description, createdAt: date(goal.createdAt),
                    modifiedAt: date(goal.modifiedAt), deleted: goal.deleted)
            },
            checkIns: data.checkIns.map { checkIn in
                var count: Int? = nil
                var value: Double? = nil
                var items: [UUID]? = nil
                switch checkIn.log {
                case .tally(let n): count = n
                case .value(let amount), .amount(let amount): value = Double(amount.thousandths) / 1000
                case .items(let set): items = set.sorted().map(\.uuid)
                case .done, .skip: break
                }
                return CheckIn(
                    goalID: checkIn.goalID.uuid, day: checkIn.day.description, kind: checkIn.log.name.rawValue,
                    count: count,
                    value: value, items: items, firstRecordedAt: date(checkIn.firstRecordedAt),
                    lastRecordedAt: date(checkIn.lastRecordedAt), timeZone: checkIn.timeZone.identifier,
                    deviceID: checkIn.deviceID.uuid, note: checkIn.note, modifiedAt: date(checkIn.modifiedAt),
                    deleted: checkIn.deleted)
            })
    }
}
