"""Section 5 of the spec (Spec/themes.md): colours, WCAG contrast, the five themes and their audit,
layout constants and design tokens.

The colour maths (THEME-1 ... THEME-7) and the audit (THEME-11) come from the spec. The palettes
themselves are not in the spec, which names the roles (THEME-8) and the character of each theme
(THEME-9) but no colours; `palettes.py` holds this implementation's own, checked by the audit.
"""
import re

from .errors import Failure
from .palettes import PALETTES, ROLES

THEMES = ['default', 'ocean', 'forest', 'sunset', 'black-and-white']     # THEME-9
TEXT, LARGE_TEXT, ENHANCED_TEXT, NON_TEXT, HEATMAP_STEP, SUBTLE = 4.5, 3.0, 7.0, 3.0, 1.3, 1.1   # THEME-7


class Color:
    """THEME-1: 8-bit sRGB with alpha."""

    def __init__(self, red, green, blue, alpha=255):
        self.red, self.green, self.blue, self.alpha = red, green, blue, alpha

    @classmethod
    def parse(cls, text):
        """THEME-1: #RGB, #RRGGBB or #RRGGBBAA, `#` optional, ASCII hex digits in either case."""
        m = re.fullmatch(r'#?([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})', text, re.ASCII) if isinstance(text, str) else None
        if not m:
            raise Failure('invalid_color', f'not a colour: {text!r}')
        digits = m[1]
        if len(digits) == 3:
            digits = ''.join(c * 2 for c in digits)
        values = [int(digits[i:i + 2], 16) for i in range(0, len(digits), 2)]
        return cls(*values)

    @property
    def channels(self):
        return self.red, self.green, self.blue

    def hex(self):
        """THEME-2: #RRGGBB in upper case, #RRGGBBAA when not opaque."""
        text = '#%02X%02X%02X' % self.channels
        return text if self.alpha == 255 else text + '%02X' % self.alpha

    def over(self, background):
        """THEME-3: composited over a background taken as opaque, channel by channel, rounded."""
        a = self.alpha
        mixed = [(c * a + b * (255 - a) + 127) // 255 for c, b in zip(self.channels, background.channels)]
        return Color(*mixed)

    def luminance(self):
        """THEME-5: WCAG 2.2 relative luminance of the colour's channels."""
        def linear(c):
            v = c / 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
        r, g, b = (linear(c) for c in self.channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(foreground, background):
    """THEME-4 / THEME-6: the ratio of a foreground, composited first, on a background: 1 ... 21."""
    front = foreground.over(background) if foreground.alpha != 255 else foreground
    l1, l2 = sorted([front.luminance(), background.luminance()], reverse=True)
    return (l1 + 0.05) / (l2 + 0.05)


# ---- THEME-8 ... THEME-11: the themes and their audit

def text_level(theme):
    """THEME-9: the threshold of the pairs THEME-11 checks at "the theme's text level": AAA (7)
    for Black & White, AA (4.5) for the others. Accent and status colours used as text are held
    to 4.5 in every theme (`audit_pairs`)."""
    return ENHANCED_TEXT if theme == 'black-and-white' else TEXT


def audit_pairs(theme):
    """THEME-11: every pair the app draws, as (foreground role, background role, threshold)."""
    level = text_level(theme)
    pairs = [(text, back, level) for text in ('primaryText', 'secondaryText') for back in ('background', 'surface', 'surfaceContainer')]
    pairs += [('onAccent', 'accent', level), ('onAccentContainer', 'accentContainer', level)]
    pairs += [('accent', 'surface', TEXT), ('accent', 'background', TEXT)]
    pairs += [(role, 'surface', TEXT) for role in ('success', 'warning', 'error')]
    pairs += [('outline', 'surface', NON_TEXT), ('outline', 'background', NON_TEXT)]
    pairs += [('focusRing', 'background', NON_TEXT), ('focusRing', 'surface', NON_TEXT)]
    pairs += [(role, 'surface', NON_TEXT) for role in ('reactionHeart', 'reactionFire', 'reactionClap')]
    pairs += [('outlineVariant', 'surface', SUBTLE), ('heatmap0', 'surface', SUBTLE)]
    pairs += [(f'heatmap{i}', f'heatmap{i - 1}', HEATMAP_STEP) for i in range(1, 5)]
    pairs += [('heatmap4', 'surface', NON_TEXT)]
    return pairs


def palette(theme, mode):
    if theme not in PALETTES or mode not in ('light', 'dark'):
        raise Failure('unknown_theme', f'no theme {theme!r} in mode {mode!r}')
    return {role: Color.parse(text) for role, text in PALETTES[theme][mode].items()}


def audit(inp):
    """THEME-11: every pair must reach its threshold, compared unrounded (THEME-6)."""
    colors = palette(inp['theme'], inp['mode'])
    pairs = audit_pairs(inp['theme'])
    failures = []
    for front, back, threshold in pairs:
        ratio = contrast(colors[front], colors[back])
        if ratio < threshold:
            failures.append({'foreground': front, 'background': back, 'ratio': '%.2f' % ratio, 'required': threshold})
    return {'pairs': len(pairs), 'passed': not failures, 'failures': failures}


def resolve(inp):
    """THEME-10: an unknown id resolves to `default`, and says that it fell back."""
    known = inp['id'] in THEMES
    return {'theme': inp['id'] if known else 'default', 'fellBack': not known}


# ---- THEME-12 / THEME-13: layout and design tokens

LAYOUT = {                                              # THEME-12 names the keys of `themes.layout`
    'minimumTapTarget': 44,
    'cornerRadius': {'small': 8, 'medium': 14, 'large': 22, 'full': 999},
    'padding': {'extraSmall': 4, 'small': 8, 'medium': 12, 'large': 16, 'extraLarge': 24},
    'iconSize': {'small': 16, 'medium': 20, 'large': 24, 'extraLarge': 32},
}


def color_token(color):
    """THEME-13: a DTCG colour value; components are channel / 255 to four decimals."""
    value = {'colorSpace': 'srgb', 'components': [round(c / 255, 4) for c in color.channels],
             'hex': '#%02x%02x%02x' % color.channels}
    if color.alpha != 255:
        value['alpha'] = round(color.alpha / 255, 4)
    return value


def tokens(inp):
    colors = palette(inp['theme'], inp['mode'])
    if inp['role'] not in colors:
        raise Failure('unknown_role', f'no role {inp["role"]!r}')
    return {'type': 'color', 'value': color_token(colors[inp['role']]), 'tokens': len(ROLES)}


def parse(inp):
    c = Color.parse(inp['text'])
    return {'hex': c.hex(), 'red': c.red, 'green': c.green, 'blue': c.blue, 'alpha': c.alpha}


def contrast_report(inp):
    """5.4 / THEME-6: the ratio rounded to two decimals as printf("%.2f") prints it, and each
    THEME-7 threshold met or not, judged on the unrounded ratio (2.996 shows as 3.00 and fails 3)."""
    ratio = contrast(Color.parse(inp['foreground']), Color.parse(inp['background']))
    return {'ratio': '%.2f' % ratio, 'text': ratio >= TEXT, 'largeText': ratio >= LARGE_TEXT,
            'enhancedText': ratio >= ENHANCED_TEXT, 'nonText': ratio >= NON_TEXT}


OPERATIONS = {
    'themes.parse': parse,
    'themes.contrast': contrast_report,
    'themes.luminance': lambda i: {'luminance': '%.6f' % Color.parse(i['color']).luminance()},
    'themes.composite': lambda i: {'hex': Color.parse(i['foreground']).over(Color.parse(i['background'])).hex()},
    'themes.audit': audit,
    'themes.resolve': resolve,
    'themes.tokens': tokens,
    'themes.layout': lambda i: LAYOUT,
}
