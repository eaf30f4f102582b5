"""Section 7.5 of the spec (Spec/auth.md): the account service (AUTH-35 ... AUTH-51), and the
corpus operation `auth.accounts` (Spec/corpus/auth/accounts.json) that runs scripts against it.

Written from the spec text alone, with the standard library only:

- records and secrets (AUTH-35): accounts (an id, an address or none and whether it is proven, a
  password hash or none, a credential epoch), provider identities, session families, reset tokens,
  waiting sign-ups, throttling counters and mail counters, in memory; every change is one
  transaction in that each operation checks everything that can fail before it changes anything
  (and, the service being single-threaded, no two operations interleave). Passwords are kept only
  as AUTH-14 PHC strings (`auth.hash_password`, Argon2id of `argon2.py`), and every token only as
  the lowercase hexadecimal SHA-256 of its text;
- addresses and sign-up (AUTH-36): the address rules, ASCII-lower-case comparison, the password
  policy with the address as context, then the mail limits, then the service's bound on everyone's
  sign-ups together (1,000, or as the service is set, in a fixed window of 3,600 s that starts at
  the first it counts; beyond it `sign_ups_full` with the seconds until the window ends, rounded
  up, counted neither there nor under the mail limits), the same answer for an address held
  proven (an `alreadyRegistered` mail) as for any other (a sign-up waiting 86,400 s and a
  `confirmSignUp` mail), at most 3 waiting sign-ups per address; confirmation with the sign-up's
  password, checked in the order token, expiry, password (AUTH-16), address, making the account
  with its address proven;
- tokens (AUTH-37): 256 bits of `secrets`, 43 base64url characters;
- sessions (AUTH-38): families with 900-second access tokens capped by the family's end 30 days
  after the sign-in, rotating refresh tokens, reuse of one of the last 64 used refresh tokens
  ending the family, a family unused (no sign-in or refresh) for 14 days ending at its next
  refresh, sign-out;
- sign-in and throttling (AUTH-39): one `invalid_credentials` for every failure, with the same
  Argon2id work (a dummy hash of the same parameters when there is no hash to check); a sign-in
  that passes the throttle counts as a failure under the address and the client before its
  password is checked, and a success clears the address's key and takes its own failure back
  from the client's; waits of min(2^(f-5), 900) seconds, forgotten after a day, rehashing as
  AUTH-17 asks; every sign-in by password that no wait throttles also counts under the client's
  key alone, whatever its outcome: at most 120 in a fixed window of 600 s that starts at the first
  it counts, beyond that `throttled` with the seconds until the window ends, nothing checked or
  counted (no failure either);
- reset and change (AUTH-40), step-up (AUTH-41) and deletion (AUTH-42);
- ID-token sign-in for the configured providers only (AUTH-35), verified by `idtoken.py`
  (AUTH-22 ... AUTH-34), and proven addresses (AUTH-44): which account an identity signs in to,
  the proof taking an address from an account that holds it unproven, resets, collisions and
  mails about an account for proven addresses only;
- mail limits (AUTH-45): 5 requests an address and 20 a client in fixed windows of 3,600 s;
- sign-in nonces (AUTH-46): at most 30 issued to a client's key in a fixed window of 600 s
  (beyond that `throttled`, nothing issued or counted); issued as tokens of AUTH-37, kept by
  digest for 600 s; an ID-token
  sign-in needs one (`nonce_invalid` when absent, after the provider is found and before the token
  is read), the token's verification compares it (AUTH-32), then it must be issued, unused and
  unexpired (`nonce_invalid`), and only a successful sign-in uses it up. Replay is refused by the
  nonce alone: nothing here remembers tokens;
- a person's sessions (AUTH-47): a device named at sign-in (at most 64 bytes of UTF-8, no control
  character, checked first: `invalid_device`), each family's opaque id (128 random bits as 32
  lowercase hexadecimal digits, nothing to do with its tokens), its sign-in and last use; listing
  the live families of the caller's account in the order sign-in time, device (none first, then
  UTF-8 bytes), id; revoking one by id (`session_not_found` for any id that is not a live family
  of the caller's account); signing out everywhere; at most 64 live families an account (not
  ended, within their 30 days and used in the last 14), a sign-in that would make 65 ending the
  live family used longest ago (last use, then sign-in time, then opaque id as UTF-8 bytes);
- sign-in methods (AUTH-48): listing whether there is a password and the providers of the linked
  identities (each once, in the byte order of their ids); linking an identity (access token,
  step-up, then the checks of an ID-token sign-in in their order; `identity_in_use` for another
  account's, nothing changed and the nonce kept for one already the account's, the nonce used up
  by a link only); unlinking a provider's identities (step-up, `identity_not_found`); removing
  the password (a valid access token only, as the rule asks step-up of linking and unlinking
  alone; the epoch rises); `last_sign_in_method` for an unlinking or removal that would leave no
  way to sign in;
- changing the address (AUTH-49): a request checked in the order access token, step-up, the
  text, `email_unchanged`, the mail limits, answered as a sign-up is (`alreadyRegistered` for an
  address another account holds proven, else a `confirmEmailChange` mail whose token waits
  86,400 s); a confirmation with that token and an access token of the same account
  (`email_change_invalid` otherwise, or when an account has proven the address since), taking the
  address proven, ending the account's other waiting changes, killing its reset tokens and
  mailing the old proven address `emailChanged` with an undo token of 604,800 s; the undo, with no
  session, giving the old address back proven (the replaced one freed), ending every family of
  the account and killing its reset tokens;
- a second factor (AUTH-51), with the codes of `totp.py` (AUTH-50): enrolling (access token,
  step-up, `second_factor_enrolled`; a new 20-byte secret replacing a pending one, shown in base32
  with its `otpauth://` URI, issuer and address each percent-encoded), confirming it with a code of
  the new secret (access token, `no_second_factor` without a pending enrollment, then the
  account's key throttled and counted as a reauthentication's is, cleared by a success, which is
  also the family's proof with a code) and 10 recovery codes kept as the SHA-256 of their
  canonical form (no `-` or spaces, ASCII lower case); a code accepted at steps T - 1, T, T + 1
  only past the last step accepted with the account's current secret (the latest step it matched
  then becoming that; a new secret, pending or after turning the factor off, starts afresh), or
  as an unused recovery code, which it uses up; at password sign-in after the password
  (`second_factor_required`, `invalid_second_factor`, counted as the sign-in's one failure); in
  reauthentication after the password, or alone for an account without one; step-up asking, of
  an account with a second factor, for a proof with a code; turning it off and new recovery codes
  (access token, step-up, `no_second_factor`). Provider sign-ins ask for no code (and so prove
  nothing to step-up on such an account).

The revocation queue of AUTH-42 and AUTH-48 has nothing to hold here: no provider refresh token
is ever given to this service.

The script runner (`accounts_operation`) is the outside world: a mailbox holding every mail sent
(the only place a token's text is kept), the sessions the script names, and the labels A1, A2, ...
of the accounts in the order the script first meets them.
"""
import base64
import collections
import hashlib
import hmac
import math
import secrets
import unicodedata

from . import auth, idtoken, totp
from .errors import Failure

SIGNUP_LIFETIME = 86_400          # AUTH-36, seconds
MAX_WAITING_SIGNUPS = 3           # AUTH-36, per address
ACCESS_LIFETIME = 900             # AUTH-38
FAMILY_LIFETIME = 2_592_000       # AUTH-38: 30 days
INACTIVITY_LIMIT = 1_209_600      # AUTH-38: a family unused for 14 days ends
NONCE_LIFETIME = 600              # AUTH-46, seconds
NONCE_WINDOW = 600                # AUTH-46: a client's nonce window, seconds
NONCES_PER_CLIENT = 30            # AUTH-46, a window
MAX_DEVICE_BYTES = 64             # AUTH-47
FAMILY_ID_BYTES = 16              # AUTH-47: 32 lowercase hexadecimal digits
MAX_LIVE_FAMILIES = 64            # AUTH-47: an account's live families at most
USED_REFRESH_KEPT = 64            # AUTH-38: a used refresh token among the last 64 is a reuse
FREE_FAILURES = 5                 # AUTH-39: w = 0 for f < 5
MAX_WAIT = 900                    # AUTH-39: 15 minutes
FORGET_AFTER = 86_400             # AUTH-39
SIGN_IN_WINDOW = 600              # AUTH-39: a client's window of sign-ins by password, seconds
SIGN_INS_PER_CLIENT = 120         # AUTH-39, a window
RESET_LIFETIME = 3_600            # AUTH-40
EMAIL_CHANGE_LIFETIME = 86_400    # AUTH-49: a change waits a day for its confirmation
UNDO_LIFETIME = 604_800           # AUTH-49: the old address may undo it for 7 days
STEP_UP_WINDOW = 300              # AUTH-41
MAIL_WINDOW = 3_600               # AUTH-45, seconds
MAILS_PER_ADDRESS = 5             # AUTH-45, a window
MAILS_PER_CLIENT = 20             # AUTH-45, a window
SIGN_UP_WINDOW = 3_600            # AUTH-36: the window of everyone's sign-ups together, seconds
SIGN_UPS_PER_WINDOW = 1_000       # AUTH-36, a window, unless the service is set otherwise
TOKEN_BYTES = 32                  # AUTH-37: 256 bits
ISSUER = 'Glow Ritual'            # AUTH-51: the service's name unless configured
RECOVERY_CODES = 10               # AUTH-51: a set of recovery codes
RECOVERY_CODE_BYTES = 10          # AUTH-51: 80 random bits, 16 base32 characters
CODE_WINDOW = (-1, 0, 1)          # AUTH-51: the steps T - 1, T and T + 1
START_TIME = 1_796_083_200        # the corpus's clock at the start of every script

MIN_ADDRESS_BYTES, MAX_ADDRESS_BYTES = 3, 254     # AUTH-36
MAX_LOCAL_BYTES = 64                              # AUTH-36

# The mails of the service (AUTH-36, AUTH-40, AUTH-42).
ALREADY_REGISTERED, CONFIRM_SIGNUP = 'alreadyRegistered', 'confirmSignUp'
PASSWORD_RESET, PASSWORD_CHANGED, ACCOUNT_DELETED = 'passwordReset', 'passwordChanged', 'accountDeleted'
CONFIRM_EMAIL_CHANGE, EMAIL_CHANGED = 'confirmEmailChange', 'emailChanged'         # AUTH-49


class MustWait(Failure):
    """An error that gives a wait: the whole seconds to wait, rounded up (`retryAfter`)."""

    def __init__(self, code, retry_after):
        super().__init__(code, f'try again in {retry_after} seconds')
        self.retry_after = retry_after


class Throttled(MustWait):
    """AUTH-39, AUTH-45, AUTH-46: `throttled`, with the seconds to wait, rounded up."""

    def __init__(self, retry_after):
        super().__init__('throttled', retry_after)


class SignUpsFull(MustWait):
    """AUTH-36: `sign_ups_full` (507), the service's bound on everyone's sign-ups reached, with the
    seconds until its window ends, rounded up."""

    def __init__(self, retry_after):
        super().__init__('sign_ups_full', retry_after)


# ---- Tokens (AUTH-35, AUTH-37)

def new_token():
    """AUTH-37: 256 bits from the system's secure generator, as 43 base64url characters."""
    return base64.urlsafe_b64encode(secrets.token_bytes(TOKEN_BYTES)).rstrip(b'=').decode('ascii')


def new_family_id():
    """AUTH-47: a family's opaque id, random and unrelated to its tokens."""
    return secrets.token_hex(FAMILY_ID_BYTES)


def check_device(device):
    """AUTH-47: the device named at a sign-in: none, or text of at most 64 bytes of UTF-8 with no
    control character (U+0000 ... U+001F, U+007F), else `invalid_device`."""
    if device is None:
        return None
    if not isinstance(device, str):
        raise Failure('invalid_device', 'a device is named by text')
    try:
        data = device.encode('utf-8')
    except UnicodeEncodeError:                   # a lone surrogate is not UTF-8
        raise Failure('invalid_device', 'a device name is UTF-8 text') from None
    if len(data) > MAX_DEVICE_BYTES:
        raise Failure('invalid_device', f'a device name is at most {MAX_DEVICE_BYTES} bytes')
    if any(byte <= 0x1F or byte == 0x7F for byte in data):
        raise Failure('invalid_device', 'a device name has no control character')
    return device


def token_digest(token):
    """AUTH-35: a token is kept only as the lowercase hexadecimal SHA-256 of its text."""
    if not isinstance(token, str):
        token = ''
    return hashlib.sha256(token.encode('utf-8', 'surrogatepass')).hexdigest()


# ---- A second factor (AUTH-50, AUTH-51)

_UNRESERVED = frozenset(b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')


def percent_encode(text):
    """AUTH-51: every byte of the UTF-8 but RFC 3986's unreserved ones as `%` and two upper-case
    hexadecimal digits."""
    return ''.join(chr(byte) if byte in _UNRESERVED else '%%%02X' % byte for byte in text.encode('utf-8'))


def otpauth_uri(secret, issuer, email):
    """AUTH-51: the URI of an enrollment's secret (its base32 text): LABEL is the issuer, `:` and
    the address (the issuer alone without one), each percent-encoded."""
    label = percent_encode(issuer) + (':' + percent_encode(email) if email is not None else '')
    return ('otpauth://totp/' + label + '?secret=' + secret + '&issuer=' + percent_encode(issuer)
            + '&algorithm=SHA1&digits=6&period=30')


def new_recovery_code():
    """AUTH-51: 80 random bits as 16 lower-case base32 characters, four groups of four joined by `-`."""
    text = totp.encode_secret(secrets.token_bytes(RECOVERY_CODE_BYTES)).lower()
    return '-'.join(text[i:i + 4] for i in range(0, 16, 4))


def recovery_digest(code):
    """AUTH-51: a recovery code is kept, and compared, as the SHA-256 (lowercase hex) of its
    canonical form: `-` and spaces removed, ASCII letters in lower case."""
    canonical = auth.ascii_lower(code.replace('-', '').replace(' ', ''))
    return hashlib.sha256(canonical.encode('utf-8', 'surrogatepass')).hexdigest()


# ---- Addresses (AUTH-36)

def is_address(text):
    """AUTH-36: 3 to 254 bytes of UTF-8 with exactly one `@`, 1 to 64 bytes before it and at least
    one after it, and no byte 0x00 ... 0x20 or 0x7F."""
    if not isinstance(text, str):
        return False
    try:
        data = text.encode('utf-8')
    except UnicodeEncodeError:                   # a lone surrogate is not UTF-8
        return False
    if not MIN_ADDRESS_BYTES <= len(data) <= MAX_ADDRESS_BYTES or data.count(b'@') != 1:
        return False
    if any(byte <= 0x20 or byte == 0x7F for byte in data):
        return False
    local, _, domain = data.partition(b'@')
    return 1 <= len(local) <= MAX_LOCAL_BYTES and len(domain) >= 1


def address_key(text):
    """AUTH-36: addresses are compared with the ASCII letters A-Z in lower case (and nothing else)."""
    return auth.ascii_lower(text) if isinstance(text, str) else ''


def require_address(text):
    if not is_address(text):
        raise Failure('invalid_email', 'not an address')
    return text


# ---- Records (AUTH-35)

class Account:
    def __init__(self, number, email, proven, password_hash):
        self.id = number
        self.email = email                       # as it was given (sign-up, ID token), or None
        self.proven = proven                     # AUTH-44: whether it holds its address proven
        self.password_hash = password_hash       # an AUTH-14 PHC string, or None
        self.epoch = 0                           # the credential epoch (AUTH-40)
        self.totp_key = None                     # AUTH-51: the second factor's secret (bytes), or None
        self.pending_key = None                  # AUTH-51: the secret of an enrollment not yet confirmed
        self.recovery = set()                    # AUTH-51: SHA-256 hex of each unused recovery code
        self.last_step = None                    # AUTH-51: the last step of a code accepted with its
                                                 # current (or pending) secret; a new secret starts afresh


class Family:
    """AUTH-38: a session family. Its tokens are kept by digest only."""

    def __init__(self, number, account, now, device=None):
        self.id = number
        self.public_id = new_family_id()         # AUTH-47: the same for the family's whole life
        self.account = account
        self.device = device                     # AUTH-47: named at its sign-in, or None
        self.signed_in_at = now
        self.last_used = now                     # AUTH-38: its sign-in or its last refresh
        self.ends_at = now + FAMILY_LIFETIME
        self.proof_at = now                      # AUTH-41: the sign-in, or the last reauthentication
        self.code_proof_at = None                # AUTH-51: the last of those (or a confirmation) with a code
        self.access = set()                      # digests of its access tokens
        self.current_refresh = None              # digest of its current refresh token
        self.used_refresh = collections.deque()  # digests of its last 64 used refresh tokens

    def live(self, now):
        """AUTH-38: before its 30 days end and used within the last 14 days."""
        return now < self.ends_at and now < self.last_used + INACTIVITY_LIMIT


class SignUp:
    def __init__(self, email, password_hash, expires_at):
        self.email, self.key = email, address_key(email)
        self.password_hash = password_hash
        self.expires_at = expires_at
        self.ended = False                       # used, dropped, or ended by a confirmation


class ResetToken:
    def __init__(self, account, epoch, expires_at):
        self.account, self.epoch, self.expires_at = account, epoch, expires_at
        self.used = False


class EmailChange:
    """AUTH-49: a change of an account's address waiting for its confirmation (`email` the new
    address), or an undo of a confirmed one (`email` the old address)."""

    def __init__(self, account, email, expires_at):
        self.account, self.email, self.expires_at = account, email, expires_at
        self.ended = False                       # used, or ended by another change's confirmation


class AccountService:
    """The account service of section 7.5 over an in-memory store. `clock()` gives the time in
    seconds since 1970, `send(address, kind, token)` mails, `erase(account_id)` erases a person's
    data (AUTH-42: returns False or raises when it fails), `hashing` holds the Argon2id parameters
    of new hashes (`m`, `t`, `p`; AUTH-12's when absent), also the current ones of AUTH-17.
    `nonce_source()` gives the text of each sign-in nonce (AUTH-37's generator when absent).
    `providers` maps the name of each provider the service offers (AUTH-35) to its
    (`idtoken.Verifier`, `idtoken.KeySetCache`). `secret_source()` gives the bytes of each new
    second-factor secret (20 from the secure generator when absent), `issuer` the service's name
    in the URIs of enrollments (AUTH-51). `sign_ups_per_window` is the bound on everyone's
    sign-ups together in a window of 3,600 s (AUTH-36: 1,000 unless set otherwise)."""

    def __init__(self, clock, send, erase=lambda account_id: True, hashing=None, providers=None,
                 nonce_source=None, secret_source=None, issuer=ISSUER,
                 sign_ups_per_window=SIGN_UPS_PER_WINDOW):
        if (isinstance(sign_ups_per_window, bool) or not isinstance(sign_ups_per_window, int)
                or sign_ups_per_window < 1):
            raise Failure('invalid_input', 'the bound on sign-ups is a whole number, at least 1')
        self.sign_ups_per_window = sign_ups_per_window
        self.clock, self.send, self.erase = clock, send, erase
        self.nonce_source = nonce_source or new_token     # AUTH-46: a token of AUTH-37
        self.secret_source = secret_source or (lambda: secrets.token_bytes(totp.SECRET_BYTES))   # AUTH-50
        self.issuer = issuer
        self.providers = dict(providers or {})
        params = dict(auth.OWASP)
        params.update(hashing or {})
        for key in ('m', 't', 'p'):
            value = params[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise Failure('invalid_hash_parameters', f'{key} must be an integer, not {value!r}')
        problem = auth.parameter_problem(params['m'], params['t'], params['p'],
                                         auth.NEW_SALT_BYTES, auth.NEW_TAG_BYTES)
        if problem is not None:
            raise Failure('invalid_hash_parameters', problem)
        self.hashing = {key: params[key] for key in ('m', 't', 'p')}
        # AUTH-39: the hash checked when there is none to check, of the same parameters, so a
        # sign-in does the same Argon2id work whether or not the address has an account.
        self.dummy = auth.StoredHash(self.hashing['m'], self.hashing['t'], self.hashing['p'],
                                     secrets.token_bytes(auth.NEW_SALT_BYTES),
                                     secrets.token_bytes(auth.NEW_TAG_BYTES))
        self.accounts = {}                       # id -> Account
        self.by_address = {}                     # address key -> the one account holding it
        self.identities = {}                     # (provider, subject) -> account id (AUTH-35)
        self.families = {}                       # id -> Family
        self.family_ids = {}                     # opaque id (AUTH-47) -> id
        self.nonces = {}                         # digest -> expiry of an issued, unused nonce (AUTH-46)
        self.access_tokens = {}                  # digest -> (family id, expires at)
        self.refresh_tokens = {}                 # digest -> family id (current and used)
        self.signups = {}                        # digest -> SignUp
        self.waiting = collections.defaultdict(list)   # address key -> digests, oldest first
        self.resets = {}                         # digest -> ResetToken
        self.email_changes = {}                  # digest -> EmailChange waiting (AUTH-49)
        self.undos = {}                          # digest -> EmailChange that undoes one (AUTH-49)
        self.failures = {}                       # throttling key -> [failures, time of the last]
        self.mail_counts = {}                    # mail-limit key -> [requests, start of the window]
        self.nonce_counts = {}                   # client key -> [nonces issued, start of the window] (AUTH-46)
        self.sign_in_counts = {}                 # client key -> [sign-ins by password, start of the window] (AUTH-39)
        self.sign_up_count = None                # [everyone's sign-ups, start of the window] (AUTH-36)
        self._next_account = 1
        self._next_family = 1

    # -- hashing (AUTH-12, AUTH-16, AUTH-17)

    def _hash(self, normalized):
        return auth.hash_password(normalized, **self.hashing)

    def _check_password(self, password, account):
        """AUTH-16 against the account's hash, or the same work against the dummy hash when there
        is no account or no password; returns whether it matched, and rehashes as AUTH-17 asks."""
        stored = None
        if account is not None and account.password_hash is not None:
            stored = auth.parse_hash(account.password_hash)
        match, rehash = auth.verify(password if isinstance(password, str) else None,
                                    stored or self.dummy, self.hashing)
        if stored is None:
            return False
        if match and rehash:
            account.password_hash = self._hash(unicodedata.normalize('NFKC', password))
        return match

    # -- throttling (AUTH-39)

    def _count(self, key, now):
        entry = self.failures.get(key)
        if entry is not None and now - entry[1] >= FORGET_AFTER:      # forgotten after a day
            del self.failures[key]
            entry = None
        return entry

    def _wait(self, key, now):
        """The seconds `key` still waits at `now` (0 when it does not)."""
        entry = self._count(key, now)
        if entry is None or entry[0] < FREE_FAILURES:
            return 0
        failures, last = entry
        wait = min(2 ** min(failures - FREE_FAILURES, 10), MAX_WAIT)   # 2^10 > 900: capped anyway
        return max(0, last + wait - now)

    def _throttle(self, keys, now):
        """A sign-in while any of its keys waits is `throttled`, neither checked nor counted."""
        remaining = max(self._wait(key, now) for key in keys)
        if remaining > 0:
            raise Throttled(math.ceil(remaining))

    def _fail(self, keys, now):
        for key in keys:
            entry = self._count(key, now)
            self.failures[key] = [(entry[0] if entry else 0) + 1, now]

    def _sign_in_window(self, client, now):
        """AUTH-39: a sign-in by password that no wait throttles counts under the client's key
        alone, whatever its outcome: at most 120 in a window of 600 s that starts at the first it
        counts. Beyond that `throttled` with the seconds until the window ends, rounded up, and
        nothing checked or counted (no failure either), so this runs before `_fail`."""
        entry = self.sign_in_counts.get(client)
        if entry is not None and now >= entry[1] + SIGN_IN_WINDOW:       # that window has ended
            del self.sign_in_counts[client]
            entry = None
        if entry is not None and entry[0] >= SIGN_INS_PER_CLIENT:
            raise Throttled(math.ceil(entry[1] + SIGN_IN_WINDOW - now))
        self.sign_in_counts.setdefault(client, [0, now])[0] += 1

    def _clear(self, keys):
        for key in keys:
            self.failures.pop(key, None)

    def _take_back(self, key):
        """AUTH-39: a successful sign-in takes its own failure back from the client's key; the
        time of the last failure stays this sign-in's."""
        entry = self.failures.get(key)
        if entry is not None:
            entry[0] -= 1
            if entry[0] <= 0:
                del self.failures[key]

    # -- mail limits (AUTH-45)

    def _mail_limit(self, email, client, now):
        """AUTH-45: a request that may send mail counts under its address (5 a window) and its
        client's key (20 a window); a window of 3,600 s starts at the first request it counts. A
        request beyond either allowance is `throttled` with the seconds until that window ends
        (the longer when both are full) and counts under neither key."""
        self._count_mails(self._check_mail_limit(email, client, now), now)

    def _check_mail_limit(self, email, client, now):
        """AUTH-45's check alone: `throttled` as `_mail_limit` says, else the keys to count."""
        limits = ((('address', address_key(email)), MAILS_PER_ADDRESS),
                  (('client', str(client)), MAILS_PER_CLIENT))
        waits = []
        for key, allowance in limits:
            entry = self.mail_counts.get(key)
            if entry is not None and now >= entry[1] + MAIL_WINDOW:        # that window has ended
                del self.mail_counts[key]
                entry = None
            if entry is not None and entry[0] >= allowance:
                waits.append(entry[1] + MAIL_WINDOW - now)
        if waits:
            raise Throttled(math.ceil(max(waits)))
        return [key for key, _ in limits]

    def _count_mails(self, keys, now):
        for key in keys:
            entry = self.mail_counts.setdefault(key, [0, now])
            entry[0] += 1

    # -- everyone's sign-ups (AUTH-36)

    def _check_sign_up_bound(self, now):
        """AUTH-36: at most `sign_ups_per_window` sign-ups from everyone together in a window of
        3,600 s that starts at the first it counts; past it `sign_ups_full` with the seconds until
        the window ends, rounded up, and nothing counted."""
        entry = self.sign_up_count
        if entry is not None and now >= entry[1] + SIGN_UP_WINDOW:       # that window has ended
            self.sign_up_count = entry = None
        if entry is not None and entry[0] >= self.sign_ups_per_window:
            raise SignUpsFull(math.ceil(entry[1] + SIGN_UP_WINDOW - now))

    def _count_sign_up(self, now):
        if self.sign_up_count is None:
            self.sign_up_count = [0, now]
        self.sign_up_count[0] += 1

    # -- addresses (AUTH-44)

    def _holder(self, email):
        """The account holding an address (proven or not), or None."""
        number = self.by_address.get(address_key(email)) if isinstance(email, str) else None
        return self.accounts.get(number) if number is not None else None

    def _proven_holder(self, email):
        holder = self._holder(email)
        return holder if holder is not None and holder.proven else None

    def _new_account(self, email, proven, password_hash):
        """A new account; an address it holds proven is taken from an account that held it
        unproven (AUTH-44: the proof wins; the other keeps its identities, password and sessions)."""
        if email is not None:
            other = self._holder(email)
            if other is not None:
                other.email, other.proven = None, False
        account = Account(self._next_account, email, proven and email is not None, password_hash)
        self._next_account += 1
        self.accounts[account.id] = account
        if email is not None:
            self.by_address[address_key(email)] = account.id
        return account

    def _mail_account(self, account, kind):
        """AUTH-44: mail about an account goes only to an address it holds proven."""
        if account.email is not None and account.proven:
            self.send(account.email, kind, None)

    # -- sessions (AUTH-38)

    def _issue(self, family, now):
        """A new access token and refresh token of a family; the access token's life is capped by
        the family's end."""
        access, refresh = new_token(), new_token()
        access_digest, refresh_digest = token_digest(access), token_digest(refresh)
        self.access_tokens[access_digest] = (family.id, min(now + ACCESS_LIFETIME, family.ends_at))
        family.access.add(access_digest)
        self.refresh_tokens[refresh_digest] = family.id
        family.current_refresh = refresh_digest
        return access, refresh

    def _start_family(self, account, now, device=None, with_code=False):
        """AUTH-38: a sign-in's new family: the account, the tokens and the family's opaque id.
        `with_code`: the sign-in presented a second factor's code (AUTH-51). AUTH-47: an account
        holds at most 64 live families, so a sign-in that would make it 65 first ends the live
        family used longest ago (its sign-in or last refresh; on a tie the earlier sign-in, then
        the smaller opaque id as UTF-8 bytes)."""
        live = self._live_families(account.id, now)
        while len(live) >= MAX_LIVE_FAMILIES:
            oldest = min(live, key=lambda f: (f.last_used, f.signed_in_at, f.public_id.encode('utf-8')))
            self._end_family(oldest)
            live.remove(oldest)
        family = Family(self._next_family, account.id, now, device)
        if with_code:
            family.code_proof_at = now
        self._next_family += 1
        self.families[family.id] = family
        self.family_ids[family.public_id] = family.id
        access, refresh = self._issue(family, now)
        return account.id, access, refresh, family.public_id

    def _end_family(self, family):
        for digest in family.access:
            self.access_tokens.pop(digest, None)
        for digest in list(family.used_refresh) + [family.current_refresh]:
            self.refresh_tokens.pop(digest, None)
        self.families.pop(family.id, None)
        self.family_ids.pop(family.public_id, None)

    def _session(self, access_token, now, expired_ok=False):
        """AUTH-38: the live family of an access token: `invalid_session` when it belongs to none,
        `session_expired` when past its 900 seconds (or its family's end)."""
        entry = self.access_tokens.get(token_digest(access_token))
        family = self.families.get(entry[0]) if entry else None
        if family is None:
            raise Failure('invalid_session', 'the access token belongs to no live session')
        if not expired_ok and now >= entry[1]:
            raise Failure('session_expired', 'the access token has expired')
        return family

    def _step_up(self, family, now):
        """AUTH-41: a proof of presence no older than 300 seconds; for an account with a second
        factor, one that included a code (AUTH-51)."""
        account = self.accounts[family.account]
        proof = family.code_proof_at if account.totp_key is not None else family.proof_at
        if proof is None or now - proof > STEP_UP_WINDOW:
            raise Failure('reauthentication_required', 'sign in again to do this')

    # -- a second factor (AUTH-50, AUTH-51)

    def _accept_code(self, account, key, code, now, recovery=True):
        """AUTH-51: whether `code` is the code of `key` at step T - 1, T or T + 1 for a step later
        than the last one accepted with the account's current secret (which it then becomes: the
        latest such step the code is, so it works once), or, with `recovery`, one of the account's unused recovery codes
        (which it uses up)."""
        if not isinstance(code, str):
            return False
        current = totp.step(now)
        if len(code) == totp.SERVICE_DIGITS and code.isascii() and code.isdigit():
            matched = None
            for delta in CODE_WINDOW:
                candidate = current + delta
                if candidate < 0 or (account.last_step is not None and candidate <= account.last_step):
                    continue
                if hmac.compare_digest(totp.hotp(key, candidate).encode('ascii'), code.encode('ascii')):
                    matched = candidate
            if matched is not None:
                account.last_step = matched
                return True
        if recovery:
            digest = recovery_digest(code)
            if digest in account.recovery:
                account.recovery.discard(digest)
                return True
        return False

    def _second_factor(self, account, code, now):
        """AUTH-51: with a second factor, a missing code is `second_factor_required` and one not
        accepted `invalid_second_factor`. Whether a code was checked and accepted."""
        if account.totp_key is None:
            return False                          # nothing to ask; a code given is not looked at
        if code is None:
            raise Failure('second_factor_required', 'this account asks for a code too')
        if not self._accept_code(account, account.totp_key, code, now):
            raise Failure('invalid_second_factor', 'not a code of this account')
        return True

    def _new_recovery_codes(self, account):
        codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
        account.recovery = {recovery_digest(code) for code in codes}
        return codes

    def begin_second_factor(self, access_token):
        """The access token, step-up, then `second_factor_enrolled`; a new secret replaces any
        pending one. Its base32 text and its URI."""
        now = self.clock()
        family = self._session(access_token, now)
        self._step_up(family, now)
        account = self.accounts[family.account]
        if account.totp_key is not None:
            raise Failure('second_factor_enrolled', 'this account has a second factor already')
        account.pending_key = self.secret_source()
        account.last_step = None                  # AUTH-51: a new secret starts afresh
        secret = totp.encode_secret(account.pending_key)
        return secret, otpauth_uri(secret, self.issuer, account.email)

    def confirm_second_factor(self, access_token, code):
        """The access token, a pending enrollment (`no_second_factor`), then the account's key
        throttled and counted (AUTH-41) before a code of the new secret is checked (a missing one
        is as wrong as any). The account then has the second factor and 10 recovery codes, the key
        is cleared, and the confirmation is the family's proof with a code."""
        now = self.clock()
        family = self._session(access_token, now)
        account = self.accounts[family.account]
        if account.pending_key is None:
            raise Failure('no_second_factor', 'no enrollment is waiting for its confirmation')
        keys = (('account', account.id),)
        self._throttle(keys, now)
        self._fail(keys, now)
        if not self._accept_code(account, account.pending_key, code, now, recovery=False):
            raise Failure('invalid_second_factor', 'not a code of the new secret')
        self._clear(keys)
        account.totp_key, account.pending_key = account.pending_key, None
        family.proof_at = family.code_proof_at = now
        return self._new_recovery_codes(account)

    def _enrolled_account(self, access_token):
        """The access token, step-up, then `no_second_factor`: the account, which has a second factor."""
        now = self.clock()
        family = self._session(access_token, now)
        self._step_up(family, now)
        account = self.accounts[family.account]
        if account.totp_key is None:
            raise Failure('no_second_factor', 'this account has no second factor')
        return account

    def disable_second_factor(self, access_token):
        """The access token, step-up, then `no_second_factor`; the secret and recovery codes go."""
        account = self._enrolled_account(access_token)
        account.totp_key, account.pending_key, account.recovery = None, None, set()
        account.last_step = None                  # AUTH-51: steps used count only with that secret

    def new_recovery_codes(self, access_token):
        """The access token, step-up, then `no_second_factor`; 10 new codes replace the old."""
        return self._new_recovery_codes(self._enrolled_account(access_token))

    # -- sign-up (AUTH-36)

    def sign_up(self, email, password, client):
        now = self.clock()
        require_address(email)
        normalized = auth.check(password, auth.DEFAULT_MINIMUM, email)     # 7.1, AUTH-8 context
        mail_keys = self._check_mail_limit(email, client, now)            # AUTH-45
        self._check_sign_up_bound(now)             # AUTH-36: everyone's sign-ups, nothing counted past it
        self._count_mails(mail_keys, now)
        self._count_sign_up(now)                   # every sign-up counts, registered address or not
        password_hash = self._hash(normalized)       # the same work whether or not it is registered
        key = address_key(email)
        if self._proven_holder(email) is not None:                        # AUTH-44: proven only
            self.send(email, ALREADY_REGISTERED, None)
            return
        waiting = [d for d in self.waiting[key]
                   if not self.signups[d].ended and now < self.signups[d].expires_at]
        while len(waiting) >= MAX_WAITING_SIGNUPS:                         # a fourth drops the oldest
            self.signups[waiting.pop(0)].ended = True
        token = new_token()
        digest = token_digest(token)
        self.signups[digest] = SignUp(email, password_hash, now + SIGNUP_LIFETIME)
        self.waiting[key] = waiting + [digest]
        self.send(email, CONFIRM_SIGNUP, token)

    def confirm_sign_up(self, token, password, device=None):
        """AUTH-36: checked in the order the token, its expiry, the sign-up's throttle (each try
        counts under the sign-up before the password, as AUTH-39's keys do), the password (AUTH-16
        against the sign-up's hash; a wrong one leaves the token usable), the address (proven
        since); the device first of all (AUTH-47)."""
        device = check_device(device)
        now = self.clock()
        signup = self.signups.get(token_digest(token))
        if signup is None or signup.ended:
            raise Failure('signup_token_invalid', 'unknown, used or dropped')
        if now >= signup.expires_at:
            raise Failure('signup_token_expired', 'the sign-up has expired')
        keys = (('signup', token_digest(token)),)  # AUTH-36: each try counts, before the password,
        self._throttle(keys, now)                  # throttled as AUTH-39's keys are
        self._fail(keys, now)
        match, _ = auth.verify(password if isinstance(password, str) else None,
                               auth.parse_hash(signup.password_hash), self.hashing)
        if not match:
            raise Failure('invalid_credentials', 'not the password chosen at this sign-up')
        self._clear(keys)
        if self._proven_holder(signup.email) is not None:
            raise Failure('signup_token_invalid', 'an account has proven the address since')
        for digest in self.waiting.pop(signup.key, []):                   # ends every waiting one
            self.signups[digest].ended = True
        signup.ended = True
        account = self._new_account(signup.email, True, signup.password_hash)   # AUTH-44: proven
        return self._start_family(account, now, device)                   # AUTH-38

    # -- sign-in (AUTH-39)

    def sign_in(self, email, password, client, device=None, code=None):
        device = check_device(device)             # AUTH-47: before anything else
        now = self.clock()
        keys = (('address', address_key(email)), ('client', str(client)))
        self._throttle(keys, now)
        self._sign_in_window(keys[1], now)  # AUTH-39: one a wait did not throttle, whatever its outcome
        self._fail(keys, now)              # AUTH-39: counted with the throttle check, before the password
        account = self._holder(email) if is_address(email) else None
        if not self._check_password(password, account):                   # the same work always
            raise Failure('invalid_credentials', 'the address or the password is wrong')
        with_code = self._second_factor(account, code, now)  # AUTH-51: its failure stays counted
        self._clear(keys[:1])                     # AUTH-39: the address's key is cleared;
        self._take_back(keys[1])                  # the client's gives back this sign-in's failure only
        return self._start_family(account, now, device, with_code)

    # -- ID-token sign-in (AUTH-35, AUTH-44)

    def issue_nonce(self, client):
        """AUTH-46: a sign-in nonce, kept as its digest for 600 seconds. A client's key is issued
        at most 30 in a window of 600 s that starts at the first it counts; beyond that
        `throttled` with the seconds until the window ends, nothing issued (no text drawn from
        the source) and nothing counted."""
        now = self.clock()
        key = str(client)
        entry = self.nonce_counts.get(key)
        if entry is not None and now >= entry[1] + NONCE_WINDOW:          # that window has ended
            del self.nonce_counts[key]
            entry = None
        if entry is not None and entry[0] >= NONCES_PER_CLIENT:
            raise Throttled(math.ceil(entry[1] + NONCE_WINDOW - now))
        for digest in [d for d, expires in self.nonces.items() if now >= expires]:
            del self.nonces[digest]                                       # past their 600 seconds
        nonce = self.nonce_source()
        self.nonces[token_digest(nonce)] = now + NONCE_LIFETIME
        self.nonce_counts.setdefault(key, [0, now])[0] += 1
        return nonce

    def _verify_identity(self, provider, token, nonce, now):
        """What an ID-token sign-in and a link check, in order: the provider (AUTH-35), a nonce
        presented (AUTH-46), the token (AUTH-22 ... AUTH-34, comparing its nonce with the one
        presented), then the nonce issued, unused and unexpired (AUTH-46). Uses nothing up: the
        verified identity, its link (provider, subject) and the nonce's digest."""
        entry = self.providers.get(provider) if isinstance(provider, str) else None
        if entry is None:
            raise Failure('unknown_provider', f'this service does not sign in with {provider!r}')
        if not isinstance(nonce, str):
            raise Failure('nonce_invalid', 'an ID-token sign-in needs a nonce the service issued')
        verifier, cache = entry
        identity = idtoken.verify_id_token(token, verifier, cache, now, nonce)   # AUTH-22 ... AUTH-34
        nonce_digest = token_digest(nonce)
        expires = self.nonces.get(nonce_digest)
        if expires is None or now >= expires:                             # AUTH-46
            raise Failure('nonce_invalid', 'not a nonce the service issued, or used, or expired')
        return identity, (provider, identity['subject']), nonce_digest

    def provider_sign_in(self, provider, token, nonce=None, device=None):
        """AUTH-47's device first; the provider (AUTH-35); a nonce presented (AUTH-46); the token
        (AUTH-22 ... AUTH-34, comparing its nonce with the one presented); then the nonce issued,
        unused and unexpired (AUTH-46), used up only by the sign-in's success. AUTH-44: to the
        account the identity is linked to; else, when it may link by e-mail and an account holds
        its address proven, to that account (linking it); else to a new account linked to it,
        holding its address proven when it may link by e-mail, unproven when it may not and no
        account holds the address, and no address otherwise."""
        device = check_device(device)
        now = self.clock()
        identity, link, nonce_digest = self._verify_identity(provider, token, nonce, now)
        del self.nonces[nonce_digest]                                     # used up by this sign-in
        account = self.accounts.get(self.identities.get(link))
        if account is None:
            email = identity['email']
            if identity['linkByEmail']:
                account = self._proven_holder(email)
                if account is None:
                    account = self._new_account(email, True, None)
            elif email is not None and self._holder(email) is None:
                account = self._new_account(email, False, None)
            else:
                account = self._new_account(None, False, None)
            self.identities[link] = account.id
        return self._start_family(account, now, device)

    def authenticate(self, access_token):
        return self._session(access_token, self.clock()).account

    def refresh(self, refresh_token):
        now = self.clock()
        digest = token_digest(refresh_token)
        family = self.families.get(self.refresh_tokens.get(digest))
        if family is None:
            raise Failure('invalid_session', 'the refresh token belongs to no live session')
        if digest != family.current_refresh:                              # one of the last 64 used
            self._end_family(family)
            raise Failure('refresh_token_reused', 'a used refresh token: the session has ended')
        if not family.live(now):                  # its 30 days, or 14 days unused
            self._end_family(family)
            raise Failure('session_expired', 'the session has ended')
        family.last_used = now
        family.used_refresh.append(digest)
        while len(family.used_refresh) > USED_REFRESH_KEPT:
            self.refresh_tokens.pop(family.used_refresh.popleft(), None)
        access, refresh = self._issue(family, now)
        return family.account, access, refresh, family.public_id

    def sign_out(self, access_token):
        family = self._session(access_token, self.clock(), expired_ok=True)
        self._end_family(family)

    # -- a person's sessions (AUTH-47)

    def _live_families(self, account_id, now):
        return [f for f in self.families.values() if f.account == account_id and f.live(now)]

    def list_sessions(self, access_token):
        """The live families of the caller's account, ordered by sign-in time, then device (none
        first, then by UTF-8 bytes), then id."""
        now = self.clock()
        caller = self._session(access_token, now)
        families = sorted(self._live_families(caller.account, now),
                          key=lambda f: (f.signed_in_at, f.device is not None,
                                         (f.device or '').encode('utf-8'), f.public_id))
        return [{'id': f.public_id, 'device': f.device, 'signedInAt': f.signed_in_at,
                 'lastUsedAt': f.last_used, 'current': f is caller} for f in families]

    def revoke_session(self, access_token, family_id):
        """Ends a live family of the caller's account by its id; any other id, whoever's it is,
        is `session_not_found`."""
        now = self.clock()
        caller = self._session(access_token, now)
        number = self.family_ids.get(family_id) if isinstance(family_id, str) else None
        family = self.families.get(number) if number is not None else None
        if family is None or family.account != caller.account or not family.live(now):
            raise Failure('session_not_found', 'no such session of this account')
        self._end_family(family)

    def sign_out_everywhere(self, access_token):
        """Ends every family of the caller's account, the caller's included, and nothing else."""
        caller = self._session(access_token, self.clock())
        for family in [f for f in self.families.values() if f.account == caller.account]:
            self._end_family(family)

    # -- step-up (AUTH-41)

    def reauthenticate(self, access_token, password, code=None):
        """AUTH-41 under the account's own key; with a second factor (AUTH-51) the password and a
        code, the password first, or the code alone for an account without a password."""
        now = self.clock()
        family = self._session(access_token, now)
        account = self.accounts[family.account]
        keys = (('account', account.id),)
        self._throttle(keys, now)
        self._fail(keys, now)                     # AUTH-41: throttled as AUTH-39 says
        code_alone = account.totp_key is not None and account.password_hash is None
        if not code_alone and not self._check_password(password, account):
            raise Failure('invalid_credentials', 'the password is wrong')
        with_code = self._second_factor(account, code, now)
        self._clear(keys)
        family.proof_at = now
        if with_code:
            family.code_proof_at = now

    # -- sign-in methods (AUTH-48)

    def _identities_of(self, account_id):
        return [link for link, number in self.identities.items() if number == account_id]

    def sign_in_methods(self, access_token):
        """Whether the caller's account has a password, and the providers of its identities,
        each once, in the byte order of their ids."""
        family = self._session(access_token, self.clock())
        account = self.accounts[family.account]
        providers = sorted({provider for provider, _ in self._identities_of(account.id)},
                           key=lambda provider: provider.encode('utf-8', 'surrogatepass'))
        return account.password_hash is not None, providers

    def link_identity(self, access_token, provider, token, nonce):
        """The access token, step-up, then the checks of an ID-token sign-in in their order; an
        identity of another account is `identity_in_use`, one of this account changes nothing
        (its nonce is not used either: only a link that succeeds uses it up), any other is linked;
        the account's address stays as it is."""
        now = self.clock()
        family = self._session(access_token, now)
        self._step_up(family, now)
        _, link, nonce_digest = self._verify_identity(provider, token, nonce, now)
        holder = self.identities.get(link)
        if holder is not None and holder != family.account:
            raise Failure('identity_in_use', 'this identity signs in to another account')
        if holder is None:
            del self.nonces[nonce_digest]                                 # used up by the link
            self.identities[link] = family.account

    def unlink_identity(self, access_token, provider):
        """The access token, step-up; the account's identities of `provider` go (no provider
        refresh token is ever held here, so none is queued) and its sessions stay. None of that
        provider is `identity_not_found`; leaving no way to sign in is `last_sign_in_method`."""
        now = self.clock()
        family = self._session(access_token, now)
        self._step_up(family, now)
        account = self.accounts[family.account]
        links = self._identities_of(account.id)
        gone = [link for link in links if isinstance(provider, str) and link[0] == provider]
        if not gone:
            raise Failure('identity_not_found', 'the account has no identity of this provider')
        if account.password_hash is None and len(gone) == len(links):
            raise Failure('last_sign_in_method', 'the account would have no way to sign in')
        for link in gone:
            del self.identities[link]

    def remove_password(self, access_token):
        """With a valid access token (AUTH-48 asks step-up of linking and unlinking only): the
        password hash goes and the reset tokens die (the epoch rises); nothing changes on an
        account without one, and `last_sign_in_method` when no identity is linked."""
        family = self._session(access_token, self.clock())
        account = self.accounts[family.account]
        if account.password_hash is None:
            return
        if not self._identities_of(account.id):
            raise Failure('last_sign_in_method', 'the account would have no way to sign in')
        account.password_hash = None
        account.epoch += 1

    # -- changing the address (AUTH-49)

    def _give_address(self, account, email):
        """The account holds `email` proven: the address it held is freed, and an account that
        held `email` unproven loses it (AUTH-44: the proof wins)."""
        if account.email is not None and self.by_address.get(address_key(account.email)) == account.id:
            del self.by_address[address_key(account.email)]
        other = self._holder(email)
        if other is not None and other is not account:
            other.email, other.proven = None, False
        account.email, account.proven = email, True
        self.by_address[address_key(email)] = account.id

    def request_email_change(self, access_token, email, client):
        """In order: the access token, step-up, the text, the address already held, the mail
        limits (AUTH-45). Then `alreadyRegistered` when another account holds the address proven,
        else a change waiting a day and its `confirmEmailChange` mail; nothing else changes."""
        now = self.clock()
        family = self._session(access_token, now)
        self._step_up(family, now)
        require_address(email)
        account = self.accounts[family.account]
        if account.email is not None and address_key(account.email) == address_key(email):
            raise Failure('email_unchanged', 'the account already holds this address')
        self._mail_limit(email, client, now)                              # AUTH-45
        if self._proven_holder(email) is not None:                        # the same answer
            self.send(email, ALREADY_REGISTERED, None)
            return
        token = new_token()
        self.email_changes[token_digest(token)] = EmailChange(account.id, email, now + EMAIL_CHANGE_LIFETIME)
        self.send(email, CONFIRM_EMAIL_CHANGE, token)

    def confirm_email_change(self, access_token, token):
        """A valid access token, then a change token of the same account that is unused, before
        its day ends and whose address nobody has proven since, else `email_change_invalid`. The
        account holds the new address proven, its other waiting changes end, its reset tokens die;
        an old address held proven is sent `emailChanged` with a token that undoes the change."""
        now = self.clock()
        family = self._session(access_token, now)
        change = self.email_changes.get(token_digest(token))
        if (change is None or change.ended or now >= change.expires_at or change.account != family.account
                or self._proven_holder(change.email) is not None):
            raise Failure('email_change_invalid', 'unknown, used, expired, of another account, or taken since')
        account = self.accounts[family.account]
        for other in self.email_changes.values():
            if other.account == account.id:
                other.ended = True                                        # this one and every other
        old_email, old_proven = account.email, account.proven
        self._give_address(account, change.email)
        account.epoch += 1                                                # every reset token dies
        if old_email is not None and old_proven:
            undo = new_token()
            self.undos[token_digest(undo)] = EmailChange(account.id, old_email, now + UNDO_LIFETIME)
            self.send(old_email, EMAIL_CHANGED, undo)

    def undo_email_change(self, token):
        """No sign-in needed: a token unknown, used, expired, of a deleted account or whose old
        address an account has proven since is `email_change_invalid`. Otherwise the account holds
        the old address proven again (the one it replaces is freed), every family of it ends and
        its reset tokens die."""
        now = self.clock()
        undo = self.undos.get(token_digest(token))
        account = self.accounts.get(undo.account) if undo is not None else None
        if (undo is None or undo.ended or account is None or now >= undo.expires_at
                or self._proven_holder(undo.email) is not None):
            raise Failure('email_change_invalid', 'unknown, used, expired, or taken since')
        undo.ended = True
        self._give_address(account, undo.email)
        account.epoch += 1
        for family in [f for f in self.families.values() if f.account == account.id]:
            self._end_family(family)

    # -- reset and change (AUTH-40)

    def _new_password(self, account, password):
        """The checks of a new password: the policy with the account's address as context, then
        `password_unchanged` for the current one. Returns its new hash."""
        normalized = auth.check(password, auth.DEFAULT_MINIMUM, account.email)
        if account.password_hash is not None and auth.verify(
                normalized, auth.parse_hash(account.password_hash), self.hashing)[0]:
            raise Failure('password_unchanged', 'the new password is the current one')
        return self._hash(normalized)

    def _replace_password(self, account, password_hash):
        account.password_hash = password_hash
        account.epoch += 1                                      # every reset token of it dies

    def change_password(self, access_token, password):
        now = self.clock()
        family = self._session(access_token, now)
        self._step_up(family, now)
        account = self.accounts[family.account]
        password_hash = self._new_password(account, password)
        self._replace_password(account, password_hash)
        for other in [f for f in self.families.values() if f.account == account.id and f is not family]:
            self._end_family(other)
        self._mail_account(account, PASSWORD_CHANGED)

    def request_reset(self, email, client):
        now = self.clock()
        require_address(email)
        self._mail_limit(email, client, now)                    # AUTH-45
        account = self._proven_holder(email)                    # AUTH-44: proven addresses only
        if account is None:
            return                                              # nothing more, the same answer
        token = new_token()
        self.resets[token_digest(token)] = ResetToken(account.id, account.epoch, now + RESET_LIFETIME)
        self.send(account.email, PASSWORD_RESET, token)

    def _reset(self, token, now):
        reset = self.resets.get(token_digest(token))
        account = self.accounts.get(reset.account) if reset is not None else None
        if reset is None or reset.used or account is None or reset.epoch < account.epoch:
            raise Failure('reset_token_invalid', 'unknown, used, or for a changed or deleted account')
        if now >= reset.expires_at:
            raise Failure('reset_token_expired', 'the reset token has expired')
        return reset, account

    def inspect_reset(self, token):
        """Looking at a token does not use it up: the account's address."""
        return self._reset(token, self.clock())[1].email

    def confirm_reset(self, token, password):
        now = self.clock()
        reset, account = self._reset(token, now)
        password_hash = self._new_password(account, password)   # the token stays usable on failure
        reset.used = True
        self._replace_password(account, password_hash)
        for family in [f for f in self.families.values() if f.account == account.id]:
            self._end_family(family)
        if account.email is not None:
            self._clear((('address', address_key(account.email)),))
        self._mail_account(account, PASSWORD_CHANGED)

    # -- deletion (AUTH-42)

    def delete_account(self, access_token, confirmed):
        now = self.clock()
        family = self._session(access_token, now)
        if confirmed is not True:
            raise Failure('confirmation_required', 'the person must confirm the deletion')
        self._step_up(family, now)
        account = self.accounts[family.account]
        try:
            erased = self.erase(account.id)
        except Exception:                                       # noqa: BLE001 (any failure of the eraser)
            erased = False
        if erased is False:
            raise Failure('deletion_failed', 'the data could not be erased; nothing was deleted')
        for other in [f for f in self.families.values() if f.account == account.id]:
            self._end_family(other)
        for digest in [d for d, r in self.resets.items() if r.account == account.id]:
            del self.resets[digest]
        self._clear((('account', account.id),))
        for link in [link for link, number in self.identities.items() if number == account.id]:
            del self.identities[link]
        del self.accounts[account.id]
        if account.email is not None:
            key = address_key(account.email)
            self.by_address.pop(key, None)
            self._clear((('address', key),))
        self._mail_account(account, ACCOUNT_DELETED)


# ---- The operation (Spec/corpus/auth/accounts.json)

MAIL_KINDS = {'confirmSignUp': CONFIRM_SIGNUP, 'inspectReset': PASSWORD_RESET, 'confirmReset': PASSWORD_RESET,
              'confirmEmailChange': CONFIRM_EMAIL_CHANGE, 'undoEmailChange': EMAIL_CHANGED}
DEFAULT_CLIENT = 'c1'


class Script:
    """The world around the service while a script runs: the clock, the mailbox, the sessions the
    script names and the labels of the accounts."""

    def __init__(self, input):
        self.now = START_TIME
        self.mails = []                          # (address key, kind, token or None), in order
        eraser_fails = input.get('eraserFails') is True
        nonces = input.get('nonces', [])
        if not isinstance(nonces, list) or any(not isinstance(n, str) for n in nonces):
            raise Failure('invalid_input', 'nonces is an array of texts')
        self.nonces = collections.deque(nonces)  # handed out in order, then the generator's
        secrets_given = input.get('totpSecrets', [])
        if not isinstance(secrets_given, list):
            raise Failure('invalid_input', 'totpSecrets is an array of base32 texts')
        self.totp_secrets = collections.deque(totp.decode_secret(text) for text in secrets_given)
        self.recovery_sets = []                  # AUTH-51: each set of recovery codes shown, in order
        self.service = AccountService(lambda: self.now, self._send,
                                      lambda account_id: not eraser_fails, input.get('hashing'),
                                      self._providers(input.get('providers')), self._next_nonce,
                                      self._next_secret,
                                      sign_ups_per_window=input.get('signUpsPerHour', SIGN_UPS_PER_WINDOW))
        self.sessions = {}                       # name -> (access token, refresh token)
        self.family_ids = {}                     # name -> the opaque id of its family (AUTH-47)
        self.labels = {}                         # account id -> 'A1', ...

    @staticmethod
    def _providers(configs):
        """The providers the service offers: each `provider` for the app's `clientIds` (with
        `algorithms` when given), its keys fetched as `keySet` (or the text `keySetText`), every
        fetch answering that set without max-age."""
        if configs is None:
            return {}
        if not isinstance(configs, list) or any(not isinstance(c, dict) for c in configs):
            raise Failure('invalid_input', 'providers is an array of objects')
        providers = {}
        for config in configs:
            verifier = idtoken.Verifier(config.get('provider'), config.get('clientIds'), config.get('algorithms'))
            text = idtoken._key_set_text(config)
            providers[config['provider']] = (verifier, idtoken.KeySetCache(lambda text=text: (text, None)))
        return providers

    def _next_nonce(self):
        return self.nonces.popleft() if self.nonces else new_token()

    def _next_secret(self):
        return self.totp_secrets.popleft() if self.totp_secrets else secrets.token_bytes(totp.SECRET_BYTES)

    def _shown(self, codes):
        """AUTH-51: recovery codes a step showed, kept for later steps and described."""
        self.recovery_sets.append(codes)
        shape = all(len(code) == 19 and all(
            (c == '-') if i % 5 == 4 else (c in 'abcdefghijklmnopqrstuvwxyz234567') for i, c in enumerate(code))
            for code in codes)
        return {'ok': True, 'recoveryCodes': {'count': len(codes), 'wellFormed': shape,
                                              'distinct': len(set(codes)) == len(codes)}}

    def _code(self, step):
        """The second factor a step presents: its `code`, or the recovery code at index
        `recoveryCode` of the set `recoverySet` (the latest when absent), as shown or, with
        `recoveryForm` `loose`, in upper case with spaces for `-`; one nobody issued when there is
        no such code; None when the step presents none."""
        if 'code' in step:
            if not isinstance(step['code'], str):
                raise Failure('invalid_input', 'a code is a string')
            return step['code']
        if 'recoveryCode' not in step:
            return None
        number, index = step.get('recoverySet', -1), step['recoveryCode']
        for value in (number, index):
            if isinstance(value, bool) or not isinstance(value, int):
                raise Failure('invalid_input', 'recoverySet and recoveryCode are indexes')
        sets = self.recovery_sets
        if -len(sets) <= number < len(sets) and -len(sets[number]) <= index < len(sets[number]):
            code = sets[number][index]
        else:
            code = new_recovery_code()
        if step.get('recoveryForm') == 'loose':
            code = code.upper().replace('-', ' ')
        return code

    def _send(self, address, kind, token):
        self.mails.append((address_key(address), kind, token))

    def label(self, account_id):
        if account_id not in self.labels:
            self.labels[account_id] = 'A%d' % (len(self.labels) + 1)
        return self.labels[account_id]

    def _mail_token(self, step):
        """A literal `token`, or the token of the mail of the step's kind to `email` (the `mail`-th,
        the last when absent); a token nobody issued when there is no such mail."""
        if 'token' in step:
            return step['token']
        kind = MAIL_KINDS[step['do']]
        key = address_key(step.get('email'))
        tokens = [token for to, k, token in self.mails if to == key and k == kind]
        index = step.get('mail', -1)
        if isinstance(index, bool) or not isinstance(index, int) or not -len(tokens) <= index < len(tokens):
            return new_token()
        return tokens[index]

    def _tokens(self, step):
        """The tokens of the session the step names; tokens nobody issued for one never stored."""
        name = step.get('session')
        if name in self.sessions:
            return self.sessions[name]
        return new_token(), new_token()

    def _signed_in(self, step, result):
        account_id, access, refresh, family_id = result
        name = step.get('as', step.get('session'))
        if name is not None:
            self.sessions[name] = (access, refresh)
            self.family_ids[name] = family_id
        return {'ok': True, 'account': self.label(account_id)}

    def _family_id(self, name):
        """The opaque id of the family of the session `name`; an id nobody issued when the script
        never named it."""
        return self.family_ids[name] if name in self.family_ids else new_family_id()

    def run(self, step):
        if not isinstance(step, dict):
            raise Failure('invalid_input', 'a step is a JSON object')
        if 'password' in step and not isinstance(step['password'], str):
            raise Failure('invalid_input', 'a password is a string')
        service, do = self.service, step.get('do')
        if do == 'advance':
            seconds = step.get('seconds')
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
                raise Failure('invalid_input', f'advance needs a number of seconds, not {seconds!r}')
            self.now += seconds
            return {'ok': True}
        if do == 'signUp':
            service.sign_up(step.get('email'), step.get('password'), step.get('client', DEFAULT_CLIENT))
            return {'ok': True}
        if do == 'confirmSignUp':
            return self._signed_in(step, service.confirm_sign_up(self._mail_token(step), step.get('password'),
                                                                 step.get('device')))
        if do == 'signIn':
            result = service.sign_in(step.get('email'), step.get('password'), step.get('client', DEFAULT_CLIENT),
                                     step.get('device'), self._code(step))
            return self._signed_in(step, result)
        if do == 'authenticate':
            return {'ok': True, 'account': self.label(service.authenticate(self._tokens(step)[0]))}
        if do == 'refresh':
            return self._signed_in(step, service.refresh(self._tokens(step)[1]))
        if do == 'signOut':
            service.sign_out(self._tokens(step)[0])
            return {'ok': True}
        if do == 'reauthenticate':
            service.reauthenticate(self._tokens(step)[0], step.get('password'), self._code(step))
            return {'ok': True}
        if do == 'beginSecondFactor':
            secret, uri = service.begin_second_factor(self._tokens(step)[0])
            return {'ok': True, 'secret': secret, 'uri': uri}
        if do == 'confirmSecondFactor':
            return self._shown(service.confirm_second_factor(self._tokens(step)[0], self._code(step)))
        if do == 'disableSecondFactor':
            service.disable_second_factor(self._tokens(step)[0])
            return {'ok': True}
        if do == 'newRecoveryCodes':
            return self._shown(service.new_recovery_codes(self._tokens(step)[0]))
        if do == 'changePassword':
            service.change_password(self._tokens(step)[0], step.get('password'))
            return {'ok': True}
        if do == 'requestReset':
            service.request_reset(step.get('email'), step.get('client', DEFAULT_CLIENT))
            return {'ok': True}
        if do == 'inspectReset':
            return {'ok': True, 'email': service.inspect_reset(self._mail_token(step))}
        if do == 'confirmReset':
            service.confirm_reset(self._mail_token(step), step.get('password'))
            return {'ok': True}
        if do == 'deleteAccount':
            service.delete_account(self._tokens(step)[0], step.get('confirmed'))
            return {'ok': True}
        if do == 'providerSignIn':
            nonce = step.get('nonce')
            if nonce is not None and not isinstance(nonce, str):
                raise Failure('invalid_input', f'nonce must be a string, not {nonce!r}')
            return self._signed_in(step, service.provider_sign_in(step.get('provider'), step.get('token'), nonce,
                                                                  step.get('device')))
        if do == 'issueNonce':
            return {'ok': True, 'nonce': service.issue_nonce(step.get('client', DEFAULT_CLIENT))}
        if do == 'sessions':
            # AUTH-47: the list without its ids, and whether those are 32 lowercase hex digits, distinct.
            listed = service.list_sessions(self._tokens(step)[0])
            ids = [entry.pop('id') for entry in listed]
            well_formed = all(len(i) == 32 and set(i) <= set('0123456789abcdef') for i in ids)
            return {'ok': True, 'idsWellFormed': well_formed and len(set(ids)) == len(ids), 'sessions': listed}
        if do == 'revokeSession':
            service.revoke_session(self._tokens(step)[0], self._family_id(step.get('target')))
            return {'ok': True}
        if do == 'signOutEverywhere':
            service.sign_out_everywhere(self._tokens(step)[0])
            return {'ok': True}
        if do == 'signInMethods':
            password, providers = service.sign_in_methods(self._tokens(step)[0])
            return {'ok': True, 'password': password, 'providers': providers}
        if do == 'linkIdentity':
            nonce = step.get('nonce')
            if nonce is not None and not isinstance(nonce, str):
                raise Failure('invalid_input', f'nonce must be a string, not {nonce!r}')
            service.link_identity(self._tokens(step)[0], step.get('provider'), step.get('token'), nonce)
            return {'ok': True}
        if do == 'unlinkIdentity':
            service.unlink_identity(self._tokens(step)[0], step.get('provider'))
            return {'ok': True}
        if do == 'removePassword':
            service.remove_password(self._tokens(step)[0])
            return {'ok': True}
        if do == 'requestEmailChange':
            service.request_email_change(self._tokens(step)[0], step.get('email'), step.get('client', DEFAULT_CLIENT))
            return {'ok': True}
        if do == 'confirmEmailChange':
            service.confirm_email_change(self._tokens(step)[0], self._mail_token(step))
            return {'ok': True}
        if do == 'undoEmailChange':
            service.undo_email_change(self._mail_token(step))
            return {'ok': True}
        if do == 'concurrently':
            # `times` copies of `step` at once. This service runs one operation at a time, each a
            # whole transaction, so running them one after another is what they would do at once.
            times, inner = step.get('times'), step.get('step')
            if isinstance(times, bool) or not isinstance(times, int) or times < 0 or not isinstance(inner, dict):
                raise Failure('invalid_input', 'concurrently needs a number of `times` and a `step`')
            outcomes = {}
            for _ in range(times):
                try:
                    self.run(inner)
                    outcome = 'ok'
                except Failure as failure:
                    if failure.code == 'invalid_input':
                        raise
                    outcome = failure.code
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            return {'ok': True, 'outcomes': outcomes}
        if do == 'tokenShape':
            # AUTH-37: the lengths and alphabet of a session's tokens, or of the last mail of `kind`.
            if 'kind' in step:
                key = address_key(step.get('email'))
                tokens = [token for to, k, token in self.mails if to == key and k == step['kind']][-1:] or [new_token()]
            else:
                tokens = list(self._tokens(step))
            alphabet = set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')
            return {'ok': True, 'lengths': [len(t) for t in tokens],
                    'base64url': all(set(t) <= alphabet for t in tokens), 'distinct': len(set(tokens)) == len(tokens)}
        if do == 'mails':
            key = address_key(step.get('to'))
            return {'ok': True, 'kinds': [kind for to, kind, _ in self.mails if to == key]}
        raise Failure('invalid_input', f'no step {do!r}')


def accounts_operation(input):
    """auth.accounts: each step's `{"ok": true, ...}` or `{"error": CODE}` (with `retryAfter` when
    the error gives a wait: `throttled`, `sign_ups_full`), against a new service whose clock starts
    at 1796083200."""
    script = Script(input)
    outputs = []
    for step in input.get('steps') or []:
        try:
            outputs.append(script.run(step))
        except MustWait as waiting:
            outputs.append({'error': waiting.code, 'retryAfter': waiting.retry_after})
        except Failure as failure:
            if failure.code == 'invalid_input':
                raise
            outputs.append({'error': failure.code})
    return {'steps': outputs}


OPERATIONS = {
    'auth.accounts': accounts_operation,
}
