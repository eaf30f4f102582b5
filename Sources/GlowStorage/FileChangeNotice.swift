import Dispatch
import Foundation

#if canImport(notify)
    import notify
#endif

/// How the processes on one database file tell each other that it changed (issue 58): an app and
/// its widget or share extension on one App Group file.
///
/// On Darwin it is a notification of notify(3) named after the file: a process posts it after each
/// commit, and every process watching the file hears it and reads what changed, so a widget's tap
/// reaches the app at once and an app that watches costs nothing while nothing changes. Where the
/// system has no such notifications (Linux), a watcher reads SQLite's `data_version` now and then
/// instead (``isAvailable`` is false there).
package struct FileChangeNotice: Sendable {
    /// The notification's name: the package's prefix and a hash of the file's path with its
    /// symbolic links resolved, so every process that opens the file by any of its names derives
    /// the same one.
    package let name: String

    /// The notice of the database file at `path`.
    package init(path: String) {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        // FNV-1a: a name, not a secret; two files that met on one name would only read more often.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in resolved.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        name = "org.glowritual.database." + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether the platform carries the notice between processes (Darwin's notify(3)); where it
    /// does not, a watcher reads `data_version` on a timer.
    package static var isAvailable: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }

    /// Tells every process listening (this one included) that the file changed; nothing where the
    /// platform has no notifications. A notice that the system could not post costs a watcher only
    /// the wait until the next one: every watcher also reads the file when it resumes.
    package func post() {
        #if canImport(Darwin)
            _ = notify_post(name)
        #endif
    }

    /// Calls `heard` on `queue` each time a process posts the notice, this one included, until the
    /// listening is cancelled.
    ///
    /// - Returns: the listening, or nil where the platform has no notifications or refused to
    ///   register (the caller reads `data_version` on a timer instead).
    package func listen(on queue: DispatchQueue, _ heard: @escaping @Sendable () -> Void) -> Listening? {
        #if canImport(Darwin)
            var token: Int32 = 0
            let status = notify_register_dispatch(name, &token, queue) { _ in heard() }
            guard status == 0 else { return nil }
            return Listening(token: token)
        #else
            return nil
        #endif
    }

    /// A registration for the notice: it ends when cancelled.
    package final class Listening: Sendable {
        private let token: Int32

        init(token: Int32) { self.token = token }

        /// Ends the registration: `heard` is called no more.
        package func cancel() {
            #if canImport(Darwin)
                _ = notify_cancel(token)
            #endif
        }
    }
}
