import GlowModel
import GlowStorage
import GlowThemes
import Observation

/// The person's profile (issue 17): name, photo, interests, time zone, day start and week start,
/// each a property an observer hears alone, each change committed on the database's executor, and
/// shown, before the method returns. The store hears every committed change to the profile,
/// whoever made it.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
@Observable @MainActor
public final class ProfileStore {
    /// The profile, or nil before onboarding made one.
    public private(set) var profile: Profile?

    @ObservationIgnored let database: RitualDatabase
    @ObservationIgnored private var observation: DatabaseObservation?
    @ObservationIgnored private let heard = ChangeObservers<DatabaseChange>()

    /// The profile of `database`.
    ///
    /// - Throws: ``StoreError`` when the database's data cannot be read.
    public convenience init(database: RitualDatabase) async throws(StoreError) {
        self.init(database: database, from: try await database.mainState())
    }

    /// The profile as of `latest`, the state the main actor's stores were last given.
    init(database: RitualDatabase, from latest: DatabaseChange) {
        self.database = database
        profile = latest.data.profile
        observation = database.observeOnMain { [weak self] change in
            guard let self, change.profileChanged else { return }
            if self.profile != change.data.profile { self.profile = change.data.profile }
            self.heard.notify(change)
        }
    }

    /// Every committed change that may touch the profile from now on, each after the store shows
    /// it.
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// Makes the person's first profile (onboarding).
    public func create(_ profile: Profile) async throws(StoreError) {
        _ = try await database.runShown { (database) throws(StoreError) in
            try database.perform { (data) throws(ModelError) in try data.setProfile(profile) }
        }
    }

    /// Changes the profile (MODEL-61): the display name, interests, theme, time zone, day start
    /// or week start; `change` runs on the database's executor, on the profile as committed.
    public func edit(at instant: Instant = .now, _ change: @escaping @Sendable (inout Profile.Changes) throws -> Void)
        async throws(StoreError)
    {
        _ = try await database.runShown { (database) throws(StoreError) in
            try database.perform { (data) throws(ModelError) in try data.editProfile(at: instant, change) }
        }
    }

    /// Sets the photo, written atomically beside the database.
    public func setPhoto(_ bytes: [UInt8], at instant: Instant = .now) async throws(StoreError) {
        _ = try await database.runShown { (database) throws(StoreError) in try database.savePhoto(bytes, at: instant) }
    }
}

/// The chosen theme and the palette for the current light or dark mode (issue 17, THEME-10): an
/// id this version does not know shows Default, and says so. It follows the profile's theme,
/// whoever changes it.
@available(macOS 14, iOS 17, watchOS 10, tvOS 17, visionOS 1, *)
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
    @ObservationIgnored private var observation: DatabaseObservation?
    @ObservationIgnored private let heard = ChangeObservers<DatabaseChange>()

    /// The theme the profile of `profiles` names, in `mode`.
    public init(profiles: ProfileStore, mode: Mode = .light) {
        self.profiles = profiles
        let (theme, fellBack) = Theme.resolve(id: profiles.profile?.themeID.rawValue ?? Theme.standard.id)
        self.theme = theme
        self.fellBack = fellBack
        self.mode = mode
        palette = theme.palette(mode)
        observation = profiles.database.observeOnMain { [weak self] change in
            guard let self, change.profileChanged else { return }
            self.show(change.data.profile?.themeID.rawValue ?? Theme.standard.id)
            self.heard.notify(change)
        }
    }

    /// Every committed change that may touch the theme from now on, each after the store shows it.
    public func changes() -> AsyncStream<DatabaseChange> { heard.stream() }

    /// Chooses a theme by id and stores the choice in the profile; the store shows it once it is
    /// committed.
    ///
    /// - Throws: ``StoreError/Code/refused`` for an id that names no theme, or when there is no
    ///   profile yet.
    public func choose(_ id: String, at instant: Instant = .now) async throws(StoreError) {
        let refusal = StoreError(.refused, "there is no theme '\(id)'", path: profiles.database.path)
        guard !Theme.resolve(id: id).fellBack else { throw refusal }
        let slug: Slug
        do { slug = try Slug(id) } catch { throw refusal }
        try await profiles.edit(at: instant) { $0.themeID = slug }
    }

    /// Shows the theme `id` names, setting each property only when it changes.
    private func show(_ id: String) {
        let (chosen, unknown) = Theme.resolve(id: id)
        if theme != chosen { theme = chosen }
        if fellBack != unknown { fellBack = unknown }
        if palette != chosen.palette(mode) { palette = chosen.palette(mode) }
    }
}
