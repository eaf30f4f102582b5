import GlowCore

/// What went wrong with a database: a stable code, what to do about it, and the file.
///
/// Every database of the SDK (a person's, a relay's, an account service's) reports its failures
/// as this one type, so a caller handles a full disk or a foreign file the same way everywhere.
public struct StoreError: CodedError {
    /// The stable codes.
    public typealias Code = ErrorCode<StoreError>

    /// The code.
    public let code: Code
    /// What happened, for a person.
    public let message: String
    /// The database's path.
    public let path: String
    /// For `refused`: the error the change was refused with, as it was thrown (the model's
    /// `ModelError`, the bundle's `BundleError`), so a UI can switch on its code and place:
    /// `(error.refusal as? ModelError)?.code`.
    public let refusal: (any CodedError)?

    /// An error of `code` about the database at `path`; `refusal` for a change refused.
    public init(_ code: Code, _ message: String, path: String, refusal: (any CodedError)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.refusal = refusal
    }

    /// Equal in code, message, path and refusal (compared as its text).
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.path == rhs.path
            && lhs.refusal?.description == rhs.refusal?.description
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(path)
        hasher.combine(refusal?.description)
    }

    /// No spec rule: a database's failures are the platform's.
    public var rule: String? { nil }
    /// `in /path/to/file.sqlite`.
    public var location: String? { "in \(path)" }
}

extension ErrorCode where Domain == StoreError {
    /// The file cannot be opened or created.
    public static var cannotOpen: Self { Self("cannot_open") }
    /// The file was written by a newer version of the SDK: it is left exactly as it was.
    public static var newerSchema: Self { Self("newer_schema") }
    /// The file is not a Glow database of the kind asked for, or its content is damaged.
    public static var corrupt: Self { Self("corrupt") }
    /// Another writer holds the database for longer than the wait allows.
    public static var busy: Self { Self("busy") }
    /// The disk is full or the file could not be written.
    public static var writeFailed: Self { Self("write_failed") }
    /// The change itself was refused: the model's or the bundle's error is ``StoreError/refusal``.
    public static var refused: Self { Self("refused") }
    /// A secret the database's state needs is not in its ``SecretStore``: the message names it and
    /// the store, and the database is as it was.
    public static var secretMissing: Self { Self("secret_missing") }
    /// The task that asked was cancelled before the work was committed: nothing changed.
    public static var cancelled: Self { Self("cancelled") }
    /// The database was closed (its app's `close()`): open it again to go on.
    public static var closed: Self { Self("closed") }
}
