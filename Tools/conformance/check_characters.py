#!/usr/bin/env python3
"""Checks glowpy/characters.py (MODEL-50) against Unicode's own data, where the machine has it.

Debian's `unicode-data` package installs Unicode 15.0's files under /usr/share/unicode/. This
runs every line of auxiliary/GraphemeBreakTest.txt (the boundaries UAX #29 prescribes) through
`characters.boundaries`, and checks the property tables copied into the module against
PropList.txt, DerivedCoreProperties.txt, GraphemeBreakProperty.txt and emoji/emoji-data.txt. A
test line whose code points the running Python's `unicodedata` does not know (assigned after its
Unicode version) is counted apart, not failed: the breaker derives general categories from
`unicodedata` (see the module's docstring).

    /usr/bin/python3 Tools/conformance/check_characters.py [folder of the Unicode data files]

Exits 0 when every line it can judge agrees, 1 otherwise, 2 when the files are not there.
"""
import os
import sys
import unicodedata

sys.dont_write_bytecode = True                         # keep the repository free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cli                                              # noqa: E402
from glowpy import characters                           # noqa: E402

DEFAULT = '/usr/share/unicode'


def test_lines(path):
    """(text, expected boundaries, the line) for each test of GraphemeBreakTest.txt."""
    with open(path, encoding='utf-8') as f:
        for line in f:
            body = line.split('#')[0].strip()
            if not body:
                continue
            text, ends = '', []
            for token in body.split():
                if token == '÷':
                    if text:
                        ends.append(len(text))
                elif token != '×':
                    text += chr(int(token, 16))
            yield text, ends, line.rstrip('\n')


def property_set(path, name):
    """The code points a UCD file lists with a property."""
    out = set()
    with open(path, encoding='utf-8') as f:
        for line in f:
            body = line.split('#')[0].strip()
            if not body:
                continue
            points, prop = [x.strip() for x in body.split(';')[:2]]
            if prop == name:
                first, _, last = points.partition('..')
                out.update(range(int(first, 16), int(last or first, 16) + 1))
    return out


def table_set(table):
    return {cp for first, last in table for cp in range(first, last + 1)}


def main(argv):
    usage = f'{argv[0]} [UNICODE-DATA-FOLDER]  (default {DEFAULT})'
    folder = cli.arguments(argv, __doc__, usage, optional='folder') or DEFAULT
    tests = os.path.join(folder, 'auxiliary', 'GraphemeBreakTest.txt')
    if not os.path.exists(tests):
        print(f'{tests} is not there (apt-get install unicode-data)')
        return 2
    passed = failed = unknown = tables_differ = 0
    for text, ends, line in test_lines(tests):
        got = list(characters.boundaries(text))
        if got == ends:
            passed += 1
        elif any(unicodedata.category(c) == 'Cn' for c in text):
            unknown += 1                                # a character newer than this unicodedata
        else:
            failed += 1
            print(f'DIFFERS {line}\n  got boundaries {got}, expected {ends}')
    tables = [(os.path.join(folder, 'emoji', 'emoji-data.txt'), name, table)
              for name, table in (('Extended_Pictographic', characters.EXTENDED_PICTOGRAPHIC),
                                  ('Emoji', characters.EMOJI), ('Emoji_Presentation', characters.EMOJI_PRESENTATION))]
    tables += [(os.path.join(folder, 'PropList.txt'), name, table)
               for name, table in (('White_Space', characters.WHITE_SPACE),
                                   ('Other_Grapheme_Extend', characters.OTHER_GRAPHEME_EXTEND))]
    tables += [(os.path.join(folder, 'DerivedCoreProperties.txt'), 'Default_Ignorable_Code_Point',
                characters.DEFAULT_IGNORABLE),
               (os.path.join(folder, 'auxiliary', 'GraphemeBreakProperty.txt'), 'Prepend', characters.PREPEND)]
    for path, name, table in tables:
        if property_set(path, name) != table_set(table):
            tables_differ += 1
            print(f'DIFFERS the table {name} from {path}')
    print(f'GraphemeBreakTest.txt: {passed} agree, {failed} differ, {unknown} not judged '
          f'(code points unassigned in unicodedata {unicodedata.unidata_version})')
    print(f'property tables: {len(tables) - tables_differ} of {len(tables)} agree')
    return 1 if failed or tables_differ else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
