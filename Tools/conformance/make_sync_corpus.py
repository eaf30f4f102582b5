#!/usr/bin/env python3
"""Writes the corpus of Spec/sync.md (section 11): Spec/corpus/sync/keys.json, seal.json, open.json,
pull.json, pairing_code.json and pairing.json.

Every record is built here, from fixed secrets, salts, devices, persons and data sets, so running
the script again writes the same files. The script has its own small protobuf writer and HKDF
(it does not call glowpy/sync.py); it takes AES-256-GCM from python3-cryptography, and the bundles
inside the records are written with glowpy's bundle writer (`write_frames`, BUNDLE-15) wrapped in
a header and trailer here, with a stored zlib stream (level 0), so the bytes do not depend on the
zlib in use.

Expected values are worked out by construction, never by reading the records back: an error case
is a hostile input built on purpose (a flipped byte, two records swapped, the middle one dropped,
a record of the reader's own device, another secret or person, ...) and expects the code SYNC-2 ...
SYNC-7 give that construction, with its `page`, `record` or `device`; a valid pull expects the data
sets put in (chosen so their merge is evident: different goals and Days per device, a later edit
of a device's own goal) and the heads of the records built (their SHA-256). Only `sync.keys`,
`sync.seal` and `sync.pairing` (slot, pairing key, sealed secret) expect computed bytes, as crypto
vectors must. Pairing codes (SYNC-12) are written with the standard library's RFC 4648 base32
(`base64.b32encode`), checked against values worked out by hand; a typed code is the code as shown
changed by hand (case, spaces, hyphens) and expects the shown code's values, and a refused one is
built to break SYNC-12 (a character short or over, one outside the alphabet or outside ASCII, a
sealed secret flipped, cut, for another person or for another code's slot).

    /usr/bin/python3 Tools/conformance/make_sync_corpus.py
"""
import base64
import copy
import hashlib
import hmac
import json
import os
import struct
import sys
import zlib

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cli                                            # noqa: E402
from glowpy.bundle import write_frames                 # noqa: E402  (needs python3-protobuf)
from glowpy.dataset import read_data                   # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM   # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, '..', '..', 'Spec', 'corpus', 'sync'))
MERGE_TAPS = os.path.normpath(os.path.join(HERE, '..', '..', 'Spec', 'corpus', 'bundle', 'merge_taps.json'))


# ---- Primitives, written out independently of glowpy/sync.py

def hkdf(secret, salt, info, length):
    """RFC 5869 HKDF-SHA-256."""
    prk = hmac.new(salt, secret, hashlib.sha256).digest()
    out, block, i = b'', b'', 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
        i += 1
    return out[:length]


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def ld(number, body):
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(body)) + bytes(body)


def vi(number, value):
    """A varint field."""
    return varint(number << 3) + varint(value)


def uuid(text):
    return bytes.fromhex(text.replace('-', ''))


def sha(data):
    return hashlib.sha256(data).digest()


def keys(secret):
    """SYNC-1."""
    key = hkdf(secret, b'', b'glow-sync key', 32)
    return key, hkdf(key, b'', b'glow-sync key id', 16)


# ---- Fixed values

SECRET = sha(b'glow-sync corpus: the person\'s sync secret')
OTHER_SECRET = sha(b'glow-sync corpus: a secret made on an unpaired device')
PERSON = '01938a6e-7c00-7abc-8def-0000000000aa'
OTHER_PERSON = '01938a6e-7c00-7abc-8def-0000000000bb'
PHONE = '01938a6e-7c00-7abc-8def-00000000d001'        # the reader in every pull
WATCH = '01938a6e-7c00-7abc-8def-00000000d002'
LAPTOP = '01938a6e-7c00-7abc-8def-00000000d003'
TABLET = '01938a6e-7c00-7abc-8def-00000000d004'
CREATED = '2025-03-10T12:00:00.000Z'
CHANGES, SNAPSHOT = 0, 1


def salt(label):
    return sha(b'glow-sync corpus salt: ' + label.encode())[:16]


# ---- Data sets (BUNDLE-17), in their canonical JSON form

PROFILE = {"userID": PERSON, "displayName": "Mia Moon", "photoReference": "photos/mia.jpg",
           "interests": ["sleep", "self-care"], "themeID": "ocean",
           "boundary": {"timeZone": "Europe/London", "dayStartMinutes": 180, "weekStart": "sunday"},
           "createdAt": "2025-01-01T08:00:00.000Z", "modifiedAt": "2025-01-02T08:00:00.000Z"}


def goal(n, title, modified, deleted=False):
    return {"id": '01938a6e-7c00-7abc-8def-0000000000a%d' % n, "title": title, "kind": {"type": "streak"},
            "schedule": [{"effective": "2025-01-01", "rule": {"type": "daily"}}], "startDay": "2025-01-01",
            "archiveHistory": [], "visibility": "private", "createdAt": "2025-01-01T08:00:00.000Z",
            "modifiedAt": modified, "deleted": deleted}


def checkin(g, day, device, time='07:30:00'):
    """A compact check-in (MODEL-55): one `done` tap of `device`."""
    at = f'{day}T{time}.000Z'
    return {"goalID": g["id"], "day": day, "log": {"type": "done"}, "firstRecordedAt": at, "lastRecordedAt": at,
            "timeZone": "Europe/London", "deviceID": device, "modifiedAt": at, "deleted": False}


def ds(goals=(), checkins=(), profile=None):
    """A data set as a reader writes it: goals by identifier, check-ins by goal and Day."""
    out = {"goals": sorted(copy.deepcopy(list(goals)), key=lambda g: g["id"]),
           "checkIns": sorted(copy.deepcopy(list(checkins)), key=lambda c: (c["goalID"], c["day"]))}
    if profile is not None:
        out["profile"] = copy.deepcopy(profile)
    return out


A1 = goal(1, 'Drink water', '2025-03-01T08:00:00.000Z')             # the phone's
A2v1 = goal(2, 'Stretch', '2025-03-01T09:00:00.000Z')               # the watch's, then edited on it
A2v2 = goal(2, 'Stretch 10 minutes', '2025-03-02T09:00:00.000Z')
A2del = dict(A2v2, modifiedAt='2025-03-05T09:00:00.000Z', deleted=True)
A3 = goal(3, 'Read 20 pages', '2025-03-01T10:00:00.000Z')           # the laptop's
A4 = goal(4, 'Walk 5,000 steps', '2025-03-06T10:00:00.000Z')        # the tablet's
P1 = checkin(A1, '2025-03-01', PHONE)
W = {d: checkin(A2v1, '2025-03-0%d' % d, WATCH, '06:45:00') for d in range(1, 5)}
L = {d: checkin(A3, '2025-03-0%d' % d, LAPTOP, '21:15:00') for d in range(1, 4)}
T1 = checkin(A4, '2025-03-06', TABLET, '18:00:00')

R0 = ds([A1], [P1], PROFILE)                                         # the reader's own data
W1 = ds([A2v1], [W[1]])
W2 = ds([A2v2], [W[2]])
W3 = ds([A2v2], [W[3]])
W4 = ds([A2v2], [W[4]])
WDEL = ds([A2del], [])
L1 = ds([A3], [L[1]])
L2 = ds([A3], [L[2]])
L3 = ds([A3], [L[3]])
WS3 = ds([A2v2, A3], [W[1], W[2], W[3], L[1], L[2]], PROFILE)        # the watch's snapshot at 3
TS1 = ds([A2v2, A3, A4], [W[1], W[2], L[1], L[2], T1], PROFILE)      # a new tablet's first record


def bundle(data):
    """A plain bundle (BUNDLE-1 ... BUNDLE-9) of a data set: the frames of BUNDLE-15, a stored zlib stream."""
    frames = write_frames(read_data(data), 'glow-sync-corpus', '1.0', CREATED)
    stream = zlib.compress(frames, 0)
    head = b'\x89GLW\r\n\x1a\n' + struct.pack('<HHII', 1, 0, 0, 0)
    head += struct.pack('<I', zlib.crc32(head))
    return head + stream + struct.pack('<QQI', len(frames), len(stream), zlib.crc32(frames)) + b'GLWE'


# ---- Records (SYNC-2, SYNC-3)

class Rec:
    def __init__(self, raw, header=None, salt_=None):
        self.raw, self.header, self.salt = raw, header, salt_
        self.hash = sha(raw)

    @property
    def hex(self):
        return self.raw.hex()


def header_bytes(key_id, device, sequence, previous, seen, kind, salt_, reorder=False, unknown=b''):
    """A SyncHeader: canonical (fields ascending, defaults left out), or its fields in reverse order."""
    fields = [ld(1, key_id), ld(2, uuid(device)), vi(3, sequence) if sequence else b'',
              ld(4, previous) if previous else b'',
              b''.join(ld(5, ld(1, uuid(d)) + vi(2, s) + ld(3, h)) for d, s, h in seen),
              vi(6, kind) if kind else b'', ld(7, salt_)]
    if reorder:
        fields.reverse()
    return b''.join(fields) + unknown


def associated(person, header):
    """The canonical SyncAssociated (SYNC-3)."""
    return (ld(1, person.encode()) if person else b'') + ld(2, header)


def record(device, sequence, plaintext, previous=None, seen=(), kind=CHANGES, secret=SECRET, person=PERSON,
           salt_=None, reorder=False, unknown=b'', key_id=None):
    """A record built and sealed as SYNC-2 and SYNC-3 say. `previous` is a Rec or raw bytes; `seen` is
    [(device, sequence, hash)]; `plaintext` a data set (written as a bundle) or bytes."""
    if isinstance(plaintext, dict):
        plaintext = bundle(plaintext)
    if isinstance(previous, Rec):
        previous = previous.hash
    key, kid = keys(secret)
    seen = [(d, n, h.hash if isinstance(h, Rec) else h) for d, n, h in seen]
    label = f'{device} {sequence} {kind} {(previous or b"").hex()} {[(d, n, h.hex()) for d, n, h in seen]} {person} {sha(plaintext).hex()}'
    s = salt_ if salt_ is not None else salt(label)
    header = header_bytes(key_id if key_id is not None else kid, device, sequence, previous or b'', seen, kind, s,
                          reorder, unknown)
    record_key = hkdf(key, s, b'glow-sync record', 32)
    sealed = AESGCM(record_key).encrypt(bytes(12), plaintext, associated(person, header))
    return Rec(ld(1, header) + ld(2, sealed), header, s)


def with_sealed(rec, sealed):
    return Rec(ld(1, rec.header) + ld(2, sealed), rec.header, rec.salt)


def sealed_of(rec):
    """The sealed bytes of a record this script built (its header field, then its sealed field)."""
    n = len(ld(1, rec.header))
    body = rec.raw[n:]
    _, k = read_varint(body, 1)
    return body[k:]


def read_varint(buf, pos):
    value = shift = 0
    while True:
        b = buf[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        shift += 7
        if b < 0x80:
            return value, pos


def flip(data, index):
    data = bytearray(data)
    data[index] ^= 0x01
    return bytes(data)


# The chains every case draws on. The watch and the laptop write change sets; the watch's record 3
# is a change set in one history and a snapshot (covering the laptop's first two) in another.
w1 = record(WATCH, 1, W1)
w2 = record(WATCH, 2, W2, previous=w1)
w3 = record(WATCH, 3, W3, previous=w2)
w4 = record(WATCH, 4, W4, previous=w3)
l1 = record(LAPTOP, 1, L1)
l2 = record(LAPTOP, 2, L2, previous=l1)
l3 = record(LAPTOP, 3, L3, previous=l2)
ws3 = record(WATCH, 3, WS3, previous=w2, kind=SNAPSHOT, seen=[(LAPTOP, 2, l2)])
ws4 = record(WATCH, 4, W4, previous=ws3)                     # after the snapshot
wdel = record(WATCH, 2, WDEL, previous=w1)                   # the watch deletes its goal
w2fork = record(WATCH, 2, ds([A2v2], [W[3]]), previous=w1, salt_=salt('fork'))   # a second record 2
l2fork = record(LAPTOP, 2, ds([A3], [L[3]]), previous=l1, salt_=salt('laptop fork'))
w1other = record(WATCH, 1, ds([A2v1], [W[2]]), salt_=salt('another chain'))        # another chain's 1
w2other = record(WATCH, 2, W2, previous=w1other)           # its record 2: previous is not w1's hash
OWN = record(PHONE, 1, ds([A1], [P1]))                       # the reader's own record


# ---- Cases

def case(cid, comment, rules, inp, expected=None, error=None):
    c = {"id": cid, "comment": comment, "rules": rules, "flags": [], "input": inp}
    if error is None:
        c["result"], c["expected"] = "valid", expected
    else:
        c["result"], c["error"] = "invalid", error
    return c


def write(name, operation, description, cases):
    os.makedirs(OUT, exist_ok=True)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), ids
    doc = {"area": "sync", "operation": operation, "description": description, "cases": cases}
    with open(os.path.join(OUT, name), 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write('\n')
    return len(cases)


def keys_cases():
    out = []
    for i, (secret, comment) in enumerate([
            (SECRET, 'the sync key and key id of a secret'),
            (bytes(32), 'a secret of 32 zero bytes still gives a key and key id (HKDF with an empty salt)'),
            (bytes(range(32)), 'the secret 00 01 ... 1f')], 1):
        key, kid = keys(secret)
        out.append(case('sync-keys-%03d' % i, comment, ['SYNC-1'], {"secret": secret.hex()},
                        {"syncKey": key.hex(), "keyID": kid.hex()}))
    return out


def seal_input(device, sequence, plaintext, previous=b'', seen=(), kind='changes', salt_=None, secret=SECRET, person=PERSON):
    header = {"device": device, "sequence": sequence, "kind": kind, "salt": salt_.hex()}
    if previous:
        header["previous"] = previous.hex()
    header["seen"] = [{"device": d, "sequence": s, "hash": h.hex()} for d, s, h in seen]
    return {"secret": secret.hex(), "person": person, "header": header, "plaintext": plaintext.hex()}


def seal_cases():
    out = []

    def valid(comment, rules, device, sequence, plaintext, previous=b'', seen=(), kind='changes', salt_=None,
              secret=SECRET, person=PERSON):
        r = record(device, sequence, plaintext, previous=previous, seen=seen, kind=CHANGES if kind == 'changes' else SNAPSHOT,
                   secret=secret, person=person, salt_=salt_)
        out.append(case('sync-seal-%03d' % (len(out) + 1), comment, rules,
                        seal_input(device, sequence, plaintext, previous, seen, kind, salt_, secret, person),
                        {"header": r.header.hex(), "record": r.hex, "hash": r.hash.hex()}))

    def invalid(comment, device, sequence, previous=b'', seen=(), salt_=None):
        out.append(case('sync-seal-%03d' % (len(out) + 1), comment, ['SYNC-2'],
                        seal_input(device, sequence, b'', previous, seen, 'changes', salt_ or salt('refused')),
                        error={"code": "sync_malformed"}))

    b1 = bundle(W1)
    valid('a first change set: sequence 1, no previous, no seen', ['SYNC-2', 'SYNC-3', 'SYNC-4'],
          WATCH, 1, b1, salt_=salt('seal 1'))
    valid('an empty plaintext seals to the tag alone (16 bytes)', ['SYNC-2', 'SYNC-3'],
          WATCH, 1, b'', salt_=salt('seal 2'))
    valid('a change set at sequence 2 carries the hash of record 1 as previous', ['SYNC-2', 'SYNC-3', 'SYNC-5'],
          WATCH, 2, bundle(W2), previous=sha(b'record 1'), salt_=salt('seal 3'))
    valid('a snapshot whose seen names two other devices, in increasing byte order', ['SYNC-2', 'SYNC-3', 'SYNC-5'],
          WATCH, 3, bundle(WS3), previous=sha(b'record 2'), kind='snapshot',
          seen=[(PHONE, 4, sha(b'phone 4')), (LAPTOP, 2, sha(b'laptop 2'))], salt_=salt('seal 4'))
    valid('the same header and plaintext as sync-seal-001 for another person: another sealed text and hash',
          ['SYNC-3'], WATCH, 1, b1, salt_=salt('seal 1'), person=OTHER_PERSON)
    valid('the same as sync-seal-001 under another secret: another key id and record key', ['SYNC-1', 'SYNC-3'],
          WATCH, 1, b1, salt_=salt('seal 1'), secret=OTHER_SECRET)
    valid('a large sequence is a multi-byte varint', ['SYNC-2', 'SYNC-3'],
          LAPTOP, 300, bundle(L1), previous=sha(b'record 299'), salt_=salt('seal 7'))
    invalid('sequence 0: a writer refuses what a reader would (SYNC-2)', WATCH, 0)
    invalid('a previous hash at sequence 1 is refused', WATCH, 1, previous=sha(b'x'))
    invalid('no previous hash at sequence 2 is refused', WATCH, 2)
    invalid('seen out of increasing byte order is refused', WATCH, 2, previous=sha(b'x'),
            seen=[(LAPTOP, 1, sha(b'l')), (PHONE, 1, sha(b'p'))])
    invalid('seen naming the writer itself is refused', WATCH, 2, previous=sha(b'x'), seen=[(WATCH, 1, sha(b'w'))])
    invalid('a salt of 15 bytes is refused', WATCH, 1, salt_=salt('short')[:15])
    return out


def open_cases():
    out = []

    def add(comment, rules, rec, expected=None, error=None, secret=SECRET, person=PERSON):
        out.append(case('sync-open-%03d' % (len(out) + 1), comment, rules,
                        {"secret": secret.hex(), "person": person, "record": rec.hex if isinstance(rec, Rec) else rec.hex()},
                        expected, error))

    def seen_json(entries):
        return [{"device": d, "sequence": s, "hash": (h.hash if isinstance(h, Rec) else h).hex()} for d, s, h in entries]

    add('a change set opens: its device, sequence, kind and the data set of its bundle', ['SYNC-2', 'SYNC-3', 'SYNC-4'],
        w1, {"device": WATCH, "sequence": 1, "kind": "changes", "seen": [], "data": W1})
    add('a snapshot opens with its seen', ['SYNC-2', 'SYNC-3', 'SYNC-4', 'SYNC-5'],
        ws3, {"device": WATCH, "sequence": 3, "kind": "snapshot", "seen": seen_json([(LAPTOP, 2, l2)]), "data": WS3})
    newer = record(LAPTOP, 2, L2, previous=l1, seen=[(PHONE, 1, sha(b'p1')), (WATCH, 2, w2)], reorder=True,
                   unknown=ld(15, b'a field of a newer writer'))
    add('a header written in another field order, with a field this reader does not know, opens: the header is '
        'authenticated as its bytes, never re-encoded', ['SYNC-2', 'SYNC-3'],
        newer, {"device": LAPTOP, "sequence": 2, "kind": "changes",
                "seen": seen_json([(PHONE, 1, sha(b'p1')), (WATCH, 2, w2)]), "data": L2})
    add('a record sealed under another secret: its key id is not the reader\'s', ['SYNC-1', 'SYNC-6'],
        record(WATCH, 1, W1, secret=OTHER_SECRET), error={"code": "sync_wrong_key"})
    add('a byte of sealed flipped', ['SYNC-3'], with_sealed(w1, flip(sealed_of(w1), 40)), error={"code": "sync_tampered"})
    add('a record moved to another person does not open', ['SYNC-3'], w1, error={"code": "sync_tampered"},
        person=OTHER_PERSON)
    kind_changed = header_bytes(keys(SECRET)[1], WATCH, 1, b'', [], SNAPSHOT, w1.salt)
    assert kind_changed != w1.header and header_bytes(keys(SECRET)[1], WATCH, 1, b'', [], CHANGES, w1.salt) == w1.header
    add('the header\'s kind changed from a change set to a snapshot, sealed kept: it does not open', ['SYNC-3'],
        Rec(ld(1, kind_changed) + ld(2, sealed_of(w1))), error={"code": "sync_tampered"})
    add('sealed of 15 bytes, shorter than a tag', ['SYNC-2'], with_sealed(w1, sealed_of(w1)[:15]),
        error={"code": "sync_malformed"})
    add('the record cut short: the sealed field\'s length points past the end', ['SYNC-2'],
        w1.raw[:-7], error={"code": "sync_malformed"})
    many = [('01938a6e-7c00-7abc-8def-%012x' % (0xe000 + i), 1, sha(b'%d' % i)) for i in range(257)]
    add('seen of 257 devices, more than 256', ['SYNC-2'], record(WATCH, 2, W2, previous=w1, seen=many),
        error={"code": "sync_malformed"})
    add('seen naming one device twice', ['SYNC-2'],
        record(WATCH, 2, W2, previous=w1, seen=[(LAPTOP, 1, l1), (LAPTOP, 2, l2)]), error={"code": "sync_malformed"})
    add('seen naming the writer itself', ['SYNC-2'], record(WATCH, 2, W2, previous=w1, seen=[(WATCH, 1, w1)]),
        error={"code": "sync_malformed"})
    add('a key id of 15 bytes', ['SYNC-2'], record(WATCH, 1, W1, key_id=keys(SECRET)[1][:15]),
        error={"code": "sync_malformed"})
    add('kind 2, which this version does not define', ['SYNC-2'], record(WATCH, 1, W1, kind=2),
        error={"code": "sync_malformed"})
    add('a plaintext that is JSON, not a bundle: the bundle\'s own error', ['SYNC-4'],
        record(WATCH, 1, json.dumps(W1).encode()), error={"code": "bad_magic"})
    add('an empty plaintext is not a bundle: the bundle\'s own error for an empty file', ['SYNC-4'],
        record(WATCH, 1, b''), error={"code": "bad_magic"})
    add('a bundle cut inside its trailer (its signature missing): the bundle\'s own error', ['SYNC-4'],
        record(WATCH, 1, bundle(W1)[:-4]), error={"code": "truncated"})
    return out


def pull_cases():
    out = []

    def heads(*entries):
        return [{"device": d, "sequence": s, "hash": (h.hash if isinstance(h, Rec) else h).hex()} for d, s, h in entries]

    def page(records, server, more=False):
        return {"records": [r.hex if isinstance(r, Rec) else r for r in records],
                "heads": [{"device": d, "sequence": s} for d, s in server], "more": more}

    def add(comment, rules, pages, data=R0, reader_heads=(), acknowledged=0, expected=None, error=None,
            secret=SECRET, person=PERSON):
        inp = {"secret": secret.hex(), "person": person, "device": PHONE, "acknowledged": acknowledged,
               "heads": heads(*reader_heads), "data": data, "pages": pages}
        out.append(case('sync-pull-%03d' % (len(out) + 1), comment, rules, inp, expected, error))

    def ok(data, *entries):
        return {"data": data, "heads": heads(*sorted(entries, key=lambda e: uuid(e[0])))}

    def at(code, page_index, index):
        return {"code": code, "page": page_index, "record": index}

    def dev(code, page_index, device):
        return {"code": code, "page": page_index, "device": device}

    R0W1 = ds([A1, A2v1], [P1, W[1]], PROFILE)
    R0W12 = ds([A1, A2v2], [P1, W[1], W[2]], PROFILE)
    R0W12L12 = ds([A1, A2v2, A3], [P1, W[1], W[2], L[1], L[2]], PROFILE)

    # -- Valid pulls
    add('a reader with no heads reads a device\'s first change set', ['SYNC-5', 'SYNC-6', 'SYNC-8'],
        [page([w1], [(WATCH, 1)])], expected=ok(R0W1, (WATCH, 1, w1)))
    add('two devices\' change sets add different goals and Days: the union, a head per device',
        ['SYNC-4', 'SYNC-6', 'SYNC-8'], [page([w1, l1], [(WATCH, 1), (LAPTOP, 1)])],
        expected=ok(ds([A1, A2v1, A3], [P1, W[1], L[1]], PROFILE), (WATCH, 1, w1), (LAPTOP, 1, l1)))
    add('a later change set of the same device edits its own goal: the later modifiedAt wins',
        ['SYNC-5', 'SYNC-6', 'SYNC-8', 'BUNDLE-21'], [page([w1, w2], [(WATCH, 2)])],
        expected=ok(R0W12, (WATCH, 2, w2)))
    add('a reader with a head continues the chain: previous is its head\'s hash', ['SYNC-5', 'SYNC-6'],
        [page([w2], [(WATCH, 2)])], data=R0W1, reader_heads=[(WATCH, 1, w1)], expected=ok(R0W12, (WATCH, 2, w2)))
    add('a pull of two pages: only the last page\'s heads are held against the reader (SYNC-7)',
        ['SYNC-6', 'SYNC-7', 'SYNC-8'],
        [page([w1], [(WATCH, 2), (LAPTOP, 1)], more=True), page([w2, l1], [(WATCH, 2), (LAPTOP, 1)])],
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], L[1]], PROFILE), (WATCH, 2, w2), (LAPTOP, 1, l1)))
    add('records of one device after a record that names them, in a later page: SYNC-7 looks at the end of the pull',
        ['SYNC-6', 'SYNC-7'],
        [page([record(LAPTOP, 1, L1, seen=[(WATCH, 1, w1)])], [(WATCH, 1), (LAPTOP, 1)], more=True),
         page([w1], [(WATCH, 1), (LAPTOP, 1)])],
        expected=ok(ds([A1, A2v1, A3], [P1, W[1], L[1]], PROFILE), (WATCH, 1, w1),
                    (LAPTOP, 1, record(LAPTOP, 1, L1, seen=[(WATCH, 1, w1)]))))
    add('a reader with no heads reads a snapshot: its heads become the snapshot\'s coverage',
        ['SYNC-5', 'SYNC-6', 'SYNC-8'], [page([ws3], [(WATCH, 3), (LAPTOP, 2)])],
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], W[3], L[1], L[2]], PROFILE), (WATCH, 3, ws3), (LAPTOP, 2, l2)))
    add('a snapshot, then change sets that continue from its coverage', ['SYNC-5', 'SYNC-6', 'SYNC-8'],
        [page([ws3, ws4, l3], [(WATCH, 4), (LAPTOP, 3)])],
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], W[3], W[4], L[1], L[2], L[3]], PROFILE),
                    (WATCH, 4, ws4), (LAPTOP, 3, l3)))
    add('a snapshot covers records the reader never had: head 1, snapshot at 3, previous not compared',
        ['SYNC-5', 'SYNC-6'], [page([ws3], [(WATCH, 3), (LAPTOP, 2)])], data=R0W1, reader_heads=[(WATCH, 1, w1)],
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], W[3], L[1], L[2]], PROFILE), (WATCH, 3, ws3), (LAPTOP, 2, l2)))
    add('a snapshot right after the reader\'s head, whose seen names the reader\'s other head with its hash',
        ['SYNC-5', 'SYNC-6'], [page([ws3], [(WATCH, 3), (LAPTOP, 2)])], data=R0W12L12,
        reader_heads=[(WATCH, 2, w2), (LAPTOP, 2, l2)],
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], W[3], L[1], L[2]], PROFILE), (WATCH, 3, ws3), (LAPTOP, 2, l2)))
    ws3own = record(WATCH, 3, WS3, previous=w2, kind=SNAPSHOT, seen=[(PHONE, 1, OWN), (LAPTOP, 2, l2)])
    add('a snapshot whose seen names the reader\'s own device: not judged, and no head for it',
        ['SYNC-5', 'SYNC-6'], [page([ws3own], [(PHONE, 1), (WATCH, 3), (LAPTOP, 2)])], acknowledged=1,
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], W[3], L[1], L[2]], PROFILE), (WATCH, 3, ws3own), (LAPTOP, 2, l2)))
    l1own = record(LAPTOP, 1, L1, seen=[(PHONE, 7, sha(b'a phone record the server never acknowledged'))])
    add('a change set whose seen names the reader\'s own device beyond what it knows: not judged by SYNC-6 or SYNC-7; '
        'server heads for the reader\'s device above its acknowledged sequence are fine',
        ['SYNC-6', 'SYNC-7'], [page([l1own], [(PHONE, 5), (LAPTOP, 1)])], acknowledged=2,
        expected=ok(ds([A1, A3], [P1, L[1]], PROFILE), (LAPTOP, 1, l1own)))
    l1seen = record(LAPTOP, 1, L1, seen=[(WATCH, 1, w1)])
    add('a seen that names a head the reader holds, with its hash', ['SYNC-6', 'SYNC-7'],
        [page([w1, l1seen], [(WATCH, 1), (LAPTOP, 1)])],
        expected=ok(ds([A1, A2v1, A3], [P1, W[1], L[1]], PROFILE), (WATCH, 1, w1), (LAPTOP, 1, l1seen)))
    add('a seen that names an older record than the reader\'s head is not judged (the writer was behind)',
        ['SYNC-6', 'SYNC-7'], [page([l1seen], [(WATCH, 2), (LAPTOP, 1)])], data=R0W12, reader_heads=[(WATCH, 2, w2)],
        expected=ok(ds([A1, A2v2, A3], [P1, W[1], W[2], L[1]], PROFILE), (WATCH, 2, w2), (LAPTOP, 1, l1seen)))
    add('an empty last page with the reader\'s own heads changes nothing', ['SYNC-7', 'SYNC-8'],
        [page([], [(WATCH, 2)])], data=R0W12, reader_heads=[(WATCH, 2, w2)], expected=ok(R0W12, (WATCH, 2, w2)))
    taps = json.load(open(MERGE_TAPS, encoding='utf-8'))['cases'][0]
    assert taps['id'] == 'merge-taps-001'
    watch_taps = record(WATCH, 1, taps['input']['sets'][1])
    add('the phone\'s and the watch\'s taps of one Day are both kept (the data of bundle/merge-taps-001)',
        ['SYNC-4', 'SYNC-8', 'BUNDLE-22'], [page([watch_taps], [(WATCH, 1)])], data=taps['input']['sets'][0],
        expected=ok(taps['expected']['data'], (WATCH, 1, watch_taps)))
    add('a change set that deletes its device\'s goal: the tombstone wins, the check-ins stay',
        ['SYNC-4', 'SYNC-8', 'BUNDLE-23'], [page([wdel], [(WATCH, 2)])], data=R0W1, reader_heads=[(WATCH, 1, w1)],
        expected=ok(ds([A1, A2del], [P1, W[1]], PROFILE), (WATCH, 2, wdel)))
    add('the reader\'s own later edit of a goal is kept over an older version in a change set',
        ['SYNC-8', 'BUNDLE-21'], [page([w1], [(WATCH, 1)])], data=ds([A1, A2v2], [P1], PROFILE),
        expected=ok(ds([A1, A2v2], [P1, W[1]], PROFILE), (WATCH, 1, w1)))
    ts1 = record(TABLET, 1, TS1, kind=SNAPSHOT, seen=[(WATCH, 2, w2), (LAPTOP, 2, l2)])
    add('a new device starts from a snapshot at sequence 1 that covers what it read of the others',
        ['SYNC-5', 'SYNC-6', 'SYNC-8'], [page([ts1], [(WATCH, 2), (LAPTOP, 2), (TABLET, 1)])], data=R0W12L12,
        reader_heads=[(WATCH, 2, w2), (LAPTOP, 2, l2)],
        expected=ok(ds([A1, A2v2, A3, A4], [P1, W[1], W[2], L[1], L[2], T1], PROFILE),
                    (WATCH, 2, w2), (LAPTOP, 2, l2), (TABLET, 1, ts1)))

    # -- Refused records (SYNC-2 ... SYNC-6)
    add('a record cut short does not read as a SyncRecord', ['SYNC-2', 'SYNC-6'],
        [page([w1.raw[:-10].hex()], [(WATCH, 1)])], error=at('sync_malformed', 0, 0))
    add('sequence 0 is malformed, before anything else is judged', ['SYNC-2', 'SYNC-6'],
        [page([w1, record(WATCH, 0, W2)], [(WATCH, 1)])], error=at('sync_malformed', 0, 1))
    add('a record sealed under another secret', ['SYNC-1', 'SYNC-6'],
        [page([record(WATCH, 1, W1, secret=OTHER_SECRET)], [(WATCH, 1)])], error=at('sync_wrong_key', 0, 0))
    add('a record of the reader\'s own device', ['SYNC-6'], [page([OWN], [(PHONE, 1)])], acknowledged=1,
        error=at('sync_replayed', 0, 0))
    add('the reader\'s own device under another key: the key id is judged first', ['SYNC-6'],
        [page([record(PHONE, 1, R0, secret=OTHER_SECRET)], [(PHONE, 1)])], error=at('sync_wrong_key', 0, 0))
    add('a byte of sealed flipped', ['SYNC-3', 'SYNC-6'],
        [page([w1, with_sealed(w2, flip(sealed_of(w2), 100))], [(WATCH, 2)])], error=at('sync_tampered', 0, 1))
    add('a record moved to another person does not open', ['SYNC-3', 'SYNC-6'], [page([w1], [(WATCH, 1)])],
        person=OTHER_PERSON, error=at('sync_tampered', 0, 0))
    moved = header_bytes(keys(SECRET)[1], WATCH, 3, w1.hash, [], CHANGES, w2.salt)
    assert header_bytes(keys(SECRET)[1], WATCH, 2, w1.hash, [], CHANGES, w2.salt) == w2.header
    add('record 2 moved to another place in its chain (its header says 3): it does not open, before its chain '
        'is judged', ['SYNC-3', 'SYNC-6'], [page([w1, w2, Rec(ld(1, moved) + ld(2, sealed_of(w2)))], [(WATCH, 3)])],
        error=at('sync_tampered', 0, 2))
    add('a plaintext that is not a bundle: the record is refused with the bundle\'s error', ['SYNC-4', 'SYNC-6'],
        [page([record(WATCH, 1, b'GLOW')], [(WATCH, 1)])], error=at('bad_magic', 0, 0))
    add('two records of a device swapped: the first that arrives is after a gap', ['SYNC-5', 'SYNC-6'],
        [page([w2, w1], [(WATCH, 2)])], error=at('sync_gap', 0, 0))
    add('the middle record dropped', ['SYNC-5', 'SYNC-6'], [page([w1, w3], [(WATCH, 3)])],
        error=at('sync_gap', 0, 1))
    add('a record sent twice: the second is replayed', ['SYNC-5', 'SYNC-6'], [page([w1, w1], [(WATCH, 1)])],
        error=at('sync_replayed', 0, 1))
    add('a record older than the reader\'s head', ['SYNC-5', 'SYNC-6'], [page([w1], [(WATCH, 2)])], data=R0W12,
        reader_heads=[(WATCH, 2, w2)], error=at('sync_replayed', 0, 0))
    add('another chain\'s record 2: previous is not the hash of the reader\'s head', ['SYNC-5', 'SYNC-6'],
        [page([w2other], [(WATCH, 2)])], data=R0W1, reader_heads=[(WATCH, 1, w1)], error=at('sync_broken_chain', 0, 0))
    add('a device that wrote two records 2: the second one to arrive is not after the head, so it is replayed',
        ['SYNC-5', 'SYNC-6'], [page([w2, w2fork], [(WATCH, 2)])], data=R0W1, reader_heads=[(WATCH, 1, w1)],
        error=at('sync_replayed', 0, 1))
    add('a device that wrote two records 2: the reader merged one, and record 3 follows the other',
        ['SYNC-5', 'SYNC-6'], [page([w3], [(WATCH, 3)])], data=R0W12, reader_heads=[(WATCH, 2, w2fork)],
        error=at('sync_broken_chain', 0, 0))
    add('a seen that names the reader\'s head with another hash (the writer read a fork)', ['SYNC-6'],
        [page([record(LAPTOP, 1, L1, seen=[(WATCH, 2, w2fork)])], [(WATCH, 2), (LAPTOP, 1)])], data=R0W12,
        reader_heads=[(WATCH, 2, w2)], error=at('sync_broken_chain', 0, 0))
    add('a seen judged against a head from a record earlier in the same page', ['SYNC-6'],
        [page([w1, record(LAPTOP, 1, L1, seen=[(WATCH, 1, w1other)])], [(WATCH, 1), (LAPTOP, 1)])],
        error=at('sync_broken_chain', 0, 1))
    add('a page refused after an earlier page of the pull was accepted: the error names page 1',
        ['SYNC-6', 'SYNC-8'],
        [page([w1], [(WATCH, 1), (LAPTOP, 1)], more=True), page([with_sealed(l1, flip(sealed_of(l1), 0))], [(WATCH, 1), (LAPTOP, 1)])],
        error=at('sync_tampered', 1, 0))
    add('the second record of a second page is refused', ['SYNC-6', 'SYNC-8'],
        [page([w1], [(WATCH, 2)], more=True), page([w2, w2], [(WATCH, 2)])], error=at('sync_replayed', 1, 1))

    # -- Snapshots (SYNC-5, SYNC-6)
    add('a snapshot at the reader\'s own head for its device is replayed', ['SYNC-5', 'SYNC-6'],
        [page([ws3], [(WATCH, 3), (LAPTOP, 2)])], data=R0W12L12, reader_heads=[(WATCH, 3, w3), (LAPTOP, 2, l2)],
        error=at('sync_replayed', 0, 0))
    add('a snapshot behind the reader\'s head for its device is replayed', ['SYNC-5', 'SYNC-6'],
        [page([ws3], [(WATCH, 4), (LAPTOP, 2)])], data=R0W12L12, reader_heads=[(WATCH, 4, w4), (LAPTOP, 2, l2)],
        error=at('sync_replayed', 0, 0))
    add('a snapshot whose seen is behind the reader\'s head of another device is replayed', ['SYNC-5', 'SYNC-6'],
        [page([ws3], [(WATCH, 3), (LAPTOP, 3)])], data=R0W12L12, reader_heads=[(WATCH, 2, w2), (LAPTOP, 3, l3)],
        error=at('sync_replayed', 0, 0))
    add('a snapshot whose seen leaves out a device the reader has a head for (sequence 0 there) is replayed',
        ['SYNC-5', 'SYNC-6'], [page([ws3], [(WATCH, 3), (LAPTOP, 2), (TABLET, 1)])], data=R0W12,
        reader_heads=[(WATCH, 2, w2), (TABLET, 1, ts1)], error=at('sync_replayed', 0, 0))
    add('a snapshot whose seen names the reader\'s head of another device with another hash', ['SYNC-5', 'SYNC-6'],
        [page([ws3], [(WATCH, 3), (LAPTOP, 2)])], data=R0W12L12, reader_heads=[(WATCH, 2, w2), (LAPTOP, 2, l2fork)],
        error=at('sync_broken_chain', 0, 0))
    add('a snapshot right after the reader\'s head whose previous is not that head\'s hash', ['SYNC-5', 'SYNC-6'],
        [page([ws3], [(WATCH, 3), (LAPTOP, 2)])], data=R0W12L12, reader_heads=[(WATCH, 2, w2fork), (LAPTOP, 2, l2)],
        error=at('sync_broken_chain', 0, 0))

    # -- The end of a pull (SYNC-7)
    add('a merged record names a record of a device the server never sent nor counted', ['SYNC-7'],
        [page([record(LAPTOP, 1, L1, seen=[(WATCH, 2, w2)])], [(LAPTOP, 1)])], error=dev('sync_gap', 0, WATCH))
    add('the server\'s heads say it keeps a record it did not send', ['SYNC-7'],
        [page([w1, w2], [(WATCH, 3)])], error=dev('sync_gap', 0, WATCH))
    add('the server\'s heads are behind the reader: it lost records it had sent', ['SYNC-7'],
        [page([], [(WATCH, 1)])], data=R0W12, reader_heads=[(WATCH, 2, w2)], error=dev('sync_rollback', 0, WATCH))
    add('the server\'s heads leave out a device the reader has a head for: sequence 0, a rollback', ['SYNC-7'],
        [page([], [(WATCH, 2)])], data=R0W12L12, reader_heads=[(WATCH, 2, w2), (LAPTOP, 2, l2)],
        error=dev('sync_rollback', 0, LAPTOP))
    add('the server\'s head for the reader\'s own device is before what it acknowledged', ['SYNC-7'],
        [page([w1], [(PHONE, 2), (WATCH, 1)])], acknowledged=3, error=dev('sync_rollback', 0, PHONE))
    add('the server\'s heads leave out the reader\'s own device after acknowledging a record', ['SYNC-7'],
        [page([w1], [(WATCH, 1)])], acknowledged=1, error=dev('sync_rollback', 0, PHONE))
    add('the checks in SYNC-7\'s order: a gap on the laptop is reported before a rollback on the watch, '
        'though the watch comes first in byte order', ['SYNC-7'],
        [page([], [(WATCH, 1), (LAPTOP, 1)])], data=R0W12, reader_heads=[(WATCH, 2, w2)],
        error=dev('sync_gap', 0, LAPTOP))
    add('within one check, devices in increasing byte order, not the order the server lists them', ['SYNC-7'],
        [page([], [(LAPTOP, 2), (WATCH, 2)])], error=dev('sync_gap', 0, WATCH))
    add('SYNC-7 refuses the last page of a pull whose earlier page was accepted', ['SYNC-7', 'SYNC-8'],
        [page([w1], [(WATCH, 1)], more=True), page([l1], [(WATCH, 2), (LAPTOP, 1)])], error=dev('sync_gap', 1, WATCH))
    return out


# ---- A new device: pairing codes (SYNC-12)

def code_text(code):
    """A code as shown (SYNC-12): RFC 4648 base32 of the 15 bytes (`base64.b32encode`: 120 bits are
    24 characters, so no padding), in six groups of four joined by `-`."""
    chars = base64.b32encode(code).decode('ascii')
    assert len(code) == 15 and len(chars) == 24 and '=' not in chars
    return '-'.join(chars[i:i + 4] for i in range(0, 24, 4))


def pairing_values(code, person, secret):
    """SYNC-12: the slot, the pairing key and the secret sealed for the person and the slot."""
    slot = hkdf(code, b'', b'glow-sync pairing slot', 16)
    key = hkdf(code, b'', b'glow-sync pairing key', 32)
    return slot, key, AESGCM(key).encrypt(bytes(12), secret, associated(person, slot))


PAIRING_CODE = sha(b'glow-sync corpus: a pairing code')[:15]
OTHER_PAIRING_CODE = bytes(range(15))


def pairing_code_cases():
    out = []

    def add(comment, code, shown):
        assert code_text(code) == shown, (code_text(code), shown)    # the hand-worked value and RFC 4648's agree
        out.append(case('sync-pairing-code-%03d' % (len(out) + 1), comment, ['SYNC-12'], {"bytes": code.hex()},
                        {"code": shown}))

    add('15 zero bytes: 24 characters of value 0, `A`', bytes(15), 'AAAA-AAAA-AAAA-AAAA-AAAA-AAAA')
    add('15 bytes 0xff: 24 characters of value 31, `7`', b'\xff' * 15, '7777-7777-7777-7777-7777-7777')
    add('the bytes 00 01 ... 0e: five bytes are eight characters (00 01 02 03 04 is AAAQEAYE)',
        OTHER_PAIRING_CODE, 'AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO')
    add('big-endian: the first character holds the top five bits (0x80 is 10000, `Q`)',
        b'\x80' + bytes(14), 'QAAA-AAAA-AAAA-AAAA-AAAA-AAAA')
    add('big-endian: the last character holds the bottom five bits (0x01 is 00001, `B`)',
        bytes(14) + b'\x01', 'AAAA-AAAA-AAAA-AAAA-AAAA-AAAB')
    add('a code of mixed bytes', PAIRING_CODE, code_text(PAIRING_CODE))
    add('another code of mixed bytes', sha(b'glow-sync corpus: another pairing code')[:15],
        code_text(sha(b'glow-sync corpus: another pairing code')[:15]))
    return out


def pairing_cases():
    out = []
    shown = code_text(PAIRING_CODE)
    chars = shown.replace('-', '')
    slot, key, sealed = pairing_values(PAIRING_CODE, PERSON, SECRET)

    def add(comment, code, expected=None, error=None, person=PERSON, **extra):
        inp = {"code": code, "person": person}
        inp.update({k: v.hex() for k, v in extra.items()})
        out.append(case('sync-pairing-%03d' % (len(out) + 1), comment, ['SYNC-12'], inp, expected, error))

    def typed(comment, code):
        add(comment, code, {"slot": slot.hex(), "pairingKey": key.hex(), "sealed": sealed.hex()}, secret=SECRET)

    def refused(comment, code):
        add(comment, code, error={"code": "invalid_pairing_code"}, secret=SECRET)

    def tampered(comment, sealed_, code=shown, person=PERSON):
        add(comment, code, error={"code": "sync_pairing_tampered"}, person=person, sealed=sealed_)

    def replaced(at, char):
        """The code as shown with its character `at` (of the 24) replaced."""
        c = list(chars)
        c[at] = char
        return code_text_of(''.join(c))

    def code_text_of(text):
        return '-'.join(text[i:i + 4] for i in range(0, 24, 4))

    # -- The code as shown and as typed: the same 15 bytes, so the same slot, key and sealed secret
    typed('the code as shown, with a secret: its slot, its pairing key and the secret sealed (48 bytes)', shown)
    add('without a secret: the slot and the pairing key', shown, {"slot": slot.hex(), "pairingKey": key.hex()})
    typed('typed in lower case', shown.lower())
    typed('typed in mixed case', ''.join(ch.lower() if i % 3 else ch for i, ch in enumerate(shown)))
    typed('typed without hyphens', chars)
    typed('spaces in odd places, before and after, several together, and no hyphens',
          '  ' + chars[0:3] + ' ' + chars[3:9] + '   ' + chars[9:10] + ' ' + chars[10:17] + ' ' + chars[17:] + ' ')
    typed('hyphens anywhere: before, after, doubled, inside a group, and mixed with spaces; part in lower case',
          '-' + chars[0:5] + '--' + chars[5:11] + '- -' + chars[11:].lower() + '-')
    o_slot, o_key, o_sealed = pairing_values(PAIRING_CODE, OTHER_PERSON, SECRET)
    assert (o_slot, o_key) == (slot, key)
    add('the same code and secret for another person: the same slot and key, another sealed secret', shown,
        {"slot": slot.hex(), "pairingKey": key.hex(), "sealed": o_sealed.hex()}, person=OTHER_PERSON, secret=SECRET)
    x_slot, x_key, x_sealed = pairing_values(OTHER_PAIRING_CODE, PERSON, OTHER_SECRET)
    add('another code (sync-pairing-code-003) typed in lower case, with another secret',
        code_text(OTHER_PAIRING_CODE).lower(),
        {"slot": x_slot.hex(), "pairingKey": x_key.hex(), "sealed": x_sealed.hex()}, secret=OTHER_SECRET)

    # -- Codes that are not codes
    refused('23 characters', shown[:-1])
    refused('25 characters', shown + 'A')
    refused('23 characters and a space', shown[:-1] + ' ')
    refused('an empty code', '')
    refused('only hyphens and spaces', '----  ----')
    refused('`0` is not in the alphabet (`O` is)', replaced(5, '0'))
    refused('`1` is not in the alphabet (`I` is)', replaced(11, '1'))
    refused('`8` is not in the alphabet', replaced(17, '8'))
    refused('`9` is not in the alphabet', replaced(23, '9'))
    refused('padding `=` is not a character of a code', replaced(23, '='))
    refused('groups joined by `.`', shown.replace('-', '.'))
    refused('a fullwidth `Ａ` (U+FF21) is not ASCII\'s `A`, though compatibility normalisation would make it one',
            replaced(0, '\uff21'))
    refused('a dotted capital `İ` (U+0130) is not `I`', replaced(2, '\u0130'))
    refused('a dotless `ı` (U+0131) is not a letter of ASCII, though Unicode\'s upper case of it is `I`',
            replaced(2, '\u0131'))
    refused('a long `ſ` (U+017F) is not a letter of ASCII, though Unicode\'s upper case of it is `S`',
            replaced(2, '\u017f'))
    refused('the Kelvin sign `\u212a` (U+212A) is not `K`, though Unicode\'s lower case of it is `k`', replaced(2, '\u212a'))
    refused('a tab between groups is not a space', shown.replace('-', '\t', 1))

    # -- Opening a sealed secret
    add('a sealed secret that opens: the secret, for the code as shown', shown, {"secret": SECRET.hex()}, sealed=sealed)
    add('a sealed secret opened with the code typed in lower case, without hyphens', chars.lower(),
        {"secret": SECRET.hex()}, sealed=sealed)
    add('the sealed secret of another code and secret opens to that secret', code_text(OTHER_PAIRING_CODE),
        {"secret": OTHER_SECRET.hex()}, sealed=x_sealed)
    tampered('a byte of the ciphertext flipped', flip(sealed, 0))
    tampered('a byte of the tag flipped', flip(sealed, 47))
    tampered('sealed for another person', o_sealed)
    other_slot = pairing_values(OTHER_PAIRING_CODE, PERSON, SECRET)[0]
    tampered('sealed under the code\'s key for another code\'s slot',
             AESGCM(key).encrypt(bytes(12), SECRET, associated(PERSON, other_slot)))
    near = base64.b32decode(replaced(0, 'B' if chars[0] != 'B' else 'C').replace('-', ''))
    assert near != PAIRING_CODE
    tampered('sealed under a code one character off: a mistyped code that is well formed does not open it',
             pairing_values(near, PERSON, SECRET)[2])
    tampered('the sealed secret of the other code, opened with this one', x_sealed)
    tampered('sealed cut to 47 bytes', sealed[:-1])
    tampered('an empty sealed secret', b'')
    return out


def main():
    cli.arguments(sys.argv, __doc__, '/usr/bin/python3 Tools/conformance/make_sync_corpus.py')
    counts = {
        'keys.json': write('keys.json', 'sync.keys',
                           'The sync key and key id of a sync secret (SYNC-1). Input: `secret` (hex, 32 bytes). '
                           'Output: `syncKey` and `keyID` (hex). Written by Tools/conformance/make_sync_corpus.py.',
                           keys_cases()),
        'seal.json': write('seal.json', 'sync.seal',
                           'Sealing a record (SYNC-2, SYNC-3). Input: `secret`, `person`, `header` (`device`, '
                           '`sequence`, `previous` (hex, absent for none), `seen` ([{device, sequence, hash}]), `kind` '
                           '(`changes` or `snapshot`), `salt` (hex)), `plaintext` (hex). Output: `header` (hex: the '
                           'SyncHeader\'s canonical bytes), `record` (hex: the SyncRecord) and `hash` (hex: its SHA-256). '
                           'A header that breaks SYNC-2 is `sync_malformed`. Written by '
                           'Tools/conformance/make_sync_corpus.py.',
                           seal_cases()),
        'open.json': write('open.json', 'sync.open',
                           'Judging one record alone (SYNC-2 ... SYNC-4: checks 1, 2, 4 and 5 of SYNC-6). Input: '
                           '`secret`, `person`, `record` (hex). Output: `device`, `sequence`, `kind` (`changes` or '
                           '`snapshot`), `seen` ([{device, sequence, hash}] in the header\'s order) and `data` (the '
                           'JSON data set of the bundle inside, BUNDLE-17). Errors give `code`: `sync_malformed`, '
                           '`sync_wrong_key`, `sync_tampered`, or the bundle\'s own code. Written by '
                           'Tools/conformance/make_sync_corpus.py.',
                           open_cases()),
        'pull.json': write('pull.json', 'sync.pull',
                           'A device reading its person\'s records (SYNC-5 ... SYNC-8). Input: `secret`, `person`, '
                           '`device` (the reader\'s), `acknowledged`, `heads` ([{device, sequence, hash}]), `data` (the '
                           'reader\'s JSON data set), `pages` (each `records` (hex), `heads` ([{device, sequence}]), '
                           '`more`). Output: `data` (the merged data set) and `heads` ([{device, sequence, hash}] in '
                           'increasing byte order of device). A record\'s error gives `code`, `page` and `record` '
                           '(indexes from 0); an error of SYNC-7 gives `code`, `page` and `device`. Written by '
                           'Tools/conformance/make_sync_corpus.py.',
                           pull_cases()),
        'pairing_code.json': write('pairing_code.json', 'sync.pairingCode',
                                   'A pairing code as shown (SYNC-12). Input: `bytes` (hex, 15 bytes). Output: `code`, the '
                                   'bytes as one big-endian number of 120 bits in RFC 4648 base32 (`A` ... `Z`, `2` ... '
                                   '`7`, five bits a character, no padding), 24 characters in six groups of four joined '
                                   'by `-`. Written by Tools/conformance/make_sync_corpus.py.',
                                   pairing_code_cases()),
        'pairing.json': write('pairing.json', 'sync.pairing',
                              'A pairing code as a person typed it, and the secret sealed under it (SYNC-12). Input: '
                              '`code`, `person`, and optionally `secret` (hex, 32 bytes) or `sealed` (hex). Output: '
                              '`slot` (hex, 16 bytes) and `pairingKey` (hex, 32 bytes); with `secret`, `sealed` (hex, '
                              '48 bytes: AES-GCM under the pairing key, nonce 12 zero bytes, associated data the '
                              'SyncAssociated of the person and the slot); with `sealed`, the `secret` it opens to. '
                              'A code with a character other than the alphabet in ASCII\'s either case, spaces and '
                              '`-`, or with another number of characters than 24, is `invalid_pairing_code`; a sealed '
                              'secret that does not open is `sync_pairing_tampered`. Written by '
                              'Tools/conformance/make_sync_corpus.py.',
                              pairing_cases()),
    }
    for name, n in counts.items():
        print(f'{name}: {n} cases')


if __name__ == '__main__':
    main()
