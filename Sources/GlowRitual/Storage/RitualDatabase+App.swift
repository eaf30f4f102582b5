import Dispatch
import GlowBundle
import GlowFeed
import GlowModel
import GlowStorage

extension RitualDatabase {
    /// Imports a bundle read chunk by chunk from `next`, all or nothing (BUNDLE-19, BUNDLE-26), on
    /// the database's executor: read, verified and merged while the write lock is held, then
    /// written in one transaction. `progress` hears after each chunk how far the import has got
    /// and returns whether to go on; `next` and `progress` run on the executor.
    ///
    /// - Returns: the import's result, with the social data the bundle carried.
    /// - Throws: ``StoreError``: `refused` with the bundle's error (`cancelled` when `progress`
    ///   returned false, `read_failed` when `next` threw), or a storage error. Nothing changed then.
    @discardableResult
    public func importBundle(
        reading next: @escaping @Sendable () throws -> [UInt8]?, totalBytes: Int? = nil,
        progress: @escaping @Sendable (ImportProgress) -> Bool = { _ in true }
    ) async throws(StoreError) -> ImportResult {
        try await runShown { (database) throws(StoreError) in
            try database.importBundle(reading: next, totalBytes: totalBytes, progress: progress)
        }
    }

    /// Erases everything the file holds for the person and the device, in one transaction: the
    /// profile, goals, check-ins, records of other versions, the feed and the device's own values
    /// (a deleted account's data, AUTH-42, gone from the device too). The profile photo's files
    /// beside the database, and the sync secret and session in the ``SecretStore``, are removed
    /// after the commit.
    ///
    /// - Throws: ``StoreError``: a storage error, and nothing was erased; or `write_failed` for a
    ///   photo file or a secret that could not be removed, after the database was erased.
    public func eraseAll() async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in try database.eraseAll() }
    }

    /// Starts watching the file for commits made through other connections (another process,
    /// such as a widget or a share extension, or another database object on the file): a change
    /// is read and told to the observers (``observe(_:)``) once, as ``refresh()`` does. A failed
    /// read is told to `failed` and tried again at the next look.
    ///
    /// On Darwin, every database object posts a notification named after the file after each of
    /// its commits (notify(3)), and the watch reads the file when one comes: nothing runs while
    /// nothing changes, and a suspended app's watch costs nothing. Where there are no such
    /// notifications (Linux), SQLite's `data_version` is read every `interval`.
    ///
    /// - Returns: the watch; it stops when cancelled or freed.
    public func watchOtherWriters(
        every interval: Duration = .milliseconds(250), failed: @escaping @Sendable (StoreError) -> Void = { _ in }
    ) -> DatabaseObservation {
        let look: @Sendable () async -> Bool = { [weak self] in
            guard let self else { return false }
            do throws(StoreError) { try await self.refresh() } catch { failed(error) }
            return true
        }
        if let listening = notice.listen(on: DispatchQueue.global(qos: .utility), { Task { _ = await look() } }) {
            return DatabaseObservation { listening.cancel() }
        }
        let task = Task.detached {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard await look() else { return }
            }
        }
        return DatabaseObservation { task.cancel() }
    }

    /// Closes the database after the work given before: the file's connection and its locks are
    /// let go, and every later read or change is refused with `closed`. Observers hear nothing
    /// more; open the file again to go on.
    public func close() async {
        // Closed even by a cancelled task: what asked for it is going away.
        await executor.runWhole { self.store.close() }
    }
}

extension RitualDatabase.Job {
    /// ``importBundle(reading:totalBytes:progress:)``, on the executor.
    @discardableResult
    func importBundle(
        reading next: () throws -> [UInt8]?, totalBytes: Int? = nil, progress: (ImportProgress) -> Bool = { _ in true }
    ) throws(StoreError) -> ImportResult {
        let path = path
        return try change { (state, connection) throws(StoreError) -> (Result<ImportResult, StoreError>, Touched) in
            var merged = state.data
            let result: ImportResult
            do {
                result = try BundleReader().import(
                    reading: next, totalBytes: totalBytes, into: &merged, progress: progress)
            } catch {
                return (
                    .failure(StoreError(.refused, "\(error)", path: path, refusal: error as? BundleError)), Touched()
                )
            }
            try RitualDatabase.write(result.changes, of: merged, to: connection)
            try RitualDatabase.noteForSync(result.changes, of: merged, state: &state, on: connection)
            state.data = merged
            return (.success(result), Touched(data: result.changes))
        }.get()
    }

    /// ``eraseAll()``, on the executor.
    func eraseAll() throws(StoreError) {
        let (_, _, state) = try store.write { (state, connection) throws(StoreError) in
            for table in ["profile", "goals", "check_ins", "other_records", "feed_log", "device_state"]
                + RitualDatabase.syncTables
            {
                try connection.execute("DELETE FROM \(table)")
            }
            state = State(data: DataSet(), feed: FeedReplica(), feedRows: 0, deviceValues: [:])
        }
        database.tell(DatabaseChange(external: state))
        database.notice.post()
        try removePhotos()
        try secrets.removeSecret(.syncSecret)
        try secrets.removeSecret(.session)
    }
}
