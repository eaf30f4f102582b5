import Foundation
import GlowCore

/// Everything the account service keeps, as plain records a store can hold in memory or in a
/// database (AUTH-35). Tokens are kept only as SHA-256 hashes and passwords only as Argon2id PHC
/// strings; the one secret kept as it is, a provider's refresh token awaiting revocation, is a
/// ``SecretToken`` and never shows in a description.
public struct AccountRecords: Sendable {
    /// An account.
    public struct Account: Sendable, Hashable, Codable {
        /// The account's id.
        public let id: AccountID
        /// The address, as AUTH-36 normalises it; nil for an account made by a provider that gave none.
        public var email: String?
        /// Whether ``email`` is proven (AUTH-44): confirmed through a mailed token, or brought by an
        /// identity that may link by e-mail. Only a proven address links, resets and collides.
        public var emailProven: Bool
        /// The password's stored hash; nil for an account that signs in only through a provider.
        public var passwordHash: String?
        /// Raised by every password change: reset tokens of an older epoch are dead (AUTH-40).
        public var credentialEpoch: Int
        /// When it was made, in seconds since 1970.
        public let createdAt: Double
    }

    /// A provider's identity linked to an account.
    public struct Identity: Sendable, Hashable, Codable {
        /// The provider's id: `apple`, `google`.
        public let provider: String
        /// The provider's `sub` for the person.
        public let subject: String
        /// The account it belongs to.
        public let account: AccountID
        /// Sign in with Apple's refresh token, to revoke when the account is deleted.
        public var providerRefreshToken: SecretToken?
    }

    /// A family of sessions: one sign-in and every refresh that followed it (AUTH-38).
    public struct SessionFamily: Sendable, Hashable, Codable {
        /// A random id, never shown to the holder.
        public let id: String
        /// The account it belongs to.
        public let account: AccountID
        /// When the person last proved who they are in this family (AUTH-41).
        public var authenticatedAt: Double
        /// The hash of the current refresh token.
        public var refreshHash: String
        /// The hashes of the refresh tokens already used, oldest first.
        public var usedRefreshHashes: [String]
        /// When the family ends: 30 days after its sign-in.
        public let refreshExpiresAt: Double
        /// When it signed in (AUTH-47).
        public var signedInAt: Double
        /// Its sign-in or its last refresh: 14 days later, unused, it ends (AUTH-38).
        public var lastUsedAt: Double
        /// The device named at its sign-in, if one was (AUTH-47).
        public var device: String?
        /// When it last proved presence with a second factor's code, if it did (AUTH-51).
        public var secondFactorAt: Double?

        /// The id a person sees and revokes it by: 32 hexadecimal digits of the SHA-256 of the
        /// family's own id, so that it tells nothing about the id or the tokens (AUTH-47).
        public var publicID: String { String(SecretToken(id).storedHash.prefix(32)) }
        /// The hash of the current access token.
        public var accessHash: String
        /// When the current access token stops working.
        public var accessExpiresAt: Double
    }

    /// An address change waiting to be confirmed, or a confirmed one waiting to be undone (AUTH-49).
    public struct EmailChange: Sendable, Hashable, Codable {
        /// The account it moves.
        public let account: AccountID
        /// The address it gives the account: the new one to confirm, or the old one to restore.
        public let address: String
        /// When it expires, in seconds since 1970.
        public let expiresAt: Double
        /// Whether it undoes a confirmed change rather than confirms a new one.
        public let isUndo: Bool
    }

    /// An account's second factor (AUTH-51): a TOTP secret, pending until a code confirms it.
    public struct SecondFactor: Sendable, Hashable, Codable {
        /// The secret in base32, as the person's authenticator app holds it.
        public var secret: SecretToken
        /// Whether a code confirmed it: only then is it asked for.
        public var confirmed: Bool
        /// The last time step a code was accepted for: older and equal steps never again.
        public var lastStep: Int?
        /// The SHA-256 of each unused recovery code, in its compact form.
        public var recoveryHashes: [String]
    }

    /// A sign-in nonce the service issued, waiting to be used once (AUTH-46).
    public struct IssuedNonce: Sendable, Hashable, Codable {
        /// When it can no longer be used, in seconds since 1970.
        public let expiresAt: Double
    }

    /// A password reset waiting to be confirmed (AUTH-40).
    public struct Reset: Sendable, Hashable, Codable {
        /// The account it belongs to.
        public let account: AccountID
        /// When it expires, in seconds since 1970.
        public let expiresAt: Double
        /// The account's credential epoch when it was issued.
        public let credentialEpoch: Int
    }

    /// A sign-up waiting for its address to be confirmed (AUTH-36).
    public struct PendingSignUp: Sendable, Hashable, Codable {
        /// The address, normalised.
        public let email: String
        /// The hash of the password chosen at sign-up.
        public let passwordHash: String
        /// When it expires, in seconds since 1970.
        public let expiresAt: Double
    }

    /// Requests counted under one key in a window: those that may send mail (AUTH-45) and
    /// those for sign-in nonces (AUTH-46).
    public struct RequestWindow: Sendable, Hashable, Codable {
        /// Requests counted in the window.
        public var requests: Int
        /// When the window started: at the first request it counted.
        public var start: Double
    }

    /// Failed attempts under one throttling key (AUTH-39).
    public struct Throttle: Sendable, Hashable, Codable {
        /// Failures counted since the key was last cleared.
        public var failures: Int
        /// When the last one was.
        public var lastFailure: Double
    }

    /// A provider token to revoke, kept until the provider confirms (AUTH-42).
    public struct Revocation: Sendable, Hashable, Codable {
        /// A random id, never shown to the holder.
        public let id: String
        /// The provider's id: `apple`, `google`.
        public let provider: String
        /// The token to revoke.
        public let token: SecretToken
        /// Failed attempts so far.
        public var attempts: Int
        /// When it is next due.
        public var nextAttempt: Double
    }

    /// Accounts by id.
    public var accounts = RecordMap<AccountID, Account>()
    /// Account ids by normalised address.
    public var accountsByEmail = RecordMap<String, AccountID>()
    /// Identities by "provider subject", found by account.
    public var identities = RecordMap<String, Identity>(owner: Self.identityIndex.owner)
    /// Session families by id, found by account and by their last use (AUTH-38's inactivity).
    public var sessions = RecordMap<String, SessionFamily>(
        owner: Self.sessionIndex.owner, expiry: Self.sessionIndex.expiry)
    /// Session family ids by the hash of their current access token.
    public var sessionsByAccessHash = RecordMap<String, String>()
    /// Session family ids by the hash of their current refresh token.
    public var sessionsByRefreshHash = RecordMap<String, String>()
    /// Session family ids by the hashes of their used refresh tokens, to catch reuse.
    public var sessionsByUsedRefreshHash = RecordMap<String, String>()
    /// Resets by the hash of their token, found by account and by expiry.
    public var resets = RecordMap<String, Reset>(owner: Self.resetIndex.owner, expiry: Self.resetIndex.expiry)
    /// Waiting sign-ups by the hash of their token, found by expiry.
    public var pendingSignUps = RecordMap<String, PendingSignUp>(expiry: Self.pendingSignUpIndex.expiry)
    /// The token hashes of the sign-ups waiting for each address, oldest first.
    public var pendingSignUpsByEmail = RecordMap<String, [String]>()
    /// Throttles by key, found by their last failure.
    public var throttles = RecordMap<String, Throttle>(expiry: Self.throttleIndex.expiry)
    /// Request windows by key: `address …` and `client …` for mail (AUTH-45), `nonce client …`
    /// for sign-in nonces (AUTH-46); found by their start.
    public var requestWindows = RecordMap<String, RequestWindow>(expiry: Self.windowIndex.expiry)
    /// Issued sign-in nonces by the hash of their text (AUTH-46), found by expiry.
    public var nonces = RecordMap<String, IssuedNonce>(expiry: Self.nonceIndex.expiry)
    /// Address changes and their undos by the hash of their token (AUTH-49), found by account
    /// and by expiry.
    public var emailChanges = RecordMap<String, EmailChange>(
        owner: Self.emailChangeIndex.owner, expiry: Self.emailChangeIndex.expiry)
    /// Second factors by account id (AUTH-51).
    public var secondFactors = RecordMap<String, SecondFactor>()
    /// Revocations waiting, by id, found by when they are next due.
    public var revocations = RecordMap<String, Revocation>(expiry: Self.revocationIndex.expiry)

    // What each map's records are found by. An expiry is the time a record's own fields give; a
    // purge adds its allowance (AUTH-38's inactivity, AUTH-39's memory, AUTH-45's window).
    static let identityIndex = RecordIndex<Identity>(owner: { $0.account.rawValue }, expiry: { _ in nil })
    static let sessionIndex = RecordIndex<SessionFamily>(owner: { $0.account.rawValue }, expiry: { $0.lastUsedAt })
    static let resetIndex = RecordIndex<Reset>(owner: { $0.account.rawValue }, expiry: { $0.expiresAt })
    static let pendingSignUpIndex = RecordIndex<PendingSignUp>(owner: { _ in nil }, expiry: { $0.expiresAt })
    static let throttleIndex = RecordIndex<Throttle>(owner: { _ in nil }, expiry: { $0.lastFailure })
    static let windowIndex = RecordIndex<RequestWindow>(owner: { _ in nil }, expiry: { $0.start })
    static let nonceIndex = RecordIndex<IssuedNonce>(owner: { _ in nil }, expiry: { $0.expiresAt })
    static let emailChangeIndex = RecordIndex<EmailChange>(owner: { $0.account.rawValue }, expiry: { $0.expiresAt })
    static let revocationIndex = RecordIndex<Revocation>(owner: { _ in nil }, expiry: { $0.nextAttempt })

    /// No records, in memory.
    public init() {}

    /// The records of a database, each map reading its rows through `reader` as an update asks
    /// for them (``RecordMap``).
    public init(rows reader: any AccountRowReader) {
        func map<Key: Hashable & Sendable, Value: Codable & Sendable>(
            _ name: String, _ index: RecordIndex<Value>, _ text: @escaping @Sendable (Key) -> String,
            _ key: @escaping @Sendable (String) -> Key
        ) -> RecordMap<Key, Value> {
            @Sendable func decoded(_ row: (key: String, value: [UInt8])) -> (key: Key, value: Value)? {
                do {
                    return (key(row.key), try JSONDecoder().decode(Value.self, from: Data(row.value)))
                } catch {
                    reader.fail("an account row (\(name) \(row.key.prefix(16))…) does not read: \(error)")
                    return nil
                }
            }
            return RecordMap(
                index: index,
                rows: RecordRows(
                    read: { wanted in
                        reader.row(map: name, key: text(wanted)).flatMap { decoded((text(wanted), $0)) }?.value
                    },
                    owned: { owner in reader.rows(map: name, owner: owner).compactMap(decoded) },
                    expiring: { time in reader.rows(map: name, expiringAtOrBefore: time).compactMap(decoded) }))
        }
        func plain<Value>() -> RecordIndex<Value> { RecordIndex(owner: { _ in nil }, expiry: { _ in nil }) }
        let id: @Sendable (String) -> String = { $0 }
        accounts = map("accounts", plain(), \.rawValue, AccountID.init(rawValue:))
        accountsByEmail = map("accountsByEmail", plain(), id, id)
        identities = map("identities", Self.identityIndex, id, id)
        sessions = map("sessions", Self.sessionIndex, id, id)
        sessionsByAccessHash = map("sessionsByAccessHash", plain(), id, id)
        sessionsByRefreshHash = map("sessionsByRefreshHash", plain(), id, id)
        sessionsByUsedRefreshHash = map("sessionsByUsedRefreshHash", plain(), id, id)
        resets = map("resets", Self.resetIndex, id, id)
        pendingSignUps = map("pendingSignUps", Self.pendingSignUpIndex, id, id)
        pendingSignUpsByEmail = map("pendingSignUpsByEmail", plain(), id, id)
        throttles = map("throttles", Self.throttleIndex, id, id)
        requestWindows = map("requestWindows", Self.windowIndex, id, id)
        nonces = map("nonces", Self.nonceIndex, id, id)
        emailChanges = map("emailChanges", Self.emailChangeIndex, id, id)
        secondFactors = map("secondFactors", plain(), id, id)
        revocations = map("revocations", Self.revocationIndex, id, id)
    }

    /// How many records the changes since the last keep wrote or removed, in every map: what a
    /// store is about to write (AUTH-39 and AUTH-40 want it the same whether or not an address
    /// has an account).
    public var changedRecordCount: Int {
        accounts.changedKeys.count + accountsByEmail.changedKeys.count + identities.changedKeys.count
            + sessions.changedKeys.count + sessionsByAccessHash.changedKeys.count
            + sessionsByRefreshHash.changedKeys.count + sessionsByUsedRefreshHash.changedKeys.count
            + resets.changedKeys.count + pendingSignUps.changedKeys.count + pendingSignUpsByEmail.changedKeys.count
            + throttles.changedKeys.count + requestWindows.changedKeys.count + nonces.changedKeys.count
            + emailChanges.changedKeys.count + secondFactors.changedKeys.count + revocations.changedKeys.count
    }

    /// Forgets which records changed, in every map: a store calls it once the changes are kept.
    public mutating func keepChanges() {
        accounts.keepChanges()
        accountsByEmail.keepChanges()
        identities.keepChanges()
        sessions.keepChanges()
        sessionsByAccessHash.keepChanges()
        sessionsByRefreshHash.keepChanges()
        sessionsByUsedRefreshHash.keepChanges()
        resets.keepChanges()
        pendingSignUps.keepChanges()
        pendingSignUpsByEmail.keepChanges()
        throttles.keepChanges()
        requestWindows.keepChanges()
        nonces.keepChanges()
        emailChanges.keepChanges()
        secondFactors.keepChanges()
        revocations.keepChanges()
    }

    /// Puts back what every changed record held, in every map.
    public mutating func undoChanges() {
        accounts.undoChanges()
        accountsByEmail.undoChanges()
        identities.undoChanges()
        sessions.undoChanges()
        sessionsByAccessHash.undoChanges()
        sessionsByRefreshHash.undoChanges()
        sessionsByUsedRefreshHash.undoChanges()
        resets.undoChanges()
        pendingSignUps.undoChanges()
        pendingSignUpsByEmail.undoChanges()
        throttles.undoChanges()
        requestWindows.undoChanges()
        nonces.undoChanges()
        emailChanges.undoChanges()
        secondFactors.undoChanges()
        revocations.undoChanges()
    }
}

// Records hold password hashes and token hashes: their descriptions and mirrors show neither.
extension AccountRecords: CustomStringConvertible, CustomReflectable {
    /// Counts, or the non-secret fields; never a hash.
    public var description: String {
        "AccountRecords(\(accounts.count) accounts, \(identities.count) identities, \(sessions.count) sessions, \(resets.count) resets, \(pendingSignUps.count) sign-ups, \(revocations.count) revocations)"
    }
    /// No children: `dump` shows the description only.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension AccountRecords.Account {
    private enum CodingKeys: String, CodingKey {
        case id, email, emailProven, passwordHash, credentialEpoch, createdAt
    }

    /// Reads an account; one written before AUTH-44 has no `emailProven`, and then its address
    /// counts as proven only when it has a password (made by a confirmed sign-up): an account a
    /// provider made may hold an address nobody proved.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(AccountID.self, forKey: .id)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        passwordHash = try container.decodeIfPresent(String.self, forKey: .passwordHash)
        credentialEpoch = try container.decode(Int.self, forKey: .credentialEpoch)
        createdAt = try container.decode(Double.self, forKey: .createdAt)
        emailProven = try container.decodeIfPresent(Bool.self, forKey: .emailProven) ?? (passwordHash != nil)
    }
}

extension AccountRecords.SessionFamily {
    private enum CodingKeys: String, CodingKey {
        case id, account, authenticatedAt, refreshHash, usedRefreshHashes, refreshExpiresAt, accessHash
        case accessExpiresAt, signedInAt, lastUsedAt, device, secondFactorAt
    }

    /// Reads a family; one written before AUTH-47 has no sign-in time, last use or device, and
    /// takes its last proof of presence for both times.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        account = try container.decode(AccountID.self, forKey: .account)
        authenticatedAt = try container.decode(Double.self, forKey: .authenticatedAt)
        refreshHash = try container.decode(String.self, forKey: .refreshHash)
        usedRefreshHashes = try container.decode([String].self, forKey: .usedRefreshHashes)
        refreshExpiresAt = try container.decode(Double.self, forKey: .refreshExpiresAt)
        accessHash = try container.decode(String.self, forKey: .accessHash)
        accessExpiresAt = try container.decode(Double.self, forKey: .accessExpiresAt)
        signedInAt = try container.decodeIfPresent(Double.self, forKey: .signedInAt) ?? authenticatedAt
        lastUsedAt = try container.decodeIfPresent(Double.self, forKey: .lastUsedAt) ?? authenticatedAt
        device = try container.decodeIfPresent(String.self, forKey: .device)
        secondFactorAt = try container.decodeIfPresent(Double.self, forKey: .secondFactorAt)
    }
}

extension AccountRecords.Account: CustomStringConvertible, CustomReflectable {
    /// Counts, or the non-secret fields; never a hash.
    public var description: String {
        "Account(\(id), \(email.map { emailProven ? $0 : $0 + " (unproven)" } ?? "no address"), \(passwordHash == nil ? "no password" : "a password"))"
    }
    /// No children: `dump` shows the description only.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension AccountRecords.SessionFamily: CustomStringConvertible, CustomReflectable {
    /// The account and the end; never a token's hash.
    public var description: String { "SessionFamily(account \(account), until \(refreshExpiresAt))" }
    /// No children: `dump` shows the description only.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

extension AccountRecords.PendingSignUp: CustomStringConvertible, CustomReflectable {
    /// The address and the expiry; never the hash.
    public var description: String { "PendingSignUp(\(email), until \(expiresAt))" }
    /// No children: `dump` shows the description only.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Where the account service keeps its records (AUTH-35): in memory here, in a database in the
/// app layer. `update` runs its body as one transaction, alone: no other update sees it halfway.
/// The service's bodies check everything before they change anything, so a body that throws has
/// changed nothing; both stores here undo all the same (``AccountRecords/undoChanges()``). Each
/// map is a ``RecordMap`` that knows the keys the body wrote: a store writes those rows, then
/// calls ``AccountRecords/keepChanges()``.
public protocol AccountStore: Sendable {
    /// Runs `body` on the records as one transaction, alone, and keeps what it changed; a body that throws changes nothing.
    func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T

    /// Runs `body`, a read, on the records and says what it read: a store on a database that
    /// other processes share answers from the records it holds, without a round trip, with the
    /// ``StoreReading`` another store on that database confirms in its own transaction; `fresh`
    /// reads the database first. A nil reading means the answer is current as it stands (the
    /// store is alone with its records); the default is ``update(_:)`` and nil.
    func read<T>(fresh: Bool, _ body: (AccountRecords) throws(AuthError) -> T) throws(AuthError) -> (
        result: T, reading: StoreReading?
    )
}

extension AccountStore {
    /// ``update(_:)``, alone with the records: no reading to confirm.
    public func read<T>(fresh: Bool, _ body: (AccountRecords) throws(AuthError) -> T) throws(AuthError) -> (
        result: T, reading: StoreReading?
    ) {
        (try update { (records) throws(AuthError) in try body(records) }, nil)
    }
}

/// An account store in memory, for tests and for a service that needs no durability.
public final class InMemoryAccountStore: AccountStore {
    private let records = Locked(AccountRecords())

    /// No records.
    public init() {}

    /// Runs `body` under the store's lock; a body that throws leaves the records as they were.
    public func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        try records.withLock { (records) throws(AuthError) -> T in
            do throws(AuthError) {
                let result = try body(&records)
                records.keepChanges()
                return result
            } catch {
                records.undoChanges()
                throw error
            }
        }
    }
}

/// Where a database's account records come from, one update at a time: the rows of one map by
/// key, by owner or by expiry (``RecordIndex``), each a record's JSON. A read that fails, and a row
/// that does not decode, are remembered by the reader (``fail(_:)``) and read as no record; the
/// store then keeps nothing of the update and fails it as `storage_failed`, so no decision made on
/// a missing row is ever kept.
public protocol AccountRowReader: AnyObject, Sendable {
    /// The JSON of `map`'s record of `key`, nil for none.
    func row(map: String, key: String) -> [UInt8]?
    /// The keys and JSON of `map`'s records whose owner is `owner`.
    func rows(map: String, owner: String) -> [(key: String, value: [UInt8])]
    /// The keys and JSON of `map`'s records whose expiry is at or before `time`.
    func rows(map: String, expiringAtOrBefore time: Double) -> [(key: String, value: [UInt8])]
    /// Notes that a read failed or a row did not decode: the update is not kept.
    func fail(_ message: String)
}
