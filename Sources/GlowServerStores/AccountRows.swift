import Foundation
import GlowAuth
import GlowStorage

/// The account records as rows, for every database that keeps them: each record is its map's
/// name, its key and its JSON. One reader and one writer of those rows, whatever the database.
package enum AccountRows {
    /// The maps of ``AccountRecords``, by the name their rows carry.
    package static let maps = [
        "accounts", "accountsByEmail", "identities", "sessions", "sessionsByAccessHash", "sessionsByRefreshHash",
        "sessionsByUsedRefreshHash", "resets", "pendingSignUps", "pendingSignUpsByEmail", "throttles",
        "requestWindows", "nonces", "emailChanges", "secondFactors", "revocations",
    ]

    /// Puts one row into `records`: its value decoded into its map, or, for a nil value, the key
    /// removed. The change is not tracked as one to write back.
    ///
    /// - Throws: ``StoreError`` `corrupt` for a map that is not one of ``maps`` or a value that
    ///   does not decode.
    package static func apply(
        map: String, key: String, value: Data?, to records: inout AccountRecords, path: String
    ) throws(StoreError) {
        let decoder = JSONDecoder()
        do {
            switch map {
            case "accounts":
                records.accounts[AccountID(rawValue: key)] = try value.map {
                    try decoder.decode(AccountRecords.Account.self, from: $0)
                }
            case "accountsByEmail":
                records.accountsByEmail[key] = try value.map { try decoder.decode(AccountID.self, from: $0) }
            case "identities":
                records.identities[key] = try value.map { try decoder.decode(AccountRecords.Identity.self, from: $0) }
            case "sessions":
                records.sessions[key] = try value.map {
                    try decoder.decode(AccountRecords.SessionFamily.self, from: $0)
                }
            case "sessionsByAccessHash":
                records.sessionsByAccessHash[key] = try value.map { try decoder.decode(String.self, from: $0) }
            case "sessionsByRefreshHash":
                records.sessionsByRefreshHash[key] = try value.map { try decoder.decode(String.self, from: $0) }
            case "sessionsByUsedRefreshHash":
                records.sessionsByUsedRefreshHash[key] = try value.map { try decoder.decode(String.self, from: $0) }
            case "resets":
                records.resets[key] = try value.map { try decoder.decode(AccountRecords.Reset.self, from: $0) }
            case "pendingSignUps":
                records.pendingSignUps[key] = try value.map {
                    try decoder.decode(AccountRecords.PendingSignUp.self, from: $0)
                }
            case "pendingSignUpsByEmail":
                records.pendingSignUpsByEmail[key] = try value.map { try decoder.decode([String].self, from: $0) }
            case "throttles":
                records.throttles[key] = try value.map { try decoder.decode(AccountRecords.Throttle.self, from: $0) }
            case "requestWindows":
                records.requestWindows[key] = try value.map {
                    try decoder.decode(AccountRecords.RequestWindow.self, from: $0)
                }
            case "nonces":
                records.nonces[key] = try value.map { try decoder.decode(AccountRecords.IssuedNonce.self, from: $0) }
            case "emailChanges":
                records.emailChanges[key] = try value.map {
                    try decoder.decode(AccountRecords.EmailChange.self, from: $0)
                }
            case "secondFactors":
                records.secondFactors[key] = try value.map {
                    try decoder.decode(AccountRecords.SecondFactor.self, from: $0)
                }
            case "revocations":
                records.revocations[key] = try value.map {
                    try decoder.decode(AccountRecords.Revocation.self, from: $0)
                }
            default:
                throw StoreError(.corrupt, "an account row of an unknown map '\(map)'", path: path)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.corrupt, "an account row (\(map)) does not read: \(error)", path: path)
        }
    }

    /// Whether any record changed since the last keep.
    package static func hasChanges(_ records: AccountRecords) -> Bool {
        !(records.accounts.changedKeys.isEmpty && records.accountsByEmail.changedKeys.isEmpty
            && records.identities.changedKeys.isEmpty && records.sessions.changedKeys.isEmpty
            && records.sessionsByAccessHash.changedKeys.isEmpty && records.sessionsByRefreshHash.changedKeys.isEmpty
            && records.sessionsByUsedRefreshHash.changedKeys.isEmpty && records.resets.changedKeys.isEmpty
            && records.pendingSignUps.changedKeys.isEmpty && records.pendingSignUpsByEmail.changedKeys.isEmpty
            && records.throttles.changedKeys.isEmpty && records.requestWindows.changedKeys.isEmpty
            && records.nonces.changedKeys.isEmpty && records.emailChanges.changedKeys.isEmpty
            && records.secondFactors.changedKeys.isEmpty && records.revocations.changedKeys.isEmpty)
    }

    /// The rows of the records changed since their last keep: a value for a record written, nil
    /// for one removed.
    ///
    /// - Throws: ``StoreError`` `write_failed` for a record that does not encode.
    package static func changed(_ records: AccountRecords, path: String) throws(StoreError) -> [(
        map: String, key: String, value: Data?
    )] {
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
