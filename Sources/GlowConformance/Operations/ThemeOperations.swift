import Foundation
import GlowThemes

/// The themes area's operations: parse colours, measure contrast, composite, audit, resolve.
package enum ThemeOperations {
    package static let all: [String: ModelOperations.Operation] = [
        "themes.parse": { input in
            let color = try Color(hex: try input.string("text"))
            return .object([
                "hex": .string(color.hex), "red": .int(Int(color.red)), "green": .int(Int(color.green)),
                "blue": .int(Int(color.blue)), "alpha": .int(Int(color.alpha)),
            ])
        },
        "themes.contrast": { input in
            let ratio = try Color(hex: try input.string("foreground")).contrast(
                on: try Color(hex: try input.string("background")))
            var output: [String: JSONValue] = ["ratio": .string(String(format: "%.2f", ratio))]
            for requirement in [ContrastRequirement.text, .largeText, .enhancedText, .nonText] {
                output[requirement.rawValue] = .bool(requirement.isMet(by: ratio))
            }
            return .object(output)
        },
        "themes.luminance": { input in
            .object([
                "luminance": .string(
                    String(format: "%.6f", try Color(hex: try input.string("color")).relativeLuminance))
            ])
        },
        "themes.composite": { input in
            let color = try Color(hex: try input.string("foreground")).composited(
                over: try Color(hex: try input.string("background")))
            return .object(["hex": .string(color.hex)])
        },
        "themes.audit": { input in
            guard let theme = Theme.all.first(where: { $0.id == (input["theme"]?.string ?? "") }) else {
                throw CorpusInputError(description: "no theme \(input["theme"] ?? .null)")
            }
            let results = ThemeAudit.audit(theme, try Mode(parsing: try input.string("mode")))
            return .object([
                "pairs": .int(results.count), "passed": .bool(results.allSatisfy(\.passed)),
                "failures": .array(
                    results.filter { !$0.passed }.map {
                        .string("\($0.pair.foreground.rawValue) on \($0.pair.background.rawValue)")
                    }),
            ])
        },
        "themes.tokens": { input in
            guard let theme = Theme.all.first(where: { $0.id == (input["theme"]?.string ?? "") }) else {
                throw CorpusInputError(description: "no theme")
            }
            let mode = try Mode(parsing: try input.string("mode"))
            let data = try JSONSerialization.data(withJSONObject: DesignTokens.json(themes: [theme], modes: [mode]))
            let tokens = try JSONValue.parse(data)
            let roles = tokens["glow"]?["color"]?[theme.id]?[mode.rawValue]
            guard case .object(let members)? = roles else { throw CorpusInputError(description: "no roles") }
            return .object([
                "type": tokens["glow"]?["color"]?["$type"] ?? .null,
                "value": roles?[try input.string("role")]?["$value"] ?? .null, "tokens": .int(members.count),
            ])
        },
        "themes.layout": { _ in
            .object([
                "minimumTapTarget": .int(Int(Layout.minimumTapTarget)),
                "cornerRadius": .object([
                    "small": .int(Int(Layout.cornerRadius.small)), "medium": .int(Int(Layout.cornerRadius.medium)),
                    "large": .int(Int(Layout.cornerRadius.large)), "full": .int(Int(Layout.cornerRadius.full)),
                ]),
                "padding": .object([
                    "extraSmall": .int(Int(Layout.padding.extraSmall)), "small": .int(Int(Layout.padding.small)),
                    "medium": .int(Int(Layout.padding.medium)), "large": .int(Int(Layout.padding.large)),
                    "extraLarge": .int(Int(Layout.padding.extraLarge)),
                ]),
                "iconSize": .object([
                    "small": .int(Int(Layout.iconSize.small)), "medium": .int(Int(Layout.iconSize.medium)),
                    "large": .int(Int(Layout.iconSize.large)), "extraLarge": .int(Int(Layout.iconSize.extraLarge)),
                ]),
            ])
        },
        "themes.resolve": { input in
            let (theme, fellBack) = Theme.resolve(id: try input.string("id"))
            return .object(["theme": .string(theme.id), "fellBack": .bool(fellBack)])
        },
    ]
}
