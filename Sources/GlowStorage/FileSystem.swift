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
        guard sync(descriptor) else {
            throw StoreError(.writeFailed, "the folder could not be synced: \(reason())", path: path)
        }
    }

    /// Makes what was written through `descriptor` durable. On Apple platforms `fsync` leaves it
    /// in the drive's cache, which a power loss empties; `F_FULLFSYNC` asks the drive to write it,
    /// with `fsync` as the fallback where a file system refuses it. Elsewhere, `fsync`.
    ///
    /// - Returns: whether it was made durable (`errno` says why not).
    package static func sync(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
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
