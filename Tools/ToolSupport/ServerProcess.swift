import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `glow-server` process on a free loopback port, for the tests and the load generator: started
/// from the build's products folder (beside the running executable, or above it for a test
/// bundle), its address read from the line it prints when it listens.
package final class ServerProcess {
    /// The process.
    package let process = Process()
    /// Where it listens.
    package let url: URL
    /// Its standard output past the line that says where it listens.
    package let output = Pipe()

    /// `glow-server` in the build's products folder: the first folder above the running
    /// executable that holds one.
    package static func executable() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
            let candidate = folder.appendingPathComponent("glow-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ThrowawayPostgres.Failure(
            description: "glow-server is not built beside \(CommandLine.arguments[0]) (swift build first)")
    }

    /// Starts `glow-server --listen 127.0.0.1:0 --trust-forwarded-for` with `arguments`, its
    /// standard error into `log` (discarded when nil), and waits until it listens. Without
    /// `trustingForwardedFor`, each peer address is a client of its own (SERVER-11). `executable`
    /// runs another build's glow-server (an older tree's, measured beside this one).
    ///
    /// - Throws: ``ThrowawayPostgres/Failure`` when it is not built or does not start.
    package init(
        arguments: [String], log: URL? = nil, trustingForwardedFor: Bool = true, executable: URL? = nil
    ) throws {
        process.executableURL = try executable ?? Self.executable()
        process.arguments =
            ["--listen", "127.0.0.1:0"] + (trustingForwardedFor ? ["--trust-forwarded-for"] : []) + arguments
        process.standardOutput = output
        if let log {
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
                throw ThrowawayPostgres.Failure(description: "the log \(log.path) cannot be made")
            }
            process.standardError = try FileHandle(forWritingTo: log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard
            let address = text.components(separatedBy: "listening on ").dropFirst().first?
                .components(separatedBy: ",").first, let url = URL(string: "http://" + address)
        else {
            process.terminate()
            throw ThrowawayPostgres.Failure(description: "glow-server did not start: \(text)")
        }
        self.url = url
    }

    /// The process's identifier.
    package var pid: pid_t { process.processIdentifier }

    /// Stops it as an operator would (SIGTERM: it drains its mail and exits) and waits.
    package func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// Kills it at once (SIGKILL: no request finishes, nothing is flushed) and waits.
    package func crash() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Its resident memory in bytes (Linux's `/proc/PID/status`), nil where that cannot be read.
    package var residentBytes: Int? { Self.residentBytes(of: pid) }

    /// The resident memory of process `pid` in bytes, nil where that cannot be read.
    package static func residentBytes(of pid: pid_t) -> Int? {
        let status: String
        do {
            status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        } catch {
            return nil  // Not Linux, or the process is gone: no figure, said as such by the caller.
        }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1_024
    }

    /// The confirmation token of the sign-up mail to `address` that a glow-server started with
    /// `--mail-dir folder` wrote there (SERVER-8: its `X-Glow-Token` header), waiting up to ten
    /// seconds for it.
    ///
    /// - Throws: ``ThrowawayPostgres/Failure`` when none comes, or the folder cannot be read.
    package static func mailedToken(_ folder: String, to address: String) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        repeat {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".eml") {
                let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                let head = text.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
                if head.contains("To: \(address)"), head.contains("X-Glow-Mail: confirmSignUp"),
                    let token = head.first(where: { $0.hasPrefix("X-Glow-Token: ") })
                {
                    return String(token.dropFirst("X-Glow-Token: ".count))
                }
            }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        throw ThrowawayPostgres.Failure(description: "no confirmation mail to \(address)")
    }
}
