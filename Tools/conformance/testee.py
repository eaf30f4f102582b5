#!/usr/bin/env python3
"""A Glow conformance testee in Python: the model, streaks, wire, bundle, themes, auth, feed, server, reminders and sync areas.

It speaks the protocol of Spec/conformance.md on standard input and output (CONF-1 ... CONF-4):
each request and response is a 4-byte little-endian length followed by UTF-8 JSON. It is a second,
independent implementation written from Spec/*.md alone, to show that the specification and its
corpus are language-neutral, and a starting point for implementers: copy it, and replace the
operations with calls into your own code.

This file is only the protocol loop; the implementation is the package `glowpy` beside it, one
module per area. The wire and bundle areas use the stock Protocol Buffers runtime
(`google.protobuf`, Debian's python3-protobuf) with classes that `protoc --python_out` generates
from Spec/glow.proto at start-up into a cache outside the repository (glowpy/protos.py). Run it with
a Python that has protobuf; without it, the wire and bundle operations answer `skipped`. The feed's
messages (feed.md 8.12) are read and written by hand (glowpy/protowire.py), so the feed area needs
no runtime. Encrypted bundles (glowpy/envelope.py) take AES-256-GCM from Debian's
python3-cryptography; without it, `bundle.decrypt` and `bundle.encrypt` answer `skipped`. The sync
area (glowpy/sync.py) needs both: it reads the bundles inside its records with the bundle reader
and opens them with AES-256-GCM; without protobuf it is skipped with the bundle area, and without
python3-cryptography its operations answer `skipped`.

    glow-tool conformance --testee "/usr/bin/python3 Tools/conformance/testee.py" \
        --failure-list Tools/conformance/python-failures.txt

python-failures.txt lists what it is expected to fail: the Swift SDK's own content (the
Inspiration catalogue, and a design-token colour of a palette the spec does not define).
"""
import json
import os
import struct
import sys
import traceback

sys.dont_write_bytecode = True                         # keep the repository free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cli                                              # noqa: E402
from glowpy import (accounts, auth, checkins, dataset, feed, feeditems, feedwire, idtoken, model,   # noqa: E402
                    pushes, reminders, server, streaks, themes, totp)   # (standard library only)
from glowpy.errors import Failure                       # noqa: E402

OPERATIONS = {}
for area in (model, checkins, dataset, streaks, themes, auth, idtoken, totp, accounts, feed, feeditems,
             feedwire, server, reminders, pushes):               # after feed: its feed.script and feed.relay add the wire steps
    OPERATIONS.update(area.OPERATIONS)

try:                                                     # these need google.protobuf and protoc
    from glowpy import bundle, sync, wire                # noqa: E402  (sync reads the bundles inside its records)
    OPERATIONS.update(wire.OPERATIONS)
    OPERATIONS.update(bundle.OPERATIONS)
    OPERATIONS.update(sync.OPERATIONS)                   # AES-GCM too: without python3-cryptography, `skipped`
    UNAVAILABLE = None
except ImportError as reason:                            # e.g. a Python without python3-protobuf
    UNAVAILABLE = str(reason)

from glowpy import envelope                              # noqa: E402  encrypted bundles (bundle.md 4.7): no protobuf;
OPERATIONS.update(envelope.OPERATIONS)                   # without python3-cryptography they answer `skipped`


def respond(request):
    """One CONF-4 response for one CONF-3 request."""
    operation = OPERATIONS.get(request.get('operation'))
    if operation is None:
        why = f' ({UNAVAILABLE})' if UNAVAILABLE else ''
        return {'skipped': 'operation %s is not implemented in Python%s' % (request.get('operation'), why)}
    try:
        return {'result': operation(request['input'])}
    except Failure as failure:
        return {'error': failure.response()}
    except NotImplementedError as reason:
        return {'skipped': str(reason)}
    except Exception as error:                           # a bug: report it and keep serving (CONF-8)
        traceback.print_exc(file=sys.stderr)
        return {'error': {'code': 'internal_error', 'message': f'{type(error).__name__}: {error}'}}


def main():
    cli.arguments(sys.argv, __doc__, 'python3 Tools/conformance/testee.py  (no arguments: it serves framed requests on stdin)')
    read, write = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = read.read(4)
        if len(header) < 4:
            return
        (length,) = struct.unpack('<I', header)
        request = json.loads(read.read(length))
        body = json.dumps(respond(request), ensure_ascii=False, separators=(',', ':')).encode()
        write.write(struct.pack('<I', len(body)) + body)
        write.flush()


if __name__ == '__main__':
    main()
