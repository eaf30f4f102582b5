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

/// The app: one object an app makes at launch and hands to its views (issue 45). It holds the
/// person's durable database and every store over it: goals with Today, the Overview, streaks
/// and strength; the profile and theme; reminders kept current by the incremental keeper; the
/// Glow feed of whoever is signed in; and the account. Every change is committed, on the
/// database's executor, before its method returns, and every store shows every committed change,
/// another process's included (the app watches the file), with no `refresh()` to call.
///
/// The app object lives on the main actor, and the main actor never waits for the file (issue 58):
/// a change hands its work to the database's executor and awaits it, so the screen keeps drawing
/// while a commit waits for another process's lock; work over the whole data set (evaluating every
/// goal, planning reminders, sealing for sync, publishing the feed, export and import) runs off
/// the main actor, which gets the results and the changes.
///
/// Sign-in, sign-out and account deletion work from any screen. The session a sign-in gives is
/// kept in the app's ``SecretStore`` (never the database), so a relaunch is signed in already;
/// who is signed in is the session's person, so being signed in without a session, or holding
/// one without being signed in, cannot be written. Onboarding is the app's own business: ``auth``
/// offers AUTH-19's flow as an optional helper for an app that shows those screens, and ``route``
/// follows it.
///
/// Use ``Tracker`` instead for data in memory only (a preview, a test, a server computing a
/// person's answers): the app object is the durable, observable app state on top of it.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
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
    /// The onboarding flow (an optional helper; see the type's notes).
    public let auth: AuthStore
    /// The Glow feed of the signed-in person, or nil when nobody is.
    public internal(set) var activity: ActivityStore?
    /// The session with the server of the signed-in person, or nil when nobody is signed in: made
    /// by ``signIn(_:client:)``, restored from the secret store at launch, renewed when its access
    /// token expires, and gone once it ends (sign-out, or the server refused to renew it).
    public internal(set) var session: SessionKeeper?
    /// Why the person is signed out though they were signed in: the session kept ended, expired,
    /// is missing from the secret store or does not read, or a renewed one could not be kept.
    /// Nil once they sign in again.
    public internal(set) var sessionFailure: RitualAppError?
    /// The last failure to read another process's commits, or nil; the next look tries again.
    public internal(set) var watchFailure: StoreError?

    /// The device the app runs on: its check-ins and feed writes carry it.
    public let device: DeviceID
    /// The device's secrets: the session and the sync secret.
    public var secrets: any SecretStore { database.secrets }
    /// The protection the database's files were given, where the platform has it.
    public let protection: FileProtection
    /// Whether this device syncs the person's own data with their other devices (Spec/sync.md).
    public internal(set) var syncsData = false
    /// How far the running data sync has got (a first restore shows it); nil when none runs.
    public internal(set) var syncProgress: SyncProgress?
    /// The last data sync's failure (a background one's included, and a change that could not be
    /// sent because nobody is signed in), or nil; the next change or ``sync(now:)`` tries again.
    public internal(set) var syncFailure: RitualAppError?
    @ObservationIgnored var background: Task<Void, Never>?
    /// Whether a change came while the background round ran: it runs once more.
    @ObservationIgnored var backgroundAgain = false
    /// Whether the app watches the file for other processes' commits (``pauseWatching()``).
    public internal(set) var isWatching = false
    /// Whether ``close()`` closed the app: its database refuses every read and change, `closed`.
    public internal(set) var isClosed = false
    @ObservationIgnored var watch: DatabaseObservation? = nil
    @ObservationIgnored let watchInterval: Duration
    @ObservationIgnored var observation: DatabaseObservation? = nil
    @ObservationIgnored private let heard = ChangeObservers<DatabaseChange>()

    /// The app over the database at `path` (made when missing) on the device `device`, its
    /// secrets (the session, the sync secret) in `secrets` and never in the file, as of `now`, its
    /// reminders planned `reminderDays` Days ahead (1 ... 31). The file is watched for other
    /// processes' commits: on Darwin as each is posted (notify(3)), elsewhere every `watchInterval`.
    ///
    /// An app on an Apple platform keeps its secrets in the Keychain (``KeychainSecretStore``), a
    /// program on Linux in files beside the database (``FileSecretStore/init(database:)``). The
    /// database's files (and their folder) take `protection` where the platform has such classes:
    /// by default readable once the device was unlocked after it started, as background work needs.
    ///
    /// The file is opened and read, every goal evaluated and the reminders planned off the main
    /// actor: the app awaits the object while the launch screen draws.
    ///
    /// - Throws: ``RitualAppError/store(_:)``: the database's error when it cannot be opened or
    ///   read, or `refused` with the model's `invalid_reminder` for `reminderDays` outside 1 ... 31.
    public init(
        path: String, device: DeviceID, secrets: any SecretStore, protection: FileProtection = .default,
        mode: Mode = .light, now: Instant = .now, reminderDays: Int = 7, watchInterval: Duration = .milliseconds(250)
    ) async throws(RitualAppError) {
        self.protection = protection
        self.watchInterval = watchInterval
        let database: RitualDatabase
        let latest: DatabaseChange
        let sync: DeviceSync?
        do {
            database = try await RitualDatabase(path: path, secrets: secrets)
            sync = try await database.run { (database) throws(StoreError) -> DeviceSync? in
                _ = try protection.apply(toDatabaseAt: path)
                return try database.held(\.sync)
            }
            latest = try await database.mainState()
        } catch {
            throw .store(error)
        }
        self.database = database
        self.device = device
        // The stores start from one state, on the main actor, and hear every change after it.
        goals = GoalStore(database: database, device: device, now: now, from: latest)
        profile = ProfileStore(database: database, from: latest)
        theme = ThemeStore(profiles: profile, mode: mode)
        auth = AuthStore(database: database, from: latest)
        do {
            reminders = try ReminderStore(goals: goals, database: database, days: reminderDays, from: latest)
        } catch {
            switch error {
            case .store(let error): throw .store(error)
            case .model(let error):
                throw .store(StoreError(.refused, error.description, path: path, refusal: error))
            }
        }
        syncsData = sync != nil
        // Sync is on but its secret is missing from the secret store, or does not read: said at
        // once, so the app can ask for the recovery words before a change is refused for it.
        if case .failure(let error)? = sync?.secret { syncFailure = .store(error) }
        observation = database.observeOnMain { [weak self] change in
            self?.heard.notify(change)
            // A change made on this device goes to the others in the background.
            if let changes = change.changes, !changes.isEmpty, !change.deviceValueChanged(RitualDatabase.syncKey) {
                self?.scheduleDataSync()
            }
        }
        try await restoreSession(now: now)
        await goals.lane.idle()
        await reminders.lane.idle()
        startWatching()
    }

    /// Every committed change from now on, another process's included, each after the goal,
    /// profile, theme, reminder and sign-in stores show it (the feed's own are
    /// ``ActivityStore/changes()``).
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// Where the app is: signed out (or in the onboarding helper's steps), the welcome before a
    /// first goal, or a tab of the main screen. A person with goals is past the welcome whether
    /// or not the flow's move was stored.
    public var route: AppRoute {
        guard account != nil else {
            switch auth.flow {
            case .pitch, .signInChoices: return .onboarding(auth.flow)
            case .signedOut, .welcome, .main: return .signedOut
            }
        }
        if auth.flow != .main && goals.rows.isEmpty { return .welcome }
        return .main(auth.tab)
    }

    /// The signed-in person: the session's, or nil.
    public var account: PersonID? { session?.account }

    // MARK: Changes that span stores

    /// Adds a goal, its reminders with it; the first one made moves the app past the welcome.
    ///
    /// - Throws: ``GoalStoreError``: `invalid` with every issue of the draft, or `store`.
    @discardableResult
    public func addGoal(_ draft: GoalDraft, at instant: Instant = .now) async throws(GoalStoreError) -> Goal {
        try await goals.add(draft, at: instant)
    }

    /// Moves every store to the Day and time `now` (the app calls this when it comes to the
    /// foreground, and when a new Day begins): Today and the Overview as of that Day, and the
    /// reminders the clock has passed dropped; a new Day's evaluations and plan are made off the
    /// main actor.
    public func refresh(now: Instant = .now) async {
        await reminders.refresh(now: now)
    }
}
