import Foundation
import GlowBundle
import GlowCore
import GlowModel
import GlowStorage
import GlowStreaks
import GlowThemes
import Observation
import Testing

@testable import GlowRitual

/// Whether an observed read changed, as `withObservationTracking` reports it.
final class Heard: Sendable {
    private let value = Locked(false)
    var fired: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }

    /// Tracks what `read` reads; the flag goes up when any of it changes.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @MainActor static func watching(_ read: @escaping @MainActor () -> Void) -> Heard {
        let heard = Heard()
        withObservationTracking {
            read()
        } onChange: {
            heard.set()
        }
        return heard
    }
}

/// The app's stores over the sample person (issue 17): a change notifies exactly the
/// properties it changed, and a tap re-evaluates only its goal.
@MainActor
@Suite("Observable stores")
struct StoreTests {
    nonisolated static let now = try! Instant(rfc3339: "2026-11-28T10:00:00Z")
    nonisolated static let meditate = try! GoalID("019376ef-1400-75d7-844c-3cd7f43c661c")
    nonisolated static let water = try! GoalID("019376ef-1400-75d8-a698-4080bab12a02")

    /// `milliseconds` after ``now``.
    static func later(_ milliseconds: Int64) -> Instant {
        try! Instant(millisecondsSince1970: now.millisecondsSince1970 + milliseconds)
    }

    static func sample() async throws -> RitualDatabase {
        let database = try await RitualDatabase(path: DatabaseTests.temporary())
        try await database.importBundle(
            try [UInt8](Data(contentsOf: DatabaseTests.root.appendingPathComponent("Spec/examples/sample.glow"))))
        return database
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a tap notifies its goal's row, only the properties that changed, and re-evaluates no other goal")
    func tapNotifiesItsRow() async throws {
        let database = try await Self.sample()
        let store = try await GoalStore(database: database, device: DatabaseTests.device, now: Self.now)
        let meditate = try #require(store.row(Self.meditate))
        let water = try #require(store.row(Self.water))
        #expect(meditate.status == .pending && meditate.isOnToday)
        let evaluations = Dictionary(uniqueKeysWithValues: store.rows.map { ($0.id, $0.evaluations) })
        let status = Heard.watching { _ = meditate.status }
        let streak = Heard.watching { _ = meditate.currentStreak }
        let goal = Heard.watching { _ = meditate.goal }
        let other = Heard.watching { _ = (water.status, water.currentStreak, water.thousandths, water.goal) }
        let lists = Heard.watching { _ = (store.rows, store.today, store.day) }
        try await store.tap(.done, goal: Self.meditate, at: Self.now)
        #expect(meditate.status == .done)
        #expect(status.fired && streak.fired)
        #expect(!goal.fired, "the goal itself did not change")
        #expect(!other.fired, "another goal's row heard nothing")
        #expect(!lists.fired, "the lists kept their members")
        for row in store.rows {
            #expect(row.evaluations == evaluations[row.id]! + (row.id == Self.meditate ? 1 : 0), "\(row.goal.title)")
        }
        // The Overview is the Overview query's over the same data and Day.
        let expected = OverviewQuery.items(try await database.data, boundary: store.boundary, now: Self.now, weeks: 8)
        #expect(store.overview(weeks: 8) == expected && expected.count == store.rows.count)
        // Committed: a store over the file opened again shows the tap.
        let again = try await GoalStore(
            database: try await RitualDatabase(path: database.path), device: DatabaseTests.device, now: Self.now)
        #expect(again.row(Self.meditate)?.status == .done)
    }

    /// What a row shows, to compare with a store opened afresh.
    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    static func shown(_ row: GoalRow) -> String {
        "\(row.goal.title) \(row.status.name) \(row.thousandths) \(row.currentStreak) \(row.longestStreak) "
            + "\(String(describing: row.strength)) \(row.strengthWeek ?? "-")"
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test(
        "a row's streaks and strength follow taps, fill-ins and undos as a store opened afresh shows them",
        arguments: [
            // (days before today, the change): recent Days resume the goal's walk, older ones
            // evaluate it from its start.
            (0, "done"), (0, "undo"), (2, "done"), (6, "skip"), (7, "done"), (9, "done"), (20, "done"), (3, "undo"),
        ])
    func rowsFollowChanges(daysBack: Int, change: String) async throws {
        let database = try await Self.sample()
        let store = try await GoalStore(database: database, device: DatabaseTests.device, now: Self.now)
        let day = store.day.advanced(by: -daysBack)
        let strength = Heard.watching { _ = store.row(Self.meditate)?.strength }
        let before = store.row(Self.meditate)?.strength
        switch change {
        case "done": try await store.backfill(.done, goal: Self.meditate, on: day, at: Self.later(1000))
        case "skip": try await store.backfill(.skip, goal: Self.meditate, on: day, at: Self.later(1000))
        default:
            try await store.backfill(.done, goal: Self.meditate, on: day, at: Self.later(1000))
            try await store.undo(goal: Self.meditate, on: day, at: Self.later(2000))
        }
        let fresh = try await GoalStore(
            database: try await RitualDatabase(path: database.path), device: DatabaseTests.device, now: Self.now)
        #expect(store.rows.map(Self.shown) == fresh.rows.map(Self.shown))
        #expect(store.row(Self.meditate)?.strength != nil, "a recurring goal shows a strength")
        #expect(strength.fired == (store.row(Self.meditate)?.strength != before))
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a draft is checked field by field; adding, archiving and deleting change the lists")
    func addArchiveDelete() async throws {
        let database = try await Self.sample()
        let store = try await GoalStore(database: database, device: DatabaseTests.device, now: Self.now)
        let count = store.rows.count
        let bad = GoalDraft(title: "", kind: .streak)
        await #expect {
            try await store.add(bad, at: Self.now)
        } throws: { error in
            guard case .invalid(let issues) = error as? GoalStoreError else { return false }
            return Set(issues.map(\.field)).isSuperset(of: ["title", "schedule"])
        }
        #expect(store.rows.count == count)
        let lists = Heard.watching { _ = store.rows }
        let goal = try await store.add(
            GoalDraft(title: "Stretch", emoji: "🧘‍♀️", kind: .streak, schedule: .daily), at: Self.now)
        #expect(lists.fired && store.rows.count == count + 1 && store.row(goal.id)?.isOnToday == true)
        let today = Heard.watching { _ = store.today }
        try await store.delete(goal.id, at: Self.later(1))
        #expect(today.fired && store.row(goal.id) == nil && store.rows.count == count)
        let archived = Heard.watching { _ = store.today }
        try await store.archive(Self.meditate, from: try Day(iso: "2026-11-28"), at: Self.later(2))
        #expect(archived.fired && !store.today.contains { $0.id == Self.meditate })
        let reopened = try await GoalStore(
            database: try await RitualDatabase(path: database.path), device: DatabaseTests.device, now: Self.now)
        #expect(reopened.rows.count == count && reopened.row(goal.id) == nil)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("a template adds its goal, as the person changed it")
    func template() async throws {
        let store = try await GoalStore(database: try Self.sample(), device: DatabaseTests.device, now: Self.now)
        let template = GoalTemplate(
            id: try TemplateID("01938a6e-7c00-7abc-8def-0000000000f1"), interestID: try Slug("sleep"),
            draft: GoalDraft(title: "Lights out by 11", kind: .streak, schedule: .daily))
        let goal = try await store.add(template: template, at: Self.now) { $0.title = "Lights out by 10:30" }
        #expect(goal.title == "Lights out by 10:30" && goal.templateID == template.id)
    }

    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
    @Test("the profile and the theme: each change heard by its property, kept in the file")
    func profileAndTheme() async throws {
        let database = try await Self.sample()
        let profiles = try await ProfileStore(database: database)
        let themes = ThemeStore(profiles: profiles, mode: .light)
        #expect(themes.theme == .standard && !themes.fellBack, "the sample person chose Default")
        let profile = Heard.watching { _ = profiles.profile }
        try await profiles.edit(at: Self.now) { $0.displayName = "Mia R." }
        #expect(profile.fired && profiles.profile?.displayName == "Mia R.")
        let palette = Heard.watching { _ = themes.palette }
        let theme = Heard.watching { _ = themes.theme }
        themes.mode = .dark
        #expect(palette.fired && !theme.fired && themes.palette == Theme.standard.palette(.dark))
        try await themes.choose("forest", at: Self.later(1))
        let stored = try await ProfileStore(database: try await RitualDatabase(path: database.path)).profile?.themeID
            .rawValue
        #expect(themes.theme == .forest && stored == "forest")
        await #expect {
            try await themes.choose("neon")
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .refused && error?.message.contains("'neon'") == true && error?.path == database.path
        }
        #expect(themes.theme == .forest)
        let aurora = try Slug("aurora")
        try await profiles.edit(at: Self.later(2)) { $0.themeID = aurora }
        let unknown = ThemeStore(profiles: profiles)
        #expect(unknown.theme == .standard && unknown.fellBack, "an id this version does not know shows Default")
    }
}
