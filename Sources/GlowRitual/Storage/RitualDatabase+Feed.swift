import GlowFeed
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

    /// The device's feed replica as of the last delta recorded.
    public var feed: FeedReplica {
        state.withLock { $0.feed }
    }

    /// Records feed writes, durably: `delta` (the device's own writes, or what the relay sent) is
    /// appended to the feed log in one transaction and merged into ``feed``. Merging is
    /// idempotent, so recording a delta twice changes nothing; when the log grows past
    /// ``feedLogLimit`` rows, they are replaced by one snapshot in the same transaction.
    /// `deviceValues` are set in that transaction too (a sync's new cursor lands with the delta
    /// it follows, or neither does).
    public func recordFeed(_ delta: FeedReplica, deviceValues: [String: [UInt8]] = [:]) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            var next = state.feed
            next.merge(delta)
            let changed = next != state.feed
            guard changed || !deviceValues.isEmpty else { return }
            let connection = state.connection
            let fold = changed && state.feedRows + 1 > Self.feedLogLimit
            try connection.transaction { () throws(StoreError) in
                if changed {
                    if fold { try connection.execute("DELETE FROM feed_log") }
                    try connection.prepare("INSERT INTO feed_log (delta) VALUES (?)")
                        .run([.blob(fold ? next.wireEncoded() : delta.wireEncoded())])
                }
                try Self.write(deviceValues, on: connection)
            }
            guard changed else { return }
            state.feed = next
            state.feedRows = fold ? 1 : state.feedRows + 1
        }
    }

    /// A value the device keeps for itself (the sign-in flow's state, the feed's sync cursor).
    public func deviceValue(_ key: String) -> [UInt8]? {
        state.withLock { state -> [UInt8]? in
            guard let statement = try? state.connection.prepare("SELECT value FROM device_state WHERE key = ?"),
                (try? statement.bind([.text(key)])) != nil, (try? statement.step()) == true
            else { return nil }
            return statement.blob(0)
        }
    }

    /// Sets a value the device keeps, durably.
    public func setDeviceValue(_ value: [UInt8], for key: String) throws(StoreError) {
        try setDeviceValues([key: value])
    }

    /// Sets values the device keeps, durably and together: one transaction.
    public func setDeviceValues(_ values: [String: [UInt8]]) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            let connection = state.connection
            try connection.transaction { () throws(StoreError) in try Self.write(values, on: connection) }
        }
    }

    /// Sets device values inside the caller's transaction.
    private static func write(_ values: [String: [UInt8]], on connection: SQLiteConnection) throws(StoreError) {
        guard !values.isEmpty else { return }
        let statement = try connection.prepare("INSERT OR REPLACE INTO device_state (key, value) VALUES (?, ?)")
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            try statement.run([.text(key), .blob(value)])
        }
    }
}
