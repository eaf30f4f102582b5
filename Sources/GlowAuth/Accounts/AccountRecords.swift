import Synchronization

/// Everything the account service keeps, as plain records a store can hold in memory or in a
/// database (AUTH-35). Tokens are kept only as SHA-256 hashes and passwords only as Argon2id PHC
/// strings; the one secret kept as it is, a provider's refresh token awaiting revocation, is a
/// ``SecretToken`` and never shows in a description.
public struct AccountRecords: Sendable {
    /// An account.
    public struct Account: Sendable, Hashable {
        public let id: AccountID
        /// The address, as AUTH-36 normalises it; nil for an account made by a provider that gave none.
        public var email: String?
        /// The password's stored hash; nil for an account that signs in only through a provider.
        public var passwordHash: String?
        /// Raised by every password change: reset tokens of an older epoch are dead (AUTH-40).
        public var credentialEpoch: Int
        public let createdAt: Double
    }

    /// A provider's identity linked to an account.
    public struct Identity: Sendable, Hashable {
        public let provider: String
        public let subject: String
        public let account: AccountID
        /// Sign in with Apple's refresh token, to revoke when the account is deleted.
        public var providerRefreshToken: SecretToken?
    }

    /// A family of sessions: one sign-in and every refresh that followed it (AUTH-38).
    public struct SessionFamily: Sendable, Hashable {
        public let id: String
        public let account: AccountID
        /// When the person last proved who they are in this family (AUTH-41).
        public var authenticatedAt: Double
        /// The hash of the current refresh token, and the hashes of the ones already used.
        public var refreshHash: String
        public var usedRefreshHashes: [String]
        public let refreshExpiresAt: Double
        /// The hash of the current access token and when it expires.
        public var accessHash: String
        public var accessExpiresAt: Double
    }

    /// A password reset waiting to be confirmed (AUTH-40).
    public struct Reset: Sendable, Hashable {
        public let account: AccountID
        public let expiresAt: Double
        public let credentialEpoch: Int
    }

    /// A sign-up waiting for its address to be confirmed (AUTH-36).
    public struct PendingSignUp: Sendable, Hashable {
        public let email: String
        public let passwordHash: String
        public let expiresAt: Double
    }

    /// Failed attempts under one throttling key (AUTH-39).
    public struct Throttle: Sendable, Hashable {
        public var failures: Int
        public var lastFailure: Double
    }

    /// A provider token to revoke, kept until the provider confirms (AUTH-42).
    public struct Revocation: Sendable, Hashable {
        public let id: String
        public let provider: String
        public let token: SecretToken
        public var attempts: Int
        public var nextAttempt: Double
    }

    public var accounts: [AccountID: Account] = [:]
    /// Account ids by normalised address.
    public var accountsByEmail: [String: AccountID] = [:]
    /// Identities by "provider subject".
    public var identities: [String: Identity] = [:]
    /// Session families by id, and their ids by the hashes of their current tokens.
    public var sessions: [String: SessionFamily] = [:]
    public var sessionsByAccessHash: [String: String] = [:]
    public var sessionsByRefreshHash: [String: String] = [:]
    /// Session family ids by the hashes of their used refresh tokens, to catch reuse.
    public var sessionsByUsedRefreshHash: [String: String] = [:]
    /// Resets and sign-ups by the hash of their token.
    public var resets: [String: Reset] = [:]
    public var pendingSignUps: [String: PendingSignUp] = [:]
    /// The token hashes of the sign-ups waiting for each address, oldest first.
    public var pendingSignUpsByEmail: [String: [String]] = [:]
    /// Throttles by key.
    public var throttles: [String: Throttle] = [:]
    /// Revocations waiting, by id.
    public var revocations: [String: Revocation] = [:]

    public init() {}
}

// Records hold password hashes and token hashes: their descriptions and mirrors show neither.
extension AccountRecords: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "AccountRecords(\(accounts.count) accounts, \(identities.count) identities, \(sessions.count) sessions, \(resets.count) resets, \(pendingSignUps.count) sign-ups, \(revocations.count) revocations)"
    }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension AccountRecords.Account: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "Account(\(id), \(email ?? "no address"), \(passwordHash == nil ? "no password" : "a password"))"
    }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension AccountRecords.SessionFamily: CustomStringConvertible, CustomReflectable {
    public var description: String { "SessionFamily(account \(account), until \(refreshExpiresAt))" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension AccountRecords.PendingSignUp: CustomStringConvertible, CustomReflectable {
    public var description: String { "PendingSignUp(\(email), until \(expiresAt))" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Where the account service keeps its records (AUTH-35): in memory here, in a database in the
/// app layer. `update` runs its body as one transaction, alone: no other update sees it halfway.
/// The service's bodies check everything before they change anything, so a body that throws has
/// changed nothing, and a store need not undo.
public protocol AccountStore: Sendable {
    func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T
}

/// An account store in memory, for tests and for a service that needs no durability.
public final class InMemoryAccountStore: AccountStore {
    private let records = Mutex(AccountRecords())

    public init() {}

    public func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        try records.withLock { (records) throws(AuthError) -> T in try body(&records) }
    }
}
