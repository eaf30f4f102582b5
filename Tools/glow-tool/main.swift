import Foundation

// glow-tool: exit 0 on success, 1 on invalid data or a failed check, 64 on bad usage.

func fail(_ message: String, usage: String? = nil, code: Int32) -> Never {
    fflush(nil)
    FileHandle.standardError.write(Data("glow-tool: error: \(message)\n".utf8))
    if let usage { FileHandle.standardError.write(Data("\(usage)\n".utf8)) }
    exit(code)
}

/// Standard output must have taken everything printed: a closed pipe or a full device is a
/// failure (exit 1), never a silent success.
func flushStandardOutput() {
    if let reason = StandardOutput.failure.withLock({ $0 }) {
        FileHandle.standardError.write(Data("glow-tool: error: cannot write standard output: \(reason)\n".utf8))
        exit(1)
    }
}

// A reader that goes away, or a file-size limit reached, is an error to report (EPIPE, EFBIG),
// not a signal that ends the process unheard.
signal(SIGPIPE, SIG_IGN)
signal(SIGXFSZ, SIG_IGN)

// The passphrase options apply to many commands: taken out first, then the command's own.
let secretOptions: SecretOptions
let arguments: [String]
switch splitSecretOptions(Array(CommandLine.arguments.dropFirst())) {
case .failure(let error):
    fail(error.message, usage: Help.usage(for: error.command), code: 64)
case .success(let (rest, options)):
    (arguments, secretOptions) = (rest, options)
}
let secrets = Secrets(secretOptions)

switch parseArguments(arguments) {
case .failure(let error):
    fail(error.message, usage: Help.usage(for: error.command), code: 64)
case .success(let invocation):
    do {
        // The commands that talk to a server wait for it; the rest run as they are.
        let status: Int32
        switch invocation {
        case .account(let options): status = try await AccountCommand.run(options)
        case .store(let options):
            try StoreCommand.check(options, secretOptions)
            if case .sync(let server) = options.action {
                status = try await AccountCommand.sync(database: options.database, server: server)
            } else {
                try await StoreCommand.run(options, secrets: secrets)
                status = 0
            }
        default: status = try Commands.run(invocation, secrets: secrets)
        }
        flushStandardOutput()
        exit(status)
    } catch let failure as DataFailure {
        fail(failure.message, code: 1)
    } catch let usage as UsageErrorInRun {
        fail(usage.message, code: 64)
    } catch {
        fail("\(error)", code: 1)
    }
}
