import GlowCore

/// Secrets held in memory only, for tests and previews: nothing outlives the object, so an app
/// that keeps its sessions and sync secret here signs in and pairs again at every launch.
public final class InMemorySecretStore: SecretStore {
    private let secrets = Locked<[SecretName: [UInt8]]>([:])

    /// An empty store.
    public init() {}

    /// `memory`.
    public var location: String { "memory" }

    /// The secret kept under `name`, or nil.
    public func secret(_ name: SecretName) throws(StoreError) -> [UInt8]? {
        secrets.withLock { $0[name] }
    }

    /// Keeps `bytes` under `name`.
    public func setSecret(_ bytes: [UInt8], for name: SecretName) throws(StoreError) {
        secrets.withLock { $0[name] = bytes }
    }

    /// Removes the secret under `name`.
    public func removeSecret(_ name: SecretName) throws(StoreError) {
        _ = secrets.withLock { $0.removeValue(forKey: name) }
    }
}
