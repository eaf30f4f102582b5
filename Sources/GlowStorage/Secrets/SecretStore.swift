/// Where a device keeps its secrets, apart from its database (issue 58): the session's tokens,
/// the sync secret and any key of the device. The database file travels with every backup of it
/// and may be read by whoever copies it, so nothing that proves who a person is, or opens their
/// synced data, is ever written into it.
///
/// ``KeychainSecretStore`` is the store of an app on an Apple platform, ``FileSecretStore`` (a
/// file per secret, readable by its owner only, beside the database) that of Linux and the tools,
/// and ``InMemorySecretStore`` that of tests and previews. A store keeps bytes by name; what they
/// mean, and whether they read, is its caller's to judge.
public protocol SecretStore: Sendable {
    /// Where the secrets are, as errors name it: a folder, the Keychain's service, memory.
    var location: String { get }

    /// The secret kept under `name`, or nil when there is none.
    ///
    /// - Throws: ``StoreError``: `cannot_open` when the store cannot be read.
    func secret(_ name: SecretName) throws(StoreError) -> [UInt8]?

    /// Keeps `bytes` under `name`, durably, in place of what was there.
    ///
    /// - Throws: ``StoreError``: `write_failed` when the store cannot be written; what it held is
    ///   then as it was.
    func setSecret(_ bytes: [UInt8], for name: SecretName) throws(StoreError)

    /// Removes the secret kept under `name`; a name with none is left as it is.
    ///
    /// - Throws: ``StoreError``: `write_failed` when the store cannot be written.
    func removeSecret(_ name: SecretName) throws(StoreError)
}

/// The name a secret is kept under: a few lower-case letters, digits and hyphens, so every store
/// (a file name, a Keychain account) keeps it as it is.
public struct SecretName: Hashable, Sendable, CustomStringConvertible {
    /// The name as stores keep it (`session`, `sync-secret`).
    public let rawValue: String
    /// What the secret is, for a person: "the session", "the sync secret".
    public let description: String

    package init(_ rawValue: String, _ description: String) {
        precondition(
            !rawValue.isEmpty && rawValue.count <= 64
                && rawValue.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D },
            "a secret's name is a few lower-case letters, digits and hyphens")
        self.rawValue = rawValue
        self.description = description
    }

    /// The signed-in person's session with their server: its tokens, and the server's address.
    public static let session = SecretName("session", "the session with the server")
    /// The sync secret of the person's own data (Spec/sync.md, SYNC-1): 32 bytes.
    public static let syncSecret = SecretName("sync-secret", "the sync secret")
}

extension StoreError {
    /// A secret the database's state needs that its secret store does not hold: what is missing,
    /// and where it was looked for.
    package static func secretMissing(_ name: SecretName, in store: any SecretStore, needed: String) -> StoreError {
        StoreError(
            .secretMissing,
            "\(name) ('\(name.rawValue)') is not in the secret store at \(store.location), and \(needed)",
            path: store.location)
    }

    /// A secret whose bytes do not read as what it should be.
    package static func secretCorrupt(_ name: SecretName, in store: any SecretStore, _ problem: String) -> StoreError {
        StoreError(
            .corrupt, "\(name) ('\(name.rawValue)') in the secret store at \(store.location) does not read: \(problem)",
            path: store.location)
    }
}
