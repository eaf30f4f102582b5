// swift-tools-version: 6.0
import PackageDescription

/// Settings every target shares, so the whole package builds under one set of rules.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "GlowRitual",
    // The seed app's platforms (issue 58): the minimums cover every availability-gated API the
    // sources use, or the declaration using it says @available (Observation's stores);
    // Tests/PackageTests/PlatformTests checks this list and those marks against the sources.
    platforms: [.macOS(.v13), .iOS(.v16), .watchOS(.v9), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "GlowModel", targets: ["GlowModel"]),
        .library(name: "GlowStreaks", targets: ["GlowStreaks"]),
        .library(name: "GlowWire", targets: ["GlowWire"]),
        .library(name: "GlowBundle", targets: ["GlowBundle"]),
        .library(name: "GlowSync", targets: ["GlowSync"]),
        .library(name: "GlowThemes", targets: ["GlowThemes"]),
        .library(name: "GlowAuth", targets: ["GlowAuth"]),
        .library(name: "GlowFeed", targets: ["GlowFeed"]),
        .library(name: "GlowActivity", targets: ["GlowActivity"]),
        .library(name: "GlowRelay", targets: ["GlowRelay"]),
        .library(name: "GlowServerStores", targets: ["GlowServerStores"]),
        .library(name: "GlowRitual", targets: ["GlowRitual"]),
        .library(name: "GlowSDK", targets: ["GlowSDK"]),
        .library(name: "GlowReport", targets: ["GlowReport"]),
        .library(name: "GlowServer", targets: ["GlowServer"]),
        .library(name: "GlowPostgres", targets: ["GlowPostgres"]),
        .library(name: "GlowPostgresStores", targets: ["GlowPostgresStores"]),
        .library(name: "GlowProtocol", targets: ["GlowProtocol"]),
        .library(name: "GlowService", targets: ["GlowService"]),
        .library(name: "GlowReminders", targets: ["GlowReminders"]),
        .library(name: "GlowClient", targets: ["GlowClient"]),
        .executable(name: "glow-tool", targets: ["glow-tool"]),
        .executable(name: "glow-server", targets: ["glow-server"]),
        // The fuzzing harnesses, for FuzzTesting/ (a package of its own) and its regression
        // replay in the tests; not for apps.
        .library(name: "GlowFuzzing", targets: ["GlowFuzzing"]),
    ],
    dependencies: [],
    targets: [
        // Small building blocks every module may use (base64, the one binary search); package
        // access only, so apps never see it.
        .target(name: "GlowCore", swiftSettings: sharedSettings),
        .target(name: "GlowModel", dependencies: ["GlowCore"], swiftSettings: sharedSettings),
        .target(name: "GlowStreaks", dependencies: ["GlowModel", "GlowCore"], swiftSettings: sharedSettings),
        .target(name: "GlowThemes", dependencies: ["GlowCore"], swiftSettings: sharedSettings),
        // The package's own crypto (issue 42): portable C with no system library, so the app side
        // builds for every Apple platform; GlowCrypto is its one Swift seam.
        .target(name: "CGlowCrypto"),
        .target(name: "GlowCrypto", dependencies: ["CGlowCrypto"], swiftSettings: sharedSettings),
        // libcrypto, on the server side only: ID-token signatures (GlowAuth), and an oracle in tests.
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .target(name: "GlowAuth", dependencies: ["GlowCore", "GlowCrypto", "CCrypto"], swiftSettings: sharedSettings),
        .target(
            name: "GlowConformance",
            dependencies: [
                "GlowCore", "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowThemes", "GlowAuth",
                "GlowCrypto",
                "GlowFeed", "GlowRelay", "GlowActivity", "GlowProtocol", "GlowReminders", "GlowRitual", "GlowSync",
            ],
            swiftSettings: sharedSettings),
        .target(
            name: "GlowFuzzing",
            dependencies: [
                "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowThemes", "GlowAuth", "GlowFeed",
                "GlowConformance", "GlowRitual", "GlowStorage", "GlowRelay", "GlowProtocol", "GlowServer",
                "GlowService", "GlowCrypto", "GlowCryptoOracle", "GlowSync",
            ],
            swiftSettings: sharedSettings),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The one storage layer under every database (a person's, a relay's, the accounts').
        .target(name: "GlowStorage", dependencies: ["GlowCore", "CSQLite"], swiftSettings: sharedSettings),
        // The server side's durable stores: no app-layer or UI code.
        .target(
            name: "GlowServerStores",
            dependencies: [
                "GlowStorage", "GlowAuth", "GlowFeed", "GlowWire", "GlowRelay",
                "GlowReminders", "GlowSync", "GlowModel",
            ],
            swiftSettings: sharedSettings),
        // The app layer: the person's database and the observable stores over it.
        .target(
            name: "GlowRitual",
            dependencies: [
                "GlowCore", "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowFeed", "GlowThemes",
                "GlowStorage", "GlowProtocol", "GlowActivity", "GlowClient", "GlowReminders", "GlowSync",
            ],
            swiftSettings: sharedSettings),
        // The umbrella: re-exports only.
        .target(
            name: "GlowSDK",
            dependencies: [
                "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowFeed", "GlowActivity", "GlowThemes",
                "GlowReminders", "GlowStorage", "GlowRitual", "GlowProtocol", "GlowClient", "GlowReport", "GlowSync",
            ],
            swiftSettings: sharedSettings),
        .target(
            name: "GlowReport", dependencies: ["GlowCore", "GlowModel", "GlowStreaks", "GlowThemes"],
            swiftSettings: sharedSettings),
        // glow-server's HTTP: Debian's GNU libmicrohttpd (issue 28).
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .target(name: "GlowServer", dependencies: ["GlowCore", "CMicroHTTPD"], swiftSettings: sharedSettings),
        .testTarget(name: "GlowServerTests", dependencies: ["GlowServer"], swiftSettings: sharedSettings),
        // glow-server's PostgreSQL store: Debian's libpq (issue 28).
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(name: "GlowPostgres", dependencies: ["GlowCore", "CPostgres"], swiftSettings: sharedSettings),
        // The server's accounts and relay in PostgreSQL, shared by every process of a deployment.
        .target(
            name: "GlowPostgresStores",
            dependencies: [
                "GlowPostgres", "GlowStorage", "GlowServerStores", "GlowAuth", "GlowRelay", "GlowFeed", "GlowWire",
                "GlowSync", "GlowModel",
            ],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowPostgresTests",
            dependencies: [
                "GlowPostgres", "GlowPostgresStores", "GlowStorage", "GlowAuth", "GlowRelay", "GlowFeed", "GlowService",
                "GlowServer", "GlowConformance", "GlowModel", "GlowClient", "GlowProtocol", "GlowServerStores",
                "GlowToolSupport", "GlowReminders", "GlowSync", "GlowBundle", "GlowRitual", "glow-server", "glow-load",
            ],
            swiftSettings: sharedSettings),
        // The server's protocol (Spec/server.md): its calls and messages, for the server, its
        // clients and the conformance runner alike.
        .target(
            name: "GlowProtocol", dependencies: ["GlowCore", "GlowWire", "GlowFeed"], swiftSettings: sharedSettings),
        // The local notifications of the coming Days (Spec/reminders.md).
        .target(
            name: "GlowReminders", dependencies: ["GlowCore", "GlowModel", "GlowStreaks"],
            swiftSettings: sharedSettings
        ),
        .testTarget(
            name: "GlowRemindersTests",
            dependencies: ["GlowReminders", "GlowModel", "GlowStreaks"],
            swiftSettings: sharedSettings),
        // A device's side of the server's protocol, over URLSession.
        .target(
            name: "GlowClient",
            dependencies: ["GlowProtocol", "GlowCore", "GlowWire", "GlowModel", "GlowSync", "GlowBundle"],
            swiftSettings: sharedSettings),
        // The server's request handler over the account service and the relay.
        .target(
            name: "GlowService",
            dependencies: [
                "GlowProtocol", "GlowServer", "GlowAuth", "GlowRelay", "GlowFeed", "GlowWire", "GlowCore",
                "GlowStorage", "GlowServerStores", "GlowModel", "GlowReminders", "GlowSync",
            ],
            swiftSettings: sharedSettings),
        .executableTarget(
            name: "glow-server",
            dependencies: [
                "GlowService", "GlowServer", "GlowServerStores", "GlowPostgres", "GlowPostgresStores", "GlowAuth",
                "GlowRelay", "GlowProtocol", "GlowToolSupport", "GlowReminders", "GlowStorage",
            ],
            path: "Tools/glow-server", swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowServiceTests",
            dependencies: [
                "GlowService", "GlowProtocol", "GlowServer", "GlowServerStores", "GlowAuth", "GlowRelay", "GlowFeed",
                "GlowWire", "GlowConformance", "GlowModel", "GlowClient", "GlowRitual", "GlowBundle", "GlowStorage",
                "GlowToolSupport", "GlowReminders", "GlowSync", "glow-server", "glow-first-app",
            ],
            swiftSettings: sharedSettings),
        // The README's "Your first app" as a program: a third-party app's code, on GlowSDK alone.
        .executableTarget(
            name: "glow-first-app", dependencies: ["GlowSDK"], path: "Examples/FirstApp",
            swiftSettings: sharedSettings),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "GlowWire", dependencies: ["GlowModel"], swiftSettings: sharedSettings),
        // The feed's replica, registers, items and messages: what a bundle carries and a device keeps.
        .target(
            name: "GlowFeed", dependencies: ["GlowCore", "GlowModel", "GlowWire"], swiftSettings: sharedSettings),
        // The items a person's data gives (evaluated by the streak engine), published into a replica.
        .target(
            name: "GlowActivity", dependencies: ["GlowFeed", "GlowModel", "GlowStreaks"], swiftSettings: sharedSettings),
        // The relay's logic and its push outbox (server side; its messages are GlowProtocol's).
        .target(
            name: "GlowRelay",
            dependencies: ["GlowFeed", "GlowCore", "GlowModel", "GlowWire", "GlowCrypto", "GlowProtocol", "GlowSync"],
            swiftSettings: sharedSettings),
        .target(
            name: "GlowBundle", dependencies: ["GlowCore", "GlowModel", "GlowWire", "GlowFeed", "GlowCrypto", "CZlib"],
            swiftSettings: sharedSettings),
        // A person's own data between their devices, sealed and chained (Spec/sync.md).
        .target(
            name: "GlowSync", dependencies: ["GlowCore", "GlowModel", "GlowWire", "GlowBundle", "GlowCrypto"],
            swiftSettings: sharedSettings),
        .target(name: "GlowToolSupport", path: "Tools/ToolSupport", swiftSettings: sharedSettings),
        .executableTarget(
            name: "glow-tool",
            dependencies: [
                "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowThemes", "GlowAuth", "GlowFeed",
                "GlowRitual", "GlowReport", "GlowConformance", "GlowToolSupport", "GlowStorage", "GlowActivity",
                "GlowRelay", "GlowClient", "GlowProtocol", "GlowReminders",
            ],
            path: "Tools/glow-tool",
            exclude: ["README.md"], swiftSettings: sharedSettings),
        .executableTarget(
            name: "glow-bench",
            dependencies: [
                "GlowModel", "GlowStreaks", "GlowWire", "GlowBundle", "GlowAuth", "GlowFeed", "GlowRitual",
                "GlowReport", "GlowThemes", "GlowToolSupport", "GlowStorage", "GlowServerStores", "GlowRelay",
                "GlowActivity", "GlowService", "GlowServer", "GlowClient", "GlowProtocol", "GlowPostgresStores",
                "GlowReminders", "GlowCrypto", "GlowCryptoOracle", "GlowSync",
            ],
            path: "Tools/glow-bench",
            swiftSettings: sharedSettings),
        // The load generator: simulated devices against glow-server processes (issue 29).
        .executableTarget(
            name: "glow-load",
            dependencies: [
                "GlowClient", "GlowFeed", "GlowModel", "GlowProtocol", "GlowRelay", "GlowToolSupport", "GlowPostgres",
                "GlowPostgresStores", "GlowServerStores", "GlowStorage", "GlowSync", "GlowBundle", "GlowCrypto",
            ],
            path: "Tools/glow-load", swiftSettings: sharedSettings),
        .executableTarget(
            name: "glow-crash-child", dependencies: ["GlowRitual", "GlowModel", "GlowFeed", "GlowStorage"],
            path: "Tools/glow-crash-child",
            swiftSettings: sharedSettings),
        // The writer of the shared-file test: changes said once committed, beside a second connection.
        .executableTarget(
            name: "glow-share-child", dependencies: ["GlowRitual", "GlowStorage"], path: "Tools/glow-share-child",
            swiftSettings: sharedSettings),
        .executableTarget(
            name: "glow-sample", dependencies: ["GlowModel", "GlowWire", "GlowBundle"], path: "Tools/glow-sample",
            swiftSettings: sharedSettings),
        .testTarget(name: "GlowModelTests", dependencies: ["GlowModel"], swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowStreaksTests", dependencies: ["GlowStreaks", "GlowConformance"], swiftSettings: sharedSettings),
        .testTarget(name: "GlowThemesTests", dependencies: ["GlowThemes"], swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowFeedTests",
            dependencies: [
                "GlowFeed", "GlowModel", "GlowWire", "GlowCore", "GlowRelay", "GlowActivity", "GlowProtocol",
            ],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowRitualTests",
            dependencies: [
                "GlowRitual", "GlowStorage", "GlowModel", "GlowBundle", "GlowFeed", "GlowAuth", "GlowStreaks",
                "GlowThemes", "GlowWire", "glow-crash-child", "glow-share-child", "glow-tool", "GlowProtocol",
                "GlowRelay", "GlowActivity",
                "GlowSync", "GlowClient",
            ],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "PackageTests",
            dependencies: [
                "GlowCore", "GlowModel", "GlowWire", "GlowBundle", "GlowFeed", "GlowThemes", "GlowAuth", "GlowStorage",
                "GlowReport",
            ],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowStorageTests",
            dependencies: [
                "GlowStorage", "GlowServerStores", "GlowAuth", "GlowFeed", "GlowModel", "GlowRelay", "GlowProtocol",
            ],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowReportTests", dependencies: ["GlowReport", "GlowModel", "GlowThemes"],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowAuthTests", dependencies: ["GlowAuth", "GlowCore", "GlowCrypto"], swiftSettings: sharedSettings),
        // libargon2 and libcrypto as the oracle the package's own crypto is held against, by the
        // tests, the `crypto` fuzz target and glow-bench; never linked by a module of either side.
        .systemLibrary(
            name: "CArgon2", path: "Tools/CArgon2", pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]),
        .target(
            name: "GlowCryptoOracle", dependencies: ["CCrypto", "CArgon2"], path: "Tools/CryptoOracle",
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowCryptoTests", dependencies: ["GlowCrypto", "GlowCryptoOracle", "GlowModel"],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowWireTests",
            dependencies: [
                "GlowWire", "GlowBundle", "GlowFeed", "GlowStreaks", "GlowFuzzing", "GlowSync", "GlowRelay",
            ],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "GlowToolTests",
            dependencies: [
                "glow-tool", "glow-sample", "glow-bench", "glow-crash-child", "glow-share-child", "GlowModel",
                "GlowBundle", "GlowFeed",
                "GlowStreaks",
            ],
            exclude: ["Fixtures"],
            swiftSettings: sharedSettings),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["GlowModel", "GlowWire", "GlowBundle", "GlowFeed", "GlowConformance"],
            swiftSettings: sharedSettings),
    ],
    swiftLanguageModes: [.v6]
)
