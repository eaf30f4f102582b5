import GlowCore
import GlowFeed
import GlowStorage
import GlowWire

extension RitualDatabase {
    /// How many deltas the feed log holds before they are folded into one snapshot.
    static let feedLogLimit = 64

    /// Reads the feed log: each row a `FeedDelta` (FEED-28), merged in order (FEED-21).
    static func loadFeed(_ connection: SQLiteConnection) throws(StoreError) -> (FeedReplica, Int) {
        var replica = FeedReplica()
        var rows = 0
        let statement = try connection.prepare("SELECT delta FROM feed_log ORDER BY sequence")
        while try statement.step() {
            do {
                replica.merge(try FeedReplica(wire: statement.blob(0)))
            } catch {
                throw StoreError(.corrupt, "the feed log does not read: \(error)", path: connection.path)
            }
            rows += 1
        }
        return (replica, rows)
    }

    /// The device's feed replica as of the last delta recorded or refresh.
    ///
    /// - Throws: ``StoreError`` only when the state has to be read again and cannot be.
    public var feed: FeedReplica {
        get async throws(StoreError) { try await run { (database) throws(StoreError) in try database.held(\.feed) } }
    }

    /// Records feed writes, durably: `delta` (the device's own writes, or what the relay sent) is
    /// appended to the feed log in one transaction and merged into ``feed``. Merging is
    /// idempotent, so recording a delta twice changes nothing; when the log grows past
    /// ``feedLogLimit`` rows, they are replaced by one snapshot in the same transaction.
    /// `deviceValues` are set in that transaction too (a sync's new cursor lands with the delta
    /// it follows, or neither does).
    public func recordFeed(_ delta: FeedReplica, deviceValues: [String: [UInt8]] = [:]) async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in try database.recordFeed(delta, deviceValues: deviceValues)
        }
    }

    /// A value the device keeps for itself (the sign-in flow's state, the feed's sync cursor), as
    /// of the last change or refresh; nil when it was never set.
    ///
    /// - Throws: ``StoreError`` only when the state has to be read again and cannot be: never
    ///   mistaken for a value not set.
    public func deviceValue(_ key: String) async throws(StoreError) -> [UInt8]? {
        try await run { (database) throws(StoreError) in try database.deviceValue(key) }
    }

    /// Reads every device value.
    static func loadDeviceValues(_ connection: SQLiteConnection) throws(StoreError) -> [String: [UInt8]] {
        var values: [String: [UInt8]] = [:]
        let statement = try connection.prepare("SELECT key, value FROM device_state")
        while try statement.step() { values[statement.text(0)] = statement.blob(1) }
        return values
    }

    /// Sets a value the device keeps, durably.
    public func setDeviceValue(_ value: [UInt8], for key: String) async throws(StoreError) {
        try await setDeviceValues([key: value])
    }

    /// Sets values the device keeps, durably and together: one transaction.
    public func setDeviceValues(_ values: [String: [UInt8]]) async throws(StoreError) {
        try await runShown { (database) throws(StoreError) in try database.setDeviceValues(values) }
    }

    /// Sets device values inside the caller's transaction, and in the state.
    fileprivate static func write(_ values: [String: [UInt8]], to state: inout State, on connection: SQLiteConnection)
        throws(StoreError)
    {
        guard !values.isEmpty else { return }
        let statement = try connection.prepare("INSERT OR REPLACE INTO device_state (key, value) VALUES (?, ?)")
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            try statement.run([.text(key), .blob(value)])
            state.deviceValues[key] = value
        }
    }
}

extension RitualDatabase.Job {
    /// ``recordFeed(_:deviceValues:)``, on the executor.
    func recordFeed(_ delta: FeedReplica, deviceValues: [String: [UInt8]] = [:]) throws(StoreError) {
        try change { (state, connection) throws(StoreError) -> ((), Touched) in
            var next = state.feed
            next.merge(delta)
            let changed = next != state.feed
            if changed {
                let fold = state.feedRows + 1 > RitualDatabase.feedLogLimit
                if fold { try connection.execute("DELETE FROM feed_log") }
                try connection.prepare("INSERT INTO feed_log (delta) VALUES (?)")
                    .run([.blob(fold ? next.wireEncoded() : delta.wireEncoded())])
                state.feed = next
                state.feedRows = fold ? 1 : state.feedRows + 1
            }
            try RitualDatabase.write(deviceValues, to: &state, on: connection)
            return ((), Touched(feed: changed, deviceValues: Set(deviceValues.keys)))
        }
    }

    /// Makes a change to the feed replica as committed, on the executor, stamped by `clock` (the
    /// device's, which only jobs of the executor move), and records what it wrote; a refused
    /// change leaves the replica and the clock as they were.
    ///
    /// - Throws: ``StoreError``: `refused` with the feed's ``FeedError``, or a storage error.
    func changeFeed(
        clock: Locked<HybridClock>, _ change: (inout FeedReplica, inout HybridClock) throws(FeedError) -> Void
    ) throws(StoreError) {
        let before = try held(\.feed)
        var after = before
        var stamps = clock.withLock { $0 }
        do { try change(&after, &stamps) } catch { throw StoreError(.refused, "\(error)", path: path, refusal: error) }
        try recordFeed(after.changes(since: before.latestStamp))
        clock.withLock { $0 = stamps }
    }

    /// ``deviceValue(_:)``, on the executor.
    func deviceValue(_ key: String) throws(StoreError) -> [UInt8]? {
        try held { $0.deviceValues[key] }
    }

    /// ``setDeviceValues(_:)``, on the executor.
    func setDeviceValues(_ values: [String: [UInt8]]) throws(StoreError) {
        try change { (state, connection) throws(StoreError) -> ((), Touched) in
            try RitualDatabase.write(values, to: &state, on: connection)
            return ((), Touched(deviceValues: Set(values.keys)))
        }
    }
}
