import Foundation
import Testing

/// `Package.swift` declares minimums that cover every availability-gated API the sources use, or the
/// declaration that uses one says `@available` from where it has it (issues 26 and 58): an app on
/// any Apple platform the package declares, the seed app's iOS 16 included, compiles.
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

    /// Every Swift file of the libraries, tools, tests and examples: all compile against the
    /// declared minimums.
    static func sources() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in ["Sources", "Tools", "Tests", "Examples"] {
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

    /// The versions an `@available(macOS 14, iOS 17, *)` line gives, by platform.
    static func availability(_ line: Substring) -> [String: Version] {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("@available("), let close = trimmed.firstIndex(of: ")") else { return [:] }
        var found: [String: Version] = [:]
        for part in trimmed[trimmed.index(trimmed.startIndex, offsetBy: 11)..<close].split(separator: ",") {
            let words = part.split(separator: " ")
            guard words.count == 2, platforms.contains(String(words[0])) else { continue }
            let numbers = words[1].split(separator: ".").compactMap { Int($0) }
            guard let major = numbers.first else { continue }
            found[String(words[0])] = Version(major, numbers.count > 1 ? numbers[1] : 0)
        }
        return found
    }

    /// The availability of the declarations around line `index` of `lines`: the `@available` of
    /// the attribute block the line is in (a use that is itself an attribute, `@Observable`), and
    /// of every declaration that encloses it (a line of less indentation that declares something),
    /// nearest first.
    static func enclosingAvailability(of index: Int, in lines: [Substring]) -> [[String: Version]] {
        func indentation(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
        func isAttribute(_ line: Substring) -> Bool { line.trimmingCharacters(in: .whitespaces).hasPrefix("@") }
        /// The `@available` lines of the attribute block that ends at `end` (inclusive) and any
        /// attribute lines just after it.
        func block(around end: Int) -> [String: Version] {
            var start = end
            while start > 0,
                isAttribute(lines[start - 1])
                    || lines[start - 1].trimmingCharacters(in: .whitespaces)
                        .hasPrefix("///")
            {
                start -= 1
            }
            var last = end
            while last + 1 < lines.count, isAttribute(lines[last + 1]) { last += 1 }
            return lines[start...last].reduce(into: [:]) { $0.merge(availability($1)) { a, _ in a } }
        }
        let declaring =
            #"^\s*(@\w+(\([^)]*\))?\s+)*((public|package|private|fileprivate|internal|open|final|static|nonisolated|override|mutating|convenience|required)\s+)*(func|init|var|let|class|struct|enum|extension|actor|protocol)\b"#
        var found: [[String: Version]] = []
        if isAttribute(lines[index]) { found.append(block(around: index)) }
        var limit = indentation(lines[index])
        var line = index - 1
        while line >= 0, limit > 0 {
            let text = lines[line]
            if !text.trimmingCharacters(in: .whitespaces).isEmpty, indentation(text) < limit,
                text.range(of: declaring, options: .regularExpression) != nil
            {
                found.append(block(around: line - 1 >= 0 && isAttribute(lines[line - 1]) ? line - 1 : line))
                limit = indentation(text)
            }
            line -= 1
        }
        return found
    }

    /// The uses of `api` in `text` that neither the declared minimums nor an `@available` around
    /// them cover: their line numbers and the platform each falls short on.
    static func uncovered(_ api: GatedAPI, in text: String, declared: [String: Version]) throws -> [(Int, String)] {
        let regex = try NSRegularExpression(pattern: api.pattern)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var short: [(Int, String)] = []
        for (index, line) in lines.enumerated() {
            // The code alone: string literals emptied (this file's own patterns), a comment cut off.
            let code = String(line).replacingOccurrences(
                of: #""([^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression
            ).components(separatedBy: "//")[0]
            guard regex.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil else { continue }
            let around = enclosingAvailability(of: index, in: lines)
            for (platform, needed) in api.needs where (declared[platform] ?? Version(0)) < needed {
                let marked = around.contains { ($0[platform] ?? Version(0)) >= needed }
                if !marked { short.append((index + 1, "\(platform) \(needed)")) }
            }
        }
        return short
    }

    @Test("no use of a gated API is below the declared minimum without an @available that covers it", arguments: apis)
    func covers(_ api: GatedAPI) throws {
        let declared = try Self.declared()
        for file in try Self.sources() {
            for (line, platform) in try Self.uncovered(api, in: file.text, declared: declared) {
                Issue.record(
                    "\(api.name) at \(file.path):\(line) needs \(platform); neither Package.swift nor an @available around it says so"
                )
            }
        }
    }

    /// Snippets of code and whether a check of Observation against iOS 16 finds a use uncovered.
    static let snippets: [(String, Bool)] = [
        ("@Observable @MainActor\npublic final class Store {}", true),
        (
            "@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)\n@Observable @MainActor\nfinal class Store {}",
            false
        ),
        (
            "/// A store.\n@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)\n@Observable\nfinal class Store {}",
            false
        ),
        ("@available(macOS 14, iOS 16, watchOS 10, tvOS 17, visionOS 1, *)\n@Observable\nfinal class Store {}", true),
        ("struct Tests {\n    func t() {\n        withObservationTracking { } onChange: { }\n    }\n}", true),
        (
            "@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)\nstruct Tests {\n    func t() {\n"
                + "        withObservationTracking { } onChange: { }\n    }\n}", false
        ),
        (
            "struct Tests {\n    @available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)\n    @MainActor static func t() {\n"
                + "        withObservationTracking { } onChange: { }\n    }\n}", false
        ),
    ]

    @Test(
        "the check finds a use left unmarked, and takes one marked on its declaration or around it", arguments: snippets
    )
    func checkFindsUnmarked(_ code: String, _ caught: Bool) throws {
        let observation = try #require(Self.apis.first { $0.name == "Observation" })
        let seed: [String: Version] = [
            "macOS": Version(13), "iOS": Version(16), "watchOS": Version(9), "tvOS": Version(16),
            "visionOS": Version(1),
        ]
        #expect(try !Self.uncovered(observation, in: code, declared: seed).isEmpty == caught, "\(code)")
    }

    @Test("the package declares the seed app's platforms: iOS 16, macOS 13, watchOS 9, tvOS 16")
    func seedPlatforms() throws {
        let declared = try Self.declared()
        #expect(declared["iOS"] == Version(16) && declared["macOS"] == Version(13))
        #expect(declared["watchOS"] == Version(9) && declared["tvOS"] == Version(16))
    }

    @Test("the table finds what it looks for: Observation is in the sources, Synchronization's lock is not")
    func tableFindsUses() throws {
        func used(_ name: String) throws -> Bool {
            let api = try #require(Self.apis.first { $0.name == name })
            let regex = try NSRegularExpression(pattern: api.pattern)
            return try Self.sources().contains { file in
                regex.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
            }
        }
        #expect(try used("Observation"))
        #expect(try !used("Synchronization.Mutex") && !used("Synchronization.Atomic"))
    }
}
