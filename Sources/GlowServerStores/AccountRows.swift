import Foundation
import GlowAuth
import GlowStorage

/// The account records as rows, for every database that keeps them: each record is its map's
/// name, its key, its JSON, and its index columns (``RecordIndex``). One writer of those rows,
/// whatever the database; ``AccountRecords/init(rows:)`` reads them.
package enum AccountRows {
    /// The maps of ``AccountRecords``, by the name their rows carry.
    package static let maps = [
        "accounts", "accountsByEmail", "identities", "sessions", "sessionsByAccessHash", "sessionsByRefreshHash",
        "sessionsByUsedRefreshHash", "resets", "pendingSignUps", "pendingSignUpsByEmail", "throttles",
        "requestWindows", "nonces", "emailChanges", "secondFactors", "revocations",
    ]

    /// A row's version: drawn anew by every write, so a row removed and written again never
    /// shows a version it had before (a reading of it would otherwise hold again).
    package static func newVersion() -> Int64 { Int64.random(in: 1...Int64.max) }

    /// A time in seconds as the whole milliseconds an expiry column holds, rounded down, so that
    /// a query `expiry <= milliseconds(t)` finds every record whose expiry is at or before `t`
    /// (the map checks each again).
    package static func milliseconds(_ seconds: Double) -> Int64 {
        let value = (seconds * 1_000).rounded(.down)
        guard value.isFinite else { return value > 0 ? Int64.max : Int64.min }
        return Int64(exactly: value) ?? (value > 0 ? Int64.max : Int64.min)
    }

    /// The rows of the records changed since their last keep: a value for a record written, nil
    /// for one removed.
    ///
    /// - Throws: ``StoreError`` `write_failed` for a record that does not encode.
    package static func changed(_ records: AccountRecords, path: String) throws(StoreError) -> [(
        map: String, key: String, value: Data?, owner: String?, expiry: Int64?
    )] {
        var rows: [(map: String, key: String, value: Data?, owner: String?, expiry: Int64?)] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func changes<Key, Value: Codable>(_ name: String, _ map: RecordMap<Key, Value>, _ text: (Key) -> String)
            throws(StoreError)
        {
            for key in map.changedKeys {
                guard let value = map[key] else {
                    rows.append((name, text(key), nil, nil, nil))
                    continue
                }
                let (owner, expiry) = map.indexed(value)
                do {
                    rows.append((name, text(key), try encoder.encode(value), owner, expiry.map(milliseconds)))
                } catch {
                    throw StoreError(.writeFailed, "an account record (\(name)) does not encode", path: path)
                }
            }
        }
        try changes("accounts", records.accounts, \.rawValue)
        try changes("accountsByEmail", records.accountsByEmail, { $0 })
        try changes("identities", records.identities, { $0 })
        try changes("sessions", records.sessions, { $0 })
        try changes("sessionsByAccessHash", records.sessionsByAccessHash, { $0 })
        try changes("sessionsByRefreshHash", records.sessionsByRefreshHash, { $0 })
        try changes("sessionsByUsedRefreshHash", records.sessionsByUsedRefreshHash, { $0 })
        try changes("resets", records.resets, { $0 })
        try changes("pendingSignUps", records.pendingSignUps, { $0 })
        try changes("pendingSignUpsByEmail", records.pendingSignUpsByEmail, { $0 })
        try changes("throttles", records.throttles, { $0 })
        try changes("requestWindows", records.requestWindows, { $0 })
        try changes("nonces", records.nonces, { $0 })
        try changes("emailChanges", records.emailChanges, { $0 })
        try changes("secondFactors", records.secondFactors, { $0 })
        try changes("revocations", records.revocations, { $0 })
        return rows
    }
}
