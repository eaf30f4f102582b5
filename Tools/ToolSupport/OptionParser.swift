/// The command-line parsing glow-tool and glow-bench share: options as `--flag value` or
/// `--flag=value`, `--` before positionals that start with a dash, `-` as a positional (standard
/// input or output), and a `UsageError` naming the command for every mistake.

/// A mistake in the command line: the message, and the command whose usage to show.
package struct UsageError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package let command: String?

    package init(message: String, command: String?) {
        self.message = message
        self.command = command
    }

    package var description: String { message }
}

/// Options and positionals of one subcommand, consumed as they are asked for.
package struct OptionParser {
    private var options: [(name: String, value: String?)] = []
    private var positionals: [String] = []

    /// The command, named in every error.
    package let command: String

    /// Splits `arguments` into options and positionals. `valued` names the options that take a
    /// value, so that `--to json` is one option, not an option and a file.
    package init(_ arguments: [String], command: String, valued: Set<String>) throws(UsageError) {
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
            } else if valued.contains(argument) {
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

    /// Whether one of `names` is given as a flag (without a value); consumes it.
    package mutating func flag(_ names: String...) -> Bool {
        let found = options.contains { names.contains($0.name) && $0.value == nil }
        options.removeAll { names.contains($0.name) && $0.value == nil }
        return found
    }

    /// The value of the option named by one of `names`, if given; consumes it.
    ///
    /// - Throws: when it is given twice or without a value.
    package mutating func value(_ names: String...) throws(UsageError) -> String? {
        let matches = options.filter { names.contains($0.name) }
        options.removeAll { names.contains($0.name) }
        guard matches.count <= 1 else { throw UsageError(message: "\(names[0]) is given twice", command: command) }
        guard let match = matches.first else { return nil }
        guard let value = match.value, !value.isEmpty else {
            throw UsageError(message: "\(match.name) needs a value", command: command)
        }
        return value
    }

    /// The next positional argument, named `name` in the error when it is missing.
    package mutating func positional(_ name: String) throws(UsageError) -> String {
        guard !positionals.isEmpty else { throw UsageError(message: "missing \(name)", command: command) }
        return positionals.removeFirst()
    }

    /// Every positional argument left.
    package mutating func remainingPositionals() -> [String] {
        defer { positionals.removeAll() }
        return positionals
    }

    /// Fails on any option or positional nobody asked for.
    package func finish() throws(UsageError) {
        if let option = options.first {
            throw UsageError(message: "unknown option '\(option.name)'", command: command)
        }
        if let extra = positionals.first {
            throw UsageError(message: "unexpected argument '\(extra)'", command: command)
        }
    }
}

extension OptionParser {
    /// The value of `name`, which must be one of `choices`.
    package mutating func choice(_ name: String, from choices: [String]) throws(UsageError) -> String? {
        guard let text = try value(name) else { return nil }
        guard choices.contains(text) else {
            throw UsageError(
                message: "\(name) \(text): not one of \(choices.joined(separator: ", "))", command: command)
        }
        return text
    }

    /// The value of `name` as a whole number of at least `minimum`.
    package mutating func integer(_ name: String, atLeast minimum: Int) throws(UsageError) -> Int? {
        guard let text = try value(name) else { return nil }
        guard let number = Int(text), number >= minimum else {
            throw UsageError(message: "\(name) \(text): not a whole number of at least \(minimum)", command: command)
        }
        return number
    }
}
