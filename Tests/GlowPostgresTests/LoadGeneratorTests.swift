import Foundation
import GlowCore
import GlowToolSupport
import Testing

extension ProcessHeavySuites {
    /// glow-load, the load generator (issue 29), in a short run: it makes its people, runs against
    /// one and two glow-server processes and reports a row for each, or refuses bad options by name.
    @Suite("glow-load", .enabled(if: TemporaryPostgres.available), .serialized)
    struct LoadGeneratorTests {
        /// Runs glow-load with `arguments`: its exit status, standard output and standard error.
        static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
            let process = Process()
            process.executableURL = try ServerProcess.executable().deletingLastPathComponent().appendingPathComponent(
                "glow-load")
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // Read both to the end before waiting, so neither pipe fills and stalls the tool.
            let errorText = Locked<Data>(Data())
            let reader = Thread { errorText.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
            reader.start()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            while reader.isExecuting || !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
            return (
                process.terminationStatus, String(decoding: outputData, as: UTF8.self),
                String(decoding: errorText.withLock { $0 }, as: UTF8.self)
            )
        }

        @Test("eight devices against one and then two processes: a row each, every call answered")
        func shortRun() throws {
            let result = try Self.run(["--devices", "8", "--processes", "1,2", "--seconds", "2", "--think", "0.05"])
            #expect(result.status == 0, "\(result.errors)")
            let rows = result.output.split(separator: "\n").filter { $0.first?.isNumber == true }
            #expect(rows.count == 2, "\(result.output)")
            for (row, processes) in zip(rows, ["1", "2"]) {
                let cells = row.split(separator: " ", omittingEmptySubsequences: true)
                #expect(cells.first.map(String.init) == processes, "\(row)")
                // calls/s, then p50, p99 and p999 in ms, then the errors: none.
                #expect((Double(cells.count > 1 ? String(cells[1]) : "") ?? 0) > 10, "\(row)")
                #expect(cells.count > 8 && cells[8] == "0", "errors in \(row)\n\(result.output)")
            }
        }

        /// Issue 43's repeated runs: `--repeat 2` goes round the list twice, `--control` adds a run of
        /// health checks alone to each count of processes, and the report ends with each pair's
        /// medians; a run of syncs and writes reports its small syncs apart.
        @Test("--repeat and --control: every run reported, then the medians of each pair")
        func repeatedRuns() throws {
            let result = try Self.run(
                [
                    "--devices", "4", "--processes", "1", "--writes", "30", "--control", "--repeat", "2", "--seconds",
                    "1",
                    "--think", "0.25",
                ])
            #expect(result.status == 0, "\(result.errors)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0.hasPrefix("run ") }.count == 4, "\(result.output)")
            #expect(lines.filter { $0.contains("health checks alone (the control)") }.count == 2, "\(result.output)")
            let rows = lines.filter { $0.first?.isNumber == true }
            #expect(rows.count == 4, "\(result.output)")
            for row in rows {
                let cells = row.split(separator: " ", omittingEmptySubsequences: true)
                #expect(cells.count > 8 && cells[8] == "0", "errors in \(row)\n\(result.output)")
            }
            #expect(lines.filter { $0.contains("small syncs: ") && !$0.contains("small syncs: 0,") }.count == 2)
            let medians = try #require(lines.firstIndex { $0.hasPrefix("medians over the runs") }, "\(result.output)")
            let summary = lines[(medians + 2)...].map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            #expect(
                summary.map { $0.prefix(3).joined(separator: " ") } == ["1 30% 2", "1 health 2"], "\(result.output)")
        }

        @Test(
            "bad options are refused by name before anything starts",
            arguments: [
                (["--devices", "0"], "--devices"), (["--processes", "1,x"], "--processes"),
                (["--seconds", "-1"], "--seconds"), (["--writes", "101"], "--writes"),
                (["--writes", "30,x"], "--writes"),
                (["--writes", "30,"], "--writes"), (["--repeat", "0"], "--repeat"), (["--repeat", "21"], "--repeat"),
                (["--bogus"], "--bogus"), (["--group", "1"], "--group"), (["--writers", "2"], "--writers"),
                (["--group", "3", "--writers", "0"], "--writers"),
                (["--group", "3", "--against", "/nowhere"], "--against"),
                (["--group", "3", "--database", "sqlite"], "--group"),
            ])
        func badOptions(arguments: [String], named: String) throws {
            let result = try Self.run(arguments)
            #expect(result.status == 64)
            #expect(result.errors.contains(named), "\(result.errors)")
            #expect(result.output.isEmpty)
        }

        /// Issue 44's hostile neighbour, short: while one address runs the slowloris, the Argon2id
        /// flood and the 900 KB keys together, every ordinary call is answered, every health probe is
        /// 200 and no acknowledged write is lost; the attacks are refused (connections closed, 429).
        /// How fast the ordinary calls stay is glow-load's figure (BENCHMARKS.md), not this test's.
        @Test(
            "a hostile neighbour takes nothing from the others, on SQLite and on PostgreSQL", arguments: ["sqlite", ""])
        func hostileNeighbour(database: String) throws {
            let result = try Self.run(
                [
                    "--devices", "12", "--processes", "1", "--seconds", "4", "--think", "0.1", "--hostile", "--attacks",
                    "slowloris,flood,keys",
                ] + (database.isEmpty ? [] : ["--database", database]))
            #expect(result.status == 0, "\(result.errors)")
            let lines = result.output.split(separator: "\n").map(String.init)
            let row = try #require(lines.first { $0.first?.isNumber == true }, "\(result.output)")
            let cells = row.split(separator: " ", omittingEmptySubsequences: true)
            #expect(cells.count > 8 && cells[8] == "0", "ordinary calls failed:\n\(result.output)")
            let health = try #require(lines.first { $0.contains("health: ") && $0.contains("answered 200") })
            #expect(health.hasSuffix("; 0 not"), "health probes failed:\n\(result.output)")
            #expect(!health.contains("health: 0 answered"), "\(health)")
            #expect(
                lines.contains { $0.contains("acknowledged writes:") && $0.hasSuffix("lost: 0") }, "\(result.output)")
            // The attacks ran and were refused.
            func attacked(_ what: String) -> Int {
                lines.compactMap { line -> Int? in
                    guard line.contains("attack: "), line.hasSuffix(what) else { return nil }
                    return Int(line.split(separator: "×")[0].split(separator: " ").last ?? "")
                }.reduce(0, +)
            }
            #expect(attacked("slowloris: closed by the server") > 0, "\(result.output)")
            // Refused with 429, or before that: a connection past the attacker's rate of connections is
            // closed unanswered (SERVER-11).
            func refused(_ kind: String) -> Int {
                attacked("\(kind): HTTP 429") + attacked("\(kind): connection closed")
            }
            #expect(refused("flood sign-in") > 0, "\(result.output)")
            #expect(refused("oversized key") > 0, "\(result.output)")
        }

        /// Issue 59's attacks, short, each alone beside a calm run (`--each`): many addresses
        /// trickling headers, one client signing in with its right password as fast as answered,
        /// one pulling a log of its own records. Every ordinary call is answered, every probe 200,
        /// no acknowledged write lost, and each attack ran; the bystanders' figures are glow-load's
        /// (BENCHMARKS.md), not this test's.
        @Test("issue 59's attacks, each beside a calm run, take nothing from the others")
        func roundThree() throws {
            let result = try Self.run([
                "--devices", "12", "--processes", "1", "--seconds", "3", "--think", "0.1", "--hostile", "--attacks",
                "spread,signins,ownlog", "--each", "--own-log", "2000", "--database", "sqlite",
            ])
            #expect(result.status == 0, "\(result.errors)")
            let lines = result.output.split(separator: "\n").map(String.init)
            let rows = lines.filter { $0.first?.isNumber == true }
            #expect(rows.count == 4, "a calm run and one per attack:\n\(result.output)")
            for row in rows {
                let cells = row.split(separator: " ", omittingEmptySubsequences: true)
                #expect(cells.count > 8 && cells[8] == "0", "ordinary calls failed:\n\(result.output)")
            }
            #expect(
                lines.filter { $0.contains("health: ") && $0.contains("answered 200") }.allSatisfy {
                    $0.hasSuffix("; 0 not")
                },
                "\(result.output)")
            #expect(
                lines.filter { $0.contains("acknowledged writes:") }.allSatisfy { $0.hasSuffix("lost: 0") },
                "\(result.output)")
            for ran in ["spread slowloris: connections opened", "sign-in flood: HTTP 200", "own-log pull: HTTP 200"] {
                #expect(lines.contains { $0.contains("attack: ") && $0.hasSuffix(ran) }, "\(ran):\n\(result.output)")
            }
            #expect(lines.contains { $0.hasPrefix("bystanders under each attack") }, "\(result.output)")
        }

        /// Issue 43's population, small, on both databases: every register is written and read. Fifty
        /// people with four friends each (two before and two after them on the ring), one goal and two
        /// check-ins make 50 × (4 + 1 + 2) = 350 registers; the eight devices are two people, who each
        /// befriend four of them, both ways: 16 more. Each device's sync carries its generated friends'
        /// items, so the relay read them.
        @Test(
            "--population writes its people into the relay's table, and the devices sync with them",
            arguments: ["sqlite", ""])
        func population(database: String) throws {
            let result = try Self.run(
                [
                    "--devices", "8", "--processes", "1", "--seconds", "1", "--think", "0.05", "--population", "50",
                    "--friends", "4", "--items", "2",
                ] + (database.isEmpty ? [] : ["--database", database]))
            #expect(result.status == 0, "\(result.errors)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(
                lines.contains { $0.contains("50 people written into the relay's table: 366 registers") },
                "\(result.output)")
            let row = try #require(lines.first { $0.first?.isNumber == true }, "\(result.output)")
            let cells = row.split(separator: " ", omittingEmptySubsequences: true)
            #expect(cells.count > 8 && cells[8] == "0", "calls failed:\n\(result.output)")
            #expect(lines.contains { $0.contains("start to first answer: ") && $0.contains("CPU per call: ") })
            let received = lines.first { $0.contains("other people's items received: ") }
            #expect(received.map { !$0.hasSuffix(": 0") } == true, "\(result.output)")
        }

        /// Issue 57's group of friends, short: three friends, one and then two writing as fast as
        /// they are answered while all three sync; every write answered, none raced. How many writes
        /// a second is glow-load's figure (BENCHMARKS.md), not this test's.
        @Test("--group: friends writing at once, a row per count of writers, no 503 and no write run again")
        func friendsGroup() throws {
            let result = try Self.run(
                ["--group", "3", "--writers", "1,2", "--processes", "1", "--seconds", "1", "--think", "0.2"])
            #expect(result.status == 0, "\(result.errors)")
            let rows = result.output.split(separator: "\n").filter { $0.hasPrefix("this tree") }
            #expect(rows.count == 2, "\(result.output)")
            for (row, writers) in zip(rows, ["1", "2"]) {
                let cells = row.dropFirst("this tree".count).split(separator: " ", omittingEmptySubsequences: true)
                // processes, writers, writes/s, p50, p99, worst (each "N ms"), 503s, retries per write.
                #expect(cells.count > 11, "\(row)")
                guard cells.count > 11 else { continue }
                #expect(cells[0] == "1" && cells[1] == Substring(writers), "\(row)")
                #expect((Double(String(cells[2])) ?? 0) > 0, "no write acknowledged: \(row)")
                #expect(cells[9] == "0", "writes answered 503: \(row)")
                #expect(cells[10] == "0.000", "writes run again: \(row)")
            }
        }

        @Test("--help and -h print the usage and start nothing")
        func help() throws {
            for flag in ["--help", "-h"] {
                let result = try Self.run([flag])
                #expect(result.status == 0 && result.output.contains("usage: glow-load"), "\(flag)")
            }
        }
    }
}
