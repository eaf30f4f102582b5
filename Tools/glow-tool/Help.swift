import Foundation

/// The help texts, in swift-argument-parser's OVERVIEW / USAGE / OPTIONS layout.
enum Help {
    struct Command {
        let name: String
        let abstract: String
        let usage: String
        let arguments: [(String, String)]
        let options: [(String, String)]
    }

    static let version = "glow-tool 0.1.0 (Glow Ritual SDK)"

    static let commands: [Command] = [
        Command(
            name: "inspect", abstract: "Show a bundle's header, manifest, record counts and sizes.",
            usage: "glow-tool inspect <bundle> [--json]",
            arguments: [("<bundle>", "A .glow file, or - for standard input.")],
            options: [("--json", "Print the report as JSON.")]),
        Command(
            name: "verify", abstract: "Check a bundle completely; exit 1 naming the error code and where.",
            usage: "glow-tool verify <bundle> [--json]",
            arguments: [("<bundle>", "A .glow file, or - for standard input.")],
            options: [("--json", "Print the result as JSON.")]),
        Command(
            name: "convert", abstract: "Convert between a bundle and a JSON data set.",
            usage: "glow-tool convert <in> <out> [--to bundle|json] [--level <0-9>]",
            arguments: [
                ("<in>", "A .glow bundle or .json data set, or - (the format is recognised)."),
                ("<out>", "The file to write, or - for standard output."),
            ],
            options: [
                ("--to <format>", "bundle or json; by default from the extension of <out>."),
                ("--level <n>", "zlib compression level for bundles (default 6)."),
            ]),
        Command(
            name: "export", abstract: "Write a JSON data set as a bundle.",
            usage: "glow-tool export <dataset.json> -o <bundle> [--level <0-9>] [--created-at <instant>]",
            arguments: [("<dataset.json>", "A JSON data set, or - for standard input.")],
            options: [
                ("-o, --output <bundle>", "The bundle to write, or - for standard output."),
                ("--level <n>", "zlib compression level (default 6)."),
                ("--created-at <instant>", "The manifest's creation instant, RFC 3339 (default: now)."),
            ]),
        Command(
            name: "merge", abstract: "Merge bundles and data sets by the import rules into one.",
            usage: "glow-tool merge <input>... -o <out> [--to bundle|json] [--level <0-9>]",
            arguments: [("<input>", "Bundles or JSON data sets, in any mix.")],
            options: [
                ("-o, --output <out>", "The file to write, or - for standard output."),
                ("--to <format>", "bundle or json; by default from the extension of <out>."),
                ("--level <n>", "zlib compression level for bundles (default 6)."),
            ]),
        Command(
            name: "decode-raw", abstract: "Show any Protocol Buffers bytes as a field tree, like protoc --decode_raw.",
            usage: "glow-tool decode-raw <file> [--hex]", arguments: [("<file>", "A file of protobuf bytes, or -.")],
            options: [("--hex", "The input is hexadecimal text.")]),
        Command(
            name: "themes", abstract: "Audit the themes' colour contrast, or export them as design tokens.",
            usage: "glow-tool themes audit|tokens [--theme <id>] [--mode light|dark] [--json]",
            arguments: [("audit|tokens", "audit: every colour pair against WCAG 2.2; tokens: W3C design tokens.")],
            options: [
                ("--theme <id>", "One theme: default, ocean, forest, sunset, black-and-white."),
                ("--mode <mode>", "light or dark."),
                ("--json", "audit: print the results as JSON (tokens are always JSON)."),
            ]),
        Command(
            name: "auth", abstract: "Verify an ID token of Sign in with Apple or Google against a key set.",
            usage:
                "glow-tool auth verify-token <token> --keys <jwks> --audience <ids> (--provider apple|google | --issuer <iss>) [--nonce <raw>] [--at <seconds>] [--json]",
            arguments: [("<token>", "The compact JWS, or - for standard input.")],
            options: [
                ("--keys <file>", "The provider's JSON Web Key Set, as fetched from its jwks_uri."),
                ("--audience <ids>", "The app's client ids, separated by commas."),
                ("--provider <name>", "apple or google: their issuers, algorithms and nonce form (Spec/auth.md 7.4)."),
                ("--issuer <iss>", "Instead of, or besides, a provider's: the issuers to accept, by commas."),
                ("--algorithms <list>", "RS256, ES256 or both (default: the provider's, else RS256)."),
                ("--nonce <raw>", "The raw nonce the sign-in sent; without it the claim is not checked."),
                ("--hash-nonce", "With --issuer: the nonce claim is the SHA-256 of the raw nonce, as Apple's."),
                ("--at <seconds>", "Judge the token at this time, seconds since 1970 (default: now)."),
                ("--json", "Print the verdict as JSON."),
            ]),
        Command(
            name: "conformance",
            abstract: "Run the conformance corpus against any implementation's testee, or against a server.",
            usage:
                "glow-tool conformance (--testee <command> | --server <url> [--mail-dir <dir>]) [--corpus <dir>] [--failure-list <file>] [--junit <file>] [--area <name>] [--timeout <s>]",
            arguments: [],
            options: [
                ("--testee <command>", "The testee to start (run by /bin/sh), e.g. \"glow-tool testee\"."),
                (
                    "--server <url>",
                    "Play the server area's exchanges against this server instead (Spec/server.md); its setup is "
                        + "checked first, and a wrong one named in one line."
                ),
                ("--mail-dir <dir>", "The folder that server writes each mail into (glow-server --mail-dir)."),
                ("--corpus <dir>", "The corpus folder (default Spec/corpus)."),
                ("--failure-list <file>", "Cases expected to fail: area/id or area/* per line."),
                ("--junit <file>", "Also write a JUnit XML report."),
                ("--area <name>", "Run one area only."),
                ("--timeout <s>", "Seconds to wait for each answer (default 10)."),
            ]),
        Command(
            name: "testee", abstract: "Answer conformance requests with this SDK (see Spec/conformance.md).",
            usage: "glow-tool testee", arguments: [], options: []),
        Command(
            name: "feed", abstract: "Show a person's Glow feed and unread badge, rebuilt from people's bundles.",
            usage: "glow-tool feed <bundle>... --viewer <id> [--day YYYY-MM-DD] [--limit N] [--json]",
            arguments: [("<bundle>...", "One bundle (or JSON data set) per person in the feed.")],
            options: [
                ("--viewer <id>", "Whose feed: a feed id (a bundle's social data names its person's)."),
                ("--day <day>", "Derive items as of this Day (default: today in each profile's time zone)."),
                ("--limit <n>", "Items on the page, 1 to 100 (default 20)."),
                ("--json", "Print the feed as JSON."),
            ]),
        Command(
            name: "account",
            abstract:
                "Sign up, in and out with a Glow server, see the account's sessions, and sync the person's own data end to end encrypted (Spec/server.md, Spec/sync.md).",
            usage:
                "glow-tool account sign-up --email <address>|confirm --token <token>|sign-in --email <address>|sessions|sign-out|sync [--new|--pair <code>|--words]|pair [--server <url>] [--db <path>] [--device <name>]",
            arguments: [
                ("sign-up", "Start a sign-up: the server mails a token to confirm it with."),
                ("confirm", "Confirm a sign-up with the mailed token, and keep the session beside the database."),
                ("sign-in", "Sign in, and keep the session beside the database (PATH.secrets, its owner's only)."),
                ("sessions", "The account's sessions: device, since when, which is this one."),
                ("sign-out", "End this session, on the server and beside the database."),
                (
                    "sync",
                    "Push this database's changes to the person's other devices and pull theirs, sealed: the server never reads them."
                ),
                ("pair", "Show a pairing code that gives another device the sync secret, once, within ten minutes."),
            ],
            options: [
                ("--server <url>", "The server (default: the one the database's session is with)."),
                ("--db <path>", "The database whose secrets keep the session (as glow-tool store)."),
                ("--device <name>", "What the session is called in the account's list."),
                ("--new", "sync: the first device: make the sync secret and print its 34 recovery words, once."),
                ("--pair <code>", "sync: take the secret by the pairing code another device shows."),
                ("--words", "sync: take the secret from the recovery words on standard input's first line."),
                ("(standard input)", "The password, on its first line: never an argument."),
            ]),
        Command(
            name: "store", abstract: "Use the SDK without an app: a person's data in a durable database.",
            usage:
                "glow-tool store init|import <bundle>|tap <goal>|undo <goal>|today|overview|feed|export -o <file> [--encrypt]|sync [--server <url>] [--db <path>] [--day YYYY-MM-DD] [--json]",
            arguments: [
                ("init", "Create the database (nothing else)."),
                ("import <bundle>", "Import a bundle, all or nothing."),
                ("tap <goal>", "Tap a goal (by title or id) today, or on --day (a past Day)."),
                ("undo <goal>", "Undo a goal's entry of today or --day."),
                ("today", "The goals to look at today."), ("overview", "Every goal's status, streaks and consistency."),
                ("feed", "The Glow feed: the person's items published, and what the relay sent."),
                ("export -o <file>", "The data as a bundle."),
                ("sync", "Send the person's feed writes to the server and take in what it has (glow-tool account)."),
            ],
            options: [
                ("--db <path>", "The database (default $XDG_DATA_HOME/glow/glow.sqlite, else ~/.local/share/glow/)."),
                ("--day <day>", "The Day to tap, undo or report on (default: today in the profile's time zone)."),
                ("--done, --skip", "A tap marking done (the default) or a rest day."),
                ("--count <n>, --add <x>, --value <x>", "A tally's change, a progress amount, a Day's value."),
                ("--person <id>, --limit <n>", "feed: whose (default: who is signed in) and how many items."),
                ("--json", "today, overview and feed as JSON."),
            ]),
        Command(
            name: "report", abstract: "Write a person's year at a glance as one self-contained HTML page.",
            usage:
                "glow-tool report <input> [-o <file>] [--theme <id>] [--mode light|dark] [--day YYYY-MM-DD] [--weeks <n>]",
            arguments: [("<input>", "A .glow bundle, a .json data set, a Glow database (read, never written), or -.")],
            options: [
                ("-o, --output <file>", "Where to write the page (default: standard output)."),
                (
                    "--theme <id>",
                    "The theme (default: the profile's): default, ocean, forest, sunset, black-and-white."
                ),
                ("--mode <mode>", "light (default) or dark."),
                ("--day <day>", "The Day the report is as of (default: today in the profile's time zone)."),
                ("--weeks <n>", "Weeks in each goal's grid, 1 to 520 (default 53)."),
            ]),
        Command(
            name: "reminders",
            abstract: "Show the reminders a device would schedule for a bundle's or data set's person.",
            usage: "glow-tool reminders <input> [--from INSTANT] [--days N] [--json]",
            arguments: [("<input>", "A .glow bundle or .json data set, or -.")],
            options: [
                ("--from <instant>", "Plan as of this RFC 3339 instant (default: now)."),
                ("--days <n>", "Days the plan covers from today, 1 to 31 (default 7)."),
                ("--json", "Print the plan as JSON."),
            ]),
        Command(
            name: "stats", abstract: "Show Today, streaks, consistency and strength per goal of a bundle or data set.",
            usage: "glow-tool stats <input> [--day YYYY-MM-DD] [--json]",
            arguments: [("<input>", "A .glow bundle or .json data set, or -.")],
            options: [
                ("--day <day>", "The Day to report on (default: today in the profile's time zone)."),
                ("--json", "Print the report as JSON."),
            ]),
    ]

    static var overview: String {
        var text = """
            OVERVIEW: Inspect, verify, convert and merge Glow Ritual export bundles.

            USAGE: glow-tool <subcommand> [<options>]

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:

            """
        for command in commands {
            text +=
                "  " + command.name.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + command.abstract + "\n"
        }
        text += "\n  See 'glow-tool help <subcommand>' for detailed help.\n"
        return text
    }

    static func text(for name: String) -> String? {
        guard let command = commands.first(where: { $0.name == name }) else { return nil }
        var text = "OVERVIEW: \(command.abstract)\n\nUSAGE: \(command.usage)\n\nARGUMENTS:\n"
        for (argument, help) in command.arguments {
            text += "  " + argument.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + help + "\n"
        }
        text += "\nOPTIONS:\n"
        for (option, help) in command.options + [("-h, --help", "Show help information.")] {
            text += "  " + option.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + help + "\n"
        }
        // The options of encrypted bundles (BUNDLE-29 ...), which every reader and writer takes.
        var secrets: [(String, String)] = []
        if SecretOptions.reading.union(SecretOptions.writing).contains(name) {
            secrets += [
                ("--passphrase-env <var>", "Read the passphrase (or a recovery key's words) from this variable."),
                ("--passphrase-fd <n>", "Read it from the first line of this open descriptor; else it is asked for."),
            ]
        }
        if SecretOptions.writing.contains(name) {
            secrets += [
                ("--encrypt", "Encrypt the bundle written with the passphrase (never given on the command line)."),
                ("--recovery-key", "Also make a recovery key that opens it; its words go to standard error."),
            ]
        }
        if !secrets.isEmpty {
            text += "\nENCRYPTED BUNDLES:\n"
            for (option, help) in secrets {
                text += "  " + option.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + help + "\n"
            }
        }
        return text
    }

    static func usage(for name: String?) -> String {
        guard let name, let command = commands.first(where: { $0.name == name }) else {
            return "Usage: glow-tool <subcommand> [<options>]\n  See 'glow-tool --help'."
        }
        return "Usage: \(command.usage)\n  See 'glow-tool help \(name)'."
    }
}
