import Foundation

/// An 8-bit sRGB colour with alpha (THEME-1 ... THEME-4).
public struct Color: Hashable, Sendable {
    /// Red, 0...255.
    public let red: UInt8
    /// Green, 0...255.
    public let green: UInt8
    /// Blue, 0...255.
    public let blue: UInt8
    /// Alpha, 0 (transparent) ... 255 (opaque).
    public let alpha: UInt8

    /// A colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses `#RGB`, `#RRGGBB` or `#RRGGBBAA`, with or without `#`, digits in any case (THEME-1).
    ///
    /// `#RGB` doubles each digit (`#F0A` is `#FF00AA`).
    /// - Throws: ``ThemeError/Code/invalidColor`` naming what was wrong.
    public init(hex text: String) throws(ThemeError) {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        var values: [UInt8] = []
        for (offset, character) in digits.enumerated() {
            guard let value = character.hexDigitValue, character.isASCII else {
                throw ThemeError(
                    .invalidColor,
                    "\"\(text)\" has a character that is not a hexadecimal digit at position \(offset + 1)",
                    rule: "THEME-1")
            }
            values.append(UInt8(value))
        }
        switch values.count {
        case 3:
            self.init(red: values[0] * 17, green: values[1] * 17, blue: values[2] * 17)
        case 6, 8:
            let bytes = stride(from: 0, to: values.count, by: 2).map { values[$0] << 4 | values[$0 + 1] }
            self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: values.count == 8 ? bytes[3] : 255)
        default:
            throw ThemeError(
                .invalidColor,
                "\"\(text)\" has \(values.count) hexadecimal digits; use 3, 6 or 8 (#RGB, #RRGGBB, #RRGGBBAA)",
                rule: "THEME-1")
        }
    }

    /// `#RRGGBB` in upper case, or `#RRGGBBAA` when not opaque (THEME-2).
    public var hex: String {
        let channels = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
        return "#" + channels.map { String(format: "%02X", $0) }.joined()
    }

    /// This colour drawn over `background`, which is taken as opaque: each channel
    /// `round((c × a + b × (255 − a)) / 255)` (THEME-3).
    public func composited(over background: Color) -> Color {
        func mix(_ foreground: UInt8, _ backdrop: UInt8) -> UInt8 {
            let a: Int = Int(alpha)
            let sum: Int = Int(foreground) * a + Int(backdrop) * (255 - a) + 127
            return UInt8(sum / 255)
        }
        return Color(
            red: mix(red, background.red), green: mix(green, background.green), blue: mix(blue, background.blue))
    }

    /// The WCAG 2.2 relative luminance of the opaque colour, 0 (black) ... 1 (white) (THEME-5).
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The WCAG contrast ratio of this colour drawn on `background`, 1 ... 21, never rounded
    /// (THEME-6); a translucent colour is composited over the background first.
    public func contrast(on background: Color) -> Double {
        let foreground = alpha == 255 ? self : composited(over: background)
        let a = foreground.relativeLuminance
        let b = background.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
}
