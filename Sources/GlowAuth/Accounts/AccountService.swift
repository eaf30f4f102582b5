import GlowCore
import GlowCrypto

/// How an account service behaves: its password policy and hashing cost, and the lifetimes and
/// limits of AUTH-35 ... AUTH-42. The defaults are the spec's.
public struct AccountConfiguration: Sendable {
    // The default minimum is within 8...64, so this cannot throw.
    /// The password policy of sign-up, change and reset (AUTH-1 ... AUTH-10).
    public var policy = try! PasswordPolicy()
    /// The cost of new password hashes (AUTH-12); weaker stored ones are redone at sign-in.
    public var hashing: Argon2Parameters = .owasp
    /// What bounds the Argon2id work done at once (AUTH-12): the process's gate unless given.
    public var hashingGate: HashingGate = .process
    /// How long an access token works, in seconds.
    public var accessLifetime = 900.0
    /// How long a session family lasts from its sign-in, in seconds.
    public var refreshLifetime = 30 * 86_400.0
    /// How long a reset token works, in seconds.
    public var resetLifetime = 3_600.0
    /// How long a sign-up waits for its confirmation, in seconds.
    public var signUpLifetime = 86_400.0
    /// How recent a sign-in must be for a password change or a deletion, in seconds.
    public var stepUpWindow = 300.0
    /// Failed attempts under one key before it waits.
    public var freeAttempts = 5
    /// The longest wait, in seconds: throttling slows, it never locks out.
    public var maximumBackoff = 900.0
    /// A key's failures are forgotten after this long without one, in seconds.
    public var throttleMemory = 86_400.0
    /// How many used refresh tokens of a family are remembered, to catch their reuse.
    public var usedTokenMemory = 64
    /// How many sign-ups may wait for one address at once.
    public var pendingSignUpsPerAddress = 3
    /// How many requests that may send mail (sign-ups, resets) one address may make in a window (AUTH-45).
    public var mailsPerAddress = 5
    /// How many requests that may send mail one client may make in a window (AUTH-45).
    public var mailsPerClient = 20
    /// How long a mail window lasts from its first request, in seconds.
    public var mailWindow = 3_600.0
    /// How many sign-in nonces one client may be issued in a window of ``nonceLifetime`` (AUTH-46).
    public var noncesPerClient = 30
    /// Sign-ins by password one client may ask for in a window of ``signInWindow``, whatever
    /// their outcome: 120 (AUTH-39), so a flood of sign-ins that succeed cannot take the
    /// service's hashing either.
    public var signInsPerClient = 120
    /// Sign-ups the service takes from everyone together in a window of ``mailWindow``: 1,000
    /// (AUTH-36), so that no number of clients fills its disk with waiting sign-ups.
    public var signUpsPerHour = 1_000
    /// The window of ``signInsPerClient``, in seconds: 600.
    public var signInWindow = 600.0
    /// How long a session family may go unused before it ends, in seconds (AUTH-38).
    public var inactivityLimit = 14 * 86_400.0
    /// How long an issued sign-in nonce can be used, in seconds (AUTH-46).
    public var nonceLifetime = 600.0
    /// How long a new address waits for its confirmation, in seconds (AUTH-49).
    public var emailChangeLifetime = 86_400.0
    /// How long the old address can undo a confirmed change, in seconds (AUTH-49).
    public var emailChangeUndoLifetime = 7 * 86_400.0
    /// The service's name, as authenticator apps show it (AUTH-51).
    public var serviceName = "Glow Ritual"

    /// The spec's defaults.
    public init() {}
}

/// The account service (AUTH-35 ... AUTH-42): sign-up with a confirmed address, sign-in with a
/// password or a provider's ID token, sessions whose refresh tokens rotate, password reset and
/// change, step-up and deletion. It is the server side's (glow-server runs one per process over a
/// shared store); an app reaches it through the server's calls (GlowClient). Every method is safe
/// to call from any thread: password hashing runs outside the store's transactions, at most as
/// many hashes at once as the configuration's ``HashingGate`` lets, so a flood of sign-ins leaves
/// a core for every other call.
public final class AccountService: Sendable {
    /// How this service behaves.
    public let configuration: AccountConfiguration
    private let store: any AccountStore
    private let clock: any AuthClock
    private let mailer: any AuthMailer
    private let eraser: any AccountEraser
    private let revoker: any ProviderTokenRevoker
    private let verifiers: [String: IDTokenVerifier]
    private let hasher: PasswordHasher
    /// A hash of nothing anyone knows, verified when an address has no password, so that an
    /// unknown address takes as long as a wrong password (AUTH-39).
    private let decoy: PasswordHash
    /// Makes the text of each sign-in nonce: 256 random bits (AUTH-37), or a test's fixtures.
    private let makeNonce: @Sendable () -> String
    /// Makes each second factor's secret in base32: 20 random bytes (AUTH-50), or a test's fixtures.
    private let makeSecret: @Sendable () -> String

    /// A service over `store`, sending mail through `mailer`, erasing data through `eraser` and revoking
    /// provider tokens through `revoker`, signing in with the providers of `verifiers`.
    ///
    /// - Throws: ``AuthError/Code/invalidHashParameters`` when the configuration's hashing is outside AUTH-13.
    public convenience init(
        store: any AccountStore, configuration: AccountConfiguration = AccountConfiguration(),
        clock: any AuthClock = SystemAuthClock(), mailer: any AuthMailer, eraser: any AccountEraser,
        revoker: any ProviderTokenRevoker, verifiers: [IDTokenVerifier] = []
    ) throws(AuthError) {
        try self.init(
            store: store, configuration: configuration, clock: clock, mailer: mailer, eraser: eraser,
            revoker: revoker, verifiers: verifiers, makeNonce: { SecretToken.random().reveal() })
    }

    /// A service whose sign-in nonces are the texts `makeNonce` gives, for tests whose ID tokens
    /// were signed in advance for known nonces.
    package init(
        store: any AccountStore, configuration: AccountConfiguration, clock: any AuthClock, mailer: any AuthMailer,
        eraser: any AccountEraser, revoker: any ProviderTokenRevoker, verifiers: [IDTokenVerifier],
        makeNonce: @escaping @Sendable () -> String,
        makeSecret: @escaping @Sendable () -> String = { TOTP.base32(Crypto.randomBytes(20)) }
    ) throws(AuthError) {
        self.makeNonce = makeNonce
        self.makeSecret = makeSecret
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.mailer = mailer
        self.eraser = eraser
        self.revoker = revoker
        self.verifiers = Dictionary(verifiers.map { ($0.provider.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.hasher = try PasswordHasher(parameters: configuration.hashing, gate: configuration.hashingGate)
        self.decoy = try hasher.hash(Password(normalized: SecretToken.random().reveal()))
    }

    // MARK: Sign-up (AUTH-36)

    /// Starts a sign-up. From outside it looks the same whether or not the address has an
    /// account: an address no account has proven is mailed a confirmation link, a proven one a
    /// notice (AUTH-36, AUTH-44). `clientKey` (an IP address, a device id) is counted with the
    /// address against the mail limits (AUTH-45).
    ///
    /// - Throws: ``AuthError/Code/invalidEmail``; the password policy's errors;
    ///   ``AuthError/Code/throttled`` past a mail limit.
    public func signUp(email: String, password: String, clientKey: String) throws(AuthError) {
        let address = try Self.normalizedEmail(email)
        let checked = try configuration.policy.check(password, email: address)
        let now = clock.now()
        // Counted before the hashing, so a request past the limits costs no Argon2id work.
        try store.update { (records) throws(AuthError) in
            try self.countMail(address: address, client: clientKey, at: now, in: &records)
            // AUTH-36: then everyone's sign-ups together, so one client's own limits refuse it first.
            try self.count(
                [("all sign-ups", self.configuration.signUpsPerHour)], window: self.configuration.mailWindow, at: now,
                in: &records, what: "sign-ups from everyone", rule: "AUTH-36", code: .signUpsFull)
        }
        let hash = try hasher.hash(checked).phc
        let token = SecretToken.random()
        let mail: AuthMail = try store.update { (records) throws(AuthError) -> AuthMail in
            // AUTH-36: the sign-up is kept whether or not the address is proven, so that the store's
            // writes look the same; for a proven address its token is never sent, and confirming
            // it could only find the address proven.
            let registered = Self.provenHolder(of: address, in: records) != nil
            var waiting = records.pendingSignUpsByEmail[address] ?? []
            while waiting.count >= max(configuration.pendingSignUpsPerAddress, 1) {
                records.pendingSignUps[waiting.removeFirst()] = nil
            }
            waiting.append(token.storedHash)
            records.pendingSignUpsByEmail[address] = waiting
            records.pendingSignUps[token.storedHash] = AccountRecords.PendingSignUp(
                email: address, passwordHash: hash, expiresAt: now + configuration.signUpLifetime)
            return registered ? .alreadyRegistered(to: address) : .confirmSignUp(to: address, token: token)
        }
        mailer.send(mail)
    }

    /// Confirms a sign-up with the token of its e-mail and the password chosen at that sign-up:
    /// the account is made, holding the address proven, and signed in. Needing the password means
    /// whoever reads the mail cannot confirm a stranger's sign-up for their address (AUTH-36).
    ///
    /// - Throws: ``AuthError/Code/signUpTokenInvalid`` for a token that is unknown, used, or whose
    ///   address was proven since; ``AuthError/Code/signUpTokenExpired`` after a day;
    ///   ``AuthError/Code/invalidCredentials`` for another password, and the token stays usable.
    public func confirmSignUp(token: SecretToken, password: String, device: String? = nil) throws(AuthError) -> Session
    {
        let device = try Self.checkedDevice(device)
        let now = clock.now()
        let key = token.storedHash
        // AUTH-36: each try of a live sign-up's password counts under the sign-up, before the
        // password is hashed, throttled as AUTH-39's keys are: a flood of guesses at one token
        // costs five Argon2id runs, then none.
        let tries = ["sign-up " + key]
        let found: Result<AccountRecords.PendingSignUp, AuthError> = try store.update { (records) throws(AuthError) in
            let pending = try Self.pendingSignUp(key, in: records)
            guard now < pending.expiresAt else {
                records.pendingSignUps[key] = nil
                records.pendingSignUpsByEmail[pending.email]?.removeAll { $0 == key }
                return .failure(
                    AuthError(.signUpTokenExpired, "this sign-up link has expired; sign up again", rule: "AUTH-36"))
            }
            do throws(AuthError) {
                try self.checkThrottles(tries, at: now, in: records)
            } catch {
                return .failure(error)
            }
            self.recordFailure(tries, at: now, in: &records)
            return .success(pending)
        }
        let pending = try found.get()
        guard try hasher.verify(password, against: try PasswordHash(phc: pending.passwordHash)) else {
            throw AuthError(
                .invalidCredentials, "that is not the password this sign-up was made with", rule: "AUTH-36")
        }
        let outcome: Result<Session, AuthError> = try store.update { (records) throws(AuthError) in
            _ = try Self.pendingSignUp(key, in: records)
            records.throttles[tries[0]] = nil
            for other in records.pendingSignUpsByEmail.removeValue(forKey: pending.email) ?? [] {
                records.pendingSignUps[other] = nil
            }
            guard Self.provenHolder(of: pending.email, in: records) == nil else {
                return .failure(AuthError(.signUpTokenInvalid, "this sign-up link is not valid", rule: "AUTH-36"))
            }
            let id = AccountID.random()
            Self.give(pending.email, to: id, in: &records)
            records.accounts[id] = AccountRecords.Account(
                id: id, email: pending.email, emailProven: true, passwordHash: pending.passwordHash,
                credentialEpoch: 0, createdAt: now)
            return .success(self.startSession(for: id, device: device, at: now, in: &records))
        }
        return try outcome.get()
    }

    private static func pendingSignUp(
        _ key: String, in records: AccountRecords
    ) throws(AuthError) -> AccountRecords.PendingSignUp {
        guard let pending = records.pendingSignUps[key] else {
            throw AuthError(.signUpTokenInvalid, "this sign-up link is not valid", rule: "AUTH-36")
        }
        return pending
    }

    /// The account that holds `address` proven, if one does (AUTH-44).
    private static func provenHolder(of address: String, in records: AccountRecords) -> AccountID? {
        guard let id = records.accountsByEmail[address], records.accounts[id]?.emailProven == true else { return nil }
        return id
    }

    /// Points `address` at `account`, which proved it: an account that held it unproven loses it
    /// and keeps everything else (AUTH-44).
    private static func give(_ address: String, to account: AccountID, in records: inout AccountRecords) {
        if let holder = records.accountsByEmail[address], holder != account {
            records.accounts[holder]?.email = nil
            records.accounts[holder]?.emailProven = false
        }
        records.accountsByEmail[address] = account
    }

    // MARK: Sign-in (AUTH-39)

    /// Signs in with an address and a password. An unknown address and a wrong password are the
    /// same error and take the same work; `clientKey` (an IP address, a device id) is throttled
    /// alongside the address.
    ///
    /// - Throws: ``AuthError/Code/throttled`` while a key waits; ``AuthError/Code/invalidCredentials``.
    public func signIn(
        email: String, password: String, clientKey: String, device: String? = nil, code: String? = nil
    ) throws(AuthError) -> Session {
        let device = try Self.checkedDevice(device)
        // AUTH-39: text that is not an address fails as an unknown address does, with the same
        // Argon2id work and the same counting (under the text, as given, in ASCII lower case).
        let address = (try? Self.normalizedEmail(email)) ?? email.asciiLowercased
        let addressKey = Self.throttleKey("address", address)
        let clientKeyName = Self.throttleKey("client", clientKey)
        let keys = [addressKey, clientKeyName]
        let now = clock.now()
        let stored: (AccountID, String)? = try store.update { (records) throws(AuthError) in
            try self.checkThrottles(keys, at: now, in: records)
            // AUTH-39: every sign-in by password counts toward the client's share of hashing,
            // successful or not; past it nothing is checked or counted.
            try self.count(
                [(Self.throttleKey("sign-in client", clientKey), self.configuration.signInsPerClient)],
                window: self.configuration.signInWindow, at: now, in: &records, what: "sign-ins", rule: "AUTH-39")
            // AUTH-39: the attempt counts as a failure now, in the transaction that checked the
            // throttle, so guesses running at the same time see each other.
            self.recordFailure(keys, at: now, in: &records)
            guard let id = records.accountsByEmail[address], let hash = records.accounts[id]?.passwordHash else {
                return nil
            }
            return (id, hash)
        }
        let (matches, parsed) = try check(password, against: stored?.1)
        let rehashed =
            matches && hasher.needsRehash(parsed!)
            ? try hasher.hash(Password(normalized: password.precomposedStringWithCompatibilityMapping)).phc : nil
        let outcome: Result<Session, AuthError> = try store.update { (records) throws(AuthError) in
            guard matches, let (id, hash) = stored, records.accounts[id]?.passwordHash == hash else {
                return .failure(Self.invalidCredentials)
            }
            // AUTH-51: with a second factor the password alone is a failure like a wrong one.
            var proved = false
            if var factor = records.secondFactors[id.rawValue], factor.confirmed {
                guard let code else { return .failure(Self.secondFactorRequired) }
                guard try Self.accept(code, for: &factor, at: now) else { return .failure(Self.invalidSecondFactor) }
                records.secondFactors[id.rawValue] = factor
                proved = true
            }
            // AUTH-39: a success proves the address's password and nothing about the client's
            // other attempts, so only the address's failures are forgotten; the client's key gets
            // back the one failure this attempt counted, and keeps its time.
            records.throttles[addressKey] = nil
            if var client = records.throttles[clientKeyName] {
                client.failures = max(client.failures - 1, 0)
                records.throttles[clientKeyName] = client
            }
            if let rehashed { records.accounts[id]?.passwordHash = rehashed }
            return .success(
                self.startSession(for: id, device: device, secondFactorAt: proved ? now : nil, at: now, in: &records))
        }
        return try outcome.get()
    }

    /// Signs in with a provider's ID token (AUTH-22 ... AUTH-34): the identity's account, or
    /// the account of its address when the identity may link by e-mail (AUTH-33), or a new one.
    /// `providerRefreshToken` (Sign in with Apple's, from the authorisation code) is kept to be
    /// revoked when the account is deleted.
    ///
    /// `nonce` is one ``issueSignInNonce(clientKey:)`` gave, used up by the sign-in (AUTH-46).
    ///
    /// - Throws: ``AuthError/Code/unknownProvider``; ``AuthError/Code/nonceInvalid`` for a nonce
    ///   the service did not issue, used or expired, or none; the verifier's errors.
    public func signIn(
        provider: String, idToken: String, nonce: String?, providerRefreshToken: SecretToken? = nil,
        device: String? = nil
    ) async throws(AuthError) -> Session {
        let device = try Self.checkedDevice(device)
        let now = clock.now()
        let verifier = try verifier(provider)
        guard let nonce else { throw Self.nonceInvalid }
        let identity = try await verifier.verify(idToken, nonce: nonce, at: now)
        return try session(
            for: identity, nonce: nonce, providerRefreshToken: providerRefreshToken, device: device, at: now)
    }

    /// The same sign-in while the caller waits, for a service whose verifiers fetch keys with a
    /// blocking fetcher (``KeySetCache/init(blockingFetcher:)``).
    ///
    /// - Throws: as ``signIn(provider:idToken:nonce:providerRefreshToken:)``.
    public func signInSynchronously(
        provider: String, idToken: String, nonce: String?, providerRefreshToken: SecretToken? = nil,
        device: String? = nil
    ) throws(AuthError) -> Session {
        let device = try Self.checkedDevice(device)
        let now = clock.now()
        let verifier = try verifier(provider)
        guard let nonce else { throw Self.nonceInvalid }
        let identity = try verifier.verifySynchronously(idToken, nonce: nonce, at: now)
        return try session(
            for: identity, nonce: nonce, providerRefreshToken: providerRefreshToken, device: device, at: now)
    }

    /// AUTH-46: the nonce was issued here, is unused and in time; the caller uses it up.
    private static func useNonce(_ nonce: String, at now: Double, in records: inout AccountRecords) throws(AuthError) {
        try checkNonce(nonce, at: now, in: records)
        records.nonces[SecretToken(nonce).storedHash] = nil
    }

    private static func checkNonce(_ nonce: String, at now: Double, in records: AccountRecords) throws(AuthError) {
        guard let issued = records.nonces[SecretToken(nonce).storedHash], now < issued.expiresAt else {
            throw nonceInvalid
        }
    }

    /// A sign-in nonce: hand it to the provider (Apple takes its SHA-256) and present it with the
    /// ID token within ``AccountConfiguration/nonceLifetime`` seconds. Each works once, so a
    /// captured ID token cannot sign in again (AUTH-46). `clientKey` (an IP address, a device) is
    /// issued at most ``AccountConfiguration/noncesPerClient`` in a window of the nonce's lifetime.
    ///
    /// - Throws: ``AuthError/Code/throttled`` past that; ``AuthError/Code/storageFailed`` when it
    ///   cannot be kept.
    public func issueSignInNonce(clientKey: String) throws(AuthError) -> String {
        let now = clock.now()
        return try store.update { (records) throws(AuthError) in
            try self.count(
                [(Self.throttleKey("nonce client", clientKey), configuration.noncesPerClient)],
                window: configuration.nonceLifetime,
                at: now, in: &records, what: "sign-in nonces", rule: "AUTH-46")
            // Made only once the request is counted: a refused one issues nothing.
            let nonce = self.makeNonce()
            records.nonces[SecretToken(nonce).storedHash] = AccountRecords.IssuedNonce(
                expiresAt: now + configuration.nonceLifetime)
            return nonce
        }
    }

    private func verifier(_ provider: String) throws(AuthError) -> IDTokenVerifier {
        guard let verifier = verifiers[provider] else {
            throw AuthError(.unknownProvider, "this service does not sign in with '\(provider)'", rule: "AUTH-35")
        }
        return verifier
    }

    /// The session of a verified identity: its linked account, the account of its address when
    /// it may link by e-mail, or a new account.
    private func session(
        for identity: VerifiedIdentity, nonce: String, providerRefreshToken: SecretToken?, device: String?,
        at now: Double
    ) throws(AuthError) -> Session {
        let key = identity.provider + " " + identity.subject
        let address = identity.email.flatMap { try? Self.normalizedEmail($0) }
        return try store.update { (records) throws(AuthError) in
            try Self.useNonce(nonce, at: now, in: &records)
            // AUTH-44: the linked account; else the account that proved the address, when the
            // identity may link by e-mail; else a new account, which holds the address proven
            // (taking it from an unproven holder) when the identity proves it, unproven when the
            // address is free, and none otherwise.
            let id: AccountID
            if let linked = records.identities[key] {
                id = linked.account
            } else if identity.mayLinkByEmail, let address, let existing = Self.provenHolder(of: address, in: records) {
                id = existing
            } else {
                id = AccountID.random()
                var held: (address: String, proven: Bool)?
                if let address, identity.mayLinkByEmail {
                    held = (address, true)
                } else if let address, records.accountsByEmail[address] == nil {
                    held = (address, false)
                }
                if let held { Self.give(held.address, to: id, in: &records) }
                records.accounts[id] = AccountRecords.Account(
                    id: id, email: held?.address, emailProven: held?.proven ?? false, passwordHash: nil,
                    credentialEpoch: 0, createdAt: now)
            }
            var linked =
                records.identities[key]
                ?? AccountRecords.Identity(provider: identity.provider, subject: identity.subject, account: id)
            if let providerRefreshToken { linked.providerRefreshToken = providerRefreshToken }
            records.identities[key] = linked
            return self.startSession(for: id, device: device, at: now, in: &records)
        }
    }

    // MARK: Sessions (AUTH-38)

    /// The account an access token belongs to.
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``.
    public func authenticate(accessToken: SecretToken) throws(AuthError) -> AccountID {
        try authenticate(accessToken: accessToken, fresh: true).account
    }

    /// The account an access token belongs to, as the store's records say, and what they were
    /// read at (``AccountStore/read(fresh:_:)``): a caller that has another store on the same
    /// database confirm the reading in its transaction acts on a session that was live in that
    /// transaction; `fresh` reads the database first.
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``.
    public func authenticate(accessToken: SecretToken, fresh: Bool) throws(AuthError) -> (
        account: AccountID, reading: StoreReading?
    ) {
        let (account, _, reading) = try authenticateSession(accessToken: accessToken, fresh: fresh)
        return (account, reading)
    }

    /// ``authenticate(accessToken:fresh:)``, with the session the token is of: its family's
    /// private id, the same across refreshes, never shown to its holder (a device's pushes are
    /// registered in it, REMIND-19).
    ///
    /// - Throws: as ``authenticate(accessToken:fresh:)``.
    public func authenticateSession(accessToken: SecretToken, fresh: Bool) throws(AuthError) -> (
        account: AccountID, session: String, reading: StoreReading?
    ) {
        let now = clock.now()
        let (family, reading) = try store.read(fresh: fresh) { (records) throws(AuthError) in
            try self.family(accessToken, at: now, in: records)
        }
        return (family.account, family.id, reading)
    }

    /// The next session of a family, for its current refresh token: the token is used up, and a
    /// used one presented again ends the whole family.
    ///
    /// - Throws: ``AuthError/Code/refreshTokenReused``; ``AuthError/Code/invalidSession``;
    ///   ``AuthError/Code/sessionExpired``.
    public func refresh(refreshToken: SecretToken) throws(AuthError) -> Session {
        let now = clock.now()
        let hash = refreshToken.storedHash
        let outcome: Result<Session, AuthError> = try store.update { (records) throws(AuthError) in
            if let id = records.sessionsByRefreshHash[hash], let family = records.sessions[id] {
                guard now < family.refreshExpiresAt, now < family.lastUsedAt + configuration.inactivityLimit else {
                    Self.end(id, in: &records)
                    return .failure(AuthError(.sessionExpired, "the session has ended; sign in again", rule: "AUTH-38"))
                }
                return .success(self.rotate(id, at: now, in: &records))
            }
            if let id = records.sessionsByUsedRefreshHash[hash] {
                Self.end(id, in: &records)
                return .failure(
                    AuthError(
                        .refreshTokenReused, "a refresh token was used twice; every session of that sign-in has ended",
                        rule: "AUTH-38"))
            }
            throw Self.invalidSession
        }
        return try outcome.get()
    }

    /// The live session families of `accessToken`'s account, oldest sign-in first (AUTH-47).
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``.
    public func sessions(accessToken: SecretToken) throws(AuthError) -> [SessionInfo] {
        let now = clock.now()
        return try store.update { (records) throws(AuthError) in
            let own = try self.familyID(accessToken, at: now, in: records)
            let account = records.sessions[own]!.account
            return records.sessions.owned(by: account.rawValue).map(\.value)
                .map {
                    SessionInfo(
                        id: $0.publicID, device: $0.device, signedInAt: $0.signedInAt, lastUsedAt: $0.lastUsedAt,
                        isCurrent: $0.id == own)
                }
                .sorted(by: SessionInfo.listOrder)
        }
    }

    /// Ends the family whose public id is `id`, which must be one of the caller's account's (AUTH-47).
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``;
    ///   ``AuthError/Code/sessionNotFound`` for an id that is no live family of the account.
    public func revokeSession(accessToken: SecretToken, id: String) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let account = records.sessions[try self.familyID(accessToken, at: now, in: records)]!.account
            guard
                let target = records.sessions.owned(by: account.rawValue).map(\.value).first(where: {
                    $0.publicID.utf8.elementsEqual(id.utf8)
                })
            else {
                throw AuthError(.sessionNotFound, "there is no such session on this account", rule: "AUTH-47")
            }
            Self.end(target.id, in: &records)
        }
    }

    /// Ends every session family of `accessToken`'s account, the caller's too; the password,
    /// resets and identities stay (AUTH-47).
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``.
    public func signOutEverywhere(accessToken: SecretToken) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let account = records.sessions[try self.familyID(accessToken, at: now, in: records)]!.account
            for (id, _) in records.sessions.owned(by: account.rawValue) { Self.end(id, in: &records) }
        }
    }

    /// Ends the session family of `accessToken`.
    public func signOut(accessToken: SecretToken) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let id = try self.familyID(accessToken, at: now, in: records, allowExpired: true)
            Self.end(id, in: &records)
        }
    }

    // MARK: Step-up, change, reset (AUTH-40, AUTH-41)

    /// Proves the person is there again, for the step-up of AUTH-41.
    ///
    /// - Throws: ``AuthError/Code/throttled``; ``AuthError/Code/invalidCredentials``.
    ///
    /// With a second factor, `code` (a TOTP code or a recovery code) is needed too, and an
    /// account without a password gives the code alone (AUTH-51).
    public func reauthenticate(accessToken: SecretToken, password: String, code: String? = nil) throws(AuthError) {
        let now = clock.now()
        let (id, account, hasFactor) = try store.update { (records) throws(AuthError) in
            let id = try self.familyID(accessToken, at: now, in: records)
            let account = records.sessions[id]!.account
            try self.checkThrottles(["account " + account.rawValue], at: now, in: records)
            // Counted before the check, as a sign-in is (AUTH-39): attempts at once see each other.
            self.recordFailure(["account " + account.rawValue], at: now, in: &records)
            return (id, records.accounts[account], records.secondFactors[account.rawValue]?.confirmed == true)
        }
        // An account without a password steps up with its second factor alone, when it has one.
        let matches =
            hasFactor && account?.passwordHash == nil
            ? true : try check(password, against: account?.passwordHash).matches
        let outcome: Result<Void, AuthError> = try store.update { (records) throws(AuthError) in
            guard matches, records.sessions[id] != nil, let account else { return .failure(Self.invalidCredentials) }
            if var factor = records.secondFactors[account.id.rawValue], factor.confirmed {
                guard let code else { return .failure(Self.secondFactorRequired) }
                guard try Self.accept(code, for: &factor, at: now) else { return .failure(Self.invalidSecondFactor) }
                records.secondFactors[account.id.rawValue] = factor
                records.sessions[id]?.secondFactorAt = now
            }
            records.sessions[id]?.authenticatedAt = now
            records.throttles["account " + account.id.rawValue] = nil
            return .success(())
        }
        try outcome.get()
    }

    // MARK: A second factor (AUTH-50, AUTH-51)

    /// Starts enrolling a second factor for the account of `accessToken`: a new secret for the
    /// person's authenticator app, asked for only once a code confirms it. Needs step-up.
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/secondFactorEnrolled``.
    public func beginSecondFactor(accessToken: SecretToken) throws(AuthError) -> SecondFactorEnrollment {
        let now = clock.now()
        let secret = makeSecret()
        return try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            guard records.secondFactors[account.id.rawValue]?.confirmed != true else {
                throw AuthError(.secondFactorEnrolled, "the account already has a second factor", rule: "AUTH-51")
            }
            records.secondFactors[account.id.rawValue] = AccountRecords.SecondFactor(
                secret: SecretToken(secret), confirmed: false, lastStep: nil, recoveryHashes: [])
            let issuer = Self.percentEncoded(configuration.serviceName)
            let label = issuer + (account.email.map { ":" + Self.percentEncoded($0) } ?? "")
            let uri =
                "otpauth://totp/\(label)?secret=\(secret)&issuer=\(issuer)&algorithm=SHA1&digits=6&period=30"
            return SecondFactorEnrollment(secret: SecretToken(secret), uri: SecretToken(uri))
        }
    }

    /// Confirms the pending second factor with a code of its secret: from now on it is asked for.
    /// Returns the 10 recovery codes, shown this once. Counts as a proof of presence.
    ///
    /// - Throws: ``AuthError/Code/noSecondFactor`` without a pending one;
    ///   ``AuthError/Code/invalidSecondFactor``; ``AuthError/Code/throttled``.
    public func confirmSecondFactor(accessToken: SecretToken, code: String) throws(AuthError) -> RecoveryCodes {
        let now = clock.now()
        let codes = Self.newRecoveryCodes()
        let outcome: Result<RecoveryCodes, AuthError> = try store.update { (records) throws(AuthError) in
            let id = try self.familyID(accessToken, at: now, in: records)
            let account = records.sessions[id]!.account
            guard var factor = records.secondFactors[account.rawValue], !factor.confirmed else {
                throw AuthError(.noSecondFactor, "there is no second factor waiting to be confirmed", rule: "AUTH-51")
            }
            let key = "account " + account.rawValue
            try self.checkThrottles([key], at: now, in: records)
            guard try Self.accept(code, for: &factor, at: now, recovery: false) else {
                self.recordFailure([key], at: now, in: &records)
                return .failure(Self.invalidSecondFactor)
            }
            factor.confirmed = true
            factor.recoveryHashes = codes.hashes
            records.secondFactors[account.rawValue] = factor
            records.throttles[key] = nil
            records.sessions[id]?.secondFactorAt = now
            records.sessions[id]?.authenticatedAt = now
            return .success(codes.shown)
        }
        return try outcome.get()
    }

    /// Turns the second factor of `accessToken`'s account off. Needs step-up (with a code).
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/noSecondFactor``.
    public func disableSecondFactor(accessToken: SecretToken) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            guard records.secondFactors[account.id.rawValue]?.confirmed == true else {
                throw AuthError(.noSecondFactor, "the account has no second factor", rule: "AUTH-51")
            }
            records.secondFactors[account.id.rawValue] = nil
        }
    }

    /// Replaces the recovery codes of `accessToken`'s account with 10 new ones, shown this once.
    /// Needs step-up (with a code).
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/noSecondFactor``.
    public func newRecoveryCodes(accessToken: SecretToken) throws(AuthError) -> RecoveryCodes {
        let now = clock.now()
        let codes = Self.newRecoveryCodes()
        return try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            guard records.secondFactors[account.id.rawValue]?.confirmed == true else {
                throw AuthError(.noSecondFactor, "the account has no second factor", rule: "AUTH-51")
            }
            records.secondFactors[account.id.rawValue]?.recoveryHashes = codes.hashes
            return codes.shown
        }
    }

    /// Whether `code` is accepted for `factor` at `now` (AUTH-51): a TOTP code of the steps
    /// around now later than the last accepted, or (when `recovery`) an unused recovery code;
    /// what it uses up is gone from `factor`.
    ///
    /// - Throws: ``AuthError/Code/storageFailed`` for a stored secret that does not read.
    private static func accept(
        _ code: String, for factor: inout AccountRecords.SecondFactor, at now: Double, recovery: Bool = true
    ) throws(AuthError) -> Bool {
        let bytes = Array(code.utf8)
        if bytes.count == 6, bytes.allSatisfy({ (0x30...0x39).contains($0) }) {
            let secret: [UInt8]
            do {
                secret = try TOTP.bytes(base32: factor.secret.reveal())
            } catch {
                throw AuthError.storage("a second factor's stored secret does not read: \(error.code)")
            }
            let current = TOTP.step(at: Int(now.rounded(.down)))
            // The latest step first: a code of two steps uses the later up (AUTH-51).
            for step in (current - 1...current + 1).reversed() where step > (factor.lastStep ?? Int.min) {
                if Crypto.constantTimeEqual(Array(TOTP.code(secret: secret, step: step).utf8), bytes) {
                    factor.lastStep = step
                    return true
                }
            }
            return false
        }
        guard recovery else { return false }
        let compact = bytes.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") }
            .map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }
        let hash = Crypto.hex(Crypto.sha256(compact))
        guard let index = factor.recoveryHashes.firstIndex(where: { $0.utf8.elementsEqual(hash.utf8) }) else {
            return false
        }
        factor.recoveryHashes.remove(at: index)
        return true
    }

    /// Ten recovery codes of 80 random bits, `abcd-efgh-ijkl-mnop`, and the hashes kept of them.
    private static func newRecoveryCodes() -> (shown: RecoveryCodes, hashes: [String]) {
        let compact = (0..<10).map { _ in TOTP.base32(Crypto.randomBytes(10)).lowercased() }
        let shown = compact.map { code in
            let characters = Array(code)
            return stride(from: 0, to: 16, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
        }
        return (
            RecoveryCodes(codes: shown.map(SecretToken.init)), compact.map { Crypto.hex(Crypto.sha256(Array($0.utf8))) }
        )
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters.
    private static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF")
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return out
    }

    /// Sets a new password. Needs a sign-in within the step-up window; ends every other session
    /// and every pending reset, and tells the person by e-mail.
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/passwordUnchanged``;
    ///   the password policy's errors.
    public func changePassword(accessToken: SecretToken, newPassword: String) throws(AuthError) {
        let now = clock.now()
        let (id, account) = try store.update { (records) throws(AuthError) in
            let id = try self.familyID(accessToken, at: now, in: records)
            try self.checkStepUp(records.sessions[id]!, at: now, in: records)
            return (id, records.accounts[records.sessions[id]!.account]!)
        }
        let hash = try newHash(newPassword, for: account)
        try store.update { (records) throws(AuthError) in
            guard records.sessions[id] != nil, let current = records.accounts[account.id],
                current.credentialEpoch == account.credentialEpoch
            else { throw Self.invalidSession }
            self.setPassword(hash, of: account.id, keeping: id, in: &records)
        }
        if let email = Self.provenEmail(account) { mailer.send(.passwordChanged(to: email)) }
    }

    /// Starts a password reset. An address that no account holds proven is told nothing and sends
    /// nothing, and the caller cannot tell the two apart (AUTH-40, AUTH-44). `clientKey` is
    /// counted with the address against the mail limits (AUTH-45).
    ///
    /// - Throws: ``AuthError/Code/invalidEmail`` for text that is not an address;
    ///   ``AuthError/Code/throttled`` past a mail limit.
    public func requestPasswordReset(email: String, clientKey: String) throws(AuthError) {
        let address = try Self.normalizedEmail(email)
        let token = SecretToken.random()
        let now = clock.now()
        let mail: AuthMail? = try store.update { (records) throws(AuthError) in
            try self.countMail(address: address, client: clientKey, at: now, in: &records)
            // AUTH-40: without an account a reset of no account is kept, as large as a real one
            // and never sent, so that the store's writes do not tell the two apart.
            let holder = Self.provenHolder(of: address, in: records).flatMap { records.accounts[$0] }
            let nobody = AccountID.random()  // made either way, so both answers do the same work
            records.resets[token.storedHash] = AccountRecords.Reset(
                account: holder?.id ?? nobody, expiresAt: now + configuration.resetLifetime,
                credentialEpoch: holder?.credentialEpoch ?? 0)
            return holder == nil ? nil : .passwordReset(to: address, token: token)
        }
        if let mail { mailer.send(mail) }
    }

    /// The address a reset token is for, without using it up.
    ///
    /// - Throws: ``AuthError/Code/resetTokenInvalid``; ``AuthError/Code/resetTokenExpired``.
    public func inspectReset(token: SecretToken) throws(AuthError) -> String {
        let now = clock.now()
        return try store.update { (records) throws(AuthError) in
            let account = try Self.reset(token, at: now, in: records)
            return account.email ?? ""
        }
    }

    /// Sets a new password with a reset token, which is then used up. Every session ends, and
    /// the person is not signed in: they sign in with the new password.
    ///
    /// - Throws: ``AuthError/Code/resetTokenInvalid``; ``AuthError/Code/resetTokenExpired``;
    ///   ``AuthError/Code/passwordUnchanged``; the password policy's errors.
    public func confirmReset(token: SecretToken, newPassword: String) throws(AuthError) {
        let now = clock.now()
        let account = try store.update { (records) throws(AuthError) in try Self.reset(token, at: now, in: records) }
        let hash = try newHash(newPassword, for: account)
        try store.update { (records) throws(AuthError) in
            let current = try Self.reset(token, at: now, in: records)
            guard current.credentialEpoch == account.credentialEpoch else { throw Self.resetInvalid }
            self.setPassword(hash, of: account.id, keeping: nil, in: &records)
            records.throttles["address " + (account.email ?? "")] = nil
            records.throttles["account " + account.id.rawValue] = nil
        }
        if let email = Self.provenEmail(account) { mailer.send(.passwordChanged(to: email)) }
    }

    // MARK: Deletion (AUTH-42)

    /// Deletes the account of `accessToken`: the person's data through the eraser, then the
    /// credentials, identities, sessions and resets; provider tokens are queued for revocation,
    /// which ``processRevocations()`` carries out. Needs `confirmed` and a recent sign-in.
    ///
    /// - Throws: ``AuthError/Code/confirmationRequired``;
    ///   ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/deletionFailed`` when the
    ///   eraser fails, and then nothing is deleted.
    public func deleteAccount(accessToken: SecretToken, confirmed: Bool) throws(AuthError) {
        let now = clock.now()
        let account = try store.update { (records) throws(AuthError) in
            let id = try self.familyID(accessToken, at: now, in: records)
            guard confirmed else {
                throw AuthError(
                    .confirmationRequired, "deleting an account needs the person's explicit confirmation",
                    rule: "AUTH-42")
            }
            try self.checkStepUp(records.sessions[id]!, at: now, in: records)
            return records.accounts[records.sessions[id]!.account]!
        }
        do {
            try eraser.eraseData(of: account.id)
        } catch {
            // The eraser's own error stays on the server side: its text (paths, hosts, SQL) is no
            // part of what a caller is told.
            throw AuthError(
                .deletionFailed, "the account's data could not be erased, so nothing was deleted; try again later",
                rule: "AUTH-42")
        }
        try store.update { (records) throws(AuthError) in
            guard records.accounts[account.id] != nil else { throw Self.invalidSession }
            records.accounts[account.id] = nil
            if let email = account.email { records.accountsByEmail[email] = nil }
            for (key, _) in records.identities.owned(by: account.id.rawValue) {
                Self.unlink(key, at: now, in: &records)
            }
            for (key, _) in records.emailChanges.owned(by: account.id.rawValue) {
                records.emailChanges[key] = nil
            }
            records.secondFactors[account.id.rawValue] = nil
            for (id, _) in records.sessions.owned(by: account.id.rawValue) { Self.end(id, in: &records) }
            for (key, _) in records.resets.owned(by: account.id.rawValue) { records.resets[key] = nil }
            records.throttles["account " + account.id.rawValue] = nil
            if let email = account.email { records.throttles["address " + email] = nil }
        }
        if let email = Self.provenEmail(account) { mailer.send(.accountDeleted(to: email)) }
    }

    /// Unlinks the identity stored under `key`, queueing its provider refresh token for
    /// revocation (AUTH-42, AUTH-48).
    private static func unlink(_ key: String, at now: Double, in records: inout AccountRecords) {
        guard let identity = records.identities.removeValue(forKey: key) else { return }
        if let token = identity.providerRefreshToken {
            let id = SecretToken.random().storedHash
            records.revocations[id] = AccountRecords.Revocation(
                id: id, provider: identity.provider, token: token, attempts: 0, nextAttempt: now)
        }
    }

    // MARK: Sign-in methods (AUTH-48)

    /// Whether the account of `accessToken` has a password, and the providers linked to it.
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``.
    public func signInMethods(accessToken: SecretToken) throws(AuthError) -> SignInMethods {
        let now = clock.now()
        return try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: false, at: now, in: records)
            return Self.methods(of: account.id, in: records)
        }
    }

    private static func methods(of account: AccountID, in records: AccountRecords) -> SignInMethods {
        let providers = Set(records.identities.owned(by: account.rawValue).map(\.value.provider))
        return SignInMethods(
            hasPassword: records.accounts[account]?.passwordHash != nil,
            providers: providers.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// Links the identity of a provider's ID token to the account of `accessToken`; `nonce` is
    /// one ``issueSignInNonce(clientKey:)`` gave. Needs step-up.
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/unknownProvider``;
    ///   ``AuthError/Code/nonceInvalid``; the verifier's errors; ``AuthError/Code/identityInUse``.
    public func linkIdentity(
        accessToken: SecretToken, provider: String, idToken: String, nonce: String?,
        providerRefreshToken: SecretToken? = nil
    ) async throws(AuthError) {
        let now = clock.now()
        let verifier = try linkingVerifier(accessToken, provider: provider, nonce: nonce, at: now)
        let identity = try await verifier.verify(idToken, nonce: nonce, at: now)
        try link(identity, to: accessToken, nonce: nonce ?? "", providerRefreshToken: providerRefreshToken, at: now)
    }

    /// The same link while the caller waits, for verifiers with a blocking fetcher.
    ///
    /// - Throws: as ``linkIdentity(accessToken:provider:idToken:nonce:providerRefreshToken:)``.
    public func linkIdentitySynchronously(
        accessToken: SecretToken, provider: String, idToken: String, nonce: String?,
        providerRefreshToken: SecretToken? = nil
    ) throws(AuthError) {
        let now = clock.now()
        let verifier = try linkingVerifier(accessToken, provider: provider, nonce: nonce, at: now)
        let identity = try verifier.verifySynchronously(idToken, nonce: nonce, at: now)
        try link(identity, to: accessToken, nonce: nonce ?? "", providerRefreshToken: providerRefreshToken, at: now)
    }

    /// AUTH-48's checks before the token is looked at: the session, step-up, the provider, a nonce.
    private func linkingVerifier(
        _ accessToken: SecretToken, provider: String, nonce: String?, at now: Double
    ) throws(AuthError) -> IDTokenVerifier {
        _ = try store.update { (records) throws(AuthError) in
            try self.account(of: accessToken, stepUp: true, at: now, in: records)
        }
        let verifier = try verifier(provider)
        guard nonce != nil else { throw Self.nonceInvalid }
        return verifier
    }

    private func link(
        _ identity: VerifiedIdentity, to accessToken: SecretToken, nonce: String, providerRefreshToken: SecretToken?,
        at now: Double
    ) throws(AuthError) {
        try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            try Self.checkNonce(nonce, at: now, in: records)
            let key = identity.provider + " " + identity.subject
            if let linked = records.identities[key] {
                guard linked.account == account.id else {
                    throw AuthError(
                        .identityInUse, "that \(identity.provider) account is linked to another account",
                        rule: "AUTH-48")
                }
                return
            }
            try Self.useNonce(nonce, at: now, in: &records)
            records.identities[key] = AccountRecords.Identity(
                provider: identity.provider, subject: identity.subject, account: account.id,
                providerRefreshToken: providerRefreshToken)
        }
    }

    /// Unlinks every identity of `provider` from the account of `accessToken`. Needs step-up.
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/identityNotFound``;
    ///   ``AuthError/Code/lastSignInMethod`` when it would leave no way to sign in.
    public func unlinkIdentity(accessToken: SecretToken, provider: String) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            let keys = records.identities.owned(by: account.id.rawValue).map(\.key)
            let matching = keys.filter { records.identities[$0]?.provider.utf8.elementsEqual(provider.utf8) == true }
            guard !matching.isEmpty else {
                throw AuthError(.identityNotFound, "no identity of that provider is linked", rule: "AUTH-48")
            }
            guard account.passwordHash != nil || keys.count > matching.count else { throw Self.lastMethod }
            for key in matching { Self.unlink(key, at: now, in: &records) }
        }
    }

    /// Takes the password away from the account of `accessToken`, which keeps its identities.
    /// Needs step-up.
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/lastSignInMethod``
    ///   when the account has no identity.
    public func removePassword(accessToken: SecretToken) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            guard account.passwordHash != nil else { return }
            guard !records.identities.owned(by: account.id.rawValue).isEmpty else { throw Self.lastMethod }
            records.accounts[account.id]?.passwordHash = nil
            Self.killResets(of: account.id, in: &records)
        }
    }

    // MARK: Changing the address (AUTH-49)

    /// Asks to move the account of `accessToken` to `newEmail`: the new address is mailed a link
    /// to confirm from a session of the account. Needs step-up; counts against the mail limits.
    ///
    /// - Throws: ``AuthError/Code/reauthenticationRequired``; ``AuthError/Code/invalidEmail``;
    ///   ``AuthError/Code/emailUnchanged``; ``AuthError/Code/throttled``.
    public func requestEmailChange(accessToken: SecretToken, newEmail: String, clientKey: String) throws(AuthError) {
        let now = clock.now()
        let current = try store.update { (records) throws(AuthError) in
            try self.account(of: accessToken, stepUp: true, at: now, in: records)
        }
        let address = try Self.normalizedEmail(newEmail)
        guard current.email != address else {
            throw AuthError(.emailUnchanged, "the account already has that address", rule: "AUTH-49")
        }
        let token = SecretToken.random()
        let mail: AuthMail = try store.update { (records) throws(AuthError) -> AuthMail in
            let account = try self.account(of: accessToken, stepUp: true, at: now, in: records)
            try self.countMail(address: address, client: clientKey, at: now, in: &records)
            if let holder = Self.provenHolder(of: address, in: records), holder != account.id {
                return .alreadyRegistered(to: address)
            }
            records.emailChanges[token.storedHash] = AccountRecords.EmailChange(
                account: account.id, address: address, expiresAt: now + configuration.emailChangeLifetime,
                isUndo: false)
            return .confirmEmailChange(to: address, token: token)
        }
        mailer.send(mail)
    }

    /// Confirms an address change with the mailed token, from a session of the same account:
    /// the account gets the new address, proven, and the old proven one is told, with a link
    /// that undoes the change for a week.
    ///
    /// - Throws: ``AuthError/Code/invalidSession``; ``AuthError/Code/sessionExpired``;
    ///   ``AuthError/Code/emailChangeInvalid``.
    public func confirmEmailChange(accessToken: SecretToken, token: SecretToken) throws(AuthError) {
        let now = clock.now()
        let undo = SecretToken.random()
        let mail: AuthMail? = try store.update { (records) throws(AuthError) -> AuthMail? in
            let account = try self.account(of: accessToken, stepUp: false, at: now, in: records)
            let change = try Self.emailChange(token, undo: false, at: now, in: records)
            guard change.account == account.id else { throw Self.emailChangeInvalid }
            for (key, other) in records.emailChanges.owned(by: account.id.rawValue) where !other.isUndo {
                records.emailChanges[key] = nil
            }
            Self.move(account, to: change.address, in: &records)
            guard account.emailProven, let old = account.email else { return nil }
            records.emailChanges[undo.storedHash] = AccountRecords.EmailChange(
                account: account.id, address: old, expiresAt: now + configuration.emailChangeUndoLifetime, isUndo: true)
            return .emailChanged(to: old, token: undo)
        }
        if let mail { mailer.send(mail) }
    }

    /// Undoes a confirmed address change with the token mailed to the old address: the account
    /// gets it back, every session ends and reset tokens die. Needs no sign-in.
    ///
    /// - Throws: ``AuthError/Code/emailChangeInvalid``.
    public func undoEmailChange(token: SecretToken) throws(AuthError) {
        let now = clock.now()
        try store.update { (records) throws(AuthError) in
            let change = try Self.emailChange(token, undo: true, at: now, in: records)
            guard let account = records.accounts[change.account] else { throw Self.emailChangeInvalid }
            records.emailChanges[token.storedHash] = nil
            Self.move(account, to: change.address, in: &records)
            for (id, _) in records.sessions.owned(by: account.id.rawValue) { Self.end(id, in: &records) }
        }
    }

    /// The live change of `token`: of the kind asked, in time, and with an address nobody else
    /// has proven since.
    private static func emailChange(
        _ token: SecretToken, undo: Bool, at now: Double, in records: AccountRecords
    ) throws(AuthError) -> AccountRecords.EmailChange {
        guard let change = records.emailChanges[token.storedHash], change.isUndo == undo, now < change.expiresAt,
            records.accounts[change.account] != nil,
            Self.provenHolder(of: change.address, in: records).map({ $0 == change.account }) ?? true
        else { throw emailChangeInvalid }
        return change
    }

    /// Gives `account` the proven address `address` in place of its own, which is freed; its
    /// reset tokens die.
    private static func move(_ account: AccountRecords.Account, to address: String, in records: inout AccountRecords) {
        if let old = account.email, records.accountsByEmail[old] == account.id { records.accountsByEmail[old] = nil }
        give(address, to: account.id, in: &records)
        records.accounts[account.id]?.email = address
        records.accounts[account.id]?.emailProven = true
        killResets(of: account.id, in: &records)
    }

    /// Raises the credential epoch and drops every reset token of `account`.
    private static func killResets(of account: AccountID, in records: inout AccountRecords) {
        records.accounts[account]?.credentialEpoch += 1
        for (key, _) in records.resets.owned(by: account.rawValue) { records.resets[key] = nil }
    }

    /// The account of a live access token, after step-up when asked.
    private func account(
        of accessToken: SecretToken, stepUp: Bool, at now: Double, in records: AccountRecords
    ) throws(AuthError) -> AccountRecords.Account {
        let family = records.sessions[try familyID(accessToken, at: now, in: records)]!
        if stepUp { try checkStepUp(family, at: now, in: records) }
        guard let account = records.accounts[family.account] else { throw Self.invalidSession }
        return account
    }

    /// What ``processRevocations()`` did.
    public struct RevocationReport: Sendable, Hashable {
        /// Revocations the provider confirmed this time.
        public let revoked: Int
        /// Revocations still waiting, failed or not yet due.
        public let waiting: Int
    }

    /// Tries every provider revocation that is due. One that fails waits twice as long as
    /// before (a minute, then two, up to a day) and is tried again by a later call, also after a
    /// restart, since the queue lives in the store.
    ///
    /// - Throws: ``AuthError/Code/storageFailed`` when the queue cannot be read or an outcome
    ///   cannot be kept: a revocation whose outcome was not stored is never counted as done.
    public func processRevocations() async throws(AuthError) -> RevocationReport {
        let now = clock.now()
        let due = try store.update { (records) throws(AuthError) in
            records.revocations.expiring(atOrBefore: now).map(\.value).sorted { $0.id < $1.id }
        }
        var revoked = 0
        for revocation in due {
            var succeeded = true
            do {
                try await revoker.revoke(revocation.token, provider: revocation.provider)
            } catch {
                succeeded = false
            }
            try store.update { (records) throws(AuthError) in
                if succeeded {
                    records.revocations[revocation.id] = nil
                } else if var waiting = records.revocations[revocation.id] {
                    waiting.attempts += 1
                    waiting.nextAttempt = now + min(60 * Double(1 << min(waiting.attempts - 1, 20)), 86_400)
                    records.revocations[revocation.id] = waiting
                }
            }
            if succeeded { revoked += 1 }
        }
        let waiting = try store.update { (records) throws(AuthError) in
            records.revocations.expiring(atOrBefore: .infinity).count
        }
        return RevocationReport(revoked: revoked, waiting: waiting)
    }

    /// Forgets what can no longer matter: expired sign-ups, resets, address changes and nonces,
    /// session families unused for AUTH-38's inactivity limit (one past its 30 days can no longer
    /// be used, so it is unused by that limit after its end at the latest), and throttles and
    /// mail windows past their memory. Each kind is found by its indexed expiry, never by reading
    /// every record. A server calls it now and then; the records then hold what live accounts and
    /// recent attempts justify, whatever strangers send. Returns how many records went.
    ///
    /// - Throws: ``AuthError/Code/storageFailed`` when the store cannot keep what went: never
    ///   "nothing to purge".
    @discardableResult
    public func purgeExpired() throws(AuthError) -> Int {
        let now = clock.now()
        return
            try store.update { (records) throws(AuthError) -> Int in
                var removed = 0
                for (key, pending) in records.pendingSignUps.expiring(atOrBefore: now) {
                    records.pendingSignUps[key] = nil
                    records.pendingSignUpsByEmail[pending.email]?.removeAll { $0 == key }
                    if records.pendingSignUpsByEmail[pending.email]?.isEmpty == true {
                        records.pendingSignUpsByEmail[pending.email] = nil
                    }
                    removed += 1
                }
                for (key, _) in records.resets.expiring(atOrBefore: now) {
                    records.resets[key] = nil
                    removed += 1
                }
                for (key, _) in records.throttles.expiring(atOrBefore: now - configuration.throttleMemory) {
                    records.throttles[key] = nil
                    removed += 1
                }
                let longest = max(configuration.mailWindow, configuration.nonceLifetime, configuration.signInWindow)
                for (key, _) in records.requestWindows.expiring(atOrBefore: now - longest) {
                    records.requestWindows[key] = nil
                    removed += 1
                }
                for (key, _) in records.emailChanges.expiring(atOrBefore: now) {
                    records.emailChanges[key] = nil
                    removed += 1
                }
                for (key, _) in records.nonces.expiring(atOrBefore: now) {
                    records.nonces[key] = nil
                    removed += 1
                }
                for (id, _) in records.sessions.expiring(atOrBefore: now - configuration.inactivityLimit) {
                    Self.end(id, in: &records)
                    removed += 1
                }
                return removed
            }
    }

    // MARK: Pieces

    /// A throttle's key: `kind` and the text it counts under, the text kept as its SHA-256 when it
    /// is longer than an address may be (AUTH-39), so a refused request keeps a few bytes however
    /// long the text it sent.
    static func throttleKey(_ kind: String, _ text: String) -> String {
        text.utf8.count <= 254 ? kind + " " + text : kind + " sha256 " + SecretToken(text).storedHash
    }

    /// An address as AUTH-36 compares them: ASCII letters in lower case.
    ///
    /// - Throws: ``AuthError/Code/invalidEmail`` for text that is not an address.
    public static func normalizedEmail(_ text: String) throws(AuthError) -> String {
        let bytes = Array(text.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "@"))
        guard (3...254).contains(bytes.count), let at, bytes.lastIndex(of: UInt8(ascii: "@")) == at, at > 0,
            at <= 64, at < bytes.count - 1, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F })
        else {
            throw AuthError(.invalidEmail, "that is not an e-mail address", rule: "AUTH-36")
        }
        return text.asciiLowercased
    }

    /// Whether `password` matches the stored PHC string, and the parsed hash. Without one (an
    /// unknown address, an account without a password, an unreadable hash) the decoy is verified
    /// instead, so every answer costs the same Argon2id work (AUTH-39), and nothing matches.
    private func check(_ password: String, against stored: String?) throws(AuthError) -> (
        matches: Bool, hash: PasswordHash?
    ) {
        // A stored hash that does not read is checked as no hash: the decoy, so the answer costs
        // the same (an unreadable record is the store's damage, not the person's wrong password).
        let parsed = stored.flatMap { try? PasswordHash(phc: $0) }
        let matches = try hasher.verify(password, against: parsed ?? decoy)
        if let parsed { try topUp(from: parsed.parameters) }
        return (matches && parsed != nil, parsed)
    }

    /// AUTH-39: a stored hash cheaper than the current parameters is topped up with Argon2id work
    /// of the difference in memory × passes, so that its answer costs what the decoy's does and
    /// does not tell an old account from no account.
    private func topUp(from stored: Argon2Parameters) throws(AuthError) {
        let current = configuration.hashing
        let missing = current.memoryKiB * current.iterations - stored.memoryKiB * stored.iterations
        guard missing >= 8 else { return }
        let passes = min((missing + Argon2Parameters.maximumMemoryKiB - 1) / Argon2Parameters.maximumMemoryKiB, 16)
        let memory = min(max(missing / passes, 8), Argon2Parameters.maximumMemoryKiB)
        _ = try Argon2id.tag(
            password: [], salt: Crypto.randomBytes(PasswordHasher.saltLength),
            parameters: Argon2Parameters(memoryKiB: memory, iterations: passes, parallelism: 1), tagLength: 16)
    }

    private func newHash(_ password: String, for account: AccountRecords.Account) throws(AuthError) -> String {
        let checked = try configuration.policy.check(password, email: account.email)
        if let old = account.passwordHash.flatMap({ try? PasswordHash(phc: $0) }),
            try hasher.verify(password, against: old)
        {
            throw AuthError(.passwordUnchanged, "the new password is the one the account already has", rule: "AUTH-40")
        }
        return try hasher.hash(checked).phc
    }

    private func setPassword(
        _ hash: String, of account: AccountID, keeping kept: String?, in records: inout AccountRecords
    ) {
        records.accounts[account]?.passwordHash = hash
        records.accounts[account]?.credentialEpoch += 1
        for (id, _) in records.sessions.owned(by: account.rawValue) where id != kept {
            Self.end(id, in: &records)
        }
        for (key, _) in records.resets.owned(by: account.rawValue) { records.resets[key] = nil }
    }

    private static func reset(
        _ token: SecretToken, at now: Double, in records: AccountRecords
    ) throws(AuthError) -> AccountRecords.Account {
        guard let reset = records.resets[token.storedHash], let account = records.accounts[reset.account],
            reset.credentialEpoch == account.credentialEpoch
        else { throw resetInvalid }
        guard now < reset.expiresAt else {
            throw AuthError(.resetTokenExpired, "this reset link has expired; ask for a new one", rule: "AUTH-40")
        }
        return account
    }

    /// AUTH-41: a proof of presence within the window; with a second factor (AUTH-51), only one
    /// that included a code.
    private func checkStepUp(
        _ family: AccountRecords.SessionFamily, at now: Double, in records: AccountRecords
    ) throws(AuthError) {
        let proof =
            records.secondFactors[family.account.rawValue]?.confirmed == true
            ? family.secondFactorAt : family.authenticatedAt
        guard let proof, now - proof <= configuration.stepUpWindow else {
            throw AuthError(
                .reauthenticationRequired,
                "this needs a sign-in within the last \(Int(configuration.stepUpWindow)) seconds",
                rule: "AUTH-41")
        }
    }

    private func checkThrottles(_ keys: [String], at now: Double, in records: AccountRecords) throws(AuthError) {
        var wait = 0.0
        for key in keys {
            guard let throttle = records.throttles[key], now - throttle.lastFailure < configuration.throttleMemory
            else {
                continue
            }
            wait = max(wait, throttle.lastFailure + backoff(throttle.failures) - now)
        }
        if wait > 0 {
            throw AuthError(
                .throttled, "too many attempts; try again in \(Int(wait.rounded(.up))) seconds", rule: "AUTH-39",
                retryAfter: wait.rounded(.up))
        }
    }

    /// The wait after `failures` failures: none for the free attempts, then 1, 2, 4, ... seconds
    /// up to the maximum.
    func backoff(_ failures: Int) -> Double {
        let over = failures - configuration.freeAttempts
        guard over >= 0 else { return 0 }
        return min(Double(1 << min(over, 30)), configuration.maximumBackoff)
    }

    /// The address mail about `account` may go to: only one it holds proven (AUTH-44).
    private static func provenEmail(_ account: AccountRecords.Account) -> String? {
        account.emailProven ? account.email : nil
    }

    /// Counts a request that may send mail under its address and its client (AUTH-45), or
    /// refuses it, counting nothing, when either key's window is full.
    private func countMail(
        address: String, client: String, at now: Double, in records: inout AccountRecords
    ) throws(AuthError) {
        try count(
            [
                ("address " + address, configuration.mailsPerAddress),
                (Self.throttleKey("client", client), configuration.mailsPerClient),
            ],
            window: configuration.mailWindow, at: now, in: &records, what: "mails", rule: "AUTH-45")
    }

    /// Counts a request under each of `keys` in windows of `length` seconds that start at their
    /// first request, or refuses it, counting nothing, when any key has reached its limit.
    private func count(
        _ keys: [(key: String, limit: Int)], window length: Double, at now: Double, in records: inout AccountRecords,
        what: String, rule: String, code: AuthError.Code = .throttled
    ) throws(AuthError) {
        var wait = 0.0
        var windows: [(String, AccountRecords.RequestWindow)] = []
        for (key, limit) in keys {
            var window = records.requestWindows[key] ?? AccountRecords.RequestWindow(requests: 0, start: now)
            if now >= window.start + length { window = AccountRecords.RequestWindow(requests: 0, start: now) }
            if window.requests >= limit { wait = max(wait, window.start + length - now) }
            window.requests += 1
            windows.append((key, window))
        }
        guard wait <= 0 else {
            throw AuthError(
                code, "too many \(what) asked for; try again in \(Int(wait.rounded(.up))) seconds", rule: rule,
                retryAfter: wait.rounded(.up))
        }
        for (key, window) in windows { records.requestWindows[key] = window }
    }

    private func recordFailure(_ keys: [String], at now: Double, in records: inout AccountRecords) {
        for key in keys {
            var throttle = records.throttles[key] ?? AccountRecords.Throttle(failures: 0, lastFailure: now)
            if now - throttle.lastFailure >= configuration.throttleMemory { throttle.failures = 0 }
            throttle.failures = min(throttle.failures + 1, 1 << 20)
            throttle.lastFailure = now
            records.throttles[key] = throttle
        }
    }

    /// A device name as AUTH-47 takes it: at most 64 bytes, no control character.
    private static func checkedDevice(_ device: String?) throws(AuthError) -> String? {
        guard let device else { return nil }
        guard device.utf8.count <= 64, !device.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw AuthError(
                .invalidDevice, "a device name is at most 64 bytes of UTF-8 with no control character", rule: "AUTH-47")
        }
        return device
    }

    /// A new session family of `account`; `secondFactorAt` when its sign-in gave a code (AUTH-51).
    private func startSession(
        for account: AccountID, device: String?, secondFactorAt: Double? = nil, at now: Double,
        in records: inout AccountRecords
    ) -> Session {
        let access = SecretToken.random()
        let refresh = SecretToken.random()
        let id = SecretToken.random().storedHash
        let family = AccountRecords.SessionFamily(
            id: id, account: account, authenticatedAt: now, refreshHash: refresh.storedHash, usedRefreshHashes: [],
            refreshExpiresAt: now + configuration.refreshLifetime, signedInAt: now, lastUsedAt: now, device: device,
            accessHash: access.storedHash,
            accessExpiresAt: min(now + configuration.accessLifetime, now + configuration.refreshLifetime))
        records.sessions[id] = family
        records.sessions[id]?.secondFactorAt = secondFactorAt
        records.sessionsByAccessHash[family.accessHash] = id
        records.sessionsByRefreshHash[family.refreshHash] = id
        endLeastRecentlyUsed(of: account, at: now, in: &records)
        return Session(
            account: account, id: family.publicID, accessToken: access, refreshToken: refresh,
            accessExpiresAt: family.accessExpiresAt, refreshExpiresAt: family.refreshExpiresAt)
    }

    /// The live session families an account may hold at once (AUTH-47).
    public static let maximumSessions = 64

    /// Ends the live families of `account` used longest ago (their sign-in or last refresh; the
    /// earlier sign-in, then the smaller public id as UTF-8 bytes, first on a tie) until it holds
    /// at most ``maximumSessions`` (AUTH-47), so sign-ins without end cost the service a bounded
    /// number of families per account. A family past its end is no longer live and not counted.
    private func endLeastRecentlyUsed(of account: AccountID, at now: Double, in records: inout AccountRecords) {
        let live = records.sessions.owned(by: account.rawValue).map(\.value).filter {
            now < $0.refreshExpiresAt && now < $0.lastUsedAt + configuration.inactivityLimit
        }
        guard live.count > Self.maximumSessions else { return }
        let order = live.sorted { a, b in
            if a.lastUsedAt != b.lastUsedAt { return a.lastUsedAt < b.lastUsedAt }
            if a.signedInAt != b.signedInAt { return a.signedInAt < b.signedInAt }
            return a.publicID.utf8.lexicographicallyPrecedes(b.publicID.utf8)
        }
        for family in order.prefix(live.count - Self.maximumSessions) { Self.end(family.id, in: &records) }
    }

    private func rotate(_ id: String, at now: Double, in records: inout AccountRecords) -> Session {
        var family = records.sessions[id]!
        let access = SecretToken.random()
        let refresh = SecretToken.random()
        records.sessionsByAccessHash[family.accessHash] = nil
        records.sessionsByRefreshHash[family.refreshHash] = nil
        family.usedRefreshHashes.append(family.refreshHash)
        records.sessionsByUsedRefreshHash[family.refreshHash] = id
        if family.usedRefreshHashes.count > configuration.usedTokenMemory {
            records.sessionsByUsedRefreshHash[family.usedRefreshHashes.removeFirst()] = nil
        }
        family.refreshHash = refresh.storedHash
        family.accessHash = access.storedHash
        family.accessExpiresAt = min(now + configuration.accessLifetime, family.refreshExpiresAt)
        family.lastUsedAt = now
        records.sessions[id] = family
        records.sessionsByAccessHash[family.accessHash] = id
        records.sessionsByRefreshHash[family.refreshHash] = id
        return Session(
            account: family.account, id: family.publicID, accessToken: access, refreshToken: refresh,
            accessExpiresAt: family.accessExpiresAt,
            refreshExpiresAt: family.refreshExpiresAt)
    }

    private static func end(_ id: String, in records: inout AccountRecords) {
        guard let family = records.sessions.removeValue(forKey: id) else { return }
        records.sessionsByAccessHash[family.accessHash] = nil
        records.sessionsByRefreshHash[family.refreshHash] = nil
        for used in family.usedRefreshHashes { records.sessionsByUsedRefreshHash[used] = nil }
    }

    private func familyID(
        _ accessToken: SecretToken, at now: Double, in records: AccountRecords, allowExpired: Bool = false
    ) throws(AuthError) -> String {
        guard let id = records.sessionsByAccessHash[accessToken.storedHash], let family = records.sessions[id] else {
            throw Self.invalidSession
        }
        guard allowExpired || now < family.accessExpiresAt else {
            throw AuthError(.sessionExpired, "the access token has expired; refresh the session", rule: "AUTH-38")
        }
        return id
    }

    private func family(
        _ accessToken: SecretToken, at now: Double, in records: AccountRecords
    ) throws(AuthError) -> AccountRecords.SessionFamily {
        records.sessions[try familyID(accessToken, at: now, in: records)]!
    }

    private static let invalidCredentials = AuthError(
        .invalidCredentials, "that e-mail address and password do not match an account", rule: "AUTH-39")
    private static let invalidSession = AuthError(
        .invalidSession, "that session is not valid; sign in again", rule: "AUTH-38")
    private static let nonceInvalid = AuthError(
        .nonceInvalid, "that sign-in nonce was not issued here, was used already or has expired; ask for a new one",
        rule: "AUTH-46")
    private static let secondFactorRequired = AuthError(
        .secondFactorRequired, "this account has a second factor: give a code from the authenticator app",
        rule: "AUTH-51")
    private static let invalidSecondFactor = AuthError(
        .invalidSecondFactor, "that code is wrong, was used already, or is from another time", rule: "AUTH-51")
    private static let lastMethod = AuthError(
        .lastSignInMethod, "that would leave the account with no way to sign in", rule: "AUTH-48")
    private static let emailChangeInvalid = AuthError(
        .emailChangeInvalid, "this address-change link is not valid", rule: "AUTH-49")
    private static let resetInvalid = AuthError(.resetTokenInvalid, "this reset link is not valid", rule: "AUTH-40")
}
