import Foundation
import GlowClient
import GlowStorage

/// A session as the device keeps it in its ``SecretStore`` (``SecretName/session``): the server's
/// address and the session's tokens, as JSON, so a relaunch (or the next command of a tool) is
/// signed in as before without a sign-in.
package struct KeptSession: Codable, Hashable, Sendable {
    /// The server the session is with.
    package let server: URL
    /// The account, the session's id and its tokens.
    package let session: ClientSession

    package init(server: URL, session: ClientSession) {
        self.server = server
        self.session = session
    }
}

extension SecretStore {
    /// The session kept, or nil when none is.
    ///
    /// - Throws: ``StoreError``: `corrupt` naming the entry when it does not read; the store's
    ///   errors.
    package func keptSession() throws(StoreError) -> KeptSession? {
        guard let bytes = try secret(.session) else { return nil }
        do {
            return try JSONDecoder().decode(KeptSession.self, from: Data(bytes))
        } catch {
            throw .secretCorrupt(.session, in: self, "\(error)")
        }
    }

    /// Keeps `session` with `server`, or forgets the session kept when it is nil.
    ///
    /// - Throws: ``StoreError``: the store's errors; what it kept is then as it was.
    package func keep(_ session: ClientSession?, server: URL) throws(StoreError) {
        guard let session else { return try removeSecret(.session) }
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(KeptSession(server: server, session: session))
        } catch {
            preconditionFailure("a session always encodes: \(error)")
        }
        try setSecret([UInt8](bytes), for: .session)
    }
}
