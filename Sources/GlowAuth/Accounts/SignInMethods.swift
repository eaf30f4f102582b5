import GlowCrypto

/// One way to sign in, as the app's sign-in choices offer them (email, Apple, Google): each
/// carries what its provider handed the app and signs in through the account service, so the
/// app's sign-in screen needs one code path for all three.
public protocol SignInMethod: Sendable {
    /// `email`, `apple` or `google`: the provider, as the service and the flow name it.
    var provider: String { get }
    /// Signs in through `service`.
    func signIn(with service: AccountService) async throws(AuthError) -> Session
}

/// Sign-in with an e-mail address and a password (AUTH-39).
public struct EmailSignIn: SignInMethod, CustomStringConvertible, CustomReflectable {
    /// The address typed.
    public let email: String
    let password: String
    /// The client's throttling key: its IP address on a server, a device id in an app.
    public let clientKey: String

    /// A sign-in with `email` and `password` from the client `clientKey`.
    public init(email: String, password: String, clientKey: String) {
        self.email = email
        self.password = password
        self.clientKey = clientKey
    }

    /// `email`.
    public var provider: String { "email" }

    /// Signs in through `service`.
    public func signIn(with service: AccountService) async throws(AuthError) -> Session {
        try service.signIn(email: email, password: password, clientKey: clientKey)
    }

    /// Names the address, never the password.
    public var description: String { "EmailSignIn(\(email))" }

    /// The address and the client, never the password (`dump` and debuggers read this).
    public var customMirror: Mirror { Mirror(self, children: ["email": email, "clientKey": clientKey]) }
}

/// Sign in with Apple or Google: the ID token the provider's SDK returned, the raw nonce of the
/// request (``SignInNonce``), and for Apple the refresh token the server got for the
/// authorisation code, kept to revoke at deletion (AUTH-42).
public struct ProviderSignIn: SignInMethod, CustomStringConvertible, CustomReflectable {
    /// `apple` or `google`.
    public let provider: String
    let idToken: String
    let nonce: SignInNonce
    let providerRefreshToken: SecretToken?

    /// Sign in with Apple.
    public static func apple(idToken: String, nonce: SignInNonce, refreshToken: SecretToken? = nil) -> ProviderSignIn {
        ProviderSignIn(provider: "apple", idToken: idToken, nonce: nonce, providerRefreshToken: refreshToken)
    }

    /// Sign in with Google.
    public static func google(idToken: String, nonce: SignInNonce) -> ProviderSignIn {
        ProviderSignIn(provider: "google", idToken: idToken, nonce: nonce, providerRefreshToken: nil)
    }

    /// Signs in through `service`.
    public func signIn(with service: AccountService) async throws(AuthError) -> Session {
        try await service.signIn(
            provider: provider, idToken: idToken, nonce: nonce.raw.reveal(), providerRefreshToken: providerRefreshToken)
    }

    /// Names the provider, never the token.
    public var description: String { "ProviderSignIn(\(provider))" }

    /// The provider only, never the ID token, the nonce or a refresh token.
    public var customMirror: Mirror { Mirror(self, children: ["provider": provider]) }
}

/// The nonce of one provider sign-in (AUTH-32, AUTH-46): one the account service issued, which
/// the app keeps, and the form it puts in the provider's request: Apple's request carries the
/// SHA-256 of the raw nonce (and the token then carries that hash), Google's the raw nonce itself.
/// A nonce the app made itself is refused: only an issued one, used once, stops a captured ID
/// token from signing in again.
public struct SignInNonce: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The raw nonce, to keep until the token comes back.
    public let raw: SecretToken

    /// A nonce issued by `service` to `clientKey` (in-process; a server's app asks it over the
    /// network and uses ``init(raw:)``).
    ///
    /// - Throws: ``AuthError/Code/throttled``; ``AuthError/Code/storageFailed``.
    public init(issuedBy service: AccountService, clientKey: String) throws(AuthError) {
        raw = SecretToken(try service.issueSignInNonce(clientKey: clientKey))
    }

    /// A nonce the service issued, as the app received or kept it (after the app was suspended
    /// during sign-in).
    public init(raw: SecretToken) {
        self.raw = raw
    }

    /// What goes into `provider`'s request: the lowercase hexadecimal SHA-256 of the raw nonce
    /// for a provider that hashes it, the raw nonce otherwise.
    public func requestValue(for provider: IdentityProvider) -> String {
        provider.hashesNonce ? Crypto.hex(Crypto.sha256(Array(raw.reveal().utf8))) : raw.reveal()
    }

    /// Never the nonce.
    public var description: String { "SignInNonce(redacted)" }

    /// Nothing: the nonce is a secret until its token comes back.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
