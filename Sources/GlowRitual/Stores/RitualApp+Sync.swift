import Foundation
import GlowBundle
import GlowClient
import GlowFeed
import GlowModel
import GlowProtocol
import GlowStorage
import GlowSync

/// The person's own data on every device (Spec/sync.md), and the feed's exchange with the server.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
extension RitualApp {
    /// Syncs the person's own data with their other devices when this device does
    /// (``syncData(now:progress:)``), then publishes the person's items as of `now` and exchanges
    /// the feed's writes with the server through the session (FEED-22 ... FEED-29).
    ///
    /// - Throws: ``RitualAppError``: `service` with `signed_out` without a session, `activity`
    ///   with the feed's or the server's refusal.
    public func sync(now: Instant = .now) async throws(RitualAppError) {
        guard let session, let activity, session.session != nil else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "relay"))
        }
        if syncsData { try await syncData(now: now) }
        do {
            try await activity.publish(now: now)
            try await activity.sync(through: session.relayTransport, now: now)
        } catch {
            await noteSessionEnd(.activity(error))
            throw .activity(error)
        }
    }

    /// Turns on sync of the person's own data on their first device, with a new secret (or
    /// `secret`): show its ``RecoveryKey/words`` to the person once, to keep; they restore
    /// everything on a new device if every device is lost. The data so far goes to the server at
    /// the next sync, sealed: the server never sees the secret, nor anything it protects.
    ///
    /// Sealing the data so far runs on the database's executor, telling `progress` after each
    /// frame of the first record; cancelling the task stops it, and sync stays off.
    ///
    /// - Returns: the secret.
    /// - Throws: ``RitualAppError``: `service` with `signed_out` when nobody is signed in;
    ///   `cancelled`; `store`.
    @discardableResult
    public func startSync(
        secret: RecoveryKey = .random(), now: Instant = .now,
        progress: @escaping @Sendable (WorkProgress) -> Void = { _ in }
    ) async throws(RitualAppError) -> RecoveryKey {
        guard let person = account else {
            throw .service(ServiceFailure(.signedOut, "sign in before turning sync on", call: "sync-push"))
        }
        let device = device
        let outcome = await withCancellationFlag { cancelled -> Result<Void, StoreError> in
            do throws(StoreError) {
                try await self.database.runShown { (database) throws(StoreError) in
                    try database.enableSync(secret: secret, person: person, device: device, now: now) { step in
                        progress(step)
                        return !cancelled()
                    }
                }
                return Result<Void, StoreError>.success(())
            } catch {
                return .failure(error)
            }
        }
        do { try outcome.get() } catch  where error.code == .cancelled { throw .cancelled } catch {
            throw .store(error)
        }
        syncsData = true
        return secret
    }

    /// Restores the person's data on a new device from their recovery words, then syncs; on a
    /// device whose secret store lost the sync secret (``syncFailure`` says so from launch), the
    /// words give it back and the device goes on where it was.
    ///
    /// - Throws: ``RitualAppError``: `bundle` with `invalid_recovery_key` for words that do not
    ///   read; what ``startSync(secret:now:)`` and ``syncData(now:progress:)`` throw.
    public func restoreSync(
        words: String, now: Instant = .now, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws(RitualAppError) {
        let secret: RecoveryKey
        do { secret = try RecoveryKey(words: words) } catch { throw .bundle(error) }
        let held: DeviceSync?
        do { held = try await database.sync } catch { throw .store(error) }
        if let held, !held.hasSecret {
            // The secret store lost the secret while the database syncs: the words give it back,
            // and the device goes on where it was.
            do { try await database.restoreSyncSecret(secret) } catch {
                throw Self.syncFailure(error, call: "sync-pull")
            }
            syncFailure = nil
        } else {
            try await startSync(secret: secret, now: now)
        }
        try await syncData(now: now, progress: progress)
    }

    /// Shows a pairing code on this device (SYNC-12, SYNC-13): the secret is sealed under the
    /// code's key and left at the server for ten minutes, for one taking; the person types the code
    /// on the new device (``pair(code:now:progress:)``).
    ///
    /// - Returns: the code to show.
    /// - Throws: ``RitualAppError``: `service` (signed out, or the server's refusal:
    ///   `sync_pairing_limit` while four codes wait); `store` when sync is off on this device.
    public func offerPairing() async throws(RitualAppError) -> PairingCode {
        guard let session else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "sync-pair-offer"))
        }
        let held: DeviceSync?
        do { held = try await database.sync } catch { throw .store(error) }
        guard let sync = held else {
            throw .store(StoreError(.refused, "sync is not turned on on this device", path: database.path))
        }
        let secret: RecoveryKey
        do { secret = try sync.syncSecret() } catch { throw .store(error) }
        do {
            return try await session.offerPairing(of: secret)
        } catch {
            await noteSessionEnd(.service(error))
            throw .service(error)
        }
    }

    /// Pairs this new device with the code shown on one of the person's devices, then restores
    /// their data here (``syncData(now:progress:)``, with `progress` after every page).
    ///
    /// - Throws: ``RitualAppError``: `sync` with `invalid_pairing_code` or `sync_pairing_tampered`;
    ///   `service` with `sync_pairing_not_found` (typed already, expired or mistyped); what
    ///   ``syncData(now:progress:)`` throws.
    public func pair(
        code text: String, now: Instant = .now, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws(RitualAppError) {
        guard let session else {
            throw .service(ServiceFailure(.signedOut, "sign in before pairing", call: "sync-pair-take"))
        }
        let secret: RecoveryKey
        do {
            secret = try await session.takePairing(code: text)
        } catch {
            await noteSessionEnd(Self.syncFailure(error, call: "sync-pair-take"))
            throw Self.syncFailure(error, call: "sync-pair-take")
        }
        try await startSync(secret: secret, now: now)
        try await syncData(now: now, progress: progress)
    }

    /// One round of sync of the person's own data (Spec/sync.md): this device's changes pushed,
    /// the others' pulled and merged page by page, each page kept before the next; ``syncProgress``
    /// and `progress` hear after every page.
    ///
    /// - Throws: ``RitualAppError``: `service` (signed out, or the server's refusal); `sync` for a
    ///   page this device refused or a server's refusal of a sync code; `store`; `cancelled`.
    public func syncData(now: Instant = .now, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in })
        async throws(RitualAppError)
    {
        guard let session, session.session != nil else {
            throw .service(ServiceFailure(.signedOut, "no one is signed in on this device", call: "sync-pull"))
        }
        syncProgress = SyncProgress()
        defer { syncProgress = nil }
        let database = database
        do {
            try await Self.syncData(database, through: session.syncTransport, now: now) { [weak self] seen in
                progress(seen)
                Task { @MainActor in if self?.syncProgress != nil { self?.syncProgress = seen } }
            }
            syncFailure = nil
        } catch {
            syncFailure = error
            await noteSessionEnd(error)
            throw error
        }
    }

    /// The database's sync off the main actor, its failures typed.
    nonisolated private static func syncData(
        _ database: RitualDatabase, through transport: any SyncTransport, now: Instant,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(RitualAppError) {
        do {
            _ = try await database.syncData(through: transport, now: now, progress: progress)
        } catch {
            throw syncFailure(error, call: "sync-pull")
        }
    }

    /// A sync's failure, typed: a page the reader refused or a server's refusal of a sync code as
    /// `sync`, the store's and the server's other refusals as theirs, a cancellation as `cancelled`.
    nonisolated static func syncFailure(_ error: any Error, call: String) -> RitualAppError {
        switch error {
        case let error as StoreError:
            if let refusal = error.refusal as? SyncError { return .sync(refusal) }
            return .store(error)
        case let error as SyncError: return .sync(error)
        case let error as ServiceFailure: return .service(error)
        case is CancellationError: return .cancelled
        default: return .service(ServiceFailure(.network, "\(error)", call: call))
        }
    }

    /// Starts a background round of data sync: what a change on this device does, so that it
    /// reaches the others without the app asking. Never skipped in silence: a change made while a
    /// round runs makes it run once more (the round may have pushed before the change's record was
    /// written), and one that cannot be sent because nobody is signed in is said in
    /// ``syncFailure``, as a failed round is.
    func scheduleDataSync() {
        guard syncsData else { return }
        guard let session, session.session != nil else {
            syncFailure = .service(
                ServiceFailure(
                    .signedOut, "a change waits to be sent to the person's other devices: sign in to send it",
                    call: "sync-push"))
            return
        }
        guard background == nil else {
            backgroundAgain = true
            return
        }
        background = Task { [weak self] in
            repeat {
                self?.backgroundAgain = false
                // A failed round is kept in syncFailure by syncData; its changes stay in the outbox.
                do { try await self?.syncData() } catch {}
            } while self?.backgroundAgain == true && self?.session?.session != nil
            self?.background = nil
        }
    }

    /// Waits for the background round of data sync that is running, if any.
    public func backgroundSyncFinished() async {
        await background?.value
    }
}
