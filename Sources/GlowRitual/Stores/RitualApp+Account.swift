import Foundation
import GlowClient
import GlowModel
import GlowProtocol
import GlowStorage

/// The account: sign-in, the session kept in the secret store and restored at launch, sign-out and
/// deletion, from any screen.
///
/// Who is signed in is the person of the session the secret store keeps: a sign-in keeps the
/// session there first, then records the person in the database (the flow, the feed); a sign-out
/// removes it first. A crash between the two is read the same way at the next launch: a session
/// kept is a sign-in (its record in the database is completed), and none is a sign-out.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
extension RitualApp {
    /// Signs in with `session`, which `client`'s server gave (``ServiceClient/signIn(email:password:device:code:)``,
    /// a sign-up's confirmation, a provider's sign-in), from any screen: the session is kept in the
    /// secret store, so the next launch is signed in already, and every renewed pair is kept there
    /// before it is used. The flow goes to the welcome, or to the main screen for a person with
    /// goals, and their feed opens; another person's feed position and sync on this device are
    /// forgotten.
    ///
    /// - Throws: ``RitualAppError/store(_:)`` when the session or the sign-in cannot be kept;
    ///   nobody is signed in then.
    public func signIn(_ session: ClientSession, client: ServiceClient) async throws(RitualAppError) {
        let (secrets, server) = (secrets, client.base)
        do {
            try await database.run { _ throws(StoreError) in try secrets.keep(session, server: server) }
        } catch {
            throw .store(error)
        }
        try await recordSignIn(of: session.account)
        self.session = keeper(of: session, client: client)
        sessionFailure = nil
    }

    /// The session the secret store kept, restored at launch: renewed at its first call when its
    /// access token expired meanwhile. A session whose refresh token expired, one the store lost
    /// while the database says someone is signed in, or one that does not read leaves the app
    /// signed out with ``sessionFailure`` saying why, and the database as it was.
    func restoreSession(now: Instant) async throws(RitualAppError) {
        let secrets = secrets
        let kept: KeptSession?
        do {
            kept = try await database.run { _ throws(StoreError) in try secrets.keptSession() }
        } catch {
            sessionFailure = .store(error)
            return
        }
        guard let kept else {
            if let person = auth.account {
                sessionFailure = .store(
                    .secretMissing(
                        .session, in: secrets,
                        needed: "the database says \(person) is signed in on this device: sign in again"))
            }
            return
        }
        guard kept.session.refreshExpiresAt > UInt64(clamping: now.millisecondsSince1970) else {
            sessionFailure = .service(
                ServiceFailure(
                    .sessionExpired,
                    "the session kept on this device expired on \(kept.session.refreshExpiry): "
                        + "sign in again", call: "refresh", rule: "AUTH-37"))
            return
        }
        try await recordSignIn(of: kept.session.account)
        session = keeper(of: kept.session, client: ServiceClient(base: kept.server))
    }

    /// Records in the database that `person` is signed in (when it does not say so already), and
    /// opens their feed.
    private func recordSignIn(of person: PersonID) async throws(RitualAppError) {
        var values: [String: [UInt8]] = [:]
        if auth.account != person {
            values = AuthStore.values(flow: goals.rows.isEmpty ? .welcome : .main, person: person)
            values.merge(Self.forgottenFeedPosition) { _, forgotten in forgotten }
        } else if auth.flow != .main {
            values = AuthStore.values(flow: goals.rows.isEmpty ? .welcome : .main, person: person)
        }
        let latest: DatabaseChange
        do {
            let disabled = try await database.runShown { [values] (database) throws(StoreError) -> Bool in
                if !values.isEmpty { try database.setDeviceValues(values) }
                // Another person's sync secret and chain are not this one's.
                guard let sync = try database.held(\.sync), sync.person != person.rawValue else { return false }
                try database.disableSync()
                return true
            }
            if disabled { syncsData = false }
            latest = try await database.mainState()
        } catch {
            throw .store(error)
        }
        if activity?.person != person {
            activity = ActivityStore(database: database, person: person, clockID: device.description, from: latest)
        }
    }

    /// A keeper of `session` whose renewals go to the secret store before they are used, and which
    /// takes a pair another process on the same secrets renewed rather than spend a used refresh
    /// token.
    private func keeper(of session: ClientSession, client: ServiceClient) -> SessionKeeper {
        let (secrets, server) = (secrets, client.base)
        return SessionKeeper(
            client: client, session: session,
            keep: { [weak self] renewed in
                do throws(StoreError) {
                    try secrets.keep(renewed, server: server)
                } catch {
                    // The pair is used all the same; the next launch will not have it, and is told.
                    Task { @MainActor in self?.sessionFailure = .store(error) }
                }
            },
            latest: {
                // A store that cannot be read now gives nothing, and the keeper renews by itself.
                do { return try secrets.keptSession()?.session } catch { return nil }
            })
    }

    /// After a call failed: when the server ended the session (the keeper holds none), the person
    /// is signed out on this device and ``sessionFailure`` says why.
    func noteSessionEnd(_ failure: RitualAppError) async {
        guard let session, session.session == nil else { return }
        do {
            try await signOutOfThisDevice()
            sessionFailure = failure
        } catch {
            sessionFailure = error
        }
    }

    /// The device values of a feed's sync position, emptied (``ActivityStore/sync(through:now:)``
    /// reads an empty one as none).
    static let forgottenFeedPosition: [String: [UInt8]] = ["feed.cursor": [], "feed.sent": []]

    /// Signs out, from any screen: the server ends the session, then the device forgets it (the
    /// secret store first) and who was signed in, and closes the feed. The person's goals stay.
    ///
    /// - Throws: ``RitualAppError``: `service` when the server could not end the session (the
    ///   person stays signed in: try again, or ``signOutOfThisDevice()``); `store` when the
    ///   sign-out cannot be kept.
    public func signOut() async throws(RitualAppError) {
        if let session, session.session != nil {
            do {
                try await session.signOut()
            } catch  where error.code == .sessionExpired || error.code == .signedOut || error.status == 401 {
                // The server holds the session no more: there is nothing left to end.
            } catch {
                throw .service(error)
            }
        }
        try await signOutOfThisDevice()
    }

    /// Signs out on this device only, without asking the server (when it cannot be reached; the
    /// session then lapses at its expiry): the session leaves the secret store first, so a
    /// relaunch is signed out whatever else a crash leaves.
    ///
    /// - Throws: ``RitualAppError/store(_:)`` when the sign-out cannot be kept.
    public func signOutOfThisDevice() async throws(RitualAppError) {
        let secrets = secrets
        do {
            try await database.run { _ throws(StoreError) in try secrets.removeSecret(.session) }
        } catch {
            throw .store(error)
        }
        let ending = session
        session = nil
        activity = nil
        ending?.end()
        var values = AuthStore.values(flow: .signedOut, person: nil)
        values.merge(Self.forgottenFeedPosition) { _, forgotten in forgotten }
        do {
            try await database.runShown { [values] (database) throws(StoreError) in try database.setDeviceValues(values)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Deletes the account, from any screen: the server erases the person's data (AUTH-42), then
    /// the device erases its own copy and its secrets (``RitualDatabase/eraseAll()``) and is
    /// signed out.
    ///
    /// - Throws: ``RitualAppError``: `service` with `signed_out` without a session, or the
    ///   server's refusal (the account and the device's data are then as they were); `store`
    ///   when the device's copy cannot be erased after the account was.
    public func deleteAccount() async throws(RitualAppError) {
        guard let session, session.session != nil else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "delete-account"))
        }
        do {
            try await session.deleteAccount()
        } catch {
            await noteSessionEnd(.service(error))
            throw .service(error)
        }
        self.session = nil
        activity = nil
        syncsData = false
        do {
            try await database.runShown { (database) throws(StoreError) in try database.eraseAll() }
        } catch {
            throw .store(error)
        }
    }
}
