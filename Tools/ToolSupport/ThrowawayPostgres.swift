import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway PostgreSQL cluster for a test suite or a benchmark: `initdb` into a temporary folder, the
/// server listening only on a Unix socket there (no TCP port at all), stopped and removed at the
/// end. PostgreSQL refuses to run as root, so as root (as CI runs) the folder is given to the
/// `postgres` user and every command runs as that user.
///
/// The tests use it (skipped without Debian's `postgresql`, unless `GLOW_REQUIRE_POSTGRES=1`, as in
/// CI, makes its absence a failure), and glow-bench measures the server against it.
package final class ThrowawayPostgres {
    package let folder: URL
    private let bin: String
    private let asRoot: Bool

    /// The binaries of the newest PostgreSQL installed, if any.
    package static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions: [String]
        do {
            versions = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch {
            return nil  // No PostgreSQL installed at all.
        }
        return versions.compactMap(Int.init).sorted().last.map { "\(root)/\($0)/bin" }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
    }

    package static var available: Bool {
        binaries != nil || ProcessInfo.processInfo.environment["GLOW_REQUIRE_POSTGRES"] == "1"
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    package init() throws {
        guard let bin = Self.binaries else {
            throw Failure(description: "PostgreSQL is not installed (Debian's postgresql package)")
        }
        self.bin = bin
        asRoot = getuid() == 0
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("glow-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        if asRoot { try run("/usr/bin/chown", ["postgres:postgres", folder.path], asPostgres: false) }
        try run(
            bin + "/initdb",
            ["-D", folder.path + "/data", "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
        try resume()
    }

    /// Starts the server on the cluster's folder and waits until it takes connections.
    ///
    /// - Throws: ``Failure`` when `pg_ctl` fails.
    package func resume() throws {
        try run(
            bin + "/pg_ctl",
            [
                "-D", folder.path + "/data", "-l", folder.path + "/log", "-w", "-o",
                "-k \(folder.path) -c listen_addresses='' -F", "start",
            ])
    }

    /// Stops the server at once, as a crash would (every connection cut, nothing checkpointed),
    /// keeping the cluster for ``resume()``.
    ///
    /// - Throws: ``Failure`` when `pg_ctl` fails.
    package func halt() throws {
        try run(bin + "/pg_ctl", ["-D", folder.path + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// The cluster's server processes: the postmaster (the first line of `postmaster.pid`) and
    /// every process it started (by their parent in Linux's `/proc/PID/stat`).
    ///
    /// - Throws: ``Failure`` when the server is not running or `/proc` cannot be read.
    package func processes() throws -> [pid_t] {
        let pidFile = folder.path + "/data/postmaster.pid"
        let text: String
        do {
            text = try String(contentsOfFile: pidFile, encoding: .utf8)
        } catch {
            throw Failure(description: "the cluster is not running: \(pidFile) does not read: \(error)")
        }
        guard let first = text.split(separator: "\n").first, let postmaster = pid_t(first) else {
            throw Failure(description: "\(pidFile) names no process")
        }
        return [postmaster] + (try Self.children(of: postmaster))
    }

    /// The processes whose parent is `parent` now (by their parent in Linux's `/proc/PID/stat`).
    ///
    /// - Throws: when `/proc` cannot be read.
    package static func children(of parent: pid_t) throws -> [pid_t] {
        var found: [pid_t] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = pid_t(entry) else { continue }
            let stat: String
            do {
                stat = try String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8)
            } catch {
                continue  // A process that ended while the folder was read.
            }
            guard let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == parent { found.append(pid) }
        }
        return found
    }

    /// Stops (SIGSTOP) every server process of the cluster, as a frozen machine or a storage
    /// stall would, and returns them for ``thaw(_:)``.
    ///
    /// - Throws: ``Failure`` as ``processes()`` does.
    package func freeze() throws -> [pid_t] {
        let pids = try processes()
        for pid in pids { kill(pid, SIGSTOP) }
        return pids
    }

    /// Lets `pids` run again (SIGCONT).
    package func thaw(_ pids: [pid_t]) {
        for pid in pids { kill(pid, SIGCONT) }
    }

    /// How to connect: the socket folder as the host.
    package var conninfo: String { "host=\(folder.path) dbname=postgres user=postgres" }

    /// A libpq URL of the cluster: its socket folder as the host.
    package var url: String { "postgresql://postgres@/postgres?host=\(folder.path)" }

    /// Stops the server at once and removes the folder.
    ///
    /// - Throws: ``Failure`` when `pg_ctl` fails, or the folder cannot be removed.
    package func stop() throws {
        try halt()
        try FileManager.default.removeItem(at: folder)
    }

    /// Runs `tool` and waits for it with `waitpid`, its output in a file: the server that
    /// `pg_ctl start` leaves running must hold none of this process's pipes.
    private func run(_ tool: String, _ arguments: [String], asPostgres: Bool = true) throws {
        let argv = (asRoot && asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", tool] : [tool]) + arguments
        let transcript = folder.deletingLastPathComponent().appendingPathComponent(
            "glow-pg-\(UUID().uuidString).out")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, transcript.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pointers = argv.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &pointers, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text: String
        do {
            text = try String(contentsOf: transcript, encoding: .utf8)
            try FileManager.default.removeItem(at: transcript)
        } catch {
            throw Failure(description: "the transcript of \(argv[0]) at \(transcript.path) cannot be read: \(error)")
        }
        // Exited normally with status 0: the low 7 bits (a signal) and the exit code all zero.
        guard status == 0 else {
            throw Failure(description: "\(argv.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }
}
