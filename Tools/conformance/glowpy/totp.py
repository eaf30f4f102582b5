"""AUTH-50 of the spec (Spec/auth.md): time-based codes, RFC 6238's TOTP over RFC 4226's HOTP, and
the corpus operation `auth.totp` (Spec/corpus/auth/totp.json). Standard library only (`hmac`,
`hashlib`).

- the time step: T = floor(t / 30), counted from 0;
- HOTP: the HMAC (SHA-1, SHA-256 or SHA-512) of the 8-byte big-endian T; the low 4 bits of its
  last byte are an offset o; the 4 bytes from o, big-endian, with the top bit cleared, modulo
  10^d, written as d decimal digits with leading zeros;
- secrets as the account service shows them: RFC 4648 base32, upper case, no padding. Reading one
  is strict: only `A-Z` and `2-7`, no `=`, a length that a whole number of bytes gives (not 1, 3
  or 6 characters past a multiple of 8), and the bits past the last byte zero (the canonical
  spelling, RFC 4648 section 3.5); anything else, and an empty secret, is `invalid_secret`.
"""
import base64
import hashlib
import hmac
import re

from .errors import Failure

PERIOD = 30                                      # AUTH-50: seconds a step
SERVICE_DIGITS = 6                               # AUTH-50: the account service's codes
SERVICE_ALGORITHM = 'SHA1'
SECRET_BYTES = 20                                # AUTH-50: the account service's secrets
MAX_DIGITS = 10                                  # 31 bits hold at most 10 decimal digits

ALGORITHMS = {'SHA1': hashlib.sha1, 'SHA256': hashlib.sha256, 'SHA512': hashlib.sha512}

_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'    # RFC 4648 section 6
_BASE32 = re.compile(r'[A-Z2-7]*')
_BITS_PAST = {0: 0, 2: 2, 4: 4, 5: 1, 7: 3}     # characters past a multiple of 8 -> unused bits


def step(time):
    """AUTH-50: the step of a time in seconds since 1970, floor(t / 30)."""
    return int(time // PERIOD)


def hotp(key, counter, digits=SERVICE_DIGITS, algorithm=SERVICE_ALGORITHM):
    """RFC 4226's HOTP of `key` (bytes) and `counter`, as `digits` decimal digits."""
    mac = hmac.new(key, counter.to_bytes(8, 'big'), ALGORITHMS[algorithm]).digest()
    offset = mac[-1] & 0x0F
    value = int.from_bytes(mac[offset:offset + 4], 'big') & 0x7FFF_FFFF
    return str(value % 10 ** digits).zfill(digits)


def totp(key, time, digits=SERVICE_DIGITS, algorithm=SERVICE_ALGORITHM):
    """RFC 6238's TOTP: the HOTP of the step of `time`."""
    return hotp(key, step(time), digits, algorithm)


def encode_secret(key):
    """AUTH-50: a secret as shown, RFC 4648 base32 in upper case without padding."""
    return base64.b32encode(key).decode('ascii').rstrip('=')


def decode_secret(text):
    """The bytes of a secret written as `encode_secret` writes it; `invalid_secret` otherwise."""
    if not isinstance(text, str) or not text or _BASE32.fullmatch(text) is None:
        raise Failure('invalid_secret', 'a secret is base32: A-Z and 2-7, no padding')
    rest = len(text) % 8
    if rest not in _BITS_PAST:
        raise Failure('invalid_secret', 'no whole number of bytes has this many base32 characters')
    if _ALPHABET.index(text[-1]) & ((1 << _BITS_PAST[rest]) - 1):
        raise Failure('invalid_secret', 'the bits past the last byte are not zero')
    return base64.b32decode(text + '=' * ((8 - rest) % 8))


# ---- The operation (Spec/corpus/auth/totp.json)

def totp_operation(input):
    """auth.totp: the code of `secretText` (its UTF-8 bytes) or `secretBase32` at `time`, with
    `digits` digits and the HMAC `algorithm`."""
    if not isinstance(input, dict):
        raise Failure('invalid_input', 'the input is a JSON object')
    if ('secretText' in input) == ('secretBase32' in input):
        raise Failure('invalid_input', 'give exactly one of secretText and secretBase32')
    if 'secretText' in input:
        text = input['secretText']
        if not isinstance(text, str):
            raise Failure('invalid_input', 'secretText is text')
        key = text.encode('utf-8')
    else:
        key = decode_secret(input['secretBase32'])
    time, digits = input.get('time'), input.get('digits', SERVICE_DIGITS)
    algorithm = input.get('algorithm', SERVICE_ALGORITHM)
    if isinstance(time, bool) or not isinstance(time, (int, float)) or time < 0:
        raise Failure('invalid_input', 'time is a number of seconds since 1970, not before')
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_DIGITS:
        raise Failure('invalid_input', f'digits is a whole number from 1 to {MAX_DIGITS}')
    if algorithm not in ALGORITHMS:
        raise Failure('invalid_input', 'the algorithm is SHA1, SHA256 or SHA512')
    return {'code': totp(key, time, digits, algorithm)}


OPERATIONS = {
    'auth.totp': totp_operation,
}
