import GlowBundle
import GlowStorage
import GlowSync

/// The sync secret, kept in the database's ``SecretStore`` and never in its file (issue 58).
extension RitualDatabase {
    /// Gives back a sync secret the ``SecretStore`` lost (a device restored from a backup that
    /// did not carry it, a store emptied) while the database still syncs: the same secret, which
    /// the records waiting to be sent were sealed with, so the device goes on where it was.
    ///
    /// - Throws: ``StoreError``: `refused` when sync is off, or with ``SyncError`` `sync_wrong_key`
    ///   when the records waiting were sealed under another secret; the secret store's error.
    ///   Nothing changed then.
    public func restoreSyncSecret(_ secret: RecoveryKey) async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in try database.restoreSyncSecret(secret) }
    }

    /// The sync secret `secrets` holds, or the error that names what is missing or does not read.
    static func syncSecret(in secrets: any SecretStore, person: String) -> Result<RecoveryKey, StoreError> {
        let bytes: [UInt8]?
        do { bytes = try secrets.secret(.syncSecret) } catch { return .failure(error) }
        guard let bytes else {
            return .failure(
                .secretMissing(
                    .syncSecret, in: secrets,
                    needed: "this database syncs \(person)'s data with it: give it back with the recovery words "
                        + "(restoreSyncSecret), or turn sync off"))
        }
        guard bytes.count == 32 else {
            return .failure(
                .secretCorrupt(.syncSecret, in: secrets, "\(bytes.count) bytes, where a sync secret has 32"))
        }
        return .success(RecoveryKey(bytes: bytes))
    }

}

extension RitualDatabase.Job {
    /// ``restoreSyncSecret(_:)``, on the executor.
    func restoreSyncSecret(_ secret: RecoveryKey) throws(StoreError) {
        let (path, secrets) = (path, secrets)
        try change { (state, _) throws(StoreError) -> ((), Touched) in
            guard var sync = state.sync else {
                throw StoreError(.refused, "sync is not turned on for this database", path: path)
            }
            let keys = SyncKeys(secret: secret)
            for bytes in sync.state.outbox.pending {
                do throws(SyncError) {
                    try keys.checkKey(of: try SyncRecord(bytes: bytes))
                } catch {
                    throw StoreError(
                        .refused, "the records waiting to be sent were sealed under another secret: \(error)",
                        path: path, refusal: error)
                }
            }
            try secrets.setSecret(secret.bytes, for: .syncSecret)
            sync.secret = .success(secret)
            state.sync = sync
            return ((), Touched(deviceValues: [RitualDatabase.syncKey]))
        }
    }

    /// Moves a sync secret that an earlier version kept in the file (`sync_secret_leaving`, where
    /// the migration put it) into the ``SecretStore``, then erases it from the file, in that
    /// order: a crash after the store kept it finds it in both, and finishes the erasure at the
    /// next open. The erased row is overwritten with zeros before it is deleted, and the
    /// write-ahead log, which held its older pages, is emptied when no other connection reads.
    ///
    /// - Throws: ``StoreError``: `corrupt` when the store holds another sync secret than the
    ///   file's, or the file's does not read; the store's and the storage's errors. The database
    ///   is as it was then.
    func moveSyncSecretOut() throws(StoreError) {
        let waiting = try store.withConnection { (connection) throws(StoreError) -> Bool in
            try connection.integer("SELECT count(*) FROM sync_secret_leaving") > 0
        }
        guard waiting else { return }
        let (path, secrets) = (path, secrets)
        try change { (state, connection) throws(StoreError) -> ((), Touched) in
            let row = try connection.prepare("SELECT secret FROM sync_secret_leaving")
            // Another connection may have moved it since.
            guard try row.step() else { return ((), Touched()) }
            let bytes = row.blob(0)
            guard bytes.count == 32 else {
                throw StoreError(
                    .corrupt, "the sync secret this database kept is \(bytes.count) bytes, not 32", path: path)
            }
            if let held = try secrets.secret(.syncSecret) {
                guard held == bytes else {
                    throw StoreError(
                        .corrupt,
                        "the secret store at \(secrets.location) holds another sync secret than the one this "
                            + "database kept: it belongs to another database", path: path)
                }
            } else {
                try secrets.setSecret(bytes, for: .syncSecret)
            }
            try connection.execute("UPDATE sync_secret_leaving SET secret = zeroblob(length(secret))")
            try connection.execute("DELETE FROM sync_secret_leaving")
            if var sync = state.sync {
                sync.secret = .success(RecoveryKey(bytes: bytes))
                state.sync = sync
            }
            return ((), Touched(deviceValues: [RitualDatabase.syncKey]))
        }
        try store.withConnection { (connection) throws(StoreError) in
            _ = try connection.texts("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
