import GlowModel
import GlowThemes
import Observation

/// The person's profile (issue 17): name, photo, interests, time zone, day start and week start,
/// each a property an observer hears alone, each change committed before the method returns.
@Observable @MainActor
public final class ProfileStore {
    /// The profile, or nil before onboarding made one.
    public private(set) var profile: Profile?

    @ObservationIgnored private let database: RitualDatabase

    /// The database's path, for the errors of stores built on this one.
    var databasePath: String { database.path }

    /// The profile of `database`.
    public init(database: RitualDatabase) {
        self.database = database
        profile = database.data.profile
    }

    /// Makes the person's first profile (onboarding).
    public func create(_ profile: Profile) throws(StoreError) {
        try database.perform { (data) throws(ModelError) in try data.setProfile(profile) }
        refresh()
    }

    /// Changes the profile (MODEL-61): the display name, interests, theme, time zone, day start
    /// or week start.
    public func edit(at instant: Instant = .now, _ change: (inout Profile.Changes) throws(ModelError) -> Void)
        throws(StoreError)
    {
        try database.perform { (data) throws(ModelError) in try data.editProfile(at: instant, change) }
        refresh()
    }

    /// Sets the photo, written atomically beside the database.
    public func setPhoto(_ bytes: [UInt8], at instant: Instant = .now) throws(StoreError) {
        try database.savePhoto(bytes, at: instant)
        refresh()
    }

    /// Reads the profile again, setting it only when it changed.
    func refresh() {
        let stored = database.data.profile
        if stored != profile { profile = stored }
    }
}

/// The chosen theme and the palette for the current light or dark mode (issue 17, THEME-10): an
/// id this version does not know shows Default, and says so.
@Observable @MainActor
public final class ThemeStore {
    /// The theme shown.
    public private(set) var theme: Theme
    /// Whether the stored id was unknown and Default is shown instead.
    public private(set) var fellBack: Bool
    /// Light or dark, as the system says.
    public var mode: Mode {
        didSet { if palette != theme.palette(mode) { palette = theme.palette(mode) } }
    }
    /// The theme's palette for ``mode``.
    public private(set) var palette: Palette

    @ObservationIgnored private let profiles: ProfileStore

    /// The theme the profile of `profiles` names, in `mode`.
    public init(profiles: ProfileStore, mode: Mode = .light) {
        self.profiles = profiles
        let (theme, fellBack) = Theme.resolve(id: profiles.profile?.themeID.rawValue ?? Theme.standard.id)
        self.theme = theme
        self.fellBack = fellBack
        self.mode = mode
        palette = theme.palette(mode)
    }

    /// Chooses a theme by id and stores the choice in the profile.
    ///
    /// - Throws: ``StoreError/Code/refused`` for an id that names no theme, or when there is no
    ///   profile yet.
    public func choose(_ id: String, at instant: Instant = .now) throws(StoreError) {
        let (chosen, unknown) = Theme.resolve(id: id)
        guard !unknown, let slug = try? Slug(id) else {
            throw StoreError(.refused, "there is no theme '\(id)'", path: profiles.databasePath)
        }
        try profiles.edit(at: instant) { $0.themeID = slug }
        if theme != chosen { theme = chosen }
        if fellBack { fellBack = false }
        if palette != chosen.palette(mode) { palette = chosen.palette(mode) }
    }
}
