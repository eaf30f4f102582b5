import GlowModel
import GlowStorage
import Observation

/// The tabs of the main screen.
public enum MainTab: String, CaseIterable, Hashable, Sendable {
    /// Today, the Overview, Inspiration and the Glow feed.
    case today, overview, inspiration, glow
}

/// Where the app is (issue 17): signed out, in onboarding, welcomed before a first goal, or on
/// a tab of the main screen.
public enum AppRoute: Hashable, Sendable {
    /// Nobody signed in: the login.
    case signedOut
    /// A step of the onboarding helper.
    case onboarding(SignInFlow)
    /// Signed in, no goals yet: "create your first goal".
    case welcome
    /// A tab of the main screen.
    case main(MainTab)
}

/// Why the sign-in flow did not move.
public enum AuthStoreError: Error, Hashable, Sendable {
    /// The move is not one the flow has from where it is (AUTH-20).
    case flow(SignInFlowError)
    /// The new state could not be kept.
    case store(StoreError)
}

/// The sign-in flow on the device (AUTH-19, AUTH-20): its state, kept in the database so the app
/// opens where it was. The flow is an optional helper for an app that shows the onboarding
/// screens: ``RitualApp``'s sign-in, sign-out and account deletion work from any state, and set
/// the flow to where they lead; who is signed in is ``RitualApp/account``, the person of the
/// session the app keeps.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class AuthStore {
    /// The flow's state.
    public private(set) var flow: SignInFlow
    /// The person the database records as signed in, or nil: ``RitualApp/account`` (the person of
    /// the session the secret store keeps) is who is signed in.
    private(set) var account: PersonID?
    /// The main screen's tab.
    public var tab: MainTab = .today

    @ObservationIgnored private let database: RitualDatabase
    @ObservationIgnored private var observation: DatabaseObservation?
    @ObservationIgnored private let heard = ChangeObservers<DatabaseChange>()

    /// The flow as the device left it (signed out on a new device).
    ///
    /// - Throws: ``StoreError`` when the device's values cannot be read.
    public convenience init(database: RitualDatabase) async throws(StoreError) {
        self.init(database: database, from: try await database.mainState())
    }

    /// The flow as of `latest`, the state the main actor's stores were last given.
    init(database: RitualDatabase, from latest: DatabaseChange) {
        self.database = database
        (flow, account) = Self.read(latest.deviceValues["auth.flow"], latest.deviceValues["auth.account"])
        observation = database.observeOnMain { [weak self] change in
            guard let self, change.deviceValueChanged("auth.flow") || change.deviceValueChanged("auth.account")
            else { return }
            let (flow, account) = Self.read(change.deviceValues["auth.flow"], change.deviceValues["auth.account"])
            if self.flow != flow { self.flow = flow }
            if self.account != account { self.account = account }
            self.heard.notify(change)
        }
    }

    /// Every committed change to the flow or the signed-in person from now on, each after the
    /// store shows it.
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// The flow and account the device values hold: signed out and nobody when they are unset.
    private static func read(_ flow: [UInt8]?, _ account: [UInt8]?) -> (SignInFlow, PersonID?) {
        (
            flow.flatMap { SignInFlow(rawValue: String(decoding: $0, as: UTF8.self)) } ?? .signedOut,
            account.map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : PersonID($0) }
        )
    }

    /// The device values that say `person` is signed in (nil: nobody), with the flow at `flow`.
    static func values(flow: SignInFlow, person: PersonID?) -> [String: [UInt8]] {
        ["auth.flow": Array(flow.rawValue.utf8), "auth.account": Array((person?.rawValue ?? "").utf8)]
    }

    /// Where the app is.
    public var route: AppRoute {
        switch flow {
        case .signedOut: .signedOut
        case .pitch, .signInChoices: .onboarding(flow)
        case .welcome: .welcome
        case .main: .main(tab)
        }
    }

    /// Starts onboarding from the signed-out screen.
    public func startOnboarding() async throws(AuthStoreError) { try await move(.startOnboarding) }
    /// Goes on from the pitch to the sign-in choices.
    public func proceed() async throws(AuthStoreError) { try await move(.continue) }
    /// Goes back from the sign-in choices to the pitch.
    public func back() async throws(AuthStoreError) { try await move(.back) }
    /// Leaves onboarding.
    public func cancelOnboarding() async throws(AuthStoreError) { try await move(.cancelOnboarding) }

    /// The person made their first goal on the welcome screen.
    public func createdFirstGoal() async throws(AuthStoreError) { try await move(.createdFirstGoal) }

    /// One move of the flow, stored before it shows.
    private func move(_ event: SignInFlow.Event) async throws(AuthStoreError) {
        let next: SignInFlow
        do { next = try flow.after(event) } catch { throw .flow(error) }
        let values = Self.values(flow: next, person: account)
        do {
            // The store hears the committed values, and shows them, before this returns.
            try await database.runShown { (database) throws(StoreError) in try database.setDeviceValues(values) }
        } catch {
            throw .store(error)
        }
    }
}
