#!/usr/bin/env python3
"""Writes Spec/corpus/auth/password.json (AUTH-1 ... AUTH-10): the password policy at every edge.

Every expected value is written out by hand from the rules: lengths are counted in code points of
the NFKC form (AUTH-2, AUTH-3), and the error is the first rule that fails, in the order of AUTH-9.
"""

from corpus_file import write_cases, command_line

command_line(__doc__)
cases = []
def case(comment, rules, inp, expected=None, error=None, flags=("Required",)):
    c = {"id": "password-%03d" % (len(cases) + 1), "comment": comment, "rules": list(rules), "flags": list(flags),
         "input": inp}
    if error:
        c["result"] = "invalid"; c["error"] = {"code": error}
    else:
        c["result"] = "valid"; c["expected"] = expected
    cases.append(c)

ok = lambda n, norm: {"length": n, "normalized": norm}
# AUTH-4 length edges with the default minimum 15
case("14 code points is one short of the default minimum", ["AUTH-5"], {"password": "fourteen chars"}, error="password_too_short")
case("15 code points is the default minimum", ["AUTH-5"], {"password": "fifteen charsss"}, ok(15, "fifteen charsss"))
case("an empty password", ["AUTH-5"], {"password": ""}, error="password_too_short")
case("8 code points with the least minimum, 8", ["AUTH-5"], {"password": "plumtree", "minimum": 8}, ok(8, "plumtree"))
case("7 code points with the least minimum", ["AUTH-5"], {"password": "plumtre", "minimum": 8}, error="password_too_short")
case("a minimum of 7 is not a policy", ["AUTH-5"], {"password": "plumtree", "minimum": 7}, error="invalid_policy")
case("a minimum of 65 is not a policy", ["AUTH-5"], {"password": "plumtree", "minimum": 65}, error="invalid_policy")
case("a minimum of 64 is, and 63 code points fail it", ["AUTH-5"], {"repeat": {"text": "z", "count": 63}, "minimum": 64}, error="password_too_short")
case("64 code points pass the largest minimum", ["AUTH-5"], {"repeat": {"text": "z", "count": 64}, "minimum": 64}, ok(64, "z" * 64))
case("4,096 code points, the maximum, kept whole", ["AUTH-6", "AUTH-10"], {"repeat": {"text": "ab", "count": 2048}}, ok(4096, "ab" * 2048))
case("4,097 code points, one past the maximum", ["AUTH-6"], {"repeat": {"prefix": "c", "text": "ab", "count": 2048}}, error="password_too_long")
case("4,096 emoji: 16,384 bytes, the byte limit exactly", ["AUTH-1", "AUTH-6"], {"repeat": {"text": "🌸", "count": 4096}}, ok(4096, "🌸" * 4096))
case("4,097 emoji: 16,388 bytes are refused by size", ["AUTH-1"], {"repeat": {"text": "🌸", "count": 4097}}, error="password_too_long")
case("a megabyte is refused by size before it is read", ["AUTH-1"], {"repeat": {"text": "a", "count": 1048576}}, error="password_too_long")
case("16,385 bytes of ASCII are refused by size", ["AUTH-1"], {"repeat": {"text": "q", "count": 16385}}, error="password_too_long")
case("16,384 bytes of ASCII pass the size but not the maximum length", ["AUTH-1", "AUTH-6"], {"repeat": {"text": "q", "count": 16384}}, error="password_too_long")
# AUTH-2 normalisation and counting
case("an emoji is one code point: 15 blossoms", ["AUTH-2", "AUTH-3"], {"password": "🌸" * 15}, ok(15, "🌸" * 15))
case("14 blossoms", ["AUTH-2", "AUTH-3"], {"password": "🌸" * 14}, error="password_too_short")
case("a flag is two code points: 7 flags are 14", ["AUTH-2", "AUTH-3"], {"password": "🇯🇵" * 7}, error="password_too_short")
case("8 flags are 16 code points", ["AUTH-2", "AUTH-3"], {"password": "🇯🇵" * 8}, ok(16, "🇯🇵" * 8))
case("e and a combining acute compose to one code point: 15 typed, 14 kept", ["AUTH-2", "AUTH-3"], {"password": "cafe\u0301 au lait k"}, error="password_too_short")
case("e and a combining acute compose: 16 typed, 15 kept", ["AUTH-2", "AUTH-3", "AUTH-10"], {"password": "cafe\u0301 au lait ok"}, ok(15, "caf\u00e9 au lait ok"))
case("a combining mark with no precomposed form stays a code point of its own", ["AUTH-2", "AUTH-3"], {"password": "q\u0301" * 8}, ok(16, "q\u0301" * 8))
case("full-width letters become ASCII", ["AUTH-2"], {"password": "ＧＡＲＤＥＮＰＡＴＨＳＴＯＮＥＳ"}, ok(16, "GARDENPATHSTONES"))
case("the ligature ﬁ becomes f and i", ["AUTH-2"], {"password": "\ufb01eldstones and moss"}, ok(20, "fieldstones and moss"))
case("spaces at either end are kept and counted", ["AUTH-2", "AUTH-10"], {"password": "  morning pages  "}, ok(17, "  morning pages  "))
case("case is kept", ["AUTH-2", "AUTH-10"], {"password": "Morning Pages At Six"}, ok(20, "Morning Pages At Six"))
# AUTH-3 characters
case("NUL is refused", ["AUTH-4"], {"password": "with a\u0000nul inside it"}, error="password_forbidden_character")
case("a tab is refused", ["AUTH-4"], {"password": "tab\tseparated words"}, error="password_forbidden_character")
case("a line break is refused", ["AUTH-4"], {"password": "two lines\nof words here"}, error="password_forbidden_character")
case("DEL is refused", ["AUTH-4"], {"password": "delete\u007f me please now"}, error="password_forbidden_character")
case("a C1 control is refused", ["AUTH-4"], {"password": "next line\u0085 is a control"}, error="password_forbidden_character")
case("a control in a short password: the control is named first", ["AUTH-4", "AUTH-9"], {"password": "a\u0001b"}, error="password_forbidden_character")
case("U+00A0 no-break space is no control; NFKC makes it a space", ["AUTH-2", "AUTH-4"], {"password": "quiet\u00a0morning walks"}, ok(19, "quiet morning walks"))
case("lower-case letters alone: no composition rules", ["AUTH-4"], {"password": "bluewhalesinging"}, ok(16, "bluewhalesinging"))
case("digits alone that are not on the list", ["AUTH-4"], {"password": "492817365019283"}, ok(15, "492817365019283"))
# AUTH-5 blocklist
case("a listed password", ["AUTH-7"], {"password": "password123", "minimum": 8}, error="password_common")
case("a listed password in upper case", ["AUTH-7"], {"password": "PASSWORD123", "minimum": 8}, error="password_common")
case("a listed password of 15 or more code points", ["AUTH-7"], {"password": "correcthorsebatterystaple"}, error="password_common")
case("a listed password in full-width letters is normalised onto the list", ["AUTH-2", "AUTH-7"], {"password": "ＡＢＣＤＥＦＧＨ", "minimum": 8}, error="password_common")
case("a listed password with a space after it is another password", ["AUTH-7"], {"password": "password123 ", "minimum": 8}, ok(12, "password123 "))
case("a listed password inside a longer one is not listed", ["AUTH-7"], {"password": "mypassword123isnotsimple"}, ok(24, "mypassword123isnotsimple"))
case("upper-case letters outside ASCII are not folded", ["AUTH-7"], {"password": "PASSWÖRD", "minimum": 8}, ok(8, "PASSWÖRD"))
case("the list is checked before the context words", ["AUTH-7", "AUTH-8", "AUTH-9"], {"password": "iloveyou", "minimum": 8, "email": "iloveyou@example.com"}, error="password_common")
# AUTH-6 context
case("the service's name", ["AUTH-8"], {"password": "glowritual forever and ever"}, error="password_contains_context")
case("the service's name with spaces and capitals", ["AUTH-8"], {"password": "My Glow Ritual Passphrase"}, error="password_contains_context")
case("the service's name split by another character", ["AUTH-8"], {"password": "my glow-ritual passphrase"}, ok(25, "my glow-ritual passphrase"))
case("the e-mail's local part, in another case", ["AUTH-8"], {"password": "a long phrase with anna in it", "email": "Anna@example.com"}, error="password_contains_context")
case("a local part of 3 code points is not a context word", ["AUTH-8"], {"password": "a long phrase with bob in it", "email": "bob@example.com"}, ok(28, "a long phrase with bob in it"))
case("the local part is before the last @", ["AUTH-8"], {"password": "quoted mia@home sentence", "email": "\"mia@home\"@example.com"}, ok(24, "quoted mia@home sentence"))
case("the local part before the last @, found", ["AUTH-8"], {"password": "she said \"mia@home\" twice", "email": "\"mia@home\"@example.com"}, error="password_contains_context")
case("an address without @ has no local part", ["AUTH-8"], {"password": "nobody at all is here", "email": "nobody"}, ok(21, "nobody at all is here"))
case("no e-mail given", ["AUTH-8"], {"password": "nobody at all is here"}, ok(21, "nobody at all is here"))

write_cases('auth', 'password.json', 'auth.checkPassword',
            "The password policy (AUTH-1 ... AUTH-10): size, normalisation, characters, length, blocklist, context words. The input is `password`, or `repeat` (`text` repeated `count` times after an optional `prefix`), with an optional policy `minimum` and account `email`; the output is the length in code points and the normalised password kept for hashing.",
            cases, 'password')
print(len(cases))
