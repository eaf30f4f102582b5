import Foundation
import GlowBundle
import GlowConformance
import GlowFeed
import GlowModel
import GlowStreaks
import GlowThemes
import GlowWire

/// Runs an invocation: prints to standard output and returns the exit code (0 or 1); data errors
/// are thrown as ``DataFailure``.
enum Commands {
    static func run(_ invocation: Invocation, secrets: Secrets) throws -> Int32 {
        switch invocation {
        case .help(let topic):
            guard let topic else {
                print(Help.overview, terminator: "")
                return 0
            }
            guard let text = Help.text(for: topic) else { throw UsageErrorInRun(message: "no help for '\(topic)'") }
            print(text, terminator: "")
        case .version:
            print(Help.version)
        case .inspect(let input, let json):
            let summary = try summary(input, secrets: secrets)
            print(json ? Report.json(Report.Inspect(summary)) : Report.text(summary), terminator: "")
        case .verify(let input, let json):
            try verify(input, json: json, secrets: secrets)
        case .convert(let input, let output, let to, let level):
            let (data, social) = try Files.contents(input, secrets: secrets)
            let format = try Files.format(forOutput: output, explicit: to)
            try Files.writeBundle(
                try Files.encode(data, social: social, as: format, level: level), to: output, format: format,
                secrets: secrets)
        case .export(let input, let output, let level, let createdAt):
            try export(input, to: output, level: level, createdAt: createdAt, secrets: secrets)
        case .merge(let inputs, let output, let to, let level):
            try merge(inputs, to: output, format: to, level: level, secrets: secrets)
        case .decodeRaw(let input, let hex):
            try decodeRaw(input, hex: hex)
        case .themesAudit(let theme, let mode, let json):
            let (themes, modes) = try selection(theme, mode)
            let results = themes.flatMap { theme in modes.flatMap { ThemeAudit.audit(theme, $0) } }
            print(json ? Report.json(results.map(Report.AuditRow.init)) : Report.auditTable(results), terminator: "")
            return results.allSatisfy(\.passed) ? 0 : 1
        case .themesTokens(let theme, let mode):
            let (themes, modes) = try selection(theme, mode)
            print(DesignTokens.text(themes: themes, modes: modes), terminator: "")
        case .testee:
            Testee.serve()
        case .conformance(let options):
            return try conformance(options)
        case .verifyToken(let options):
            return try AuthCommand.verify(options)
        case .stats(let input, let day, let json):
            try stats(input, day: day, json: json, secrets: secrets)
        case .feed(let options):
            try FeedCommand.run(options, secrets: secrets)
        case .account:
            preconditionFailure("an account command waits for its server: main.swift runs it")
        case .store:
            preconditionFailure("a store command waits for its database's executor: main.swift runs it")
        case .report(let options):
            try ReportCommand.run(options, secrets: secrets)
        case .reminders(let options):
            try RemindersCommand.run(options, secrets: secrets)
        }
        return 0
    }

    static func verify(_ input: String, json: Bool, secrets: Secrets) throws {
        do {
            let summary = try Files.streaming(input, secrets: secrets) { next in try BundleReader().read(next) { _ in }
            }
            if json {
                print(Report.json(Report.Verify(ok: true, error: nil, counts: summary.counts)), terminator: "")
            } else {
                print(
                    "ok: \(input) is a valid bundle (\(summary.counts.goals) goals, \(summary.counts.checkIns) check-ins)"
                )
            }
        } catch let error as BundleError {
            if json {
                print(Report.json(Report.Verify(ok: false, error: .init(error), counts: nil)), terminator: "")
            }
            throw DataFailure(message: "\(input): \(error)")
        } catch let failure as DataFailure {
            // An encrypted bundle's envelope error comes wrapped with its path.
            if json, let error = failure.bundleError {
                print(Report.json(Report.Verify(ok: false, error: .init(error), counts: nil)), terminator: "")
            }
            throw failure
        }
    }

    static func export(_ input: String, to output: String, level: Int, createdAt: String?, secrets: Secrets) throws {
        let bytes = try Files.read(input, limit: Files.maxJSONSize, what: "a JSON data set") { head in
            Format(head: head) == nil ? Files.notDataSet(input, head) : nil
        }
        guard Format(head: bytes) != .bundle else {
            throw DataFailure(message: "\(input) is already a bundle; use convert or merge")
        }
        let data = try Files.dataSet(bytes, name: input)
        var created = Instant.now
        if let createdAt {
            do { created = try Instant(rfc3339: createdAt) } catch {
                throw UsageErrorInRun(message: "--created-at: \(error.message)")
            }
        }
        try Files.writeBundle(
            try Files.encode(data, as: .bundle, level: level, createdAt: created), to: output, format: .bundle,
            secrets: secrets)
    }

    static func merge(_ inputs: [String], to output: String, format explicit: Format?, level: Int, secrets: Secrets)
        throws
    {
        let format = try Files.format(forOutput: output, explicit: explicit)
        var merged = DataSet()
        var social: SocialData?
        for input in inputs {
            let next = try Files.contents(input, secrets: secrets)
            if let theirs = merged.otherPerson(in: next.data) {
                throw DataFailure(message: "\(input) belongs to another person (\(theirs)); nothing was written")
            }
            merged.merge(next.data)
            if let more = next.social {
                // The bundles of one person carry one person's social data (FEED-30): their union.
                guard social.map({ $0.person == more.person }) ?? true else {
                    throw DataFailure(
                        message: "\(input) carries the social data of \(more.person), not \(social!.person)")
                }
                var registers = social?.registers ?? FeedReplica()
                registers.merge(more.registers)
                social = try SocialData(person: more.person, registers: registers)
            }
        }
        try Files.writeBundle(
            try Files.encode(merged, social: social, as: format, level: level), to: output, format: format,
            secrets: secrets)
    }

    static func decodeRaw(_ input: String, hex: Bool) throws {
        var bytes = try Files.read(input, limit: Files.maxRawSize, what: "decode-raw's input")
        if hex {
            do { bytes = try HexText.bytes(bytes, allowingWhiteSpace: true) } catch {
                throw DataFailure(message: "\(input): \(error)")
            }
        }
        do {
            print(RawMessage.text(try RawMessage.parse(bytes)), terminator: "")
        } catch {
            throw DataFailure(message: "\(input): \(error)")
        }
    }

    static func stats(_ input: String, day: String?, json: Bool, secrets: Secrets) throws {
        let data = try Files.dataSet(input, secrets: secrets)
        let boundary = data.dayBoundary
        if let warning = boundary.warning {
            FileHandle.standardError.write(Data("glow-tool: warning: \(warning)\n".utf8))
        }
        let today = try parseDay(day) ?? boundary.day(containing: .now)
        let stats = Report.Stats(data, boundary: boundary, today: today)
        print(json ? Report.json(stats) : stats.text, terminator: "")
    }

    static func conformance(_ options: ConformanceOptions) throws -> Int32 {
        let corpus = Corpus(directory: URL(fileURLWithPath: options.corpus))
        let areas = corpus.areas
        guard !areas.isEmpty else { throw DataFailure(message: "no corpus areas in '\(options.corpus)'") }
        if let area = options.area, !areas.contains(area) {
            throw UsageErrorInRun(message: "no area '\(area)'; the areas are \(areas.joined(separator: ", "))")
        }
        var list = FailureList()
        if let path = options.failureList {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw DataFailure(message: "cannot read the failure list '\(path)'")
            }
            list = FailureList(text: String(decoding: data, as: UTF8.self))
        }
        let results: [ConformanceRunner.Result]
        let subject: String
        if let server = options.server {
            // A server plays the server area only (Spec/server.md 9.6).
            if let area = options.area, area != Corpus.serverArea {
                throw UsageErrorInRun(message: "a server plays the \(Corpus.serverArea) area, not '\(area)'")
            }
            guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
                throw UsageErrorInRun(message: "--server takes an http:// or https:// URL, not '\(server)'")
            }
            let runner = ServerRunner(base: server, mailDirectory: options.mailDirectory, timeout: options.timeout)
            // The setup first (Spec/server.md 9.6): one line naming what to change, not failed cases.
            if let problem = runner.setupProblem() { throw DataFailure(message: "setup: \(problem)") }
            results = runner.run(corpus.serverCases(), failureList: list)
            subject = server
        } else {
            let testee = options.testee ?? ""
            var runner = ConformanceRunner(command: testee, corpus: corpus)
            runner.timeout = options.timeout
            let cases = corpus.testeeCases(areas: options.area.map { [$0] })
            do {
                results = try runner.run(cases, failureList: list)
            } catch {
                throw DataFailure(message: "cannot start the testee '\(testee)': \(error)")
            }
            subject = testee
        }
        print(ConformanceReport.summary(results, testee: subject), terminator: "")
        if let junit = options.junit { try Files.write(Array(ConformanceReport.junit(results).utf8), to: junit) }
        return results.contains { $0.unexpectedFailure || $0.unexpectedPass } ? 1 : 0
    }

    /// The themes and modes an audit or export covers.
    static func selection(_ theme: String?, _ mode: String?) throws -> ([Theme], [Mode]) {
        var themes = Theme.all
        if let theme {
            guard let found = Theme.all.first(where: { $0.id == theme }) else {
                throw UsageErrorInRun(
                    message: "no theme '\(theme)'; the themes are \(Theme.all.map(\.id).joined(separator: ", "))")
            }
            themes = [found]
        }
        var modes = Mode.allCases
        if let mode {
            do { modes = [try Mode(parsing: mode)] } catch { throw UsageErrorInRun(message: error.message) }
        }
        return (themes, modes)
    }

    static func summary(_ input: String, secrets: Secrets) throws -> BundleSummary {
        try Files.streaming(input, secrets: secrets) { next in
            do {
                return try BundleReader().read(next) { _ in }
            } catch {
                throw DataFailure(message: "\(input): \(error)")
            }
        }
    }
}
