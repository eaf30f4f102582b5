import GlowBundle
import GlowToolSupport

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
    case verifyToken(TokenOptions)
    case feed(FeedCommand.Options)
    case store(StoreCommand.Options)
    case account(AccountCommand.Options)
    case report(ReportCommand.Options)
    case reminders(RemindersCommand.Options)
}

/// The options of `glow-tool auth verify-token`.
struct TokenOptions: Equatable {
    /// The token, or - for standard input.
    var token: String
    /// The JSON Web Key Set file.
    var keys: String
    /// The app's client ids.
    var audiences: [String]
    /// `apple` or `google`, whose issuers, algorithms and nonce form apply; or nil with `issuers`.
    var provider: String?
    var issuers: [String] = []
    var algorithms: [String] = []
    var nonce: String?
    var hashNonce = false
    /// The time to judge the token at, in seconds since 1970; nil for now.
    var at: Double?
    var json = false
}

/// The options of `glow-tool conformance`.
struct ConformanceOptions: Equatable {
    /// The testee command, or nil when a server is played instead.
    var testee: String?
    /// A server's base URL, played the `server` area (Spec/server.md 9.6).
    var server: String?
    /// The folder that server writes its mail into.
    var mailDirectory: String?
    var corpus = "Spec/corpus"
    var failureList: String?
    var junit: String?
    var area: String?
    var timeout = 10.0
}

/// The two forms a data set takes on disk.
typealias Format = DataSetFormat

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
        var parser = try OptionParser(rest, command: command, valued: valuedOptions)
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
            invocation = try parser.themes()
        case "auth":
            invocation = try parser.auth()
        case "store":
            invocation = .store(try parser.store())
        case "account":
            invocation = .account(try parser.account())
        case "report":
            let output = try parser.value("-o", "--output")
            let theme = try parser.value("--theme")
            let mode = try parser.value("--mode")
            let day = try parser.value("--day")
            let weeks = try parser.value("--weeks")
            guard let count = Int(weeks ?? "53") else {
                throw UsageError(message: "--weeks takes a number of weeks, not '\(weeks ?? "")'", command: command)
            }
            invocation = .report(
                .init(
                    input: try parser.positional("INPUT"), output: output, theme: theme, mode: mode, day: day,
                    weeks: count))
        case "testee":
            invocation = .testee
        case "conformance":
            invocation = .conformance(try parser.conformanceOptions())
        case "feed":
            let viewer = try parser.value("--viewer")
            let day = try parser.value("--day")
            let limit = try parser.value("--limit")
            let json = parser.flag("--json")
            guard let viewer, !viewer.isEmpty else {
                throw UsageError(message: "missing --viewer ID", command: command)
            }
            guard let count = Int(limit ?? "20") else {
                throw UsageError(message: "--limit takes a number of items, not '\(limit ?? "")'", command: command)
            }
            let inputs = parser.remainingPositionals()
            guard !inputs.isEmpty else { throw UsageError(message: "name at least one bundle", command: command) }
            invocation = .feed(.init(inputs: inputs, viewer: viewer, day: day, limit: count, json: json))
        case "reminders":
            let from = try parser.value("--from")
            let days = try parser.value("--days")
            let json = parser.flag("--json")
            guard let count = Int(days ?? "7"), (1...31).contains(count) else {
                throw UsageError(
                    message: "--days takes a number of Days from 1 to 31 (REMIND-1), not '\(days ?? "")'",
                    command: command)
            }
            invocation = .reminders(.init(input: try parser.positional("INPUT"), from: from, days: count, json: json))
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

/// Options that take a value, so that `--to json` is one option, not an option and a file.
let valuedOptions: Set<String> = [
    "-o", "--output", "--to", "--level", "--day", "--created-at", "--theme", "--mode", "--testee", "--server",
    "--mail-dir", "--corpus",
    "--failure-list", "--junit", "--area", "--timeout", "--keys", "--audience", "--provider", "--issuer",
    "--algorithms", "--nonce", "--at", "--viewer", "--limit", "--db", "--count", "--add", "--value", "--person",
    "--weeks", "--email", "--token", "--device", "--from", "--days", "--pair",
]

extension OptionParser {
    /// `store init|import B|tap G|undo G|today|overview|export -o F [--db P] [--day D] [--json]`.
    mutating func store() throws(UsageError) -> StoreCommand.Options {
        let action = try positional("init|import|tap|undo|today|overview|feed|export|sync")
        let database = try value("--db")
        let day = try value("--day")
        let json = flag("--json")
        let chosen: StoreCommand.Options.Action
        switch action {
        case "init": chosen = .initialise
        case "import": chosen = .importBundle(try positional("BUNDLE"))
        case "tap":
            let count = try value("--count")
            let add = try value("--add")
            let setValue = try value("--value")
            let skip = flag("--skip")
            _ = flag("--done")
            var tap = StoreCommand.TapChoice.done
            if skip { tap = .skip }
            if let count {
                guard let delta = Int(count) else {
                    throw UsageError(message: "--count takes a whole number, not '\(count)'", command: command)
                }
                tap = .count(delta)
            }
            if let add { tap = .add(add) }
            if let setValue { tap = .value(setValue) }
            guard [skip, count != nil, add != nil, setValue != nil].filter({ $0 }).count <= 1 else {
                throw UsageError(message: "give one of --done, --skip, --count, --add, --value", command: command)
            }
            chosen = .tap(goal: try positional("GOAL"), tap: tap)
        case "undo": chosen = .undo(goal: try positional("GOAL"))
        case "today": chosen = .today
        case "overview": chosen = .overview
        case "feed":
            let person = try value("--person")
            let limit = try value("--limit")
            guard let count = Int(limit ?? "20") else {
                throw UsageError(message: "--limit takes a number of items, not '\(limit ?? "")'", command: command)
            }
            chosen = .feed(person: person, limit: count)
        case "export":
            guard let output = try value("-o", "--output") else {
                throw UsageError(message: "missing -o OUTPUT", command: command)
            }
            chosen = .export(output: output)
        case "sync": chosen = .sync(server: try value("--server"))
        default:
            throw UsageError(
                message: "store takes init, import, tap, undo, today, overview, feed, export or sync, not '\(action)'",
                command: command)
        }
        return StoreCommand.Options(action: chosen, database: database, day: day, json: json)
    }

    /// `account sign-up --email E | confirm --token T | sign-in --email E | sessions | sign-out |
    /// sync [--new | --pair CODE | --words] | pair [--server URL] [--db PATH] [--device NAME]`.
    mutating func account() throws(UsageError) -> AccountCommand.Options {
        let action = try positional("sign-up|confirm|sign-in|sessions|sign-out|sync|pair")
        let server = try value("--server")
        let database = try value("--db")
        let device = try value("--device")
        func required(_ option: String) throws(UsageError) -> String {
            guard let text = try value(option) else {
                throw UsageError(message: "account \(action) needs \(option)", command: command)
            }
            return text
        }
        let chosen: AccountCommand.Options.Action
        switch action {
        case "sign-up": chosen = .signUp(email: try required("--email"))
        case "confirm": chosen = .confirm(token: try required("--token"))
        case "sign-in": chosen = .signIn(email: try required("--email"))
        case "sessions": chosen = .sessions
        case "sign-out": chosen = .signOut
        case "sync":
            let start: [AccountCommand.Options.Start] = [
                flag("--new") ? .new : nil, try value("--pair").map { .pair(code: $0) }, flag("--words") ? .words : nil,
            ].compactMap { $0 }
            guard start.count <= 1 else {
                throw UsageError(message: "account sync takes one of --new, --pair and --words", command: command)
            }
            chosen = .sync(start: start.first)
        case "pair": chosen = .pair
        default:
            throw UsageError(
                message: "account takes sign-up, confirm, sign-in, sessions, sign-out, sync or pair, not '\(action)'",
                command: command)
        }
        return AccountCommand.Options(action: chosen, server: server, database: database, device: device)
    }

    /// `themes audit|tokens [--theme ID] [--mode M] [--json]`.
    mutating func themes() throws(UsageError) -> Invocation {
        let action = try positional("audit|tokens")
        let theme = try value("--theme")
        let mode = try value("--mode")
        switch action {
        case "audit": return .themesAudit(theme: theme, mode: mode, json: flag("--json"))
        case "tokens": return .themesTokens(theme: theme, mode: mode)
        default: throw UsageError(message: "themes takes audit or tokens, not '\(action)'", command: command)
        }
    }

    /// `auth verify-token TOKEN --keys FILE --audience IDS (--provider apple|google | --issuer ISS)
    /// [--algorithms LIST] [--nonce RAW] [--hash-nonce] [--at SECONDS] [--json]`.
    mutating func auth() throws(UsageError) -> Invocation {
        let action = try positional("verify-token")
        guard action == "verify-token" else {
            throw UsageError(message: "auth takes verify-token, not '\(action)'", command: command)
        }
        func list(_ text: String?) -> [String] { (text ?? "").split(separator: ",").map(String.init) }
        let keys = try value("--keys")
        let audiences = list(try value("--audience"))
        let provider = try value("--provider")
        let issuers = list(try value("--issuer"))
        guard let keys else {
            throw UsageError(message: "missing --keys FILE (the provider's key set)", command: command)
        }
        guard !audiences.isEmpty else {
            throw UsageError(message: "missing --audience ID[,ID...] (the app's client ids)", command: command)
        }
        if let provider, provider != "apple" && provider != "google" {
            throw UsageError(message: "--provider takes apple or google, not '\(provider)'", command: command)
        }
        guard provider != nil || !issuers.isEmpty else {
            throw UsageError(message: "name --provider apple|google or the --issuer to expect", command: command)
        }
        var options = TokenOptions(token: "", keys: keys, audiences: audiences, provider: provider, issuers: issuers)
        options.algorithms = list(try value("--algorithms"))
        options.nonce = try value("--nonce")
        options.hashNonce = flag("--hash-nonce")
        options.json = flag("--json")
        if let text = try value("--at") {
            guard let seconds = Double(text), seconds.isFinite else {
                throw UsageError(message: "--at takes seconds since 1970, not '\(text)'", command: command)
            }
            options.at = seconds
        }
        options.token = try positional("TOKEN")
        return .verifyToken(options)
    }

    /// `conformance (--testee COMMAND | --server URL [--mail-dir DIR]) [--corpus DIR]
    /// [--failure-list F] [--junit F] [--area A] [--timeout SECONDS]`.
    mutating func conformanceOptions() throws(UsageError) -> ConformanceOptions {
        let testee = try value("--testee")
        let server = try value("--server")
        guard (testee == nil) != (server == nil) else {
            throw UsageError(message: "give --testee COMMAND or --server URL, one of them", command: command)
        }
        var options = ConformanceOptions(testee: testee, server: server)
        options.mailDirectory = try value("--mail-dir")
        if options.mailDirectory != nil, server == nil {
            throw UsageError(message: "--mail-dir goes with --server", command: command)
        }
        options.corpus = try value("--corpus") ?? options.corpus
        options.failureList = try value("--failure-list")
        options.junit = try value("--junit")
        options.area = try value("--area")
        if let text = try value("--timeout") {
            guard let seconds = Double(text), seconds > 0 else {
                throw UsageError(
                    message: "--timeout takes a positive number of seconds, not '\(text)'", command: command)
            }
            options.timeout = seconds
        }
        return options
    }

    mutating func format() throws(UsageError) -> Format? {
        guard let text = try value("--to") else { return nil }
        guard let format = Format(rawValue: text) else {
            throw UsageError(message: "--to takes bundle or json, not '\(text)'", command: command)
        }
        return format
    }

    mutating func level() throws(UsageError) -> Int {
        guard let text = try value("--level") else { return 6 }
        guard let level = Int(text), (0...9).contains(level) else {
            throw UsageError(message: "--level takes 0 ... 9, not '\(text)'", command: command)
        }
        return level
    }
}

/// The options that open encrypted inputs and encrypt outputs (BUNDLE-29 ... BUNDLE-35):
/// `--passphrase-env NAME` and `--passphrase-fd N` say where the passphrase (or a recovery key's
/// words) comes from, the terminal otherwise, never the command line; `--encrypt` seals the
/// output and `--recovery-key` gives it a recovery key too.
struct SecretOptions: Equatable {
    var passphraseEnvironment: String?
    var passphraseDescriptor: Int32?
    var encrypt = false
    var recoveryKey = false

    /// The commands that read bundles, and those that write one.
    static let reading: Set<String> = [
        "inspect", "verify", "convert", "merge", "stats", "report", "feed", "store", "reminders",
    ]
    static let writing: Set<String> = ["convert", "merge", "export", "store"]
}

/// Takes the options of ``SecretOptions`` out of the arguments, wherever they stand after the
/// command, and checks they fit it. Pure: no I/O.
func splitSecretOptions(_ arguments: [String]) -> Result<([String], SecretOptions), UsageError> {
    guard let command = arguments.first else { return .success((arguments, SecretOptions())) }
    var options = SecretOptions()
    var rest = [command]
    var index = 1
    func value(_ name: String, _ argument: String) throws(UsageError) -> String {
        if argument.hasPrefix(name + "=") { return String(argument.dropFirst(name.count + 1)) }
        index += 1
        guard index < arguments.count else { throw UsageError(message: "\(name) needs a value", command: command) }
        return arguments[index]
    }
    do {
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            switch name {
            case "--passphrase-env":
                let variable = try value(name, argument)
                guard !variable.isEmpty else {
                    throw UsageError(message: "--passphrase-env names an environment variable", command: command)
                }
                options.passphraseEnvironment = variable
            case "--passphrase-fd":
                let text = try value(name, argument)
                guard let descriptor = Int32(text), descriptor >= 0 else {
                    throw UsageError(
                        message: "--passphrase-fd takes a file descriptor number, not '\(text)'", command: command)
                }
                options.passphraseDescriptor = descriptor
            case "--passphrase", "--password":
                throw UsageError(
                    message: "a passphrase is never taken on the command line, where other users and the shell's "
                        + "history can read it: give --passphrase-env NAME or --passphrase-fd N, or type it when asked",
                    command: command)
            case "--encrypt" where argument == name: options.encrypt = true
            case "--recovery-key" where argument == name: options.recoveryKey = true
            default: rest.append(argument)
            }
            index += 1
        }
        let reads = options.passphraseEnvironment != nil || options.passphraseDescriptor != nil
        if options.passphraseEnvironment != nil, options.passphraseDescriptor != nil {
            throw UsageError(message: "give --passphrase-env or --passphrase-fd, not both", command: command)
        }
        if reads, !SecretOptions.reading.union(SecretOptions.writing).contains(command) {
            throw UsageError(message: "'\(command)' reads no bundle: it takes no passphrase", command: command)
        }
        if options.encrypt || options.recoveryKey, !SecretOptions.writing.contains(command) {
            throw UsageError(
                message:
                    "--encrypt and --recovery-key apply to convert, merge, export and store export, not '\(command)'",
                command: command)
        }
        if options.recoveryKey, !options.encrypt {
            throw UsageError(message: "--recovery-key goes with --encrypt", command: command)
        }
    } catch let error as UsageError {
        return .failure(error)
    } catch {
        return .failure(UsageError(message: "\(error)", command: command))
    }
    return .success((rest, options))
}
