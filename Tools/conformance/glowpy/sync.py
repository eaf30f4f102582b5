"""Section 11 of the spec (Spec/sync.md): a person's own data between their devices (SYNC-1 ... SYNC-8,
SYNC-12).

A device writes *records*, numbered per device and chained by their SHA-256: a `SyncRecord` of the
bytes of a `SyncHeader` (in the clear, authenticated as those bytes) and the bundle (section 4)
sealed with AES-256-GCM under a key made for the record from the person's sync key and the
header's salt, with the person and the header as associated data. The messages are read and
written by hand with `protowire`'s primitives: any valid encoding read (WIRE-5, WIRE-6, fields it
does not know skipped: the header is kept as its bytes, so they stay authenticated), the canonical
form written (WIRE-1 ... WIRE-4). AES-GCM and HKDF are `envelope.py`'s (python3-cryptography; without
it the operations answer `skipped`), the bundle inside is read by `bundle.py` and merged by
`dataset.py` (BUNDLE-21).

A reader (`Reader`) judges each record of a page in order by SYNC-6's checks, taking the records
before it in the page as merged, then, on the page that ends a pull, SYNC-7's; it merges a page
only once all of it passed (SYNC-8), so a refused page changes nothing.

A new device (SYNC-12): a pairing code is 15 bytes written as 24 base32 characters in groups of
four; it is read back from what a person typed (ASCII's case, spaces and `-` anywhere), and gives
a slot and a pairing key by HKDF, under which the sync secret is sealed for the person and the slot.
"""
import hashlib

from . import bundle
from . import model as m
from .dataset import DataSet, read_data
from .envelope import hkdf, opens
from .envelope import seal as aes_gcm_seal
from .errors import Failure
from .protowire import LENGTH, VARINT, read_field, read_varint, varint

INFO_KEY = b'glow-sync key'                  # SYNC-1
INFO_KEY_ID = b'glow-sync key id'            # SYNC-1
INFO_RECORD = b'glow-sync record'            # SYNC-3
NONCE = bytes(12)                            # SYNC-3
SECRET_BYTES, KEY_BYTES, KEY_ID_BYTES = 32, 32, 16
DEVICE_BYTES, HASH_BYTES, SALT_BYTES, TAG = 16, 32, 16, 16
MAX_SEEN = 256                               # SYNC-2
INFO_SLOT = b'glow-sync pairing slot'        # SYNC-12
INFO_PAIRING_KEY = b'glow-sync pairing key'  # SYNC-12
BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'  # SYNC-12: RFC 4648's alphabet
CODE_BYTES, CODE_CHARS, CODE_GROUP, SLOT_BYTES = 15, 24, 4, 16
CHANGES, SNAPSHOT = 0, 1
KIND_NAMES = {CHANGES: 'changes', SNAPSHOT: 'snapshot'}
KIND_VALUES = {name: value for value, name in KIND_NAMES.items()}

# The messages of SYNC-2 / SYNC-3: field number -> (name, type, repeated). `bytes`, `string`
# and messages are length-delimited; `uint64` and `enum` are varints.
SCHEMA = {
    'SyncHead': {1: ('device', 'bytes', False), 2: ('sequence', 'uint64', False), 3: ('hash', 'bytes', False)},
    'SyncHeader': {1: ('key_id', 'bytes', False), 2: ('device', 'bytes', False), 3: ('sequence', 'uint64', False),
                   4: ('previous', 'bytes', False), 5: ('seen', 'SyncHead', True), 6: ('kind', 'enum', False),
                   7: ('salt', 'bytes', False)},
    'SyncRecord': {1: ('header', 'bytes', False), 2: ('sealed', 'bytes', False)},
    'SyncAssociated': {1: ('person', 'string', False), 2: ('header', 'bytes', False)},
}
DEFAULTS = {'bytes': b'', 'string': '', 'uint64': 0, 'enum': 0}


class Located(Failure):
    """An error of sync.pull with where it was found: `page` and `record`, or `page` and `device`
    (sync.md 11.4); an error of the bundle inside a record keeps its own members (section, offset)."""

    def __init__(self, failure, **where):
        super().__init__(failure.code, str(failure), path=failure.path, issues=failure.issues,
                         offset=failure.offset, section=failure.section)
        self.where = where

    def response(self):
        out = super().response()
        out.update(self.where)
        return out


def malformed(message):
    return Failure('sync_malformed', 'SYNC-2: ' + message)


# ---- The wire (WIRE-1 ... WIRE-6)

def decode(name, data):
    """A message of SCHEMA from any valid encoding: a dict with every field (defaults filled in,
    repeated fields as lists). Unknown fields are skipped; a singular field given twice keeps the
    last value (WIRE-6). Wire errors are raised as `protowire` raises them."""
    fields = SCHEMA[name]
    out = {}
    for fname, ftype, repeated in fields.values():
        out[fname] = [] if repeated else DEFAULTS.get(ftype)
    pos, end = 0, len(data)
    while pos < end:
        tag_at = pos
        number, wire_type, start, stop, pos, _ = read_field(data, pos, end)
        field = fields.get(number)
        if field is None:
            continue
        fname, ftype, repeated = field
        wanted = VARINT if ftype in ('uint64', 'enum') else LENGTH
        if wire_type != wanted:
            raise Failure('invalid_wire_type', f'wire type {wire_type} for {name}.{fname}', offset=tag_at)
        if ftype in ('uint64', 'enum'):
            value = read_varint(data, start, stop)[0]
        elif ftype == 'bytes':
            value = bytes(data[start:stop])
        elif ftype == 'string':
            try:
                value = bytes(data[start:stop]).decode('utf-8')
            except UnicodeDecodeError:
                raise Failure('invalid_utf8', f'{name}.{fname} is not UTF-8', offset=start)
        else:
            value = decode(ftype, bytes(data[start:stop]))
        if repeated:
            out[fname].append(value)
        else:
            out[fname] = value
    return out


def encode(name, message):
    """WIRE-1 ... WIRE-4: fields in ascending order, defaults omitted, repeated messages as their
    elements in order, each a length-delimited field with a minimal length."""
    out = bytearray()
    for number in sorted(SCHEMA[name]):
        fname, ftype, repeated = SCHEMA[name][number]
        values = message.get(fname, [] if repeated else DEFAULTS.get(ftype))
        for value in (values if repeated else [values]):
            if ftype in ('uint64', 'enum'):
                if value == 0 and not repeated:
                    continue                                   # WIRE-2
                out += varint(number << 3 | VARINT) + varint(value)
                continue
            if ftype in DEFAULTS:
                body = value.encode('utf-8') if ftype == 'string' else bytes(value)
                if not body and not repeated:
                    continue                                   # WIRE-2
            else:
                body = encode(ftype, value)                    # a present sub-message is written
            out += varint(number << 3 | LENGTH) + varint(len(body)) + body
    return bytes(out)


# ---- Keys (SYNC-1) and sealing (SYNC-3)

def sync_key(secret):
    """SYNC-1: HKDF of the secret (empty salt), info `glow-sync key`, 32 bytes."""
    return hkdf(secret, b'', INFO_KEY, KEY_BYTES)


def key_id(key):
    """SYNC-1: HKDF of the sync key (empty salt), info `glow-sync key id`, 16 bytes."""
    return hkdf(key, b'', INFO_KEY_ID, KEY_ID_BYTES)


def record_key(key, salt):
    """SYNC-3: HKDF of the sync key with the header's salt as salt, info `glow-sync record`."""
    return hkdf(key, salt, INFO_RECORD, KEY_BYTES)


def associated(person, header_bytes):
    """SYNC-3: the canonical bytes of a SyncAssociated (the person, the header's bytes)."""
    return encode('SyncAssociated', {'person': person, 'header': header_bytes})


def header_problem(header):
    """SYNC-2: what in a header breaks the table, or None."""
    if len(header['key_id']) != KEY_ID_BYTES:
        return f'a key id of {len(header["key_id"])} bytes'
    if len(header['device']) != DEVICE_BYTES:
        return f'a device of {len(header["device"])} bytes'
    sequence, previous = header['sequence'], header['previous']
    if sequence == 0:
        return 'sequence 0'
    if sequence == 1 and previous:
        return 'a previous hash for sequence 1'
    if sequence > 1 and len(previous) != HASH_BYTES:
        return f'a previous hash of {len(previous)} bytes for sequence {sequence}'
    seen = header['seen']
    if len(seen) > MAX_SEEN:
        return f'{len(seen)} devices in seen, more than {MAX_SEEN}'
    for i, head in enumerate(seen):
        if len(head['device']) != DEVICE_BYTES:
            return f'seen[{i}]: a device of {len(head["device"])} bytes'
        if head['device'] == header['device']:
            return f'seen[{i}] names the writer itself'
        if i and head['device'] <= seen[i - 1]['device']:
            return f'seen[{i}] is out of order or repeated'
        if head['sequence'] == 0:
            return f'seen[{i}]: sequence 0'
        if len(head['hash']) != HASH_BYTES:
            return f'seen[{i}]: a hash of {len(head["hash"])} bytes'
    if header['kind'] not in KIND_NAMES:
        return f'kind {header["kind"]}'
    if len(header['salt']) != SALT_BYTES:
        return f'a salt of {len(header["salt"])} bytes'
    return None


def seal(secret, person, header, plaintext):
    """SYNC-2 / SYNC-3: (header bytes, record bytes, hash) of a record; the writer refuses a header
    a reader would refuse (`sync_malformed`)."""
    key = sync_key(secret)
    header = dict(header, key_id=key_id(key))
    problem = header_problem(header)
    if problem:
        raise malformed(problem)
    header_bytes = encode('SyncHeader', header)
    sealed = aes_gcm_seal(record_key(key, header['salt']), NONCE, plaintext, associated(person, header_bytes))
    record = encode('SyncRecord', {'header': header_bytes, 'sealed': sealed})
    return header_bytes, record, hashlib.sha256(record).digest()


# ---- Reading a record (SYNC-2 ... SYNC-4: checks 1, 2, 4 and 5 of SYNC-6)

class Record:
    """One record as read: its header's fields, its sealed bytes and its hash."""

    def __init__(self, raw):
        self.hash = hashlib.sha256(raw).digest()          # SYNC-2: of the bytes as sent
        try:
            record = decode('SyncRecord', raw)
            header = decode('SyncHeader', record['header'])
        except Failure as failure:                         # not a SyncRecord, or not a SyncHeader
            raise malformed(f'{failure.code} at {failure.offset}: {failure}')
        problem = header_problem(header)
        if problem:
            raise malformed(problem)
        if len(record['sealed']) < TAG:
            raise malformed(f'sealed is {len(record["sealed"])} bytes, shorter than a tag')
        self.header_bytes, self.sealed = record['header'], record['sealed']
        self.key_id, self.device, self.sequence = header['key_id'], header['device'], header['sequence']
        self.previous, self.kind, self.salt = header['previous'], header['kind'], header['salt']
        self.seen = [(h['device'], h['sequence'], h['hash']) for h in header['seen']]
        self.data = None

    def open(self, key, person):
        """SYNC-3 (`sync_tampered`) and SYNC-4 (the bundle's own error)."""
        plaintext = opens(record_key(key, self.salt), NONCE, self.sealed, associated(person, self.header_bytes))
        if plaintext is None:
            raise Failure('sync_tampered', 'SYNC-3: the record does not open')
        _, frames = bundle.read_bundle(plaintext)          # SYNC-4: refused with the bundle's error
        self.data = frames.data()


def judge_alone(raw, key, person):
    """Checks 1, 2, 4 and 5 of SYNC-6: shape, key id, opening, bundle."""
    record = Record(raw)
    if record.key_id != key_id(key):
        raise Failure('sync_wrong_key', 'SYNC-6: the record was sealed with another sync key')
    return record


# ---- A reader's pull (SYNC-6 ... SYNC-8)

class Reader:
    """A device reading its person's log: its data set, its heads (device bytes -> (sequence,
    hash)) and the sequence of its own last record the server acknowledged."""

    def __init__(self, secret, person, device, acknowledged, heads, data):
        self.key, self.person, self.device = sync_key(secret), person, device
        self.key_id = key_id(self.key)
        self.acknowledged = acknowledged
        self.heads = {d: h for d, h in heads.items() if d != device}   # its own device has no head
        self.data = DataSet(data)
        self.named = {}                    # SYNC-7: per device, the greatest sequence a merged record's seen named

    def head(self, device):
        """11.3: a head the reader does not have counts as sequence 0."""
        return self.heads.get(device, (0, b''))

    def pull(self, pages):
        for index, page in enumerate(pages):
            self.page(index, page)

    def page(self, index, page):
        """SYNC-6 for each record, SYNC-7 at a pull's end, then the page merged (SYNC-8)."""
        saved = dict(self.heads), dict(self.named)
        incoming = []
        try:
            for position, raw in enumerate(page['records']):
                try:
                    incoming.append(self.judge(raw).data)
                except Failure as failure:
                    raise Located(failure, page=index, record=position)
            if not page.get('more', False):
                self.end_of_pull(index, page['heads'])
        except Failure:
            self.heads, self.named = saved                 # SYNC-8: a refused page changes nothing
            raise
        for data in incoming:                              # SYNC-8: merged in order (BUNDLE-21)
            self.data.merge(data)
        if not page.get('more', False):
            self.named = {}                                # a pull ends; the next starts afresh

    def judge(self, raw):
        """SYNC-6: the first check that fails refuses the record; a record that passes moves the heads."""
        record = Record(raw)                                                   # 1
        if record.key_id != self.key_id:                                       # 2
            raise Failure('sync_wrong_key', 'SYNC-6: the record was sealed with another sync key')
        if record.device == self.device:                                       # 3
            raise Failure('sync_replayed', 'SYNC-6: a record of the reader\'s own device')
        record.open(self.key, self.person)                                     # 4, 5
        seen = [(d, s, h) for d, s, h in record.seen if d != self.device]      # 11.3: its own device not judged
        if record.kind == CHANGES:                                             # 6
            head_sequence, head_hash = self.head(record.device)
            if record.sequence <= head_sequence:
                raise Failure('sync_replayed', f'SYNC-6: sequence {record.sequence}, the reader is at {head_sequence}')
            if record.sequence > head_sequence + 1:
                raise Failure('sync_gap', f'SYNC-6: sequence {record.sequence} after {head_sequence}')
            if head_sequence and record.previous != head_hash:
                raise Failure('sync_broken_chain', 'SYNC-6: previous is not the hash of the reader\'s head')
        else:
            self.judge_snapshot(record, seen)
        for device, sequence, hash_ in seen:                                   # 7
            if sequence == self.heads.get(device, (0, b''))[0] and hash_ != self.heads[device][1]:
                raise Failure('sync_broken_chain', 'SYNC-6: seen names a head the reader holds with another hash')
        if record.kind == CHANGES:
            self.heads[record.device] = (record.sequence, record.hash)
        else:                                                                  # its coverage
            self.heads[record.device] = (record.sequence, record.hash)
            for device, sequence, hash_ in seen:
                self.heads[device] = (sequence, hash_)
        for device, sequence, _ in seen:                                       # for SYNC-7
            self.named[device] = max(sequence, self.named.get(device, 0))
        return record

    def judge_snapshot(self, record, seen):
        """SYNC-6, check 6 for a snapshot: not behind the reader, and no other hash at a head."""
        by_device = {d: (s, h) for d, s, h in seen}
        if self.head(record.device)[0] >= record.sequence:
            raise Failure('sync_replayed', 'SYNC-6: the reader is at or after the snapshot')
        for device, (sequence, _) in self.heads.items():
            if device != record.device and sequence > by_device.get(device, (0, b''))[0]:
                raise Failure('sync_replayed', 'SYNC-6: the reader is ahead of the snapshot\'s coverage')
        for device, sequence, hash_ in seen:
            if device in self.heads and self.heads[device][0] == sequence and self.heads[device][1] != hash_:
                raise Failure('sync_broken_chain', 'SYNC-6: seen names a head the reader holds with another hash')
        head_sequence, head_hash = self.head(record.device)
        if head_sequence and head_sequence == record.sequence - 1 and record.previous != head_hash:
            raise Failure('sync_broken_chain', 'SYNC-6: previous is not the hash of the reader\'s head')

    def end_of_pull(self, index, page_heads):
        """SYNC-7, in its order, the devices of each check in increasing byte order."""
        server = {}
        for entry in page_heads:
            server[m.uuid_bytes(m.parse_uuid(entry['device']))] = entry['sequence']

        def refuse(code, device, message):
            return Located(Failure(code, 'SYNC-7: ' + message), page=index, device=m.uuid_text(device))
        for device in sorted(self.named):
            if self.named[device] > self.head(device)[0]:
                raise refuse('sync_gap', device, 'a merged record named a record the reader does not have')
        others = sorted((set(server) | set(self.heads)) - {self.device})
        for device in others:
            if server.get(device, 0) > self.head(device)[0]:
                raise refuse('sync_gap', device, 'the server keeps records it did not send')
        for device in others:
            if server.get(device, 0) < self.head(device)[0]:
                raise refuse('sync_rollback', device, 'the server lost records it had sent')
        if server.get(self.device, 0) < self.acknowledged:
            raise refuse('sync_rollback', self.device, 'the server lost the reader\'s own records')

    def heads_json(self):
        return [{'device': m.uuid_text(d), 'sequence': s, 'hash': h.hex()} for d, (s, h) in sorted(self.heads.items())]


# ---- A new device: pairing codes (SYNC-12)

def pairing_code(code):
    """SYNC-12: the 15 bytes as one big-endian number of 120 bits, five bits a character from the
    most significant, in six groups of four joined by `-`."""
    if len(code) != CODE_BYTES:
        raise Failure('invalid_value', f'a pairing code is {CODE_BYTES} bytes, not {len(code)}')
    number = int.from_bytes(code, 'big')
    chars = ''.join(BASE32[(number >> 5 * (CODE_CHARS - 1 - i)) & 31] for i in range(CODE_CHARS))
    return '-'.join(chars[i:i + CODE_GROUP] for i in range(0, CODE_CHARS, CODE_GROUP))


def read_pairing_code(text):
    """SYNC-12: a code as a person typed it: ASCII letters in either case (no other case mapping, so
    `ı`, `ſ` or a fullwidth letter is not a letter of the alphabet), spaces (U+0020) and `-`
    anywhere; any other character, or another number of characters than 24, is
    `invalid_pairing_code`."""
    number = count = 0
    for char in text:
        if char in ' -':
            continue
        if 'a' <= char <= 'z':
            char = chr(ord(char) - 32)                 # ASCII's case only
        value = BASE32.find(char)
        if value < 0:
            raise Failure('invalid_pairing_code', f'SYNC-12: {char!r} is not a character of a pairing code')
        number = number << 5 | value
        count += 1
    if count != CODE_CHARS:
        raise Failure('invalid_pairing_code', f'SYNC-12: {count} characters, not {CODE_CHARS}')
    return number.to_bytes(CODE_BYTES, 'big')


def pairing_slot(code):
    """SYNC-12: HKDF of the code's bytes (empty salt), info `glow-sync pairing slot`, 16 bytes."""
    return hkdf(code, b'', INFO_SLOT, SLOT_BYTES)


def pairing_key(code):
    """SYNC-12: HKDF of the code's bytes (empty salt), info `glow-sync pairing key`, 32 bytes."""
    return hkdf(code, b'', INFO_PAIRING_KEY, KEY_BYTES)


def seal_secret(code, person, secret):
    """SYNC-12: AES-GCM of the secret under the pairing key, nonce 12 zero bytes, associated data
    the SyncAssociated of the person and the slot: 48 bytes."""
    return aes_gcm_seal(pairing_key(code), NONCE, secret, associated(person, pairing_slot(code)))


def open_secret(code, person, sealed):
    """SYNC-12: the secret a sealed secret opens to, or `sync_pairing_tampered` (it does not open
    under the code's key for this person and this slot, or is not a sealed secret of 32 bytes)."""
    secret = None
    if len(sealed) >= TAG:
        secret = opens(pairing_key(code), NONCE, sealed, associated(person, pairing_slot(code)))
    if secret is None or len(secret) != SECRET_BYTES:
        raise Failure('sync_pairing_tampered', 'SYNC-12: the sealed secret does not open with this code')
    return secret


# ---- The operations (sync.md 11.6)

def secret_of(inp):
    secret = bytes.fromhex(inp['secret'])
    if len(secret) != SECRET_BYTES:
        raise Failure('invalid_value', f'a sync secret is {SECRET_BYTES} bytes, not {len(secret)}')
    return secret


def device_of(text, path):
    return m.uuid_bytes(m.scalar(m.parse_uuid, text, path))


def heads_of(entries, path):
    out = {}
    for i, e in enumerate(entries):
        out[device_of(e['device'], f'{path}[{i}].device')] = (e['sequence'], bytes.fromhex(e['hash']))
    return out


def seen_json(seen):
    return [{'device': m.uuid_text(d), 'sequence': s, 'hash': h.hex()} for d, s, h in seen]


def keys_op(inp):
    key = sync_key(secret_of(inp))
    return {'syncKey': key.hex(), 'keyID': key_id(key).hex()}


def seal_op(inp):
    h = inp['header']
    header = {
        'device': device_of(h['device'], '$.header.device'),
        'sequence': h['sequence'],
        'previous': bytes.fromhex(h.get('previous') or ''),
        'seen': [{'device': device_of(e['device'], f'$.header.seen[{i}].device'), 'sequence': e['sequence'],
                  'hash': bytes.fromhex(e['hash'])} for i, e in enumerate(h.get('seen', []))],
        'kind': KIND_VALUES[m.enum(h.get('kind', 'changes'), KIND_VALUES, '$.header.kind')],
        'salt': bytes.fromhex(h['salt']),
    }
    header_bytes, record, digest = seal(secret_of(inp), inp['person'], header, bytes.fromhex(inp['plaintext']))
    return {'header': header_bytes.hex(), 'record': record.hex(), 'hash': digest.hex()}


def open_op(inp):
    key = sync_key(secret_of(inp))
    record = judge_alone(bytes.fromhex(inp['record']), key, inp['person'])
    record.open(key, inp['person'])
    return {'device': m.uuid_text(record.device), 'sequence': record.sequence, 'kind': KIND_NAMES[record.kind],
            'seen': seen_json(record.seen), 'data': m.strip(DataSet(record.data).json()),
            'previous': record.previous.hex(), 'hash': record.hash.hex()}


def pull_op(inp):
    reader = Reader(secret_of(inp), inp['person'], device_of(inp['device'], '$.device'), inp.get('acknowledged', 0),
                    heads_of(inp.get('heads', []), '$.heads'), read_data(inp.get('data', {'goals': [], 'checkIns': []}), '$.data'))
    reader.pull([dict(p, records=[bytes.fromhex(r) for r in p['records']]) for p in inp['pages']])
    return {'data': m.strip(reader.data.json()), 'heads': reader.heads_json()}


def pairing_code_op(inp):
    return {'code': pairing_code(bytes.fromhex(inp['bytes']))}


def pairing_op(inp):
    """The slot and pairing key of a typed code; with `secret`, the secret sealed; with `sealed`
    instead, the secret it opens to."""
    code = read_pairing_code(inp['code'])
    out = {'slot': pairing_slot(code).hex(), 'pairingKey': pairing_key(code).hex()}
    if inp.get('sealed') is not None:
        out['secret'] = open_secret(code, inp['person'], bytes.fromhex(inp['sealed'])).hex()
    elif inp.get('secret') is not None:
        out['sealed'] = seal_secret(code, inp['person'], secret_of(inp)).hex()
    return out


OPERATIONS = {
    'sync.keys': keys_op,
    'sync.seal': seal_op,
    'sync.open': open_op,
    'sync.pairingCode': pairing_code_op,
    'sync.pairing': pairing_op,
    'sync.pull': pull_op,
}
