import Testing

@testable import glow_tool

@Suite("Argument parsing")
struct ArgumentTests {
    static let valid: [([String], Invocation)] = [
        ([], .help(topic: nil)),
        (["--help"], .help(topic: nil)),
        (["--version"], .version),
        (["help", "merge"], .help(topic: "merge")),
        (["inspect", "-h"], .help(topic: "inspect")),
        (["stats", "--help"], .help(topic: "stats")),
        (["inspect", "a.glow"], .inspect(input: "a.glow", json: false)),
        (["inspect", "--json", "-"], .inspect(input: "-", json: true)),
        (["verify", "a.glow", "--json"], .verify(input: "a.glow", json: true)),
        (["convert", "a.glow", "b.json"], .convert(input: "a.glow", output: "b.json", to: nil, level: 6)),
        (["convert", "a.glow", "-", "--to", "json"], .convert(input: "a.glow", output: "-", to: .json, level: 6)),
        (
            ["convert", "--to=bundle", "--level=9", "a.json", "b"],
            .convert(input: "a.json", output: "b", to: .bundle, level: 9)
        ),
        (["export", "d.json", "-o", "d.glow"], .export(input: "d.json", output: "d.glow", level: 6, createdAt: nil)),
        (
            ["export", "--output=d.glow", "d.json", "--created-at", "2026-01-01T00:00:00Z"],
            .export(input: "d.json", output: "d.glow", level: 6, createdAt: "2026-01-01T00:00:00Z")
        ),
        (
            ["merge", "a.glow", "b.json", "c.glow", "-o", "m.glow"],
            .merge(inputs: ["a.glow", "b.json", "c.glow"], output: "m.glow", to: nil, level: 6)
        ),
        (["decode-raw", "x.bin"], .decodeRaw(input: "x.bin", hex: false)),
        (["decode-raw", "--hex", "-"], .decodeRaw(input: "-", hex: true)),
        (["stats", "s.glow", "--day", "2026-11-28", "--json"], .stats(input: "s.glow", day: "2026-11-28", json: true)),
        (["stats", "--", "-odd-name.glow"], .stats(input: "-odd-name.glow", day: nil, json: false)),
        (
            ["feed", "a.glow", "b.glow", "--viewer", "mia", "--limit", "5", "--json"],
            .feed(.init(inputs: ["a.glow", "b.glow"], viewer: "mia", day: nil, limit: 5, json: true))
        ),
        (
            ["feed", "--viewer=bob", "a.glow", "--day", "2026-11-28"],
            .feed(.init(inputs: ["a.glow"], viewer: "bob", day: "2026-11-28", limit: 20, json: false))
        ),
    ]

    @Test("valid command lines", arguments: valid)
    func parses(arguments: [String], expected: Invocation) throws {
        #expect(try parseArguments(arguments).get() == expected)
    }

    static let invalid: [([String], String)] = [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["inspect"], "missing BUNDLE"),
        (["inspect", "a", "b"], "unexpected argument 'b'"),
        (["inspect", "a", "--jsn"], "unknown option '--jsn'"),
        (["convert", "a"], "missing OUT"),
        (["convert", "a", "b", "--to", "xml"], "--to takes bundle or json, not 'xml'"),
        (["convert", "a", "b", "--level", "12"], "--level takes 0 ... 9, not '12'"),
        (["convert", "a", "b", "--to"], "--to needs a value"),
        (["export", "d.json"], "missing -o OUTPUT"),
        (["export", "d.json", "-o", "x", "-o", "y"], "-o is given twice"),
        (["merge", "-o", "m.glow"], "name at least one input"),
        (["stats", "s.glow", "--day="], "--day needs a value"),
        (["feed", "a.glow"], "missing --viewer ID"),
        (["feed", "--viewer", "mia"], "name at least one bundle"),
        (["feed", "a.glow", "--viewer", "mia", "--limit", "many"], "--limit takes a number of items, not 'many'"),
    ]

    @Test("mistakes are usage errors that name what was wrong", arguments: invalid)
    func refuses(arguments: [String], message: String) {
        guard case .failure(let error) = parseArguments(arguments) else {
            Issue.record("\(arguments) parsed")
            return
        }
        #expect(error.message == message)
    }

    @Test("every subcommand has help with usage and options")
    func help() {
        for command in Help.commands {
            let text = Help.text(for: command.name) ?? ""
            #expect(text.hasPrefix("OVERVIEW: "))
            #expect(text.contains("USAGE: glow-tool \(command.name)"))
            #expect(text.contains("-h, --help"))
            #expect(Help.overview.contains(command.name))
        }
    }
}
