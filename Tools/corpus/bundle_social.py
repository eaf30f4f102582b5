#!/usr/bin/env python3
"""Writes Spec/corpus/bundle/social.json and its files (BUNDLE-27, FEED-30): a person's social
data in their bundle.

Bundles are built frame by frame with bundle_writer.py and the social registers with
feed_messages.py, both from the spec alone; each offset below is counted from the bytes built
here, as BUNDLE-13 and FEED-30 place it.
"""
import os

from bundle_writer import bundle, counts, end_frame, frame, manifest_frame, single_goal, varint
from corpus_file import write_cases, command_line
from feed_messages import delta, item_id, message, sint, text, uint

command_line(__doc__)

FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'Spec', 'corpus', 'bundle', 'files')
GOAL = '01938a6e-7c00-7abc-8def-0000000000b1'
ITEM = 'bob/checkIn/g1/2026-11-30'
A1 = [10, 0, 'mia1']
A2 = [12, 1, 'mia2']
B1 = [11, 0, 'bob1']

# mia's friendship with bob (both stances), her "no" to cat, a fire she gave bob and her marker.
REGISTERS = dict(stances=[('mia', 'bob', 'want', A1, None), ('bob', 'mia', 'want', B1, None),
                          ('mia', 'cat', 'none', A2, A2)],
                 reactions=[(ITEM, 'mia', 'fire', True, A2)], seen=[('mia', 4_000)])


def social_payload(person, registers):
    """A FeedSocial: the person, then the registers as a FeedDelta (FEED-30)."""
    return text(1, person) + message(2, registers)


def fields_start(before, payload):
    """Where the FeedSocial's fields begin: after the frames `before`, the frame's length, the
    BundleFrame tag of member 5 and the FeedSocial's length."""
    member = message(5, payload)
    return len(before) + len(varint(len(member))) + 1 + len(varint(len(payload)))


def write(name, frames):
    with open(os.path.join(FILES, name), 'wb') as out:
        out.write(bundle(b''.join(frames)))


cases = []


def valid(comment, name, frames, expected, rules=('BUNDLE-27', 'FEED-30')):
    write(name, frames)
    cases.append({'comment': comment, 'rules': list(rules), 'flags': [], 'input': {'file': 'files/' + name},
                  'result': 'valid', 'expected': expected})


def invalid(comment, name, frames, code, offset, rules=('BUNDLE-27', 'FEED-30')):
    write(name, frames)
    cases.append({'comment': comment, 'rules': list(rules), 'flags': [], 'input': {'file': 'files/' + name},
                  'result': 'invalid', 'error': {'code': code, 'section': 'frames', 'offset': offset}})


goal = frame(3, single_goal(GOAL, 'Meditate'))
canonical = delta(**REGISTERS)
declared = counts(goals=1, other=1)
valid('a person\'s friendships, a reaction they gave and their seen marker travel in one social frame, counted '
      'among other records', 'social.glow',
      [manifest_frame(declared), goal, frame(5, social_payload('mia', canonical)), end_frame(declared)],
      {'counts': {'profiles': 0, 'goals': 1, 'checkInBlocks': 0, 'checkIns': 0, 'other': 1},
       'social': {'person': 'mia', 'registers': canonical.hex()}})

# The same registers, written in reverse order and the seen marker first: read as one replica,
# listed canonically (FEED-28).
scrambled = (message(5, text(1, 'mia') + sint(2, 4_000)) + delta(reactions=REGISTERS['reactions'])
             + delta(stances=[REGISTERS['stances'][2]]) + delta(stances=REGISTERS['stances'][:2]))
valid('registers in any order read as one replica and are listed canonically', 'social-scrambled.glow',
      [manifest_frame(declared), goal, frame(5, social_payload('mia', scrambled)), end_frame(declared)],
      {'social': {'person': 'mia', 'registers': canonical.hex()}}, rules=('BUNDLE-27', 'FEED-28'))

valid('a bundle without social data reads without it; its counts have no other record', 'social-none.glow',
      [manifest_frame(counts(goals=1)), goal, end_frame(counts(goals=1))],
      {'counts': {'profiles': 0, 'goals': 1, 'checkInBlocks': 0, 'checkIns': 0, 'other': 0}})

first = manifest_frame(counts(goals=1))
invalid('a social frame the manifest does not count among other records is one record too many (BUNDLE-9)',
        'social-uncounted.glow', [first, goal, frame(5, social_payload('mia', canonical)), end_frame(counts(goals=1))],
        'malformed_frame', len(first) + len(goal), rules=('BUNDLE-27', 'BUNDLE-9'))

declared2 = counts(goals=1, other=2)
first = manifest_frame(declared2)
social = frame(5, social_payload('mia', canonical))
invalid('a second social frame is duplicate_id', 'social-twice.glow',
        [first, goal, social, social, end_frame(declared2)], 'duplicate_id', len(first) + len(goal) + len(social),
        rules=('BUNDLE-27', 'BUNDLE-14'))


def refused(comment, name, person, registers, rules=('BUNDLE-27', 'FEED-30', 'BUNDLE-18')):
    first = manifest_frame(declared)
    payload = social_payload(person, registers)
    invalid(comment, name, [first, goal, frame(5, payload), end_frame(declared)], 'invalid_value',
            fields_start(first + goal, payload), rules=rules)


refused('social data without its person', 'social-nobody.glow', '', canonical)
refused('a stance between two other people is not the person\'s', 'social-others.glow', 'mia',
        delta(stances=[('bob', 'cat', 'want', B1, None)]))
refused('a reaction someone else gave', 'social-their-reaction.glow', 'mia',
        delta(reactions=[(ITEM, 'bob', 'fire', True, B1)]))
refused('another person\'s seen marker', 'social-their-marker.glow', 'mia', delta(seen=[('bob', 5)]))
refused('an item: items follow from the data set', 'social-item.glow', 'mia',
        delta(items=[('mia/goalStarted/g1', A1, {'owner': 'mia', 'kind': 'goalStarted', 'goal': 'g1',
                                                  'time': 5, 'title': 'Meditate'})]))
refused('a visibility register: visibility follows from the goals', 'social-visibility.glow', 'mia',
        delta(visibility=[('mia', 'g1', 'public', A1)]))
refused('a receipt time: those are the relay\'s', 'social-receipt.glow', 'mia', delta(receipts=[(ITEM, 9)]))

# A register FEED-28 refuses (a stance without a stamp) is refused where it begins: after the
# person's field and the registers' tag and length.
bad = message(1, text(1, 'mia') + text(2, 'bob') + uint(3, 1))
payload = social_payload('mia', bad)
first = manifest_frame(declared)
invalid('a register without a stamp is refused where it begins (FEED-28)', 'social-no-stamp.glow',
        [first, goal, frame(5, payload), end_frame(declared)], 'invalid_value',
        fields_start(first + goal, payload) + len(text(1, 'mia')) + 1 + len(varint(len(bad))),
        rules=('BUNDLE-27', 'FEED-28', 'BUNDLE-18'))

assert item_id({'owner': 'bob', 'kind': 'checkIn', 'goal': 'g1', 'day': '2026-11-30'}) == ITEM
write_cases('bundle', 'social.json', 'bundle.read',
            'A person\'s social data in their bundle (BUNDLE-27, FEED-30), read from files built by an independent '
            'writer.', cases, 'social')
