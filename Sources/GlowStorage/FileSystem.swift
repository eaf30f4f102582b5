import Foundation

/// The file operations every store shares.
package enum FileSystem {
    /// Makes the entries of the folder holding `path` durable (after a rename or a link, the new
    /// name survives a crash once its folder is synced).
    ///
    /// - Throws: ``StoreError/Code/writeFailed`` when the folder cannot be opened or synced.
    package static func syncFolder(of path: String) throws(StoreError) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY)
        guard descriptor >= 0 else {
            throw StoreError(.writeFailed, "the folder cannot be opened to sync it: \(reason())", path: path)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StoreError(.writeFailed, "the folder could not be synced: \(reason())", path: path)
        }
    }

    /// Whether there is a file at `path`: false when there is nothing there; an entry that is
    /// there but cannot be reached (a symbolic link that loops or dangles, a folder without
    /// permission) is an error with the system's reason, not "no such file".
    ///
    /// - Throws: ``StoreError/Code/cannotOpen`` with the reason.
    package static func exists(_ path: String) throws(StoreError) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return true }
        let reason = reason()
        if errno == ENOENT, lstat(path, &info) != 0 { return false }
        throw StoreError(.cannotOpen, "the file cannot be reached: \(reason)", path: path)
    }

    /// The system's words for the last error (`strerror(errno)`).
    package static func reason() -> String { String(cString: strerror(errno)) }
}
