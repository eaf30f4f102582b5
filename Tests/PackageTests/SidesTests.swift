import Foundation
import Testing

/// The two sides of the package (DESIGN.md, issue 42), read from the manifest as an app developer
/// reads it: what an iPhone, Watch or Mac app links reaches no server module and no C library but
/// zlib and SQLite, which every Apple SDK ships. Running code on Linux cannot see this (Debian has
/// every library), so the manifest and the imports are read instead.
@Suite("App side and server side")
struct SidesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The app side's public modules: what an app links, and what GlowSDK re-exports.
    static let appModules: Set<String> = [
        "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowFeed", "GlowActivity", "GlowThemes",
        "GlowReminders", "GlowStorage", "GlowRitual", "GlowProtocol", "GlowClient", "GlowReport", "GlowSync",
    ]
    /// The app side's building blocks: package access only, never a product of their own.
    static let appSupport: Set<String> = ["GlowCore", "GlowCrypto", "CGlowCrypto", "GlowSDK"]
    /// The only system libraries the app side may reach.
    static let appSystemLibraries: Set<String> = ["CZlib", "CSQLite"]
    /// The server side: accounts and ID tokens, the relay and its pushes, HTTP, PostgreSQL and the
    /// server's stores, with the libraries only they may use.
    static let serverSide: Set<String> = [
        "GlowAuth", "GlowRelay", "GlowServer", "GlowServerStores", "GlowPostgres", "GlowPostgresStores",
        "GlowService", "glow-server", "CCrypto", "CPostgres", "CMicroHTTPD",
    ]
    /// Tools and test support, which may use either side; GlowCryptoOracle (libcrypto and
    /// libargon2 through CArgon2) is what the package's own crypto is checked against.
    static let tools: Set<String> = [
        "GlowConformance", "GlowFuzzing", "GlowToolSupport", "glow-tool", "glow-bench", "glow-load",
        "glow-crash-child", "glow-share-child", "glow-sample", "GlowCryptoOracle", "CArgon2",
    ]
    /// Example apps (`Examples/`): a third party's code, linking the app side's umbrella alone.
    static let examples: Set<String> = ["glow-first-app"]
    /// Modules of the toolchain an app-side source may import (`Security`, every Apple SDK's, for
    /// the Keychain behind `#if canImport(Security)`).
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationNetworking", "FoundationEssentials", "Dispatch", "Observation", "Synchronization",
        "Glibc", "Musl", "Darwin", "Android", "WinSDK", "os", "Security",
        // Darwin's notify(3), through which processes on one database file hear each other.
        "notify",
    ]

    /// A target of `swift package dump-package`.
    struct Target {
        let name: String
        let type: String
        let path: String?
        let dependencies: [String]
        /// The linker and unsafe settings it declares (`linkedLibrary z`, `unsafeFlags`).
        let linking: [String]
    }

    /// The manifest as SwiftPM reads it, its targets by name.
    static let manifest: Result<[String: Target], ManifestError> = readManifest()

    struct ManifestError: Error, CustomStringConvertible {
        let description: String
    }

    static func readManifest() -> Result<[String: Target], ManifestError> {
        // A scratch path of its own, so the dump neither waits for nor disturbs the build's lock.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("glow-sides-\(UUID())")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            if FileManager.default.fileExists(atPath: scratch.path) {
                try FileManager.default.removeItem(at: scratch)
            }
            guard process.terminationStatus == 0 else {
                return .failure(
                    ManifestError(description: "swift package dump-package exited \(process.terminationStatus)"))
            }
            let json = try JSONSerialization.jsonObject(with: data)
            guard let object = json as? [String: Any], let targets = object["targets"] as? [[String: Any]] else {
                return .failure(ManifestError(description: "the dump has no targets"))
            }
            var byName: [String: Target] = [:]
            for target in targets {
                let name = target["name"] as? String ?? ""
                let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                    dependency.values.compactMap { ($0 as? [Any])?.first as? String }.first
                }
                let linking = (target["settings"] as? [[String: Any]] ?? []).compactMap { setting -> String? in
                    guard let kind = setting["kind"] as? [String: Any] else { return nil }
                    let names = kind.keys.filter { ["linkedLibrary", "linkedFramework", "unsafeFlags"].contains($0) }
                    return names.first.map { "\($0) \(kind[$0] ?? "")" }
                }
                byName[name] = Target(
                    name: name, type: target["type"] as? String ?? "", path: target["path"] as? String,
                    dependencies: dependencies, linking: linking)
            }
            return .success(byName)
        } catch {
            return .failure(ManifestError(description: "\(error)"))
        }
    }

    /// Every target `name` depends on, directly or not, itself excluded.
    static func closure(of name: String, in targets: [String: Target]) -> Set<String> {
        var seen: Set<String> = []
        var next = targets[name]?.dependencies ?? []
        while let dependency = next.popLast() {
            guard seen.insert(dependency).inserted else { continue }
            next += targets[dependency]?.dependencies ?? []
        }
        return seen
    }

    @Test("every module and library is on one side, or a tool")
    func everyTargetPlaced() throws {
        let targets = try Self.manifest.get()
        let placed = Self.appModules.union(Self.appSupport).union(Self.appSystemLibraries).union(Self.serverSide)
            .union(Self.tools).union(Self.examples)
        for target in targets.values where target.type != "test" {
            #expect(placed.contains(target.name), "\(target.name) is on neither side: place it in SidesTests")
        }
        for name in placed {
            #expect(targets[name] != nil, "\(name) is no longer in the manifest")
        }
        for target in targets.values where target.name != "GlowCryptoOracle" {
            #expect(!target.dependencies.contains("CArgon2"), "\(target.name) links libargon2, the oracle's only")
        }
    }

    @Test("the app side reaches no server module and no system library but zlib and SQLite")
    func appSideClosure() throws {
        let targets = try Self.manifest.get()
        var systemLibraries: Set<String> = []
        for name in Self.appModules.union(Self.appSupport) {
            guard let target = targets[name] else { continue }
            let reached = Self.closure(of: name, in: targets)
            let server = reached.intersection(Self.serverSide)
            #expect(server.isEmpty, "\(name) reaches the server side through \(server.sorted())")
            let tools = reached.intersection(Self.tools)
            #expect(tools.isEmpty, "\(name) reaches the tools \(tools.sorted())")
            systemLibraries.formUnion(reached.filter { targets[$0]?.type == "system" })
            #expect(target.linking.isEmpty, "\(name) declares \(target.linking): an app could not build it")
            for dependency in reached {
                let linking = targets[dependency]?.linking ?? []
                #expect(linking.isEmpty, "\(name) reaches \(dependency), which declares \(linking)")
            }
        }
        #expect(systemLibraries == Self.appSystemLibraries)
    }

    @Test("an example app links GlowSDK alone, as a third-party app does")
    func examplesLinkTheUmbrella() throws {
        let targets = try Self.manifest.get()
        for name in Self.examples {
            let target = try #require(targets[name])
            #expect(target.dependencies == ["GlowSDK"], "\(name) depends on \(target.dependencies)")
            #expect(target.path?.hasPrefix("Examples/") == true)
        }
    }

    @Test("the server side's libraries reach no tool")
    func serverLibraries() throws {
        let targets = try Self.manifest.get()
        for name in Self.serverSide where targets[name]?.type == "regular" {
            let reached = Self.closure(of: name, in: targets)
            #expect(reached.isDisjoint(with: Self.tools), "\(name) reaches a tool")
        }
    }

    @Test("GlowSDK re-exports exactly the app side")
    func umbrella() throws {
        let targets = try Self.manifest.get()
        let sdk = try #require(targets["GlowSDK"])
        #expect(Set(sdk.dependencies) == Self.appModules)
        let exports = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/GlowSDK/Exports.swift"), encoding: .utf8)
        let exported = Set(
            exports.split(separator: "\n").compactMap { line -> String? in
                line.hasPrefix("@_exported import ") ? String(line.dropFirst("@_exported import ".count)) : nil
            })
        #expect(exported == Self.appModules)
        let code = exports.split(separator: "\n").filter { !$0.hasPrefix("//") && !$0.hasPrefix("@_exported") }
        #expect(code.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty }, "GlowSDK holds code")
    }

    /// The modules the sources of `target` import, with the file of each.
    static func imports(of target: String, path: String?) throws -> [(module: String, file: String)] {
        let folder = Self.root.appendingPathComponent(path ?? "Sources/\(target)")
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        let pattern = try NSRegularExpression(
            pattern:
                #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)"#,
            options: .anchorsMatchLines)
        var found: [(String, String)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                if let module = Range(match.range(at: 1), in: text) {
                    found.append((String(text[module]), file.lastPathComponent))
                }
            }
        }
        return found
    }

    @Test("an app-side source imports only what its target reaches, or the toolchain")
    func appSideImports() throws {
        let targets = try Self.manifest.get()
        var checked = 0
        for name in Self.appModules.union(Self.appSupport) {
            guard let target = targets[name], target.type == "regular" else { continue }
            let allowed = Self.closure(of: name, in: targets).union(Self.toolchainModules)
            for (module, file) in try Self.imports(of: name, path: target.path) {
                #expect(allowed.contains(module), "\(name)/\(file) imports \(module), which \(name) does not reach")
                checked += 1
            }
        }
        #expect(checked > 50)
    }

    @Test("the README's module list shows the two sides")
    func readme() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let app = try #require(readme.range(of: "\n### The app side\n"))
        let server = try #require(readme.range(of: "\n### The server side\n"))
        #expect(app.upperBound < server.lowerBound)
        /// The words of the `####` headings of a part of the README.
        func headed(_ text: Substring) -> Set<String> {
            Set(
                text.split(separator: "\n").filter { $0.hasPrefix("#### ") }
                    .flatMap { $0.split(whereSeparator: { " ,".contains($0) }).map(String.init) })
        }
        let appHeadings = headed(readme[app.upperBound..<server.lowerBound])
        let rest = readme[server.upperBound...]
        let serverHeadings = headed(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
        for module in Self.appModules.union(["GlowSDK"]) {
            #expect(appHeadings.contains(module), "\(module) has no heading under the app side")
            #expect(!serverHeadings.contains(module), "\(module) is headed under the server side")
        }
        for module in Self.serverSide where module.hasPrefix("Glow") || module.hasPrefix("glow") {
            #expect(serverHeadings.contains(module), "\(module) has no heading under the server side")
            #expect(!appHeadings.contains(module), "\(module) is headed under the app side")
        }
    }
}
