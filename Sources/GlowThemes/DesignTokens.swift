import Foundation

/// Design tokens in the W3C Design Tokens Community Group format (2025.10), so designers' tools
/// and other platforms read the same palettes (THEME-13).
public enum DesignTokens {
    /// The tokens of the given themes and modes (all when nil), as a JSON object.
    ///
    /// Colours are `{"$type": "color", "$value": {"colorSpace": "srgb", "components": [r, g, b],
    /// "hex": "#rrggbb"}}` (with `alpha` when not opaque), grouped `color/<theme>/<mode>/<role>`;
    /// layout constants are dimension tokens in `px` under `layout`.
    public static func json(themes: [Theme] = Theme.all, modes: [Mode] = Mode.allCases) -> [String: Any] {
        var color: [String: Any] = ["$type": "color", "$description": "Glow Ritual palettes by theme and mode"]
        for theme in themes {
            var group: [String: Any] = ["$description": theme.name]
            for mode in modes {
                let palette = theme.palette(mode)
                var roles: [String: Any] = [:]
                for role in Role.allCases { roles[role.rawValue] = ["$value": value(palette[role])] }
                group[mode.rawValue] = roles
            }
            color[theme.id] = group
        }
        func dimension(_ points: Double) -> [String: Any] { ["$value": ["value": points, "unit": "px"]] }
        let layout: [String: Any] = [
            "$type": "dimension",
            "$description": "Layout constants in points (1 point = 1 CSS px)",
            "radius": [
                "small": dimension(Layout.cornerRadius.small), "medium": dimension(Layout.cornerRadius.medium),
                "large": dimension(Layout.cornerRadius.large), "full": dimension(Layout.cornerRadius.full),
            ],
            "padding": [
                "extraSmall": dimension(Layout.padding.extraSmall), "small": dimension(Layout.padding.small),
                "medium": dimension(Layout.padding.medium), "large": dimension(Layout.padding.large),
                "extraLarge": dimension(Layout.padding.extraLarge),
            ],
            "iconSize": [
                "small": dimension(Layout.iconSize.small), "medium": dimension(Layout.iconSize.medium),
                "large": dimension(Layout.iconSize.large), "extraLarge": dimension(Layout.iconSize.extraLarge),
            ],
            "minimumTapTarget": dimension(Layout.minimumTapTarget),
        ]
        return ["glow": ["$description": "Glow Ritual design tokens", "color": color, "layout": layout]]
    }

    /// The tokens as JSON text, keys sorted.
    public static func text(themes: [Theme] = Theme.all, modes: [Mode] = Mode.allCases) -> String {
        let data = try! JSONSerialization.data(
            withJSONObject: json(themes: themes, modes: modes),
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A colour's DTCG value.
    static func value(_ color: Color) -> [String: Any] {
        func unit(_ channel: UInt8) -> Double { (Double(channel) / 255 * 10_000).rounded() / 10_000 }
        var value: [String: Any] = [
            "colorSpace": "srgb", "components": [unit(color.red), unit(color.green), unit(color.blue)],
            "hex": String(color.hex.prefix(7)).lowercased(),
        ]
        if color.alpha != 255 { value["alpha"] = unit(color.alpha) }
        return value
    }
}
