import GlowModel
import GlowStorage
import GlowThemes

/// Everything an app's screens read, over one database (issue 17): the goal, profile, theme and
/// auth stores, and the activity store of whoever is signed in. The route follows from the auth
/// and goal stores: a sign-in goes to the welcome or, for a person with goals, to the main
/// screen; the first goal made on the welcome screen goes on to the main screen.
@MainActor
public final class RitualApp {
    /// The durable store under everything.
    public let database: RitualDatabase
    /// Goals, Today and the Overview.
    public let goals: GoalStore
    /// The profile.
    public let profile: ProfileStore
    /// The theme and palette.
    public let theme: ThemeStore
    /// The sign-in flow.
    public let auth: AuthStore
    /// The Glow feed of the signed-in person, or nil when nobody is.
    public private(set) var activity: ActivityStore?

    private let device: DeviceID

    /// The app over the database at `path` on the device `device`.
    public init(path: String, device: DeviceID, mode: Mode = .light, now: Instant = .now) throws(StoreError) {
        database = try RitualDatabase(path: path)
        self.device = device
        goals = try GoalStore(database: database, device: device, now: now)
        profile = try ProfileStore(database: database)
        theme = ThemeStore(profiles: profile, mode: mode)
        auth = try AuthStore(database: database)
        activity = try auth.account.map { (person) throws(StoreError) in
            try ActivityStore(database: database, person: person, device: device.description)
        }
        if auth.flow == .welcome && !goals.rows.isEmpty { try? auth.createdFirstGoal() }
    }

    /// Where the app is. A person on the welcome screen who has a goal is past it, whether or not
    /// the flow's move was stored (a failed write after the goal's own, or a file from a crash
    /// between them): the route follows the goals.
    public var route: AppRoute {
        if auth.flow == .welcome && !goals.rows.isEmpty { return .main(auth.tab) }
        return auth.route
    }

    /// A sign-in succeeded for `account`.
    public func signedIn(account: String) throws(AuthStoreError) {
        try auth.signedIn(account: account, hasGoals: !goals.rows.isEmpty)
        do {
            activity = try ActivityStore(database: database, person: account, device: device.description)
        } catch {
            throw .store(error)
        }
    }

    /// Adds a goal; the first one made on the welcome screen moves the app to the main screen.
    @discardableResult
    public func addGoal(_ draft: GoalDraft, at instant: Instant = .now) throws(GoalStoreError) -> Goal {
        let goal = try goals.add(draft, at: instant)
        // The goal is kept whatever happens next; should the flow's move not be stored, the
        // route still moves on (``route``) and the next goal, or the next start, stores it.
        if auth.flow == .welcome { try? auth.createdFirstGoal() }
        return goal
    }

    /// Signs out: back to the signed-out screen, the feed closed.
    public func signOut() throws(AuthStoreError) {
        try auth.signOut()
        activity = nil
    }
}
