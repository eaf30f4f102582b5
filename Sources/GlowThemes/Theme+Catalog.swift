/// The five built-in themes, each with a light and a dark palette (THEME-8, THEME-9).
///
/// Generated from the design palette and checked by the audit (THEME-11): change a colour here
/// and `swift test` tells you whether every pair the app draws is still readable.
extension Theme {
    /// Default: Soft pinks and purples: warm, a little feminine, never childish.
    public static let standard = Theme(
        id: "default", name: "Default", requiredText: .text,
        light: Palette(hex: [
            .accent: "#A03A7A", .onAccent: "#FFFFFF", .accentContainer: "#F8D8EC", .onAccentContainer: "#5A1748",
            .background: "#FFF7FB", .surface: "#FFFFFF", .surfaceContainer: "#F9ECF5", .primaryText: "#2A1730",
            .secondaryText: "#5E4A63", .outline: "#8A7390", .outlineVariant: "#E3D3E6", .success: "#2E7049",
            .warning: "#8A5200", .error: "#B3261E", .focusRing: "#7A3FB0", .reactionHeart: "#C2185B",
            .reactionFire: "#C25100", .reactionClap: "#8A6A00", .heatmap0: "#F3E6EF", .heatmap1: "#E6C0DA",
            .heatmap2: "#D08CBB", .heatmap3: "#B45898", .heatmap4: "#862C6E",
        ]),
        dark: Palette(hex: [
            .accent: "#F0A6D6", .onAccent: "#3D0F32", .accentContainer: "#5C2650", .onAccentContainer: "#FFD8EE",
            .background: "#1A1120", .surface: "#241829", .surfaceContainer: "#2E2034", .primaryText: "#F6E9F3",
            .secondaryText: "#CDB8CF", .outline: "#A48DA8", .outlineVariant: "#4A3A4F", .success: "#7BD8A0",
            .warning: "#F2C14E", .error: "#FF8A80", .focusRing: "#D7B8FF", .reactionHeart: "#FF7AAE",
            .reactionFire: "#FF9E5E", .reactionClap: "#E6C45C", .heatmap0: "#33243A", .heatmap1: "#523050",
            .heatmap2: "#7C3F72", .heatmap3: "#B05A9E", .heatmap4: "#F0A6D6",
        ]))

    /// Ocean: Deep sea blues and calm teals.
    public static let ocean = Theme(
        id: "ocean", name: "Ocean", requiredText: .text,
        light: Palette(hex: [
            .accent: "#0B5C8A", .onAccent: "#FFFFFF", .accentContainer: "#CDE8F7", .onAccentContainer: "#053552",
            .background: "#F5FAFD", .surface: "#FFFFFF", .surfaceContainer: "#E9F3F9", .primaryText: "#0E2230",
            .secondaryText: "#41586A", .outline: "#6B8597", .outlineVariant: "#CFDEE8", .success: "#1F6E4D",
            .warning: "#8A5200", .error: "#B3261E", .focusRing: "#0078A8", .reactionHeart: "#C2185B",
            .reactionFire: "#C25100", .reactionClap: "#7A6400", .heatmap0: "#E2EEF5", .heatmap1: "#A9D0E8",
            .heatmap2: "#7DB7D9", .heatmap3: "#3D8DBD", .heatmap4: "#0B5C8A",
        ]),
        dark: Palette(hex: [
            .accent: "#8CCBF0", .onAccent: "#06283D", .accentContainer: "#0D4566", .onAccentContainer: "#D2ECFB",
            .background: "#0B161E", .surface: "#13212B", .surfaceContainer: "#1B2C38", .primaryText: "#E6F2F9",
            .secondaryText: "#A9C0CF", .outline: "#7F99AA", .outlineVariant: "#2E4353", .success: "#7BD8A0",
            .warning: "#F2C14E", .error: "#FF8A80", .focusRing: "#7FD4FF", .reactionHeart: "#FF7AAE",
            .reactionFire: "#FF9E5E", .reactionClap: "#E6C45C", .heatmap0: "#1D2E3A", .heatmap1: "#1F4560",
            .heatmap2: "#2C6588", .heatmap3: "#4F93BD", .heatmap4: "#8CCBF0",
        ]))

    /// Forest: Moss, fern and pine greens.
    public static let forest = Theme(
        id: "forest", name: "Forest", requiredText: .text,
        light: Palette(hex: [
            .accent: "#2F6B3A", .onAccent: "#FFFFFF", .accentContainer: "#D3EBCF", .onAccentContainer: "#16391D",
            .background: "#F7FAF5", .surface: "#FFFFFF", .surfaceContainer: "#ECF3E8", .primaryText: "#1A2418",
            .secondaryText: "#4B5947", .outline: "#74846F", .outlineVariant: "#D3DECE", .success: "#2E6B34",
            .warning: "#8A5200", .error: "#B3261E", .focusRing: "#1F7A4A", .reactionHeart: "#C2185B",
            .reactionFire: "#C25100", .reactionClap: "#7A6400", .heatmap0: "#E6EFE1", .heatmap1: "#B3D6A6",
            .heatmap2: "#8DC07C", .heatmap3: "#559A4A", .heatmap4: "#2F6B3A",
        ]),
        dark: Palette(hex: [
            .accent: "#9FD49A", .onAccent: "#10300F", .accentContainer: "#24502A", .onAccentContainer: "#D5F2D0",
            .background: "#0F150E", .surface: "#172017", .surfaceContainer: "#1F2B1F", .primaryText: "#E8F1E5",
            .secondaryText: "#B2C2AD", .outline: "#86977F", .outlineVariant: "#34432F", .success: "#8FE09A",
            .warning: "#F2C14E", .error: "#FF8A80", .focusRing: "#A8F0C0", .reactionHeart: "#FF7AAE",
            .reactionFire: "#FF9E5E", .reactionClap: "#E6C45C", .heatmap0: "#1F2A1F", .heatmap1: "#28452A",
            .heatmap2: "#3C6B3C", .heatmap3: "#62A05E", .heatmap4: "#9FD49A",
        ]))

    /// Sunset: Terracotta, apricot and warm dusk.
    public static let sunset = Theme(
        id: "sunset", name: "Sunset", requiredText: .text,
        light: Palette(hex: [
            .accent: "#A8431C", .onAccent: "#FFFFFF", .accentContainer: "#FFDCCB", .onAccentContainer: "#5A1F07",
            .background: "#FFF8F4", .surface: "#FFFFFF", .surfaceContainer: "#FCEEE6", .primaryText: "#2B1A14",
            .secondaryText: "#5F4A42", .outline: "#8E7468", .outlineVariant: "#EBD5CB", .success: "#2E6B34",
            .warning: "#875000", .error: "#B3261E", .focusRing: "#B3275B", .reactionHeart: "#C2185B",
            .reactionFire: "#B84A00", .reactionClap: "#7A6400", .heatmap0: "#F7E7DE", .heatmap1: "#F2BD9F",
            .heatmap2: "#EC9A72", .heatmap3: "#D2683B", .heatmap4: "#A8431C",
        ]),
        dark: Palette(hex: [
            .accent: "#FFB38F", .onAccent: "#4A1A05", .accentContainer: "#6E2E12", .onAccentContainer: "#FFDCCB",
            .background: "#1C120E", .surface: "#261A15", .surfaceContainer: "#31231C", .primaryText: "#FAEBE4",
            .secondaryText: "#D3BDB3", .outline: "#A99085", .outlineVariant: "#4D3A31", .success: "#8FE09A",
            .warning: "#F2C14E", .error: "#FF8A80", .focusRing: "#FFB3CF", .reactionHeart: "#FF7AAE",
            .reactionFire: "#FF9E5E", .reactionClap: "#E6C45C", .heatmap0: "#33241D", .heatmap1: "#5A3020",
            .heatmap2: "#8A4629", .heatmap3: "#C46A43", .heatmap4: "#FFB38F",
        ]))

    /// Black & White: Pure black and white: the highest contrast, AAA for all text.
    public static let blackAndWhite = Theme(
        id: "black-and-white", name: "Black & White", requiredText: .enhancedText,
        light: Palette(hex: [
            .accent: "#000000", .onAccent: "#FFFFFF", .accentContainer: "#E6E6E6", .onAccentContainer: "#000000",
            .background: "#FFFFFF", .surface: "#FFFFFF", .surfaceContainer: "#F2F2F2", .primaryText: "#000000",
            .secondaryText: "#404040", .outline: "#595959", .outlineVariant: "#BDBDBD", .success: "#1A1A1A",
            .warning: "#333333", .error: "#000000", .focusRing: "#000000", .reactionHeart: "#000000",
            .reactionFire: "#333333", .reactionClap: "#595959", .heatmap0: "#F0F0F0", .heatmap1: "#C8C8C8",
            .heatmap2: "#969696", .heatmap3: "#5E5E5E", .heatmap4: "#000000",
        ]),
        dark: Palette(hex: [
            .accent: "#FFFFFF", .onAccent: "#000000", .accentContainer: "#262626", .onAccentContainer: "#FFFFFF",
            .background: "#000000", .surface: "#000000", .surfaceContainer: "#141414", .primaryText: "#FFFFFF",
            .secondaryText: "#C8C8C8", .outline: "#A6A6A6", .outlineVariant: "#4D4D4D", .success: "#F2F2F2",
            .warning: "#D9D9D9", .error: "#FFFFFF", .focusRing: "#FFFFFF", .reactionHeart: "#FFFFFF",
            .reactionFire: "#D9D9D9", .reactionClap: "#A6A6A6", .heatmap0: "#1A1A1A", .heatmap1: "#404040",
            .heatmap2: "#707070", .heatmap3: "#A8A8A8", .heatmap4: "#FFFFFF",
        ]))
}
