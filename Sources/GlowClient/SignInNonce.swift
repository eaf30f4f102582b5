import GlowModel

/// A single-use nonce the server issued for a provider's sign-in (AUTH-46), and until when it
/// works.
public struct SignInNonce: Hashable, Sendable {
    /// The nonce, given to the provider (Apple's hashed) before it issues the ID token.
    public let nonce: String
    /// When the server forgets it.
    public let expiry: Instant
}

/// The providers a person signs in with besides a password (AUTH-22).
public enum SignInProvider: String, Hashable, Sendable, CaseIterable {
    /// Sign in with Apple.
    case apple
    /// Sign in with Google.
    case google
}
