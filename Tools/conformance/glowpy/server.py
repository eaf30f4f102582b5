"""SERVER-11 of the spec (Spec/server.md 9.3): how often one client may call a server, and the corpus
operation `server.client-limit` (Spec/corpus/server/client_limit.json). Standard library only.

- the client: an IPv4 address (four decimal numbers from 0 to 255 without leading zeros, joined by
  dots) is itself; an IPv6 address (text as RFC 4291 section 2.2 writes one, no zone) is its first
  64 bits, and an IPv4-mapped one (`::ffff:a.b.c.d`, however written) is its IPv4 address; any
  other text is a client of its own, compared exactly;
- the limit: the generic cell rate algorithm in whole milliseconds, an interval `I` (0: no limit)
  and a burst `B` (at least 1). Each client has a `due`, none at first; a request at `t` starts at
  `start` = max(`due`, `t`); it is refused when `start - t` > (B - 1) x I, with a wait of
  `start - t - (B - 1) x I` ms rounded up to whole seconds and `due` left alone, and otherwise
  served, `due` becoming `start + I`.
"""
import re

from .errors import Failure

_IPV4 = re.compile(r'(?:0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]{0,2})){3}')   # no leading zeros
_HEX_GROUP = re.compile(r'[0-9A-Fa-f]{1,4}')
_MAPPED_PREFIX = 0xFFFF                          # ::ffff:0:0/96, the IPv4-mapped addresses (RFC 4291 2.5.5.2)


def ipv4(text):
    """SERVER-11: the 32-bit value of an IPv4 address in dotted decimal, or None for other text."""
    if _IPV4.fullmatch(text) is None:
        return None
    parts = [int(part) for part in text.split('.')]
    if any(part > 255 for part in parts):
        return None
    return int.from_bytes(bytes(parts), 'big')


def _groups(text):
    """The 16-bit values of `text`, hexadecimal groups separated by colons, possibly ending in an
    IPv4 address (two groups); None when it is not that. The empty text is no group."""
    if text == '':
        return []
    pieces = text.split(':')
    values = []
    for index, piece in enumerate(pieces):
        if index == len(pieces) - 1 and '.' in piece:
            value = ipv4(piece)
            if value is None:
                return None
            values += [value >> 16, value & 0xFFFF]
        elif _HEX_GROUP.fullmatch(piece):
            values.append(int(piece, 16))
        else:
            return None
    return values


def ipv6(text):
    """SERVER-11: the 128-bit value of an IPv6 address as RFC 4291 section 2.2 writes one (eight
    groups; or `::` once, for one or more groups of zeros; the last two groups possibly as an IPv4
    address), or None for other text, a zone (`%eth0`) included."""
    if text.count('::') > 1 or ':::' in text:
        return None
    if '::' in text:
        head, tail = text.split('::')
        if '.' in head:                          # an IPv4 address ends the text, nowhere else
            return None
        left, right = _groups(head), _groups(tail)
        if left is None or right is None or len(left) + len(right) > 7:
            return None
        values = left + [0] * (8 - len(left) - len(right)) + right
    else:
        values = _groups(text)
        if values is None or len(values) != 8:
            return None
    result = 0
    for value in values:
        result = result << 16 | value
    return result


def client_key(address):
    """SERVER-11: what a client's address counts as: ('ipv4', value) for an IPv4 address or an
    IPv4-mapped IPv6 address, ('ipv6', first 64 bits) for another IPv6 address, ('text', address)
    for anything else."""
    value = ipv4(address)
    if value is not None:
        return ('ipv4', value)
    value = ipv6(address)
    if value is not None:
        if value >> 32 == _MAPPED_PREFIX:
            return ('ipv4', value & 0xFFFF_FFFF)
        return ('ipv6', value >> 64)
    return ('text', address)


def _seconds_up(milliseconds):
    """Milliseconds rounded up to whole seconds."""
    return -(-milliseconds // 1000)


class ClientLimit:
    """SERVER-11: the generic cell rate algorithm over clients, in whole milliseconds."""

    def __init__(self, interval, burst):
        if _integer(interval) is None or interval < 0:
            raise Failure('invalid_input', 'intervalMilliseconds is a whole number of milliseconds, 0 or more')
        if _integer(burst) is None or burst < 1:
            raise Failure('invalid_input', 'burst is a whole number, at least 1')
        self.interval, self.burst = interval, burst
        self.tolerance = (burst - 1) * interval  # how far `due` may run ahead of now
        self.due = {}                            # client key -> due, in milliseconds

    def request(self, at, address):
        """One request at `at` from `address`: None when it is served, else the seconds to wait."""
        if self.interval == 0:                   # the limit is off
            return None
        key = client_key(address)
        due = self.due.get(key)
        start = at if due is None or due < at else due
        ahead = start - at
        if ahead > self.tolerance:               # refused: `due` stays as it was
            return _seconds_up(ahead - self.tolerance)
        self.due[key] = start + self.interval
        return None


def _integer(value):
    """`value` when it is a JSON integer (not a boolean, not a fraction), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---- The operation (Spec/corpus/server/client_limit.json)

def client_limit_operation(input):
    """server.client-limit: for each of `requests` ({"at": t, "client": ADDRESS}, in order of `t`),
    under `intervalMilliseconds` and `burst`, {"served": true} or {"served": false,
    "retryAfterSeconds": N}."""
    if not isinstance(input, dict):
        raise Failure('invalid_input', 'the input is a JSON object')
    limit = ClientLimit(input.get('intervalMilliseconds'), input.get('burst'))
    requests = input.get('requests')
    if not isinstance(requests, list):
        raise Failure('invalid_input', 'requests is a list')
    decisions, last = [], None
    for index, request in enumerate(requests):
        at = request.get('at') if isinstance(request, dict) else None
        client = request.get('client') if isinstance(request, dict) else None
        if _integer(at) is None or not isinstance(client, str):
            raise Failure('invalid_input', f'requests[{index}] is {{"at": milliseconds, "client": text}}')
        if last is not None and at < last:
            raise Failure('invalid_input', f'requests[{index}] comes before the one ahead of it')
        last = at
        wait = limit.request(at, client)
        decisions.append({'served': True} if wait is None else {'served': False, 'retryAfterSeconds': wait})
    return {'decisions': decisions}


OPERATIONS = {
    'server.client-limit': client_limit_operation,
}
