#!/usr/bin/env python3
"""Writes Spec/corpus/server/exchanges.json (SERVER-1 ... SERVER-8): scripts of HTTP exchanges
that `glow-tool conformance --server URL --mail-dir DIR` plays against a running server.

Every expectation is read off Spec/server.md beside its step: the status of SERVER-6's table, the
headers of SERVER-3, SERVER-6 and SERVER-7, the ServiceError codes of the module that refuses
(auth.md, feed.md, wire.md). Addresses hold {run}, so runs never meet; "$name" is a value an
earlier step captured.
"""

from corpus_file import write_cases, command_line

command_line(__doc__)

PASSWORD = 'correct horse battery staple'


def addr(name):
    return '%s-{run}@example.com' % name


def account(name, device='phone'):
    """Signs `name` up, reads the confirmation mail and confirms (AUTH-36, SERVER-8): captures
    NAME.access, NAME.refresh and NAME (the account id)."""
    return [
        {'call': 'sign-up', 'body': {'email': addr(name), 'password': PASSWORD},
         'expect': {'status': 200, 'body': {}}},
        {'mail': {'to': addr(name), 'kind': 'confirmSignUp', 'capture': name + '.signup'}},
        {'call': 'confirm-sign-up',
         'body': {'token': '$' + name + '.signup', 'password': PASSWORD, 'device': device},
         'expect': {'status': 200, 'body': {'account': {'capture': name},
                                            'access_token': {'capture': name + '.access'},
                                            'refresh_token': {'capture': name + '.refresh'},
                                            'session': {'capture': name + '.session'}}}},
    ]


def refused(status, code, **extra):
    expect = {'status': status, 'error': dict({'code': code}, **extra.pop('error', {}))}
    expect.update(extra)
    return expect


def stance(frm, to, value, wall):
    return {'from': frm, 'to': to, 'stance': value, 'stamp': {'wall': wall, 'counter': 0, 'device': 'phone-1'}}


CT = {'Content-Type': {'present': True}}
cases = []


def case(comment, rules, exchanges):
    cases.append({'comment': comment, 'rules': rules, 'flags': [], 'input': {'exchanges': exchanges},
                  'result': 'valid'})


# ---- SERVER-7: health, and methods
case('health answers 200 with status ok and protocol 1, as protocol buffers', ['SERVER-7', 'SERVER-2'],
     [{'call': 'health', 'expect': {'status': 200, 'headers': {'Content-Type': 'application/x-protobuf'},
                                    'body': {'status': 'ok', 'protocol': 1}}}])
case('health is a GET: a POST is 405 with Allow: GET', ['SERVER-7', 'SERVER-6'],
     [{'call': 'health', 'method': 'POST', 'expect': refused(405, 'method_not_allowed', headers={'Allow': 'GET'})}])
case('a call is a POST: a GET of sign-in is 405 with Allow: POST', ['SERVER-7', 'SERVER-1'],
     [{'call': 'sign-in', 'method': 'GET', 'expect': refused(405, 'method_not_allowed', headers={'Allow': 'POST'})}])
case('a DELETE of sessions is 405 too, before the token is looked at', ['SERVER-7'],
     [{'call': 'sessions', 'method': 'DELETE', 'expect': refused(405, 'method_not_allowed')}])

# ---- SERVER-1, SERVER-4: names
case('a path that is no call is 404 unknown_call', ['SERVER-4', 'SERVER-6'],
     [{'path': '/v1/no-such-call', 'expect': refused(404, 'unknown_call')}])
case('a newer protocol version is a call this server does not have: 404 unknown_call', ['SERVER-4'],
     [{'path': '/v2/sign-in', 'expect': refused(404, 'unknown_call')}])
case('call names compare exactly: /v1/Sign-In is not sign-in', ['SERVER-1'],
     [{'path': '/v1/Sign-In', 'expect': refused(404, 'unknown_call')}])
case('a trailing slash makes another name', ['SERVER-1'],
     [{'path': '/v1/sign-in/', 'expect': refused(404, 'unknown_call')}])
case('the root is no call', ['SERVER-1', 'SERVER-4'],
     [{'path': '/', 'expect': refused(404, 'unknown_call')}])

# ---- SERVER-1, SERVER-2, SERVER-8: an account from sign-up to sessions
case('sign up, confirm with the mailed token and the password, list the one session', ['SERVER-1', 'SERVER-2',
                                                                                         'SERVER-8', 'SERVER-3'],
     account('ana') + [
         {'call': 'sessions', 'token': 'ana.access',
          'expect': {'status': 200, 'body': {'sessions': [{'id': '$ana.session', 'device': 'phone',
                                                           'current': True}]}}},
     ])
case('a sign-up for an address with an account answers the same and mails an alreadyRegistered notice',
     ['SERVER-8', 'SERVER-2'],
     account('ben') + [
         {'call': 'sign-up', 'body': {'email': addr('ben'), 'password': 'another long passphrase'},
          'expect': {'status': 200, 'body': {}}},
         {'mail': {'to': addr('ben'), 'kind': 'alreadyRegistered'}},
     ])
case('an empty body is the request with no fields: sessions takes Done, and may send none', ['SERVER-1'],
     account('cy') + [
         {'call': 'sessions', 'token': 'cy.access', 'expect': {'status': 200}},
         {'call': 'sessions', 'token': 'cy.access', 'body': {}, 'expect': {'status': 200}},
     ])

# ---- SERVER-3: who calls
case('sessions without Authorization is 401 unauthenticated with WWW-Authenticate: Bearer', ['SERVER-3'],
     [{'call': 'sessions', 'expect': refused(401, 'unauthenticated', headers={'WWW-Authenticate': 'Bearer'})}])
case('another scheme is unauthenticated', ['SERVER-3'],
     [{'call': 'sessions', 'headers': {'Authorization': 'Basic YW5hOnB3'},
       'expect': refused(401, 'unauthenticated', headers={'WWW-Authenticate': 'Bearer'})}])
case('Bearer without a token is unauthenticated', ['SERVER-3'],
     [{'call': 'sessions', 'headers': {'Authorization': 'Bearer '}, 'expect': refused(401, 'unauthenticated')}])
case('a token the service never issued is 401 invalid_session', ['SERVER-3'],
     [{'call': 'sessions', 'headers': {'Authorization': 'Bearer not-a-token-of-this-server'},
       'expect': refused(401, 'invalid_session', headers={'WWW-Authenticate': 'Bearer'})}])
case("the scheme's name in any case", ['SERVER-3'],
     account('dee') + [
         {'call': 'sessions', 'headers': {'Authorization': 'bEARER {$dee.access}'}, 'expect': {'status': 200}},
     ])
case('a call without a session ignores a bad Authorization header', ['SERVER-3'],
     [{'call': 'health', 'headers': {'Authorization': 'Bearer forged'}, 'expect': {'status': 200}}])
case('the relay takes the person from the token: a stance from another account is 403 not_author, one of '
     "the caller's own is accepted", ['SERVER-3', 'SERVER-5', 'SERVER-6'],
     account('eve') + account('fay') + [
         {'call': 'relay', 'token': 'eve.access',
          'body': {'submit': {'stances': [stance('$fay', '$eve', 1, 1000)]}},
          'expect': refused(403, 'not_author', error={'rule': 'FEED-25'})},
         {'call': 'relay', 'token': 'eve.access',
          'body': {'submit': {'stances': [stance('$eve', '$fay', 1, 1000)]}},
          'expect': {'status': 200, 'body': {'submitted': {'capture': 'eve.sequence'}}}},
     ])
case("a stranger pulling from cursor 0 learns nothing of two others' stances (FEED-27 over HTTP)",
     ['SERVER-3', 'SERVER-2'],
     account('gus') + account('hal') + account('ivy') + [
         {'call': 'relay', 'token': 'gus.access', 'body': {'submit': {'stances': [stance('$gus', '$hal', 1, 1000)]}},
          'expect': {'status': 200}},
         {'call': 'relay', 'token': 'hal.access', 'body': {'submit': {'stances': [stance('$hal', '$gus', 1, 1000)]}},
          'expect': {'status': 200}},
         {'call': 'relay', 'token': 'ivy.access', 'body': {'changes_since': 0},
          'expect': {'status': 200, 'body': {'changes': {'delta': {'stances': [], 'items': []}}}}},
         {'call': 'relay', 'token': 'hal.access', 'body': {'changes_since': 0},
          'expect': {'status': 200, 'body': {'changes': {'cursor': {'capture': 'hal.cursor'}}}}},
     ])
case('a signed-out session is invalid_session for every later call', ['SERVER-3'],
     account('jo') + [
         {'call': 'sign-out', 'token': 'jo.access', 'expect': {'status': 200, 'body': {}}},
         {'call': 'sessions', 'token': 'jo.access', 'expect': refused(401, 'invalid_session')},
         {'call': 'relay', 'token': 'jo.access', 'body': {'changes_since': 0},
          'expect': refused(401, 'invalid_session')},
     ])
case('an empty device is no device, an empty code no second factor (SERVER-9)', ['SERVER-9'],
     account('vic') + [
         {'call': 'sign-in', 'body': {'email': addr('vic'), 'password': PASSWORD, 'device': '', 'code': ''},
          'expect': {'status': 200, 'body': {'session': {'capture': 'vic.second'},
                                             'access_token': {'capture': 'vic.access2'}}}},
         {'call': 'sessions', 'token': 'vic.access2',
          'expect': {'status': 200, 'body': {'sessions': [{'id': '$vic.session', 'device': 'phone', 'current': False},
                                                          {'id': '$vic.second', 'device': '', 'current': True}]}}},
     ])
case('an empty nonce is no nonce: a provider sign-in without one is refused before the token is read',
     ['SERVER-9'],
     [{'call': 'provider-sign-in', 'body': {'provider': 'myspace', 'id_token': 'a.b.c', 'nonce': ''},
       'expect': refused(400, 'unknown_provider')}])
case("a relay submit holding one write of another's is refused whole: the caller's own write in it is not "
     'kept either (SERVER-10)', ['SERVER-10', 'SERVER-3'],
     account('wes') + account('xan') + [
         {'call': 'relay', 'token': 'wes.access',
          'body': {'submit': {'stances': [stance('$wes', '$xan', 1, 1000), stance('$xan', '$wes', 1, 1000)]}},
          'expect': refused(403, 'not_author')},
         {'call': 'relay', 'token': 'xan.access', 'body': {'changes_since': 0},
          'expect': {'status': 200, 'body': {'changes': {'delta': {'stances': []}}}}},
     ])
case('a refused confirmation (wrong password) leaves the sign-up pending: the right one then confirms it',
     ['SERVER-10', 'SERVER-8'],
     [{'call': 'sign-up', 'body': {'email': addr('yul'), 'password': PASSWORD}, 'expect': {'status': 200}},
      {'mail': {'to': addr('yul'), 'kind': 'confirmSignUp', 'capture': 'yul.signup'}},
      {'call': 'confirm-sign-up', 'body': {'token': '$yul.signup', 'password': 'not the chosen password'},
       'expect': refused(401, 'invalid_credentials')},
      {'call': 'confirm-sign-up', 'body': {'token': '$yul.signup', 'password': PASSWORD},
       'expect': {'status': 200, 'body': {'account': {'capture': 'yul'}}}}])

# ---- SERVER-4: unknown fields
case("a request's unknown field (999, a string) is skipped and the call served", ['SERVER-4'],
     account('kim') + [
         {'call': 'sign-in', 'body': {'email': addr('kim'), 'password': PASSWORD, 'device': 'tablet'},
          'unknownFields': 'ba3e03616263',
          'expect': {'status': 200, 'body': {'account': '$kim'}}},
     ])
case('an unknown varint field (8191) after the known ones changes nothing either', ['SERVER-4'],
     account('lee') + [
         {'call': 'revoke-session', 'token': 'lee.access', 'body': {'id': 'no-such-session'},
          'unknownFields': 'f8ff0301', 'expect': refused(404, 'session_not_found')},
     ])

# ---- SERVER-5, SERVER-6: errors
case('a body cut inside a string is 400 truncated, with the rule and the offset of the length',
     ['SERVER-5', 'SERVER-6'],
     [{'call': 'sign-in', 'bodyHex': '0a05616263',
       'expect': refused(400, 'truncated', error={'rule': 'WIRE-9', 'location': 'at offset 1'})}])
case('a declared string field sent as a varint is 400 invalid_wire_type', ['SERVER-5', 'SERVER-6'],
     [{'call': 'sign-in', 'bodyHex': '0801', 'expect': refused(400, 'invalid_wire_type', error={'rule': 'WIRE-12'})}])
case('a string that is not UTF-8 is 400 invalid_utf8', ['SERVER-5', 'SERVER-6'],
     [{'call': 'sign-up', 'bodyHex': '0a02c328', 'expect': refused(400, 'invalid_utf8', error={'rule': 'WIRE-15'})}])
case('a body in another media type is 415 unsupported_media_type', ['SERVER-6'],
     [{'call': 'sign-up', 'body': {'email': addr('mo'), 'password': PASSWORD},
       'headers': {'Content-Type': 'application/json'}, 'expect': refused(415, 'unsupported_media_type')}])
case('the media type with parameters and in another case is accepted', ['SERVER-6'],
     [{'call': 'sign-up', 'body': {'email': addr('ned'), 'password': PASSWORD},
       'headers': {'Content-Type': 'Application/X-Protobuf; proto=glow.v1.SignUpRequest'},
       'expect': {'status': 200}}])
case('a body past 1 MiB is 413 body_too_large', ['SERVER-6'],
     [{'call': 'sign-up', 'bodyFill': {'byte': 0, 'count': 1048577}, 'expect': refused(413, 'body_too_large')}])
case('a body of exactly 1 MiB is read (and refused for what it holds, not its size)', ['SERVER-6'],
     [{'call': 'sign-up', 'bodyFill': {'byte': 0, 'count': 1048576}, 'expect': refused(400, 'invalid_field_number')}])
case('an address that is none is 400 invalid_email', ['SERVER-6', 'SERVER-5'],
     [{'call': 'sign-up', 'body': {'email': 'not an address', 'password': PASSWORD},
       'expect': refused(400, 'invalid_email')}])
case('a short password is 400 password_too_short', ['SERVER-6'],
     [{'call': 'sign-up', 'body': {'email': addr('oz'), 'password': 'short'},
       'expect': refused(400, 'password_too_short')}])
case('a wrong password is 401 invalid_credentials; a sixth failure of the address is 429 throttled with '
     'Retry-After and retry_after_seconds', ['SERVER-6', 'SERVER-5'],
     account('pat') + [
         {'call': 'sign-in', 'body': {'email': addr('pat'), 'password': 'not the password at all'},
          'expect': refused(401, 'invalid_credentials', headers={'WWW-Authenticate': 'Bearer'})}
     ] * 5 + [
         {'call': 'sign-in', 'body': {'email': addr('pat'), 'password': PASSWORD},
          'expect': refused(429, 'throttled', headers={'Retry-After': '1'},
                            error={'rule': 'AUTH-39', 'retry_after_seconds': 1})},
     ])
case('a refresh token used twice is 401 refresh_token_reused', ['SERVER-6'],
     account('quin') + [
         {'call': 'refresh', 'body': {'refresh_token': '$quin.refresh'},
          'expect': {'status': 200, 'body': {'account': '$quin', 'refresh_token': {'capture': 'quin.refresh2'}}}},
         {'call': 'refresh', 'body': {'refresh_token': '$quin.refresh'}, 'expect': refused(401, 'refresh_token_reused')},
     ])
case('revoking a session that is not the caller\'s is 404 session_not_found', ['SERVER-6', 'SERVER-3'],
     account('ray') + account('sol') + [
         {'call': 'revoke-session', 'token': 'ray.access', 'body': {'id': '$sol.session'},
          'expect': refused(404, 'session_not_found')},
         {'call': 'sessions', 'token': 'sol.access', 'expect': {'status': 200}},
     ])
case('deleting without confirmation is 400 confirmation_required; confirmed, the account is gone and mailed',
     ['SERVER-6', 'SERVER-8'],
     account('tia') + [
         {'call': 'delete-account', 'token': 'tia.access', 'body': {},
          'expect': refused(400, 'confirmation_required')},
         {'call': 'delete-account', 'token': 'tia.access', 'body': {'confirmed': True}, 'expect': {'status': 200}},
         {'mail': {'to': addr('tia'), 'kind': 'accountDeleted'}},
         {'call': 'sessions', 'token': 'tia.access', 'expect': refused(401, 'invalid_session')},
         {'call': 'sign-in', 'body': {'email': addr('tia'), 'password': PASSWORD},
          'expect': refused(401, 'invalid_credentials')},
     ])
case('a sign-in nonce is issued; a provider the server does not know is 400 unknown_provider',
     ['SERVER-2', 'SERVER-6'],
     [{'call': 'sign-in-nonce', 'expect': {'status': 200, 'body': {'nonce': {'capture': 'nonce'}}}},
      {'call': 'provider-sign-in', 'body': {'provider': 'myspace', 'id_token': 'a.b.c', 'nonce': '$nonce'},
       'expect': refused(400, 'unknown_provider')}])
case('a password reset for an address with an account mails a token that sets a new password',
     ['SERVER-8', 'SERVER-2'],
     account('uma') + [
         {'call': 'request-reset', 'body': {'email': addr('uma')}, 'expect': {'status': 200, 'body': {}}},
         {'mail': {'to': addr('uma'), 'kind': 'passwordReset', 'capture': 'uma.reset'}},
         {'call': 'confirm-reset', 'body': {'token': '$uma.reset', 'new_password': 'a brand new passphrase'},
          'expect': {'status': 200}},
         {'mail': {'to': addr('uma'), 'kind': 'passwordChanged'}},
         {'call': 'sign-in', 'body': {'email': addr('uma'), 'password': 'a brand new passphrase'},
          'expect': {'status': 200, 'body': {'account': '$uma'}}},
     ])

# ---- SERVER-12: devices for pushes
case('a device needs a session: without one, register-device is 401 unauthenticated', ['SERVER-12', 'SERVER-3'],
     [{'call': 'register-device', 'body': {'token': 'abc123', 'time_zone': 'Europe/London'},
       'expect': refused(401, 'unauthenticated', headers={'WWW-Authenticate': 'Bearer'})}])
case('a device is registered and removed; removing a token the caller never registered is Done too',
     ['SERVER-12', 'REMIND-14'],
     account('zed') + [
         {'call': 'register-device', 'token': 'zed.access',
          'body': {'token': 'device-{run}', 'time_zone': 'Europe/London', 'quiet_start': 1320, 'quiet_end': 420},
          'expect': {'status': 200, 'body': {}}},
         # Registering again replaces, and is Done again.
         {'call': 'register-device', 'token': 'zed.access',
          'body': {'token': 'device-{run}', 'time_zone': 'Asia/Tokyo'}, 'expect': {'status': 200, 'body': {}}},
         {'call': 'remove-device', 'token': 'zed.access', 'body': {'token': 'device-{run}'},
          'expect': {'status': 200, 'body': {}}},
         {'call': 'remove-device', 'token': 'zed.access', 'body': {'token': 'never-registered-{run}'},
          'expect': {'status': 200, 'body': {}}},
     ])
# The attacker's flow: Cora learns Abe's token and asks to remove it. SERVER-12: the answer is
# the same Done a token of nobody's gets, so it tells Cora nothing, and Abe's device stays (which
# only the pushes show; a server's own tests check them).
case("removing someone else's device token answers Done and tells nothing", ['SERVER-12'],
     account('abe') + account('cora') + [
         {'call': 'register-device', 'token': 'abe.access', 'body': {'token': 'abe-phone-{run}', 'time_zone': 'UTC'},
          'expect': {'status': 200}},
         {'call': 'remove-device', 'token': 'cora.access', 'body': {'token': 'abe-phone-{run}'},
          'expect': {'status': 200, 'body': {}}},
     ])
case('a token with a space, an unknown zone and one quiet minute alone are refused', ['SERVER-12', 'REMIND-14'],
     account('dot') + [
         {'call': 'register-device', 'token': 'dot.access', 'body': {'token': 'a b', 'time_zone': 'UTC'},
          'expect': refused(400, 'invalid_reminder')},
         {'call': 'register-device', 'token': 'dot.access', 'body': {'token': '', 'time_zone': 'UTC'},
          'expect': refused(400, 'invalid_reminder')},
         {'call': 'register-device', 'token': 'dot.access', 'body': {'token': 'dot-{run}', 'time_zone': 'Mars/Olympus'},
          'expect': refused(400, 'invalid_time_zone')},
         {'call': 'register-device', 'token': 'dot.access',
          'body': {'token': 'dot-{run}', 'time_zone': 'UTC', 'quiet_start': 1320},
          'expect': refused(400, 'invalid_reminder')},
         {'call': 'register-device', 'token': 'dot.access',
          'body': {'token': 'dot-{run}', 'time_zone': 'UTC', 'quiet_start': 600, 'quiet_end': 600},
          'expect': refused(400, 'invalid_reminder')},
     ])

# SERVER-3: the token is judged as of the moment the call is served, by any process. A server of
# several processes plays each exchange on the next one, so the session is read by one process
# (its first sync), ended through another, and presented to a third: every call with it after the
# sign-out is 401 invalid_session, and the account's other session is untouched by it.
case("a session that synced, then signed out, is refused at once by whichever process serves it; "
     "the account's other session goes on", ['SERVER-3', 'SERVER-12'],
     account('lux') + [
         {'call': 'sign-in', 'body': {'email': addr('lux'), 'password': PASSWORD, 'device': 'tablet'},
          'expect': {'status': 200, 'body': {'access_token': {'capture': 'lux.tablet'}}}},
         {'call': 'relay', 'token': 'lux.access', 'body': {'changes_since': 0}, 'expect': {'status': 200}},
         {'call': 'relay', 'token': 'lux.access', 'body': {'changes_since': 0}, 'expect': {'status': 200}},
         {'call': 'relay', 'token': 'lux.tablet', 'body': {'changes_since': 0}, 'expect': {'status': 200}},
         {'call': 'sign-out', 'token': 'lux.access', 'expect': {'status': 200, 'body': {}}},
         {'call': 'relay', 'token': 'lux.access', 'body': {'changes_since': 0},
          'expect': refused(401, 'invalid_session', headers={'WWW-Authenticate': 'Bearer'})},
         {'call': 'relay', 'token': 'lux.access', 'body': {'submit': {'stances': [stance('$lux', 'a-friend-{run}', 1, 1000)]}},
          'expect': refused(401, 'invalid_session')},
         {'call': 'register-device', 'token': 'lux.access', 'body': {'token': 'lux-phone-{run}', 'time_zone': 'UTC'},
          'expect': refused(401, 'invalid_session')},
         {'call': 'relay', 'token': 'lux.tablet', 'body': {'changes_since': 0}, 'expect': {'status': 200}},
         {'call': 'register-device', 'token': 'lux.tablet', 'body': {'token': 'lux-tablet-{run}', 'time_zone': 'UTC'},
          'expect': {'status': 200, 'body': {}}},
     ])

# ---- SERVER-11 with AUTH-39: a /64 is one client for every per-client limit (issue 44)
case('sign-in guesses from rotating addresses inside one /64 are one client: the sixth failure is 429 '
     'throttled by AUTH-39\'s client count, as SERVER-11 makes a /64 one client', ['SERVER-11', 'SERVER-5'],
     [{'call': 'sign-in', 'body': {'email': addr('guess%d' % index), 'password': 'not the password at all'},
       'headers': {'X-Forwarded-For': '{client}%x' % (index + 2)},
       'expect': refused(401, 'invalid_credentials')} for index in range(5)] + [
         {'call': 'sign-in', 'body': {'email': addr('guess5'), 'password': 'not the password at all'},
          'headers': {'X-Forwarded-For': '{client}ffff'},
          'expect': refused(429, 'throttled', error={'rule': 'AUTH-39'})},
     ])

case('a flood of wrong passwords at one sign-up is counted before hashing: the sixth try is 429 throttled '
     'by AUTH-36\'s count, whatever its password', ['SERVER-5', 'SERVER-6'],
     [{'call': 'sign-up', 'body': {'email': addr('flood'), 'password': PASSWORD}, 'expect': {'status': 200}},
      {'mail': {'to': addr('flood'), 'kind': 'confirmSignUp', 'capture': 'flood.signup'}}] + [
         {'call': 'confirm-sign-up', 'body': {'token': '$flood.signup', 'password': 'not the password at all'},
          'expect': refused(401, 'invalid_credentials')}] * 5 + [
         {'call': 'confirm-sign-up', 'body': {'token': '$flood.signup', 'password': PASSWORD},
          'expect': refused(429, 'throttled', headers={'Retry-After': '1'}, error={'rule': 'AUTH-39'})},
     ])

case('a call name is compared on the raw path: a percent-escape is not the letter it stands for, and an '
     'escaped NUL does not end the name', ['SERVER-1', 'SERVER-4'],
     [{'path': '/v1/%68ealth', 'method': 'GET', 'expect': refused(404, 'unknown_call')},
      {'path': '/v1/sign-in%00', 'expect': refused(404, 'unknown_call')},
      {'call': 'health', 'expect': {'status': 200}}])

write_cases('server', 'exchanges.json', 'server.exchanges',
            'Scripts of HTTP exchanges against a running server (Spec/server.md 9.6).', cases, 'server')
