import Foundation

/// How a device that locks protects the database's files while it is locked (Apple's Data
/// Protection): which of an app's processes may read them when. The app object gives its
/// database, the database's log, shared memory and secrets, and their folder (whose new files take
/// it) the class it is given; where the platform has no such classes (Linux, macOS) there is
/// nothing to give.
public enum FileProtection: String, Hashable, Sendable, CaseIterable {
    /// Readable only while the device is unlocked: nothing runs on the database while it is
    /// locked, a background sync and a widget's refresh included.
    case complete
    /// A file open when the device locks stays readable, and a new one cannot be made then.
    case completeUnlessOpen
    /// Readable once the device was unlocked after it started, locked or not: what background work
    /// (a sync woken by a push, a widget's timeline) needs. The default.
    case completeUntilFirstUserAuthentication
    /// No protection beyond the device's own encryption.
    case none

    /// What the app object gives unless told otherwise: background work reads the database.
    public static let `default` = FileProtection.completeUntilFirstUserAuthentication

    /// Gives the database at `path`, its log (`-wal`), shared memory (`-shm`) and secrets' folder
    /// (`.secrets`), those of them that exist, and the folder that holds them this protection,
    /// where the platform has it.
    ///
    /// - Returns: whether it was given: false where the platform has no such protection.
    /// - Throws: ``StoreError`` `write_failed` naming the file whose protection cannot be set.
    package func apply(toDatabaseAt path: String) throws(StoreError) -> Bool {
        #if canImport(Darwin) && !os(macOS)
            let type: FileProtectionType
            switch self {
            case .complete: type = .complete
            case .completeUnlessOpen: type = .completeUnlessOpen
            case .completeUntilFirstUserAuthentication: type = .completeUntilFirstUserAuthentication
            case .none: type = .none
            }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            for file in [folder, path, path + "-wal", path + "-shm", path + ".secrets"]
            where FileManager.default.fileExists(atPath: file) {
                do {
                    try FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: file)
                } catch {
                    throw StoreError(
                        .writeFailed, "its protection cannot be set to \(rawValue): \(error.localizedDescription)",
                        path: file)
                }
            }
            return true
        #else
            return false
        #endif
    }
}
