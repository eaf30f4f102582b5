// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for the Glow SDK (issue 11), a package of its own as swift-protobuf's is, so
// the main package never builds with the fuzzer sanitizer. Each target is a thin wrapper around a
// harness of the main package's GlowFuzzing module; see README.md for how to build and run.
let package = Package(
    name: "FuzzTesting",
    platforms: [.macOS(.v15), .iOS(.v18), .watchOS(.v11), .tvOS(.v18), .visionOS(.v2)],
    dependencies: [.package(name: "GlowRitual", path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzRecords", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzRaw", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzBundle", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzDataSetJSON", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzColor", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzFraming", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzAuth", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzFeed", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzSync", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzDatabase", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzEnvelope", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzService", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzCrypto", dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
        .executableTarget(
            name: "FuzzHostileBlock",
            dependencies: ["FuzzDriver", .product(name: "GlowFuzzing", package: "GlowRitual")]),
    ],
    swiftLanguageModes: [.v6]
)
