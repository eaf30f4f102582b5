"""Section 7 of the spec (Spec/auth.md): the password policy (AUTH-1 ... AUTH-10).

Written from the spec text alone: the size limit in UTF-8 bytes before any work (AUTH-1), NFKC
normalisation and nothing else (AUTH-2), length in code points (AUTH-3), the forbidden control
characters (AUTH-4), the configurable minimum (AUTH-5) and the maximum (AUTH-6), the blocklist of
Spec/auth/blocklist.txt (AUTH-7), the context words (AUTH-8), in the order of AUTH-9, and the whole
normalised form as what is kept (AUTH-10). Standard library only.
"""
import os
import unicodedata

from .errors import Failure

MAX_BYTES = 16_384                        # AUTH-1
MAX_LENGTH = 4_096                        # AUTH-6
DEFAULT_MINIMUM = 15                      # AUTH-5
LEAST_MINIMUM, GREATEST_MINIMUM = 8, 64   # AUTH-5
SERVICE_NAME = 'glowritual'               # AUTH-8
LEAST_LOCAL_PART = 4                      # AUTH-8

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCKLIST_PATH = os.path.normpath(os.path.join(HERE, '..', '..', '..', 'Spec', 'auth', 'blocklist.txt'))

_ASCII_LOWER = str.maketrans('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
_blocklist = None


def blocklist():
    """AUTH-7: the entries of the list, one per line; empty lines and `#` lines are not entries."""
    global _blocklist
    if _blocklist is None:
        with open(BLOCKLIST_PATH, encoding='utf-8') as file:
            lines = file.read().splitlines()
        _blocklist = frozenset(line for line in lines if line and not line.startswith('#'))
    return _blocklist


def ascii_lower(text):
    """AUTH-7: A-Z changed to a-z and nothing else changed (no Unicode case folding)."""
    return text.translate(_ASCII_LOWER)


def utf8_size(text):
    """The number of bytes of a text's UTF-8 form (a lone surrogate from JSON counts as 3)."""
    return len(text.encode('utf-8', 'surrogatepass'))


def is_forbidden(character):
    """AUTH-4: U+0000 ... U+001F, U+007F and U+0080 ... U+009F."""
    point = ord(character)
    return point <= 0x1F or 0x7F <= point <= 0x9F


def policy_minimum(value):
    """AUTH-5: a minimum of 8 ... 64 code points, 15 when none is given; otherwise `invalid_policy`."""
    if value is None:
        return DEFAULT_MINIMUM
    if isinstance(value, bool) or not isinstance(value, int) or not LEAST_MINIMUM <= value <= GREATEST_MINIMUM:
        raise Failure('invalid_policy', f'the minimum must be {LEAST_MINIMUM} ... {GREATEST_MINIMUM} code points, not {value!r}')
    return value


def local_part(email):
    """AUTH-8: the part of an address before its last `@`; None for no address or one without `@`."""
    if not isinstance(email, str) or '@' not in email:
        return None
    return email.rpartition('@')[0]


def check(password, minimum=DEFAULT_MINIMUM, email=None):
    """AUTH-9: the rules in the order AUTH-1, AUTH-4, AUTH-5, AUTH-6, AUTH-7, AUTH-8; the first
    that fails decides. Returns the normalised password that is kept (AUTH-2, AUTH-10)."""
    size = utf8_size(password)                                           # AUTH-1, before any work
    if size > MAX_BYTES:
        raise Failure('password_too_long', f'{size} bytes of UTF-8, more than {MAX_BYTES}')
    # AUTH-4 on the password as given: NFKC leaves these controls alone and makes none of them
    # from other characters, so the answer is that of the normalised form.
    for character in password:
        if is_forbidden(character):
            raise Failure('password_forbidden_character', 'control character U+%04X' % ord(character))
    normalized = unicodedata.normalize('NFKC', password)                 # AUTH-2
    length = len(normalized)                                             # AUTH-3: code points
    if length < minimum:                                                 # AUTH-5
        raise Failure('password_too_short', f'{length} code points, fewer than {minimum}')
    if length > MAX_LENGTH:                                              # AUTH-6
        raise Failure('password_too_long', f'{length} code points, more than {MAX_LENGTH}')
    folded = ascii_lower(normalized)
    if folded in blocklist():                                            # AUTH-7
        raise Failure('password_common', 'the password is on the blocklist')
    spaceless = folded.replace(' ', '')                                  # AUTH-8
    words = [SERVICE_NAME]
    local = local_part(email)
    if local is not None and len(local) >= LEAST_LOCAL_PART:
        words.append(ascii_lower(local))
    for word in words:
        if word in spaceless:
            raise Failure('password_contains_context', 'the password contains the service name or the e-mail address')
    return normalized                                                    # AUTH-10: kept whole


# ---- The operation of the auth area (Spec/corpus/auth/password.json)

def _password(input):
    """The input's password: `password`, or `repeat` = prefix + text repeated count times. The
    repetition's size is worked out before the text is built, so a megabyte is refused (AUTH-1)
    without being made."""
    if 'repeat' not in input:
        return input['password']
    repeat = input['repeat']
    prefix, text, count = repeat.get('prefix', ''), repeat['text'], repeat['count']
    if utf8_size(prefix) + count * utf8_size(text) > MAX_BYTES:
        return None
    return prefix + text * count


def check_password(input):
    minimum = policy_minimum(input.get('minimum'))           # the policy is checked before a password
    password = _password(input)
    if password is None:
        raise Failure('password_too_long', f'more than {MAX_BYTES} bytes of UTF-8')
    normalized = check(password, minimum, input.get('email'))
    return {'length': len(normalized), 'normalized': normalized}


OPERATIONS = {'auth.checkPassword': check_password}
