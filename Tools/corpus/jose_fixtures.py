"""The test keys and token helpers the ID-token corpus and the account scripts share.

Tokens are signed with the keys committed under Spec/auth/keys/ (made once with `openssl
genpkey`; they sign nothing but these fixtures), through the `openssl dgst -sha256 -sign`
command, never through this SDK. RSA signatures are deterministic; ES256 ones are randomised.
"""
import base64
import hashlib
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
KEYS = os.path.join(ROOT, 'Spec', 'auth', 'keys')

NOW = 1796083200  # 2026-12-01T00:00:00Z
IAT = NOW - 300
EXP = IAT + 3600
GOOGLE_CLIENT = '1234567890-glow.apps.googleusercontent.com'
GOOGLE_IOS = '1234567890-glowios.apps.googleusercontent.com'
APPLE_CLIENT = 'app.glowritual.ios'
NONCE = 'n-0S6_WzA2Mj'
NONCE_SHA = hashlib.sha256(NONCE.encode()).hexdigest()


def b64u(data):
    return base64.urlsafe_b64encode(data).decode().rstrip('=')


def key_text(name):
    return subprocess.run(['openssl', 'pkey', '-in', os.path.join(KEYS, name + '.pem'), '-text', '-noout'],
                          check=True, capture_output=True, text=True).stdout


def hex_block(text, label):
    match = re.search(label + r':\s*\n((?:\s+[0-9a-f:]+\n)+)', text)
    return bytes.fromhex(re.sub(r'[\s:]', '', match.group(1)))


def rsa_jwk(name, kid, **extra):
    text = key_text(name)
    n = hex_block(text, 'modulus').lstrip(b'\x00')
    e = int(re.search(r'publicExponent: (\d+)', text).group(1))
    jwk = {'kty': 'RSA', 'kid': kid, 'use': 'sig', 'alg': 'RS256', 'n': b64u(n),
           'e': b64u(e.to_bytes((e.bit_length() + 7) // 8, 'big'))}
    jwk.update(extra)
    return {k: v for k, v in jwk.items() if v is not None}


def ec_jwk(name, kid, **extra):
    point = hex_block(key_text(name), 'pub')
    jwk = {'kty': 'EC', 'kid': kid, 'use': 'sig', 'alg': 'ES256', 'crv': 'P-256',
           'x': b64u(point[1:33]), 'y': b64u(point[33:65])}
    jwk.update(extra)
    return {k: v for k, v in jwk.items() if v is not None}


def sign(name, data):
    out = subprocess.run(['openssl', 'dgst', '-sha256', '-sign', os.path.join(KEYS, name + '.pem')],
                         input=data, check=True, capture_output=True).stdout
    if name.startswith('ec'):
        # DER ECDSA-Sig-Value to JWS's r || s, 32 bytes each.
        assert out[0] == 0x30
        i = 2
        parts = []
        for _ in range(2):
            assert out[i] == 0x02
            length = out[i + 1]
            parts.append(int.from_bytes(out[i + 2:i + 2 + length], 'big').to_bytes(32, 'big'))
            i += 2 + length
        return parts[0] + parts[1]
    return out


def compact(header, payload):
    return [b64u(header if isinstance(header, bytes) else json.dumps(header, separators=(',', ':')).encode()),
            b64u(payload if isinstance(payload, bytes) else json.dumps(payload, separators=(',', ':')).encode())]


def token(header, payload, key='rsa-a', signature=None):
    parts = compact(header, payload)
    signing_input = (parts[0] + '.' + parts[1]).encode()
    sig = signature if signature is not None else sign(key, signing_input)
    return parts[0] + '.' + parts[1] + '.' + b64u(sig)


RSA_A = rsa_jwk('rsa-a', 'rsa-a')
RSA_B = rsa_jwk('rsa-b', 'rsa-b')
EC_A = ec_jwk('ec-a', 'ec-a')
SET = {'keys': [RSA_A, EC_A]}


def google_claims(**changes):
    claims = {'iss': 'https://accounts.google.com', 'azp': GOOGLE_CLIENT, 'aud': GOOGLE_CLIENT,
              'sub': '110169484474386276334', 'email': 'ana@example.com', 'email_verified': True,
              'nonce': NONCE, 'iat': IAT, 'exp': EXP}
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


def apple_claims(**changes):
    claims = {'iss': 'https://appleid.apple.com', 'aud': APPLE_CLIENT, 'sub': '001234.abcdef0123456789.0042',
              'email': 'ana@example.com', 'email_verified': 'true', 'is_private_email': 'false',
              'nonce': NONCE_SHA, 'nonce_supported': True, 'iat': IAT, 'exp': EXP}
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


RS = {'alg': 'RS256', 'kid': 'rsa-a', 'typ': 'JWT'}
ES = {'alg': 'ES256', 'kid': 'ec-a', 'typ': 'JWT'}


def hdr(base=RS, **changes):
    header = dict(base)
    header.update(changes)
    return {k: v for k, v in header.items() if v is not None}
