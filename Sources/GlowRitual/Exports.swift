// The storage layer's public face is part of this module's: an app that links GlowRitual catches
// `StoreError` and holds a `DatabaseObservation` by name. The layer itself (GlowStorage) is the
// SDK's own and no product of its own.
@_exported import GlowStorage
