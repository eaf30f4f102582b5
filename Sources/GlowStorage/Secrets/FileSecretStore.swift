import Foundation

/// Secrets in files, for Linux and the tools: a folder beside the database (`DATABASE.secrets`,
/// its owner's only: mode 0700) holding a file per secret (mode 0600), each replaced whole
/// (``AtomicFile``), so a crash leaves the old secret or the new one and two processes on one
/// database never mix theirs. Nothing is made until a secret is kept.
///
/// The files are as safe as the account that owns them: an app on an Apple platform keeps its
/// secrets in the Keychain instead (``KeychainSecretStore``).
public struct FileSecretStore: SecretStore {
    /// The folder the secrets are kept in.
    public let folder: String

    /// The most bytes a secret of the SDK takes; a file holding more is not one of them.
    static let largest = 64 * 1024

    /// Secrets in `folder`, which is made (0700) when the first is kept.
    public init(folder: String) {
        self.folder = folder
    }

    /// The secrets of the database at `path`: the folder `PATH.secrets` beside it.
    public init(database path: String) {
        self.init(folder: path + ".secrets")
    }

    /// The folder.
    public var location: String { folder }

    private func file(_ name: SecretName) -> String { folder + "/" + name.rawValue }

    /// The secret kept under `name`, or nil when its file (or the folder) does not exist.
    ///
    /// - Throws: ``StoreError``: `cannot_open` for a file that cannot be read, or that is not a
    ///   regular file; `corrupt` for one longer than any secret of the SDK.
    public func secret(_ name: SecretName) throws(StoreError) -> [UInt8]? {
        let path = file(name)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StoreError(.cannotOpen, "\(name) cannot be read: \(FileSystem.reason())", path: path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.cannotOpen, "\(name) is not a regular file", path: path)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError(.cannotOpen, "\(name) cannot be read: \(FileSystem.reason())", path: path)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= Self.largest else {
                throw StoreError(
                    .corrupt, "\(name) holds more than \(Self.largest) bytes: it is not a secret of the SDK", path: path
                )
            }
        }
    }

    /// Keeps `bytes` under `name`: the folder made first when missing, then the file replaced
    /// whole, readable and writable by its owner only.
    ///
    /// - Throws: ``StoreError``: `write_failed` when the folder or the file cannot be written;
    ///   the secret is then as it was.
    public func setSecret(_ bytes: [UInt8], for name: SecretName) throws(StoreError) {
        try makeFolder()
        try AtomicFile.write(bytes, to: file(name), permissions: 0o600)
    }

    /// Removes the file of `name`, and makes the removal durable.
    ///
    /// - Throws: ``StoreError``: `write_failed` when it cannot be removed.
    public func removeSecret(_ name: SecretName) throws(StoreError) {
        let path = file(name)
        guard unlink(path) == 0 else {
            if errno == ENOENT { return }
            throw StoreError(.writeFailed, "\(name) cannot be removed: \(FileSystem.reason())", path: path)
        }
        try FileSystem.syncFolder(of: path)
    }

    /// Makes the folder, its owner's only, unless it is there.
    private func makeFolder() throws(StoreError) {
        if mkdir(folder, 0o700) == 0 {
            try FileSystem.syncFolder(of: folder)
            return
        }
        let reason = FileSystem.reason()
        var info = stat()
        guard errno == EEXIST, stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(.writeFailed, "the secrets' folder cannot be made: \(reason)", path: folder)
        }
    }
}
