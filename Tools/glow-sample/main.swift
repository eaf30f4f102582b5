import Foundation
import GlowBundle
import GlowModel
import GlowWire

// Writes the sample person of Spec/examples: a dozen goals of every kind and schedule, two years
// of history with gaps, skips, late nights and two trips abroad. Deterministic: the same bytes
// on every run. Usage: swift run glow-sample [output directory] (default Spec/examples).

let usage = """
    OVERVIEW: Writes the sample person (sample.glow and sample.json): a dozen goals, two years of history.

    USAGE: glow-sample [<output-directory>]

    ARGUMENTS:
      <output-directory>      Where to write (default: Spec/examples).

    OPTIONS:
      -h, --help              Show help information.

    """
let options = Array(CommandLine.arguments.dropFirst())
if options == ["-h"] || options == ["--help"] {
    print(usage, terminator: "")
    exit(0)
}
if options.count > 1 || options.first?.hasPrefix("-") == true {
    FileHandle.standardError.write(Data("error: unexpected arguments \(options); see glow-sample --help\n".utf8))
    exit(64)
}

extension SeededRandom {
    mutating func chance(_ percent: Int) -> Bool { Int(next() % 100) < percent }
}

let london = try TimeZoneID("Europe/London")
let first = try Day(iso: "2024-11-29")
let last = try Day(iso: "2026-11-28")
let created = try Instant(rfc3339: "2024-11-29T08:00:00Z")
let exported = try Instant(rfc3339: "2026-11-28T21:30:00Z")
let phone = try DeviceID("01938a6e-7c00-7abc-8def-00000000d001")
let tablet = try DeviceID("01938a6e-7c00-7abc-8def-00000000d002")
var ids = UUIDv7Generator(clock: { created }, random: SeededRandom(seed: 7))
var random = SeededRandom(seed: 2026)

/// Where the person was: two trips, Tokyo in spring and New York in summer.
@MainActor func zone(on day: Day) throws -> TimeZoneID {
    if (try Day(iso: "2025-04-03")...Day(iso: "2025-04-14")).contains(day) { return try TimeZoneID("Asia/Tokyo") }
    if (try Day(iso: "2026-07-20")...Day(iso: "2026-08-02")).contains(day) { return try TimeZoneID("America/New_York") }
    return london
}

/// An instant on `day` at about `hour` local time where the person was, to the second.
@MainActor func instant(_ day: Day, hour: Int) throws -> (Instant, TimeZoneID) {
    let zone = try zone(on: day)
    let start = try DayBoundary(timeZone: zone).firstInstant(of: day)!
    let seconds = Int64(hour * 3600) + Int64(random.next() % 2400)
    return (try start.adding(milliseconds: seconds * 1000), zone)
}

@MainActor func goal(_ draft: GoalDraft, start: Day = first) throws -> Goal {
    try draft.makeGoal(id: ids.next(), today: start, now: created)
}

@MainActor func items(_ titles: [String]) -> [SubgoalItem] {
    titles.map { SubgoalItem(id: ids.next(), title: $0) }
}

var goals: [Goal] = []
var checkIns: [CheckIn] = []

/// Logs taps on the Days `rule` picks, with `done` percent of them kept and some skipped.
@MainActor func history(
    _ goal: Goal, done: Int, skip: Int = 3, hour: Int, from: Day? = nil, through: Day = last, tap: (Day) -> [CheckInTap]
)
    throws
{
    var day = from ?? goal.startDay
    while day <= through {
        defer { day = day.advanced(by: 1) }
        if goal.isArchived(on: day) { continue }
        // A three-week slump every winter: kinder streaks are for exactly this.
        let slump = (day.month == 1 && day.day > 8) ? 35 : 0
        let roll = Int(random.next() % 100)
        guard roll < done - slump || roll >= 100 - skip else { continue }
        var entry: CheckIn? = nil
        let taps: [CheckInTap] = roll >= 100 - skip && goal.kind.isRecurring ? [.skip] : tap(day)
        for (index, tap) in taps.enumerated() {
            let (at, zone) = try instant(day, hour: hour + index)
            entry = try CheckIn.record(
                tap, for: goal, on: day, at: at, timeZone: zone, deviceID: random.chance(85) ? phone : tablet,
                existing: entry)
        }
        if var entry {
            if random.chance(4) {
                let note = ["felt lighter", "hard today", "with a friend", "late, but done"][Int(random.next() % 4)]
                entry = try entry.withNote(note, at: entry.modifiedAt)
            }
            checkIns.append(entry)
        }
    }
}

// 1. A daily meditation with one forgiven Day a week.
var meditate = try goal(
    GoalDraft(
        title: "Meditate for 10 minutes", emoji: "🧘", kind: .streak, schedule: .daily,
        forgiveness: Forgiveness(allowance: 1, period: .week), visibility: .friends))
try history(meditate, done: 86, hour: 7) { _ in [.done] }
// 2. Water, counted glass by glass.
let water = try goal(
    GoalDraft(
        title: "Drink 8 glasses of water", emoji: "💧", kind: .tally(TallyConfig(dailyTarget: 8, unit: "glasses")),
        schedule: .daily))
try history(water, done: 90, skip: 0, hour: 8) { _ in
    Array(repeating: CheckInTap.count(2), count: Int(random.next() % 3) + 3)
}
// 3. Sleep, at least 8 hours.
let sleep = try goal(
    GoalDraft(
        title: "Sleep 8 hours", emoji: "😴",
        kind: .value(ValueConfig(unit: "h", target: ValueTarget(comparison: .atLeast, amount: try Amount(8)))),
        schedule: .daily))
try history(sleep, done: 80, skip: 0, hour: 8) { _ in
    [.value(try! Amount(thousandths: 7000 + Int64(random.next() % 2500)))]
}
// 4. Screens after 9 pm, at most 30 minutes.
let screens = try goal(
    GoalDraft(
        title: "Screen time after 9 pm", emoji: "📵",
        kind: .value(ValueConfig(unit: "min", target: ValueTarget(comparison: .atMost, amount: try Amount(30)))),
        schedule: .daily))
try history(screens, done: 75, skip: 0, hour: 22) { _ in [.value(try! Amount(Int(random.next() % 50)))] }
// 5. Workouts three times a week; the schedule became four from 2026.
var workout = try goal(
    GoalDraft(title: "Work out", emoji: "💪", kind: .streak, schedule: .timesPerWeek(3), visibility: .public))
try workout.edit(at: created) { changes throws(ModelError) in
    try changes.schedule!.change(to: .timesPerWeek(4), from: try Day(iso: "2026-01-05"))
}
try history(workout, done: 55, hour: 18) { _ in [.done] }
// 6. Sunday family dinner.
let dinner = try goal(GoalDraft(title: "Family dinner", emoji: "🍝", kind: .streak, schedule: .weekdays([.sunday])))
try history(dinner, done: 85, hour: 19) { day in day.weekday == .sunday ? [.done] : [] }
// 7. Sketching every other Day.
let sketch = try goal(GoalDraft(title: "Sketch something", emoji: "✏️", kind: .streak, schedule: .everyNDays(2)))
try history(sketch, done: 70, hour: 20) { day in first.days(to: day) % 2 == 0 ? [.done] : [] }
// 8. A monthly treat.
let treat = try goal(GoalDraft(title: "A monthly treat", emoji: "💅", kind: .streak, schedule: .timesPerMonth(1)))
try history(treat, done: 6, skip: 0, hour: 15) { _ in [.done] }
// 9. A skincare checklist every evening.
let skincare = try goal(
    GoalDraft(
        title: "Skincare routine", emoji: "🧴",
        kind: .subgoals(SubgoalsConfig(items: items(["Cleanse", "Tone", "Moisturise"]), recurring: true)),
        schedule: .daily))
if case .subgoals(let config) = skincare.kind {
    try history(skincare, done: 82, hour: 21) { _ in
        [.check(Set(config.items.prefix(random.chance(80) ? 3 : Int(random.next() % 2) + 1).map(\.id)))]
    }
}
// 10. Running 500 km this year and last.
let running = try goal(
    GoalDraft(title: "Run 1,500 km", emoji: "🏃‍♀️", kind: .progress(ProgressConfig(target: try Amount(1500), unit: "km"))))
try history(running, done: 30, skip: 0, hour: 7) { _ in
    [.add(try! Amount(thousandths: 3000 + Int64(random.next() % 7000)))]
}
// 11. A book, finished once.
let book = try goal(GoalDraft(title: "Finish 'The Overstory'", emoji: "📚", kind: .single))
try history(book, done: 100, skip: 0, hour: 22, from: try Day(iso: "2025-03-16"), through: try Day(iso: "2025-03-16")) {
    _ in [.done]
}
// 12. A get-together, planned step by step.
let party = try goal(
    GoalDraft(
        title: "Plan a get-together", emoji: "🎉",
        kind: .subgoals(
            SubgoalsConfig(items: items(["Pick a date", "Invite friends", "Book a place"]), recurring: false))),
    start: try Day(iso: "2026-11-01"))
if case .subgoals(let config) = party.kind {
    try history(
        party, done: 100, skip: 0, hour: 19, from: try Day(iso: "2026-11-03"), through: try Day(iso: "2026-11-03")
    ) { _ in [.check([config.items[0].id])] }
    try history(
        party, done: 100, skip: 0, hour: 19, from: try Day(iso: "2026-11-10"), through: try Day(iso: "2026-11-10")
    ) { _ in [.check([config.items[1].id])] }
}
// 13. Counting down to a half marathon.
let race = try goal(
    GoalDraft(
        title: "Half marathon", emoji: "🏅", kind: .countdown(CountdownConfig(targetDay: try Day(iso: "2027-03-14")))),
    start: try Day(iso: "2026-09-01"))
// 14. Reading on weekdays, put away for a month in the summer.
var reading = try goal(
    GoalDraft(
        title: "Read 20 pages", emoji: "📖", kind: .tally(TallyConfig(dailyTarget: 20, unit: "pages")),
        schedule: .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday])))
try reading.archive(from: try Day(iso: "2025-07-01"), at: created)
try reading.unarchive(from: try Day(iso: "2025-08-01"), at: created)
try history(reading, done: 78, hour: 21) { day in
    day.weekday == .saturday || day.weekday == .sunday ? [] : [.count(10), .count(Int(random.next() % 15))]
}
// 15. A goal tried and deleted: a tombstone, so no other device brings it back.
let coldShowers = try goal(GoalDraft(title: "Cold showers", emoji: "🚿", kind: .streak, schedule: .daily))
    .deleting(at: try Instant(rfc3339: "2025-01-20T07:00:00Z"))

goals = [
    meditate, water, sleep, screens, workout, dinner, sketch, treat, skincare, running, book, party, race, reading,
    coldShowers,
]
let profile = try Profile(
    userID: try UserID("01938a6e-7c00-7abc-8def-0000000000aa"), displayName: "Mia", photoReference: "photos/mia.jpg",
    interests: [try Slug("mindfulness"), try Slug("sleep"), try Slug("movement"), try Slug("self-care")],
    themeID: try Slug("default"),
    boundary: try DayBoundary(timeZone: london, dayStartMinutes: 180, weekStart: .monday), createdAt: created,
    modifiedAt: exported)
let data = try DataSet(profile: profile, goals: goals, checkIns: checkIns)

let directory = options.first ?? "Spec/examples"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let bundle = BundleWriter.bundle(data, options: BundleOptions(createdAt: exported, deviceID: phone))
try Data(bundle).write(to: URL(fileURLWithPath: directory).appendingPathComponent("sample.glow"))
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
try (encoder.encode(data) + Data("\n".utf8)).write(
    to: URL(fileURLWithPath: directory).appendingPathComponent("sample.json"))
print(
    "wrote \(directory)/sample.glow (\(bundle.count) bytes) and sample.json: \(goals.count) goals, \(checkIns.count) check-ins"
)
