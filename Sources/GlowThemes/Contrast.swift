/// What a colour pair must reach, by what it is used for (THEME-7).
public enum ContrastRequirement: String, CaseIterable, Hashable, Sendable, Codable {
    /// Body text: WCAG AA, 4.5:1.
    case text
    /// Large text (18 pt, or 14 pt bold): WCAG AA, 3:1.
    case largeText
    /// Enhanced text: WCAG AAA, 7:1.
    case enhancedText
    /// Icons, outlines, focus indicators and other non-text UI: WCAG 2.2 SC 1.4.11, 3:1.
    case nonText
    /// Neighbouring steps of the Overview's heat map: 1.3:1, so each level is told apart.
    case heatmapStep
    /// The empty heat-map cell and decorative dividers against the surface: 1.1:1.
    case subtle

    /// The ratio the pair must reach; compared exactly, never rounded (4.499 fails 4.5).
    public var minimum: Double {
        switch self {
        case .text: 4.5
        case .largeText: 3
        case .enhancedText: 7
        case .nonText: 3
        case .heatmapStep: 1.3
        case .subtle: 1.1
        }
    }

    /// Whether `ratio` meets the requirement.
    public func isMet(by ratio: Double) -> Bool { ratio >= minimum }
}
