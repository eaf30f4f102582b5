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

    /// The system's words for the last error.
    static func reason() -> String { String(cString: strerror(errno)) }
}
