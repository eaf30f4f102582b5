import Foundation
import Testing

/// `glow-bench` refuses a command line it cannot honour, instead of measuring nothing, and a
/// small run prints the figures it names.
@Suite("glow-bench arguments")
struct BenchArgumentTests {
    @Test(
        "mistyped names and flags stop the run with a message",
        arguments: [
            (["--only", "nope"], "--only nope: not one of encode, decode"),
            (["--set", "big"], "--set big: not one of typical, heavy, extreme"),
            (["--samples", "0"], "--samples 0: not a whole number of at least 1"),
            (["--samples", "many"], "--samples many: not a whole number of at least 1"),
            (["--samples"], "--samples needs a value"),
            (["--frob"], "unknown option '--frob'"),
            (["--against", "/no/such/glow-bench"], "--against /no/such/glow-bench: not an executable glow-bench"),
        ])
    func refused(arguments: [String], message: String) throws {
        let run = try EndToEndTests.run(tool: "glow-bench", arguments)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("glow-bench: \(message)"))
        #expect(run.stderr.contains("usage: glow-bench"))
    }

    @Test("--help prints the usage and succeeds")
    func help() throws {
        let run = try EndToEndTests.run(tool: "glow-bench", ["--help"])
        #expect(run.status == 0)
        #expect(
            run.stdout.contains(
                "--only      encode, decode, size, bundle, encrypted, levels, merge, streaks, reminders, memory, auth, feed, store,"
            )
        )
    }

    @Test("one measurement of one set, as JSON")
    func streaksOfTypical() throws {
        let run = try EndToEndTests.run(
            tool: "glow-bench", ["--json", "--only", "streaks", "--set", "typical", "--samples", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let figures = try JSONDecoder().decode([String: [String: Double]].self, from: run.output)
        #expect(Array(figures.keys) == ["typical"])
        let typical = try #require(figures["typical"])
        #expect(
            Set(typical.keys) == [
                "checkIns", "streaks", "today", "overview", "strength", "tapThenToday", "tappedGoalWalkedAgain",
                "evaluationResumed",
            ])
        #expect(typical["checkIns"] == 4170)
        for key in ["streaks", "today", "overview", "tapThenToday", "tappedGoalWalkedAgain", "evaluationResumed"] {
            #expect((typical[key] ?? 0) > 0, "\(key)")
        }
    }

    @Test("the reminders measurement plans a week and re-plans after taps, each tap changing the plan")
    func remindersOfTypical() throws {
        let run = try EndToEndTests.run(
            tool: "glow-bench", ["--json", "--only", "reminders", "--set", "typical", "--samples", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let figures = try JSONDecoder().decode([String: [String: Double]].self, from: run.output)
        let typical = try #require(figures["typical"])
        #expect(Set(typical.keys) == ["checkIns", "remindersWeek", "remindersFresh", "remindersReplan"])
        for key in ["remindersWeek", "remindersFresh", "remindersReplan"] { #expect((typical[key] ?? 0) > 0, "\(key)") }
        #expect(!run.stderr.contains("(0 notifications cancelled or added)"), "\(run.stderr)")
    }
}
