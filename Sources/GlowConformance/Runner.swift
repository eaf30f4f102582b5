import Foundation

/// One testee process, started with `/bin/sh -c COMMAND`, spoken to over its standard input and
/// output (CONF-1). A reader thread collects its output so the runner can wait with a timeout.
final class TesteeProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private var ended = false
    private let signal = DispatchSemaphore(value: 0)

    init(command: String, directory: URL?) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // A plain command is exec'ed, so stopping the shell stops the testee itself.
        let plain = !command.contains(where: { ";&|()<>`$\n".contains($0) })
        process.arguments = ["-c", plain ? "exec " + command : command]
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                lock.lock()
                if data.isEmpty { ended = true } else { buffer += data }
                lock.unlock()
                signal.signal()
                if data.isEmpty { return }
            }
        }
    }

    /// What exchanging one request gave.
    enum Exchange {
        case response(JSONValue)
        case crashed(String)
        case timedOut
        case malformed(String)
    }

    func exchange(_ request: JSONValue, timeout: Double) -> Exchange {
        do {
            try input.fileHandleForWriting.write(contentsOf: Framing.encode(request))
        } catch {
            return .crashed("the testee no longer reads its input (\(exitDescription))")
        }
        let deadline = DispatchTime.now() + timeout
        while true {
            lock.lock()
            let parsed = Framing.parse(buffer[...])
            if case .frame(_, let consumed) = parsed { buffer.removeFirst(consumed) }
            let isEnded = ended
            lock.unlock()
            switch parsed {
            case .frame(let response, _): return .response(response)
            case .malformed(let why): return .malformed(why)
            case .needMore:
                if isEnded { return .crashed("the testee exited (\(exitDescription))") }
            }
            if signal.wait(timeout: deadline) == .timedOut { return .timedOut }
        }
    }

    /// The shell's status when it could not run the command at all: 127 (not found) or 126 (not
    /// executable), before the testee answered anything.
    var startFailure: Int32? {
        for _ in 0..<50 where process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        guard !process.isRunning, [126, 127].contains(process.terminationStatus) else { return nil }
        return process.terminationStatus
    }

    private var exitDescription: String {
        for _ in 0..<20 where process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        return process.isRunning ? "still running" : "status \(process.terminationStatus)"
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        for _ in 0..<50 where process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }
}

/// Runs corpus cases against a testee and judges them against a failure list (CONF-1 ... CONF-9).
package struct ConformanceRunner {
    /// The outcome of one case.
    package enum Outcome: Equatable, Sendable {
        case passed
        case failed(String)
        case skipped(String)
        case crashed(String)
        case timedOut
        case malformed(String)

        package var passed: Bool { self == .passed }

        /// The outcome's name in reports.
        package var name: String {
            switch self {
            case .passed: "passed"
            case .failed: "failed"
            case .skipped: "skipped"
            case .crashed: "crash"
            case .timedOut: "timeout"
            case .malformed: "malformed_response"
            }
        }

        package var detail: String {
            switch self {
            case .passed: ""
            case .failed(let why), .skipped(let why), .crashed(let why), .malformed(let why): why
            case .timedOut: "no response before the timeout"
            }
        }
    }

    package struct Result: Sendable {
        package let testCase: CorpusCase
        package let outcome: Outcome
        package let listed: Bool

        /// A failure the list does not expect.
        package var unexpectedFailure: Bool { !outcome.passed && !listed }
        /// A listed case that passes: the list must be updated.
        package var unexpectedPass: Bool { outcome.passed && listed }
    }

    package let command: String
    package let corpus: Corpus
    package var timeout: Double = 10
    package var directory: URL?

    package init(command: String, corpus: Corpus) {
        self.command = command
        self.corpus = corpus
    }

    /// The testee command could not be started: the shell reported it not found or not executable.
    package struct StartFailure: Error, CustomStringConvertible {
        package let command: String
        package let status: Int32

        package var description: String {
            status == 127
                ? "the command was not found (the shell exited with 127)"
                : "the command is not executable (the shell exited with 126)"
        }
    }

    /// Runs `cases`, restarting the testee after a crash, a hang or a malformed response.
    ///
    /// - Throws: ``StartFailure`` when the testee cannot be started at all, instead of reporting
    ///   every case as failed.
    package func run(_ cases: [CorpusCase], failureList: FailureList) throws -> [Result] {
        signal(SIGPIPE, SIG_IGN)
        var testee: TesteeProcess? = nil
        var results: [Result] = []
        var answered = false
        for testCase in cases {
            if testee == nil { testee = try TesteeProcess(command: command, directory: directory) }
            let outcome: Outcome
            switch testee!.exchange(Conformance.request(for: testCase, corpus: corpus), timeout: timeout) {
            case .response(let response):
                answered = true
                switch Conformance.verdict(testCase, response: response) {
                case .passed: outcome = .passed
                case .failed(let why): outcome = .failed(why)
                case .skipped(let why): outcome = .skipped(why)
                }
            case .crashed(let why):
                if !answered, let status = testee?.startFailure {
                    testee?.stop()
                    throw StartFailure(command: command, status: status)
                }
                outcome = .crashed(why)
            case .timedOut:
                outcome = .timedOut
            case .malformed(let why):
                outcome = .malformed(why)
            }
            if case .crashed = outcome { testee?.stop(); testee = nil }
            if case .timedOut = outcome { testee?.stop(); testee = nil }
            if case .malformed = outcome { testee?.stop(); testee = nil }
            results.append(Result(testCase: testCase, outcome: outcome, listed: failureList.contains(testCase)))
        }
        testee?.stop()
        return results
    }
}

/// The reviewed list of cases expected to fail: one `area/id` per line; an entry ending in `*`
/// names every case whose reference starts with what comes before it (`themes/*`,
/// `model/catalogue-*`); `#` starts a comment (CONF-7).
package struct FailureList: Sendable {
    package private(set) var entries: Set<String> = []

    package init() {}

    package init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            let entry = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            if !entry.isEmpty { entries.insert(entry) }
        }
    }

    package func contains(_ testCase: CorpusCase) -> Bool {
        entries.contains(testCase.reference)
            || entries.contains { $0.hasSuffix("*") && testCase.reference.hasPrefix($0.dropLast()) }
    }
}
