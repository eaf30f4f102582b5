// GlowSDK is the umbrella an app may link: one import gives every module of the app side (what an
// iPhone, Watch or Mac app links), and nothing of the server side. It holds no code of its own;
// Tests/PackageTests/SidesTests.swift checks this list against the manifest.
@_exported import GlowActivity
@_exported import GlowBundle
@_exported import GlowClient
@_exported import GlowFeed
@_exported import GlowModel
@_exported import GlowProtocol
@_exported import GlowReminders
@_exported import GlowReport
@_exported import GlowRitual
@_exported import GlowStorage
@_exported import GlowStreaks
@_exported import GlowSync
@_exported import GlowThemes
@_exported import GlowWire
