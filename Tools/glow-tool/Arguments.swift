/// What the person asked for, once the arguments have been understood.
enum Invocation: Equatable {
    case help(topic: String?)
    case version
    case inspect(input: String, json: Bool)
    case verify(input: String, json: Bool)
    case convert(input: String, output: String, to: Format?, level: Int)
    case export(input: String, output: String, level: Int, createdAt: String?)
    case merge(inputs: [String], output: String, to: Format?, level: Int)
    case decodeRaw(input: String, hex: Bool)
    case stats(input: String, day: String?, json: Bool)
    case themesAudit(theme: String?, mode: String?, json: Bool)
    case themesTokens(theme: String?, mode: String?)
    case testee
    case conformance(ConformanceOptions)
}

/// The options of `glow-tool conformance`.
struct ConformanceOptions: Equatable {
    var testee: String
    var corpus = "Spec/corpus"
    var failureList: String?
    var junit: String?
    var area: String?
    var timeout = 10.0
}

/// The two forms a data set takes on disk.
enum Format: String, Equatable, CaseIterable {
    case bundle
    case json
}

/// A mistake in the command line: exit code 64, the message and the subcommand's usage.
struct UsageError: Error, Equatable {
    let message: String
    let command: String?
}

/// Turns the arguments (without the program name) into an invocation. Pure: no I/O.
///
/// Options take their value as `--flag value` or `--flag=value`; `-h`/`--help` works on every
/// subcommand; `-` names standard input or output.
func parseArguments(_ arguments: [String]) -> Result<Invocation, UsageError> {
    guard let command = arguments.first else { return .success(.help(topic: nil)) }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "-h", "--help": return .success(.help(topic: nil))
    case "--version", "-V": return .success(.version)
    case "help": return .success(.help(topic: rest.first))
    default: break
    }
    guard Help.commands.contains(where: { $0.name == command }) else {
        return .failure(UsageError(message: "unknown command '\(command)'", command: nil))
    }
    do {
        var parser = try OptionParser(rest, command: command)
        if parser.flag("-h", "--help") { return .success(.help(topic: command)) }
        let invocation: Invocation
        switch command {
        case "inspect":
            let json = parser.flag("--json")
            invocation = .inspect(input: try parser.positional("BUNDLE"), json: json)
        case "verify":
            let json = parser.flag("--json")
            invocation = .verify(input: try parser.positional("BUNDLE"), json: json)
        case "convert":
            let to = try parser.format()
            let level = try parser.level()
            invocation = .convert(
                input: try parser.positional("IN"), output: try parser.positional("OUT"), to: to, level: level)
        case "export":
            let output = try parser.value("-o", "--output")
            let level = try parser.level()
            let created = try parser.value("--created-at")
            guard let output else { throw UsageError(message: "missing -o OUTPUT", command: command) }
            invocation = .export(
                input: try parser.positional("DATASET"), output: output, level: level, createdAt: created)
        case "merge":
            let output = try parser.value("-o", "--output")
            let to = try parser.format()
            let level = try parser.level()
            guard let output else { throw UsageError(message: "missing -o OUTPUT", command: command) }
            let inputs = parser.remainingPositionals()
            guard inputs.count >= 1 else { throw UsageError(message: "name at least one input", command: command) }
            invocation = .merge(inputs: inputs, output: output, to: to, level: level)
        case "themes":
            let action = try parser.positional("audit|tokens")
            let theme = try parser.value("--theme")
            let mode = try parser.value("--mode")
            switch action {
            case "audit": invocation = .themesAudit(theme: theme, mode: mode, json: parser.flag("--json"))
            case "tokens": invocation = .themesTokens(theme: theme, mode: mode)
            default: throw UsageError(message: "themes takes audit or tokens, not '\(action)'", command: command)
            }
        case "testee":
            invocation = .testee
        case "conformance":
            guard let testee = try parser.value("--testee") else {
                throw UsageError(message: "missing --testee COMMAND", command: command)
            }
            var options = ConformanceOptions(testee: testee)
            options.corpus = try parser.value("--corpus") ?? options.corpus
            options.failureList = try parser.value("--failure-list")
            options.junit = try parser.value("--junit")
            options.area = try parser.value("--area")
            if let text = try parser.value("--timeout") {
                guard let seconds = Double(text), seconds > 0 else {
                    throw UsageError(
                        message: "--timeout takes a positive number of seconds, not '\(text)'", command: command)
                }
                options.timeout = seconds
            }
            invocation = .conformance(options)
        case "decode-raw":
            let hex = parser.flag("--hex")
            invocation = .decodeRaw(input: try parser.positional("FILE"), hex: hex)
        default:  // stats
            let json = parser.flag("--json")
            let day = try parser.value("--day")
            invocation = .stats(input: try parser.positional("INPUT"), day: day, json: json)
        }
        try parser.finish()
        return .success(invocation)
    } catch let error as UsageError {
        return .failure(error)
    } catch {
        return .failure(UsageError(message: "\(error)", command: command))
    }
}

/// Options and positionals of one subcommand, consumed as they are asked for.
struct OptionParser {
    private var options: [(name: String, value: String?)] = []
    private var positionals: [String] = []
    private let command: String

    /// Options that take a value, so that `--to json` is one option, not an option and a file.
    static let valued: Set<String> = [
        "-o", "--output", "--to", "--level", "--day", "--created-at", "--theme", "--mode", "--testee", "--corpus",
        "--failure-list", "--junit", "--area", "--timeout",
    ]

    init(_ arguments: [String], command: String) throws {
        self.command = command
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
            } else if argument == "--" {
                onlyPositionals = true
            } else if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                options.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
            } else if Self.valued.contains(argument) {
                guard index < arguments.count else {
                    throw UsageError(message: "\(argument) needs a value", command: command)
                }
                options.append((argument, arguments[index]))
                index += 1
            } else {
                options.append((argument, nil))
            }
        }
    }

    mutating func flag(_ names: String...) -> Bool {
        let found = options.contains { names.contains($0.name) && $0.value == nil }
        options.removeAll { names.contains($0.name) && $0.value == nil }
        return found
    }

    mutating func value(_ names: String...) throws -> String? {
        let matches = options.filter { names.contains($0.name) }
        options.removeAll { names.contains($0.name) }
        guard matches.count <= 1 else { throw UsageError(message: "\(names[0]) is given twice", command: command) }
        guard let match = matches.first else { return nil }
        guard let value = match.value, !value.isEmpty else {
            throw UsageError(message: "\(match.name) needs a value", command: command)
        }
        return value
    }

    mutating func format() throws -> Format? {
        guard let text = try value("--to") else { return nil }
        guard let format = Format(rawValue: text) else {
            throw UsageError(message: "--to takes bundle or json, not '\(text)'", command: command)
        }
        return format
    }

    mutating func level() throws -> Int {
        guard let text = try value("--level") else { return 6 }
        guard let level = Int(text), (0...9).contains(level) else {
            throw UsageError(message: "--level takes 0 ... 9, not '\(text)'", command: command)
        }
        return level
    }

    mutating func positional(_ name: String) throws -> String {
        guard !positionals.isEmpty else { throw UsageError(message: "missing \(name)", command: command) }
        return positionals.removeFirst()
    }

    mutating func remainingPositionals() -> [String] {
        defer { positionals.removeAll() }
        return positionals
    }

    func finish() throws {
        if let option = options.first {
            throw UsageError(message: "unknown option '\(option.name)'", command: command)
        }
        if let extra = positionals.first {
            throw UsageError(message: "unexpected argument '\(extra)'", command: command)
        }
    }
}
