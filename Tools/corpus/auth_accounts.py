#!/usr/bin/env python3
"""Writes Spec/corpus/auth/accounts.json (AUTH-35 ... AUTH-42): the account service, scripted.

Every script runs against a new service whose clock starts at 1796083200 and moves only by
`advance` steps. Each step is written beside the answer AUTH-35 ... AUTH-42 give it, worked out
by hand from the rule named in the case: the generator only lays the pairs out. Hashing uses
Argon2id at m=8, t=1, p=1 (AUTH-13's least cost) so that testees in slow languages keep up; the
rules do not depend on the cost.
"""

from corpus_file import write_cases, command_line
import base64
import hashlib
import hmac
import struct

from jose_fixtures import ES, GOOGLE_CLIENT, NONCE, RS, SET, b64u, google_claims, token

command_line(__doc__)


ANA = 'ana@example.com'
BOB = 'bob@example.com'
PW = 'violet lantern morning'
PW2 = 'seven quiet harbours'
PW3 = 'a kettle of amber tea'
OK = {'ok': True}


def acct(label):
    return {'ok': True, 'account': label}


def err(code, **extra):
    out = {'error': code}
    out.update(extra)
    return out


def step(name, **args):
    s = {'do': name}
    s.update(args)
    return s


cases = []


def script(comment, rules, pairs, **extra):
    inp = {'hashing': {'m': 8, 't': 1, 'p': 1}, 'steps': [s for s, _ in pairs]}
    inp.update(extra)
    cases.append({'comment': comment, 'rules': rules, 'flags': ['Required'], 'input': inp, 'result': 'valid',
                  'expected': {'steps': [e for _, e in pairs]}})


def account(email=ANA, password=PW, session='s0'):
    """Sign-up and confirmation: the account exists and `session` is signed in."""
    return [(step('signUp', email=email, password=password), OK),
            (step('confirmSignUp', email=email, password=password, **{'as': session}), None)]


def with_labels(pairs, label='A1'):
    return [(s, acct(label) if e is None else e) for s, e in pairs]


A = with_labels(account())

# AUTH-36: sign-up.
script('sign-up, confirmation, sign-in', ['AUTH-36', 'AUTH-38'], A + [
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp']}),
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('authenticate', session='s1'), acct('A1')),
    (step('authenticate', session='s0'), acct('A1')),
])
script('signing up with a registered address looks the same and changes nothing', ['AUTH-36'], A + [
    (step('signUp', email=ANA, password=PW2), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'alreadyRegistered']}),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
])
script("the password policy applies to sign-up, with the address's local part as context", ['AUTH-36', 'AUTH-8'], [
    (step('signUp', email=ANA, password='too short'), err('password_too_short')),
    (step('signUp', email='lanternfish@example.com', password='my lanternfish is blue'), err('password_contains_context')),
    (step('signUp', email=ANA, password='QwertyUiop123456'), err('password_common')),
    (step('mails', to=ANA), {'ok': True, 'kinds': []}),
])
script('text that is not an address', ['AUTH-36'], [
    (step('signUp', email='ana', password=PW), err('invalid_email')),
    (step('signUp', email='ana @example.com', password=PW), err('invalid_email')),
    (step('signUp', email='@example.com', password=PW), err('invalid_email')),
    (step('signUp', email='ana@', password=PW), err('invalid_email')),
    (step('signUp', email='ana@b@example.com', password=PW), err('invalid_email')),
    (step('signUp', email='a' * 65 + '@example.com', password=PW), err('invalid_email')),
    (step('signUp', email='a' * 64 + '@example.com', password=PW), OK),
    (step('signUp', email='ana\t@example.com', password=PW), err('invalid_email')),
    (step('signUp', email='a@' + 'b' * 253, password=PW), err('invalid_email')),
    (step('signUp', email='a@' + 'b' * 252, password=PW), OK),
])
script('addresses compare without case in ASCII letters', ['AUTH-36'], [
    (step('signUp', email='Ana@Example.COM', password=PW), OK),
    (step('confirmSignUp', email=ANA, password=PW, **{'as': 's0'}), acct('A1')),
    (step('signIn', email='ANA@EXAMPLE.COM', password=PW), acct('A1')),
    (step('signUp', email='aNa@example.com', password=PW2), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'alreadyRegistered']}),
])
script('a sign-up token works once', ['AUTH-36'], A + [
    (step('confirmSignUp', email=ANA, mail=0, password=PW), err('signup_token_invalid')),
])
script('a sign-up token one second before its day ends', ['AUTH-36'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('advance', seconds=86399), OK),
    (step('confirmSignUp', email=ANA, password=PW), acct('A1')),
])
script('a sign-up token at the end of its day has expired', ['AUTH-36'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('advance', seconds=86400), OK),
    (step('confirmSignUp', email=ANA, password=PW), err('signup_token_expired')),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
])
script("two sign-ups for one address: confirming one ends the other, and its password is the account's",
       ['AUTH-36'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('signUp', email=ANA, password=PW2), OK),
    (step('confirmSignUp', email=ANA, mail=1, password=PW2), acct('A1')),
    (step('confirmSignUp', email=ANA, mail=0, password=PW), err('signup_token_invalid')),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), acct('A1')),
])
script('a fourth waiting sign-up drops the oldest', ['AUTH-36'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('signUp', email=ANA, password=PW2), OK),
    (step('signUp', email=ANA, password=PW3), OK),
    (step('signUp', email=ANA, password=PW + '!'), OK),
    (step('confirmSignUp', email=ANA, mail=0, password=PW), err('signup_token_invalid')),
    (step('confirmSignUp', email=ANA, mail=1, password=PW2), acct('A1')),
])
script('a sign-up token nobody issued', ['AUTH-36'], [
    (step('confirmSignUp', token='qJ9Xl2dQ0w8nS3mC5vT7yB1zR4kF6hG8jL0pN2aE4cU'), err('signup_token_invalid')),
])
script('a password typed in another Unicode form signs in (NFKC)', ['AUTH-39', 'AUTH-16'], [
    (step('signUp', email=ANA, password='café au lait, trois fois'), OK),
    (step('confirmSignUp', email=ANA, password='café au lait, trois fois'), acct('A1')),
    (step('signIn', email=ANA, password='cafe\u0301 au lait, trois fois'), acct('A1')),
])

# AUTH-35: providers are offered only as configured; the scripts' service has none.
script('a service configured without providers refuses every provider sign-in', ['AUTH-35'], A + [
    (step('providerSignIn', provider='apple', token='eyJhbGciOiJSUzI1NiJ9.e30.AA', nonce='n'), err('unknown_provider')),
    (step('providerSignIn', provider='google', token='eyJhbGciOiJSUzI1NiJ9.e30.AA'), err('unknown_provider')),
    (step('providerSignIn', provider='email', token=''), err('unknown_provider')),
    (step('authenticate', session='s0'), acct('A1')),
])

# AUTH-37: tokens.
shape = {'ok': True, 'lengths': [43, 43], 'base64url': True, 'distinct': True}
script('access and refresh tokens are 256 bits as 43 base64url characters, and differ', ['AUTH-37'], A + [
    (step('tokenShape', session='s0'), shape),
    (step('refresh', session='s0'), acct('A1')),
    (step('tokenShape', session='s0'), shape),
    (step('signUp', email=BOB, password=PW), OK),
    (step('tokenShape', email=BOB, kind='confirmSignUp'), {'ok': True, 'lengths': [43], 'base64url': True, 'distinct': True}),
    (step('requestReset', email=ANA), OK),
    (step('tokenShape', email=ANA, kind='passwordReset'), {'ok': True, 'lengths': [43], 'base64url': True, 'distinct': True}),
])

# AUTH-39: sign-in and throttling.
script('an unknown address, a wrong password and a non-address are one error', ['AUTH-39'], A + [
    (step('signIn', email=BOB, password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email='not an address', password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=''), err('invalid_credentials')),
])
fails = [(step('signIn', email=ANA, password=PW2), err('invalid_credentials'))] * 5
# The success clears the address's key only (AUTH-39): the client gets back the failure the
# success counted, keeping five, with the time of the success, so it waits a second from there;
# one more failure then makes six, and the client waits 2^(6-5) = 2 seconds.
script("five failures are free; the sixth attempt waits a second, then succeeds; the client keeps its failures, so "
       "one more makes it wait two", ['AUTH-39'], A + fails + [
    (step('signIn', email=ANA, password=PW), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW), acct('A1')),
    (step('signIn', email=ANA, password=PW2), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW), err('throttled', retryAfter=2)),
])
script('the wait doubles with each failure, and a throttled attempt is not counted', ['AUTH-39'], A + fails + [
    (step('signIn', email=ANA, password=PW2), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('throttled', retryAfter=2)),
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('throttled', retryAfter=4)),
])
capped = list(A) + list(fails)
for failures in range(5, 15):
    wait = min(2 ** (failures - 5), 900)
    capped += [(step('advance', seconds=wait), OK), (step('signIn', email=ANA, password=PW2), err('invalid_credentials'))]
capped += [(step('signIn', email=ANA, password=PW), err('throttled', retryAfter=900)),
           (step('advance', seconds=899), OK),
           (step('signIn', email=ANA, password=PW), err('throttled', retryAfter=1)),
           (step('advance', seconds=1), OK),
           (step('signIn', email=ANA, password=PW), acct('A1'))]
script('the wait is capped at 15 minutes and never locks the account for good', ['AUTH-39'], capped)
script("a client's failures across addresses throttle that client only", ['AUTH-39'], A + [
    (step('signIn', email='x%d@example.com' % i, password=PW, client='c9'), err('invalid_credentials')) for i in range(5)
] + [
    (step('signIn', email=ANA, password=PW, client='c9'), err('throttled', retryAfter=1)),
    (step('signIn', email=ANA, password=PW, client='c2'), acct('A1')),
])
script('an address without an account is throttled exactly like one with', ['AUTH-39'], [
    (step('signIn', email=BOB, password=PW, client='c%d' % i), err('invalid_credentials')) for i in range(5)
] + [
    (step('signIn', email=BOB, password=PW, client='c7'), err('throttled', retryAfter=1)),
])
script('failures are forgotten a day after the last', ['AUTH-39'], A + fails + [
    (step('advance', seconds=86400), OK),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
])

# AUTH-38: sessions.
script('an access token works 900 seconds; refreshing gives a new one', ['AUTH-38'], A + [
    (step('advance', seconds=899), OK),
    (step('authenticate', session='s0'), acct('A1')),
    (step('advance', seconds=1), OK),
    (step('authenticate', session='s0'), err('session_expired')),
    (step('refresh', session='s0'), acct('A1')),
    (step('authenticate', session='s0'), acct('A1')),
])
script('a refresh token used twice ends the whole family', ['AUTH-38'], A + [
    (step('refresh', session='s0', **{'as': 's1'}), acct('A1')),
    (step('authenticate', session='s1'), acct('A1')),
    (step('refresh', session='s0'), err('refresh_token_reused')),
    (step('authenticate', session='s1'), err('invalid_session')),
    (step('refresh', session='s1'), err('invalid_session')),
    (step('refresh', session='s0'), err('invalid_session')),
])
script('reuse of an older token in a long chain is still caught', ['AUTH-38'], A + [
    (step('refresh', session='s0', **{'as': 's1'}), acct('A1')),
    (step('refresh', session='s1', **{'as': 's2'}), acct('A1')),
    (step('refresh', session='s2', **{'as': 's3'}), acct('A1')),
    (step('refresh', session='s0'), err('refresh_token_reused')),
    (step('authenticate', session='s3'), err('invalid_session')),
])
# Refreshed less than 14 days apart, so only the 30 days end it.
script('a family ends 30 days after its sign-in, refreshed or not', ['AUTH-38'], A + [
    (step('advance', seconds=1000000), OK),
    (step('refresh', session='s0'), acct('A1')),
    (step('advance', seconds=1000000), OK),
    (step('refresh', session='s0'), acct('A1')),
    (step('advance', seconds=591999), OK),
    (step('refresh', session='s0'), acct('A1')),
    (step('authenticate', session='s0'), acct('A1')),
    (step('advance', seconds=1), OK),
    (step('authenticate', session='s0'), err('session_expired')),
    (step('refresh', session='s0'), err('session_expired')),
    (step('refresh', session='s0'), err('invalid_session')),
])
script('signing out ends that family only, even with an expired access token', ['AUTH-38'], A + [
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('signOut', session='s0'), OK),
    (step('authenticate', session='s0'), err('invalid_session')),
    (step('refresh', session='s0'), err('invalid_session')),
    (step('authenticate', session='s1'), acct('A1')),
    (step('advance', seconds=900), OK),
    (step('signOut', session='s1'), OK),
    (step('refresh', session='s1'), err('invalid_session')),
    (step('signOut', session='s1'), err('invalid_session')),
])
script('tokens nobody issued', ['AUTH-38'], A + [
    (step('authenticate', session='nobody'), err('invalid_session')),
    (step('refresh', session='nobody'), err('invalid_session')),
])

# AUTH-40, AUTH-41: change, reset, step-up.
script('changing the password: this session stays, every other ends, the old password stops',
       ['AUTH-40', 'AUTH-41'], A + [
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('changePassword', session='s0', password=PW2), OK),
    (step('authenticate', session='s0'), acct('A1')),
    (step('authenticate', session='s1'), err('invalid_session')),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), acct('A1')),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'passwordChanged']}),
])
script('a new password equal to the old one, or against the policy', ['AUTH-40'], A + [
    (step('changePassword', session='s0', password=PW), err('password_unchanged')),
    (step('changePassword', session='s0', password='cafe\u0301 short'), err('password_too_short')),
    (step('changePassword', session='s0', password='my Glow Ritual password'), err('password_contains_context')),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp']}),
])
script('step-up: 300 seconds after sign-in is still in time', ['AUTH-41'], A + [
    (step('advance', seconds=300), OK),
    (step('changePassword', session='s0', password=PW2), OK),
])
script('step-up: a second too late, then reauthenticated', ['AUTH-41'], A + [
    (step('advance', seconds=301), OK),
    (step('changePassword', session='s0', password=PW2), err('reauthentication_required')),
    (step('reauthenticate', session='s0', password=PW2), err('invalid_credentials')),
    (step('reauthenticate', session='s0', password=PW), OK),
    (step('changePassword', session='s0', password=PW2), OK),
])
script('refreshing does not renew the step-up', ['AUTH-41'], A + [
    (step('advance', seconds=299), OK),
    (step('refresh', session='s0'), acct('A1')),
    (step('advance', seconds=2), OK),
    (step('changePassword', session='s0', password=PW2), err('reauthentication_required')),
])
script('reauthentication is throttled under the account', ['AUTH-41', 'AUTH-39'], A + [
    (step('reauthenticate', session='s0', password=PW2), err('invalid_credentials'))] * 5 + [
    (step('reauthenticate', session='s0', password=PW), err('throttled', retryAfter=1)),
    (step('signIn', email=ANA, password=PW, client='c2'), acct('A1')),
    (step('advance', seconds=1), OK),
    (step('reauthenticate', session='s0', password=PW), OK),
    (step('reauthenticate', session='s0', password=PW2), err('invalid_credentials')),
    (step('reauthenticate', session='s0', password=PW), OK),
])
script('a reset: looking does not use the token, confirming does, and nobody is signed in', ['AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'passwordReset']}),
    (step('inspectReset', email=ANA), {'ok': True, 'email': ANA}),
    (step('inspectReset', email=ANA), {'ok': True, 'email': ANA}),
    (step('confirmReset', email=ANA, password=PW2), OK),
    (step('authenticate', session='s0'), err('invalid_session')),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), acct('A1')),
    (step('confirmReset', email=ANA, password=PW3), err('reset_token_invalid')),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'passwordReset', 'passwordChanged']}),
])
script('a reset token one second before its hour ends', ['AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('advance', seconds=3599), OK),
    (step('confirmReset', email=ANA, password=PW2), OK),
])
script('a reset token at the end of its hour has expired', ['AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('advance', seconds=3600), OK),
    (step('inspectReset', email=ANA), err('reset_token_expired')),
    (step('confirmReset', email=ANA, password=PW2), err('reset_token_expired')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
])
script('a reset for an address without an account answers the same and sends nothing', ['AUTH-40'], A + [
    (step('requestReset', email=BOB), OK),
    (step('mails', to=BOB), {'ok': True, 'kinds': []}),
    (step('requestReset', email='bob'), err('invalid_email')),
])
script("one account's reset token changes only that account", ['AUTH-40'], A + with_labels(account(BOB, PW2, 's9'), 'A2') + [
    (step('requestReset', email=ANA), OK),
    (step('requestReset', email=BOB), OK),
    (step('confirmReset', email=ANA, password=PW3), OK),
    (step('signIn', email=BOB, password=PW2), acct('A2')),
    (step('signIn', email=BOB, password=PW3), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW3), acct('A1')),
    (step('inspectReset', email=BOB), {'ok': True, 'email': BOB}),
])
script('a reset token dies when the password changes', ['AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('changePassword', session='s0', password=PW2), OK),
    (step('inspectReset', email=ANA), err('reset_token_invalid')),
    (step('confirmReset', email=ANA, password=PW3), err('reset_token_invalid')),
    (step('signIn', email=ANA, password=PW2), acct('A1')),
])
script('of two reset tokens, using one kills the other', ['AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('requestReset', email=ANA), OK),
    (step('confirmReset', email=ANA, mail=0, password=PW2), OK),
    (step('inspectReset', email=ANA, mail=1), err('reset_token_invalid')),
])
script('a reset to the current password is refused and the token still works', ['AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('confirmReset', email=ANA, password=PW), err('password_unchanged')),
    (step('confirmReset', email=ANA, password='short'), err('password_too_short')),
    (step('confirmReset', email=ANA, password=PW2), OK),
])
script("a reset clears the address's throttling", ['AUTH-40', 'AUTH-39'], A + fails + [
    (step('signIn', email=ANA, password=PW, client='c2'), err('throttled', retryAfter=1)),
    (step('requestReset', email=ANA), OK),
    (step('confirmReset', email=ANA, password=PW2), OK),
    (step('signIn', email=ANA, password=PW2, client='c2'), acct('A1')),
    (step('signIn', email=ANA, password=PW2, client='c1'), err('throttled', retryAfter=1)),
])
script('a reset token nobody issued', ['AUTH-40'], A + [
    (step('inspectReset', token='not-a-token'), err('reset_token_invalid')),
    (step('confirmReset', token='', password=PW2), err('reset_token_invalid')),
])

# AUTH-42: deletion.
script('deletion: confirmed, then every credential is useless and the address is free', ['AUTH-42'], A + [
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('deleteAccount', session='s0', confirmed=False), err('confirmation_required')),
    (step('authenticate', session='s0'), acct('A1')),
    (step('deleteAccount', session='s0', confirmed=True), OK),
    (step('authenticate', session='s0'), err('invalid_session')),
    (step('refresh', session='s1'), err('invalid_session')),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'accountDeleted']}),
    (step('signUp', email=ANA, password=PW2), OK),
    (step('confirmSignUp', email=ANA, password=PW2, **{'as': 's2'}), acct('A2')),
    (step('signIn', email=ANA, password=PW2), acct('A2')),
])
script("deletion clears the address's throttling: the address signs up anew and signs in at once", ['AUTH-42', 'AUTH-39'],
       A + fails + [
    (step('signIn', email=ANA, password=PW, client='c2'), err('throttled', retryAfter=1)),
    (step('deleteAccount', session='s0', confirmed=True), OK),
    (step('signUp', email=ANA, password=PW2), OK),
    (step('confirmSignUp', email=ANA, password=PW2), acct('A2')),
    (step('signIn', email=ANA, password=PW2, client='c2'), acct('A2')),
])
script('deletion needs a recent sign-in, and asks for confirmation first', ['AUTH-42', 'AUTH-41'], A + [
    (step('advance', seconds=301), OK),
    (step('deleteAccount', session='s0', confirmed=False), err('confirmation_required')),
    (step('deleteAccount', session='s0', confirmed=True), err('reauthentication_required')),
    (step('reauthenticate', session='s0', password=PW), OK),
    (step('deleteAccount', session='s0', confirmed=True), OK),
])
script('deletion with a session nobody issued', ['AUTH-42'], A + [
    (step('deleteAccount', session='nobody', confirmed=False), err('invalid_session')),
])
script('when the data cannot be erased, nothing is deleted', ['AUTH-42'], A + [
    (step('deleteAccount', session='s0', confirmed=True), err('deletion_failed')),
    (step('authenticate', session='s0'), acct('A1')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp']}),
], eraserFails=True)
script('deletion kills pending resets', ['AUTH-42', 'AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('deleteAccount', session='s0', confirmed=True), OK),
    (step('inspectReset', email=ANA), err('reset_token_invalid')),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'passwordReset', 'accountDeleted']}),
])

# AUTH-39, hole 4 of issue 25 (added last, so earlier ids keep their numbers): a client that
# guesses at other addresses and signs into its own account between guesses keeps its failures.
# Four guesses (client c9 at 4 failures), its own sign-in (the address's key cleared, c9's kept),
# a fifth guess (c9 at 5, the last just now): the next attempt waits 2^(5-5) = 1 second.
script("a client's own sign-in between guesses does not clear its failures", ['AUTH-39'], A + [
    (step('signIn', email='x%d@example.com' % i, password=PW, client='c9'), err('invalid_credentials')) for i in range(4)
] + [
    (step('signIn', email=ANA, password=PW, client='c9'), acct('A1')),
    (step('signIn', email='x4@example.com', password=PW, client='c9'), err('invalid_credentials')),
    (step('signIn', email='x5@example.com', password=PW, client='c9'), err('throttled', retryAfter=1)),
    (step('signIn', email=ANA, password=PW, client='c2'), acct('A1')),
])

# AUTH-36: only the person who chose the password and holds the mailbox makes the account. The
# attacker signs up for Ana's address after her; Ana clicks the newest link and types her own
# password: that link is not hers, and the attacker's password never ends on an account.
script("a stranger's sign-up for my address cannot become my account: confirming needs the sign-up's password",
       ['AUTH-36'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('signUp', email=ANA, password=PW2, client='c2'), OK),
    (step('confirmSignUp', email=ANA, mail=1, password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('confirmSignUp', email=ANA, mail=0, password=PW, **{'as': 's0'}), acct('A1')),
    (step('signIn', email=ANA, password=PW2), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
    (step('confirmSignUp', email=ANA, mail=1, password=PW2), err('signup_token_invalid')),
])
script('a wrong password at confirmation leaves the token usable; the order is token, expiry, password',
       ['AUTH-36'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('confirmSignUp', email=ANA, password=PW3), err('invalid_credentials')),
    (step('confirmSignUp', email=ANA, password=''), err('invalid_credentials')),
    (step('confirmSignUp', email=ANA, password=PW), acct('A1')),
    (step('signUp', email=BOB, password=PW), OK),
    (step('advance', seconds=86400), OK),
    (step('confirmSignUp', email=BOB, password=PW3), err('signup_token_expired')),
])

# AUTH-39: the attempt is reserved in the transaction that checks the throttle, so guesses made
# at once see each other: of 50, the first five pass (0 ... 4 failures wait 0 s) and the other
# 45 find five failures at the same instant (wait 1 s).
script('fifty guesses at once: no more pass the throttle than one after another would', ['AUTH-39'], A + [
    (step('concurrently', times=50, step=step('signIn', email=ANA, password=PW3, client='c5')),
     {'ok': True, 'outcomes': {'invalid_credentials': 5, 'throttled': 45}}),
    (step('signIn', email=ANA, password=PW, client='c6'), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW, client='c6'), acct('A1')),
])
# Five failures from c9, then its own success a second later: the success takes its attempt back
# (five failures again) but its time stays, so c9 waits 1 s from the success; a sixth failure
# then waits 2 s. Counting the success as a failure would make that 4 s.
script("a client's own success takes back only its own attempt", ['AUTH-39'], A + [
    (step('signIn', email='x%d@example.com' % i, password=PW, client='c9'), err('invalid_credentials')) for i in range(5)
] + [
    (step('advance', seconds=1), OK),
    (step('signIn', email=ANA, password=PW, client='c9'), acct('A1')),
    (step('signIn', email='x5@example.com', password=PW, client='c9'), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signIn', email='x5@example.com', password=PW, client='c9'), err('invalid_credentials')),
    (step('signIn', email='x6@example.com', password=PW, client='c9'), err('throttled', retryAfter=2)),
])

# AUTH-45: mail limits, alike for addresses with and without an account.
script('sign-up and reset mails: 5 an hour per address, the same whether or not it has an account',
       ['AUTH-45', 'AUTH-40'], A + [
    (step('requestReset', email=ANA), OK),
    (step('requestReset', email=ANA), OK),
    (step('requestReset', email=ANA), OK),
    (step('requestReset', email=ANA), OK),
    (step('requestReset', email=ANA), err('throttled', retryAfter=3600)),
    (step('signUp', email=ANA, password=PW2, client='c2'), err('throttled', retryAfter=3600)),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp'] + ['passwordReset'] * 4}),
    (step('requestReset', email=BOB), OK),
    (step('requestReset', email=BOB), OK),
    (step('requestReset', email=BOB), OK),
    (step('requestReset', email=BOB), OK),
    (step('requestReset', email=BOB), OK),
    (step('requestReset', email=BOB), err('throttled', retryAfter=3600)),
    (step('signUp', email=BOB, password=PW, client='c3'), err('throttled', retryAfter=3600)),
    (step('mails', to=BOB), {'ok': True, 'kinds': []}),
    (step('advance', seconds=3599), OK),
    (step('requestReset', email=ANA), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp'] + ['passwordReset'] * 5}),
])
script('sign-up and reset mails: 20 an hour per client; a refused request counts nowhere', ['AUTH-45'], [
    (step('signUp', email='x%d@example.com' % i, password=PW, client='c7'), OK) for i in range(20)
] + [
    (step('signUp', email='x20@example.com', password=PW, client='c7'), err('throttled', retryAfter=3600)),
    (step('requestReset', email=BOB, client='c7'), err('throttled', retryAfter=3600)),
    (step('advance', seconds=1800), OK),
    (step('signUp', email='x20@example.com', password=PW, client='c8'), OK),
    (step('mails', to='x20@example.com'), {'ok': True, 'kinds': ['confirmSignUp']}),
    (step('confirmSignUp', email='x20@example.com', password=PW), acct('A1')),
    (step('requestReset', email=BOB, client='c7'), err('throttled', retryAfter=1800)),
    (step('requestReset', email='not an address', client='c7'), err('invalid_email')),
])

# Provider sign-ins need a nonce the service issued (AUTH-46). The scripts' service hands out the
# texts of `nonces` in order; each `google(...)` below asks for the next one and presents a token
# signed for it. They are 43 base64url characters, as AUTH-37's tokens are.
_nonces = []


def nonce_text(index):
    return b64u(hashlib.sha256(b'glow script nonce %d' % index).digest())


def issue():
    """The next nonce the script's service issues, and its step."""
    n = nonce_text(len(_nonces))
    _nonces.append(n)
    return n, (step('issueNonce'), {'ok': True, 'nonce': n})


def google(claims, expected, **extra):
    """Asks for a nonce, then signs in with a Google token made for it with `claims` changed."""
    n, asked = issue()
    return [asked, (step('providerSignIn', provider='google', token=token(RS, google_claims(nonce=n, **claims)),
                         nonce=n, **extra), expected)]


def provider_script(comment, rules, pairs, providers=None):
    script(comment, rules, pairs, providers=providers or GOOGLE['providers'], nonces=list(_nonces))
    _nonces.clear()


# AUTH-44: an address is used for linking, reset and sign-up collisions only once proven. The
# attacker's Google account carries Ana's address unverified; Ana's own is verified.
GOOGLE = {'providers': [{'provider': 'google', 'clientIds': [GOOGLE_CLIENT], 'keySet': SET}]}
ATTACKER = {'sub': 'attacker-0001', 'email': ANA, 'email_verified': False}
ANA_G = {'sub': 'ana-0001', 'email': ANA, 'email_verified': True}
ANA_FALSE_TEXT = {'sub': 'ana-0002', 'email': ANA, 'email_verified': 'false'}

provider_script("an unverified address never links: the verified owner's sign-in makes her own account", ['AUTH-44'], [
    *google(ATTACKER, acct('A1'), **{'as': 's0'}),
    *google(ANA_G, acct('A2'), **{'as': 's1'}),
    *google(ATTACKER, acct('A1')),
    *google(ANA_G, acct('A2')),
    *google(ANA_FALSE_TEXT, acct('A3')),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['passwordReset']}),
    (step('confirmReset', email=ANA, password=PW), OK),
    (step('signIn', email=ANA, password=PW), acct('A2')),
])
provider_script('an address held unproven is not reset and does not collide; confirming a sign-up takes it over',
                ['AUTH-44', 'AUTH-36', 'AUTH-40'], [
    *google(ATTACKER, acct('A1'), **{'as': 's0'}),
    (step('changePassword', session='s0', password=PW3), OK),
    (step('signIn', email=ANA, password=PW3), acct('A1')),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': []}),
    (step('signUp', email=ANA, password=PW), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp']}),
    (step('confirmSignUp', email=ANA, password=PW), acct('A2')),
    (step('signIn', email=ANA, password=PW3), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW), acct('A2')),
    *google(ATTACKER, acct('A1')),
    (step('authenticate', session='s0'), acct('A1')),
    *google(ANA_G, acct('A2')),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'passwordReset']}),
])
provider_script('a verified identity links to the account that proved its address; an unverified one never does',
                ['AUTH-44', 'AUTH-33'], A + [
    *google(ATTACKER, acct('A2')),
    *google(ANA_G, acct('A1')),
    *google(ANA_G, acct('A1')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
    *google(ATTACKER, acct('A2')),
])
provider_script('mail about an account goes only to an address it holds proven', ['AUTH-44', 'AUTH-40', 'AUTH-42'], [
    *google(ATTACKER, acct('A1'), **{'as': 's0'}),
    (step('changePassword', session='s0', password=PW3), OK),
    (step('deleteAccount', session='s0', confirmed=True), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': []}),
    *google(ANA_G, acct('A2'), **{'as': 's1'}),
    (step('changePassword', session='s1', password=PW3), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['passwordChanged']}),
])

# AUTH-46: issued, single-use nonces. A captured token is refused the second time; a nonce the
# client made up, an expired one and none at all are refused; a failed verification leaves the
# nonce usable.
n1, ask1 = issue()
T1 = token(RS, google_claims(nonce=n1, sub='ana-0001'))
T1_OTHER_AUDIENCE = token(RS, google_claims(nonce=n1, sub='ana-0001', aud='someone-else', azp=None))
n2, ask2 = issue()
T2 = token(RS, google_claims(nonce=n2, sub='ana-0001'))
provider_script('a captured ID token cannot sign in twice: its nonce is used up', ['AUTH-46'], [
    ask1,
    (step('providerSignIn', provider='google', token=T1_OTHER_AUDIENCE, nonce=n1), err('wrong_audience')),
    (step('providerSignIn', provider='google', token=T1, nonce=n1, **{'as': 's0'}), acct('A1')),
    (step('providerSignIn', provider='google', token=T1, nonce=n1), err('nonce_invalid')),
    ask2,
    (step('providerSignIn', provider='google', token=T1, nonce=n2), err('nonce_mismatch')),
    (step('providerSignIn', provider='google', token=T2, nonce=n2), acct('A1')),
])
T_MADE_UP = token(RS, google_claims(nonce=NONCE, sub='ana-0001'))
n3, ask3 = issue()
T3 = token(RS, google_claims(nonce=n3, sub='ana-0001'))
n4, ask4 = issue()
T4 = token(RS, google_claims(nonce=n4, sub='ana-0001'))
provider_script('a nonce the service never issued, none at all, or one past its 600 seconds is refused',
                ['AUTH-46'], [
    (step('providerSignIn', provider='google', token=T_MADE_UP, nonce=NONCE), err('nonce_invalid')),
    (step('providerSignIn', provider='google', token=T_MADE_UP), err('nonce_invalid')),
    (step('providerSignIn', provider='google', token='not even a token'), err('nonce_invalid')),
    ask3,
    (step('advance', seconds=600), OK),
    (step('providerSignIn', provider='google', token=T3, nonce=n3), err('nonce_invalid')),
    ask4,
    (step('advance', seconds=599), OK),
    (step('providerSignIn', provider='google', token=T4, nonce=n4), acct('A1')),
])

# The same ES256 token spelled twice: s and n - s both verify (AUTH-28), so telling tokens apart
# by their bytes would let the second spelling in; the nonce refuses it.
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
n5, ask5 = issue()
low = token(ES, google_claims(nonce=n5, sub='ana-0001'), key='ec-a')
head, body, sig = low.split('.')
raw = base64.urlsafe_b64decode(sig + '==')
r, s_value = raw[:32], int.from_bytes(raw[32:], 'big')
high = head + '.' + body + '.' + b64u(r + (P256_N - s_value).to_bytes(32, 'big'))
EC_GOOGLE = [{'provider': 'google', 'clientIds': [GOOGLE_CLIENT], 'keySet': SET, 'algorithms': ['RS256', 'ES256']}]
provider_script("a token's second spelling is the same sign-in: refused by its used nonce, not by its bytes",
                ['AUTH-46', 'AUTH-28'], [
    ask5,
    (step('providerSignIn', provider='google', token=high, nonce=n5), acct('A1')),
    (step('providerSignIn', provider='google', token=low, nonce=n5), err('nonce_invalid')),
], providers=EC_GOOGLE)

# AUTH-47: a person's sessions.
provider_script('sessions listed with device, sign-in and last use; one revoked by its id', ['AUTH-47', 'AUTH-38'], [
    (step('signUp', email=ANA, password=PW), OK),
    (step('confirmSignUp', email=ANA, password=PW, device='iPhone', **{'as': 's0'}), acct('A1')),
    (step('advance', seconds=10), OK),
    (step('signIn', email=ANA, password=PW, device='iPad', **{'as': 's1'}), acct('A1')),
    (step('advance', seconds=10), OK),
    *google(ANA_G, acct('A1'), device='Pixel', **{'as': 's2'}),
    (step('advance', seconds=10), OK),
    (step('refresh', session='s0'), acct('A1')),
    (step('signIn', email=ANA, password=PW, **{'as': 's3'}), acct('A1')),
    (step('sessions', session='s1'), {'ok': True, 'idsWellFormed': True, 'sessions': [
        {'device': 'iPhone', 'signedInAt': 1796083200, 'lastUsedAt': 1796083230, 'current': False},
        {'device': 'iPad', 'signedInAt': 1796083210, 'lastUsedAt': 1796083210, 'current': True},
        {'device': 'Pixel', 'signedInAt': 1796083220, 'lastUsedAt': 1796083220, 'current': False},
        {'device': None, 'signedInAt': 1796083230, 'lastUsedAt': 1796083230, 'current': False}]}),
    (step('revokeSession', session='s1', target='s0'), OK),
    (step('authenticate', session='s0'), err('invalid_session')),
    (step('refresh', session='s0'), err('invalid_session')),
    (step('revokeSession', session='s1', target='s0'), err('session_not_found')),
    (step('sessions', session='s2'), {'ok': True, 'idsWellFormed': True, 'sessions': [
        {'device': 'iPad', 'signedInAt': 1796083210, 'lastUsedAt': 1796083210, 'current': False},
        {'device': 'Pixel', 'signedInAt': 1796083220, 'lastUsedAt': 1796083220, 'current': True},
        {'device': None, 'signedInAt': 1796083230, 'lastUsedAt': 1796083230, 'current': False}]}),
    (step('revokeSession', session='s2', target='s2'), OK),
    (step('authenticate', session='s2'), err('invalid_session')),
    (step('authenticate', session='s1'), acct('A1')),
])
script("another account's session cannot be revoked, and looks like none at all", ['AUTH-47'], A + [
    (step('signUp', email=BOB, password=PW2), OK),
    (step('confirmSignUp', email=BOB, password=PW2, **{'as': 'b0'}), acct('A2')),
    (step('revokeSession', session='s0', target='b0'), err('session_not_found')),
    (step('authenticate', session='b0'), acct('A2')),
    (step('revokeSession', session='s0', target='never named'), err('session_not_found')),
    (step('revokeSession', session='nobody', target='b0'), err('invalid_session')),
    (step('sessions', session='nobody'), err('invalid_session')),
])
script('signing out everywhere ends every family of the account and nothing else', ['AUTH-47'], A + [
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('signUp', email=BOB, password=PW2), OK),
    (step('confirmSignUp', email=BOB, password=PW2, **{'as': 'b0'}), acct('A2')),
    (step('requestReset', email=ANA), OK),
    (step('signOutEverywhere', session='s1'), OK),
    (step('authenticate', session='s0'), err('invalid_session')),
    (step('authenticate', session='s1'), err('invalid_session')),
    (step('refresh', session='s0'), err('invalid_session')),
    (step('authenticate', session='b0'), acct('A2')),
    (step('signIn', email=ANA, password=PW, **{'as': 's2'}), acct('A1')),
    (step('inspectReset', email=ANA), {'ok': True, 'email': ANA}),
    (step('signOutEverywhere', session='s1'), err('invalid_session')),
])
script('a device name is at most 64 bytes with no control character, checked before anything else',
       ['AUTH-47'], A + [
    (step('signIn', email=ANA, password=PW, device='a' * 65), err('invalid_device')),
    (step('signIn', email=ANA, password=PW2, device='a' * 65), err('invalid_device')),
    (step('signIn', email=ANA, password=PW, device='\u00e9' * 32 + 'a'), err('invalid_device')),
    (step('signIn', email=ANA, password=PW, device='Ana\nPhone'), err('invalid_device')),
    (step('signIn', email=ANA, password=PW, device='Ana\u007fPhone'), err('invalid_device')),
    (step('signIn', email=ANA, password=PW, device='\u00e9' * 32, **{'as': 's1'}), acct('A1')),
    (step('signIn', email=ANA, password=PW, device='a' * 64, **{'as': 's2'}), acct('A1')),
    (step('signIn', email=ANA, password=PW, device='', **{'as': 's3'}), acct('A1')),
    (step('sessions', session='s3'), {'ok': True, 'idsWellFormed': True, 'sessions': [
        {'device': None, 'signedInAt': 1796083200, 'lastUsedAt': 1796083200, 'current': False},
        {'device': '', 'signedInAt': 1796083200, 'lastUsedAt': 1796083200, 'current': True},
        {'device': 'a' * 64, 'signedInAt': 1796083200, 'lastUsedAt': 1796083200, 'current': False},
        {'device': '\u00e9' * 32, 'signedInAt': 1796083200, 'lastUsedAt': 1796083200, 'current': False}]}),
])

# AUTH-38: 14 days without use end a family, before its 30 days.
script('a family unused for 14 days ends; each refresh counts as use', ['AUTH-38'], A + [
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('advance', seconds=1209599), OK),
    (step('refresh', session='s0'), acct('A1')),
    (step('advance', seconds=1), OK),
    (step('refresh', session='s1'), err('session_expired')),
    (step('refresh', session='s1'), err('invalid_session')),
    (step('advance', seconds=1209599), OK),
    (step('refresh', session='s0'), err('session_expired')),
    (step('authenticate', session='s0'), err('invalid_session')),
])

# AUTH-48: sign-in methods. Linking needs step-up, an identity is never moved from another
# account, and an account always keeps a way to sign in.
EVE = 'eve@example.com'
BOB_G = {'sub': 'bob-0001', 'email': BOB, 'email_verified': True}


def link(claims, expected, session='s0'):
    """Asks for a nonce, then links the Google identity of a token made for it to `session`'s account."""
    n, asked = issue()
    return [asked, (step('linkIdentity', session=session, provider='google',
                         token=token(RS, google_claims(nonce=n, **claims)), nonce=n), expected)]


def methods(password, providers):
    return {'ok': True, 'password': password, 'providers': providers}


provider_script('linking an identity needs step-up; an identity linked elsewhere stays there', ['AUTH-48', 'AUTH-41'],
                A + [
    (step('signInMethods', session='s0'), methods(True, [])),
    (step('advance', seconds=301), OK),
    *link(ANA_G, err('reauthentication_required')),
    (step('reauthenticate', session='s0', password=PW), OK),
    *link(ANA_G, OK),
    *link(ANA_G, OK),
    (step('signInMethods', session='s0'), methods(True, ['google'])),
    *google(ANA_G, acct('A1')),
    *google(BOB_G, acct('A2')),
    *link(BOB_G, err('identity_in_use')),
    (step('unlinkIdentity', session='s0', provider='apple'), err('identity_not_found')),
    (step('unlinkIdentity', session='s0', provider='google'), OK),
    (step('signInMethods', session='s0'), methods(True, [])),
    (step('signInMethods', session='nobody'), err('invalid_session')),
])
provider_script('an account always keeps a way to sign in', ['AUTH-48'], [
    *google(ANA_G, acct('A1'), **{'as': 's0'}),
    (step('signInMethods', session='s0'), methods(False, ['google'])),
    (step('unlinkIdentity', session='s0', provider='google'), err('last_sign_in_method')),
    (step('changePassword', session='s0', password=PW), OK),
    (step('signInMethods', session='s0'), methods(True, ['google'])),
    (step('removePassword', session='s0'), OK),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
    (step('changePassword', session='s0', password=PW2), OK),
    (step('unlinkIdentity', session='s0', provider='google'), OK),
    (step('removePassword', session='s0'), err('last_sign_in_method')),
    (step('signInMethods', session='s0'), methods(True, [])),
    (step('signIn', email=ANA, password=PW2), acct('A1')),
])
provider_script('removing the password kills its reset tokens; a refused removal changes nothing', ['AUTH-48'], A + [
    (step('requestReset', email=ANA), OK),
    (step('removePassword', session='s0'), err('last_sign_in_method')),
    (step('inspectReset', email=ANA), {'ok': True, 'email': ANA}),
    *link(ANA_G, OK),
    (step('removePassword', session='s0'), OK),
    (step('inspectReset', email=ANA), err('reset_token_invalid')),
    (step('authenticate', session='s0'), acct('A1')),
])

# AUTH-49: changing the address. The attacker knows the password and changes the address; the
# owner's old address is told and undoes it, which signs the attacker out.
script("a changed address is told to the old one, which can undo it and sign everyone out", ['AUTH-49', 'AUTH-41'],
       A + [
    (step('advance', seconds=301), OK),
    (step('requestEmailChange', session='s0', email=EVE), err('reauthentication_required')),
    (step('reauthenticate', session='s0', password=PW), OK),
    (step('requestEmailChange', session='s0', email=EVE), OK),
    (step('mails', to=EVE), {'ok': True, 'kinds': ['confirmEmailChange']}),
    (step('signIn', email=EVE, password=PW), err('invalid_credentials')),
    (step('confirmEmailChange', session='s0', email=EVE), OK),
    (step('signIn', email=EVE, password=PW, **{'as': 's1'}), acct('A1')),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'emailChanged']}),
    (step('undoEmailChange', email=ANA), OK),
    (step('authenticate', session='s0'), err('invalid_session')),
    (step('authenticate', session='s1'), err('invalid_session')),
    (step('signIn', email=EVE, password=PW), err('invalid_credentials')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
    (step('undoEmailChange', email=ANA), err('email_change_invalid')),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmSignUp', 'emailChanged', 'passwordReset']}),
])
script("confirming a change needs a session of the same account: a stranger's link cannot take an address",
       ['AUTH-49'], [
    (step('signUp', email=EVE, password=PW), OK),
    (step('confirmSignUp', email=EVE, password=PW, **{'as': 's0'}), acct('A1')),
    (step('signUp', email=BOB, password=PW2), OK),
    (step('confirmSignUp', email=BOB, password=PW2, **{'as': 'b0'}), acct('A2')),
    (step('requestEmailChange', session='s0', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmEmailChange']}),
    (step('confirmEmailChange', session='b0', email=ANA), err('email_change_invalid')),
    (step('confirmEmailChange', session='nobody', email=ANA), err('invalid_session')),
    (step('signIn', email=EVE, password=PW), acct('A1')),
    (step('requestReset', email=ANA), OK),
    (step('mails', to=ANA), {'ok': True, 'kinds': ['confirmEmailChange']}),
])
script('a change to a taken address looks the same; the checks come in order; a change expires in a day',
       ['AUTH-49', 'AUTH-45'], A + [
    (step('signUp', email=BOB, password=PW2), OK),
    (step('confirmSignUp', email=BOB, password=PW2), acct('A2')),
    (step('requestEmailChange', session='nobody', email='not an address'), err('invalid_session')),
    (step('requestEmailChange', session='s0', email='not an address'), err('invalid_email')),
    (step('requestEmailChange', session='s0', email='ANA@example.com'), err('email_unchanged')),
    (step('requestEmailChange', session='s0', email=BOB), OK),
    (step('mails', to=BOB), {'ok': True, 'kinds': ['confirmSignUp', 'alreadyRegistered']}),
    (step('requestEmailChange', session='s0', email=EVE), OK),
    (step('advance', seconds=86400), OK),
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('confirmEmailChange', session='s1', email=EVE), err('email_change_invalid')),
    (step('signIn', email=ANA, password=PW), acct('A1')),
])
script('a confirmed change ends the other waiting changes and kills reset tokens; an undo expires in 7 days',
       ['AUTH-49'], A + [
    (step('requestReset', email=ANA), OK),
    (step('requestEmailChange', session='s0', email=EVE), OK),
    (step('requestEmailChange', session='s0', email='zoe@example.com'), OK),
    (step('confirmEmailChange', session='s0', email=EVE), OK),
    (step('confirmEmailChange', session='s0', email='zoe@example.com'), err('email_change_invalid')),
    (step('confirmReset', email=ANA, password=PW3), err('reset_token_invalid')),
    (step('advance', seconds=604800), OK),
    (step('undoEmailChange', email=ANA), err('email_change_invalid')),
    (step('signIn', email=EVE, password=PW), acct('A1')),
])
script('an undo finds its old address proven by someone since: the change stays', ['AUTH-49', 'AUTH-44'], A + [
    (step('requestEmailChange', session='s0', email=EVE), OK),
    (step('confirmEmailChange', session='s0', email=EVE), OK),
    (step('signUp', email=ANA, password=PW2), OK),
    (step('confirmSignUp', email=ANA, password=PW2), acct('A2')),
    (step('undoEmailChange', email=ANA), err('email_change_invalid')),
    (step('signIn', email=EVE, password=PW), acct('A1')),
    (step('authenticate', session='s0'), acct('A1')),
])

# AUTH-50, AUTH-51: a second factor. The scripts' service takes its secrets in order from
# `totpSecrets`; each code below is computed here from AUTH-50 (HMAC-SHA-1 of the step, six digits).
S1 = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
S2 = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU'
NOW = 1796083200


def totp(secret, time):
    key = base64.b32decode(secret)
    digest = hmac.new(key, struct.pack('>Q', time // 30), hashlib.sha1).digest()
    offset = digest[-1] & 15
    return '%06d' % ((struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000)


def uri(secret, address=ANA):
    return ('otpauth://totp/Glow%20Ritual:' + address.replace('@', '%40') + '?secret=' + secret
            + '&issuer=Glow%20Ritual&algorithm=SHA1&digits=6&period=30')


assert totp(S1, NOW) != totp(S2, NOW)
assert not {'12345%d' % i for i in range(5)} & {totp(S1, NOW + d) for d in (-30, 0, 30, 60)}
CODES = {'ok': True, 'recoveryCodes': {'count': 10, 'wellFormed': True, 'distinct': True}}


def second_factor_script(comment, rules, pairs, secrets=(S1,)):
    script(comment, rules, pairs, totpSecrets=list(secrets))


second_factor_script('a second factor: enrolled with a code, then asked at every password sign-in, each code once',
                     ['AUTH-51', 'AUTH-50', 'AUTH-39'], A + [
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S1, 'uri': uri(S1)}),
    (step('signIn', email=ANA, password=PW), acct('A1')),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW - 60)), err('invalid_second_factor')),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW)), CODES),
    (step('signIn', email=ANA, password=PW), err('second_factor_required')),
    (step('signIn', email=ANA, password=PW, code=totp(S1, NOW)), err('invalid_second_factor')),
    (step('signIn', email=ANA, password=PW, code=totp(S1, NOW + 30)), acct('A1')),
    (step('signIn', email=ANA, password=PW, code=totp(S1, NOW + 30)), err('invalid_second_factor')),
    (step('signIn', email=ANA, password=PW2, code=totp(S1, NOW + 60)), err('invalid_credentials')),
    (step('advance', seconds=30), OK),
    (step('signIn', email=ANA, password=PW, code=totp(S1, NOW + 60)), acct('A1')),
    (step('signIn', email=ANA, password=PW, recoveryCode=0), acct('A1')),
    (step('signIn', email=ANA, password=PW, recoveryCode=0), err('invalid_second_factor')),
    (step('signIn', email=ANA, password=PW, recoveryCode=1, recoveryForm='loose', client='c2'), acct('A1')),
])
second_factor_script('with a second factor, step-up needs a code; turned off, passwords alone sign in again',
                     ['AUTH-51', 'AUTH-41'], A + [
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S1, 'uri': uri(S1)}),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW)), CODES),
    (step('advance', seconds=60), OK),
    (step('changePassword', session='s0', password=PW2), OK),
    (step('advance', seconds=301), OK),
    (step('changePassword', session='s0', password=PW3), err('reauthentication_required')),
    (step('reauthenticate', session='s0', password=PW), err('invalid_credentials')),
    (step('reauthenticate', session='s0', password=PW2), err('second_factor_required')),
    (step('reauthenticate', session='s0', password=PW2, code=totp(S1, NOW + 361)), OK),
    (step('changePassword', session='s0', password=PW3), OK),
    (step('signIn', email=ANA, password=PW3, code=totp(S1, NOW + 391), **{'as': 's1'}), acct('A1')),
    (step('disableSecondFactor', session='s1'), OK),
    (step('signIn', email=ANA, password=PW3, **{'as': 's2'}), acct('A1')),
    (step('disableSecondFactor', session='s2'), err('no_second_factor')),
    (step('changePassword', session='s2', password=PW), OK),
])
second_factor_script('a sign-in without a code is no proof of presence once a second factor is on', ['AUTH-51', 'AUTH-41'],
                     A + [
    (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S1, 'uri': uri(S1)}),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW)), CODES),
    (step('deleteAccount', session='s1', confirmed=True), err('reauthentication_required')),
    (step('advance', seconds=30), OK),
    (step('signIn', email=ANA, password=PW, recoveryCode=3, **{'as': 's2'}), acct('A1')),
    (step('deleteAccount', session='s2', confirmed=True), OK),
    (step('signIn', email=ANA, password=PW), err('invalid_credentials')),
])
second_factor_script('enrolling: a pending secret is replaced; an enrolled account cannot enroll again; new recovery codes '
                     'replace the old', ['AUTH-51'], A + [
    (step('confirmSecondFactor', session='s0', code='000000'), err('no_second_factor')),
    (step('disableSecondFactor', session='s0'), err('no_second_factor')),
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S1, 'uri': uri(S1)}),
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S2, 'uri': uri(S2)}),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW)), err('invalid_second_factor')),
    (step('confirmSecondFactor', session='s0', code=totp(S2, NOW)), CODES),
    (step('beginSecondFactor', session='s0'), err('second_factor_enrolled')),
    (step('newRecoveryCodes', session='s0'), CODES),
    (step('reauthenticate', session='s0', password=PW, recoverySet=0, recoveryCode=0), err('invalid_second_factor')),
    (step('reauthenticate', session='s0', password=PW, recoverySet=1, recoveryCode=0), OK),
    (step('reauthenticate', session='s0', password=PW, recoverySet=1, recoveryCode=0), err('invalid_second_factor')),
    (step('newRecoveryCodes', session='nobody'), err('invalid_session')),
], secrets=(S1, S2))
second_factor_script('wrong codes are throttled under the account key', ['AUTH-51', 'AUTH-41'], A + [
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S1, 'uri': uri(S1)}),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW)), CODES),
] + [
    (step('reauthenticate', session='s0', password=PW, code='12345%d' % i), err('invalid_second_factor')) for i in range(5)
] + [
    (step('reauthenticate', session='s0', password=PW, code=totp(S1, NOW + 30)), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('reauthenticate', session='s0', password=PW, code=totp(S1, NOW + 30)), OK),
])

second_factor_script('a new secret starts afresh: its code of a step already used with the old secret is accepted',
                     ['AUTH-51'], A + [
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S1, 'uri': uri(S1)}),
    (step('confirmSecondFactor', session='s0', code=totp(S1, NOW)), CODES),
    (step('disableSecondFactor', session='s0'), OK),
    (step('beginSecondFactor', session='s0'), {'ok': True, 'secret': S2, 'uri': uri(S2)}),
    (step('confirmSecondFactor', session='s0', code=totp(S2, NOW)), CODES),
    (step('signIn', email=ANA, password=PW, code=totp(S2, NOW)), err('invalid_second_factor')),
    (step('signIn', email=ANA, password=PW, code=totp(S2, NOW + 30)), acct('A1')),
], secrets=(S1, S2))

# AUTH-39: text that is not an address fails as an unknown address does: the same work, and
# counted under the client's key and the text's own.
script('text that is not an address is counted like an unknown address', ['AUTH-39'], A + [
    (step('signIn', email='Ana', password=PW, client='c3'), err('invalid_credentials')),
    (step('signIn', email='ana', password=PW, client='c4'), err('invalid_credentials')),
    (step('signIn', email='ana', password=PW, client='c5'), err('invalid_credentials')),
    (step('signIn', email='ana', password=PW, client='c6'), err('invalid_credentials')),
    (step('signIn', email='ANA', password=PW, client='c7'), err('invalid_credentials')),
    (step('signIn', email='ana', password=PW, client='c8'), err('throttled', retryAfter=1)),
] + [
    (step('signIn', email='x%d' % i, password=PW, client='c9'), err('invalid_credentials')) for i in range(5)
] + [
    (step('signIn', email=ANA, password=PW, client='c9'), err('throttled', retryAfter=1)),
    (step('signIn', email=ANA, password=PW, client='c1'), acct('A1')),
])

# AUTH-46: nonces are issued 30 per client per 600 seconds.
asks = [issue() for _ in range(32)]
provider_script('a client is issued 30 nonces in 600 seconds; a refusal issues and counts nothing', ['AUTH-46'], [
    (step('issueNonce', client='c1'), expected) for _, (_, expected) in asks[:30]
] + [
    (step('issueNonce', client='c1'), err('throttled', retryAfter=600)),
    (step('issueNonce', client='c2'), asks[30][1][1]),
    (step('advance', seconds=599), OK),
    (step('issueNonce', client='c1'), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('issueNonce', client='c1'), asks[31][1][1]),
])

# ---- AUTH-36 with AUTH-39: guesses at one sign-up's password are counted before hashing (issue 44)
flood = [(step('signUp', email=ANA, password=PW), OK)]
flood += [(step('confirmSignUp', email=ANA, password=PW2), err('invalid_credentials'))] * 5
flood += [
    # Five failures at t: the sign-up's key waits until t + 1, and a try meanwhile is neither
    # checked nor counted, the right password included.
    (step('confirmSignUp', email=ANA, password=PW), err('throttled', retryAfter=1)),
    (step('advance', seconds=1), OK),
    # At t + 1 it is checked and counted: a sixth failure, so the key waits 2 seconds from it.
    (step('confirmSignUp', email=ANA, password=PW2), err('invalid_credentials')),
    (step('confirmSignUp', email=ANA, password=PW), err('throttled', retryAfter=2)),
    (step('advance', seconds=2), OK),
    (step('confirmSignUp', email=ANA, password=PW, **{'as': 's0'}), acct('A1')),
]
script('guesses at a sign-up\'s password count under the sign-up before it is hashed: the sixth waits, '
       'as AUTH-39\'s keys do, the right password too; the token stays usable and confirms after the wait',
       ['AUTH-36', 'AUTH-39'], flood)

# AUTH-47: at most 64 live families per account; the 65th sign-in ends the one used longest ago.
# s0 signs in at t0 and refreshes at t0 + 2, so s1 (signed in at t0 + 1, never used since) is the
# one used longest ago when the 65th family starts; at 64 families nothing ends.
cap = [*account(), (step('advance', seconds=1), OK),
       (step('signIn', email=ANA, password=PW, **{'as': 's1'}), acct('A1')),
       (step('advance', seconds=1), OK),
       (step('refresh', session='s0'), acct('A1'))]
for index in range(2, 64):
    cap += [(step('advance', seconds=1), OK),
            (step('signIn', email=ANA, password=PW, **{'as': 's%d' % index}), acct('A1'))]
cap += [(step('authenticate', session='s1'), acct('A1')),
        (step('advance', seconds=1), OK),
        (step('signIn', email=ANA, password=PW, **{'as': 's64'}), acct('A1')),
        (step('authenticate', session='s1'), err('invalid_session')),
        (step('refresh', session='s1'), err('invalid_session')),
        (step('authenticate', session='s0'), acct('A1')),
        (step('authenticate', session='s2'), acct('A1')),
        (step('authenticate', session='s64'), acct('A1'))]
script('an account holds at most 64 live sessions: the 65th sign-in ends the one used longest ago, '
       'not the oldest sign-in', ['AUTH-47', 'AUTH-38'], with_labels(cap))

# AUTH-39: a client signs in by password at most 120 times in a window of 600 s, successful or not;
# the 121st is throttled for the rest of the window, counting nothing (six wrong passwords then
# would make the client wait under AUTH-39's failures), while another client is served.
flood = list(account())
for index in range(120):
    flood.append((step('signIn', email=ANA, password=PW, client='c1', **{'as': 'f%d' % index}), acct('A1')))
flood += [(step('signIn', email=ANA, password=PW, client='c1'), err('throttled', retryAfter=600)),
          (step('signIn', email=ANA, password=PW, client='c2'), acct('A1')),
          (step('advance', seconds=599), OK)]
flood += [(step('signIn', email=ANA, password=PW2, client='c1'), err('throttled', retryAfter=1)) for _ in range(6)]
flood += [(step('advance', seconds=1), OK),
          (step('signIn', email=ANA, password=PW, client='c1', **{'as': 'after'}), acct('A1')),
          (step('authenticate', session='after'), acct('A1'))]
script('a client signs in by password at most 120 times in 600 seconds, successful or not: the 121st is '
       'throttled until the window ends and counts nothing; another client is served', ['AUTH-39', 'AUTH-12'],
       with_labels(flood))

# AUTH-36: the bound on everyone's sign-ups together (here 3 in the hour, the service set so):
# a fourth from another client and address is 507 sign_ups_full until the hour from the first ends,
# counting nothing; one client's own mail limit refuses it before the bound is counted.
everyone = [
    (step('signUp', email='a@example.com', password=PW, client='c1'), OK),
    (step('advance', seconds=100), OK),
    (step('signUp', email='b@example.com', password=PW, client='c2'), OK),
    (step('signUp', email='c@example.com', password=PW, client='c3'), OK),
    (step('signUp', email='d@example.com', password=PW, client='c4'), err('sign_ups_full', retryAfter=3500)),
    (step('advance', seconds=3499), OK),
    (step('signUp', email='d@example.com', password=PW, client='c4'), err('sign_ups_full', retryAfter=1)),
    (step('advance', seconds=1), OK),
    (step('signUp', email='d@example.com', password=PW, client='c4'), OK),
    (step('mails', to='d@example.com'), {'ok': True, 'kinds': ['confirmSignUp']}),
    (step('confirmSignUp', email='d@example.com', password=PW, **{'as': 'd'}), acct('A1')),
]
cases.append({'comment': "the service takes at most its bound of everyone's sign-ups in an hour: past it 507 "
                         "sign_ups_full until the window from the first ends, counting nothing",
              'rules': ['AUTH-36'], 'flags': ['Required'],
              'input': {'hashing': {'m': 8, 't': 1, 'p': 1}, 'signUpsPerHour': 3, 'steps': [st for st, _ in everyone]},
              'result': 'valid', 'expected': {'steps': [e for _, e in everyone]}})

write_cases('auth', 'accounts.json', 'auth.accounts',
            'A script of `steps` against a new account service (hashing `hashing`; `eraserFails` makes '
                      'the eraser fail; `signUpsPerHour`, when given, its bound on everyone\'s sign-ups, AUTH-36) whose clock starts at 1796083200 and moves only by `advance` steps. A step '
                      'is `{"do": NAME, ...}`; sessions are named by `as` (or `session`), tokens of mails are '
                      'found by `email` and `mail` (an index among the mails of that kind to that address, the '
                      'last when absent) unless a literal `token` is given; accounts are labelled A1, A2, ... in '
                      'the order the script first meets them; `providerSignIn` signs in with an ID token `token` of `provider` '
                      'and the raw `nonce`, the service offering only the providers of `providers` (each with `provider`, `clientIds` and the '
                      '`keySet` its keys are fetched as, as in id_token.json), none when absent; `signIn`, `signUp` and '
                      '`requestReset` come from client key `client` (`c1` when absent); `confirmSignUp` presents its `password`; '
                      '`issueNonce` asks, from client `client` (`c1` when absent), for a sign-in nonce, which the scripts\' service takes in order from `nonces` instead of its '
                      'generator; `providerSignIn`, `signIn` and `confirmSignUp` may name a `device`; `sessions` lists the '
                      'sessions of `session`\'s account without their ids (`idsWellFormed` says whether all are 32 lowercase hexadecimal '
                      'digits and distinct); `revokeSession` revokes, with `session`\'s token, the family of the session named `target` '
                      '(an id nobody issued when the script never named it); `signOutEverywhere` uses `session`\'s token; '
                      '`signInMethods`, `linkIdentity` (`provider`, `token`, `nonce`), `unlinkIdentity` (`provider`), `removePassword` and '
                      '`requestEmailChange` (the new address `email`, from `client`) act with `session`\'s token; `confirmEmailChange` '
                      'presents `session`\'s token and the token of the last `confirmEmailChange` mail to `email`; `undoEmailChange` the '
                      'token of the last `emailChanged` mail to `email`; '
                      '`beginSecondFactor`, `confirmSecondFactor` (`code`), `disableSecondFactor` and `newRecoveryCodes` act with '
                      '`session`\'s token, the secrets coming in order from `totpSecrets` instead of the generator; the recovery codes '
                      'a step shows are described (`count`, `wellFormed`: each four groups of four lower-case base32 characters '
                      'joined by `-`, `distinct`) and kept: `signIn` and `reauthenticate` may present a `code`, or the recovery '
                      'code at index `recoveryCode` of the set numbered `recoverySet` (0 for the first a script was shown, the '
                      'latest when absent), written as shown or, with `recoveryForm` `loose`, in upper case with spaces for `-`; '
                      '`concurrently` runs `times` copies of `step` at once and answers how many ended with each outcome '
                      '(`ok`, or the error code); `tokenShape` describes the tokens of a session, or of the last '
                      'mail of `kind` to `email`: their lengths, whether all are base64url, whether they differ. The output is each step\'s `{"ok": true, ...}` or '
                      '`{"error": CODE}` (with `retryAfter` when it gives a wait: `throttled`, `sign_ups_full`).',
            cases, 'accounts')
print(len(cases), 'account scripts,', sum(len(c['input']['steps']) for c in cases), 'steps')
