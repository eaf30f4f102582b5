#!/usr/bin/env python3
"""Writes Spec/corpus/auth/totp.json (AUTH-50): time-based codes.

The first cases are RFC 6238's own test vectors (Appendix B: eight digits, the seeds of SHA-1,
SHA-256 and SHA-512, six instants), copied from the RFC's table. The rest are the account
service's form, six digits of SHA-1 with a base32 secret, whose expected codes are the last six
digits of the RFC's SHA-1 codes (the same HOTP value modulo 10^6), and base32 secrets that are
not base32.
"""
from corpus_file import write_cases, command_line

command_line(__doc__)

SEEDS = {
    'SHA1': '12345678901234567890',
    'SHA256': '12345678901234567890123456789012',
    'SHA512': '1234567890123456789012345678901234567890123456789012345678901234',
}
# RFC 6238, Appendix B: time, then the codes of SHA-1, SHA-256 and SHA-512.
TABLE = [
    (59, '94287082', '46119246', '90693936'),
    (1111111109, '07081804', '68084774', '25091201'),
    (1111111111, '14050471', '67062674', '99943326'),
    (1234567890, '89005924', '91819424', '93441116'),
    (2000000000, '69279037', '90698825', '38618901'),
    (20000000000, '65353130', '77737706', '47863826'),
]

cases = []
for time, *codes in TABLE:
    for algorithm, code in zip(('SHA1', 'SHA256', 'SHA512'), codes):
        cases.append({'comment': 'RFC 6238 Appendix B: %s at %d' % (algorithm, time), 'rules': ['AUTH-50'],
                      'flags': ['Required'],
                      'input': {'secretText': SEEDS[algorithm], 'time': time, 'digits': 8, 'algorithm': algorithm},
                      'result': 'valid', 'expected': {'code': code}})

# The SHA-1 seed in base32 (RFC 4648 section 6): '12345678901234567890'.
BASE32_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'
for time, sha1, _, _ in TABLE:
    cases.append({'comment': "the service's form: six digits, the RFC's SHA-1 seed in base32, at %d" % time,
                  'rules': ['AUTH-50'], 'flags': ['Required'],
                  'input': {'secretBase32': BASE32_SEED, 'time': time, 'digits': 6, 'algorithm': 'SHA1'},
                  'result': 'valid', 'expected': {'code': sha1[-6:]}})
cases.append({'comment': 'step 0 at time 0: RFC 4226 Appendix D gives HOTP(0) = 1284755224, so 84755224',
              'rules': ['AUTH-50'],
              'flags': ['Required'],
              'input': {'secretBase32': BASE32_SEED, 'time': 0, 'digits': 8, 'algorithm': 'SHA1'},
              'result': 'valid', 'expected': {'code': '84755224'}})
for bad, why in [('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ1', 'a 1 is not in the base32 alphabet'),
                 ('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ====', 'padding is not written'),
                 ('gezdgnbvgy3tqojqgezdgnbvgy3tqojq', 'the alphabet is upper case')]:
    cases.append({'comment': 'not a secret: ' + why, 'rules': ['AUTH-50'], 'flags': ['Required'],
                  'input': {'secretBase32': bad, 'time': 59, 'digits': 6, 'algorithm': 'SHA1'},
                  'result': 'invalid', 'error': {'code': 'invalid_secret'}})

write_cases('auth', 'totp.json', 'auth.totp',
            'The TOTP code (AUTH-50) of a secret, given as `secretText` (its UTF-8 bytes) or `secretBase32`, at `time` '
            'seconds since 1970, with `digits` digits and the HMAC `algorithm` (SHA1, SHA256, SHA512): `{"code": TEXT}`.',
            cases, 'totp')
print(len(cases), 'totp cases')
