import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What went wrong talking to the browser.
struct BrowserFailure: Error, CustomStringConvertible {
    let description: String
}

/// A headless Chromium driven over the DevTools protocol on a pair of pipes
/// (`--remote-debugging-pipe`: the browser reads commands on its fd 3 and writes answers and
/// events on its fd 4, each message JSON ended by a NUL byte). No network port, no WebSocket.
final class HeadlessChromium {
    /// Where Debian puts it; `GLOW_CHROMIUM` names another.
    static var executable: String? {
        let candidates = [ProcessInfo.processInfo.environment["GLOW_CHROMIUM"], "/usr/bin/chromium"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private let profile: URL
    private var pending: [UInt8] = []
    private var lastID = 0
    /// Every event the browser sent, in order: its method and parameters.
    private(set) var events: [(method: String, params: [String: Any])] = []
    /// The page's session, once ``openPage()`` attached to it.
    private var session: String?

    init(executable: String) throws {
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("glow-chromium-\(UUID().uuidString)")
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw BrowserFailure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // The browser's ends, moved out of the way of 3 and 4 and closed on exec; the child's
        // dup2 onto 3 and 4 is what it keeps.
        let browserReads = fcntl(toBrowser[0], F_DUPFD_CLOEXEC, 10)
        let browserWrites = fcntl(fromBrowser[1], F_DUPFD_CLOEXEC, 10)
        for fd in [toBrowser[0], fromBrowser[1]] { close(fd) }
        for fd in [toBrowser[1], fromBrowser[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        commands = toBrowser[1]
        answers = fromBrowser[0]

        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, browserReads, 3)
        posix_spawn_file_actions_adddup2(&actions, browserWrites, 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
            "--user-data-dir=\(profile.path)", "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        // The test's environment, passed on (built from ProcessInfo, so no platform's `environ`).
        var environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, &argv, &environment)
        close(browserReads)
        close(browserWrites)
        guard status == 0 else {
            close(commands)
            close(answers)
            throw BrowserFailure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    deinit {
        close(commands)
        close(answers)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(at: profile)
    }

    /// Sends a command (to the page's session unless `browser`) and waits for its answer.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], browser: Bool = false, timeout: Double = 30) throws
        -> [String: Any]
    {
        lastID += 1
        var message: [String: Any] = ["id": lastID, "method": method, "params": params]
        if !browser, let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BrowserFailure(description: "\(method): the browser stopped reading") }
            written += count
        }
        let id = lastID
        while true {
            let answer = try next(until: Date(timeIntervalSinceNow: timeout), waiting: method)
            guard answer["id"] as? Int == id else { continue }
            if let error = answer["error"] as? [String: Any] {
                throw BrowserFailure(description: "\(method): \(error["message"] ?? error)")
            }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    /// Waits for an event named `method` that has not been seen before the call.
    func wait(for method: String, timeout: Double = 30) throws {
        let seen = events.count
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !events[seen...].contains(where: { $0.method == method }) {
            _ = try next(until: deadline, waiting: method)
        }
    }

    /// The next message, recording it when it is an event.
    private func next(until deadline: Date, waiting method: String) throws -> [String: Any] {
        while true {
            if let end = pending.firstIndex(of: 0) {
                let text = Data(pending[..<end])
                pending.removeSubrange(...end)
                guard let message = try JSONSerialization.jsonObject(with: text) as? [String: Any] else {
                    throw BrowserFailure(description: "the browser sent something other than an object")
                }
                if let name = message["method"] as? String {
                    events.append((name, message["params"] as? [String: Any] ?? [:]))
                }
                return message
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            var poller = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, left) == 1 else {
                throw BrowserFailure(description: "no answer to \(method) within the time allowed")
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BrowserFailure(description: "the browser closed its pipe (\(method))") }
            pending += chunk[..<count]
        }
    }

    /// Opens a page and attaches to it, with its console, log and page events on.
    func openPage() throws {
        let target = try send("Target.createTarget", ["url": "about:blank"], browser: true)
        guard let id = target["targetId"] as? String else { throw BrowserFailure(description: "no target id") }
        let attached = try send("Target.attachToTarget", ["targetId": id, "flatten": true], browser: true)
        session = attached["sessionId"] as? String
        for domain in ["Page", "Runtime", "Log"] { try send("\(domain).enable") }
    }

    /// Loads `url` into a viewport `width` CSS pixels wide, and waits for its load event.
    func load(_ url: URL, width: Int, height: Int = 900) throws {
        try send(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
        let seen = events.count
        try send("Page.navigate", ["url": url.absoluteString])
        if !events[seen...].contains(where: { $0.method == "Page.loadEventFired" }) {
            try wait(for: "Page.loadEventFired")
        }
    }

    /// The value of a JavaScript expression evaluated in the page (the page itself has no script;
    /// DevTools evaluates outside its content security policy).
    func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        if let exception = result["exceptionDetails"] {
            throw BrowserFailure(description: "the check threw: \(exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits until ``errors`` has one that contains `text`, or `timeout` seconds pass (a
    /// browser may report an error a moment after the load event).
    func waitForError(containing text: String, timeout: Double = 5) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !errors.contains(where: { $0.contains(text) }), deadline.timeIntervalSinceNow > 0 {
            guard (try? next(until: deadline, waiting: "an error containing \(text)")) != nil else { return }
        }
    }

    /// What the page said at the level of an error: console errors and assertions, uncaught
    /// exceptions, and the browser's own log errors (a blocked fetch, a policy violation).
    var errors: [String] {
        events.compactMap { event in
            switch event.method {
            case "Runtime.consoleAPICalled" where ["error", "assert"].contains(event.params["type"] as? String):
                return "console: \(event.params["args"] ?? "")"
            case "Runtime.exceptionThrown":
                return "exception: \(event.params["exceptionDetails"] ?? "")"
            case "Log.entryAdded":
                let entry = event.params["entry"] as? [String: Any] ?? [:]
                return entry["level"] as? String == "error" ? "log: \(entry["text"] ?? "")" : nil
            default:
                return nil
            }
        }
    }

    /// A PNG of the top `height` pixels of the page at the current width.
    func screenshot(width: Int, height: Int) throws -> Data {
        let shot = try send(
            "Page.captureScreenshot",
            [
                "format": "png", "captureBeyondViewport": true,
                "clip": ["x": 0, "y": 0, "width": width, "height": height, "scale": 1],
            ])
        guard let text = shot["data"] as? String, let data = Data(base64Encoded: text) else {
            throw BrowserFailure(description: "the screenshot came back empty")
        }
        return data
    }
}
