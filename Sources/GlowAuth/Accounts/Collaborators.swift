import Foundation

/// The time the account service goes by, in seconds since 1970: the system's, or a test's.
public protocol AuthClock: Sendable {
    /// The time now, in seconds since 1970.
    func now() -> Double
}

/// The system's clock.
public struct SystemAuthClock: AuthClock {
    /// The system's clock.
    public init() {}
    /// Now, in seconds since 1970.
    public func now() -> Double { Date().timeIntervalSince1970 }
}

/// An e-mail the account service asks to be sent. Its description names the kind and the
/// recipient, never a token.
public enum AuthMail: Sendable, Hashable, CustomStringConvertible {
    /// "Confirm your address": the link carries `token` (AUTH-36).
    case confirmSignUp(to: String, token: SecretToken)
    /// "Someone tried to sign up with your address; sign in or reset your password" (AUTH-36).
    case alreadyRegistered(to: String)
    /// "Reset your password": the link carries `token` (AUTH-40).
    case passwordReset(to: String, token: SecretToken)
    /// "Your password was changed" (AUTH-40, AUTH-41).
    case passwordChanged(to: String)
    /// "Your account was deleted" (AUTH-42).
    case accountDeleted(to: String)
    /// "Confirm your new address": the link carries `token`, confirmed from a session (AUTH-49).
    case confirmEmailChange(to: String, token: SecretToken)
    /// "Your account moved to another address; not you? Undo": the link carries `token` (AUTH-49).
    case emailChanged(to: String, token: SecretToken)

    /// The address it goes to.
    public var recipient: String {
        switch self {
        case .confirmSignUp(let to, _), .alreadyRegistered(let to), .passwordReset(let to, _), .passwordChanged(let to),
            .accountDeleted(let to), .confirmEmailChange(let to, _), .emailChanged(let to, _):
            to
        }
    }

    /// The kind, as the corpus spells it.
    public var kind: String {
        switch self {
        case .confirmSignUp: "confirmSignUp"
        case .alreadyRegistered: "alreadyRegistered"
        case .passwordReset: "passwordReset"
        case .passwordChanged: "passwordChanged"
        case .accountDeleted: "accountDeleted"
        case .confirmEmailChange: "confirmEmailChange"
        case .emailChanged: "emailChanged"
        }
    }

    /// The token the mail carries, if any.
    public var token: SecretToken? {
        switch self {
        case .confirmSignUp(_, let token), .passwordReset(_, let token), .confirmEmailChange(_, let token),
            .emailChanged(_, let token):
            token
        default: nil
        }
    }

    /// The kind and the recipient; never a token.
    public var description: String { "\(kind) to \(recipient)" }
}

/// Sends the service's e-mails. A server queues them; it must not make the caller wait, or
/// the time a request takes would tell whether an address has an account.
public protocol AuthMailer: Sendable {
    /// Queues `mail` to be sent, without waiting for it.
    func send(_ mail: AuthMail)
}

/// Erases a person's data (goals, check-ins, feed) when their account is deleted (AUTH-42).
public protocol AccountEraser: Sendable {
    /// Erases everything the person's account holds beyond the account's own records.
    func eraseData(of account: AccountID) throws
}

/// Revokes a provider's refresh token: Sign in with Apple's `/auth/revoke` (AUTH-42).
public protocol ProviderTokenRevoker: Sendable {
    /// Revokes `provider`'s refresh `token`.
    func revoke(_ token: SecretToken, provider: String) async throws
}
