#!/usr/bin/env python3
"""Writes Spec/corpus/auth/id_token.json and key_set_cache.json (AUTH-22 ... AUTH-34).

The tokens are signed here with the test keys committed under Spec/auth/keys/ (made once with
`openssl genpkey`; they sign nothing but these fixtures), through the `openssl dgst -sha256 -sign`
command, never through this SDK. Each case changes one thing in an otherwise valid token, and
its expected verdict is the rule that thing breaks, written beside it; valid cases expect the
claims the token was built with. The independent Python testee (Tools/conformance/glowpy/
idtoken.py) verifies every signature with its own RSA and P-256 arithmetic.

ES256 signatures are randomised, so re-running this script changes those tokens' bytes but
never a verdict.
"""
import base64
import hashlib
import hmac
import json
import os
import subprocess

from corpus_file import write_cases, command_line
from jose_fixtures import *  # noqa: F401,F403 (the keys, claims and signing helpers)

command_line(__doc__)


def claims_out(provider, claims, private_relay=False):
    verified = claims.get('email_verified', False) in (True, 'true')
    email = claims.get('email')
    return {'provider': provider, 'subject': claims['sub'], 'email': email, 'emailVerified': verified,
            'privateRelay': private_relay, 'linkByEmail': email is not None and verified and not private_relay,
            'issuedAt': claims['iat'], 'expiresAt': claims['exp']}


cases = []


def case(comment, rules, tok, expected=None, error=None, provider='google', now=NOW, nonce=NONCE, key_set=SET,
         algorithms=None, client_ids=None):
    inp = {'provider': provider,
           'clientIds': client_ids or ([GOOGLE_CLIENT, GOOGLE_IOS] if provider == 'google' else [APPLE_CLIENT]),
           'token': tok, 'now': now}
    if algorithms:
        inp['algorithms'] = algorithms
    if nonce is not None:
        inp['nonce'] = nonce
    if isinstance(key_set, str):
        inp['keySetText'] = key_set
    else:
        inp['keySet'] = key_set
    c = {'comment': comment, 'rules': rules, 'flags': ['Required'], 'input': inp}
    if error:
        c['result'] = 'invalid'
        c['error'] = {'code': error}
    else:
        c['result'] = 'valid'
        c['expected'] = expected
    cases.append(c)


# Valid tokens (AUTH-22 ... AUTH-33 all hold).
g = google_claims()
case('a Google token signed with RS256 by the key its kid names', ['AUTH-22', 'AUTH-25', 'AUTH-28', 'AUTH-33'],
     token(RS, g), claims_out('google', g))
g2 = google_claims(iss='accounts.google.com')
case("Google's issuer without the scheme is its other spelling", ['AUTH-29'], token(RS, g2), claims_out('google', g2))
a = apple_claims()
case('an Apple token: the nonce claim is the SHA-256 of the raw nonce, email_verified the string "true"',
     ['AUTH-32', 'AUTH-33'], token(RS, a), claims_out('apple', a), provider='apple')
a2 = apple_claims(email='x7kq2p9d4m@privaterelay.appleid.com', is_private_email='true')
case('an Apple private-relay address never links by e-mail', ['AUTH-33'], token(RS, a2),
     claims_out('apple', a2, private_relay=True), provider='apple')
a3 = apple_claims(email='x7kq2p9d4m@PrivateRelay.AppleID.com', is_private_email=None)
case('a relay address is known by its domain, in any case, without is_private_email', ['AUTH-33'], token(RS, a3),
     claims_out('apple', a3, private_relay=True), provider='apple')
a4 = apple_claims(email_verified=True, is_private_email=True, email='ana@example.com')
case('is_private_email as a boolean marks a relay address', ['AUTH-33'], token(RS, a4),
     claims_out('apple', a4, private_relay=True), provider='apple')
g3 = google_claims(email_verified=False)
case('an unverified Google address never links by e-mail', ['AUTH-33'], token(RS, g3), claims_out('google', g3))
g4 = google_claims(email_verified='false')
case('email_verified as the string "false"', ['AUTH-33'], token(RS, g4), claims_out('google', g4))
g5 = google_claims(email=None, email_verified=None)
case('a token without an e-mail address', ['AUTH-33'], token(RS, g5), claims_out('google', g5))
case('ES256 from a provider configured for it', ['AUTH-23', 'AUTH-28'], token(ES, g, key='ec-a'),
     claims_out('google', g), algorithms=['RS256', 'ES256'])
g6 = google_claims(aud=[GOOGLE_CLIENT, GOOGLE_IOS], azp=GOOGLE_IOS)
case("several audiences, all the app's, with the authorized party", ['AUTH-30'], token(RS, g6), claims_out('google', g6))
g7 = google_claims(azp=None)
case('one audience needs no authorized party', ['AUTH-30'], token(RS, g7), claims_out('google', g7))
case('expired 59 seconds ago: within the leeway', ['AUTH-31'], token(RS, g), claims_out('google', g), now=EXP + 59)
case('issued 60 seconds in the future: within the leeway', ['AUTH-31'], token(RS, g), claims_out('google', g),
     now=IAT - 60)
g8 = google_claims(nbf=NOW + 60)
case('not before 60 seconds from now: within the leeway', ['AUTH-31'], token(RS, g8), claims_out('google', g8))
case('a sign-in that sent no nonce does not look at the claim', ['AUTH-32'], token(RS, g), claims_out('google', g),
     nonce=None)
case('a key of a type this service does not use is skipped', ['AUTH-26'], token(RS, g), claims_out('google', g),
     key_set={'keys': [{'kty': 'OKP', 'crv': 'Ed25519', 'kid': 'ed', 'x': '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'},
                       {'kty': 'oct', 'k': 'c2VjcmV0'}, RSA_A]})
case('a key without alg and use fits any algorithm of its type', ['AUTH-25'], token(RS, g), claims_out('google', g),
     key_set={'keys': [rsa_jwk('rsa-a', 'rsa-a', alg=None, use=None)]})
g9 = google_claims(exp=EXP + 0.5, iat=IAT + 0.25)
case('fractional NumericDate values', ['AUTH-31'], token(RS, g9), claims_out('google', g9))
g10 = google_claims(sub='s' * 255)
case('a subject of 255 bytes', ['AUTH-33'], token(RS, g10), claims_out('google', g10))

# AUTH-22: the compact form.
good = token(RS, g)
p = good.split('.')
case('two parts', ['AUTH-22'], p[0] + '.' + p[1], error='malformed_token')
case('four parts', ['AUTH-22'], good + '.' + p[2], error='malformed_token')
case('an empty signature', ['AUTH-22'], p[0] + '.' + p[1] + '.', error='malformed_token')
case('base64 padding in the payload', ['AUTH-22'], p[0] + '.' + p[1] + '=' * ((-len(p[1])) % 4 or 4) + '.' + p[2],
     error='malformed_token')
case("the standard alphabet's '+' in the signature", ['AUTH-22'], p[0] + '.' + p[1] + '.+' + p[2][1:],
     error='malformed_token')
case('a header that is not JSON', ['AUTH-22'], token(b'{"alg":"RS256",', g), error='malformed_token')
case('a header that is a JSON array', ['AUTH-22'], token(b'["RS256"]', g), error='malformed_token')
case('a payload that is not UTF-8', ['AUTH-22'], token(RS, b'{"sub":"\xff"}'), error='malformed_token')
case("a header with 'alg' twice (the second would say RS256)", ['AUTH-22'],
     token(b'{"alg":"none","kid":"rsa-a","alg":"RS256"}', g), error='malformed_token')
case("a payload with 'sub' twice", ['AUTH-22'],
     token(RS, json.dumps(g, separators=(',', ':'))[:-1].encode() + b',"sub":"someone-else"}'), error='malformed_token')
case('a header without alg', ['AUTH-22'], token(hdr(alg=None), g), error='malformed_token')
case('alg that is not a string', ['AUTH-22'], token(hdr(alg=256), g), error='malformed_token')
# A 256-byte signature is 342 characters, the last carrying 2 bits and 4 unused ones.
alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
v = alphabet.index(p[2][-1])
assert v % 16 == 0
case('a signature whose last character has unused bits set', ['AUTH-22'], p[0] + '.' + p[1] + '.' + p[2][:-1] + alphabet[v | 1],
     error='malformed_token')
# The size limit: 16,384 bytes is read, one more is not.
for target, verdict in ((16384, None), (16385, 'token_too_large')):
    # Each character of padding adds one or two to the base64; a subject a little shorter evens it out.
    # No base64 text is 1 more than a multiple of 4 long, so the header varies too.
    found = None
    for header in (RS, hdr(typ=None), hdr(typ='JOSE')):
        for pad in range(11000, 12400):
            claims = google_claims(pad='p' * pad)
            head, body = compact(header, claims)
            if len(head) + len(body) + len(p[2]) + 2 == target:
                found = (header, claims)
                break
        if found:
            break
    header, claims = found
    t = token(header, claims)
    assert len(t) == target, (len(t), target)
    if verdict:
        case('a token of 16,385 bytes is refused unread', ['AUTH-22'], t, error=verdict)
    else:
        case('a token of exactly 16,384 bytes is read', ['AUTH-22'], t, claims_out('google', claims))

# AUTH-23: algorithms.
for alg in ('none', 'None', 'NONE', 'nOnE'):
    case("alg '%s' with no signature is refused in any casing" % alg, ['AUTH-23'],
         token(hdr(alg=alg), g, signature=b'\x00'), error='algorithm_not_allowed')
rsa_public_pem = subprocess.run(['openssl', 'pkey', '-in', os.path.join(KEYS, 'rsa-a.pem'), '-pubout'],
                                check=True, capture_output=True).stdout
parts = compact(hdr(alg='HS256'), g)
mac = hmac.new(rsa_public_pem, (parts[0] + '.' + parts[1]).encode(), hashlib.sha256).digest()
case("HS256 with the provider's public key as the HMAC secret", ['AUTH-23'], parts[0] + '.' + parts[1] + '.' + b64u(mac),
     error='algorithm_not_allowed')
case('ES256 from a provider configured for RS256 only', ['AUTH-23'], token(ES, g, key='ec-a'),
     error='algorithm_not_allowed')
for alg in ('RS512', 'PS256', 'rs256', ''):
    case("the algorithm '%s'" % alg, ['AUTH-23'], token(hdr(alg=alg), g), error='algorithm_not_allowed')
case('HS256 together with an embedded key: the algorithm is judged first', ['AUTH-23', 'AUTH-34'],
     token(hdr(alg='HS256', jwk=RSA_A), g, signature=b'\x01' * 32), error='algorithm_not_allowed')

# AUTH-24: a token never brings its own key.
attacker = rsa_jwk('rsa-attacker', 'rsa-a')
case("an embedded 'jwk' with the attacker's key, signed by it", ['AUTH-24'], token(hdr(jwk=attacker), g, key='rsa-attacker'),
     error='embedded_key_rejected')
case("a 'jku' pointing elsewhere", ['AUTH-24'], token(hdr(jku='https://attacker.example/keys'), g, key='rsa-attacker'),
     error='embedded_key_rejected')
case("an 'x5u' pointing elsewhere", ['AUTH-24'], token(hdr(x5u='https://attacker.example/cert.pem'), g),
     error='embedded_key_rejected')
case("an embedded 'x5c' chain", ['AUTH-24'], token(hdr(x5c=['MIIB']), g), error='embedded_key_rejected')
case("a 'crit' extension", ['AUTH-24'], token(hdr(crit=['exp'], exp=1), g), error='unsupported_header')

# AUTH-25: the key.
case('no kid', ['AUTH-25'], token(hdr(kid=None), g), error='unknown_key')
case('a kid that is not a string', ['AUTH-25'], token(hdr(kid=7), g), error='unknown_key')
case('a kid the set does not have', ['AUTH-25', 'AUTH-27'], token(hdr(kid='rsa-z'), g), error='unknown_key')
case('an RS256 token naming an EC key', ['AUTH-25'], token(hdr(kid='ec-a'), g), error='key_mismatch')
case('an ES256 token naming an RSA key', ['AUTH-25'], token(hdr(ES, kid='rsa-a'), g, key='ec-a'),
     error='key_mismatch', algorithms=['RS256', 'ES256'])
case("a key whose alg is RS384", ['AUTH-25'], token(RS, g), error='key_mismatch',
     key_set={'keys': [rsa_jwk('rsa-a', 'rsa-a', alg='RS384')]})
case("a key whose use is 'enc'", ['AUTH-25'], token(RS, g), error='key_mismatch',
     key_set={'keys': [rsa_jwk('rsa-a', 'rsa-a', use='enc')]})
case('a 1,024-bit RSA key', ['AUTH-25'], token(hdr(kid='weak'), g, key='rsa-weak'), error='invalid_key',
     key_set={'keys': [rsa_jwk('rsa-weak', 'weak'), RSA_A]})
bad_point = dict(EC_A)
bad_point['y'] = b64u((int.from_bytes(base64.urlsafe_b64decode(EC_A['y'] + '=='), 'big') ^ 1).to_bytes(32, 'big'))
case('an EC key whose point is not on P-256', ['AUTH-25'], token(ES, g, key='ec-a'), error='invalid_key',
     key_set={'keys': [bad_point]}, algorithms=['RS256', 'ES256'])
padded_n = dict(RSA_A)
padded_n['n'] = b64u(b'\x00' + base64.urlsafe_b64decode(RSA_A['n'] + '=='))
case("an RSA modulus with a leading zero byte", ['AUTH-25'], token(RS, g), error='invalid_key',
     key_set={'keys': [padded_n]})
case("an RSA key whose 'n' is not base64url", ['AUTH-25'], token(RS, g), error='invalid_key',
     key_set={'keys': [dict(RSA_A, n=RSA_A['n'][:-1] + '=')]})
case("an EC key on another curve", ['AUTH-25'], token(ES, g, key='ec-a'), error='invalid_key',
     key_set={'keys': [dict(EC_A, crv='P-384')]}, algorithms=['ES256'])

# AUTH-26: the key set.
case('a key set without keys', ['AUTH-26'], token(RS, g), error='malformed_key_set', key_set={'keyz': []})
case('a key set that is not JSON', ['AUTH-26'], token(RS, g), error='malformed_key_set', key_set='{"keys": [')
case('two keys with one kid', ['AUTH-26'], token(RS, g), error='malformed_key_set',
     key_set={'keys': [RSA_A, dict(RSA_B, kid='rsa-a')]})
case('an RSA key without a kid', ['AUTH-26'], token(RS, g), error='malformed_key_set',
     key_set={'keys': [{k: v for k, v in RSA_B.items() if k != 'kid'}, RSA_A]})
case('a key that is not an object', ['AUTH-26'], token(RS, g), error='malformed_key_set', key_set={'keys': ['rsa-a', RSA_A]})
case('101 keys', ['AUTH-26'], token(RS, g), error='malformed_key_set',
     key_set={'keys': [dict(RSA_B, kid='k%d' % i) for i in range(100)] + [RSA_A]})

# AUTH-28: the signature.
tampered = compact(RS, google_claims(sub='someone-else'))
case('the payload changed after signing', ['AUTH-28'], tampered[0] + '.' + tampered[1] + '.' + p[2], error='bad_signature')
case('signed by another key under the kid of the real one', ['AUTH-28'], token(RS, g, key='rsa-b'), error='bad_signature')
sig = base64.urlsafe_b64decode(p[2] + '==')
case('a signature one byte short', ['AUTH-28'], p[0] + '.' + p[1] + '.' + b64u(sig[:-1]), error='bad_signature')
case('a signature with a zero byte in front', ['AUTH-28'], p[0] + '.' + p[1] + '.' + b64u(b'\x00' + sig), error='bad_signature')
es = token(ES, g, key='ec-a').split('.')
es_sig = base64.urlsafe_b64decode(es[2] + '==')
case('an ES256 signature in DER form instead of r || s', ['AUTH-28'],
     es[0] + '.' + es[1] + '.' + b64u(b'\x30\x44\x02\x20' + es_sig[:32] + b'\x02\x20' + es_sig[32:]),
     error='bad_signature', algorithms=['ES256'])
case('an ES256 signature with s changed', ['AUTH-28'],
     es[0] + '.' + es[1] + '.' + b64u(es_sig[:63] + bytes([es_sig[63] ^ 1])), error='bad_signature', algorithms=['ES256'])
case('an ES256 signature of zeros', ['AUTH-28'], es[0] + '.' + es[1] + '.' + b64u(b'\x00' * 64), error='bad_signature',
     algorithms=['ES256'])
case('an expired token with a bad signature: the signature is judged first', ['AUTH-28', 'AUTH-34'],
     token(RS, google_claims(exp=NOW - 7200), key='rsa-b'), error='bad_signature')

# AUTH-29: the issuer.
case('an issuer with a trailing slash', ['AUTH-29'], token(RS, google_claims(iss='https://accounts.google.com/')),
     error='wrong_issuer')
case("Apple's token shown to the Google verifier", ['AUTH-29'], token(RS, apple_claims(aud=GOOGLE_CLIENT)),
     error='wrong_issuer')
case('an issuer in capitals', ['AUTH-29'], token(RS, apple_claims(iss='HTTPS://APPLEID.APPLE.COM')), error='wrong_issuer',
     provider='apple')
case('an issuer that is not a string', ['AUTH-33'], token(RS, google_claims(iss=['https://accounts.google.com'])),
     error='invalid_claim')
case('a wrong issuer and an expired token: the issuer is judged first', ['AUTH-29', 'AUTH-34'],
     token(RS, google_claims(iss='https://evil.example', exp=NOW - 7200)), error='wrong_issuer')

# AUTH-30: the audience.
case('issued to another app', ['AUTH-30'], token(RS, google_claims(aud='someone-else.apps.googleusercontent.com', azp=None)),
     error='wrong_audience')
case('also issued to an untrusted audience', ['AUTH-30'],
     token(RS, google_claims(aud=[GOOGLE_CLIENT, 'someone-else'], azp=GOOGLE_CLIENT)), error='untrusted_audience')
case('several audiences without an authorized party', ['AUTH-30'],
     token(RS, google_claims(aud=[GOOGLE_CLIENT, GOOGLE_IOS], azp=None)), error='wrong_authorized_party')
case('an authorized party that is not the app', ['AUTH-30'], token(RS, google_claims(azp='someone-else')),
     error='wrong_authorized_party')
case('an empty audience array', ['AUTH-33'], token(RS, google_claims(aud=[])), error='invalid_claim')
case('an audience array with a number', ['AUTH-33'], token(RS, google_claims(aud=[GOOGLE_CLIENT, 7])), error='invalid_claim')
case("the client id in another case", ['AUTH-30'], token(RS, apple_claims(aud='App.GlowRitual.iOS')), error='wrong_audience',
     provider='apple')

# AUTH-31: time.
case('expired 60 seconds ago: past the leeway', ['AUTH-31'], token(RS, g), error='token_expired', now=EXP + 60)
case('issued 61 seconds in the future', ['AUTH-31'], token(RS, g), error='token_not_yet_valid', now=IAT - 61)
case('not before 61 seconds from now', ['AUTH-31'], token(RS, google_claims(nbf=NOW + 61)), error='token_not_yet_valid')
case('exp as a string', ['AUTH-33'], token(RS, google_claims(exp=str(EXP))), error='invalid_claim')
case('exp as a string and no iat: exp is judged first', ['AUTH-33', 'AUTH-34'],
     token(RS, google_claims(exp=str(EXP), iat=None)), error='invalid_claim')
case('no exp and iat as a string: the missing exp is judged first', ['AUTH-33', 'AUTH-34'],
     token(RS, google_claims(exp=None, iat=str(IAT))), error='missing_claim')
case('nbf as a string', ['AUTH-33'], token(RS, google_claims(nbf='0')), error='invalid_claim')

# AUTH-32: the nonce.
case("Apple's token carrying the raw nonce, not its hash", ['AUTH-32'], token(RS, apple_claims(nonce=NONCE)),
     error='nonce_mismatch', provider='apple')
case("Google's token carrying the hash, not the raw nonce", ['AUTH-32'], token(RS, google_claims(nonce=NONCE_SHA)),
     error='nonce_mismatch')
case('a token without a nonce when the sign-in sent one', ['AUTH-32'], token(RS, google_claims(nonce=None)),
     error='nonce_mismatch')
case('another sign-in\'s nonce', ['AUTH-32'], token(RS, g), error='nonce_mismatch', nonce='another-nonce')

# AUTH-33: required claims and their types.
for claim in ('iss', 'aud', 'exp', 'iat', 'sub'):
    case("no '%s'" % claim, ['AUTH-33'], token(RS, google_claims(**{claim: None})), error='missing_claim')
case('a numeric subject', ['AUTH-33'], token(RS, google_claims(sub=110169484474386276334)), error='invalid_claim')
case('an empty subject', ['AUTH-33'], token(RS, google_claims(sub='')), error='invalid_claim')
case('a subject of 256 bytes', ['AUTH-33'], token(RS, google_claims(sub='s' * 256)), error='invalid_claim')
case('email_verified "yes"', ['AUTH-33'], token(RS, google_claims(email_verified='yes')), error='invalid_claim')
case('email_verified 1', ['AUTH-33'], token(RS, google_claims(email_verified=1)), error='invalid_claim')
case('email_verified "True"', ['AUTH-33'], token(RS, google_claims(email_verified='True')), error='invalid_claim')
case('an e-mail address that is not a string', ['AUTH-33'], token(RS, google_claims(email=['ana@example.com'])),
     error='invalid_claim')


def write(name, operation, description, cases, prefix):
    write_cases('auth', name, operation, description, cases, prefix)


# AUTH-43 (added last, so the ids before it keep their numbers): exact comparisons are of bytes. A client id with a K, a token for the same id written
# with U+212A KELVIN SIGN (canonically equivalent, other bytes): another audience. The same for a
# decomposed é. A key set whose key is 'Key-1' and a token naming it with the Kelvin sign: no key.
KELVIN_CLIENT = 'com.example.Kelvin'
case('an audience written with the Kelvin sign is another audience', ['AUTH-43', 'AUTH-30'],
     token(RS, google_claims(aud='com.example.\u212Aelvin', azp=None)), error='wrong_audience',
     client_ids=[KELVIN_CLIENT])
case('an audience with a decomposed é is another audience than the composed one', ['AUTH-43', 'AUTH-30'],
     token(RS, google_claims(aud='com.example.cafe\u0301', azp=None)), error='wrong_audience',
     client_ids=['com.example.caf\u00e9'])
case('a kid written with the Kelvin sign names no key of a set whose kid has a K', ['AUTH-43', 'AUTH-25'],
     token(hdr(kid='\u212Aey-1'), google_claims()), error='unknown_key',
     key_set={'keys': [rsa_jwk('rsa-a', 'Key-1')]})

write('id_token.json', 'auth.verifyIdToken',
      'One ID token verified by the provider `provider` (`apple`, `google`; `algorithms` replaces its list) for the '
      'app `clientIds`, at `now` (seconds since 1970), with the raw `nonce` the sign-in sent (none when absent), '
      'against the key set `keySet` (or the text `keySetText`). The output is what the token says about the person.',
      cases, 'idtoken')

# AUTH-27: the cache of key sets, over a sequence of verifications.
cache = []


def seq(comment, rules, responses, steps, fetches):
    c = {'comment': comment, 'rules': rules, 'flags': ['Required'],
         'input': {'provider': 'google', 'clientIds': [GOOGLE_CLIENT], 'responses': responses,
                   'verifications': [{'token': t, 'now': n, 'nonce': NONCE} for t, n, _ in steps]},
         'result': 'valid',
         'expected': {'results': [{'subject': r} if not r.startswith('!') else {'error': r[1:]} for _, _, r in steps],
                      'fetches': fetches}}
    cache.append(c)


def resp(*keys, max_age=None, fail=False):
    if fail:
        return {'fail': True}
    r = {'keySet': {'keys': list(keys)}}
    if max_age is not None:
        r['maxAge'] = max_age
    return r


ta = token(RS, google_claims(sub='a', exp=NOW + 200000, azp=None))
tb = token(hdr(kid='rsa-b'), google_claims(sub='b', exp=NOW + 200000, azp=None), key='rsa-b')
tc = token(hdr(kid='rsa-c'), google_claims(sub='c', exp=NOW + 200000, azp=None), key='rsa-b')
seq('a rotated key: an unknown kid fetches the set again, once', ['AUTH-27'],
    [resp(RSA_A), resp(RSA_A, RSA_B)], [(ta, NOW, 'a'), (tb, NOW + 120, 'b'), (ta, NOW + 130, 'a')], 2)
seq('an unknown kid within a minute of the last fetch does not fetch', ['AUTH-27'],
    [resp(RSA_A), resp(RSA_A, RSA_B)], [(ta, NOW, 'a'), (tb, NOW + 59, '!unknown_key'), (tb, NOW + 60, 'b')], 2)
seq('a kid missing after the refresh is unknown, and does not fetch again at once', ['AUTH-27'],
    [resp(RSA_A), resp(RSA_A), resp(RSA_A, RSA_B)],
    [(ta, NOW, 'a'), (tc, NOW + 120, '!unknown_key'), (tc, NOW + 150, '!unknown_key'), (tc, NOW + 180, '!unknown_key')], 3)
seq("max-age is honoured: kept 600 seconds, then fetched again", ['AUTH-27'],
    [resp(RSA_A, max_age=600), resp(RSA_B)], [(ta, NOW, 'a'), (ta, NOW + 599, 'a'), (ta, NOW + 600, '!unknown_key')], 2)
seq('without max-age a set is kept an hour', ['AUTH-27'],
    [resp(RSA_A), resp(RSA_A)], [(ta, NOW, 'a'), (ta, NOW + 3599, 'a'), (ta, NOW + 3600, 'a')], 2)
seq('max-age 0 is kept 60 seconds', ['AUTH-27'],
    [resp(RSA_A, max_age=0), resp(RSA_A)], [(ta, NOW, 'a'), (ta, NOW + 59, 'a'), (ta, NOW + 60, 'a')], 2)
seq('a max-age of years is kept a day', ['AUTH-27'],
    [resp(RSA_A, max_age=10 ** 12), resp(RSA_B)], [(ta, NOW, 'a'), (ta, NOW + 86399, 'a'), (ta, NOW + 86400, '!unknown_key')], 2)
seq('a failed fetch is key_set_unavailable, and the next verification tries again', ['AUTH-27'],
    [resp(fail=True), resp(RSA_A)], [(ta, NOW, '!key_set_unavailable'), (ta, NOW + 1, 'a')], 2)
seq('an expired set is not used when its refetch fails', ['AUTH-27'],
    [resp(RSA_A, max_age=60), resp(fail=True)], [(ta, NOW, 'a'), (ta, NOW + 60, '!key_set_unavailable')], 2)
seq('a malformed fetched set is malformed_key_set', ['AUTH-26', 'AUTH-27'],
    [{'keySetText': '{"keys": 5}'}, resp(RSA_A)], [(ta, NOW, '!malformed_key_set'), (ta, NOW + 1, 'a')], 2)
seq('a failed refresh for an unknown kid is key_set_unavailable, and the set already held still serves', ['AUTH-27'],
    [resp(RSA_A), resp(fail=True)], [(ta, NOW, 'a'), (tb, NOW + 120, '!key_set_unavailable'), (ta, NOW + 121, 'a')], 2)
write('key_set_cache.json', 'auth.keySetCache',
      'A sequence of Google ID-token verifications at their `now` through one cache of key sets; the fetcher answers '
      'with `responses` in order (`keySet` and `maxAge`, `keySetText`, or `fail`), and fails once they run out. The '
      'output is each verification\'s subject or error, and how many fetches were made.',
      cache, 'keycache')
print(len(cases), 'id token cases,', len(cache), 'cache cases')
