import Foundation
import Testing

@testable import GlowStorage

/// The device's secret stores (issue 58): every store keeps, replaces and removes secrets by name
/// and says nil for one it does not hold; the file store keeps each in a file of its owner's only,
/// makes nothing until a secret is kept, and refuses by name what it cannot read.
@Suite("Secret stores")
struct SecretStoreTests {
    /// The stores every app can use here (the Keychain's is Apple's only).
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case memory, file
        var description: String { rawValue }

        func make() -> any SecretStore {
            switch self {
            case .memory: InMemorySecretStore()
            case .file: FileSecretStore(database: StorageTests.temporary())
            }
        }
    }

    @Test("a secret is kept, replaced and removed by name; another name is untouched", arguments: Kind.allCases)
    func keepReplaceRemove(_ kind: Kind) throws {
        let store = kind.make()
        #expect(try store.secret(.session) == nil)
        try store.setSecret([1, 2, 3], for: .session)
        try store.setSecret(Array(repeating: 0x5E, count: 32), for: .syncSecret)
        #expect(try store.secret(.session) == [1, 2, 3])
        try store.setSecret([9], for: .session)
        #expect(try store.secret(.session) == [9])
        try store.removeSecret(.session)
        #expect(try store.secret(.session) == nil)
        try store.removeSecret(.session)
        #expect(try store.secret(.syncSecret) == Array(repeating: 0x5E, count: 32))
        // An empty secret is a secret, not none.
        try store.setSecret([], for: .session)
        #expect(try store.secret(.session) == [])
    }

    @Test("the file store: a folder of its owner's only beside the database, a file of 0600 per secret")
    func filePermissions() throws {
        let database = StorageTests.temporary()
        let store = FileSecretStore(database: database)
        #expect(store.folder == database + ".secrets")
        // Reading and removing make nothing.
        #expect(try store.secret(.syncSecret) == nil)
        try store.removeSecret(.syncSecret)
        #expect(!FileManager.default.fileExists(atPath: store.folder))
        // Whatever the umask would allow.
        let previous = umask(0)
        defer { umask(previous) }
        try store.setSecret([7, 7], for: .syncSecret)
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try mode(store.folder) == 0o700)
        #expect(try mode(store.folder + "/sync-secret") == 0o600)
        // A file made wider by hand is narrowed again when its secret is next kept.
        chmod(store.folder + "/sync-secret", 0o644)
        try store.setSecret([8], for: .syncSecret)
        #expect(try mode(store.folder + "/sync-secret") == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder) == ["sync-secret"])
    }

    /// What the file store's place may hold instead of its secrets, and the code it answers with.
    static let unreadable: [(String, StoreError.Code, @Sendable (String) throws -> Void)] = [
        (
            "a file where the folder should be", .cannotOpen,
            { folder in try Data([1]).write(to: URL(fileURLWithPath: folder)) }
        ),
        (
            "a folder where the secret should be", .cannotOpen,
            { folder in
                try FileManager.default.createDirectory(atPath: folder + "/session", withIntermediateDirectories: true)
            }
        ),
        (
            "a file longer than any secret", .corrupt,
            { folder in
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(count: 70_000).write(to: URL(fileURLWithPath: folder + "/session"))
            }
        ),
        (
            "a symbolic link", .cannotOpen,
            { folder in
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    atPath: folder + "/session", withDestinationPath: "/etc/hostname")
            }
        ),
    ]

    @Test(
        "what the file store cannot read is refused by name, and a secret kept there is refused too", arguments: 0..<4)
    func unreadableFiles(_ index: Int) throws {
        let (name, code, make) = Self.unreadable[index]
        let store = FileSecretStore(database: StorageTests.temporary())
        try make(store.folder)
        #expect {
            _ = try store.secret(.session)
        } throws: { error in
            (error as? StoreError)?.code == code && "\(error)".contains("session")
        }
        if index == 0 {
            #expect(throws: StoreError.self, "\(name): no secret can be kept") {
                try store.setSecret([1], for: .session)
            }
        }
    }

    @Test("a name is a few lower-case letters, digits and hyphens, and says what the secret is")
    func names() {
        #expect(SecretName.session.rawValue == "session" && SecretName.syncSecret.rawValue == "sync-secret")
        #expect(SecretName.syncSecret.description == "the sync secret")
        let error = StoreError.secretMissing(.syncSecret, in: InMemorySecretStore(), needed: "sync is on")
        #expect(error.code == .secretMissing && "\(error)".contains("sync-secret") && "\(error)".contains("memory"))
    }
}
