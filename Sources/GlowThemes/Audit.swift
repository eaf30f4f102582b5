/// One colour pair the app draws and what it must reach (THEME-11).
public struct AuditPair: Hashable, Sendable {
    /// The colour drawn.
    public let foreground: Role
    /// What it is drawn on.
    public let background: Role
    /// What it must reach.
    public let requirement: ContrastRequirement
}

/// The outcome of one pair in one theme and mode.
public struct AuditResult: Hashable, Sendable {
    /// The theme.
    public let theme: String
    /// The mode.
    public let mode: Mode
    /// The pair.
    public let pair: AuditPair
    /// The contrast ratio, unrounded.
    public let ratio: Double
    /// Whether it meets the requirement.
    public var passed: Bool { pair.requirement.isMet(by: ratio) }
}

/// The readability audit of every theme (THEME-11).
public enum ThemeAudit {
    /// Every pair the app draws in `theme`; text pairs require the theme's text level.
    public static func pairs(for theme: Theme) -> [AuditPair] {
        let text = theme.requiredText
        var pairs: [AuditPair] = []
        for background in [Role.background, .surface, .surfaceContainer] {
            pairs.append(AuditPair(foreground: .primaryText, background: background, requirement: text))
            pairs.append(AuditPair(foreground: .secondaryText, background: background, requirement: text))
        }
        pairs += [
            AuditPair(foreground: .onAccent, background: .accent, requirement: text),
            AuditPair(foreground: .onAccentContainer, background: .accentContainer, requirement: text),
            AuditPair(foreground: .accent, background: .surface, requirement: .text),
            AuditPair(foreground: .accent, background: .background, requirement: .text),
            AuditPair(foreground: .success, background: .surface, requirement: .text),
            AuditPair(foreground: .warning, background: .surface, requirement: .text),
            AuditPair(foreground: .error, background: .surface, requirement: .text),
            AuditPair(foreground: .outline, background: .surface, requirement: .nonText),
            AuditPair(foreground: .outline, background: .background, requirement: .nonText),
            AuditPair(foreground: .focusRing, background: .background, requirement: .nonText),
            AuditPair(foreground: .focusRing, background: .surface, requirement: .nonText),
            AuditPair(foreground: .reactionHeart, background: .surface, requirement: .nonText),
            AuditPair(foreground: .reactionFire, background: .surface, requirement: .nonText),
            AuditPair(foreground: .reactionClap, background: .surface, requirement: .nonText),
            AuditPair(foreground: .outlineVariant, background: .surface, requirement: .subtle),
            AuditPair(foreground: .heatmap0, background: .surface, requirement: .subtle),
            AuditPair(foreground: .heatmap1, background: .heatmap0, requirement: .heatmapStep),
            AuditPair(foreground: .heatmap2, background: .heatmap1, requirement: .heatmapStep),
            AuditPair(foreground: .heatmap3, background: .heatmap2, requirement: .heatmapStep),
            AuditPair(foreground: .heatmap4, background: .heatmap3, requirement: .heatmapStep),
            AuditPair(foreground: .heatmap4, background: .surface, requirement: .nonText),
        ]
        return pairs
    }

    /// Every pair of `theme` in `mode`, measured.
    public static func audit(_ theme: Theme, _ mode: Mode) -> [AuditResult] {
        let palette = theme.palette(mode)
        return pairs(for: theme).map { pair in
            AuditResult(
                theme: theme.id, mode: mode, pair: pair,
                ratio: palette[pair.foreground].contrast(on: palette[pair.background]))
        }
    }

    /// Every pair of every theme in both modes.
    public static func auditAll() -> [AuditResult] {
        Theme.all.flatMap { theme in Mode.allCases.flatMap { audit(theme, $0) } }
    }
}
