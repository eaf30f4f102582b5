#!/usr/bin/env python3
"""Writes Spec/corpus/server/sync.json: scripts of exchanges (Spec/server.md 9.6) for the server's
sync calls, `sync-push` and `sync-pull` (Spec/sync.md 11.4, SYNC-9 ... SYNC-11); and
Spec/corpus/server/sync_pairing.json: those of the pairing calls, `sync-pair-offer` and
`sync-pair-take` (Spec/sync.md 11.5, SYNC-12, SYNC-13).

Every case signs up accounts of its own, so its person's log starts empty, then pushes records and
pulls them back. The records are built here from fixed secrets, salts and devices and sealed by
glowpy/sync.py (`seal`, SYNC-2 / SYNC-3), so running the script again writes the same file. A
server reads headers and nothing else (11.4), so the records are sealed for a fixed person text and
hold a few fixed bytes, not a bundle: no device could open them for the account the case signs up,
and the server must not try. Records a writer would refuse (a header that breaks SYNC-2's table)
are written here by hand with sync.py's `encode`.

Expected values are worked out by construction, never by running a model of the server: the
acknowledged sequence is the last record the case kept, the cursor the position the case counted
(1, 2, 3, ... per person, in the order the records were kept; a snapshot at the next position), the
heads the records the case knows are each device's last, each with the SHA-256 of its bytes.

The pairing cases offer slots and sealed secrets made by glowpy/sync.py (`pairing_slot`,
`seal_secret`) from fixed codes and secrets. The account identifier a person's device seals for is
known only when the case runs, and the server never opens a sealed secret (SYNC-13 checks its
length only), so they are sealed for the same fixed person text as the records. What a take
answers is worked out by construction from SYNC-13: the last offer the person made at the slot,
until it is taken.

    /usr/bin/python3 Tools/conformance/make_sync_server_corpus.py
"""
import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cli                                                        # noqa: E402
from glowpy import sync                                           # noqa: E402  (needs python3-protobuf, -cryptography)
from glowpy.envelope import seal as aes_gcm_seal                  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, '..', '..', 'Spec', 'corpus', 'server', 'sync.json'))
PAIRING_OUT = os.path.normpath(os.path.join(HERE, '..', '..', 'Spec', 'corpus', 'server', 'sync_pairing.json'))

PASSWORD = 'correct horse battery staple'
PERSON = 'person-x'             # the server never opens a record, so any person seals them


def sha(data):
    return hashlib.sha256(data).digest()


SECRET = sha(b'glow-sync server corpus: the person\'s sync secret')
OTHER_SECRET = sha(b'glow-sync server corpus: a secret made on an unpaired device')
KEY_ID = sync.key_id(sync.sync_key(SECRET))
OTHER_KEY_ID = sync.key_id(sync.sync_key(OTHER_SECRET))
assert KEY_ID != OTHER_KEY_ID

# Devices (MODEL-15: 16 bytes); in increasing byte order PHONE < WATCH < LAPTOP < TABLET.
PHONE = bytes.fromhex('01938a6e7c007abc8def00000000d001')
WATCH = bytes.fromhex('01938a6e7c007abc8def00000000d002')
LAPTOP = bytes.fromhex('01938a6e7c007abc8def00000000d003')
TABLET = bytes.fromhex('01938a6e7c007abc8def00000000d004')
NAMES = {PHONE: 'phone', WATCH: 'watch', LAPTOP: 'laptop', TABLET: 'tablet'}
CHANGES, SNAPSHOT = sync.CHANGES, sync.SNAPSHOT


# ---- Records

class Rec:
    """A record as pushed and answered: its bytes, its hash and what its header says."""

    def __init__(self, name, raw, device, sequence, kind=CHANGES):
        self.name, self.raw, self.device, self.sequence, self.kind = name, raw, device, sequence, kind
        self.hash = sha(raw)

    @property
    def hex(self):
        return self.raw.hex()


BUILT = {}                       # name -> Rec: every record has one name, and one name one record


def register(rec, meant):
    if rec.name in BUILT:
        raise SystemExit(f'two records named {rec.name!r}')
    BUILT[rec.name] = rec
    MEANT[rec.name] = meant
    return rec


MEANT = {}                       # name -> the header fields meant, or None for a malformed record


def salt_of(name):
    return sha(b'glow-sync server corpus salt: ' + name.encode())[:16]


def plaintext_of(name, size=8):
    """A few fixed bytes: the server never reads them (11.4)."""
    return sha(b'glow-sync server corpus plaintext: ' + name.encode())[:size]


def rec(name, device, sequence, previous=None, seen=(), kind=CHANGES, secret=SECRET, size=8):
    """A well-formed record sealed by sync.py (SYNC-2, SYNC-3). `previous` is a Rec or 32 bytes;
    `seen` is [(device, Rec)] or [(device, sequence, hash)]."""
    if isinstance(previous, Rec):
        previous = previous.hash
    heads = []
    for entry in seen:
        if len(entry) == 2:
            entry = (entry[0], entry[1].sequence, entry[1].hash)
        heads.append({'device': entry[0], 'sequence': entry[1], 'hash': entry[2]})
    header = {'device': device, 'sequence': sequence, 'previous': previous or b'', 'seen': heads, 'kind': kind,
              'salt': salt_of(name)}
    _, raw, _ = sync.seal(secret, PERSON, header, plaintext_of(name, size))
    meant = dict(header, key_id=sync.key_id(sync.sync_key(secret)))
    return register(Rec(name, raw, device, sequence, kind), meant)


def bad_header(name, header, sealed_size=None):
    """A record whose header breaks SYNC-2's table, written by hand (sync.seal refuses it): the
    header's fields as given (defaults: the watch's first record), sealed as a writer would."""
    fields = {'key_id': KEY_ID, 'device': WATCH, 'sequence': 1, 'previous': b'', 'seen': [], 'kind': CHANGES,
              'salt': salt_of(name)}
    fields.update(header)
    header_bytes = sync.encode('SyncHeader', fields)
    key = sync.sync_key(SECRET)
    sealed = aes_gcm_seal(sync.record_key(key, fields['salt']), sync.NONCE,
                          plaintext_of(name), sync.associated(PERSON, header_bytes))
    if sealed_size is not None:
        sealed = sealed[:sealed_size]
    raw = sync.encode('SyncRecord', {'header': header_bytes, 'sealed': sealed})
    return register(Rec(name, raw, fields['device'], fields['sequence']), None)


def raw_record(name, raw):
    """Bytes pushed as a record that do not read as one."""
    return register(Rec(name, raw, None, None), None)


# ---- Exchanges

def account(who, n, device='phone', capture=None, area='sync'):
    """Sign-up of WHO-AREA-N-{run}@example.com, the mailed token and its confirmation: captures C, C.signup,
    C.access, C.refresh and C.session, C being `capture` (WHO unless given)."""
    email = f'{who}-{area}-{n}-{{run}}@example.com'
    who = capture or who
    return [
        {"call": "sign-up", "body": {"email": email, "password": PASSWORD}, "expect": {"status": 200, "body": {}}},
        {"mail": {"to": email, "kind": "confirmSignUp", "capture": f"{who}.signup"}},
        {"call": "confirm-sign-up", "body": {"token": f"${who}.signup", "password": PASSWORD, "device": device},
         "expect": {"status": 200, "body": {"account": {"capture": who}, "access_token": {"capture": f"{who}.access"},
                                            "refresh_token": {"capture": f"{who}.refresh"},
                                            "session": {"capture": f"{who}.session"}}}},
    ]


def refused(status, code, location=None):
    error = {"code": code}
    if location is not None:
        error["location"] = location
    return {"status": status, "error": error}


def push(who, device, records, acknowledged=None, error=None):
    """`sync-push` of `records` (Recs, or raw bytes) as `device` (bytes); answered `acknowledged` or `error`."""
    body = {"device": device.hex(), "records": [r.hex if isinstance(r, Rec) else r.hex() for r in records]}
    expect = error if error is not None else {"status": 200, "body": {"acknowledged": acknowledged}}
    return {"call": "sync-push", "token": f"{who}.access", "body": body, "expect": expect}


def heads_json(heads):
    """SYNC-10: every device of the log with its head, in increasing byte order of device; `heads`
    are the records the case knows are each device's last."""
    devices = [h.device for h in heads]
    assert len(devices) == len(set(devices)), devices
    return [{"device": h.device.hex(), "sequence": h.sequence, "hash": h.hash.hex()}
            for h in sorted(heads, key=lambda h: h.device)]


def pull(who, device, cursor, records, heads, next_cursor, more=False, max_bytes=0):
    """`sync-pull` as `device` from `cursor`, answered `records` (in order), `heads`, `next_cursor`, `more`."""
    body = {"device": device.hex(), "cursor": cursor, "max_bytes": max_bytes}
    answer = {"records": [r.hex for r in records], "heads": heads_json(heads), "cursor": next_cursor, "more": more}
    return {"call": "sync-pull", "token": f"{who}.access", "body": body, "expect": {"status": 200, "body": answer}}


def pull_refused(who, device_bytes, error, cursor=0):
    body = {"device": device_bytes.hex(), "cursor": cursor}
    return {"call": "sync-pull", "token": f"{who}.access", "body": body, "expect": error}


def empty(who, device=PHONE):
    """A pull of a log that keeps nothing: no record, no head, the same cursor."""
    return pull(who, device, 0, [], [], 0)


CASES = []


def case(comment, rules, exchanges):
    CASES.append({"id": "server-sync-%03d" % (len(CASES) + 1), "comment": comment, "rules": rules, "flags": [],
                  "input": {"exchanges": exchanges}, "result": "valid"})


def n():
    """The number of the case being written (its addresses hold it)."""
    return len(CASES) + 1


# ---- The chains the cases draw on

w1 = rec('w1', WATCH, 1)
w2 = rec('w2', WATCH, 2, w1)
w3 = rec('w3', WATCH, 3, w2)
w4 = rec('w4', WATCH, 4, w3)
l1 = rec('l1', LAPTOP, 1)
l2 = rec('l2', LAPTOP, 2, l1)
p1 = rec('p1', PHONE, 1)
p2 = rec('p2', PHONE, 2, p1)
t1 = rec('t1', TABLET, 1)
w1_other = rec('w1 other bytes', WATCH, 1)                                # another record 1 of the watch
w2_other = rec('w2 other bytes', WATCH, 2, w1)                            # another record 2 after w1
w2_wrong_previous = rec('w2 wrong previous', WATCH, 2, w1_other)          # its previous is not w1's hash
w1_other_key = rec('w1 other key', WATCH, 1, secret=OTHER_SECRET)
w2_other_key = rec('w2 other key', WATCH, 2, w1, secret=OTHER_SECRET)
l1_other_key = rec('l1 other key', LAPTOP, 1, secret=OTHER_SECRET)
w4_other_key = rec('w4 other key', WATCH, 4, w3, secret=OTHER_SECRET)      # another key and a gap after w1
w2_other_key_wrong_previous = rec('w2 other key, wrong previous', WATCH, 2, w1_other, secret=OTHER_SECRET)


def cases():
    # -- Session calls (SERVER-3)
    case('sync-pull and sync-push are session calls: without Authorization, 401 unauthenticated with '
         'WWW-Authenticate: Bearer', ['SERVER-3', 'SYNC-9', 'SYNC-10'], [
             {"call": "sync-pull", "body": {"device": PHONE.hex()},
              "expect": {"status": 401, "error": {"code": "unauthenticated"}, "headers": {"WWW-Authenticate": "Bearer"}}},
             {"call": "sync-push", "body": {"device": WATCH.hex(), "records": [w1.hex]},
              "expect": {"status": 401, "error": {"code": "unauthenticated"}, "headers": {"WWW-Authenticate": "Bearer"}}},
         ])

    # -- Pushing and pulling (SYNC-9, SYNC-10)
    case('a new account\'s log is empty; the watch\'s first record is kept at position 1 and answered to the '
         'phone with the watch\'s head; the watch itself is answered no record, its cursor passing its own',
         ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             empty('ann'),
             push('ann', WATCH, [w1], 1),
             pull('ann', PHONE, 0, [w1], [w1], 1),
             pull('ann', WATCH, 0, [], [w1], 1),
         ])
    case('a push of several records keeps them in order and acknowledges the last', ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2, w3], 3),
             pull('ann', PHONE, 0, [w1, w2, w3], [w3], 3),
         ])
    case('records sent again (the answer was lost) are taken as kept already and change nothing; a resend '
         'followed by new records keeps only the new ones; acknowledged is the device\'s head',
         ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2], 2),
             push('ann', WATCH, [w1, w2], 2),
             pull('ann', PHONE, 0, [w1, w2], [w2], 2),
             push('ann', WATCH, [w2, w3], 3),
             push('ann', WATCH, [w1], 3),
             pull('ann', PHONE, 0, [w1, w2, w3], [w3], 3),
             pull('ann', PHONE, 2, [w3], [w3], 3),
         ])
    case('another record at a sequence the log keeps (other bytes) is 409 sync_conflict, and changes nothing',
         ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2], 2),
             push('ann', WATCH, [w2_other], error=refused(409, 'sync_conflict')),
             push('ann', WATCH, [w1_other], error=refused(409, 'sync_conflict')),
             push('ann', WATCH, [w1, w2_other], error=refused(409, 'sync_conflict')),
             pull('ann', PHONE, 0, [w1, w2], [w2], 2),
             push('ann', WATCH, [w3], 3),
         ])
    case('a record after the head whose previous is not the head\'s hash is 409 sync_conflict, in the request '
         'that keeps its record 1 too (nothing kept) and after it; the right record 2 is then kept',
         ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2_wrong_previous], error=refused(409, 'sync_conflict')),
             empty('ann'),
             push('ann', WATCH, [w1], 1),
             push('ann', WATCH, [w2_wrong_previous], error=refused(409, 'sync_conflict')),
             pull('ann', PHONE, 0, [w1], [w1], 1),
             push('ann', WATCH, [w2], 2),
             pull('ann', PHONE, 0, [w1, w2], [w2], 2),
         ])
    case('a record further after the head is 409 sync_out_of_order: record 3 after 1, and a device\'s first '
         'push starting at 2; the device then sends from its head on', ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1], 1),
             push('ann', WATCH, [w3], error=refused(409, 'sync_out_of_order')),
             push('ann', LAPTOP, [l2], error=refused(409, 'sync_out_of_order')),
             pull('ann', PHONE, 0, [w1], [w1], 1),
             push('ann', WATCH, [w2, w3], 3),
             pull('ann', PHONE, 0, [w1, w2, w3], [w3], 3),
         ])
    case('a push holding good records then a bad one keeps none of them: a pull shows the log empty, and the '
         'same good records are then kept at positions 1 and 2', ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2, w4], error=refused(409, 'sync_out_of_order')),
             push('ann', WATCH, [w1, w2, w3, w2_other], error=refused(409, 'sync_conflict')),
             empty('ann'),
             push('ann', WATCH, [w1, w2], 2),
             pull('ann', PHONE, 0, [w1, w2], [w2], 2),
         ])

    # -- Malformed requests and records (SYNC-2, SYNC-9, SYNC-10)
    case('a record whose header names another device than the request\'s is 400 sync_malformed, its location '
         'the record (records[1] for the second, from 0); nothing of the request is kept',
         ['SYNC-9', 'SYNC-2', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, l1], error=refused(400, 'sync_malformed', 'records[1]')),
             push('ann', LAPTOP, [w1], error=refused(400, 'sync_malformed', 'records[0]')),
             empty('ann'),
         ])
    short = WATCH[:15]
    case('a request whose device is not 16 bytes (15, 17, none) or that holds no record is 400 sync_malformed; '
         'so is a pull whose device is not 16 bytes', ['SYNC-9', 'SYNC-10', 'SERVER-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', short, [w1], error=refused(400, 'sync_malformed')),
             push('ann', WATCH + b'\x00', [w1], error=refused(400, 'sync_malformed')),
             {"call": "sync-push", "token": "ann.access", "body": {"records": [w1.hex]},
              "expect": refused(400, 'sync_malformed')},
             push('ann', WATCH, [], error=refused(400, 'sync_malformed')),
             pull_refused('ann', PHONE[:15], refused(400, 'sync_malformed')),
             {"call": "sync-pull", "token": "ann.access", "body": {"cursor": 0},
              "expect": refused(400, 'sync_malformed')},
             empty('ann'),
             push('ann', WATCH, [w1], 1),
         ])
    not_record = raw_record('not a SyncRecord', bytes.fromhex('0a050102'))            # a length past the end
    not_header = raw_record('header not a SyncHeader',
                            sync.encode('SyncRecord', {'header': b'\x08', 'sealed': bytes(16)}))
    short_sealed = bad_header('sealed shorter than a tag', {'sequence': 2, 'previous': w1.hash}, sealed_size=15)
    case('bytes that do not read as a SyncRecord, a header that does not read as a SyncHeader and a sealed '
         'part shorter than a tag are 400 sync_malformed at their record; the good record before each is not '
         'kept', ['SYNC-9', 'SYNC-2', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, not_record], error=refused(400, 'sync_malformed', 'records[1]')),
             push('ann', WATCH, [w1, not_header], error=refused(400, 'sync_malformed', 'records[1]')),
             push('ann', WATCH, [w1, short_sealed], error=refused(400, 'sync_malformed', 'records[1]')),
             push('ann', WATCH, [not_record, w1], error=refused(400, 'sync_malformed', 'records[0]')),
             empty('ann'),
         ])
    other = bytes.fromhex('11' * 32)
    table = [
        ('sequence 0', {'sequence': 0}),
        ('sequence 1 with a previous', {'sequence': 1, 'previous': other}),
        ('sequence 2 without a previous', {'sequence': 2}),
        ('a previous of 31 bytes', {'sequence': 2, 'previous': w1.hash[:31]}),
        ('a key id of 15 bytes', {'key_id': KEY_ID[:15]}),
        ('a salt of 15 bytes', {'salt': salt_of('short salt')[:15]}),
        ('kind 2', {'kind': 2}),
        ('seen naming the writer', {'seen': [{'device': WATCH, 'sequence': 1, 'hash': other}]}),
        ('seen out of order', {'seen': [{'device': LAPTOP, 'sequence': 1, 'hash': other},
                                        {'device': PHONE, 'sequence': 1, 'hash': other}]}),
        ('seen repeated', {'seen': [{'device': LAPTOP, 'sequence': 1, 'hash': other},
                                    {'device': LAPTOP, 'sequence': 2, 'hash': other}]}),
        ('seen at sequence 0', {'seen': [{'device': LAPTOP, 'sequence': 0, 'hash': other}]}),
        ('seen with a hash of 31 bytes', {'seen': [{'device': LAPTOP, 'sequence': 1, 'hash': other[:31]}]}),
        ('seen with a device of 15 bytes', {'seen': [{'device': LAPTOP[:15], 'sequence': 1, 'hash': other}]}),
    ]
    broken = [bad_header('header: ' + label, fields) for label, fields in table]
    case('a header that breaks SYNC-2\'s table is 400 sync_malformed at its record: ' +
         ', '.join(label for label, _ in table) + '; the log stays empty, then takes the good record',
         ['SYNC-9', 'SYNC-2', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [b], error=refused(400, 'sync_malformed', 'records[0]')) for b in broken] + [
             empty('ann'),
             push('ann', WATCH, [w1], 1),
         ])
    minimal = rec('minimal', TABLET, 1, size=0)
    case('records holds at most 1,000 records: 1,001 copies of one record are 400 sync_malformed, though each '
         'alone would be kept; 1,000 copies are kept as one (the copies after the first are the same bytes at '
         'the head, kept already); a record whose sealed part is the tag alone (16 bytes) is well formed',
         ['SYNC-9', 'SYNC-2', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', TABLET, [minimal] * 1001, error=refused(400, 'sync_malformed')),
             empty('ann'),
             push('ann', TABLET, [minimal] * 1000, 1),
             pull('ann', PHONE, 0, [minimal], [minimal], 1),
         ])

    # -- The log's key id (SYNC-9 step 2)
    case('the log takes the key id of its first record; a record of another key is 409 sync_wrong_key, from '
         'another device or the same one, and before its sequence is judged; nothing is kept',
         ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1], 1),
             push('ann', LAPTOP, [l1_other_key], error=refused(409, 'sync_wrong_key')),
             push('ann', WATCH, [w2_other_key], error=refused(409, 'sync_wrong_key')),
             push('ann', WATCH, [w4_other_key], error=refused(409, 'sync_wrong_key')),
             pull('ann', PHONE, 0, [w1], [w1], 1),
             push('ann', LAPTOP, [l1], 1),
             pull('ann', PHONE, 0, [w1, l1], [w1, l1], 2),
         ])
    case('a log that keeps no record takes the key id of the request\'s first record: another key later in the '
         'same request is 409 sync_wrong_key; a refused first push leaves the log without a key id, so a record '
         'of another key is then kept, and sets it', ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2_other_key], error=refused(409, 'sync_wrong_key')),
             push('ann', WATCH, [w1_other_key, w2_other_key_wrong_previous], error=refused(409, 'sync_conflict')),
             empty('ann'),
             push('ann', WATCH, [w1_other_key], 1),
             push('ann', LAPTOP, [l1], error=refused(409, 'sync_wrong_key')),
             push('ann', LAPTOP, [l1_other_key], 1),
             pull('ann', PHONE, 0, [w1_other_key, l1_other_key], [w1_other_key, l1_other_key], 2),
         ])
    wrong_device_other_key = l1_other_key
    case('the first check that fails refuses: another device\'s record under another key is 400 sync_malformed '
         '(step 1 before 2), another key out of order 409 sync_wrong_key (step 2 before 3)', ['SYNC-9'],
         account('ann', n()) + [
             push('ann', WATCH, [w1], 1),
             push('ann', WATCH, [wrong_device_other_key], error=refused(400, 'sync_malformed', 'records[0]')),
             push('ann', WATCH, [w4_other_key], error=refused(409, 'sync_wrong_key')),
             pull('ann', PHONE, 0, [w1], [w1], 1),
         ])
    seen_unknown = rec('w1 seen names an unknown laptop record', WATCH, 1, seen=[(LAPTOP, 7, other)])
    case('the server judges no change set\'s seen: a record naming a laptop the log has never kept is kept, '
         'and the heads name only the devices whose records the log kept', ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [seen_unknown], 1),
             pull('ann', PHONE, 0, [seen_unknown], [seen_unknown], 1),
         ])

    # -- Pulling (SYNC-10)
    case('a pull leaves out the puller\'s own records but its cursor passes them; a device that wrote '
         'nothing is answered every record in position order; heads name every device, the puller\'s too',
         ['SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1], 1),
             push('ann', PHONE, [p1], 1),
             push('ann', WATCH, [w2], 2),
             push('ann', PHONE, [p2], 2),
             pull('ann', PHONE, 0, [w1, w2], [p2, w2], 4),
             pull('ann', WATCH, 0, [p1, p2], [p2, w2], 4),
             pull('ann', PHONE, 2, [w2], [p2, w2], 4),
             pull('ann', WATCH, 3, [p2], [p2, w2], 4),
             pull('ann', TABLET, 0, [w1, p1, w2, p2], [p2, w2], 4),
             pull('ann', PHONE, 4, [], [p2, w2], 4),
         ])
    one = len(w1.raw) + len(w2.raw) - 1
    both = len(w1.raw) + len(w2.raw)
    case('max_bytes bounds a page\'s bytes of records: smaller than two records, one record, more true, and the '
         'next page from its cursor; exactly two records\' bytes, both; 1, still one record; 0 or more than the '
         'server\'s page, the server\'s page (all three small records, more false)', ['SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2, w3], 3),
             pull('ann', PHONE, 0, [w1], [w3], 1, True, one),
             pull('ann', PHONE, 1, [w2], [w3], 2, True, one),
             pull('ann', PHONE, 2, [w3], [w3], 3, False, one),
             pull('ann', PHONE, 0, [w1, w2], [w3], 2, True, both),
             pull('ann', PHONE, 0, [w1], [w3], 1, True, 1),
             pull('ann', PHONE, 1, [w2], [w3], 2, True, 1),
             pull('ann', PHONE, 0, [w1, w2, w3], [w3], 3, False, 0),
             pull('ann', PHONE, 0, [w1, w2, w3], [w3], 3, False, 4294967295),
         ])
    case('a cursor at or past the log\'s end answers no record, the same cursor and more false, with the heads; '
         'so does any cursor of an empty log', ['SYNC-10'],
         account('ann', n()) + [
             pull('ann', PHONE, 5, [], [], 5),
             push('ann', WATCH, [w1, w2], 2),
             pull('ann', PHONE, 2, [], [w2], 2),
             pull('ann', PHONE, 9, [], [w2], 9),
             pull('ann', WATCH, 1000000, [], [w2], 1000000),
         ])

    # -- Snapshots (SYNC-9 step 4)
    ws3 = rec('ws3', WATCH, 3, w2, seen=[(LAPTOP, l1)], kind=SNAPSHOT)
    l2_after = rec('l2 after ws3', LAPTOP, 2, l1, seen=[(WATCH, ws3)])
    case('a snapshot naming every other device at its head is kept at the next position and drops every record '
         'before it: a pull from 0 starts with it, the heads still name every device (the laptop\'s whole '
         'chain dropped), and records after it follow', ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2], 2),
             push('ann', LAPTOP, [l1], 1),
             push('ann', WATCH, [ws3], 3),
             pull('ann', TABLET, 0, [ws3], [ws3, l1], 4),
             pull('ann', PHONE, 2, [ws3], [ws3, l1], 4),
             pull('ann', LAPTOP, 0, [ws3], [ws3, l1], 4),
             pull('ann', WATCH, 0, [], [ws3, l1], 4),
             push('ann', LAPTOP, [l2_after], 2),
             pull('ann', TABLET, 0, [ws3, l2_after], [ws3, l2_after], 5),
             pull('ann', TABLET, 4, [l2_after], [ws3, l2_after], 5),
         ])
    w4_after = rec('w4 after ws3', WATCH, 4, ws3, seen=[(LAPTOP, l1)])
    case('a record a kept snapshot has covered, sent again, is taken as kept already (the device did not hear '
         'the answer): acknowledged is the head, nothing changes; a resend before new records keeps the new ones',
         ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2], 2),
             push('ann', LAPTOP, [l1], 1),
             push('ann', WATCH, [ws3], 3),
             push('ann', WATCH, [w1, w2], 3),
             push('ann', LAPTOP, [l1], 1),
             push('ann', WATCH, [w1, w2, ws3], 3),
             pull('ann', TABLET, 0, [ws3], [ws3, l1], 4),
             push('ann', WATCH, [w2, ws3, w4_after], 4),
             pull('ann', TABLET, 0, [ws3, w4_after], [w4_after, l1], 5),
         ])
    ws2_alone = rec('ws2 alone', WATCH, 2, w1, kind=SNAPSHOT)
    l1_after = rec('l1 after ws2', LAPTOP, 1, seen=[(WATCH, ws2_alone)])
    ls2 = rec('ls2', LAPTOP, 2, l1_after, seen=[(WATCH, ws2_alone)], kind=SNAPSHOT)
    case('a snapshot of the log\'s only device names nobody and covers the log; a later snapshot drops the '
         'earlier one, and the heads keep a device none of whose records the log still keeps',
         ['SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, ws2_alone], 2),
             pull('ann', PHONE, 0, [ws2_alone], [ws2_alone], 2),
             push('ann', LAPTOP, [l1_after], 1),
             push('ann', LAPTOP, [ls2], 2),
             pull('ann', PHONE, 0, [ls2], [ws2_alone, ls2], 4),
             push('ann', WATCH, [ws2_alone], 2),
             push('ann', LAPTOP, [l1_after, ls2], 2),
             pull('ann', PHONE, 0, [ls2], [ws2_alone, ls2], 4),
         ])
    laptop_old = (LAPTOP, l1.sequence, l1.hash)
    laptop_other_hash = (LAPTOP, l2.sequence, other)
    stale = [
        ('misses the tablet', [(LAPTOP, l2)]),
        ('names the laptop\'s old head', [laptop_old, (TABLET, t1)]),
        ('names the laptop at its head with another hash', [laptop_other_hash, (TABLET, t1)]),
        ('names a phone the log does not know', [(PHONE, p1), (LAPTOP, l2), (TABLET, t1)]),
        ('names nobody', []),
        ('names the laptop past its head', [(LAPTOP, 3, other), (TABLET, t1)]),
    ]
    stale_recs = [rec('ws2 stale: ' + label, WATCH, 2, w1, seen=seen, kind=SNAPSHOT) for label, seen in stale]
    ws2 = rec('ws2', WATCH, 2, w1, seen=[(LAPTOP, l2), (TABLET, t1)], kind=SNAPSHOT)
    case('a snapshot that does not cover the whole log is 409 sync_snapshot_stale: its seen ' +
         ', '.join(label for label, _ in stale) + '; nothing changes, and the snapshot naming every other '
         'device at its head is then kept',
         ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1], 1),
             push('ann', LAPTOP, [l1, l2], 2),
             push('ann', TABLET, [t1], 1)] + [
             push('ann', WATCH, [s], error=refused(409, 'sync_snapshot_stale')) for s in stale_recs] + [
             pull('ann', PHONE, 0, [w1, l1, l2, t1], [w1, l2, t1], 4),
             push('ann', WATCH, [ws2], 2),
             pull('ann', PHONE, 0, [ws2], [ws2, l2, t1], 5),
         ])
    ws3_stale = rec('ws3 stale after w2', WATCH, 3, w2, seen=[(LAPTOP, l1)], kind=SNAPSHOT)
    ws3_wrong_previous = rec('ws3 stale, wrong previous', WATCH, 3, w1, seen=[(LAPTOP, l1)], kind=SNAPSHOT)
    ws4_gap = rec('ws4 stale, a gap', WATCH, 4, w3, seen=[(LAPTOP, l1)], kind=SNAPSHOT)
    case('a good change set then a stale snapshot in one request keeps neither; a stale snapshot is judged by '
         'its place in the chain first: a wrong previous is 409 sync_conflict, a gap 409 sync_out_of_order',
         ['SYNC-9', 'SERVER-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1], 1),
             push('ann', LAPTOP, [l1, l2], 2),
             push('ann', WATCH, [w2, ws3_stale], error=refused(409, 'sync_snapshot_stale')),
             push('ann', WATCH, [w2, ws3_wrong_previous], error=refused(409, 'sync_conflict')),
             push('ann', WATCH, [w2, ws4_gap], error=refused(409, 'sync_out_of_order')),
             pull('ann', PHONE, 0, [w1, l1, l2], [w1, l2], 3),
             push('ann', WATCH, [w2], 2),
         ])

    # -- Persons (SYNC-9: the token's account; SYNC-11)
    case('each person has a log of their own: another account\'s pull sees nothing of the first\'s; its log '
         'takes its own key id, keeps a record 1 of the same device with other bytes, and numbers from 1',
         ['SYNC-9', 'SYNC-10', 'SERVER-3'],
         account('ann', n()) + account('bob', n()) + [
             push('ann', WATCH, [w1, w2], 2),
             empty('bob'),
             push('bob', WATCH, [w1_other_key], 1),
             pull('bob', PHONE, 0, [w1_other_key], [w1_other_key], 1),
             pull('ann', PHONE, 0, [w1, w2], [w2], 2),
         ])
    email = f'ann-sync-{n()}-{{run}}@example.com'
    case('deleting the account erases its log: the old token is refused, and a new account of the same address '
         'starts a new log (empty, another key id taken, a record 1 with other bytes kept at position 1)',
         ['SYNC-11', 'SYNC-9', 'SYNC-10'],
         account('ann', n()) + [
             push('ann', WATCH, [w1, w2], 2),
             pull('ann', PHONE, 0, [w1, w2], [w2], 2),
             {"call": "delete-account", "token": "ann.access", "body": {"confirmed": True},
              "expect": {"status": 200, "body": {}}},
             {"mail": {"to": email, "kind": "accountDeleted"}},
             pull_refused('ann', PHONE, {"status": 401, "error": {"code": "invalid_session"}}),
         ] + account('ann', n(), capture='new') + [
             empty('new'),
             push('new', WATCH, [w1_other_key], 1),
             pull('new', PHONE, 0, [w1_other_key], [w1_other_key], 1),
         ])
    # SYNC-10's records bound: a page goes past at most 1,024 records, the puller's own counted, so
    # a device pulling a log of its own records goes through it 1,024 at a time, answered none.
    chain = [rec('p1 of many', PHONE, 1)]
    for sequence in range(2, 1_031):
        chain.append(rec('p%d of many' % sequence, PHONE, sequence, chain[-1]))
    case('a page goes past at most 1,024 records, the puller\'s own counted: a phone pulling a log of 1,030 of '
         'its own records and then two of the watch\'s is answered none, cursor 1024 and more true, then the '
         'watch\'s two, cursor 1032 and more false',
         ['SYNC-10'],
         account('ann', n()) + [
             push('ann', PHONE, chain[:1_000], 1_000),
             push('ann', PHONE, chain[1_000:], 1_030),
             push('ann', WATCH, [w1, w2], 2),
             pull('ann', PHONE, 0, [], [chain[-1], w2], 1_024, True),
             pull('ann', PHONE, 1_024, [w1, w2], [chain[-1], w2], 1_032, False),
         ])
    # SYNC-9's device limit: a snapshot names every other device in seen (at most 256, SYNC-2), so a
    # log keeps at most 256 devices; a 257th device's first record is refused, a known device's not.
    many = [bytes.fromhex('01938a6e7c007abc8def0000%08x' % index) for index in range(257)]
    firsts = [rec('device %d of many' % index, device, 1, size=1) for index, device in enumerate(many)]
    case('a log keeps at most 256 devices: the first record of a 257th is 409 sync_device_limit and keeps '
         'nothing; a device the log knows writes on', ['SYNC-9'],
         account('ann', n()) + [push('ann', device, [first], 1) for device, first in zip(many[:256], firsts)] + [
             push('ann', many[256], [firsts[256]], error=refused(409, 'sync_device_limit')),
             push('ann', many[0], [rec('device 0 of many, 2', many[0], 2, firsts[0], size=1)], 2),
         ])


def verify():
    """Reads every record of the file back with sync.py: a well-formed record decodes to the header it
    was built from, a malformed one is refused by SYNC-2; every head's hash is the SHA-256 of a record
    the case pushed."""
    by_hex = {r.hex: r for r in BUILT.values()}
    for c in CASES:
        pushed = set()
        for ex in c['input']['exchanges']:
            if ex.get('call') == 'sync-push':
                pushed.update(ex['body']['records'])
            answer = ex.get('expect', {}).get('body', {})
            for h in answer.get('records', []) if ex.get('call') == 'sync-pull' else []:
                assert h in pushed, (c['id'], 'answered a record never pushed')
            for head in answer.get('heads', []) if ex.get('call') == 'sync-pull' else []:
                assert any(sha(bytes.fromhex(h)).hex() == head['hash'] for h in pushed), (c['id'], head)
    for hexed, r in by_hex.items():
        meant = MEANT[r.name]
        if meant is None:
            try:
                sync.Record(r.raw)
            except sync.Failure as failure:
                assert failure.code == 'sync_malformed', (r.name, failure.code)
                continue
            raise SystemExit(f'{r.name}: meant malformed, reads as a record')
        got = sync.Record(r.raw)
        assert got.hash == sha(r.raw)
        seen = [(h['device'], h['sequence'], h['hash']) for h in meant['seen']]
        assert (got.key_id, got.device, got.sequence, got.previous, got.seen, got.kind, got.salt) == (
            meant['key_id'], meant['device'], meant['sequence'], meant['previous'], seen, meant['kind'],
            meant['salt']), r.name
        assert got.device == r.device and got.sequence == r.sequence and got.kind == r.kind, r.name
        opened = sync.opens(sync.record_key(sync.sync_key(SECRET if got.key_id == KEY_ID else OTHER_SECRET), got.salt),
                            sync.NONCE, got.sealed, sync.associated(PERSON, got.header_bytes))
        assert opened == plaintext_of(r.name, len(opened or b'')) and opened is not None, r.name


# ---- Pairing (sync.md 11.5: SYNC-12, SYNC-13)

PAIR_CASES = []


class Offer:
    """A pairing code's slot and the secret sealed under it (SYNC-12): what a device offers."""

    def __init__(self, name, secret=SECRET):
        self.name = name
        self.code = sha(b'glow-sync server corpus pairing code: ' + name.encode())[:15]
        self.text = sync.pairing_code(self.code)
        self.secret = secret
        self.slot = sync.pairing_slot(self.code)
        self.sealed = sync.seal_secret(self.code, PERSON, secret)
        assert len(self.slot) == 16 and len(self.sealed) == 48, name


def pair_case(comment, rules, exchanges):
    PAIR_CASES.append({"id": "server-pairing-%03d" % (len(PAIR_CASES) + 1), "comment": comment, "rules": rules,
                       "flags": [], "input": {"exchanges": exchanges}, "result": "valid"})


def pn():
    """The number of the pairing case being written (its addresses hold it)."""
    return len(PAIR_CASES) + 1


def pair_account(who, capture=None):
    return account(who, pn(), capture=capture, area='pair')


def offer(who, slot, sealed, error=None):
    """`sync-pair-offer` of `slot` and `sealed` (an Offer's, or bytes); answered `Done` or `error`."""
    expect = error if error is not None else {"status": 200, "body": {}}
    return {"call": "sync-pair-offer", "token": f"{who}.access", "body": {"slot": slot.hex(), "sealed": sealed.hex()},
            "expect": expect}


def offer_of(who, o, error=None):
    return offer(who, o.slot, o.sealed, error)


def take(who, slot, answer=None, error=None):
    """`sync-pair-take` of `slot`: answered the Offer `answer` (its slot and sealed secret), or `error`
    (none given: 404 sync_pairing_not_found)."""
    if answer is not None:
        expect = {"status": 200, "body": {"slot": answer.slot.hex(), "sealed": answer.sealed.hex()}}
    else:
        expect = error if error is not None else refused(404, 'sync_pairing_not_found')
    return {"call": "sync-pair-take", "token": f"{who}.access", "body": {"slot": slot.hex()}, "expect": expect}


def pairing_cases():
    first = Offer('first')
    never = Offer('never offered')
    pair_case('an offer is answered Done; a take of its slot answers the slot and the sealed secret as offered '
              'and removes the offer, so a second take of the slot is 404 sync_pairing_not_found (a code works '
              'once). The ten minutes after which an offer expires cannot be shown by a case',
              ['SYNC-13'],
              pair_account('ann') + [
                  offer_of('ann', first),
                  take('ann', first.slot, first),
                  take('ann', first.slot),
              ])
    pair_case('a take of a slot the person never offered is 404 sync_pairing_not_found, on an account with no '
              'offer and on one that holds another slot; the held slot is still answered afterwards',
              ['SYNC-13'],
              pair_account('ann') + [
                  take('ann', never.slot),
                  offer_of('ann', first),
                  take('ann', never.slot),
                  take('ann', first.slot, first),
              ])
    pair_case('another person\'s slot is one the person does not hold: account B\'s take of a slot account A '
              'offered is 404 sync_pairing_not_found and removes nothing, so A can still take it',
              ['SYNC-13', 'SERVER-3'],
              pair_account('ann') + pair_account('bob') + [
                  offer_of('ann', first),
                  take('bob', first.slot),
                  take('ann', first.slot, first),
                  take('bob', first.slot),
              ])
    bobs = Offer('first', OTHER_SECRET)
    assert bobs.slot == first.slot and bobs.sealed != first.sealed
    pair_case('offers are the offering person\'s: account B offering the slot account A holds (another secret) '
              'replaces nothing of A\'s; each take answers the taker\'s own offer, once',
              ['SYNC-13', 'SERVER-3'],
              pair_account('ann') + pair_account('bob') + [
                  offer_of('ann', first),
                  offer_of('bob', bobs),
                  take('ann', first.slot, first),
                  take('ann', first.slot),
                  take('bob', bobs.slot, bobs),
                  take('bob', bobs.slot),
              ])
    again = Offer('first', OTHER_SECRET)
    pair_case('offering a slot again replaces its offer: the take answers the second sealed secret, and only '
              'once', ['SYNC-13'],
              pair_account('ann') + [
                  offer_of('ann', first),
                  offer_of('ann', again),
                  take('ann', first.slot, again),
                  take('ann', first.slot),
              ])
    four = [Offer(f'limit {i}') for i in range(1, 7)]
    pair_case('a person keeps at most four offers: a fifth slot is 409 sync_pairing_limit and is not kept (a take '
              'of it is 404); taking one makes room, so the fifth is then kept and a sixth is refused; every '
              'offer is answered once', ['SYNC-13', 'SERVER-10'],
              pair_account('ann') + [offer_of('ann', o) for o in four[:4]] + [
                  offer_of('ann', four[4], refused(409, 'sync_pairing_limit')),
                  take('ann', four[4].slot),
                  take('ann', four[1].slot, four[1]),
                  offer_of('ann', four[4]),
                  offer_of('ann', four[5], refused(409, 'sync_pairing_limit')),
                  take('ann', four[5].slot),
              ] + [take('ann', o.slot, o) for o in (four[0], four[2], four[3], four[4])])
    renewed = Offer('limit 3', OTHER_SECRET)
    assert renewed.slot == four[2].slot
    pair_case('offering again one of four waiting slots replaces it rather than adding a fifth: it is answered '
              'Done, a fifth slot is still 409 sync_pairing_limit, and the take answers the new sealed secret',
              ['SYNC-13'],
              pair_account('ann') + [offer_of('ann', o) for o in four[:4]] + [
                  offer_of('ann', renewed),
                  offer_of('ann', four[4], refused(409, 'sync_pairing_limit')),
                  take('ann', four[2].slot, renewed),
                  take('ann', four[0].slot, four[0]),
              ])
    malformed = refused(400, 'sync_malformed')
    slot, sealed = first.slot, first.sealed
    pair_case('an offer whose slot is not 16 bytes (15, 17, none) or whose sealed secret is not 48 bytes (47, 49, '
              'none) is 400 sync_malformed and keeps nothing: a take of the well-formed slot is 404, and four '
              'offers still fit',
              ['SYNC-13', 'SERVER-10'],
              pair_account('ann') + [
                  offer('ann', slot[:15], sealed, malformed),
                  offer('ann', slot + b'\x00', sealed, malformed),
                  offer('ann', b'', sealed, malformed),
                  offer('ann', slot, sealed[:47], malformed),
                  offer('ann', slot, sealed + b'\x00', malformed),
                  offer('ann', slot, b'', malformed),
                  take('ann', slot),
              ] + [offer_of('ann', o) for o in four[:4]] + [
                  offer_of('ann', four[4], refused(409, 'sync_pairing_limit')),
              ])
    pair_case('a refused offer of a slot the person holds replaces nothing: after sealed secrets of 47 and 49 bytes '
              'at the slot (400 sync_malformed), the take answers the first offer',
              ['SYNC-13', 'SERVER-10'],
              pair_account('ann') + [
                  offer_of('ann', first),
                  offer('ann', first.slot, again.sealed[:47], malformed),
                  offer('ann', first.slot, again.sealed + b'\x00', malformed),
                  take('ann', first.slot, first),
                  take('ann', first.slot),
              ])
    pair_case('a take whose slot is not 16 bytes (15, 17) is 400 sync_malformed and removes nothing: the offer '
              'whose slot it cuts or extends is then answered', ['SYNC-13', 'SERVER-10'],
              pair_account('ann') + [
                  offer_of('ann', first),
                  take('ann', first.slot[:15], error=malformed),
                  take('ann', first.slot + b'\x00', error=malformed),
                  take('ann', first.slot, first),
              ])
    unauthenticated = {"status": 401, "error": {"code": "unauthenticated"}, "headers": {"WWW-Authenticate": "Bearer"}}
    no_token_offer = dict(offer_of('ann', never), expect=unauthenticated)
    no_token_take = dict(take('ann', first.slot), expect=unauthenticated)
    del no_token_offer['token'], no_token_take['token']
    pair_case('sync-pair-offer and sync-pair-take are session calls: without Authorization, 401 unauthenticated '
              'with WWW-Authenticate: Bearer, and nothing changes: the offer is still answered, the slot offered '
              'without a token is not held', ['SERVER-3', 'SYNC-13', 'SERVER-10'],
              pair_account('ann') + [
                  offer_of('ann', first),
                  no_token_take,
                  no_token_offer,
                  take('ann', first.slot, first),
                  take('ann', never.slot),
              ])
    email = f'ann-pair-{pn()}-{{run}}@example.com'
    invalid = {"status": 401, "error": {"code": "invalid_session"}}
    pair_case('deleting the account removes its offers; no exchange can show the removal itself (the old token '
              'is refused, and a new account of the same address is another person, which holds none of the old '
              'slots either way): the old token\'s take and offer are 401 invalid_session, the new account\'s take '
              'of the old slot is 404 sync_pairing_not_found, and the new account keeps four offers of its own',
              ['SYNC-11', 'SYNC-13', 'SERVER-3'],
              pair_account('ann') + [
                  offer_of('ann', first),
                  {"call": "delete-account", "token": "ann.access", "body": {"confirmed": True},
                   "expect": {"status": 200, "body": {}}},
                  {"mail": {"to": email, "kind": "accountDeleted"}},
                  take('ann', first.slot, error=invalid),
                  offer_of('ann', never, invalid),
              ] + pair_account('ann', capture='new') + [
                  take('new', first.slot),
              ] + [offer_of('new', o) for o in four[:4]] + [
                  take('new', four[0].slot, four[0]),
              ])


def verify_pairing():
    """Every well-formed sealed secret of the file opens, with its code, to its secret (SYNC-12); every
    take answers a slot and sealed secret the case offered."""
    for c in PAIR_CASES:
        offers = set()
        for ex in c['input']['exchanges']:
            if ex.get('call') == 'sync-pair-offer' and ex['expect']['status'] == 200:
                offers.add((ex['body']['slot'], ex['body']['sealed']))
            if ex.get('call') == 'sync-pair-take' and ex['expect']['status'] == 200:
                answer = ex['expect']['body']
                assert (answer['slot'], answer['sealed']) in offers, c['id']
                assert answer['slot'] == ex['body']['slot'], c['id']
    for name, secret in (('first', SECRET), ('first', OTHER_SECRET), ('never offered', SECRET), ('limit 3', OTHER_SECRET)):
        o = Offer(name, secret)
        assert sync.open_secret(sync.read_pairing_code(o.text.lower()), PERSON, o.sealed) == secret


def write(path, doc):
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write('\n')
    print(f'{os.path.relpath(path)}: {len(doc["cases"])} cases')


def main():
    cli.arguments(sys.argv, __doc__, '/usr/bin/python3 Tools/conformance/make_sync_server_corpus.py')
    cases()
    verify()
    ids = [c['id'] for c in CASES]
    assert len(ids) == len(set(ids))
    doc = {
        "area": "server",
        "operation": "server.exchanges",
        "description": (
            'Scripts of exchanges (Spec/server.md 9.6) for the sync log\'s calls, sync-push and sync-pull '
            '(Spec/sync.md 11.4: SYNC-9 ... SYNC-11). Each case signs up accounts of its own, so each log starts '
            'empty. Records are hexadecimal SyncRecord bytes built by Tools/conformance/make_sync_server_corpus.py '
            'from fixed secrets and salts; the server reads their headers only, so they are sealed for a fixed '
            'person text and hold a few fixed bytes rather than a bundle. Devices (16 bytes) are '
            + ', '.join(f'{NAMES[d]} {d.hex()}' for d in sorted(NAMES)) +
            '. A pull\'s heads are in increasing byte order of device, each hash the SHA-256 of the record\'s '
            'bytes; a location names a record by its index in the request, from 0.'),
        "cases": CASES,
    }
    write(OUT, doc)
    pairing_cases()
    verify_pairing()
    ids = [c['id'] for c in PAIR_CASES]
    assert len(ids) == len(set(ids))
    write(PAIRING_OUT, {
        "area": "server",
        "operation": "server.exchanges",
        "description": (
            'Scripts of exchanges (Spec/server.md 9.6) for the pairing calls, sync-pair-offer and sync-pair-take '
            '(Spec/sync.md 11.5: SYNC-12, SYNC-13; SYNC-11 for a deleted account). Each case signs up accounts of '
            'its own, so each person starts with no offer. Slots (16 bytes) and sealed secrets (48 bytes) are '
            'hexadecimal, made by Tools/conformance/make_sync_server_corpus.py from fixed pairing codes and sync '
            'secrets (SYNC-12); the server never opens a sealed secret, so they are sealed for the fixed person text '
            f'{PERSON!r} rather than the account identifier, which is known only when a case runs. An offer\'s expiry '
            'after ten minutes is not shown: a case cannot wait for it.'),
        "cases": PAIR_CASES,
    })


if __name__ == '__main__':
    main()
