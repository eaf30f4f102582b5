import Foundation

/// A semantic colour role: what a colour is for, not what it looks like (THEME-8).
public enum Role: String, CaseIterable, Hashable, Sendable, Codable {
    /// Buttons, links, selected states.
    case accent
    /// Text and icons on ``accent``.
    case onAccent
    /// Soft accent fills: chips, selected cards.
    case accentContainer
    /// Text and icons on ``accentContainer``.
    case onAccentContainer
    /// The screen's background.
    case background
    /// Cards and sheets.
    case surface
    /// Grouped content inside a surface.
    case surfaceContainer
    /// Titles and body text.
    case primaryText
    /// Captions and secondary text.
    case secondaryText
    /// Borders of inputs and cards; icons.
    case outline
    /// Decorative dividers.
    case outlineVariant
    /// Done, positive states.
    case success
    /// At-risk streaks, attention.
    case warning
    /// Errors and destructive actions.
    case error
    /// The keyboard focus indicator.
    case focusRing
    /// The heart reaction of the Glow feed.
    case reactionHeart
    /// The fire reaction.
    case reactionFire
    /// The clap reaction.
    case reactionClap
    /// Overview grid, intensity 0 (nothing).
    case heatmap0
    /// Overview grid, intensity 1.
    case heatmap1
    /// Overview grid, intensity 2.
    case heatmap2
    /// Overview grid, intensity 3.
    case heatmap3
    /// Overview grid, intensity 4 (done).
    case heatmap4

    /// The heat-map role for an Overview intensity 0...4.
    public static func heatmap(level: Int) -> Role {
        [.heatmap0, .heatmap1, .heatmap2, .heatmap3, .heatmap4][max(0, min(4, level))]
    }
}

/// Light or dark appearance.
public enum Mode: String, CaseIterable, Hashable, Sendable, Codable {
    /// Dark text on light surfaces.
    case light
    /// Light text on dark surfaces.
    case dark

    /// Parses `light` or `dark`.
    ///
    /// - Throws: ``ThemeError/Code/invalidMode``.
    public init(parsing text: String) throws(ThemeError) {
        guard let mode = Mode(rawValue: text) else {
            throw ThemeError(.invalidMode, "\"\(text)\" is not a mode; use light or dark", rule: "THEME-8")
        }
        self = mode
    }
}

/// Every role's colour for one theme in one mode (THEME-8).
public struct Palette: Hashable, Sendable {
    private let colors: [Role: Color]

    /// A palette from hexadecimal colours; every role must be given.
    init(hex: [Role: String]) {
        precondition(Set(hex.keys) == Set(Role.allCases), "a palette defines every role")
        colors = hex.mapValues { try! Color(hex: $0) }
    }

    /// The colour of `role`.
    public subscript(role: Role) -> Color { colors[role]! }
}

/// A theme: a stable id, a name, and a palette per mode (THEME-8 ... THEME-10).
public struct Theme: Hashable, Sendable, Identifiable {
    /// The stable id stored in profiles, such as `ocean`.
    public let id: String
    /// The name shown in the Profile screen.
    public let name: String
    /// What text must reach in this theme: AA (4.5:1), or AAA (7:1) for Black & White.
    public let requiredText: ContrastRequirement
    /// The light palette.
    public let light: Palette
    /// The dark palette.
    public let dark: Palette

    /// The palette of `mode`.
    public func palette(_ mode: Mode) -> Palette { mode == .light ? light : dark }

    /// Every theme, Default first.
    public static let all: [Theme] = [.standard, .ocean, .forest, .sunset, .blackAndWhite]

    /// The theme a stored id names, falling back to Default for an id this version does not know,
    /// and saying so (THEME-10).
    public static func resolve(id: String) -> (theme: Theme, fellBack: Bool) {
        if let theme = all.first(where: { $0.id == id }) { return (theme, false) }
        return (.standard, true)
    }
}

/// The app's layout constants, in points (THEME-12).
public enum Layout {
    /// Corner radii: small (chips), medium (cards), large (sheets), and full (pills).
    public static let cornerRadius = (small: 8.0, medium: 14.0, large: 22.0, full: 999.0)
    /// Paddings on a 4-point grid.
    public static let padding = (extraSmall: 4.0, small: 8.0, medium: 12.0, large: 16.0, extraLarge: 24.0)
    /// Icon sizes.
    public static let iconSize = (small: 16.0, medium: 20.0, large: 24.0, extraLarge: 32.0)
    /// The smallest tap target: 44 points square.
    public static let minimumTapTarget = 44.0
}
