#!/usr/bin/env python3
"""Writes the encrypted-bundle cases (BUNDLE-29 ... BUNDLE-35) and their files: envelope.json
(bundle.decrypt), envelope_vectors.json (bundle.encrypt) and recovery_keys.json
(bundle.recoveryKey), with the files under Spec/corpus/bundle/files/ named sealed-*.glow.

The envelope is written here from Spec/bundle.md 4.7 alone, with Python's hmac and hashlib,
Debian's python3-cryptography for AES-256-GCM and the pure-Python Argon2id of the conformance
testee; nothing here runs the SDK. Every file uses small key-derivation parameters (64 KiB, one
pass, one lane) so that a pure-Python reader opens it quickly; each tampered file is a good one
with the change named in its comment, and its expected error and offset are worked out from the
layout beside it. Run from the repository root:

    python3 Tools/corpus/bundle_envelope.py
"""
import hashlib
import hmac
import os
import struct
import sys
import unicodedata
from corpus_file import command_line, write_cases

command_line(__doc__)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "conformance"))
from glowpy.argon2 import argon2id  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402

FILES = "Spec/corpus/bundle/files"
WORDS = open("Spec/recovery-words.txt").read().split()
assert len(WORDS) == 256
MAGIC = b"\x89GLE\r\n\x1a\n"
CHUNK = 65536
SEALED = CHUNK + 16
KDF = (64, 1, 1)  # memory KiB, passes, lanes
PASSPHRASE = "correct horse battery staple"


def hkdf(secret, salt, info, length=32):
    prk = hmac.new(salt, secret, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def nonce(index, last):
    return index.to_bytes(11, "big") + bytes([1 if last else 0])


def recovery_words(key):
    return " ".join(WORDS[b] for b in key + hashlib.sha256(key).digest()[:2])


def stanza_key(kind, secret, salt, kdf):
    m, t, p = kdf
    if kind == 1:
        password = unicodedata.normalize("NFC", secret).encode()
        return argon2id(password, salt, b"", b"", m, t, p, 32)
    return hkdf(secret, salt, b"glow-bundle recovery key")


def seal(plaintext, salt, file_key, passphrase=PASSPHRASE, recovery=None, kdf=KDF, version=1):
    """BUNDLE-29 ... BUNDLE-33, step by step."""
    m, t, p = kdf
    prefix = MAGIC + struct.pack("<HIIB", version, m, t, p) + salt
    assert len(prefix) == 35
    stanzas = [(1, passphrase)] + ([(2, recovery)] if recovery else [])
    header = prefix + bytes([len(stanzas)])
    for kind, secret in stanzas:
        key = stanza_key(kind, secret, salt, kdf)
        header += bytes([kind]) + AESGCM(key).encrypt(bytes(12), file_key, prefix + bytes([kind]))
    mac = hmac.new(hkdf(file_key, salt, b"glow-bundle header"), header, hashlib.sha256).digest()
    payload_key = AESGCM(hkdf(file_key, salt, b"glow-bundle payload"))
    pieces = [plaintext[i:i + CHUNK] for i in range(0, len(plaintext), CHUNK)] or [b""]
    chunks = [payload_key.encrypt(nonce(i, i == len(pieces) - 1), piece, mac) for i, piece in enumerate(pieces)]
    return header + mac, chunks


def pattern(length):
    return bytes(i % 251 for i in range(length))


SALT = bytes(range(16))
FILE_KEY = bytes(range(100, 132))
RECOVERY = bytes(range(200, 232))
RECOVERY_WORDS = recovery_words(RECOVERY)
BUNDLE = open(os.path.join(FILES, "stored-blocks.glow"), "rb").read()  # a valid bundle of 70,461 bytes


def write(name, data):
    with open(os.path.join(FILES, name), "wb") as out:
        out.write(data)


def opened(plaintext, kdf=KDF, stanzas=("passphrase",)):
    return {"kdf": {"memoryKiB": kdf[0], "iterations": kdf[1], "parallelism": kdf[2]},
            "stanzas": list(stanzas), "length": len(plaintext),
            "sha256": hashlib.sha256(plaintext).hexdigest()}


DECRYPT = []


def valid(comment, rules, name, data, secret, plaintext, **more):
    write(name, data)
    DECRYPT.append({"comment": comment, "rules": rules, "flags": [],
                    "input": dict({"file": "files/" + name}, **secret), "result": "valid",
                    "expected": opened(plaintext, **more)})


def invalid(comment, rules, name, data, secret, code, offset):
    write(name, data)
    DECRYPT.append({"comment": comment, "rules": rules, "flags": [],
                    "input": dict({"file": "files/" + name}, **secret), "result": "invalid",
                    "error": {"code": code, "section": "envelope", "offset": offset}})


PASS = {"passphrase": PASSPHRASE}
KEY = {"recoveryKey": RECOVERY_WORDS}

# A real bundle of 70,461 bytes: chunk 0 holds 65,536 bytes, chunk 1 (the last) 4,925.
header, chunks = seal(BUNDLE, SALT, FILE_KEY)
assert len(header) == 36 + 49 + 32 and [len(c) for c in chunks] == [SEALED, 4925 + 16]
good = header + b"".join(chunks)
valid("a bundle of two chunks opened with its passphrase", ["BUNDLE-29", "BUNDLE-30", "BUNDLE-31", "BUNDLE-32", "BUNDLE-33", "BUNDLE-34"],
      "sealed-bundle.glow", good, PASS, BUNDLE)

# The same with a recovery key as well: both ways in open it.
header2, chunks2 = seal(BUNDLE, SALT, FILE_KEY, recovery=RECOVERY)
two = header2 + b"".join(chunks2)
valid("a file with a recovery key opened with the passphrase", ["BUNDLE-31", "BUNDLE-34"],
      "sealed-recovery.glow", two, PASS, BUNDLE, stanzas=("passphrase", "recoveryKey"))
DECRYPT.append(dict(DECRYPT[-1], comment="the same file opened with its recovery key, in words",
                    rules=["BUNDLE-31", "BUNDLE-35"], input={"file": "files/sealed-recovery.glow", **KEY}))
shouted = "-".join(w[:4].upper() for w in RECOVERY_WORDS.split())
DECRYPT.append(dict(DECRYPT[-1], comment="the recovery key as four-letter prefixes in capitals, joined by hyphens",
                    rules=["BUNDLE-35"], input={"file": "files/sealed-recovery.glow", "recoveryKey": shouted}))

# Unicode NFC: written with "é" as one code point, opened with "e" and a combining acute accent.
composed, decomposed = "caf\u00e9 au lait", "cafe\u0301 au lait"
h, c = seal(pattern(1000), SALT, FILE_KEY, passphrase=composed)
valid("a passphrase is taken in NFC: a decomposed é opens a file sealed with a composed one", ["BUNDLE-31"],
      "sealed-nfc.glow", h + b"".join(c), {"passphrase": decomposed}, pattern(1000))

# Exactly two chunks' worth: the last chunk is full (65,536 bytes) and marked last.
h, c = seal(pattern(2 * CHUNK), SALT, FILE_KEY)
assert [len(x) for x in c] == [SEALED, SEALED]
exact = h + b"".join(c)
valid("a bundle of exactly two chunks: the last one full", ["BUNDLE-33"], "sealed-exact.glow", exact, PASS,
      pattern(2 * CHUNK))

# An empty payload: one chunk of no bytes (its tag alone), marked last.
h, c = seal(b"", SALT, FILE_KEY)
assert [len(x) for x in c] == [16]
valid("an empty payload is one chunk of 16 bytes, its tag", ["BUNDLE-33"], "sealed-empty.glow", h + c[0], PASS, b"")

# Higher parameters within the caps (1 MiB, 2 passes, 2 lanes) are read.
h, c = seal(pattern(10), SALT, FILE_KEY, kdf=(1024, 2, 2))
within = h + b"".join(c)
valid("parameters within the caps: 1 MiB, 2 passes, 2 lanes", ["BUNDLE-30"], "sealed-kdf.glow", within,
      PASS, pattern(10), kdf=(1024, 2, 2))

# --- Refusals. Offsets follow the layout: version 8, memory 10, passes 14, lanes 18, salt 19,
# count 35, stanza 1 at 36 (its kind byte), stanza 2 at 85, the MAC at 36 + 49n, chunk 0 after it.
MAC1 = 36 + 49          # 85 in a one-stanza file
CHUNKS1 = MAC1 + 32     # 117
invalid("a wrong passphrase, after one key derivation", ["BUNDLE-34"], "sealed-bundle.glow",
        good, {"passphrase": "Correct horse battery staple"}, "wrong_passphrase", 36)
wrong_key = recovery_words(bytes(range(32)))
invalid("a recovery key of another file", ["BUNDLE-34"], "sealed-recovery.glow", two,
        {"recoveryKey": wrong_key}, "wrong_recovery_key", 85)
invalid("a recovery key for a file written without one", ["BUNDLE-34"], "sealed-bundle.glow", good, KEY,
        "no_such_key", 35)


def patched(data, at, value):
    return data[:at] + bytes([value]) + data[at + 1:]


def le32(data, at, value):
    return data[:at] + struct.pack("<I", value) + data[at + 4:]


invalid("memory above the cap (262,145 KiB) is refused before any key derivation", ["BUNDLE-30"],
        "sealed-memory-cap.glow", le32(good, 10, 262145), PASS, "kdf_out_of_range", 10)
invalid("passes above the cap (17)", ["BUNDLE-30"], "sealed-passes-cap.glow", le32(good, 14, 17), PASS,
        "kdf_out_of_range", 14)
invalid("five lanes, above the cap of four", ["BUNDLE-30"], "sealed-lanes-cap.glow", patched(good, 18, 5), PASS,
        "kdf_out_of_range", 18)
invalid("memory below 8 KiB per lane", ["BUNDLE-30"], "sealed-memory-floor.glow", le32(good, 10, 7), PASS,
        "kdf_out_of_range", 10)
invalid("format version 2", ["BUNDLE-29"], "sealed-version.glow", patched(good, 8, 2), PASS,
        "unsupported_version", 8)
invalid("three stanzas", ["BUNDLE-31"], "sealed-count.glow", patched(good, 35, 3), PASS, "malformed_header", 35)
invalid("a stanza of unknown kind 7", ["BUNDLE-31"], "sealed-kind.glow", patched(good, 36, 7), PASS,
        "malformed_header", 36)
swapped = two[:36] + two[85:134] + two[36:85] + two[134:]
invalid("stanzas out of order (recovery key first)", ["BUNDLE-31"], "sealed-order.glow", swapped, PASS,
        "malformed_header", 85)
invalid("a file cut inside its header", ["BUNDLE-29"], "sealed-cut-header.glow", good[:100], PASS, "truncated", 100)
invalid("a header with no chunk after it", ["BUNDLE-34"], "sealed-no-chunk.glow", good[:CHUNKS1], PASS,
        "truncated", CHUNKS1)
# A changed salt changes the stanza's key and its associated data: the passphrase no longer opens it.
invalid("a changed salt", ["BUNDLE-31", "BUNDLE-34"], "sealed-salt.glow", patched(good, 19, good[19] ^ 1), PASS,
        "wrong_passphrase", 36)
# Passes 1 -> 2 are within the caps, but the stanza was sealed under the original parameters.
invalid("changed parameters within the caps", ["BUNDLE-31"], "sealed-params.glow", le32(good, 14, 2), PASS,
        "wrong_passphrase", 36)
# The recovery stanza is not used when the passphrase opens the file, but the MAC covers it.
invalid("a changed byte in the stanza the passphrase does not use", ["BUNDLE-32"], "sealed-other-stanza.glow",
        patched(two, 100, two[100] ^ 0x40), PASS, "header_tampered", 36 + 98)
invalid("a changed byte of the header MAC", ["BUNDLE-32"], "sealed-mac.glow", patched(good, MAC1, good[MAC1] ^ 1),
        PASS, "header_tampered", MAC1)
invalid("a changed byte in the first chunk", ["BUNDLE-33"], "sealed-chunk.glow",
        patched(good, CHUNKS1 + 1000, good[CHUNKS1 + 1000] ^ 1), PASS, "chunk_tampered", CHUNKS1)
invalid("a changed byte in the last chunk", ["BUNDLE-33"], "sealed-last-chunk.glow",
        patched(good, len(good) - 1, good[-1] ^ 1), PASS, "chunk_tampered", CHUNKS1 + SEALED)
# Two full chunks swapped: chunk 0 now holds what was sealed as chunk 1 (and last).
h, c = seal(pattern(2 * CHUNK), SALT, FILE_KEY)
invalid("two chunks swapped", ["BUNDLE-33"], "sealed-swapped.glow", h + c[1] + c[0], PASS, "chunk_tampered", CHUNKS1)
# Chunk 0 of another file with the same passphrase but its own salt and file key.
h_other, c_other = seal(BUNDLE, bytes(range(16, 32)), bytes(range(32)))
invalid("a chunk taken from another file", ["BUNDLE-33"], "sealed-foreign.glow", header + c_other[0] + chunks[1], PASS,
        "chunk_tampered", CHUNKS1)
# The exact two-chunk file without its last chunk: chunk 0 opens only as a chunk with more to follow.
invalid("a file cut where a chunk ends", ["BUNDLE-34"], "sealed-cut-chunk.glow", exact[:CHUNKS1 + SEALED], PASS,
        "truncated", CHUNKS1 + SEALED)
invalid("a file cut inside its last chunk", ["BUNDLE-33"], "sealed-cut-last.glow", good[:-10], PASS,
        "chunk_tampered", CHUNKS1 + SEALED)
invalid("a file cut inside a tag: fewer than 16 bytes after the last whole chunk", ["BUNDLE-34"],
        "sealed-cut-tag.glow", good[:CHUNKS1 + SEALED + 7], PASS, "truncated", CHUNKS1 + SEALED + 7)
invalid("a byte appended after the last chunk", ["BUNDLE-33"], "sealed-appended.glow", good + b"\x00", PASS,
        "chunk_tampered", CHUNKS1 + SEALED)
invalid("an empty file", ["BUNDLE-29"], "sealed-empty-file.glow", b"", PASS, "bad_magic", 0)
invalid("a plain bundle is no encrypted bundle", ["BUNDLE-29"], "stored-blocks.glow", BUNDLE, PASS, "bad_magic", 0)
# BUNDLE-29: a file cut inside its header is truncated whatever its fields say; the fields are
# judged only once the whole header (36 + 49n + 32 bytes) is there.
invalid("a file cut inside its header with a version it does not know: truncated first", ["BUNDLE-29"],
        "sealed-cut-version.glow", patched(good, 8, 2)[:100], PASS, "truncated", 100)
invalid("a file cut inside its header asking for too much memory: truncated first", ["BUNDLE-29", "BUNDLE-30"],
        "sealed-cut-memory.glow", le32(good, 10, 262145)[:50], PASS, "truncated", 50)

# BUNDLE-31: the passphrase's stanza is AES-GCM under the passphrase's key; a changed byte of its
# sealed key does not authenticate, which a reader cannot tell from a wrong passphrase (BUNDLE-34).
invalid("a changed byte in the sealed file key of the passphrase's stanza", ["BUNDLE-31", "BUNDLE-34"],
        "sealed-stanza-key.glow", patched(good, 36 + 5, good[36 + 5] ^ 0x01), PASS, "wrong_passphrase", 36)
# Opened with the recovery key, whose own stanza is whole: the file key opens, then the MAC over
# the changed passphrase stanza fails (BUNDLE-32), at the MAC of a two-stanza file (36 + 98).
invalid("a changed passphrase stanza, opened with the recovery key", ["BUNDLE-32", "BUNDLE-34"],
        "sealed-stanza-recovery.glow", patched(two, 36 + 20, two[36 + 20] ^ 0x80), KEY, "header_tampered",
        36 + 98)

# BUNDLE-29's order of checks (issue 47). The signature is judged first on the bytes there are;
# then the header's length (36 fixed bytes, and 36 + 49n + 32 when the count n is 1 or 2); then the
# fields in file order: version, parameters (lanes, memory, passes: BUNDLE-30), count, kinds.
invalid("a file of 4 bytes, the signature's first four: it ends inside the header", ["BUNDLE-29"],
        "sealed-cut-signature-4.glow", MAGIC[:4], PASS, "truncated", 4)
invalid("a file of 7 bytes, the signature's first seven", ["BUNDLE-29"],
        "sealed-cut-signature-7.glow", MAGIC[:7], PASS, "truncated", 7)
invalid("a file of the 8-byte signature alone", ["BUNDLE-29"], "sealed-signature-only.glow", MAGIC, PASS,
        "truncated", 8)
invalid("five bytes whose fifth differs from the signature: bad_magic however short", ["BUNDLE-29"],
        "sealed-cut-bad-signature.glow", MAGIC[:4] + b"X", PASS, "bad_magic", 0)
invalid("a file of 30 bytes: shorter than the 36 fixed bytes, whatever its version says", ["BUNDLE-29"],
        "sealed-cut-fixed.glow", patched(good, 8, 2)[:30], PASS, "truncated", 30)
# A count of 3 gives no stanzas: the header is its 36 fixed bytes, whole in a file of 40 bytes.
invalid("a file of 40 bytes whose count is 3: the header is its 36 fixed bytes, so the count is judged",
        ["BUNDLE-29", "BUNDLE-31"], "sealed-cut-count.glow", patched(good, 35, 3)[:40], PASS, "malformed_header", 35)
# A count of 1 makes the header 117 bytes: 40 of them is a cut file, its fields unread.
invalid("a file of 40 bytes whose count is 1: cut inside its 117-byte header", ["BUNDLE-29"],
        "sealed-cut-stanza.glow", good[:40], PASS, "truncated", 40)
invalid("version 2 and memory above the cap: the version comes first", ["BUNDLE-29", "BUNDLE-30"],
        "sealed-version-memory.glow", le32(patched(good, 8, 2), 10, 262145), PASS, "unsupported_version", 8)
invalid("lanes 9 and memory 0: lanes are judged first (the floor on memory depends on them)", ["BUNDLE-30"],
        "sealed-lanes-memory.glow", le32(patched(good, 18, 9), 10, 0), PASS, "kdf_out_of_range", 18)
invalid("memory 0 and passes 0 with one lane: memory before passes", ["BUNDLE-30"],
        "sealed-memory-passes.glow", le32(le32(good, 10, 0), 14, 0), PASS, "kdf_out_of_range", 10)
invalid("passes 0, memory and lanes within the caps", ["BUNDLE-30"], "sealed-passes-zero.glow", le32(good, 14, 0),
        PASS, "kdf_out_of_range", 14)
invalid("memory above the cap and a count of 3: the parameters come before the count", ["BUNDLE-30", "BUNDLE-31"],
        "sealed-memory-count.glow", patched(le32(good, 10, 262145), 35, 3), PASS, "kdf_out_of_range", 10)
invalid("a count of 0", ["BUNDLE-31"], "sealed-count-zero.glow", patched(good, 35, 0), PASS, "malformed_header", 35)
# A count of 2 in a one-stanza file: the second stanza's kind is the MAC's first byte (offset 85),
# and the MAC of this file begins with a byte other than 2, so that kind is refused.
assert good[MAC1] not in (2,)
invalid("a count of 2 in a file with one stanza: the second kind is a byte of the MAC", ["BUNDLE-31"],
        "sealed-count-two.glow", patched(good, 35, 2), PASS, "malformed_header", 85)

# BUNDLE-33: an empty last chunk after a full one authenticates, but no writer writes it (a full
# chunk is sealed as not the last only once a byte after it is known): chunk_tampered at its start.
h, c = seal(pattern(CHUNK), SALT, FILE_KEY)
assert [len(x) for x in c] == [SEALED]
payload_key = AESGCM(hkdf(FILE_KEY, SALT, b"glow-bundle payload"))
first = payload_key.encrypt(nonce(0, False), pattern(CHUNK), h[-32:])
empty_last = payload_key.encrypt(nonce(1, True), b"", h[-32:])
invalid("a full chunk, then an empty last chunk that authenticates: no writer writes it", ["BUNDLE-33"],
        "sealed-empty-last.glow", h + first + empty_last, PASS, "chunk_tampered", CHUNKS1 + SEALED)
valid("one full chunk marked last: the form a writer gives 65,536 bytes", ["BUNDLE-33"], "sealed-one-full.glow",
      h + c[0], PASS, pattern(CHUNK))

# BUNDLE-35: words that are no recovery key are invalid_recovery_key in section envelope at
# offset 0, found before the file is read.
DECRYPT.append({"comment": "33 words for a file's recovery key: invalid_recovery_key, before the file is read",
                "rules": ["BUNDLE-35"], "flags": [],
                "input": {"file": "files/sealed-recovery.glow", "recoveryKey": " ".join(RECOVERY_WORDS.split()[1:])},
                "result": "invalid", "error": {"code": "invalid_recovery_key", "section": "envelope", "offset": 0}})
# BUNDLE-30: a reader's memory budget below the cap (an app extension, a watch app). The file of
# 1 MiB opens with a budget of exactly 1,024 KiB; one KiB less refuses it at offset 10, before any
# derivation (so a wrong passphrase is not found out first), and only after the caps themselves.
valid("a memory budget equal to the file's 1,024 KiB opens it", ["BUNDLE-30"], "sealed-kdf.glow", within,
      dict(PASS, memoryBudgetKiB=1024), pattern(10), kdf=(1024, 2, 2))
invalid("a memory budget of 1,023 KiB refuses a file asking 1,024 KiB", ["BUNDLE-30"], "sealed-kdf.glow", within,
        dict(PASS, memoryBudgetKiB=1023), "kdf_over_budget", 10)
invalid("over the budget with a wrong passphrase: the budget is judged before any derivation", ["BUNDLE-30"],
        "sealed-kdf.glow", within, {"passphrase": "not the passphrase", "memoryBudgetKiB": 64}, "kdf_over_budget", 10)
invalid("memory above the cap with a budget below it: the cap is judged first", ["BUNDLE-30"],
        "sealed-memory-cap.glow", le32(good, 10, 262145), dict(PASS, memoryBudgetKiB=64), "kdf_out_of_range", 10)
invalid("five lanes with a budget the file's memory is over: the lanes' cap comes first", ["BUNDLE-30"],
        "sealed-lanes-cap.glow", patched(good, 18, 5), dict(PASS, memoryBudgetKiB=8), "kdf_out_of_range", 18)
write_cases("bundle", "envelope.json", "bundle.decrypt",
            "Encrypted bundles opened and refused (BUNDLE-29 ... BUNDLE-35). Written by Tools/corpus/bundle_envelope.py.",
            DECRYPT, "envelope")

# --- Vectors: every byte follows from the inputs, so any implementation reproduces the file.
VECTORS = []
for comment, length, recovery in (
    ("a vector of one chunk", 1000, None),
    ("a vector of three chunks with a recovery key", 2 * CHUNK + 12345, RECOVERY),
    ("a vector of an empty payload", 0, None),
):
    h, c = seal(pattern(length), SALT, FILE_KEY, recovery=recovery)
    data = h + b"".join(c)
    inputs = {"plaintext": {"length": length}, "passphrase": PASSPHRASE,
              "kdf": {"memoryKiB": KDF[0], "iterations": KDF[1], "parallelism": KDF[2]},
              "salt": SALT.hex(), "fileKey": FILE_KEY.hex()}
    if recovery:
        inputs["recoveryKey"] = RECOVERY_WORDS
    VECTORS.append({"comment": comment, "rules": ["BUNDLE-29", "BUNDLE-31", "BUNDLE-32", "BUNDLE-33"], "flags": [],
                    "input": inputs, "result": "valid",
                    "expected": {"header": h.hex(), "length": len(data),
                                 "sha256": hashlib.sha256(data).hexdigest()}})
write_cases("bundle", "envelope_vectors.json", "bundle.encrypt",
            "Encrypted-bundle test vectors: a known passphrase, salt and file key give known bytes (BUNDLE-29 ... "
            "BUNDLE-33). Written by Tools/corpus/bundle_envelope.py.", VECTORS, "envelope-vector")

# --- Recovery-key words (BUNDLE-35).
KEYS = []


def key_case(comment, words, expected=None, error=None):
    case = {"comment": comment, "rules": ["BUNDLE-35"], "flags": [], "input": {"words": words}}
    if error:
        case.update({"result": "invalid", "error": {"code": error}})
    else:
        case.update({"result": "valid", "expected": {"hex": expected}})
    KEYS.append(case)


key_case("34 words: 32 bytes and two checksum words", RECOVERY_WORDS, RECOVERY.hex())
key_case("any case, hyphens and runs of white space", "  " + "-".join(RECOVERY_WORDS.upper().split()[:17]) + "\n\t"
         + "  ".join(RECOVERY_WORDS.split()[17:]), RECOVERY.hex())
key_case("four-letter prefixes", " ".join(w[:4] for w in RECOVERY_WORDS.split()), RECOVERY.hex())
zero = bytes(32)
key_case("the key of 32 zero bytes", recovery_words(zero), zero.hex())
words = RECOVERY_WORDS.split()
key_case("a word not on the list", " ".join(words[:5] + ["unicorn"] + words[6:]), error="invalid_recovery_key")
key_case("33 words: one left out", " ".join(words[:10] + words[11:]), error="invalid_recovery_key")
swapped_words = words[:]
swapped_words[0], swapped_words[1] = swapped_words[1], swapped_words[0]
key_case("two words swapped: the checksum words no longer match", " ".join(swapped_words), error="invalid_recovery_key")
key_case("a three-letter prefix is not enough", " ".join(w[:3] for w in words), error="invalid_recovery_key")
key_case("five-letter prefixes are not words: a prefix is exactly four letters", " ".join(w[:5] for w in words),
         error="invalid_recovery_key")
# fox (byte 114) and owl (byte 181) have three letters: they are their own first four letters.
FOX_OWL = bytes([114, 181] * 16)
assert WORDS[114] == "fox" and WORDS[181] == "owl"
key_case("fox and owl, of three letters, are given in full", recovery_words(FOX_OWL), FOX_OWL.hex())
key_case("'foxe' is not fox: a three-letter word has no four-letter prefix",
         " ".join(w + "e" if w in ("fox", "owl") else w for w in recovery_words(FOX_OWL).split()),
         error="invalid_recovery_key")
key_case("hyphens and white space in runs, before the first word and after the last",
         "- \u3000" + " -- ".join(words) + "-\n", RECOVERY.hex())
# Any case is ASCII's: the Kelvin sign (U+212A) lower-cases to k in Unicode, but is not K.
KIWI = bytes([WORDS.index("kiwi")] * 32)
key_case("the Kelvin sign is not K: any case is ASCII's", recovery_words(KIWI).replace("kiwi", "\u212aiwi", 1),
         error="invalid_recovery_key")
key_case("KIWI in ASCII capitals is kiwi", recovery_words(KIWI).upper(), KIWI.hex())
write_cases("bundle", "recovery_keys.json", "bundle.recoveryKey",
            "Recovery keys written as words (BUNDLE-35). Written by Tools/corpus/bundle_envelope.py.", KEYS,
            "recovery-key")

# --- One secret classed as a passphrase or recovery words (BUNDLE-35): at least 17 parts that are
# words of the list in full or begin with a word's first four letters make it a recovery key.
SECRETS = []


def secret_case(comment, text, kind=None, key=None, error=None):
    case = {"comment": comment, "rules": ["BUNDLE-35"], "flags": [], "input": {"text": text}}
    if error:
        case.update({"result": "invalid", "error": {"code": error}})
    else:
        case.update({"result": "valid", "expected": dict({"kind": kind}, **({"hex": key.hex()} if key else {}))})
    SECRETS.append(case)


secret_case("an ordinary passphrase", PASSPHRASE, "passphrase")
secret_case("34 words are a recovery key", RECOVERY_WORDS, "recoveryKey", RECOVERY)
secret_case("34 words by their first four letters, in capitals", shouted, "recoveryKey", RECOVERY)
secret_case("33 words: meant as a recovery key, one word short", " ".join(words[1:]), error="invalid_recovery_key")
secret_case("34 words by five letters: each begins with a word's first four", " ".join(w[:5] for w in words),
            error="invalid_recovery_key")
secret_case("34 words whose checksum words do not match", " ".join(swapped_words), error="invalid_recovery_key")
secret_case("a mistyped word among 33 right ones", " ".join(words[:5] + ["unicorn"] + words[6:]),
            error="invalid_recovery_key")
secret_case("17 words of the list: half a key, meant as one", " ".join(words[:17]), error="invalid_recovery_key")
secret_case("16 words of the list: a passphrase", " ".join(words[:16]), "passphrase")
secret_case("a passphrase of list words and others: fewer than 17 words of the list",
            " ".join(words[:16] + ["and", "then", "some", "more", "words"]), "passphrase")
write_cases("bundle", "secrets.json", "bundle.secret",
            "One secret classed as a passphrase or a recovery key in words (BUNDLE-35). Written by "
            "Tools/corpus/bundle_envelope.py.", SECRETS, "secret")
