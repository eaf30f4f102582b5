@_exported import GlowActivity
// GlowSDK is the umbrella an app may link: one import gives every module of the SDK an app uses.
// It holds no code of its own.
@_exported import GlowAuth
@_exported import GlowBundle
@_exported import GlowFeed
@_exported import GlowModel
@_exported import GlowRelay
@_exported import GlowReport
@_exported import GlowRitual
@_exported import GlowStorage
@_exported import GlowStreaks
@_exported import GlowThemes
@_exported import GlowWire
