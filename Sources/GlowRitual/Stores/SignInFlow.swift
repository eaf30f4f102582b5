import GlowCore

/// The app's sign-in flow (AUTH-18 ... AUTH-21): a value the app stores and restores, moved only
/// by the events of AUTH-19.
public enum SignInFlow: String, CaseIterable, Hashable, Sendable, Codable {
    /// Nobody signed in: the login.
    case signedOut
    /// Onboarding, first step: what the app is.
    case pitch
    /// Onboarding, second step: email, Apple or Google.
    case signInChoices
    /// Signed in, no goals yet.
    case welcome
    /// Signed in: the tabs.
    case main

    /// What moves the flow.
    public enum Event: Hashable, Sendable {
        /// The login's "get started".
        case startOnboarding
        /// On from the pitch to the sign-in choices.
        case `continue`
        /// Back from the sign-in choices to the pitch.
        case back
        /// A sign-in succeeded; `hasGoals` when the person already has goals.
        case signedIn(hasGoals: Bool)
        /// The first goal was made on the welcome.
        case createdFirstGoal
        /// The person signed out.
        case signOut
        /// The account was deleted.
        case deleteAccount
        /// Onboarding was left for the login.
        case cancelOnboarding

        /// The event's name, as the spec and the corpus spell it.
        public var name: String {
            switch self {
            case .startOnboarding: "startOnboarding"
            case .continue: "continue"
            case .back: "back"
            case .signedIn: "signedIn"
            case .createdFirstGoal: "createdFirstGoal"
            case .signOut: "signOut"
            case .deleteAccount: "deleteAccount"
            case .cancelOnboarding: "cancelOnboarding"
            }
        }
    }

    /// The state after `event` (AUTH-19).
    ///
    /// - Throws: ``SignInFlowError/Code/invalidTransition`` for a pair the table does not have
    ///   (AUTH-20); the flow is unchanged.
    public func after(_ event: Event) throws(SignInFlowError) -> SignInFlow {
        switch (self, event) {
        case (.signedOut, .startOnboarding): return .pitch
        case (.pitch, .continue): return .signInChoices
        case (.signInChoices, .back): return .pitch
        case (.signInChoices, .signedIn(let hasGoals)): return hasGoals ? .main : .welcome
        case (.welcome, .createdFirstGoal): return .main
        case (.welcome, .signOut), (.main, .signOut), (.welcome, .deleteAccount), (.main, .deleteAccount):
            return .signedOut
        case (.pitch, .cancelOnboarding), (.signInChoices, .cancelOnboarding): return .signedOut
        default:
            throw SignInFlowError(
                .invalidTransition, "\(event.name) is not a move from \(rawValue)", rule: "AUTH-20")
        }
    }

    /// Moves the flow by `event`, or leaves it as it was and throws (AUTH-20).
    public mutating func apply(_ event: Event) throws(SignInFlowError) {
        self = try after(event)
    }

    private enum CodingKeys: String, CodingKey {
        case state
    }

    /// Restores `{"state": NAME}` (AUTH-21).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decodeIfPresent(String.self, forKey: .state)
        guard let name, let state = SignInFlow(rawValue: name) else {
            throw SignInFlowError(
                .invalidState, "a stored sign-in state of \(name.map { "'\($0)'" } ?? "no name") is none of AUTH-18's",
                rule: "AUTH-21")
        }
        self = state
    }

    /// Stores `{"state": NAME}` (AUTH-21).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rawValue, forKey: .state)
    }
}

/// Why the sign-in flow did not move, or could not be restored (AUTH-20, AUTH-21). The flow is
/// the app's, so its error is the app's too: no server module is needed to show it.
public struct SignInFlowError: CodedError {
    /// A stable code, as the corpus spells it.
    public typealias Code = ErrorCode<SignInFlowError>

    /// What kind of problem this is.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The spec rule that was broken.
    public let rule: String?

    package init(_ code: Code, _ message: String, rule: String) {
        self.code = code
        self.message = message
        self.rule = rule
    }

    /// An event name AUTH-19 does not have (AUTH-20).
    public static func unknownEvent(_ name: String) -> SignInFlowError {
        SignInFlowError(.invalidTransition, "'\(name)' is not an event of the sign-in flow", rule: "AUTH-20")
    }
}

extension ErrorCode where Domain == SignInFlowError {
    /// A move the flow's table does not have from where it is (AUTH-20).
    public static var invalidTransition: Self { Self("invalid_transition") }
    /// A stored state that is none of AUTH-18's (AUTH-21).
    public static var invalidState: Self { Self("invalid_state") }
}
