/// What went wrong with a database: a stable code, what to do about it, and the file.
///
/// Every database of the SDK (a person's, a relay's, an account service's) reports its failures
/// as this one type, so a caller handles a full disk or a foreign file the same way everywhere.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable {
        /// The file cannot be opened or created.
        case cannotOpen = "cannot_open"
        /// The file was written by a newer version of the SDK: it is left exactly as it was.
        case newerSchema = "newer_schema"
        /// The file is not a Glow database of the kind asked for, or its content is damaged.
        case corrupt
        /// Another writer holds the database for longer than the wait allows.
        case busy
        /// The disk is full or the file could not be written.
        case writeFailed = "write_failed"
        /// The change itself was refused (the model's or the bundle's error is in the message).
        case refused
    }

    /// The code.
    public let code: Code
    /// What happened, for a person.
    public let message: String
    /// The database's path.
    public let path: String

    /// An error of `code` about the database at `path`.
    public init(_ code: Code, _ message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// `code: message (path)`.
    public var description: String { "\(code.rawValue): \(message) (\(path))" }
}
