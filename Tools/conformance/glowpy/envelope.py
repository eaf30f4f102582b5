"""Section 4.7 of the spec (Spec/bundle.md): encrypted bundles (BUNDLE-29 ... BUNDLE-35).

An encrypted bundle is a header (36 fixed bytes, n stanzas of 49, a MAC of 32) and the bundle
inside in chunks of 65,552 bytes, the last shorter:

    offset 0      magic \\x89GLE\\r\\n\\x1a\\n            BUNDLE-29
           8      version (UInt16, 1)                     BUNDLE-29
           10     Argon2id memory in KiB (UInt32)         BUNDLE-30
           14     passes (UInt32)                         BUNDLE-30
           18     lanes (UInt8)                           BUNDLE-30
           19     salt (16 bytes)                         BUNDLE-30
           35     n (UInt8, 1 or 2)                       BUNDLE-31
           36     n stanzas: a kind, the sealed file key   BUNDLE-31
           36+49n HMAC-SHA-256 of every byte before it     BUNDLE-32
           68+49n chunks                                  BUNDLE-33

`Opener` reads it as a stream: it takes the file in pieces of any size, holds at most two chunks
(the header's 166 bytes at most before them), and gives out a chunk's bytes only once the chunk
has authenticated (BUNDLE-34). `Sealer` writes it the same way, holding at most one chunk of the
bundle. AES-256-GCM is Debian's python3-cryptography (`AESGCM`), imported when first used so that
a Python without it answers `skipped` here and runs the rest; HMAC-SHA-256 is `hmac`, HKDF
(RFC 5869) is written out below, Argon2id is `argon2.py` and NFC is `unicodedata`.

Every error of the envelope is in section `envelope`, its offset counted from the file's start
(BUNDLE-29); a recovery key in words that BUNDLE-35 refuses is `invalid_recovery_key`, found
before the file is read: section `envelope`, offset 0 (BUNDLE-35).
"""
import base64
import hashlib
import hmac
import os
import unicodedata

from . import argon2
from .characters import is_white_space
from .errors import Failure

MAGIC = b'\x89GLE\r\n\x1a\n'                  # BUNDLE-29
PLAIN_MAGIC = b'\x89GLW\r\n\x1a\n'            # BUNDLE-1: a bundle that is not encrypted
VERSION = 1                                   # BUNDLE-29
FIXED = 36                                    # magic, version, parameters, salt, count
SALT_AT, COUNT_AT = 19, 35
SALT_BYTES, KEY_BYTES = 16, 32
STANZA = 49                                   # BUNDLE-31: a kind and the file key sealed (32 + 16)
MAC_BYTES = 32                                # BUNDLE-32
LARGEST_HEADER = FIXED + 2 * STANZA + MAC_BYTES
TAG = 16
PIECE = 65_536                                # BUNDLE-33: the bundle's bytes in a chunk but the last
CHUNK = PIECE + TAG                           # a stored chunk: its ciphertext and tag
PASSPHRASE, RECOVERY_KEY = 1, 2               # BUNDLE-31: the stanzas' kinds
KIND_NAMES = {PASSPHRASE: 'passphrase', RECOVERY_KEY: 'recoveryKey'}
MEMORY_CAP, PASSES_CAP, LANES_CAP = 262_144, 16, 4                               # BUNDLE-30
SDK_KDF = {'memoryKiB': 65_536, 'iterations': 3, 'parallelism': 1}             # BUNDLE-30
STANZA_NONCE = bytes(12)                      # BUNDLE-31
INFO_RECOVERY = b'glow-bundle recovery key'   # BUNDLE-31
INFO_HEADER = b'glow-bundle header'           # BUNDLE-32
INFO_PAYLOAD = b'glow-bundle payload'         # BUNDLE-33
RECOVERY_WORDS = 34                           # BUNDLE-35: 32 key words and 2 checksum words

HERE = os.path.dirname(os.path.abspath(__file__))
WORDS_PATH = os.path.normpath(os.path.join(HERE, '..', '..', '..', 'Spec', 'recovery-words.txt'))


def fail(code, offset, message):
    """BUNDLE-29: the errors of this section are in section `envelope`, at offsets from the file's start."""
    return Failure(code, message, section='envelope', offset=offset)


# ---- The primitives

_aesgcm = None


def aead(key):
    """AES-256-GCM (12-byte nonce, 16-byte tag after the ciphertext) from python3-cryptography."""
    global _aesgcm
    if _aesgcm is None:
        try:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            from cryptography.exceptions import InvalidTag
        except ImportError as reason:                        # answered as `skipped` (testee.py)
            raise NotImplementedError(f'encrypted bundles need python3-cryptography ({reason})') from None
        _aesgcm = (AESGCM, InvalidTag)
    return _aesgcm[0](key)


def opens(key, nonce, sealed, associated):
    """The plaintext of an AES-GCM `sealed` (ciphertext and tag), or None when it does not authenticate."""
    cipher = aead(key)
    try:
        return cipher.decrypt(nonce, bytes(sealed), bytes(associated))
    except _aesgcm[1]:
        return None


def seal(key, nonce, plaintext, associated):
    return aead(key).encrypt(nonce, bytes(plaintext), bytes(associated))


def hkdf(secret, salt, info, length=32):
    """HKDF-SHA-256 (RFC 5869): extract, PRK = HMAC(salt, IKM), then expand, T(i) = HMAC(PRK,
    T(i - 1) | info | i), the first `length` bytes of T(1) | T(2) | ..."""
    prk = hmac.new(salt, secret, hashlib.sha256).digest()
    out, block, counter = b'', b'', 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def passphrase_bytes(passphrase):
    """BUNDLE-31: a passphrase is its UTF-8 in Unicode NFC."""
    return unicodedata.normalize('NFC', passphrase).encode('utf-8')


def stanza_key(kind, secret, salt, kdf):
    """BUNDLE-31: the key that seals the file key for a stanza: Argon2id (version 0x13) of the
    passphrase with the salt and the parameters, or HKDF of the recovery key; 32 bytes each."""
    if kind == PASSPHRASE:
        memory, passes, lanes = kdf
        return argon2.argon2id(passphrase_bytes(secret), salt, b'', b'', memory, passes, lanes, KEY_BYTES)
    return hkdf(secret, salt, INFO_RECOVERY)


def chunk_nonce(index, last):
    """BUNDLE-33: the chunk's index as 11 big-endian bytes, then 1 for the last chunk, 0 for others."""
    return index.to_bytes(11, 'big') + bytes([1 if last else 0])


def kdf_problem(memory, passes, lanes):
    """BUNDLE-30: lanes 1 ... 4 (offset 18), memory 8 x lanes ... 262,144 KiB (offset 10), passes
    1 ... 16 (offset 14), in that order (the floor on memory needs the lanes). Returns (offset,
    message) or None."""
    if not 1 <= lanes <= LANES_CAP:
        return 18, f'{lanes} lanes, outside 1 ... {LANES_CAP}'
    if not 8 * lanes <= memory <= MEMORY_CAP:
        return 10, f'{memory} KiB of memory, outside {8 * lanes} ... {MEMORY_CAP}'
    if not 1 <= passes <= PASSES_CAP:
        return 14, f'{passes} passes, outside 1 ... {PASSES_CAP}'
    return None


# ---- BUNDLE-35 Recovery keys in words

_words = None


def word_list():
    """Spec/recovery-words.txt: 256 words, the word of byte value v on line v + 1, no two sharing
    their first four letters. Returns (the words, a map of each word and of its first four letters
    to its byte)."""
    global _words
    if _words is None:
        with open(WORDS_PATH, encoding='utf-8') as file:
            words = file.read().splitlines()
        lookup = {}
        for value, word in enumerate(words):
            lookup[word] = value
            lookup.setdefault(word[:4], value)
        prefixes = {word[:4] for word in words}
        if len(words) != 256 or len(prefixes) != 256 or not all(w.isascii() and w.isalpha() and w.islower() for w in words):
            raise RuntimeError(f'{WORDS_PATH} is not a list of 256 words with distinct first four letters')
        _words = (words, lookup)
    return _words


def split_words(text):
    """BUNDLE-35: words separated by white space (the White_Space property, as model.md 1.12 has
    it) or hyphens, any number of them, and any at either end."""
    tokens, current = [], []
    for character in text:
        if character == '-' or is_white_space(ord(character)):
            if current:
                tokens.append(''.join(current))
                current = []
        else:
            current.append(character)
    if current:
        tokens.append(''.join(current))
    return tokens


def recovery_key(text):
    """BUNDLE-35: the 32 bytes of a recovery key written as 34 words: one word per byte, then the
    words of the first two bytes of the key's SHA-256. Words are taken in any case (A-Z for a-z:
    the list is ASCII), each in full or by its first four letters; a word not on the list, a count
    other than 34 or checksum words that do not match are `invalid_recovery_key`."""
    if not isinstance(text, str):
        raise fail('invalid_recovery_key', 0, 'a recovery key is text: 34 words')
    _, lookup = word_list()
    tokens = split_words(text)
    if len(tokens) != RECOVERY_WORDS:
        raise fail('invalid_recovery_key', 0, f'{len(tokens)} words; a recovery key has {RECOVERY_WORDS}')
    values = []
    for position, token in enumerate(tokens, 1):
        value = lookup.get(token.lower()) if token.isascii() else None
        if value is None:
            raise fail('invalid_recovery_key', 0, f'word {position}, "{token}", is not on the list')
        values.append(value)
    key, check = bytes(values[:32]), bytes(values[32:])
    if hashlib.sha256(key).digest()[:2] != check:
        raise fail('invalid_recovery_key', 0, 'the last two words do not match the others: a word is wrong or out of place')
    return key


CLASSED_AS_KEY = 17                 # BUNDLE-35: half a key's words make one secret a recovery key


def word_like(token):
    """BUNDLE-35: a part that counts toward a recovery key: a word of the list in full (`fox` and
    `owl` included), or ASCII letters whose first four, in lower case, are a word's first four."""
    if not token.isascii():
        return False
    words, lookup = word_list()
    lower = token.lower()
    # Four or more letters: the first four are looked up (a word of four letters is its own prefix).
    return lower in words or (len(lower) >= 4 and lower[:4] in lookup)


def classify(text):
    """BUNDLE-35: one secret (typed, or read from a descriptor) is a recovery key when at least 17
    of its parts are words of the list or begin with a word's first four letters; it is then read
    as one, and words that are no key are `invalid_recovery_key`. Anything else is a passphrase.
    Returns ('passphrase', text) or ('recoveryKey', the key's 32 bytes)."""
    if sum(1 for token in split_words(text) if word_like(token)) >= CLASSED_AS_KEY:
        return 'recoveryKey', recovery_key(text)
    return 'passphrase', text


def recovery_words(key):
    """BUNDLE-35: the 34 words of a 32-byte recovery key, as a writer shows them."""
    words, _ = word_list()
    return ' '.join(words[b] for b in key + hashlib.sha256(key).digest()[:2])


# ---- BUNDLE-29 ... BUNDLE-34 Reading

class Opener:
    """A streaming reader of an encrypted bundle (BUNDLE-34), for a passphrase or a recovery key.

    `feed(piece)` takes the next bytes of the file and returns the bundle's bytes of the chunks
    that have authenticated; `finish()` is called when the file ends and returns the last chunk's.
    It holds the header (at most 166 bytes) until the header is whole, then at most two chunks: a
    chunk is opened once a byte after it has arrived (so it is not the last, BUNDLE-34), and the
    last is the one the file ends with.

    The checks, in BUNDLE-34's order: the signature as soon as its bytes are there (`bad_magic`);
    the header read whole, its length given by the count at offset 35, so a file that ends inside
    it is `truncated` at the file's length (BUNDLE-29); then its shape: the version (BUNDLE-29),
    the parameters' caps, then the reader's memory budget when it holds one (BUNDLE-30:
    `kdf_over_budget`), the count and the kinds (BUNDLE-31); then the one key
    derivation for the stanza of the secret's kind (`no_such_key` when there is none,
    `wrong_passphrase` or `wrong_recovery_key` when it does not open); then the header MAC
    (BUNDLE-32); then the chunks in order (BUNDLE-33, BUNDLE-34).
    """

    def __init__(self, passphrase=None, recovery_key=None, memory_budget=None):
        if (passphrase is None) == (recovery_key is None):
            raise ValueError('an Opener takes a passphrase or a recovery key')
        self.memory_budget = memory_budget            # BUNDLE-30: KiB, below the cap; None: the cap
        self.kind = PASSPHRASE if passphrase is not None else RECOVERY_KEY
        self.secret = passphrase if passphrase is not None else recovery_key
        self.buffer = bytearray()
        self.at = 0                                   # the file offset of buffer[0]
        self.header = None                            # what the header holds, once it has opened
        self.payload_key = self.mac = None
        self.index = 0                                # the next chunk's index

    # -- the pieces

    def feed(self, piece):
        out = []
        piece = memoryview(bytes(piece))
        while piece:
            room = (LARGEST_HEADER if self.header is None else 2 * CHUNK) - len(self.buffer)
            taken, piece = piece[:room], piece[room:]
            self.buffer += taken
            if self.header is None:
                self.read_header(final=False)
            if self.header is not None:
                out += self.open_chunks()
        return b''.join(out)

    def finish(self):
        """The file has ended: the header must be whole, and the last chunk is what is left."""
        if self.header is None:
            self.read_header(final=True)
        return self.open_last()

    # -- the header

    def read_header(self, final):
        buffer, length = self.buffer, self.at + len(self.buffer)
        if not buffer and final:
            raise fail('bad_magic', 0, 'not an encrypted Glow bundle: the file is empty')
        if bytes(buffer[:len(MAGIC)]) != MAGIC[:min(len(buffer), len(MAGIC))]:
            raise fail('bad_magic', 0, 'not an encrypted Glow bundle: ' + magic_hint(bytes(buffer[:len(MAGIC)])))
        # BUNDLE-29: the header is 36 bytes, and 36 + 49n + 32 when the count n is 1 or 2; a file
        # that ends before its end (1 ... 7 bytes of the signature included) is truncated.
        count = buffer[COUNT_AT] if len(buffer) > COUNT_AT else None
        size = FIXED + count * STANZA + MAC_BYTES if count in (1, 2) else FIXED
        if len(buffer) < size:
            if final:
                raise fail('truncated', length, 'the file ends inside the encrypted bundle\'s header')
            return                                        # wait for the rest of the header
        self.open_header(bytes(buffer[:size]) if count in (1, 2) else bytes(buffer[:FIXED]))

    def open_header(self, header):
        """BUNDLE-29 ... BUNDLE-32 on a whole header (or on the fixed 36 bytes when its count is
        not 1 or 2, which is refused before the stanzas would be needed)."""
        version = int.from_bytes(header[8:10], 'little')
        if version != VERSION:                                              # BUNDLE-29
            raise fail('unsupported_version', 8, f'encrypted bundle format {version}; this reader reads {VERSION}')
        memory = int.from_bytes(header[10:14], 'little')
        passes = int.from_bytes(header[14:18], 'little')
        lanes = header[18]
        problem = kdf_problem(memory, passes, lanes)                         # BUNDLE-30: before any derivation
        if problem is not None:
            raise fail('kdf_out_of_range', *problem)
        if self.memory_budget is not None and memory > self.memory_budget:  # BUNDLE-30: after the caps
            raise fail('kdf_over_budget', 10,
                       f'the file asks for {memory} KiB of memory; this reader\'s budget is {self.memory_budget} KiB')
        salt = header[SALT_AT:SALT_AT + SALT_BYTES]
        count = header[COUNT_AT]
        if count not in (1, 2):                                              # BUNDLE-31
            raise fail('malformed_header', COUNT_AT, f'{count} stanzas; a file has 1 or 2')
        kinds, previous = [], 0
        for i in range(count):
            at = FIXED + i * STANZA
            kind = header[at]
            if kind not in KIND_NAMES:
                raise fail('malformed_header', at, f'a stanza of unknown kind {kind}')
            if kind <= previous:
                raise fail('malformed_header', at, 'stanzas out of order, or two of one kind')
            kinds.append(kind)
            previous = kind

        if self.kind not in kinds:                                           # BUNDLE-34
            raise fail('no_such_key', COUNT_AT, f'the file has no stanza for a {KIND_NAMES[self.kind]}')
        at = FIXED + kinds.index(self.kind) * STANZA
        key = stanza_key(self.kind, self.secret, salt, (memory, passes, lanes))     # the one derivation
        file_key = opens(key, STANZA_NONCE, header[at + 1:at + STANZA], header[:COUNT_AT] + bytes([self.kind]))
        if file_key is None:
            code = 'wrong_passphrase' if self.kind == PASSPHRASE else 'wrong_recovery_key'
            raise fail(code, at, f'the {KIND_NAMES[self.kind]} does not open this file')

        mac_at = FIXED + count * STANZA                                      # BUNDLE-32
        expected = hmac.new(hkdf(file_key, salt, INFO_HEADER), header[:mac_at], hashlib.sha256).digest()
        if not hmac.compare_digest(expected, header[mac_at:mac_at + MAC_BYTES]):
            raise fail('header_tampered', mac_at, 'the header has been changed')
        self.mac = header[mac_at:mac_at + MAC_BYTES]
        self.payload_key = hkdf(file_key, salt, INFO_PAYLOAD)                # BUNDLE-33
        self.header = {'kdf': {'memoryKiB': memory, 'iterations': passes, 'parallelism': lanes},
                       'stanzas': [KIND_NAMES[k] for k in kinds]}
        del self.buffer[:len(header)]
        self.at += len(header)

    # -- the chunks

    def open_chunks(self):
        """BUNDLE-33: every chunk followed by more bytes is not the last: it opens as one with more to follow."""
        out = []
        while len(self.buffer) > CHUNK:
            out.append(self.open_chunk(self.buffer[:CHUNK], last=False))
            del self.buffer[:CHUNK]
            self.at += CHUNK
            self.index += 1
        return out

    def open_last(self):
        """BUNDLE-34: the chunk the file ends with is the last. None at all, or fewer bytes than a
        tag, is `truncated`; a whole chunk that opens only as one with more to follow means the file
        was cut where a chunk ends, `truncated` too (at the file's length); anything else that does
        not open is `chunk_tampered`."""
        rest, length = bytes(self.buffer), self.at + len(self.buffer)
        if not rest and self.index == 0:
            raise fail('truncated', length, 'the file holds no chunk after its header')
        if len(rest) < TAG:
            raise fail('truncated', length, 'the file ends before a chunk\'s tag')
        plaintext = opens(self.payload_key, chunk_nonce(self.index, True), rest, self.mac)
        if plaintext is None:
            if len(rest) == CHUNK and opens(self.payload_key, chunk_nonce(self.index, False), rest, self.mac) is not None:
                raise fail('truncated', length, 'the file ends where a chunk ends, but more chunks should follow')
            raise fail('chunk_tampered', self.at, f'chunk {self.index} does not authenticate')
        if not plaintext and self.index > 0:
            # BUNDLE-33: empty only for an empty bundle; after full chunks no writer writes one.
            raise fail('chunk_tampered', self.at, f'chunk {self.index}, the last, is empty after full chunks')
        self.buffer.clear()
        self.at = length
        return plaintext

    def open_chunk(self, stored, last):
        plaintext = opens(self.payload_key, chunk_nonce(self.index, last), stored, self.mac)
        if plaintext is None:
            raise fail('chunk_tampered', self.at, f'chunk {self.index} does not authenticate')
        return plaintext


def magic_hint(head):
    """BUNDLE-1 / BUNDLE-29: what a file that is no encrypted bundle looks like, where that is recognisable."""
    if PLAIN_MAGIC.startswith(head) or head.startswith(PLAIN_MAGIC):
        return 'it is a bundle that is not encrypted; read it as one'
    return 'unrecognised signature'


# ---- BUNDLE-29 ... BUNDLE-33 Writing

class Sealer:
    """A streaming writer of an encrypted bundle: `header()` first, then `feed(piece)` with the
    bundle's bytes and `finish()` at its end, each returning the file's next bytes. It holds at
    most one chunk of the bundle: a chunk is sealed as one with more to follow once a byte after it
    has arrived, and the last (1 ... 65,536 bytes, 0 only for an empty bundle) at the end.

    `passphrase` and `recovery_key` (32 bytes) are the secrets, at least one; `kdf` is (memory
    KiB, passes, lanes) within BUNDLE-30's caps; `salt` (16 bytes) and `file_key` (32 bytes) are
    new random bytes for every file unless given (test vectors give them)."""

    def __init__(self, passphrase=None, recovery_key=None, kdf=None, salt=None, file_key=None):
        if passphrase is None and recovery_key is None:
            raise ValueError('a Sealer takes a passphrase, a recovery key or both')
        memory, passes, lanes = kdf or (SDK_KDF['memoryKiB'], SDK_KDF['iterations'], SDK_KDF['parallelism'])
        problem = kdf_problem(memory, passes, lanes)
        if problem is not None:
            raise fail('kdf_out_of_range', *problem)
        salt = os.urandom(SALT_BYTES) if salt is None else bytes(salt)
        file_key = os.urandom(KEY_BYTES) if file_key is None else bytes(file_key)
        if len(salt) != SALT_BYTES or len(file_key) != KEY_BYTES:
            raise ValueError('a salt is 16 bytes and a file key 32')
        stanzas = [(kind, secret) for kind, secret in ((PASSPHRASE, passphrase), (RECOVERY_KEY, recovery_key))
                   if secret is not None]                                    # BUNDLE-31: kinds in increasing order
        fixed = (MAGIC + VERSION.to_bytes(2, 'little') + memory.to_bytes(4, 'little') + passes.to_bytes(4, 'little')
                 + bytes([lanes]) + salt + bytes([len(stanzas)]))
        header = bytearray(fixed)
        for kind, secret in stanzas:
            key = stanza_key(kind, secret, salt, (memory, passes, lanes))
            header += bytes([kind]) + seal(key, STANZA_NONCE, file_key, fixed[:COUNT_AT] + bytes([kind]))
        self.mac = hmac.new(hkdf(file_key, salt, INFO_HEADER), bytes(header), hashlib.sha256).digest()   # BUNDLE-32
        self._header = bytes(header) + self.mac
        self.payload_key = hkdf(file_key, salt, INFO_PAYLOAD)                                            # BUNDLE-33
        self.pending = bytearray()
        self.index = 0

    def header(self):
        return self._header

    def feed(self, piece):
        out = []
        piece = memoryview(bytes(piece))
        while piece:
            taken, piece = piece[:PIECE + 1 - len(self.pending)], piece[PIECE + 1 - len(self.pending):]
            self.pending += taken
            if len(self.pending) > PIECE:                 # a byte after a whole chunk: it is not the last
                out.append(self.seal_chunk(self.pending[:PIECE], last=False))
                del self.pending[:PIECE]
        return b''.join(out)

    def finish(self):
        return self.seal_chunk(self.pending, last=True)

    def seal_chunk(self, plaintext, last):
        sealed = seal(self.payload_key, chunk_nonce(self.index, last), plaintext, self.mac)
        self.index += 1
        return sealed


# ---- The operations (bundle.md 4.8)

READ_PIECE = 10_007                # decrypt feeds the file in pieces of this size, which divides no chunk


def file_of(inp):
    """CONF-3: the runner sends the corpus file's bytes in base64."""
    return base64.b64decode(inp['fileBase64'])


def decrypt_op(inp):
    """bundle.decrypt: the file opened with `passphrase` or `recoveryKey` (words, BUNDLE-35), by a
    reader of memory budget `memoryBudgetKiB` when given (BUNDLE-30); the parameters, the stanzas,
    and the length and SHA-256 of the bundle inside."""
    if ('passphrase' in inp) == ('recoveryKey' in inp):
        raise Failure('invalid_request', 'bundle.decrypt takes a passphrase or a recovery key, one of them')
    budget = inp.get('memoryBudgetKiB')
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)):
        raise Failure('invalid_request', 'memoryBudgetKiB is a number of KiB')
    if 'passphrase' in inp:
        opener = Opener(passphrase=inp['passphrase'], memory_budget=budget)
    else:
        opener = Opener(recovery_key=recovery_key(inp['recoveryKey']), memory_budget=budget)
    data = file_of(inp)
    digest, length = hashlib.sha256(), 0
    for start in range(0, len(data), READ_PIECE):
        out = opener.feed(data[start:start + READ_PIECE])
        digest.update(out)
        length += len(out)
    out = opener.finish()
    digest.update(out)
    length += len(out)
    return dict(opener.header, length=length, sha256=digest.hexdigest())


def encrypt_op(inp):
    """bundle.encrypt: the bundle of `plaintext.length` bytes i mod 251 sealed with the given
    passphrase, recovery key (words), parameters, salt and file key; the header (through its MAC)
    in hex, and the length and SHA-256 of the whole file."""
    n = inp['plaintext']['length']
    kdf = inp.get('kdf')
    sealer = Sealer(passphrase=inp.get('passphrase'),
                    recovery_key=recovery_key(inp['recoveryKey']) if 'recoveryKey' in inp else None,
                    kdf=(kdf['memoryKiB'], kdf['iterations'], kdf['parallelism']) if kdf else None,
                    salt=bytes.fromhex(inp['salt']) if 'salt' in inp else None,
                    file_key=bytes.fromhex(inp['fileKey']) if 'fileKey' in inp else None)
    header = sealer.header()
    digest, length = hashlib.sha256(header), len(header)
    pattern = bytes(range(251))
    for start in range(0, n, 4 * PIECE - 3):             # pieces across chunk boundaries
        end = min(n, start + 4 * PIECE - 3)
        piece = (pattern * ((end - start) // 251 + 2))[start % 251:start % 251 + end - start]
        out = sealer.feed(piece)
        digest.update(out)
        length += len(out)
    out = sealer.finish()
    digest.update(out)
    length += len(out)
    return {'header': header.hex(), 'length': length, 'sha256': digest.hexdigest()}


def secret_op(inp):
    """bundle.secret: one secret as typed, classed as a passphrase or a recovery key (BUNDLE-35)."""
    text = inp.get('text')
    if not isinstance(text, str):
        raise Failure('invalid_request', 'bundle.secret takes text')
    kind, value = classify(text)
    return {'kind': kind} if kind == 'passphrase' else {'kind': kind, 'hex': value.hex()}


def recovery_key_op(inp):
    """bundle.recoveryKey: the 32 bytes of a recovery key in words (BUNDLE-35)."""
    return {'hex': recovery_key(inp['words']).hex()}


OPERATIONS = {
    'bundle.decrypt': decrypt_op,
    'bundle.encrypt': encrypt_op,
    'bundle.recoveryKey': recovery_key_op,
    'bundle.secret': secret_op,
}
