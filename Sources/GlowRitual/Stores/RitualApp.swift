import Foundation
import GlowBundle
import GlowClient
import GlowFeed
import GlowModel
import GlowProtocol
import GlowReminders
import GlowStorage
import GlowSync
import GlowThemes
import Observation

/// Why the app object could not do what was asked: the typed error of the part that refused,
/// whole, with its code, place and rule.
public enum RitualAppError: Error, Hashable, Sendable {
    /// The database refused the change or could not be read or written.
    case store(StoreError)
    /// The server refused the call or could not be reached (its `ServiceError` and `Retry-After`).
    case service(ServiceFailure)
    /// The feed refused an action, or its sync failed.
    case activity(ActivityError)
    /// A bundle did not read, open or seal; `cancelled` when the task was cancelled.
    case bundle(BundleError)
    /// The bundle at the path is encrypted and no passphrase or recovery key was given.
    case encrypted(path: String)
    /// Sync of the person's own data refused: a page the device's reader refused, a server's
    /// refusal of a sync code, or a pairing code that does not read or open (Spec/sync.md).
    case sync(SyncError)
    /// The task was cancelled; what was done before is kept.
    case cancelled
}

/// How an export is protected.
public enum BundleProtection: Sendable {
    /// A plain bundle (BUNDLE-1 ... BUNDLE-9).
    case none
    /// An encrypted bundle (BUNDLE-29 ... BUNDLE-35) that `passphrase` opens, and `recoveryKey`
    /// too when given; `kdf` sets Argon2id's cost.
    case passphrase(String, recoveryKey: RecoveryKey? = nil, kdf: EnvelopeKDF = BundleEnvelope.defaultKDF)
}

/// How far an export has got: frames written of the bundle's frames, and bytes out.
public struct ExportProgress: Hashable, Sendable {
    /// Frames written so far.
    public var frames: Int
    /// Every frame of the bundle.
    public var totalFrames: Int
    /// Bytes of the file produced so far.
    public var bytes: Int

    /// The share done, 0 ... 1.
    public var fraction: Double { totalFrames == 0 ? 1 : Double(frames) / Double(totalFrames) }
}

/// The app: one object an app makes at launch and hands to its views (issue 45). It holds the
/// person's durable database and every store over it: goals with Today, the Overview, streaks
/// and strength; the profile and theme; reminders kept current by the incremental keeper; the
/// Glow feed of whoever is signed in; and the account. Every change is committed before its
/// method returns, and every store shows every committed change, another process's included
/// (the app watches the file), with no `refresh()` to call.
///
/// Sign-in, sign-out and account deletion work from any screen. Onboarding is the app's own
/// business: ``auth`` offers AUTH-19's flow as an optional helper for an app that shows those
/// screens, and ``route`` follows it.
///
/// Use ``Tracker`` instead for data in memory only (a preview, a test, a server computing a
/// person's answers): the app object is the durable, observable app state on top of it.
@Observable @MainActor
public final class RitualApp {
    /// The durable store under everything.
    public let database: RitualDatabase
    /// Goals, Today and the Overview.
    public let goals: GoalStore
    /// The profile.
    public let profile: ProfileStore
    /// The theme and palette.
    public let theme: ThemeStore
    /// The coming Days' notifications and what to cancel and add as they change.
    public let reminders: ReminderStore
    /// The onboarding flow and who is signed in (an optional helper; see the type's notes).
    public let auth: AuthStore
    /// The Glow feed of the signed-in person, or nil when nobody is.
    public private(set) var activity: ActivityStore?
    /// The session with the server, when the person signed in through one.
    public private(set) var session: SessionKeeper?
    /// The last failure to read another process's commits, or nil; the next look tries again.
    public private(set) var watchFailure: StoreError?

    /// The device the app runs on: its check-ins and feed writes carry it.
    public let device: DeviceID
    /// Whether this device syncs the person's own data with their other devices (Spec/sync.md).
    public private(set) var syncsData = false
    /// How far the running data sync has got (a first restore shows it); nil when none runs.
    public private(set) var syncProgress: SyncProgress?
    /// The last background data sync's failure, or nil; the next change or ``sync(now:)`` tries
    /// again.
    public private(set) var syncFailure: RitualAppError?
    @ObservationIgnored private var background: Task<Void, Never>?
    @ObservationIgnored private var watch: DatabaseObservation? = nil
    @ObservationIgnored private var observation: DatabaseObservation? = nil
    @ObservationIgnored private let heard = ChangeObservers<DatabaseChange>()

    /// The app over the database at `path` (made when missing) on the device `device`, its
    /// secrets (the session, the sync secret) in `secrets` and never in the file, as of `now`, its
    /// reminders planned `reminderDays` Days ahead (1 ... 31). The file is watched for other
    /// processes' commits every `watchInterval`.
    ///
    /// An app on an Apple platform keeps its secrets in the Keychain (``KeychainSecretStore``), a
    /// program on Linux in files beside the database (``FileSecretStore/init(database:)``).
    ///
    /// - Throws: ``RitualAppError/store(_:)``: the database's error when it cannot be opened or
    ///   read, or `refused` with the model's `invalid_reminder` for `reminderDays` outside 1 ... 31.
    public init(
        path: String, device: DeviceID, secrets: any SecretStore, mode: Mode = .light, now: Instant = .now,
        reminderDays: Int = 7, watchInterval: Duration = .milliseconds(250)
    ) throws(RitualAppError) {
        do {
            let database = try RitualDatabase(path: path, secrets: secrets)
            self.database = database
            self.device = device
            goals = try GoalStore(database: database, device: device, now: now)
            profile = try ProfileStore(database: database)
            theme = ThemeStore(profiles: profile, mode: mode)
            let auth = try AuthStore(database: database)
            self.auth = auth
            activity = try auth.account.map { (person) throws(StoreError) in
                try ActivityStore(database: database, person: person, device: device)
            }
        } catch {
            throw .store(error)
        }
        do {
            reminders = try ReminderStore(goals: goals, database: database, days: reminderDays)
        } catch {
            switch error {
            case .store(let error): throw .store(error)
            case .model(let error):
                throw .store(StoreError(.refused, error.description, path: path, refusal: error))
            }
        }
        do {
            let sync = try database.sync
            syncsData = sync != nil
            // Sync is on but its secret is missing from the secret store, or does not read: said at
            // once, so the app can ask for the recovery words before a change is refused for it.
            if case .failure(let error)? = sync?.secret { syncFailure = .store(error) }
        } catch {
            throw .store(error)
        }
        observation = database.observeOnMain { [weak self] change in
            self?.heard.notify(change)
            // A change made on this device goes to the others in the background.
            if let changes = change.changes, !changes.isEmpty, !change.deviceValueChanged(RitualDatabase.syncKey) {
                self?.scheduleDataSync()
            }
        }
        watch = database.watchOtherWriters(every: watchInterval) { [weak self] failure in
            Task { @MainActor in self?.watchFailure = failure }
        }
    }

    /// Every committed change from now on, another process's included, each after the goal,
    /// profile, theme, reminder and sign-in stores show it (the feed's own are
    /// ``ActivityStore/changes()``).
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// Where the app is: signed out (or in the onboarding helper's steps), the welcome before a
    /// first goal, or a tab of the main screen. A person with goals is past the welcome whether
    /// or not the flow's move was stored.
    public var route: AppRoute {
        guard auth.account != nil else {
            switch auth.flow {
            case .pitch, .signInChoices: return .onboarding(auth.flow)
            case .signedOut, .welcome, .main: return .signedOut
            }
        }
        if auth.flow != .main && goals.rows.isEmpty { return .welcome }
        return .main(auth.tab)
    }

    /// The signed-in person, or nil.
    public var account: PersonID? { auth.account }

    // MARK: The account

    /// Signs in with a session the server gave (``ServiceClient/signIn(email:password:device:code:)``
    /// or a sign-up's confirmation), from any screen: the app keeps `session` for ``sync(now:)``,
    /// ``signOut()`` and ``deleteAccount()``.
    ///
    /// - Throws: ``RitualAppError``: `service` with `signed_out` when `session` holds no session;
    ///   `store` when the sign-in cannot be kept.
    public func signIn(_ session: SessionKeeper) throws(RitualAppError) {
        guard let person = session.session?.account else {
            throw .service(ServiceFailure(.signedOut, "the session keeper holds no session", call: "sign-in"))
        }
        try signedIn(as: person)
        self.session = session
    }

    /// Records that `person` signed in (by any ``SignInMethod``), from any screen: the flow goes
    /// to the welcome, or to the main screen for a person with goals, and their feed opens.
    /// Another person's feed position on this device is forgotten, so theirs is read whole.
    ///
    /// - Throws: ``RitualAppError/store(_:)`` when the sign-in cannot be kept; nothing changed.
    public func signedIn(as person: PersonID) throws(RitualAppError) {
        var values = AuthStore.values(flow: goals.rows.isEmpty ? .welcome : .main, person: person)
        if auth.account != person { values.merge(Self.forgottenFeedPosition) { _, forgotten in forgotten } }
        do {
            try database.setDeviceValues(values)
            // Another person's sync secret and chain are not this one's.
            if let sync = try database.sync, sync.person != person.rawValue {
                try database.disableSync()
                syncsData = false
            }
            if activity?.person != person {
                activity = try ActivityStore(database: database, person: person, device: device)
            }
        } catch {
            throw .store(error)
        }
    }

    /// The device values of a feed's sync position, emptied (``ActivityStore/sync(through:now:)``
    /// reads an empty one as none).
    static let forgottenFeedPosition: [String: [UInt8]] = ["feed.cursor": [], "feed.sent": []]

    /// Signs out, from any screen: the server ends the session (when the app holds one), then the
    /// device forgets who was signed in and closes the feed. The person's goals stay.
    ///
    /// - Throws: ``RitualAppError``: `service` when the server could not end the session (the
    ///   person stays signed in: try again, or ``signOutOfThisDevice()``); `store` when the
    ///   sign-out cannot be kept.
    public func signOut() async throws(RitualAppError) {
        if let session, session.session != nil {
            do {
                try await session.signOut()
            } catch  where error.code == .sessionExpired || error.code == .signedOut {
                // The server holds the session no more: there is nothing left to end.
            } catch {
                throw .service(error)
            }
        }
        try signOutOfThisDevice()
    }

    /// Signs out on this device only, without asking the server (when it cannot be reached; the
    /// session then lapses at its expiry).
    ///
    /// - Throws: ``RitualAppError/store(_:)`` when the sign-out cannot be kept.
    public func signOutOfThisDevice() throws(RitualAppError) {
        var values = AuthStore.values(flow: .signedOut, person: nil)
        values.merge(Self.forgottenFeedPosition) { _, forgotten in forgotten }
        do { try database.setDeviceValues(values) } catch { throw .store(error) }
        session?.hold(nil)
        session = nil
        activity = nil
    }

    /// Deletes the account, from any screen: the server erases the person's data (AUTH-42), then
    /// the device erases its own copy (``RitualDatabase/eraseAll()``) and is signed out.
    ///
    /// - Throws: ``RitualAppError``: `service` with `signed_out` without a session, or the
    ///   server's refusal (the account and the device's data are then as they were); `store`
    ///   when the device's copy cannot be erased after the account was.
    public func deleteAccount() async throws(RitualAppError) {
        guard let session, session.session != nil else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "delete-account"))
        }
        do {
            _ = try await session.call(
                "delete-account", ProtocolMessage("DeleteAccountRequest").with("confirmed", .bool(true)))
        } catch {
            throw .service(error)
        }
        session.hold(nil)
        self.session = nil
        activity = nil
        syncsData = false
        do { try database.eraseAll() } catch { throw .store(error) }
    }

    // MARK: Changes that span stores

    /// Adds a goal, its reminders with it; the first one made moves the app past the welcome.
    ///
    /// - Throws: ``GoalStoreError``: `invalid` with every issue of the draft, or `store`.
    @discardableResult
    public func addGoal(_ draft: GoalDraft, at instant: Instant = .now) throws(GoalStoreError) -> Goal {
        try goals.add(draft, at: instant)
    }

    /// Moves every store to the Day and time `now` (the app calls this when it comes to the
    /// foreground, and when a new Day begins): Today and the Overview as of that Day, and the
    /// reminders the clock has passed dropped.
    public func refresh(now: Instant = .now) {
        reminders.refresh(now: now)
    }

    /// Syncs the person's own data with their other devices when this device does
    /// (``syncData(now:progress:)``), then publishes the person's items as of `now` and exchanges
    /// the feed's writes with the server through the session (FEED-22 ... FEED-29).
    ///
    /// - Throws: ``RitualAppError``: `service` with `signed_out` without a session, `activity`
    ///   with the feed's or the server's refusal.
    public func sync(now: Instant = .now) async throws(RitualAppError) {
        guard let session, let activity, session.session != nil else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "relay"))
        }
        if syncsData { try await syncData(now: now) }
        do {
            try activity.publish(now: now)
            try await activity.sync(through: session.relayTransport, now: now)
        } catch {
            throw .activity(error)
        }
    }

    // MARK: The person's own data on every device (Spec/sync.md)

    /// Turns on sync of the person's own data on their first device, with a new secret (or
    /// `secret`): show its ``RecoveryKey/words`` to the person once, to keep; they restore
    /// everything on a new device if every device is lost. The data so far goes to the server at
    /// the next sync, sealed: the server never sees the secret, nor anything it protects.
    ///
    /// - Returns: the secret.
    /// - Throws: ``RitualAppError``: `service` with `signed_out` when nobody is signed in; `store`.
    @discardableResult
    public func startSync(secret: RecoveryKey = .random(), now: Instant = .now) throws(RitualAppError) -> RecoveryKey {
        guard let person = account else {
            throw .service(ServiceFailure(.signedOut, "sign in before turning sync on", call: "sync-push"))
        }
        do { try database.enableSync(secret: secret, person: person, device: device, now: now) } catch {
            throw .store(error)
        }
        syncsData = true
        return secret
    }

    /// Restores the person's data on a new device from their recovery words, then syncs; on a
    /// device whose secret store lost the sync secret (``syncFailure`` says so from launch), the
    /// words give it back and the device goes on where it was.
    ///
    /// - Throws: ``RitualAppError``: `bundle` with `invalid_recovery_key` for words that do not
    ///   read; what ``startSync(secret:now:)`` and ``syncData(now:progress:)`` throw.
    public func restoreSync(
        words: String, now: Instant = .now, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws(RitualAppError) {
        let secret: RecoveryKey
        do { secret = try RecoveryKey(words: words) } catch { throw .bundle(error) }
        let held: DeviceSync?
        do { held = try database.sync } catch { throw .store(error) }
        if let held, !held.hasSecret {
            // The secret store lost the secret while the database syncs: the words give it back,
            // and the device goes on where it was.
            do { try database.restoreSyncSecret(secret) } catch { throw Self.syncFailure(error, call: "sync-pull") }
            syncFailure = nil
        } else {
            try startSync(secret: secret, now: now)
        }
        try await syncData(now: now, progress: progress)
    }

    /// Shows a pairing code on this device (SYNC-12, SYNC-13): the secret is sealed under the
    /// code's key and left at the server for ten minutes, for one taking; the person types the code
    /// on the new device (``pair(code:now:progress:)``).
    ///
    /// - Returns: the code to show.
    /// - Throws: ``RitualAppError``: `service` (signed out, or the server's refusal:
    ///   `sync_pairing_limit` while four codes wait); `store` when sync is off on this device.
    public func offerPairing() async throws(RitualAppError) -> PairingCode {
        guard let session else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "sync-pair-offer"))
        }
        let held: DeviceSync?
        do { held = try database.sync } catch { throw .store(error) }
        guard let sync = held else {
            throw .store(StoreError(.refused, "sync is not turned on on this device", path: database.path))
        }
        let secret: RecoveryKey
        do { secret = try sync.syncSecret() } catch { throw .store(error) }
        do { return try await session.offerPairing(of: secret) } catch { throw .service(error) }
    }

    /// Pairs this new device with the code shown on one of the person's devices, then restores
    /// their data here (``syncData(now:progress:)``, with `progress` after every page).
    ///
    /// - Throws: ``RitualAppError``: `sync` with `invalid_pairing_code` or `sync_pairing_tampered`;
    ///   `service` with `sync_pairing_not_found` (typed already, expired or mistyped); what
    ///   ``syncData(now:progress:)`` throws.
    public func pair(
        code text: String, now: Instant = .now, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws(RitualAppError) {
        guard let session else {
            throw .service(ServiceFailure(.signedOut, "sign in before pairing", call: "sync-pair-take"))
        }
        let secret: RecoveryKey
        do {
            secret = try await session.takePairing(code: text)
        } catch {
            throw Self.syncFailure(error, call: "sync-pair-take")
        }
        try startSync(secret: secret, now: now)
        try await syncData(now: now, progress: progress)
    }

    /// One round of sync of the person's own data (Spec/sync.md): this device's changes pushed,
    /// the others' pulled and merged page by page, each page kept before the next; ``syncProgress``
    /// and `progress` hear after every page.
    ///
    /// - Throws: ``RitualAppError``: `service` (signed out, or the server's refusal); `sync` for a
    ///   page this device refused or a server's refusal of a sync code; `store`; `cancelled`.
    public func syncData(now: Instant = .now, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in })
        async throws(RitualAppError)
    {
        guard let session, session.session != nil else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "sync-pull"))
        }
        syncProgress = SyncProgress()
        defer { syncProgress = nil }
        let database = database
        do {
            try await Self.syncData(database, through: session.syncTransport, now: now) { [weak self] seen in
                progress(seen)
                Task { @MainActor in if self?.syncProgress != nil { self?.syncProgress = seen } }
            }
            syncFailure = nil
        } catch {
            syncFailure = error
            throw error
        }
    }

    /// The database's sync off the main actor, its failures typed.
    nonisolated private static func syncData(
        _ database: RitualDatabase, through transport: any SyncTransport, now: Instant,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(RitualAppError) {
        do {
            _ = try await database.syncData(through: transport, now: now, progress: progress)
        } catch {
            throw syncFailure(error, call: "sync-pull")
        }
    }

    /// A sync's failure, typed: a page the reader refused or a server's refusal of a sync code as
    /// `sync`, the store's and the server's other refusals as theirs, a cancellation as `cancelled`.
    nonisolated private static func syncFailure(_ error: any Error, call: String) -> RitualAppError {
        switch error {
        case let error as StoreError:
            if let refusal = error.refusal as? SyncError { return .sync(refusal) }
            return .store(error)
        case let error as SyncError: return .sync(error)
        case let error as ServiceFailure: return .service(error)
        case is CancellationError: return .cancelled
        default: return .service(ServiceFailure(.network, "\(error)", call: call))
        }
    }

    /// Starts a background round of data sync, unless one runs: what a change on this device
    /// does, so that it reaches the others without the app asking.
    private func scheduleDataSync() {
        guard syncsData, session?.session != nil, background == nil else { return }
        background = Task { [weak self] in
            do { try await self?.syncData() } catch {}
            self?.background = nil
        }
    }

    /// Waits for the background round of data sync that is running, if any.
    public func backgroundSyncFinished() async {
        await background?.value
    }

    // MARK: Data in and out

    /// Exports everything the person has to `path` as a bundle, plain or encrypted: the profile,
    /// goals and check-ins, and the signed-in person's social data (BUNDLE-27). The file is
    /// written atomically when the bundle is whole; `progress` hears after every chunk, on a
    /// background thread. Cancelling the task stops the export and leaves no file.
    ///
    /// - Returns: the file's size in bytes.
    /// - Throws: ``RitualAppError``: `bundle` with `cancelled` when the task was cancelled, or the
    ///   envelope's error; `store` when the data cannot be read or the file written.
    @discardableResult
    public func export(
        to path: String, protection: BundleProtection = .none, now: Instant = .now,
        progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }
    ) async throws(RitualAppError) -> Int {
        let data: DataSet
        do { data = try database.data } catch { throw .store(error) }
        let social = activity.map { SocialData(of: $0.person.rawValue, in: $0.replica) }
        let options = BundleOptions(createdAt: now, deviceID: device)
        return try await Self.write(data, social: social, options: options, protection, to: path, progress: progress)
    }

    /// Writes the bundle off the main actor.
    nonisolated private static func write(
        _ data: DataSet, social: SocialData?, options: BundleOptions, _ protection: BundleProtection, to path: String,
        progress: @escaping @Sendable (ExportProgress) -> Void
    ) async throws(RitualAppError) -> Int {
        var sealer: EnvelopeSealer?
        if case .passphrase(let passphrase, let key, let kdf) = protection {
            do { sealer = try EnvelopeSealer(passphrase: passphrase, recoveryKey: key, kdf: kdf) } catch {
                throw .bundle(error)
            }
        }
        let cancelled = BundleError(.cancelled, .stream, at: 0, "the export was cancelled")
        var file: [UInt8] = []
        var shown = ExportProgress(frames: 0, totalFrames: 0, bytes: 0)
        do {
            try BundleWriter.write(
                data, social: social, options: options,
                to: { (chunk) throws(BundleError) in
                    if Task.isCancelled { throw cancelled }
                    if var open = sealer {
                        file += try open.seal(chunk)
                        sealer = open
                    } else {
                        file += chunk
                    }
                    shown.bytes = file.count
                    progress(shown)
                },
                progress: { written, total in
                    shown.frames = written
                    shown.totalFrames = total
                })
            if var open = sealer { file += try open.finish() }
        } catch let error as BundleError {
            throw .bundle(error)
        } catch {
            throw .bundle(BundleError(.readFailed, .stream, at: 0, "the export failed: \(error)"))
        }
        if Task.isCancelled { throw .bundle(cancelled) }
        do { try AtomicFile.write(file, to: path) } catch { throw .store(error) }
        shown.bytes = file.count
        progress(shown)
        return file.count
    }

    /// Imports the bundle at `path`, plain or encrypted, all or nothing (BUNDLE-19): merged into
    /// the person's data (BUNDLE-21), and its social data into the feed when it is the signed-in
    /// person's. `progress` hears after every chunk, on a background thread. Cancelling the task
    /// stops the import and changes nothing.
    ///
    /// - Parameter secret: the passphrase or recovery key of an encrypted bundle
    ///   (``BundleSecret/init(typed:)`` classes what a person typed).
    /// - Returns: the import's summary and what it changed.
    /// - Throws: ``RitualAppError``: `encrypted` for an encrypted bundle without `secret`;
    ///   `bundle` with what reading or opening found (`cancelled` when the task was cancelled);
    ///   `store` when the file cannot be read or the database written. Nothing changed then.
    @discardableResult
    public func importBundle(
        from path: String, secret: BundleSecret? = nil,
        progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }
    ) async throws(RitualAppError) -> ImportResult {
        let result = try await Self.read(path, secret: secret, into: database, progress: progress)
        if let social = result.social, let activity, social.person == activity.person.rawValue {
            do { try database.recordFeed(social.registers) } catch { throw .store(error) }
        }
        return result
    }

    /// Reads and imports the bundle off the main actor.
    nonisolated private static func read(
        _ path: String, secret: BundleSecret?, into database: RitualDatabase,
        progress: @escaping @Sendable (ImportProgress) -> Void
    ) async throws(RitualAppError) -> ImportResult {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            throw .store(StoreError(.cannotOpen, "the bundle cannot be opened: \(error)", path: path))
        }
        defer {
            // A handle opened for reading: closing it cannot lose anything.
            do { try handle.close() } catch {}
        }
        let size: UInt64
        let head: [UInt8]
        do {
            size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            head = [UInt8](try handle.read(upToCount: BundleEnvelope.magic.count) ?? Data())
            try handle.seek(toOffset: 0)
        } catch {
            throw .store(StoreError(.cannotOpen, "the bundle cannot be read: \(error)", path: path))
        }
        var opener: EnvelopeOpener?
        if BundleEnvelope.isEncrypted(head: head) {
            guard let secret else { throw .encrypted(path: path) }
            opener = EnvelopeOpener(secret: secret)
        }
        // The envelope's own error, kept whole: the import sees only that reading failed.
        var opened: BundleError?
        var ended = false
        func next() throws -> [UInt8]? {
            while !ended {
                guard let data = try handle.read(upToCount: 64 * 1024), !data.isEmpty else {
                    ended = true
                    guard var open = opener else { return nil }
                    do { return try open.finish() } catch {
                        opened = error
                        throw error
                    }
                }
                guard var open = opener else { return [UInt8](data) }
                let plain: [UInt8]
                do { plain = try open.open([UInt8](data)) } catch {
                    opened = error
                    throw error
                }
                opener = open
                if !plain.isEmpty { return plain }
            }
            return nil
        }
        do {
            // The plain bundle's size when it is plain; an envelope's overhead is small beside it.
            return try database.importBundle(reading: next, totalBytes: Int(clamping: size)) { step in
                progress(step)
                return !Task.isCancelled
            }
        } catch {
            if let opened { throw .bundle(opened) }
            if let refusal = error.refusal as? BundleError { throw .bundle(refusal) }
            throw .store(error)
        }
    }
}
