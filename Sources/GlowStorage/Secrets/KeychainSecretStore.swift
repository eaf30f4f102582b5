#if canImport(Security)
    import Foundation
    import Security

    /// Secrets in the Keychain, for an app on an Apple platform: each a generic password of the
    /// app's `service`, its account the secret's name, readable once the device was unlocked after
    /// it started (so a background sync can read it) and never while it has not been.
    ///
    /// An app and its extensions (a widget, a share extension) share the secrets through a
    /// Keychain access group they all name (`accessGroup`), as they share the database through an
    /// App Group's container.
    public struct KeychainSecretStore: SecretStore {
        /// The Keychain service the secrets are kept under.
        public let service: String
        /// The access group shared with the app's extensions, or nil for the app's own.
        public let accessGroup: String?

        /// The secrets of `service` (the app's bundle identifier is a good one), in `accessGroup`
        /// when given.
        public init(service: String, accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        /// `the Keychain (service SERVICE)`.
        public var location: String { "the Keychain (service \(service))" }

        /// What finds the item of `name`.
        private func query(_ name: SecretName) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: name.rawValue,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// The Keychain's words for `status`.
        private func reason(_ status: OSStatus) -> String {
            (SecCopyErrorMessageString(status, nil) as String?) ?? "status \(status)"
        }

        /// The secret kept under `name`, or nil when the Keychain has no such item.
        ///
        /// - Throws: ``StoreError``: `cannot_open` when the Keychain cannot be read (locked
        ///   since the device started, or the app lacks the access group).
        public func secret(_ name: SecretName) throws(StoreError) -> [UInt8]? {
            var search = query(name)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw StoreError(.cannotOpen, "\(name) cannot be read: \(reason(status))", path: location)
            }
            return [UInt8](data)
        }

        /// Keeps `bytes` under `name`: the item updated, or added when there is none.
        ///
        /// - Throws: ``StoreError``: `write_failed` with the Keychain's reason.
        public func setSecret(_ bytes: [UInt8], for name: SecretName) throws(StoreError) {
            let value: [String: Any] = [kSecValueData as String: Data(bytes)]
            var status = SecItemUpdate(query(name) as CFDictionary, value as CFDictionary)
            if status == errSecItemNotFound {
                var item = query(name)
                item[kSecValueData as String] = Data(bytes)
                item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
                status = SecItemAdd(item as CFDictionary, nil)
            }
            guard status == errSecSuccess else {
                throw StoreError(.writeFailed, "\(name) cannot be kept: \(reason(status))", path: location)
            }
        }

        /// Removes the item of `name`.
        ///
        /// - Throws: ``StoreError``: `write_failed` with the Keychain's reason.
        public func removeSecret(_ name: SecretName) throws(StoreError) {
            let status = SecItemDelete(query(name) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw StoreError(.writeFailed, "\(name) cannot be removed: \(reason(status))", path: location)
            }
        }
    }
#endif
