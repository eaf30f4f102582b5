import Foundation

/// A link the server mails (SERVER-8), read: what it asks the app to do and the token it carries.
/// The links start with the server's link base (`glowritual://` by default, `glow-server
/// --link-base`), so the action is the URL's last path component, or its host when it has no path
/// (`glowritual://confirm-sign-up?token=…`); the token is its `token` query item.
///
/// An app opens each with the typed call it names: ``ServiceClient/confirmSignUp(token:password:device:)``,
/// ``ServiceClient/confirmPasswordReset(token:newPassword:)``,
/// ``SessionKeeper/confirmEmailChange(token:)`` and ``ServiceClient/undoEmailChange(token:)``.
public enum ServiceLink: Hashable, Sendable {
    /// A sign-up's confirmation (`confirm-sign-up`), confirmed with the password chosen.
    case confirmSignUp(token: String)
    /// A password reset (`reset-password`): the new password is set with it.
    case resetPassword(token: String)
    /// A new address's confirmation (`confirm-email-change`), by a session of the account.
    case confirmEmailChange(token: String)
    /// The old address's undoing of a change (`undo-email-change`).
    case undoEmailChange(token: String)

    /// The actions of the links, as mailed.
    public static let actions = ["confirm-sign-up", "reset-password", "confirm-email-change", "undo-email-change"]

    /// Reads `url`, a link the server mailed.
    ///
    /// - Throws: ``ServiceFailure`` `invalid_link` naming what is wrong: no action, an action the
    ///   server does not mail, no token, an empty one, or two.
    public init(url: URL) throws(ServiceFailure) {
        func invalid(_ problem: String) -> ServiceFailure {
            ServiceFailure(.invalidLink, "\(url.absoluteString.prefix(200)): \(problem)", call: "link")
        }
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw invalid("it is not a link")
        }
        let path = parts.path.split(separator: "/", omittingEmptySubsequences: true)
        guard let action = path.last.map(String.init) ?? parts.host, !action.isEmpty else {
            throw invalid("it names no action")
        }
        let tokens = (parts.queryItems ?? []).filter { $0.name == "token" }
        guard tokens.count <= 1 else { throw invalid("it carries \(tokens.count) tokens") }
        guard let token = tokens.first?.value, !token.isEmpty else { throw invalid("it carries no token") }
        switch action {
        case "confirm-sign-up": self = .confirmSignUp(token: token)
        case "reset-password": self = .resetPassword(token: token)
        case "confirm-email-change": self = .confirmEmailChange(token: token)
        case "undo-email-change": self = .undoEmailChange(token: token)
        default:
            throw invalid(
                "'\(action.prefix(60))' is not a link the server mails (\(Self.actions.joined(separator: ", ")))")
        }
    }

    /// The token the link carries.
    public var token: String {
        switch self {
        case .confirmSignUp(let token), .resetPassword(let token), .confirmEmailChange(let token),
            .undoEmailChange(let token):
            token
        }
    }
}
