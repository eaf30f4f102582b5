#!/usr/bin/env python3
"""Writes Spec/corpus/auth/argon2id.json, parse_hash.json and verify.json (AUTH-11 ... AUTH-17).

Where the expected values come from:
- RFC 9106 section 5.3 gives the Argon2id vector (with a secret key and associated data).
- The other tags were computed with the `argon2` command of Debian's `argon2` package (the
  reference implementation's own tool, not this SDK), for example
  `printf password | argon2 somesalt -id -t 2 -k 64 -p 1 -l 32 -r`, and are confirmed by the
  independent Python testee (Tools/conformance/glowpy/auth.py), which implements Argon2id from
  RFC 9106 in pure Python.
- Parse and verification verdicts follow from AUTH-13 ... AUTH-17 as written beside each case.
"""
import base64

from corpus_file import write_cases, command_line

command_line(__doc__)



def b64(data):
    return base64.b64encode(data).decode().rstrip('=')


def phc(m, t, p, salt, tag, algorithm='argon2id', version='19'):
    return '$%s$v=%s$m=%d,t=%d,p=%d$%s$%s' % (algorithm, version, m, t, p, b64(salt), b64(tag))


def write(name, operation, description, cases, prefix):
    write_cases('auth', name, operation, description, cases, prefix)


def valid(comment, rules, inp, expected):
    return {'comment': comment, 'rules': rules, 'flags': ['Required'], 'input': inp, 'result': 'valid',
            'expected': expected}


def invalid(comment, rules, inp, code):
    return {'comment': comment, 'rules': rules, 'flags': ['Required'], 'input': inp, 'result': 'invalid',
            'error': {'code': code}}


HEX = lambda text: text.encode().hex()

# --- auth.argon2id: the raw function (AUTH-11, AUTH-13) -------------------------------------
raw = []
raw.append(valid('RFC 9106 section 5.3: Argon2id with a secret key and associated data', ['AUTH-11'],
                 {'password': '01' * 32, 'salt': '02' * 16, 'secret': '03' * 8, 'ad': '04' * 12,
                  'm': 32, 't': 3, 'p': 4, 'tagLength': 32},
                 {'tag': '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659'}))
base = {'password': HEX('password'), 'salt': HEX('somesalt')}
for comment, m, t, p, length, tag in [
    ('the least memory for one lane, 8 KiB', 8, 1, 1, 32, 'f137f8e186a403a679ccd0606e5ab5dcdafe43c1640855ac8c6e33e9bd63eeb3'),
    ('two passes over 64 KiB', 64, 2, 1, 32, '16a1a498734609dd01456da406de9f3d9da93e6c86c300a12fc1465214ce4922'),
    ('two lanes over the least memory for two, 16 KiB', 16, 1, 2, 32,
     'c1d56bc8ca0a079bbd9bbe8475427754566d8717913534bd0d792f12cd249aa7'),
    ('the shortest tag, 4 bytes', 64, 1, 1, 4, '3dbf4e40'),
    ('the longest tag, 64 bytes', 64, 1, 1, 64,
     '5c6bf55c8656e969fc02abfef931c6a52e6c34e83d1cd32d6da544b30daa3ef2ec357847e038df39ddf38526b8300cca72bdf872dd6ac1ae6fd6c0b59b836eba'),
]:
    raw.append(valid(comment, ['AUTH-11', 'AUTH-13'], dict(base, m=m, t=t, p=p, tagLength=length), {'tag': tag}))
for comment, changes in [
    ('7 KiB is less than 8 per lane', {'m': 7, 't': 1, 'p': 1}),
    ('15 KiB is less than 8 per lane for two lanes', {'m': 15, 't': 1, 'p': 2}),
    ('256 MiB and one KiB is more memory than a hash may ask for', {'m': 262145, 't': 1, 'p': 1}),
    ('no passes', {'m': 64, 't': 0, 'p': 1}),
    ('17 passes', {'m': 64, 't': 17, 'p': 1}),
    ('no lanes', {'m': 64, 't': 1, 'p': 0}),
    ('17 lanes', {'m': 1024, 't': 1, 'p': 17}),
    ('a 3-byte tag', {'m': 64, 't': 1, 'p': 1, 'tagLength': 3}),
    ('a 65-byte tag', {'m': 64, 't': 1, 'p': 1, 'tagLength': 65}),
    ('a 7-byte salt', {'m': 64, 't': 1, 'p': 1, 'salt': HEX('somesal')}),
    ('a 65-byte salt', {'m': 64, 't': 1, 'p': 1, 'salt': '00' * 65}),
]:
    inp = dict(base, tagLength=32)
    inp.update(changes)
    raw.append(invalid(comment, ['AUTH-13'], inp, 'invalid_hash_parameters'))
write('argon2id.json', 'auth.argon2id',
      'Argon2id version 19 (RFC 9106): `password`, `salt`, optional `secret` and `ad` as hexadecimal bytes, memory `m` in KiB, passes `t`, lanes `p` and `tagLength`; the output is the tag in lower-case hexadecimal.',
      raw, 'argon2id')

# --- auth.parseHash: the stored form (AUTH-13 ... AUTH-15) ----------------------------------
salt16 = bytes(range(16))
tag32 = bytes(range(100, 132))
good = phc(19456, 2, 1, salt16, tag32)
parsed = {'m': 19456, 't': 2, 'p': 1, 'salt': salt16.hex(), 'tag': tag32.hex(), 'phc': good}
parse = [valid("OWASP's parameters, a 16-byte salt and a 32-byte tag; written back unchanged",
               ['AUTH-12', 'AUTH-14', 'AUTH-15'], {'hash': good}, parsed)]
small = phc(64, 1, 1, b'saltsalt', bytes(16))
parse.append(valid('the least salt (8 bytes) and tag (16 bytes)', ['AUTH-13', 'AUTH-14', 'AUTH-15'], {'hash': small},
                   {'m': 64, 't': 1, 'p': 1, 'salt': b'saltsalt'.hex(), 'tag': '00' * 16, 'phc': small}))
big = phc(262144, 16, 16, bytes([7]) * 64, bytes([9]) * 64)
parse.append(valid('every bound at its largest', ['AUTH-13', 'AUTH-14'], {'hash': big},
                   {'m': 262144, 't': 16, 'p': 16, 'salt': '07' * 64, 'tag': '09' * 64, 'phc': big}))
salt_b64, tag_b64 = b64(salt16), b64(tag32)
for comment, text in [
    ('no leading $', good[1:]),
    ('padding on the tag', good + '='),
    ('a space at the end', good + ' '),
    ('an empty tag', '$argon2id$v=19$m=19456,t=2,p=1$%s$' % salt_b64),
    ('an empty salt', '$argon2id$v=19$m=19456,t=2,p=1$$%s' % tag_b64),
    ('a sixth field', good + '$AAAA'),
    ('no version field', '$argon2id$m=19456,t=2,p=1$%s$%s' % (salt_b64, tag_b64)),
    ('the version with a leading zero', good.replace('v=19', 'v=019')),
    ('the parameters in another order', good.replace('m=19456,t=2,p=1', 't=2,m=19456,p=1')),
    ('a leading zero in m', good.replace('m=19456', 'm=019456')),
    ('a plus sign in t', good.replace('t=2', 't=+2')),
    ('a negative p', good.replace('p=1', 'p=-1')),
    ('a missing p', good.replace(',p=1', '')),
    ('a keyid parameter', good.replace('p=1', 'p=1,keyid=abc')),
    ('a space after a comma', good.replace('m=19456,t=2', 'm=19456, t=2')),
    ('a character outside base64 in the salt', good.replace(salt_b64, salt_b64[:-1] + '*')),
    ('URL-safe base64 (- and _) is not standard base64', '$argon2id$v=19$m=19456,t=2,p=1$%s$%s' % (
        b64(bytes([0xfb, 0xff] * 8)).replace('+', '-').replace('/', '_'), tag_b64)),
    ('a salt whose last character has bits set below its last byte', good.replace(salt_b64, salt_b64[:-1] + 'B')),
    ('a length that leaves one character over', good.replace(salt_b64, salt_b64 + 'AAA')),
    ('the algorithm in capitals', good.replace('argon2id', 'ARGON2ID')),
    ('another algorithm name', good.replace('argon2id', 'scrypt')),
    ('longer than 256 bytes', '$argon2id$v=19$m=19456,t=2,p=1$%s$%s' % (salt_b64, b64(bytes(200)))),
    ('a number of 10 digits', good.replace('m=19456', 'm=1000000000')),
]:
    parse.append(invalid(comment, ['AUTH-14'], {'hash': text}, 'malformed_hash'))
for comment, text in [
    ('argon2i is not verified', good.replace('argon2id', 'argon2i')),
    ('argon2d is not verified', good.replace('argon2id', 'argon2d')),
    ('version 16', good.replace('v=19', 'v=16')),
    ('memory beyond 256 MiB', good.replace('m=19456', 'm=262145')),
    ('memory below 8 per lane', good.replace('m=19456,t=2,p=1', 'm=15,t=2,p=2')),
    ('no passes', good.replace('t=2', 't=0')),
    ('17 lanes', good.replace('m=19456,t=2,p=1', 'm=19456,t=2,p=17')),
    ('a 7-byte salt', phc(19456, 2, 1, bytes(7), tag32)),
    ('a 65-byte salt', phc(19456, 2, 1, bytes(65), tag32)),
    ('a 15-byte tag', phc(19456, 2, 1, salt16, bytes(15))),
    ('a 65-byte tag', phc(19456, 2, 1, salt16, bytes(65))),
]:
    parse.append(invalid(comment, ['AUTH-13', 'AUTH-14'], {'hash': text}, 'unsupported_hash'))
write('parse_hash.json', 'auth.parseHash',
      'Parsing a stored hash (`hash`, a PHC string); the output is its parameters, salt and tag in hexadecimal, and the string written back (`phc`).',
      parse, 'parse-hash')

# --- auth.verifyPassword (AUTH-16, AUTH-17) --------------------------------------------------
h1 = phc(64, 1, 1, b'saltsaltsaltsalt', bytes.fromhex('eef0b31f662dfe6fe25b1e61eea19b15d0db589f578a845ea0bb64291c846014'))
h2 = phc(64, 1, 1, b'pepperpepperpepp', bytes.fromhex('3f139e66cbacb52930226b0152dc8c846e6782ca07f25a0f1367301f295465f8'))
h3 = phc(128, 2, 1, b'0123456789abcdef', bytes.fromhex('22a4416f1a7119a2e61a42f93e61fdd03872db9afc49c7fec37fa502b5c815a5'))
h4 = phc(64, 1, 2, b'windowwindowwind', bytes.fromhex('5463df7023da9a00532e0d97622e9e99'))
same = {'m': 64, 't': 1, 'p': 1}
verify = [
    valid('the password that was hashed; as strong as the current parameters', ['AUTH-16', 'AUTH-17'],
          {'password': 'quiet morning walks', 'hash': h1, 'current': same}, {'match': True, 'rehash': False}),
    valid('another password', ['AUTH-16'], {'password': 'quiet morning walk', 'hash': h1, 'current': same},
          {'match': False, 'rehash': False}),
    valid('the same password in another case', ['AUTH-16'], {'password': 'Quiet morning walks', 'hash': h1, 'current': same},
          {'match': False, 'rehash': False}),
    valid('a space more at the end', ['AUTH-16'], {'password': 'quiet morning walks ', 'hash': h1, 'current': same},
          {'match': False, 'rehash': False}),
    valid("OWASP's parameters are stronger: a match calls for a rehash", ['AUTH-12', 'AUTH-17'],
          {'password': 'quiet morning walks', 'hash': h1}, {'match': True, 'rehash': True}),
    valid('a wrong password never calls for a rehash', ['AUTH-17'], {'password': 'loud evening runs', 'hash': h1},
          {'match': False, 'rehash': False}),
    valid('the password typed with a combining accent is the same password', ['AUTH-2', 'AUTH-16'],
          {'password': 'cafe\u0301 au lait', 'hash': h2, 'current': same}, {'match': True, 'rehash': False}),
    valid('the precomposed form', ['AUTH-16'], {'password': 'caf\u00e9 au lait', 'hash': h2, 'current': same},
          {'match': True, 'rehash': False}),
    valid('a password no policy would accept is compared, not refused; "café" is not the one hashed', ['AUTH-16'],
          {'password': 'caf\u00e9', 'hash': h2, 'current': same}, {'match': False, 'rehash': False}),
    valid('two passes over 128 KiB', ['AUTH-16', 'AUTH-17'],
          {'password': 'lantern evenings', 'hash': h3, 'current': {'m': 128, 't': 2, 'p': 1}},
          {'match': True, 'rehash': False}),
    valid('fewer passes than the current parameters', ['AUTH-17'],
          {'password': 'lantern evenings', 'hash': h3, 'current': {'m': 128, 't': 3, 'p': 1}},
          {'match': True, 'rehash': True}),
    valid('less memory than the current parameters', ['AUTH-17'],
          {'password': 'lantern evenings', 'hash': h3, 'current': {'m': 256, 't': 2, 'p': 1}},
          {'match': True, 'rehash': True}),
    valid('more lanes than the current parameters do not call for a rehash', ['AUTH-17'],
          {'password': 'lantern evenings', 'hash': h3, 'current': {'m': 128, 't': 2, 'p': 2}},
          {'match': True, 'rehash': False}),
    valid('a 16-byte tag is shorter than 32: a match calls for a rehash', ['AUTH-17'],
          {'password': 'tea by the window', 'hash': h4, 'current': same}, {'match': True, 'rehash': True}),
    valid('a megabyte is refused unread and matches nothing', ['AUTH-1', 'AUTH-16'],
          {'repeat': {'text': 'a', 'count': 1048576}, 'hash': h1, 'current': same}, {'match': False, 'rehash': False}),
    invalid('a hash of another algorithm is not verified', ['AUTH-14'],
            {'password': 'quiet morning walks', 'hash': h1.replace('argon2id', 'argon2i'), 'current': same},
            'unsupported_hash'),
    invalid('a broken hash is not verified', ['AUTH-14'],
            {'password': 'quiet morning walks', 'hash': h1 + '=', 'current': same}, 'malformed_hash'),
]
write('verify.json', 'auth.verifyPassword',
      'Checking a password (`password`, or `repeat` as in auth.checkPassword) against a stored hash (`hash`), with the current parameters `current` (m, t, p; OWASP\'s when absent); the output says whether it matches and whether a match calls for a rehash.',
      verify, 'verify')
print(len(raw), len(parse), len(verify))
