#!/usr/bin/env python3
"""Writes Spec/corpus/server/client_limit.json (SERVER-11): a server's limit on how often one
client calls, as operation `server.client-limit` that a testee answers.

Each request's decision is worked out beside it from SERVER-11: `start` is the later of the
client's `due` and `t`; a request is refused when `start - t` passes `(B - 1) * I`, with the
excess in milliseconds rounded up to whole seconds, and its `due` left alone; a served one sets
`due` to `start + I`.
"""

from corpus_file import write_cases, command_line

command_line(__doc__)

cases = []
SERVED = {'served': True}


def refused(seconds):
    return {'served': False, 'retryAfterSeconds': seconds}


def case(comment, interval, burst, steps):
    """`steps`: (t, client, decision) in order of t."""
    cases.append({
        'comment': comment, 'rules': ['SERVER-11'], 'flags': [],
        'input': {'intervalMilliseconds': interval, 'burst': burst,
                  'requests': [{'at': at, 'client': client} for at, client, _ in steps]},
        'result': 'valid',
        'expected': {'decisions': [decision for _, _, decision in steps]}})


A = '192.0.2.10'

# B = 1, I = 1000: tolerance 0.
case('a burst of one: a second call in the same instant waits a second, and one at due is served',
     1000, 1, [
         (0, A, SERVED),            # no due: start 0, ahead 0; due 1000
         (0, A, refused(1)),        # start 1000, ahead 1000 > 0: 1000 ms = 1 s
         (999, A, refused(1)),      # ahead 1 ms, rounded up to 1 s
         (1000, A, SERVED),         # ahead 0; due 2000
     ])

# B = 3, I = 500: tolerance 1000.
case('a burst of three is served at once, the fourth waits, and one more is served after an interval',
     500, 3, [
         (0, A, SERVED),            # ahead 0; due 500
         (0, A, SERVED),            # ahead 500; due 1000
         (0, A, SERVED),            # ahead 1000, not more than 1000; due 1500
         (0, A, refused(1)),        # ahead 1500: 500 ms over, 1 s
         (500, A, SERVED),          # ahead 1000; due 2000
         (500, A, refused(1)),      # ahead 1500: 500 ms over
     ])

# B = 1, I = 1500.
case('the wait is rounded up to whole seconds', 1500, 1, [
    (0, A, SERVED),                # due 1500
    (0, A, refused(2)),            # 1500 ms over: 2 s
    (1499, A, refused(1)),         # 1 ms over: 1 s
    (1500, A, SERVED),             # due 3000
])

# B = 1, I = 1000.
case('a refused call does not move the client\'s due', 1000, 1, [
    (0, A, SERVED),                # due 1000
    (10, A, refused(1)),           # 990 ms over
    (20, A, refused(1)),           # 980 ms over; due still 1000
    (1000, A, SERVED),             # ahead 0: served only because refusals left due at 1000
])

# B = 1, I = 10000.
case('clients are held apart: one client\'s calls do not use another\'s', 10000, 1, [
    (0, A, SERVED),
    (0, '198.51.100.7', SERVED),   # a new client: no due
    (1, A, refused(10)),           # due 10000, ahead 9999: 10 s
    (1, '198.51.100.8', SERVED),
])

# B = 2, I = 100: tolerance 100.
case('a client whose due has passed starts afresh, with its whole burst', 100, 2, [
    (0, A, SERVED),                # due 100
    (0, A, SERVED),                # ahead 100; due 200
    (0, A, refused(1)),            # ahead 200: 100 ms over
    (10000, A, SERVED),            # due 200 is past: start 10000; due 10100
    (10000, A, SERVED),            # ahead 100; due 10200
    (10000, A, refused(1)),        # ahead 200
])

# B = 1, I = 60000.
case('an IPv6 client is its first 64 bits, however the address is written', 60000, 1, [
    (0, '2001:db8:1:2::5', SERVED),                       # /64 2001:db8:1:2; due 60000
    (1, '2001:db8:1:2:ffff:ffff:ffff:ffff', refused(60)),  # same /64: 59999 ms
    (2, '2001:0db8:0001:0002::9', refused(60)),           # same /64 with leading zeros: 59998 ms
    (3, '2001:db8:1:3::1', SERVED),                       # another /64
])

# B = 1, I = 2000.
case('an IPv4-mapped IPv6 address is its IPv4 address', 2000, 1, [
    (0, '192.0.2.1', SERVED),              # due 2000
    (0, '::ffff:192.0.2.1', refused(2)),   # the same client: 2000 ms
    (500, '::ffff:c000:201', refused(2)),  # c000:201 is 192.0.2.1: 1500 ms, 2 s
    (500, '192.0.2.2', SERVED),
])

# B = 1, I = 5000.
case('text that is no IP address is a client of its own, compared exactly', 5000, 1, [
    (0, 'unknown', SERVED),
    (0, 'Unknown', SERVED),                # another text
    (1, 'unknown', refused(5)),            # 4999 ms
    (1, '192.0.2.1', SERVED),
    (2, '192.0.2.1 ', SERVED),             # a space makes it text, not 192.0.2.1
    (3, '192.0.2.01', SERVED),             # a leading zero: text
    (4, '192.0.2.1', refused(5)),          # served at 1: due 5001, ahead 4997
    (5, 'fe80::1%eth0', SERVED),           # a zone: text
    (6, 'fe80::2', SERVED),                # fe80:: /64, not the text above
    (7, 'fe80::1%eth0', refused(5)),       # the same text: 4998 ms
])

# I = 0: off.
case('an interval of 0 turns the limit off', 0, 1, [(0, A, SERVED)] * 5)

# B = 5, I = 200: tolerance 800.
case('a burst of five, then one every interval exactly at its edge', 200, 5,
     [(0, A, SERVED)] * 5 + [       # dues 200, 400, 600, 800, 1000
         (0, A, refused(1)),         # ahead 1000: 200 ms over
         (200, A, SERVED),           # ahead 800; due 1200
         (399, A, refused(1)),       # ahead 801: 1 ms over
         (400, A, SERVED),           # ahead 800; due 1400
     ])

# B = 2, I = 3600000 (an hour): tolerance 3600000.
case('waits of an hour and half an hour in whole seconds', 3600000, 2, [
    (0, A, SERVED),                # due 3600000
    (0, A, SERVED),                # ahead 3600000 = tolerance; due 7200000
    (0, A, refused(3600)),         # 3600000 ms over
    (1800000, A, refused(1800)),   # ahead 5400000: 1800000 ms over
])

# glow-server's defaults: B = 200, I = 50, tolerance 9950; times in milliseconds since 1970.
T = 1764633600000
case('the defaults: 200 calls at once are served, the 201st waits a second, and one more is served 50 ms later',
     50, 200, [(T, '2001:db8:aa::1', SERVED)] * 200 + [   # due T + 10000 after the 200th
         (T, '2001:db8:aa::1', refused(1)),               # ahead 10000: 50 ms over
         (T + 49, '2001:db8:aa::2', refused(1)),          # the same /64, ahead 9951: 1 ms over
         (T + 50, '2001:db8:aa::1', SERVED),              # ahead 9950
     ])

write_cases('server', 'client_limit.json', 'server.client-limit',
            'How often one client may call a server (SERVER-11), answered by a testee.', cases, 'limit')
