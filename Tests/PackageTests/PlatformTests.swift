import Foundation
import Testing

/// `Package.swift` declares minimums that cover every availability-gated API the sources use
/// (issue 26): an app on any Apple platform that links the package compiles.
@Suite("Declared platforms")
struct PlatformTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A version as `major.minor`.
    struct Version: Comparable, CustomStringConvertible {
        let major: Int
        let minor: Int
        init(_ major: Int, _ minor: Int = 0) {
            self.major = major
            self.minor = minor
        }
        static func < (a: Version, b: Version) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
        var description: String { "\(major).\(minor)" }
    }

    /// An availability-gated API: how to find it in the sources, and the first release of each
    /// platform that has it (Apple's documentation), in the order of ``platforms``.
    struct GatedAPI: CustomStringConvertible {
        let name: String
        let pattern: String
        let releases: [Version]
        var description: String { name }
        var needs: [String: Version] { Dictionary(uniqueKeysWithValues: zip(PlatformTests.platforms, releases)) }
    }

    static let platforms = ["macOS", "iOS", "watchOS", "tvOS", "visionOS"]

    static let apis: [GatedAPI] = [
        .init(
            name: "Synchronization.Mutex", pattern: #"\bMutex[<(]"#,
            releases: [.init(15), .init(18), .init(11), .init(18), .init(2)]),
        .init(
            name: "Synchronization.Atomic", pattern: #"\bAtomic<"#,
            releases: [.init(15), .init(18), .init(11), .init(18), .init(2)]),
        .init(
            name: "Observation", pattern: #"@Observable\b|withObservationTracking"#,
            releases: [.init(14), .init(17), .init(10), .init(17), .init(1)]),
        .init(
            name: "ContinuousClock", pattern: #"\bContinuousClock\(\)"#,
            releases: [.init(13), .init(16), .init(9), .init(16), .init(1)]),
        .init(
            name: "FileHandle's throwing reads and writes",
            pattern: #"\.write\(contentsOf:|\.synchronize\(\)|\.seekToEnd\(\)"#,
            releases: [.init(10, 15), .init(13), .init(6), .init(13), .init(1)]),
    ]

    /// The platforms `Package.swift` declares, by name.
    static func declared() throws -> [String: Version] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let line = try #require(manifest.split(separator: "\n").first { $0.contains("platforms:") })
        let regex = try NSRegularExpression(pattern: #"\.(macOS|iOS|watchOS|tvOS|visionOS)\(\.v(\d+)(?:_(\d+))?\)"#)
        let text = String(line)
        var found: [String: Version] = [:]
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            func group(_ index: Int) -> String? {
                Range(match.range(at: index), in: text).map { String(text[$0]) }
            }
            found[group(1)!] = Version(Int(group(2)!)!, group(3).flatMap(Int.init) ?? 0)
        }
        return found
    }

    /// Every Swift file of the libraries and tools.
    static func sources() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in ["Sources", "Tools"] {
            let base = root.appendingPathComponent(folder)
            let walker = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
            for case let url as URL in walker where url.pathExtension == "swift" {
                files.append((url.path, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return files
    }

    @Test("every Apple platform is declared, the watch included")
    func everyPlatform() throws {
        #expect(Set(try Self.declared().keys) == Set(Self.platforms))
    }

    @Test("no declared minimum is below an API the sources use", arguments: apis)
    func covers(_ api: GatedAPI) throws {
        let regex = try NSRegularExpression(pattern: api.pattern)
        let users = try Self.sources().filter { file in
            regex.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
        }
        guard let user = users.first else { return }
        let declared = try Self.declared()
        for (platform, needed) in api.needs {
            let minimum = try #require(declared[platform], "\(platform) is not declared")
            #expect(
                minimum >= needed,
                "\(api.name) (used in \(user.path)) needs \(platform) \(needed); Package.swift declares \(minimum)")
        }
    }

    @Test("the table finds what it looks for: Mutex is in the sources")
    func tableFindsUses() throws {
        let regex = try NSRegularExpression(pattern: Self.apis[0].pattern)
        #expect(
            try Self.sources().contains { file in
                regex.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
            })
    }
}
