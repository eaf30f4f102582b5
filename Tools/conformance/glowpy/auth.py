"""Section 7 of the spec (Spec/auth.md): the password policy (AUTH-1 ... AUTH-10), password
hashes (AUTH-11 ... AUTH-17) and the app's sign-in flow (AUTH-18 ... AUTH-21).

Written from the spec text alone: the size limit in UTF-8 bytes before any work (AUTH-1), NFKC
normalisation and nothing else (AUTH-2), length in code points (AUTH-3), the forbidden control
characters (AUTH-4), the configurable minimum (AUTH-5) and the maximum (AUTH-6), the blocklist of
Spec/auth/blocklist.txt (AUTH-7), the context words (AUTH-8), in the order of AUTH-9, and the whole
normalised form as what is kept (AUTH-10).

Password hashes: Argon2id version 19 (AUTH-11) is `argon2.py`, written from RFC 9106 with no
Argon2 library (BLAKE2b is `hashlib`'s); OWASP's parameters for new hashes (AUTH-12) and the bounds
(AUTH-13); the exact PHC form, strictly parsed (AUTH-14) and written back (AUTH-15); verification
with the hash's own salt and parameters and a constant-time comparison of the tags, `hmac.
compare_digest` (AUTH-16); and the rehash decision (AUTH-17).

The sign-in flow: a state machine of five states, a new install starting `signedOut` (AUTH-18);
the transition table (AUTH-19); `invalid_transition` for any other (event, state) pair and for an
event name the table does not have, the state left as it was (AUTH-20); and the stored form
`{"state": NAME}`, with `invalid_state` for another or a missing name (AUTH-21). Standard library
only.
"""
import hmac
import os
import re
import secrets
import unicodedata

from . import argon2
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



# ---- Password hashes (section 7.2)

OWASP = {'m': 19_456, 't': 2, 'p': 1}     # AUTH-12: new hashes, and `current` when absent
NEW_SALT_BYTES = 16                       # AUTH-12
NEW_TAG_BYTES = 32                        # AUTH-12
LANES = (1, 16)                           # AUTH-13: p
PASSES = (1, 16)                          # AUTH-13: t
MEMORY_PER_LANE, MAX_MEMORY = 8, 262_144  # AUTH-13: m from 8p to 256 MiB, in KiB
SALT_BYTES = (8, 64)                      # AUTH-13
STORED_TAG_BYTES = (16, 64)               # AUTH-13, a stored (or new) hash
RAW_TAG_BYTES = (4, 64)                   # AUTH-13, the raw function of the corpus (RFC 9106's least)
MAX_PHC_BYTES = 256                       # AUTH-14

_BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'   # RFC 4648 section 4
_BASE64_VALUE = {character: value for value, character in enumerate(_BASE64)}
# AUTH-14: one to nine ASCII digits, no sign, no leading zero (every value of AUTH-13 has at
# most 6 digits, and 9 digits fit any 32-bit integer).
_NUMBER = r'(0|[1-9][0-9]{0,8})'
_PHC = re.compile(r'\$(argon2id|argon2i|argon2d)\$v=' + _NUMBER + r'\$m=' + _NUMBER + ',t=' + _NUMBER
                  + ',p=' + _NUMBER + r'\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)')


def parameter_problem(m, t, p, salt_length, tag_length, tag_bounds=STORED_TAG_BYTES):
    """AUTH-13: why the parameters lie outside the bounds, or None when they are inside."""
    if not LANES[0] <= p <= LANES[1]:
        return f'p = {p} lanes, not {LANES[0]} ... {LANES[1]}'
    if not PASSES[0] <= t <= PASSES[1]:
        return f't = {t} passes, not {PASSES[0]} ... {PASSES[1]}'
    if not MEMORY_PER_LANE * p <= m <= MAX_MEMORY:
        return f'm = {m} KiB, not {MEMORY_PER_LANE * p} ... {MAX_MEMORY} for {p} lanes'
    if not SALT_BYTES[0] <= salt_length <= SALT_BYTES[1]:
        return f'a salt of {salt_length} bytes, not {SALT_BYTES[0]} ... {SALT_BYTES[1]}'
    if not tag_bounds[0] <= tag_length <= tag_bounds[1]:
        return f'a tag of {tag_length} bytes, not {tag_bounds[0]} ... {tag_bounds[1]}'
    return None


def decode_canonical(text, values):
    """Base64 without padding in the alphabet whose digit `values` are given, in canonical form, or
    None: a length that leaves a single character over (6 bits, no whole byte) and set bits below
    the last byte are refused. The empty text is the empty byte string."""
    if len(text) % 4 == 1:
        return None
    value = 0
    for character in text:
        digit = values.get(character)
        if digit is None:
            return None
        value = value << 6 | digit
    spare = 6 * len(text) % 8                 # 0, 4 or 2 unused low bits in the last character
    if value & ((1 << spare) - 1):
        return None
    return (value >> spare).to_bytes(6 * len(text) // 8, 'big')


def decode_base64(text):
    """AUTH-14: standard base64 without padding, not empty, in canonical form, or None."""
    return decode_canonical(text, _BASE64_VALUE) if text else None


def encode_base64(data):
    """AUTH-15: standard base64 without padding."""
    out = []
    value = int.from_bytes(data, 'big')
    count = (8 * len(data) + 5) // 6
    value <<= 6 * count - 8 * len(data)       # zero bits below the last byte (canonical form)
    for k in range(count - 1, -1, -1):
        out.append(_BASE64[(value >> (6 * k)) & 63])
    return ''.join(out)


class StoredHash:
    """A parsed PHC string of AUTH-14: Argon2id version 19 within the bounds of AUTH-13."""

    def __init__(self, m, t, p, salt, tag):
        self.m, self.t, self.p, self.salt, self.tag = m, t, p, salt, tag

    def phc(self):
        """AUTH-15: the one written form."""
        return '$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s' % (
            argon2.VERSION, self.m, self.t, self.p, encode_base64(self.salt), encode_base64(self.tag))


def parse_hash(text):
    """AUTH-14: `malformed_hash` for any other shape; `unsupported_hash` for a well-formed string of
    argon2i or argon2d, of a version other than 19, or outside the bounds of AUTH-13."""
    if not isinstance(text, str):
        raise Failure('malformed_hash', 'a stored hash is a string')
    if utf8_size(text) > MAX_PHC_BYTES:
        raise Failure('malformed_hash', f'more than {MAX_PHC_BYTES} bytes')
    match = _PHC.fullmatch(text)
    if match is None:
        raise Failure('malformed_hash', 'not of the form $argon2id$v=19$m=M,t=T,p=P$SALT$TAG')
    algorithm, version, m, t, p, salt_text, tag_text = match.groups()
    salt, tag = decode_base64(salt_text), decode_base64(tag_text)
    if salt is None:
        raise Failure('malformed_hash', 'the salt is not canonical base64 without padding')
    if tag is None:
        raise Failure('malformed_hash', 'the tag is not canonical base64 without padding')
    if algorithm != 'argon2id':
        raise Failure('unsupported_hash', f'algorithm {algorithm}')
    if int(version) != argon2.VERSION:
        raise Failure('unsupported_hash', f'version {version}')
    m, t, p = int(m), int(t), int(p)
    problem = parameter_problem(m, t, p, len(salt), len(tag))
    if problem is not None:
        raise Failure('unsupported_hash', problem)
    return StoredHash(m, t, p, salt, tag)


def hash_password(normalized, m=OWASP['m'], t=OWASP['t'], p=OWASP['p']):
    """AUTH-12: a new hash of a password that passed the policy (its normalised form, AUTH-10),
    with a fresh 16-byte salt from the system's secure generator and a 32-byte tag."""
    problem = parameter_problem(m, t, p, NEW_SALT_BYTES, NEW_TAG_BYTES)
    if problem is not None:
        raise Failure('invalid_hash_parameters', problem)
    salt = secrets.token_bytes(NEW_SALT_BYTES)
    tag = argon2.argon2id(normalized.encode('utf-8'), salt, b'', b'', m, t, p, NEW_TAG_BYTES)
    return StoredHash(m, t, p, salt, tag).phc()


def verify(password, stored, current=OWASP):
    """AUTH-16 and AUTH-17: (match, rehash) for a password (as given) and a parsed stored hash.
    Only AUTH-1 and AUTH-2 of section 7.1 apply; a password AUTH-1 refuses matches nothing."""
    if password is None or utf8_size(password) > MAX_BYTES:               # AUTH-1: refused unread
        return False, False
    try:
        data = unicodedata.normalize('NFKC', password).encode('utf-8')     # AUTH-2, AUTH-11
    except UnicodeEncodeError:                 # a lone surrogate is no scalar value: nothing hashed it
        return False, False
    tag = argon2.argon2id(data, stored.salt, b'', b'', stored.m, stored.t, stored.p, len(stored.tag))
    match = hmac.compare_digest(tag, stored.tag)                           # AUTH-16: constant time
    rehash = match and (stored.m < current['m'] or stored.t < current['t']  # AUTH-17: not p
                        or len(stored.salt) < NEW_SALT_BYTES or len(stored.tag) < NEW_TAG_BYTES)
    return match, rehash


# ---- The operations of the auth area (Spec/corpus/auth/*.json)

def _integer(input, key):
    value = input.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Failure('invalid_hash_parameters', f'{key} must be an integer, not {value!r}')
    return value


def _hex(input, key, default=None):
    value = input.get(key, default)
    try:
        return bytes.fromhex(value)
    except (TypeError, ValueError):
        raise Failure('invalid_hash_parameters', f'{key} must be bytes in hexadecimal, not {value!r}') from None


def argon2id_operation(input):
    """auth.argon2id: the raw function (AUTH-11) within the bounds of AUTH-13, tags of 4 ... 64."""
    password, salt = _hex(input, 'password'), _hex(input, 'salt')
    secret, ad = _hex(input, 'secret', ''), _hex(input, 'ad', '')
    m, t, p, tag_length = (_integer(input, key) for key in ('m', 't', 'p', 'tagLength'))
    problem = parameter_problem(m, t, p, len(salt), tag_length, RAW_TAG_BYTES)
    if problem is not None:
        raise Failure('invalid_hash_parameters', problem)
    return {'tag': argon2.argon2id(password, salt, secret, ad, m, t, p, tag_length).hex()}


def parse_hash_operation(input):
    """auth.parseHash: the parameters, salt and tag of a stored hash, and its written form (AUTH-15)."""
    stored = parse_hash(input.get('hash'))
    return {'m': stored.m, 't': stored.t, 'p': stored.p, 'salt': stored.salt.hex(),
            'tag': stored.tag.hex(), 'phc': stored.phc()}


def verify_password_operation(input):
    """auth.verifyPassword: whether a password matches a stored hash and whether a match calls for
    a rehash under the current parameters (OWASP's when absent, AUTH-12)."""
    stored = parse_hash(input.get('hash'))
    given = input.get('current') or {}
    current = {key: _integer(given, key) if key in given else OWASP[key] for key in ('m', 't', 'p')}
    problem = parameter_problem(current['m'], current['t'], current['p'], NEW_SALT_BYTES, NEW_TAG_BYTES)
    if problem is not None:
        raise Failure('invalid_hash_parameters', 'current parameters: ' + problem)
    match, rehash = verify(_password(input), stored, current)
    return {'match': match, 'rehash': rehash}


# ---- The app's sign-in flow (section 7.3)

SIGNED_OUT, PITCH, SIGN_IN_CHOICES, WELCOME, MAIN = 'signedOut', 'pitch', 'signInChoices', 'welcome', 'main'
STATES = (SIGNED_OUT, PITCH, SIGN_IN_CHOICES, WELCOME, MAIN)    # AUTH-18
INITIAL_STATE = SIGNED_OUT                                      # AUTH-18: a new install

# AUTH-19: (event, from) -> to. `signedIn` is keyed by whether the person has goals.
TRANSITIONS = {
    ('startOnboarding', SIGNED_OUT): PITCH,
    ('continue', PITCH): SIGN_IN_CHOICES,
    ('back', SIGN_IN_CHOICES): PITCH,
    (('signedIn', False), SIGN_IN_CHOICES): WELCOME,
    (('signedIn', True), SIGN_IN_CHOICES): MAIN,
    ('createdFirstGoal', WELCOME): MAIN,
    ('signOut', WELCOME): SIGNED_OUT,
    ('signOut', MAIN): SIGNED_OUT,
    ('deleteAccount', WELCOME): SIGNED_OUT,
    ('deleteAccount', MAIN): SIGNED_OUT,
    ('cancelOnboarding', PITCH): SIGNED_OUT,
    ('cancelOnboarding', SIGN_IN_CHOICES): SIGNED_OUT,
}


def transition(state, event, has_goals=False):
    """AUTH-19 and AUTH-20: the state after an event, or `invalid_transition` for any pair the
    table does not have, including an event name it does not have (the state is left alone)."""
    key = (event, has_goals is True) if event == 'signedIn' else event
    try:
        return TRANSITIONS[(key, state)]
    except (KeyError, TypeError):              # TypeError: an event name that cannot be a key
        raise Failure('invalid_transition', f'no transition for event {event!r} from {state!r}') from None


def restore(stored):
    """AUTH-21: the state of a stored object `{"state": NAME}`; `invalid_state` for another or a
    missing name (the app then starts signedOut)."""
    name = stored.get('state') if isinstance(stored, dict) else None
    if not isinstance(name, str) or name not in STATES:
        raise Failure('invalid_state', f'a stored state must be one of {", ".join(STATES)}, not {name!r}')
    return name


def store(state):
    """AUTH-21: the stored form of a state."""
    return {'state': state}


def flow_operation(input):
    """auth.flow: from `start` (a stored state; signedOut when absent) through `events`, each
    `{"event": NAME}` with `hasGoals` (false when absent) for signedIn; the state after each event
    and the stored form at the end."""
    state = restore(input['start']) if 'start' in input else INITIAL_STATE
    states = []
    for step in input.get('events') or []:
        event = step.get('event') if isinstance(step, dict) else None
        has_goals = step.get('hasGoals', False) if isinstance(step, dict) else False
        state = transition(state, event, has_goals)
        states.append(state)
    return {'states': states, 'stored': store(state)}


OPERATIONS = {
    'auth.flow': flow_operation,
    'auth.checkPassword': check_password,
    'auth.argon2id': argon2id_operation,
    'auth.parseHash': parse_hash_operation,
    'auth.verifyPassword': verify_password_operation,
}
