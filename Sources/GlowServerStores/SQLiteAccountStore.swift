import Foundation
import GlowAuth
import GlowStorage

/// The account service's records (AUTH-35 ... AUTH-42) durable in SQLite, through GlowAuth's
/// storage protocol, ``AccountStore``.
///
/// Each record is one row: the map it belongs to, its key, and its JSON. An update writes the rows
/// it changed and deletes the ones it removed; one that throws writes nothing. Reading the
/// records again before each update means a rotated refresh token or a sign-out in another process
/// is known here. The file holds password hashes and token hashes, and a provider's refresh token
/// until it is revoked: it is the server's, kept with the care its secrets need.
public typealias SQLiteAccountStore = ServerStore<AccountRecords>

extension ServerStore: AccountStore where State == AccountRecords {
    /// Opens the account database at `path`, creating it when there is no file.
    ///
    /// - Throws: ``StoreError``: `newer_schema`, `corrupt`, `cannot_open`.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, schema: .accounts, load: Self.load)
    }

    @Sendable static func load(_ connection: SQLiteConnection) throws(StoreError) -> AccountRecords {
        var records = AccountRecords()
        let rows = try connection.prepare("SELECT map, key, value FROM account_records")
        let decoder = JSONDecoder()
        while try rows.step() {
            let (map, key, value) = (rows.text(0), rows.text(1), Data(rows.blob(2)))
            do {
                switch map {
                case "accounts":
                    records.accounts[AccountID(rawValue: key)] = try decoder.decode(
                        AccountRecords.Account.self, from: value)
                case "accountsByEmail": records.accountsByEmail[key] = try decoder.decode(AccountID.self, from: value)
                case "identities":
                    records.identities[key] = try decoder.decode(AccountRecords.Identity.self, from: value)
                case "sessions":
                    records.sessions[key] = try decoder.decode(AccountRecords.SessionFamily.self, from: value)
                case "sessionsByAccessHash":
                    records.sessionsByAccessHash[key] = try decoder.decode(String.self, from: value)
                case "sessionsByRefreshHash":
                    records.sessionsByRefreshHash[key] = try decoder.decode(String.self, from: value)
                case "sessionsByUsedRefreshHash":
                    records.sessionsByUsedRefreshHash[key] = try decoder.decode(String.self, from: value)
                case "resets": records.resets[key] = try decoder.decode(AccountRecords.Reset.self, from: value)
                case "pendingSignUps":
                    records.pendingSignUps[key] = try decoder.decode(AccountRecords.PendingSignUp.self, from: value)
                case "pendingSignUpsByEmail":
                    records.pendingSignUpsByEmail[key] = try decoder.decode([String].self, from: value)
                case "throttles": records.throttles[key] = try decoder.decode(AccountRecords.Throttle.self, from: value)
                case "requestWindows":
                    records.requestWindows[key] = try decoder.decode(AccountRecords.RequestWindow.self, from: value)
                case "nonces": records.nonces[key] = try decoder.decode(AccountRecords.IssuedNonce.self, from: value)
                case "emailChanges":
                    records.emailChanges[key] = try decoder.decode(AccountRecords.EmailChange.self, from: value)
                case "secondFactors":
                    records.secondFactors[key] = try decoder.decode(AccountRecords.SecondFactor.self, from: value)
                case "revocations":
                    records.revocations[key] = try decoder.decode(AccountRecords.Revocation.self, from: value)
                default:
                    throw StoreError(.corrupt, "an account row of an unknown map '\(map)'", path: connection.path)
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.corrupt, "an account row (\(map)) does not read: \(error)", path: connection.path)
            }
        }
        records.keepChanges()
        return records
    }

    /// Runs `body` on the records as the file holds them now and keeps what it changed before
    /// returning: the rows of the records it wrote, and no others (each map knows its changed
    /// keys, so an update costs what it changed, not what the store holds).
    ///
    /// - Throws: the body's ``AuthError`` (nothing written), or
    ///   ``AuthError/Code/storageFailed`` when the records cannot be read or kept.
    public func update<T>(_ body: (inout AccountRecords) throws(AuthError) -> T) throws(AuthError) -> T {
        let outcome: Result<T, AuthError>
        do {
            outcome = try store.write { (records, connection) throws(StoreError) -> Result<T, AuthError> in
                let result: T
                do throws(AuthError) {
                    result = try body(&records)
                } catch {
                    // A refused update leaves the records as they were, in memory as on disk.
                    records.undoChanges()
                    return .failure(error)
                }
                try Self.write(records, connection)
                records.keepChanges()
                return .success(result)
            }.result
        } catch {
            throw AuthError.storage("the account records could not be read or kept: \(error)")
        }
        return try outcome.get()
    }

    /// Writes the rows of the records changed since the last keep, inside the caller's transaction.
    static func write(_ records: AccountRecords, _ connection: SQLiteConnection) throws(StoreError) {
        var rows: [(map: String, key: String, value: Data?)] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func changes<Key, Value: Codable>(_ name: String, _ map: RecordMap<Key, Value>, _ text: (Key) -> String)
            throws(StoreError)
        {
            for key in map.changedKeys {
                guard let value = map[key] else {
                    rows.append((name, text(key), nil))
                    continue
                }
                do {
                    rows.append((name, text(key), try encoder.encode(value)))
                } catch {
                    throw StoreError(.writeFailed, "an account record (\(name)) does not encode", path: connection.path)
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
        guard !rows.isEmpty else { return }
        let put = try connection.prepare("INSERT OR REPLACE INTO account_records (map, key, value) VALUES (?, ?, ?)")
        let drop = try connection.prepare("DELETE FROM account_records WHERE map = ? AND key = ?")
        for row in rows {
            if let value = row.value {
                try put.run([.text(row.map), .text(row.key), .blob(Array(value))])
            } else {
                try drop.run([.text(row.map), .text(row.key)])
            }
        }
    }
}
