// GlowRitual is the umbrella an app links: one import gives every module of the SDK.
@_exported import GlowAuth
@_exported import GlowBundle
@_exported import GlowFeed
@_exported import GlowModel
@_exported import GlowReport
@_exported import GlowStreaks
@_exported import GlowThemes
@_exported import GlowWire
