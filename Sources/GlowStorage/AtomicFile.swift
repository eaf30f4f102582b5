import Foundation

/// Writing a file whole or not at all: the one way the SDK and its tools replace a file (an
/// exported bundle, a report page, a profile photo).
///
/// A regular file (or a new one) is replaced atomically: the bytes go to a temporary file in the
/// same folder (`.NAME.glow-PID-RANDOM.tmp`), are flushed to disk, and the temporary file is
/// renamed over the target (`rename(2)`), keeping an existing file's permissions; then the folder
/// is synced, so the new name survives a crash. The target is the old file or the new one at every
/// moment, even when it is also being read or the process is killed. A device or a pipe
/// (`/dev/null`, `/dev/stdout`) is written in place, never replaced. Temporary files left by
/// processes that were killed are removed first.
package enum AtomicFile {
    /// Writes `bytes` to `path`, whole or not at all. The file keeps an existing file's mode, or
    /// takes `permissions` exactly (whatever the umask) when they are given.
    ///
    /// - Throws: ``StoreError/Code/writeFailed`` whose message is the reason alone (a directory, a
    ///   folder that does not exist, no permission, a full disk), with the path; the target is
    ///   then as it was, and no temporary file is left.
    package static func write(_ bytes: [UInt8], to path: String, permissions: mode_t? = nil) throws(StoreError) {
        func failure(_ what: String) -> StoreError { StoreError(.writeFailed, what, path: path) }
        var existing = stat()
        let exists = stat(path, &existing) == 0
        if exists, existing.st_mode & S_IFMT == S_IFDIR { throw failure("it is a directory") }
        if exists, existing.st_mode & S_IFMT != S_IFREG {
            // A device or a pipe: writing in place is the only thing that makes sense.
            let descriptor = openFile(path, O_WRONLY, 0)
            guard descriptor >= 0 else { throw failure(FileSystem.reason()) }
            defer { close(descriptor) }
            try writeAll(bytes, to: descriptor, path: path)
            return
        }
        let target = URL(fileURLWithPath: path)
        let folder = target.deletingLastPathComponent().path
        let name = target.lastPathComponent
        removeStaleTemporaries(in: folder, for: name)
        let temporary = "\(folder)/.\(name).glow-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let mode = permissions ?? (exists ? mode_t(existing.st_mode & 0o7777) : 0o666)
        // Made with no more than the mode allows, so a secret's bytes are never readable by others.
        let descriptor = openFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else { throw failure(FileSystem.reason()) }
        do throws(StoreError) {
            try writeAll(bytes, to: descriptor, path: path)
            // An existing file's mode (or the one asked for) is kept exactly, whatever the umask took.
            if exists || permissions != nil, fchmod(descriptor, mode) != 0 { throw failure(FileSystem.reason()) }
            guard FileSystem.sync(descriptor) else { throw failure(FileSystem.reason()) }
            guard close(descriptor) == 0 else {
                unlink(temporary)
                throw failure(FileSystem.reason())
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = FileSystem.reason()
            unlink(temporary)
            throw failure(reason)
        }
        try FileSystem.syncFolder(of: path)
    }

    /// Writes every byte to an open descriptor, retrying short and interrupted writes.
    ///
    /// - Throws: ``StoreError/Code/writeFailed`` with the system's reason (a closed pipe, a full
    ///   disk), never a trap.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw StoreError(.writeFailed, FileSystem.reason(), path: path)
            }
            written += result
        }
    }

    /// Removes `.NAME.glow-PID-*.tmp` (and `.NAME.glow-tool-PID-*.tmp`) files whose process no longer runs: what a writer that was
    /// killed before its rename left behind. A folder that cannot be listed is left alone: the
    /// write that follows reports the real problem.
    private static func removeStaleTemporaries(in folder: String, for name: String) {
        let prefix = ".\(name).glow-"
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard file.hasPrefix(prefix), file.hasSuffix(".tmp") else { continue }
            // Earlier versions of glow-tool named theirs `.NAME.glow-tool-PID-RANDOM.tmp`.
            var rest = file.dropFirst(prefix.count)
            if rest.hasPrefix("tool-") { rest = rest.dropFirst("tool-".count) }
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }) else { continue }
            if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { unlink("\(folder)/\(file)") }
        }
    }

    /// `open(2)` with a mode (the variadic C function is not callable from Swift on every platform).
    private static func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        Foundation.open(path, flags | O_CLOEXEC, mode)
    }
}
