"""Section 7.4 of the spec (Spec/auth.md): ID tokens of Sign in with Apple and Google
(AUTH-22 ... AUTH-34), and the cache of the providers' key sets (AUTH-27).

Written from the spec text alone, with the standard library only:

- the form of a token (AUTH-22): at most 16,384 bytes, three parts of strict base64url (RFC 4648
  section 5, no padding, canonical trailing bits, a non-empty signature), header and payload
  UTF-8 JSON objects read by `strict_json` (no member name twice at any level, at most 16 deep);
- the algorithm, exactly one of the provider's (AUTH-23), and the header members that name a key
  or an extension (AUTH-24);
- the key named by `kid` (AUTH-25) from the provider's key set (AUTH-26) through `KeySetCache`
  (AUTH-27: max-age clamped to 60 ... 86,400 s, 3,600 s without one, the once-only refresh for an
  unknown kid of a set at least 60 s old, failed and malformed fetches);
- the signature (AUTH-28): RSASSA-PKCS1-v1_5 with SHA-256 by `pow()` and a comparison with the
  expected EMSA-PKCS1-v1_5 encoding (RFC 8017 sections 8.2.2 and 9.2), and ECDSA on P-256 with
  SHA-256 in Jacobian coordinates (curve constants of SEC 2 / FIPS 186-4);
- the claims in the order of AUTH-34 (AUTH-29 ... AUTH-33), and the verified identity.

The two corpus operations are `auth.verifyIdToken` (Spec/corpus/auth/id_token.json) and
`auth.keySetCache` (Spec/corpus/auth/key_set_cache.json).
"""
import hashlib
import hmac
import json
import math

from . import auth
from .errors import Failure

MAX_TOKEN_BYTES = 16_384          # AUTH-22
MAX_DEPTH = 16                    # AUTH-22 (and AUTH-26 for key sets)
MAX_KEY_SET_BYTES = 65_536        # AUTH-26
MAX_KEYS = 100                    # AUTH-26
LEEWAY = 60                       # AUTH-31, seconds
DEFAULT_MAX_AGE = 3_600           # AUTH-27, seconds, a response without max-age
LEAST_MAX_AGE = 60                # AUTH-27
GREATEST_MAX_AGE = 86_400         # AUTH-27
REFRESH_AFTER = 60                # AUTH-27: an unknown kid refetches a set at least this old
RSA_BITS = (2_048, 8_192)         # AUTH-25
RSA_MAX_EXPONENT_BYTES = 8        # AUTH-25
MAX_SUBJECT_BYTES = 255           # AUTH-33
EMBEDDED_KEY_MEMBERS = ('jwk', 'jku', 'x5u', 'x5c')   # AUTH-24
ALGORITHMS = ('RS256', 'ES256')   # the only algorithms a provider can be configured with
_ASCII_LOWER = str.maketrans('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')   # AUTH-33


# ---- Providers and verifiers (the table of section 7.4)

class Provider:
    """A provider: its exact issuers, its algorithms, whether its `nonce` claim is the hash of the
    raw nonce, and the domain of its relay addresses (None: it has none)."""

    def __init__(self, name, issuers, algorithms, hashes_nonce, relay_domain):
        self.name, self.issuers, self.algorithms = name, tuple(issuers), tuple(algorithms)
        self.hashes_nonce, self.relay_domain = hashes_nonce, relay_domain


PROVIDERS = {
    'apple': Provider('apple', ['https://appleid.apple.com'], ['RS256'], True, 'privaterelay.appleid.com'),
    'google': Provider('google', ['https://accounts.google.com', 'accounts.google.com'], ['RS256'], False, None),
}


class Verifier:
    """A provider (with its algorithms replaced when `algorithms` is given: RS256 and/or ES256
    only) and the app's client ids at it (at least one, none empty)."""

    def __init__(self, provider_name, client_ids, algorithms=None):
        base = PROVIDERS.get(provider_name) if isinstance(provider_name, str) else None
        if base is None:
            raise Failure('invalid_verifier', f'no provider {provider_name!r}; there are {", ".join(PROVIDERS)}')
        if algorithms is None:
            algorithms = base.algorithms
        if not isinstance(algorithms, (list, tuple)) or not algorithms \
                or any(not isinstance(a, str) or a not in ALGORITHMS for a in algorithms):
            raise Failure('invalid_verifier', f'algorithms must be a non-empty list of {ALGORITHMS}, not {algorithms!r}')
        if isinstance(client_ids, str):
            client_ids = [client_ids]
        if not isinstance(client_ids, list) or not client_ids \
                or any(not isinstance(c, str) or not c for c in client_ids):
            raise Failure('invalid_verifier', f'client ids must be one or more non-empty strings, not {client_ids!r}')
        self.provider = Provider(base.name, base.issuers, algorithms, base.hashes_nonce, base.relay_domain)
        self.client_ids = tuple(client_ids)


# ---- Strict base64url and JSON (AUTH-22, AUTH-26)

_BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'   # RFC 4648 section 5
_BASE64URL_VALUE = {character: value for value, character in enumerate(_BASE64URL)}


def decode_base64url(text):
    """AUTH-22: base64url without padding in canonical form, or None: only the 64 characters of
    the URL alphabet, no length that leaves a single character over, and the unused low bits of
    the last character zero. The empty text is the empty byte string (callers that need content
    say so)."""
    if not isinstance(text, str):
        return None
    return auth.decode_canonical(text, _BASE64URL_VALUE)


class JSONProblem(ValueError):
    """Text that is not JSON under the strict rules of AUTH-22."""


def _no_duplicates(pairs):
    """AUTH-22: an object with a member name twice is refused (at any level: the hook sees every
    object)."""
    members = {}
    for name, value in pairs:
        if name in members:
            raise JSONProblem(f'the member name {name!r} twice')
        members[name] = value
    return members


def _finite(text):
    """A JSON number with a fraction or exponent, as a float; one beyond the range of a double is
    refused rather than read as infinity."""
    value = float(text)
    if not math.isfinite(value):
        raise JSONProblem(f'the number {text} is out of range')
    return value


def _refuse_constant(name):
    """NaN, Infinity and -Infinity are not JSON (RFC 8259)."""
    raise JSONProblem(f'{name} is not JSON')


def nesting_depth(text):
    """The deepest nesting of arrays and objects in JSON text, a top-level object being 1; brackets
    inside strings do not count. Worked out before parsing, so deep text is refused unparsed."""
    depth = deepest = 0
    in_string = escaped = False
    for character in text:
        if in_string:
            if escaped:
                escaped = False
            elif character == '\\':
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in '[{':
            depth += 1
            deepest = max(deepest, depth)
        elif character in ']}':
            depth -= 1
    return deepest


def strict_json(data):
    """AUTH-22: UTF-8 JSON (RFC 8259) with no member name twice at any level and nesting at most 16
    deep; raises JSONProblem otherwise. `data` is bytes (the decoded part of a token) or text (a
    key set). JSON `true` and `false` stay Python booleans, numbers stay int or float."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode('utf-8')          # strict: no overlong forms, no surrogates
        except UnicodeDecodeError as error:
            raise JSONProblem(f'not UTF-8: {error}') from None
    if nesting_depth(data) > MAX_DEPTH:
        raise JSONProblem(f'nested more than {MAX_DEPTH} deep')
    try:
        return json.loads(data, object_pairs_hook=_no_duplicates, parse_float=_finite,
                          parse_constant=_refuse_constant)
    except JSONProblem:
        raise
    except (ValueError, RecursionError) as error:       # JSONDecodeError, an int of too many digits
        raise JSONProblem(f'not JSON: {error}') from None


def strict_json_object(data):
    """AUTH-22: strict JSON whose top level is an object."""
    value = strict_json(data)
    if not isinstance(value, dict):
        raise JSONProblem('not a JSON object')
    return value


def is_number(value):
    """A JSON number: an int or float that is not a boolean (Python's bool is an int)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_number(value):
    """A number for the output: an integer when it is integral (CONF-5 tells 1 from 1.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# ---- RSASSA-PKCS1-v1_5 with SHA-256 (AUTH-28, RFC 8017)

# RFC 8017 section 9.2, note 1: the DER of DigestInfo for SHA-256, before the 32-byte hash.
SHA256_DIGEST_INFO = bytes.fromhex('3031300d060960864801650304020105000420')


def rsa_verify(n, e, message, signature):
    """AUTH-28: RSASSA-PKCS1-v1_5-VERIFY with SHA-256 (RFC 8017 section 8.2.2). The signature must
    be exactly as long as the modulus in bytes and, as an integer, less than it; the result of
    RSAVP1 is compared with the EMSA-PKCS1-v1_5 encoding of the message's hash."""
    k = (n.bit_length() + 7) // 8
    if len(signature) != k:
        return False
    s = int.from_bytes(signature, 'big')
    if s >= n:
        return False
    encoded = pow(s, e, n).to_bytes(k, 'big')                            # RSAVP1, I2OSP
    t = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
    if k < len(t) + 11:
        return False
    expected = b'\x00\x01' + b'\xff' * (k - len(t) - 3) + b'\x00' + t     # EMSA-PKCS1-v1_5
    return hmac.compare_digest(encoded, expected)


# ---- ECDSA on P-256 with SHA-256 (AUTH-25, AUTH-28)

class P256:
    """The curve secp256r1 of SEC 2 (P-256 of FIPS 186-4): y^2 = x^3 - 3x + b over GF(p), with the
    base point G of prime order n (cofactor 1)."""
    p = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
    a = p - 3
    b = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
    gx = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
    gy = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5
    n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def on_curve(x, y):
    """AUTH-25: whether (x, y) is an affine point of P-256: both coordinates field elements
    (less than p) satisfying the curve's equation. With cofactor 1 every such point has order n."""
    p = P256.p
    if not (0 <= x < p and 0 <= y < p):
        return False
    return (y * y - (x * x * x + P256.a * x + P256.b)) % p == 0


# Points in Jacobian coordinates (X, Y, Z) for the affine (X/Z^2, Y/Z^3); Z = 0 is the point at
# infinity.
INFINITY = (1, 1, 0)


def _double(point):
    """2P in Jacobian coordinates, for a = -3 (the "dbl-2001-b" formulas)."""
    x, y, z = point
    p = P256.p
    if z == 0 or y == 0:
        return INFINITY
    delta = z * z % p
    gamma = y * y % p
    beta = x * gamma % p
    alpha = 3 * (x - delta) * (x + delta) % p
    x3 = (alpha * alpha - 8 * beta) % p
    z3 = ((y + z) * (y + z) - gamma - delta) % p
    y3 = (alpha * (4 * beta - x3) - 8 * gamma * gamma) % p
    return x3, y3, z3


def _add(first, second):
    """P + Q in Jacobian coordinates, the doubling and the inverse cases included."""
    x1, y1, z1 = first
    x2, y2, z2 = second
    p = P256.p
    if z1 == 0:
        return second
    if z2 == 0:
        return first
    z1z1, z2z2 = z1 * z1 % p, z2 * z2 % p
    u1, u2 = x1 * z2z2 % p, x2 * z1z1 % p
    s1, s2 = y1 * z2 * z2z2 % p, y2 * z1 * z1z1 % p
    if u1 == u2:
        return _double(first) if s1 == s2 else INFINITY
    h, r = (u2 - u1) % p, (s2 - s1) % p
    hh = h * h % p
    hhh = h * hh % p
    v = u1 * hh % p
    x3 = (r * r - hhh - 2 * v) % p
    y3 = (r * (v - x3) - s1 * hhh) % p
    z3 = h * z1 * z2 % p
    return x3, y3, z3


def _multiply_add(u1, first, u2, second):
    """u1·P + u2·Q by one pass of double-and-add over both scalars (Shamir's trick)."""
    both = _add(first, second)
    result = INFINITY
    for bit in range(max(u1.bit_length(), u2.bit_length()) - 1, -1, -1):
        result = _double(result)
        pair = (u1 >> bit & 1, u2 >> bit & 1)
        if pair == (1, 1):
            result = _add(result, both)
        elif pair == (1, 0):
            result = _add(result, first)
        elif pair == (0, 1):
            result = _add(result, second)
    return result


def _affine_x(point):
    """The affine x of a Jacobian point other than infinity."""
    x, _, z = point
    p = P256.p
    return x * pow(z * z % p, -1, p) % p


def ecdsa_verify(qx, qy, message, signature):
    """AUTH-28: ECDSA verification on P-256 with SHA-256 (FIPS 186-4 section 6.4.2). The signature
    is the 64 bytes of r and s, 32 each, big-endian (RFC 7518 section 3.4; no DER); r and s must be
    1 ... n-1. The public point was checked to be on the curve (AUTH-25)."""
    if len(signature) != 64:
        return False
    n = P256.n
    r, s = int.from_bytes(signature[:32], 'big'), int.from_bytes(signature[32:], 'big')
    if not (1 <= r < n and 1 <= s < n):
        return False
    e = int.from_bytes(hashlib.sha256(message).digest(), 'big')   # 256 bits: n has 256, no truncation
    w = pow(s, -1, n)
    u1, u2 = e * w % n, r * w % n
    point = _multiply_add(u1, (P256.gx, P256.gy, 1), u2, (qx, qy, 1))
    if point[2] == 0:
        return False
    return _affine_x(point) % n == r


# ---- Keys (AUTH-25) and key sets (AUTH-26)

def _key_integer(key, member):
    """AUTH-25: an RSA key member: base64url of AUTH-22's form, not empty, no leading zero byte."""
    data = decode_base64url(key.get(member))
    if not data or data[0] == 0:
        raise Failure('invalid_key', f'the key\'s {member!r} is not base64url of an integer without a leading zero byte')
    return data


def public_key(key, algorithm):
    """AUTH-25: the key as a public key for `algorithm`: `key_mismatch` when it does not fit it
    (its `kty`; its `alg` and `use` when present), then `invalid_key` when its members are not a
    valid public key. Returns ('RSA', n, e) or ('EC', x, y)."""
    kty = 'RSA' if algorithm == 'RS256' else 'EC'
    if key.get('kty') != kty:
        raise Failure('key_mismatch', f'a {algorithm} token needs a key of kty {kty}, not {key.get("kty")!r}')
    if 'alg' in key and key['alg'] != algorithm:
        raise Failure('key_mismatch', f'the key is for {key["alg"]!r}, the token is {algorithm}')
    if 'use' in key and key['use'] != 'sig':
        raise Failure('key_mismatch', f'the key\'s use is {key["use"]!r}, not "sig"')
    if kty == 'RSA':
        modulus, exponent = _key_integer(key, 'n'), _key_integer(key, 'e')
        n, e = int.from_bytes(modulus, 'big'), int.from_bytes(exponent, 'big')
        if not RSA_BITS[0] <= n.bit_length() <= RSA_BITS[1]:
            raise Failure('invalid_key', f'a modulus of {n.bit_length()} bits, not {RSA_BITS[0]} ... {RSA_BITS[1]}')
        if len(exponent) > RSA_MAX_EXPONENT_BYTES or e <= 1 or e % 2 == 0:
            raise Failure('invalid_key', f'the exponent must be odd, greater than 1 and at most {RSA_MAX_EXPONENT_BYTES} bytes')
        return 'RSA', n, e
    if key.get('crv') != 'P-256':
        raise Failure('invalid_key', f'the curve must be P-256, not {key.get("crv")!r}')
    x, y = decode_base64url(key.get('x')), decode_base64url(key.get('y'))
    if x is None or y is None or len(x) != 32 or len(y) != 32:
        raise Failure('invalid_key', 'x and y must be base64url of 32 bytes each')
    qx, qy = int.from_bytes(x, 'big'), int.from_bytes(y, 'big')
    if not on_curve(qx, qy):
        raise Failure('invalid_key', 'the point (x, y) is not on P-256')
    return 'EC', qx, qy


def parse_key_set(text):
    """AUTH-26: a key set from its text: a JSON object (AUTH-22's JSON rules) of at most 65,536
    bytes whose `keys` is an array of at most 100 objects. Keys whose `kty` is neither RSA nor EC
    are skipped; every other must have a string `kid`, no two the same. Returns {kid: key}; the
    keys' other members are judged only when a token names them (AUTH-25). Otherwise
    `malformed_key_set`."""
    if isinstance(text, str):
        size = len(text.encode('utf-8', 'surrogatepass'))
    else:
        size = len(text)
    if size > MAX_KEY_SET_BYTES:
        raise Failure('malformed_key_set', f'{size} bytes, more than {MAX_KEY_SET_BYTES}')
    try:
        document = strict_json_object(text)
    except JSONProblem as problem:
        raise Failure('malformed_key_set', str(problem)) from None
    keys = document.get('keys')
    if not isinstance(keys, list):
        raise Failure('malformed_key_set', 'the member "keys" must be an array')
    if len(keys) > MAX_KEYS:
        raise Failure('malformed_key_set', f'{len(keys)} keys, more than {MAX_KEYS}')
    by_kid = {}
    for key in keys:
        if not isinstance(key, dict):
            raise Failure('malformed_key_set', 'every key must be a JSON object')
        if key.get('kty') not in ('RSA', 'EC'):
            continue                                     # a type this service does not use
        kid = key.get('kid')
        if not isinstance(kid, str):
            raise Failure('malformed_key_set', 'an RSA or EC key without a string kid')
        if kid in by_kid:
            raise Failure('malformed_key_set', f'two keys with the kid {kid!r}')
        by_kid[kid] = key
    return by_kid


# ---- The key-set cache (AUTH-27)

class FetchFailed(Exception):
    """A fetcher's failure to get the key set (a network error, a bad HTTP status, ...)."""


def clamp_max_age(max_age):
    """AUTH-27: how long a fetched set is kept: its response's max-age raised to at least 60 and
    capped at 86,400 seconds, or 3,600 when the response has none."""
    if max_age is None:
        return DEFAULT_MAX_AGE
    return min(max(max_age, LEAST_MAX_AGE), GREATEST_MAX_AGE)


class KeySetCache:
    """AUTH-27: the provider's key set as the verifier holds it.

    `fetcher()` returns (text, max_age or None) or raises FetchFailed. A set is fetched when a
    key is needed and none is held, or the held one has expired (that many seconds have passed
    since its fetch). An unknown kid fetches again once, only when the held set was not fetched
    for this very token and was fetched at least 60 seconds before. A failed fetch is
    `key_set_unavailable` and keeps what was held (an expired set is still never used); a fetched
    set that breaks AUTH-26 is `malformed_key_set` and is not kept. `fetches` counts every
    attempt."""

    def __init__(self, fetcher):
        self.fetcher = fetcher
        self.keys = None              # {kid: key} of the held set, or None
        self.fetched_at = None
        self.lifetime = None
        self.fetches = 0

    def _fetch(self, now):
        self.fetches += 1
        try:
            text, max_age = self.fetcher()
        except FetchFailed as reason:
            raise Failure('key_set_unavailable', str(reason) or 'the key set could not be fetched') from None
        keys = parse_key_set(text)                       # malformed_key_set: the held set stays
        self.keys, self.fetched_at, self.lifetime = keys, now, clamp_max_age(max_age)

    def _fresh(self, now):
        return self.keys is not None and now < self.fetched_at + self.lifetime

    def key(self, kid, now):
        """AUTH-25, AUTH-27: the held set's key of `kid` at time `now`, fetching as AUTH-27 says;
        `unknown_key` when the set (after any refresh) has none."""
        fetched_for_this_token = False
        if not self._fresh(now):
            self._fetch(now)
            fetched_for_this_token = True
        key = self.keys.get(kid)
        if key is None and not fetched_for_this_token and now - self.fetched_at >= REFRESH_AFTER:
            self._fetch(now)
            key = self.keys.get(kid)
        if key is None:
            raise Failure('unknown_key', f'the key set has no key {kid!r}')
        return key


# ---- Verification (AUTH-22 ... AUTH-34)

def _decode_part(part, what):
    """AUTH-22: one base64url part of a token."""
    data = decode_base64url(part)
    if data is None:
        raise Failure('malformed_token', f'the {what} is not canonical base64url without padding')
    return data


def read_token(token):
    """AUTH-22: (header, payload, signing input, signature) of a token's compact form, or
    `token_too_large` / `malformed_token`."""
    if not isinstance(token, str):
        raise Failure('malformed_token', 'a token is a string')
    size = len(token.encode('utf-8', 'surrogatepass'))
    if size > MAX_TOKEN_BYTES:
        raise Failure('token_too_large', f'{size} bytes, more than {MAX_TOKEN_BYTES}')
    parts = token.split('.')
    if len(parts) != 3:
        raise Failure('malformed_token', f'{len(parts)} parts, not 3')
    header_bytes = _decode_part(parts[0], 'header')
    payload_bytes = _decode_part(parts[1], 'payload')
    signature = _decode_part(parts[2], 'signature')
    if not signature:
        raise Failure('malformed_token', 'the signature is empty')
    try:
        header = strict_json_object(header_bytes)
    except JSONProblem as problem:
        raise Failure('malformed_token', f'the header: {problem}') from None
    try:
        payload = strict_json_object(payload_bytes)
    except JSONProblem as problem:
        raise Failure('malformed_token', f'the payload: {problem}') from None
    if not isinstance(header.get('alg'), str):
        raise Failure('malformed_token', 'the header\'s alg must be a string')
    signing_input = (parts[0] + '.' + parts[1]).encode('ascii')        # base64url is ASCII
    return header, payload, signing_input, signature


def _boolean_claim(payload, name):
    """AUTH-33: `true`, `false`, or the strings "true" and "false"; false when absent."""
    if name not in payload:
        return False
    value = payload[name]
    if value is True or value == 'true':
        return True
    if value is False or value == 'false':
        return False
    raise Failure('invalid_claim', f'{name} must be true, false, "true" or "false", not {value!r}')


def _check_claims(payload, verifier, now, nonce):
    """AUTH-29 ... AUTH-33 in the order of AUTH-34, after the signature holds; returns the identity."""
    provider, client_ids = verifier.provider, verifier.client_ids
    # iss: present, a string, one of the provider's issuers (AUTH-29).
    if 'iss' not in payload:
        raise Failure('missing_claim', 'no iss')
    issuer = payload['iss']
    if not isinstance(issuer, str):
        raise Failure('invalid_claim', 'iss must be a string')
    if issuer not in provider.issuers:
        raise Failure('wrong_issuer', f'the issuer {issuer!r} is not {provider.name}\'s')
    # aud and azp: present, their types, then AUTH-30.
    if 'aud' not in payload:
        raise Failure('missing_claim', 'no aud')
    audience = payload['aud']
    if isinstance(audience, str):
        audiences = [audience]
    elif isinstance(audience, list) and audience and all(isinstance(a, str) for a in audience):
        audiences = audience
    else:
        raise Failure('invalid_claim', 'aud must be a string or a non-empty array of strings')
    if 'azp' in payload and not isinstance(payload['azp'], str):
        raise Failure('invalid_claim', 'azp must be a string')
    if not any(a in client_ids for a in audiences):
        raise Failure('wrong_audience', 'the token was not issued to this app')
    if not all(a in client_ids for a in audiences):
        raise Failure('untrusted_audience', 'the token was also issued to another party')
    if len(audiences) > 1 and 'azp' not in payload:
        raise Failure('wrong_authorized_party', 'several audiences and no azp')
    if 'azp' in payload and payload['azp'] not in client_ids:
        raise Failure('wrong_authorized_party', f'the authorized party {payload["azp"]!r} is not this app')
    # exp (present, a number), then iat (present, a number): each claim's presence and type
    # before the next claim (AUTH-34).
    for name in ('exp', 'iat'):
        if name not in payload:
            raise Failure('missing_claim', f'no {name}')
        if not is_number(payload[name]):
            raise Failure('invalid_claim', f'{name} must be a JSON number')
    expires, issued = payload['exp'], payload['iat']
    # AUTH-31, with the leeway: exp, iat, then nbf.
    if now >= expires + LEEWAY:
        raise Failure('token_expired', f'expired at {expires}, now is {now}')
    if issued > now + LEEWAY:
        raise Failure('token_not_yet_valid', f'issued at {issued}, now is {now}')
    if 'nbf' in payload:
        not_before = payload['nbf']
        if not is_number(not_before):
            raise Failure('invalid_claim', 'nbf must be a JSON number')
        if not_before > now + LEEWAY:
            raise Failure('token_not_yet_valid', f'not before {not_before}, now is {now}')
    # AUTH-32: only when the sign-in sent a nonce.
    if nonce is not None:
        expected = hashlib.sha256(nonce.encode('utf-8')).hexdigest() if provider.hashes_nonce else nonce
        claimed = payload.get('nonce')
        if not isinstance(claimed, str) or not hmac.compare_digest(
                claimed.encode('utf-8', 'surrogatepass'), expected.encode('utf-8')):
            raise Failure('nonce_mismatch', 'the token\'s nonce is not the sign-in\'s')
    # sub: present, a string of 1 ... 255 bytes (AUTH-33).
    if 'sub' not in payload:
        raise Failure('missing_claim', 'no sub')
    subject = payload['sub']
    if not isinstance(subject, str) or not 1 <= len(subject.encode('utf-8', 'surrogatepass')) <= MAX_SUBJECT_BYTES:
        raise Failure('invalid_claim', f'sub must be a string of 1 ... {MAX_SUBJECT_BYTES} bytes')
    # email, email_verified, is_private_email (AUTH-33).
    email = payload.get('email')
    if 'email' in payload and not isinstance(email, str):
        raise Failure('invalid_claim', 'email must be a string')
    verified = _boolean_claim(payload, 'email_verified')
    private = _boolean_claim(payload, 'is_private_email')
    relay = private
    if email is not None and '@' in email and provider.relay_domain is not None:
        domain = email.rpartition('@')[2].translate(_ASCII_LOWER)
        relay = relay or domain == provider.relay_domain
    return {
        'provider': provider.name,
        'subject': subject,
        'email': email,
        'emailVerified': verified,
        'privateRelay': relay,
        'linkByEmail': email is not None and verified and not relay,
        'issuedAt': json_number(issued),
        'expiresAt': json_number(expires),
    }


def verify_id_token(token, verifier, cache, now, nonce=None):
    """AUTH-22 ... AUTH-34: the verified identity of a token, or the first rule's error in the order
    of AUTH-34: the form (AUTH-22), the algorithm (AUTH-23), the header (AUTH-24: embedded keys
    before `crit`), the kid, the set and the key (AUTH-25 ... AUTH-27), the signature (AUTH-28),
    then the claims. A token whose header names no string `kid` names no key of any set: it is
    `unknown_key` without a fetch."""
    header, payload, signing_input, signature = read_token(token)             # AUTH-22
    algorithm = header['alg']
    if algorithm not in verifier.provider.algorithms:                          # AUTH-23
        raise Failure('algorithm_not_allowed', f'the algorithm {algorithm!r} is not {verifier.provider.name}\'s')
    for member in EMBEDDED_KEY_MEMBERS:                                        # AUTH-24
        if member in header:
            raise Failure('embedded_key_rejected', f'the header names its own key ({member})')
    if 'crit' in header:
        raise Failure('unsupported_header', 'the header has crit')
    kid = header.get('kid')                                                    # AUTH-25
    if not isinstance(kid, str):
        raise Failure('unknown_key', 'the header has no string kid')
    key = cache.key(kid, now)                                                  # AUTH-26, AUTH-27
    kind, first, second = public_key(key, algorithm)                           # AUTH-25
    if kind == 'RSA':                                                          # AUTH-28
        good = rsa_verify(first, second, signing_input, signature)
    else:
        good = ecdsa_verify(first, second, signing_input, signature)
    if not good:
        raise Failure('bad_signature', 'the signature does not verify')
    return _check_claims(payload, verifier, now, nonce)                        # AUTH-29 ... AUTH-33


# ---- The operations (Spec/corpus/auth/id_token.json, key_set_cache.json)

def _key_set_text(response):
    """A fixture response's key set as the text a fetch would give: `keySetText` as it is, or
    `keySet` (a JSON value of the corpus) written as compact JSON."""
    if 'keySetText' in response:
        return response['keySetText']
    return json.dumps(response.get('keySet'), ensure_ascii=False, separators=(',', ':'))


def _now(input):
    now = input.get('now')
    if not is_number(now):
        raise Failure('invalid_input', f'now must be a number of seconds, not {now!r}')
    return now


def _nonce(input):
    nonce = input.get('nonce')
    if nonce is not None and not isinstance(nonce, str):
        raise Failure('invalid_input', f'nonce must be a string, not {nonce!r}')
    return nonce


def verify_id_token_operation(input):
    """auth.verifyIdToken: one token verified by `provider` (`algorithms` replacing its list) for
    `clientIds` at `now`, with the raw `nonce` when sent; the fetcher answers the case's one
    `keySet` (or `keySetText`) every time, without max-age."""
    verifier = Verifier(input.get('provider'), input.get('clientIds'), input.get('algorithms'))
    text = _key_set_text(input)
    cache = KeySetCache(lambda: (text, None))
    return verify_id_token(input.get('token'), verifier, cache, _now(input), _nonce(input))


def key_set_cache_operation(input):
    """auth.keySetCache: a sequence of verifications (`token`, `now`, `nonce`) through one cache;
    the fetcher answers `responses` in order (`keySet` with `maxAge`, `keySetText`, or `fail`) and
    fails once they run out. The output is each verification's subject or error code, and how many
    fetches were made."""
    verifier = Verifier(input.get('provider', 'google'), input.get('clientIds'), input.get('algorithms'))
    responses = list(input.get('responses') or [])

    def fetcher():
        if not responses:
            raise FetchFailed('no response left')
        response = responses.pop(0)
        if response.get('fail'):
            raise FetchFailed('the fetch failed')
        return _key_set_text(response), response.get('maxAge')

    cache = KeySetCache(fetcher)
    results = []
    for step in input.get('verifications') or []:
        try:
            identity = verify_id_token(step.get('token'), verifier, cache, _now(step), _nonce(step))
            results.append({'subject': identity['subject']})
        except Failure as failure:
            results.append({'error': failure.code})
    return {'results': results, 'fetches': cache.fetches}


OPERATIONS = {
    'auth.verifyIdToken': verify_id_token_operation,
    'auth.keySetCache': key_set_cache_operation,
}
