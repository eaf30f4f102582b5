"""Characters as MODEL-50 counts them: extended grapheme clusters of Unicode Standard Annex #29.

Python's standard library has no grapheme segmentation, and `unicodedata` lacks the
Grapheme_Cluster_Break, Extended_Pictographic and emoji properties, so this module breaks text
itself, rule by rule as UAX #29 (Unicode 15.0) writes them:

    GB3  CR × LF                          GB9   × (Extend | ZWJ)
    GB4  (Control | CR | LF) ÷            GB9a  × SpacingMark
    GB5  ÷ (Control | CR | LF)            GB9b  Prepend ×
    GB6  L × (L | V | LV | LVT)           GB11  ExtPict Extend* ZWJ × ExtPict
    GB7  (LV | V) × (V | T)               GB12, GB13  an even run of regional indicators ÷ RI,
    GB8  (LVT | T) × T                                  an odd run × RI (flags are pairs)
    GB1, GB2, GB999: break at both ends of the text, and everywhere else.

Where the properties come from:
- Extend (UAX #29: Grapheme_Extend or Emoji_Modifier): general categories Mn and Me from
  `unicodedata` (combining marks, enclosing marks, the variation selectors U+FE00...U+FE0F and
  U+E0100...), plus Other_Grapheme_Extend (a table below: U+200C ZWNJ, the tag characters, a few
  spacing marks needed for canonical equivalence) and the emoji modifiers U+1F3FB...U+1F3FF
  (skin tones). ZWJ is U+200D.
- SpacingMark: general category Mc that is not Extend, less UAX #29's listed exceptions, plus
  U+0E33 and U+0EB3.
- Control: categories Zl, Zp, Cc and Cf, and unassigned Default_Ignorable code points, less CR,
  LF, ZWNJ, ZWJ and the Prepend characters (Prepended_Concatenation_Mark).
- Prepend, Other_Grapheme_Extend, Default_Ignorable, Extended_Pictographic, Emoji,
  Emoji_Presentation and White_Space: tables of code point ranges below, copied from Unicode
  15.0's data files (PropList.txt, DerivedCoreProperties.txt, GraphemeBreakProperty.txt and
  emoji/emoji-data.txt, as Debian's `unicode-data` package ships them).
- Hangul L, V, T (conjoining jamo) are fixed ranges; LV and LVT syllables follow arithmetically
  from U+AC00 ... U+D7A3 (every 28th syllable is LV).
- Regional indicators are U+1F1E6 ... U+1F1FF.

Not covered: GB9c (Unicode 15.1: an Indic consonant, a virama and a consonant are one character
in six scripts; here क्ष is two), which needs the Indic_Conjunct_Break property; and characters
that the running Python's `unicodedata` does not know yet (Unicode 14.0 for Debian 12's Python
3.11): a combining mark assigned later has category Cn there, so it breaks as any other
character. `check_characters.py` beside testee.py runs GraphemeBreakTest.txt against this module.

Counting never goes past a limit (MODEL-50's last sentence): `count(text, limit)` stops at
limit + 1 characters, and trimming looks only at the ends of the text. A character of a counted text
holds at most 32 code points (MODEL-63, `LONGEST`): `count` reads no character past the limit, and
no more than 33 code points of any character, to find one that is longer.
"""
import bisect
import unicodedata
from functools import lru_cache


def _ranges(*items):
    """A table of code points: single values and (first, last) pairs, as sorted (first, last) pairs."""
    return sorted(item if isinstance(item, tuple) else (item, item) for item in items)


def _holds(table, cp):
    i = bisect.bisect_right(table, (cp, 0x10FFFF)) - 1
    return i >= 0 and table[i][0] <= cp <= table[i][1]


# ---- Unicode 15.0 property tables (code point ranges)

EXTENDED_PICTOGRAPHIC = _ranges(
    0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, (0x2194, 0x2199), (0x21A9, 0x21AA),
    (0x231A, 0x231B), 0x2328, 0x2388, 0x23CF, (0x23E9, 0x23F3), (0x23F8, 0x23FA), 0x24C2,
    (0x25AA, 0x25AB), 0x25B6, 0x25C0, (0x25FB, 0x25FE), (0x2600, 0x2605), (0x2607, 0x2612),
    (0x2614, 0x2685), (0x2690, 0x2705), (0x2708, 0x2712), 0x2714, 0x2716, 0x271D, 0x2721, 0x2728,
    (0x2733, 0x2734), 0x2744, 0x2747, 0x274C, 0x274E, (0x2753, 0x2755), 0x2757, (0x2763, 0x2767),
    (0x2795, 0x2797), 0x27A1, 0x27B0, 0x27BF, (0x2934, 0x2935), (0x2B05, 0x2B07), (0x2B1B, 0x2B1C),
    0x2B50, 0x2B55, 0x3030, 0x303D, 0x3297, 0x3299, (0x1F000, 0x1F0FF), (0x1F10D, 0x1F10F),
    0x1F12F, (0x1F16C, 0x1F171), (0x1F17E, 0x1F17F), 0x1F18E, (0x1F191, 0x1F19A),
    (0x1F1AD, 0x1F1E5), (0x1F201, 0x1F20F), 0x1F21A, 0x1F22F, (0x1F232, 0x1F23A),
    (0x1F23C, 0x1F23F), (0x1F249, 0x1F3FA), (0x1F400, 0x1F53D), (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D5, 0x1F7FF), (0x1F80C, 0x1F80F),
    (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8FF),
    (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1FAFF), (0x1FC00, 0x1FFFD),
)

EMOJI = _ranges(
    0x0023, 0x002A, (0x0030, 0x0039), 0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139,
    (0x2194, 0x2199), (0x21A9, 0x21AA), (0x231A, 0x231B), 0x2328, 0x23CF, (0x23E9, 0x23F3),
    (0x23F8, 0x23FA), 0x24C2, (0x25AA, 0x25AB), 0x25B6, 0x25C0, (0x25FB, 0x25FE), (0x2600, 0x2604),
    0x260E, 0x2611, (0x2614, 0x2615), 0x2618, 0x261D, 0x2620, (0x2622, 0x2623), 0x2626, 0x262A,
    (0x262E, 0x262F), (0x2638, 0x263A), 0x2640, 0x2642, (0x2648, 0x2653), (0x265F, 0x2660), 0x2663,
    (0x2665, 0x2666), 0x2668, 0x267B, (0x267E, 0x267F), (0x2692, 0x2697), 0x2699, (0x269B, 0x269C),
    (0x26A0, 0x26A1), 0x26A7, (0x26AA, 0x26AB), (0x26B0, 0x26B1), (0x26BD, 0x26BE),
    (0x26C4, 0x26C5), 0x26C8, (0x26CE, 0x26CF), 0x26D1, (0x26D3, 0x26D4), (0x26E9, 0x26EA),
    (0x26F0, 0x26F5), (0x26F7, 0x26FA), 0x26FD, 0x2702, 0x2705, (0x2708, 0x270D), 0x270F, 0x2712,
    0x2714, 0x2716, 0x271D, 0x2721, 0x2728, (0x2733, 0x2734), 0x2744, 0x2747, 0x274C, 0x274E,
    (0x2753, 0x2755), 0x2757, (0x2763, 0x2764), (0x2795, 0x2797), 0x27A1, 0x27B0, 0x27BF,
    (0x2934, 0x2935), (0x2B05, 0x2B07), (0x2B1B, 0x2B1C), 0x2B50, 0x2B55, 0x3030, 0x303D, 0x3297,
    0x3299, 0x1F004, 0x1F0CF, (0x1F170, 0x1F171), (0x1F17E, 0x1F17F), 0x1F18E, (0x1F191, 0x1F19A),
    (0x1F1E6, 0x1F1FF), (0x1F201, 0x1F202), 0x1F21A, 0x1F22F, (0x1F232, 0x1F23A),
    (0x1F250, 0x1F251), (0x1F300, 0x1F321), (0x1F324, 0x1F393), (0x1F396, 0x1F397),
    (0x1F399, 0x1F39B), (0x1F39E, 0x1F3F0), (0x1F3F3, 0x1F3F5), (0x1F3F7, 0x1F4FD),
    (0x1F4FF, 0x1F53D), (0x1F549, 0x1F54E), (0x1F550, 0x1F567), (0x1F56F, 0x1F570),
    (0x1F573, 0x1F57A), 0x1F587, (0x1F58A, 0x1F58D), 0x1F590, (0x1F595, 0x1F596),
    (0x1F5A4, 0x1F5A5), 0x1F5A8, (0x1F5B1, 0x1F5B2), 0x1F5BC, (0x1F5C2, 0x1F5C4),
    (0x1F5D1, 0x1F5D3), (0x1F5DC, 0x1F5DE), 0x1F5E1, 0x1F5E3, 0x1F5E8, 0x1F5EF, 0x1F5F3,
    (0x1F5FA, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CB, 0x1F6D2), (0x1F6D5, 0x1F6D7),
    (0x1F6DC, 0x1F6E5), 0x1F6E9, (0x1F6EB, 0x1F6EC), 0x1F6F0, (0x1F6F3, 0x1F6FC),
    (0x1F7E0, 0x1F7EB), 0x1F7F0, (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1F9FF),
    (0x1FA70, 0x1FA7C), (0x1FA80, 0x1FA88), (0x1FA90, 0x1FABD), (0x1FABF, 0x1FAC5),
    (0x1FACE, 0x1FADB), (0x1FAE0, 0x1FAE8), (0x1FAF0, 0x1FAF8),
)

EMOJI_PRESENTATION = _ranges(
    (0x231A, 0x231B), (0x23E9, 0x23EC), 0x23F0, 0x23F3, (0x25FD, 0x25FE), (0x2614, 0x2615),
    (0x2648, 0x2653), 0x267F, 0x2693, 0x26A1, (0x26AA, 0x26AB), (0x26BD, 0x26BE), (0x26C4, 0x26C5),
    0x26CE, 0x26D4, 0x26EA, (0x26F2, 0x26F3), 0x26F5, 0x26FA, 0x26FD, 0x2705, (0x270A, 0x270B),
    0x2728, 0x274C, 0x274E, (0x2753, 0x2755), 0x2757, (0x2795, 0x2797), 0x27B0, 0x27BF,
    (0x2B1B, 0x2B1C), 0x2B50, 0x2B55, 0x1F004, 0x1F0CF, 0x1F18E, (0x1F191, 0x1F19A),
    (0x1F1E6, 0x1F1FF), 0x1F201, 0x1F21A, 0x1F22F, (0x1F232, 0x1F236), (0x1F238, 0x1F23A),
    (0x1F250, 0x1F251), (0x1F300, 0x1F320), (0x1F32D, 0x1F335), (0x1F337, 0x1F37C),
    (0x1F37E, 0x1F393), (0x1F3A0, 0x1F3CA), (0x1F3CF, 0x1F3D3), (0x1F3E0, 0x1F3F0), 0x1F3F4,
    (0x1F3F8, 0x1F43E), 0x1F440, (0x1F442, 0x1F4FC), (0x1F4FF, 0x1F53D), (0x1F54B, 0x1F54E),
    (0x1F550, 0x1F567), 0x1F57A, (0x1F595, 0x1F596), 0x1F5A4, (0x1F5FB, 0x1F64F),
    (0x1F680, 0x1F6C5), 0x1F6CC, (0x1F6D0, 0x1F6D2), (0x1F6D5, 0x1F6D7), (0x1F6DC, 0x1F6DF),
    (0x1F6EB, 0x1F6EC), (0x1F6F4, 0x1F6FC), (0x1F7E0, 0x1F7EB), 0x1F7F0, (0x1F90C, 0x1F93A),
    (0x1F93C, 0x1F945), (0x1F947, 0x1F9FF), (0x1FA70, 0x1FA7C), (0x1FA80, 0x1FA88),
    (0x1FA90, 0x1FABD), (0x1FABF, 0x1FAC5), (0x1FACE, 0x1FADB), (0x1FAE0, 0x1FAE8),
    (0x1FAF0, 0x1FAF8),
)

OTHER_GRAPHEME_EXTEND = _ranges(
    0x09BE, 0x09D7, 0x0B3E, 0x0B57, 0x0BBE, 0x0BD7, 0x0CC2, (0x0CD5, 0x0CD6), 0x0D3E, 0x0D57,
    0x0DCF, 0x0DDF, 0x1B35, 0x200C, (0x302E, 0x302F), (0xFF9E, 0xFF9F), 0x1133E, 0x11357, 0x114B0,
    0x114BD, 0x115AF, 0x11930, 0x1D165, (0x1D16E, 0x1D172), (0xE0020, 0xE007F),
)

PREPEND = _ranges(
    (0x0600, 0x0605), 0x06DD, 0x070F, (0x0890, 0x0891), 0x08E2, 0x0D4E, 0x110BD, 0x110CD,
    (0x111C2, 0x111C3), 0x1193F, 0x11941, 0x11A3A, (0x11A84, 0x11A89), 0x11D46, 0x11F02,
)

DEFAULT_IGNORABLE = _ranges(
    0x00AD, 0x034F, 0x061C, (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F),
    (0x202A, 0x202E), (0x2060, 0x206F), 0x3164, (0xFE00, 0xFE0F), 0xFEFF, 0xFFA0, (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)

WHITE_SPACE = _ranges(
    (0x0009, 0x000D), 0x0020, 0x0085, 0x00A0, 0x1680, (0x2000, 0x200A), (0x2028, 0x2029), 0x202F,
    0x205F, 0x3000,
)

SPACING_MARK_EXCEPTIONS = _ranges(             # UAX #29: Mc characters that are not SpacingMark
    (0x102B, 0x102C), 0x1038, (0x1062, 0x1064), (0x1067, 0x106D), 0x1083, (0x1087, 0x108C), 0x108F,
    (0x109A, 0x109C), 0x1A61, (0x1A63, 0x1A64), 0xAA7B, 0xAA7D, (0x11720, 0x11721),
)
SPACING_MARK_LETTERS = (0x0E33, 0x0EB3)        # UAX #29: Lo characters that are SpacingMark

# ---- Grapheme_Cluster_Break values

CR, LF, CONTROL, EXTEND, ZWJ, RI, PREPEND_, SPACING_MARK, L, V, T, LV, LVT, OTHER = range(14)


@lru_cache(maxsize=4096)
def _break_class(cp):
    """The Grapheme_Cluster_Break value of a code point, derived as the module docstring says."""
    if cp == 0x0D:
        return CR
    if cp == 0x0A:
        return LF
    if cp == 0x200D:
        return ZWJ
    if 0x1F1E6 <= cp <= 0x1F1FF:
        return RI
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return L
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return V
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return T
    if 0xAC00 <= cp <= 0xD7A3:
        return LV if (cp - 0xAC00) % 28 == 0 else LVT
    if _holds(PREPEND, cp):
        return PREPEND_
    category = unicodedata.category(chr(cp))
    if category in ('Mn', 'Me') or _holds(OTHER_GRAPHEME_EXTEND, cp) or 0x1F3FB <= cp <= 0x1F3FF:
        return EXTEND
    if category in ('Zl', 'Zp', 'Cc', 'Cf') or category == 'Cn' and _holds(DEFAULT_IGNORABLE, cp):
        return CONTROL
    if category == 'Mc' and not _holds(SPACING_MARK_EXCEPTIONS, cp) or cp in SPACING_MARK_LETTERS:
        return SPACING_MARK
    return OTHER


@lru_cache(maxsize=4096)
def _pictographic(cp):
    return _holds(EXTENDED_PICTOGRAPHIC, cp)


def boundaries(text, start=0, longest=None):
    """The ends of the characters of `text` from `start` (a boundary), one by one and lazily:
    each yielded index is a boundary after `start` (GB1: `start` itself is not yielded; GB2: the
    text's end is the last one yielded). With `longest` (MODEL-63), a character of more code points
    is not read to its end: None is yielded in place of its end, after its first longest + 1 code
    points, and nothing after it."""
    n = len(text)
    if start >= n:
        return
    begun = start                                    # where the current character starts
    previous = _break_class(ord(text[start]))
    regional = 1 if previous == RI else 0           # regional indicators in the run ending here
    emoji = _pictographic(ord(text[start]))          # ExtPict Extend* ends here (GB11)
    joined = False                                   # ... followed by this ZWJ (GB11)
    for i in range(start + 1, n):
        cp = ord(text[i])
        current = _break_class(cp)
        pictographic = _pictographic(cp)
        if not _joins(previous, current, pictographic, regional, joined):
            yield i
            begun = i
        elif longest is not None and i - begun >= longest:   # text[begun:i + 1] is longest + 1 code points
            yield None
            return
        joined = current == ZWJ and emoji
        emoji = pictographic or emoji and current == EXTEND
        regional = regional + 1 if current == RI else 0
        previous = current
    yield n


def _joins(previous, current, pictographic, regional, joined):
    """Whether no boundary falls between two code points (the rules GB3 ... GB13, in order)."""
    if previous == CR and current == LF:                                            # GB3
        return True
    if previous in (CONTROL, CR, LF) or current in (CONTROL, CR, LF):               # GB4, GB5
        return False
    if previous == L and current in (L, V, LV, LVT):                                # GB6
        return True
    if previous in (LV, V) and current in (V, T):                                   # GB7
        return True
    if previous in (LVT, T) and current == T:                                       # GB8
        return True
    if current in (EXTEND, ZWJ, SPACING_MARK) or previous == PREPEND_:              # GB9, GB9a, GB9b
        return True
    if previous == ZWJ and pictographic and joined:                                 # GB11
        return True
    return previous == RI and current == RI and regional % 2 == 1                   # GB12, GB13


LONGEST = 32        # MODEL-63: the most code points a character of a counted text holds


def count(text, limit):
    """MODEL-50: the number of characters of `text`, counted no further than limit + 1, which is
    enough to tell whether the text is longer than `limit`. MODEL-63: a text one of whose first
    `limit` characters holds more than LONGEST code points is too long for its field, whatever its
    length: it counts limit + 1. The check stops at the limit: once `limit` characters are counted,
    the text is longer if anything follows them, and what follows is not measured."""
    counted = 0
    for end in boundaries(text, longest=LONGEST):
        if end is None:                              # MODEL-63: a character too long
            return limit + 1
        counted += 1
        if counted >= limit:                         # anything after `end` makes limit + 1
            return min(counted + (end < len(text)), limit + 1)
    return counted


def longer_than(text, limit):
    return count(text, limit) > limit


def is_white_space(cp):
    return _holds(WHITE_SPACE, cp)


def trim(text):
    """MODEL-50: `text` without the characters at either end whose first code point has the
    White_Space property (U+3000 and U+0085 are white space, U+200B is not).

    The start is trimmed character by character. The end is read backwards, which needs only the
    shape of a character that starts with white space: a white space code point of class Control,
    CR or LF is a character of its own (GB4, GB5; CR LF is two white space code points), and any
    other is followed only by Extend, ZWJ and SpacingMark code points (GB9, GB9a) and preceded by
    a boundary unless a Prepend code point comes before it (GB9b)."""
    start = 0
    for end in boundaries(text):
        if not is_white_space(ord(text[start])):
            break
        start = end
    stop = len(text)
    while stop > start:
        base = stop
        while base > start and _break_class(ord(text[base - 1])) in (EXTEND, ZWJ, SPACING_MARK):
            base -= 1
        if base == start or not is_white_space(ord(text[base - 1])):
            break
        if _break_class(ord(text[base - 1])) in (CONTROL, CR, LF):
            if base != stop:                         # marks after a control are a character of their own
                break
        elif base - 1 > start and _break_class(ord(text[base - 2])) == PREPEND_:
            break
        stop = base - 1
    return text[start:stop]


def is_one_emoji(text):
    """MODEL-50: exactly one character, one of whose code points has Emoji_Presentation, or has
    Emoji while the character also holds U+FE0F (so U+2764 U+FE0F is one emoji, U+2764 is text)."""
    if count(text, 1) != 1:
        return False
    selected = '\uFE0F' in text
    return any(_holds(EMOJI_PRESENTATION, ord(c)) or selected and _holds(EMOJI, ord(c)) for c in text)
