import Foundation
import GlowThemes
import Testing

@Suite("Themes")
struct ThemeTests {
    @Test("every pair of every theme and mode meets its threshold")
    func audit() {
        let results = ThemeAudit.auditAll()
        #expect(results.count == Theme.all.count * 2 * ThemeAudit.pairs(for: .standard).count)
        for result in results where !result.passed {
            Issue.record(
                "\(result.theme)/\(result.mode) \(result.pair.foreground) on \(result.pair.background): \(result.ratio)"
            )
        }
    }

    @Test("Black & White reaches AAA for all text")
    func blackAndWhite() {
        for mode in Mode.allCases {
            let palette = Theme.blackAndWhite.palette(mode)
            for text in [Role.primaryText, .secondaryText] {
                for background in [Role.background, .surface, .surfaceContainer] {
                    #expect(palette[text].contrast(on: palette[background]) >= 7)
                }
            }
        }
    }

    @Test("the audit can fail: a low-contrast pair is reported")
    func auditCatchesFailures() throws {
        let grey = try Color(hex: "#777777")
        #expect(!ContrastRequirement.text.isMet(by: grey.contrast(on: try Color(hex: "#FFFFFF"))))
        #expect(!ContrastRequirement.text.isMet(by: 4.499))
        #expect(ContrastRequirement.text.isMet(by: 4.5))
    }

    @Test("an unknown stored theme id falls back to Default and says so")
    func resolve() {
        #expect(Theme.resolve(id: "ocean").theme == .ocean && !Theme.resolve(id: "ocean").fellBack)
        let unknown = Theme.resolve(id: "neon")
        #expect(unknown.theme == .standard && unknown.fellBack)
        #expect(Set(Theme.all.map(\.id)) == ["default", "ocean", "forest", "sunset", "black-and-white"])
    }

    @Test("the layout keeps a 44-point tap target and a 4-point grid")
    func layout() {
        #expect(Layout.minimumTapTarget >= 44)
        for padding in [Layout.padding.extraSmall, Layout.padding.small, Layout.padding.medium, Layout.padding.large] {
            #expect(padding.truncatingRemainder(dividingBy: 4) == 0)
        }
    }
}

/// Checks design tokens against the rules of the DTCG format module (2025.10) and its color
/// module: names, `$value`, types inherited from groups, colour and dimension values.
@Suite("Design tokens")
struct DesignTokenTests {
    static func validate(_ node: [String: Any], path: String, inherited: String?, tokens: inout Int) -> [String] {
        var problems: [String] = []
        let type = node["$type"] as? String ?? inherited
        if let value = node["$value"] {
            tokens += 1
            switch type {
            case "color":
                guard let color = value as? [String: Any], color["colorSpace"] as? String == "srgb",
                    let components = color["components"] as? [Double], components.count == 3,
                    components.allSatisfy({ (0...1).contains($0) })
                else { return ["\(path): not an sRGB colour value"] }
                if let hex = color["hex"] as? String, !(hex.count == 7 && hex.hasPrefix("#")) {
                    problems.append("\(path): bad hex")
                }
                if let alpha = color["alpha"] as? Double, !(0...1).contains(alpha) {
                    problems.append("\(path): bad alpha")
                }
            case "dimension":
                guard let dimension = value as? [String: Any],
                    dimension["value"] is Double || dimension["value"] is Int,
                    ["px", "rem"].contains(dimension["unit"] as? String)
                else { return ["\(path): not a dimension value"] }
            default:
                problems.append("\(path): token without a known $type")
            }
            return problems
        }
        for (name, child) in node where !name.hasPrefix("$") {
            if name.contains(".") || name.contains("{") || name.contains("}") {
                problems.append("\(path)/\(name): a name may not contain . { }")
            }
            guard let group = child as? [String: Any] else {
                problems.append("\(path)/\(name): a group member is not an object")
                continue
            }
            problems += validate(group, path: "\(path)/\(name)", inherited: type, tokens: &tokens)
        }
        for (name, _) in node
        where name.hasPrefix("$") && !["$type", "$description", "$value", "$extensions"].contains(name) {
            problems.append("\(path): unknown property \(name)")
        }
        return problems
    }

    @Test("the exported tokens follow the format's rules and hold every role of every theme")
    func valid() throws {
        let text = DesignTokens.text()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var tokens = 0
        #expect(Self.validate(object, path: "", inherited: nil, tokens: &tokens) == [])
        #expect(tokens == Theme.all.count * 2 * Role.allCases.count + 14)
    }

    @Test("one theme and mode can be exported alone")
    func filtered() throws {
        let object = DesignTokens.json(themes: [.ocean], modes: [.dark])
        let color = try #require((object["glow"] as? [String: Any])?["color"] as? [String: Any])
        #expect(color["default"] == nil)
        let ocean = try #require(color["ocean"] as? [String: Any])
        #expect(ocean["light"] == nil && ocean["dark"] != nil)
    }

    @Test("the validator catches a broken token")
    func validatorFails() {
        var tokens = 0
        let broken: [String: Any] = ["a.b": ["$type": "color", "$value": "#fff"]]
        #expect(!Self.validate(broken, path: "", inherited: nil, tokens: &tokens).isEmpty)
    }
}
