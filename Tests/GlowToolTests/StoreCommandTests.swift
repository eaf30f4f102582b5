import Foundation
import Testing

@testable import glow_tool

/// `glow-tool store` on a database in a temporary folder: the sample person imported, tapped,
/// undone, reported and exported, and the mistakes a person can make.
@Suite("glow-tool store")
struct StoreCommandTests {
    static let day = "2026-11-28"

    static func store(_ arguments: [String], database: String) throws -> EndToEndTests.Run {
        try EndToEndTests.run(["store"] + arguments + ["--db", database])
    }

    struct Stats: Decodable, Equatable {
        struct Row: Decodable, Equatable {
            let goalID: String
            let today: String
            let onToday: Bool
            let currentStreak: Int
        }
        let goals: [Row]
    }

    @Test("import, today, tap, undo and export, each committed when it prints")
    func session() throws {
        let database = EndToEndTests.temporary("glow.sqlite")
        let imported = try Self.store(["import", EndToEndTests.sample], database: database)
        #expect(imported.status == 0 && imported.stdout.contains("4418 check-ins changed"), "\(imported.stderr)")
        // Today from the database is Today of the bundle (glow-tool stats), goal for goal.
        let today = try Self.store(["today", "--day", Self.day, "--json"], database: database)
        let stats = try EndToEndTests.run(["stats", EndToEndTests.sample, "--day", Self.day, "--json"])
        let fromStore = try JSONDecoder().decode(Stats.self, from: today.output)
        let fromBundle = try JSONDecoder().decode(Stats.self, from: stats.output)
        #expect(fromStore.goals == fromBundle.goals.filter(\.onToday) && !fromStore.goals.isEmpty)

        let water = "Drink 8 glasses of water"
        let first = try Self.store(["tap", water, "--count", "1", "--day", Self.day], database: database)
        let second = try Self.store(["tap", water.uppercased(), "--count", "1", "--day", Self.day], database: database)
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        let counts = [first, second].compactMap { run in
            run.stdout.split(separator: ":").last?.split(separator: " ").first.flatMap { Int($0) }
        }
        #expect(counts.count == 2 && counts[1] == counts[0] + 1, "\(first.stdout) \(second.stdout)")
        let undone = try Self.store(["undo", water, "--day", Self.day], database: database)
        #expect(undone.status == 0 && undone.stdout.contains("undone"))

        let output = EndToEndTests.temporary("export.glow")
        #expect(try Self.store(["export", "-o", output], database: database).status == 0)
        #expect(try EndToEndTests.run(["verify", output]).status == 0)
        // The export holds what the database holds: the same figures, the undone Day included.
        let exported = try EndToEndTests.run(["stats", output, "--day", Self.day, "--json"])
        let overview = try Self.store(["overview", "--day", Self.day, "--json"], database: database)
        #expect(exported.status == 0 && exported.output == overview.output)
    }

    @Test("mistakes: an unknown goal, a bad action or amount, a database of a newer version")
    func mistakes() throws {
        let database = EndToEndTests.temporary("glow.sqlite")
        #expect(try Self.store(["init"], database: database).status == 0)
        let unknown = try Self.store(["tap", "Juggle"], database: database)
        #expect(unknown.status == 1 && unknown.stderr.contains("no goal is called 'Juggle'"))
        #expect(try Self.store(["frobnicate"], database: database).status == 64)
        #expect(try Self.store(["tap", "x", "--count", "two"], database: database).status == 64)
        #expect(try Self.store(["tap", "x", "--count", "1", "--skip"], database: database).status == 64)
        let text = EndToEndTests.temporary("notes.sqlite")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let foreign = try Self.store(["today"], database: text)
        #expect(foreign.status == 1 && foreign.stderr.contains("glow-tool: error:"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)) == Data("hello".utf8), "left as it was")
    }

    @Test("feed publishes the person's items into the database's feed, once however often it runs")
    func feed() throws {
        let database = EndToEndTests.temporary("glow.sqlite")
        #expect(try Self.store(["import", EndToEndTests.sample], database: database).status == 0)
        let nobody = try Self.store(["feed"], database: database)
        #expect(nobody.status == 64 && nobody.stderr.contains("give --person ID"))
        struct View: Decodable {
            struct Row: Decodable, Equatable {
                let id: String
                let owner: String
                let title: String
            }
            let items: [Row]
        }
        let arguments = ["feed", "--person", "mia", "--day", Self.day, "--limit", "100", "--json"]
        let first = try JSONDecoder().decode(View.self, from: try Self.store(arguments, database: database).output)
        let again = try JSONDecoder().decode(View.self, from: try Self.store(arguments, database: database).output)
        #expect(!first.items.isEmpty && first.items == again.items)
        #expect(first.items.allSatisfy { $0.owner == "mia" })
        #expect(Set(first.items.map(\.title)) == ["Meditate for 10 minutes", "Work out"], "never a private goal")
    }

    @Test("the default database: XDG_DATA_HOME, else ~/.local/share")
    func defaultLocation() {
        #expect(StoreCommand.path(nil, environment: ["XDG_DATA_HOME": "/x"]) == "/x/glow/glow.sqlite")
        #expect(StoreCommand.path(nil, environment: ["HOME": "/home/mia"]) == "/home/mia/.local/share/glow/glow.sqlite")
        #expect(
            StoreCommand.path(nil, environment: ["XDG_DATA_HOME": "", "HOME": "/h"])
                == "/h/.local/share/glow/glow.sqlite")
        #expect(StoreCommand.path("/tmp/a.sqlite", environment: ["XDG_DATA_HOME": "/x"]) == "/tmp/a.sqlite")
    }
}
