#!/usr/bin/env python3
"""How far a stock protobuf runtime alone gets with the canonical form of Spec/wire.md.

For every valid `wire.decode` case of Spec/corpus/wire/, this parses the case's input bytes with
the classes `protoc --python_out` generates from Spec/glow.proto (the same ones the testee uses,
glowpy/protos.py) and the stock `google.protobuf` runtime, serialises the message again with
`SerializeToString(deterministic=True)`, and compares the bytes with the case's `canonicalHex`
(WIRE-1 ... WIRE-7, unknown fields and open enum values included). Nothing of the testee's own
reading or writing is involved.

Which cases it compares: every case whose `result` is `valid` and that expects a `canonicalHex`,
at any level (Required, or flagged `Recommended`). Invalid cases, and so the Recommended `-offset`
twins of the error cases (WIRE-16), are not its business: they expect an error, not bytes.

Three rules make the canonical form the model's reading on top of the runtime rather than the
runtime's own round trip, and their cases are counted apart:

- WIRE-27 maps values the schema leaves open (a `bool` kind member present as false selects its
  kind and is written true; an empty block is written without its `first_day`). Its cases are not
  compared.
- WIRE-28: a reader that knows taps takes them as deciding and recomputes the fields that describe
  them, and a check-in whose taps are those of its compact form is written without them (MODEL-55).
  Where the input already is the canonical form the runtime gives it back unchanged, and that is
  checked like any other case; where the input lists taps that the model describes or compacts
  anew, the runtime cannot know it, and such a difference is reported as the model's reading,
  not as a mismatch.
- REMIND-13: reminder settings are the model's values: a goal's times are written in increasing
  order, a person's standard settings are not written at all, and a snooze of 0 is the standard
  ten minutes, written as 10. Cases are compared like WIRE-28's, a difference the model's reading.

It prints each mismatch (case id, expected hex, got hex) and exits 1 when any compared case
differs (outside the readings of WIRE-28 and REMIND-13), 0 otherwise. Run it with a Python that has python3-protobuf:

    /usr/bin/python3 Tools/conformance/protobuf_reencode.py [corpus/wire folder]
"""
import glob
import json
import os
import sys

sys.dont_write_bytecode = True                         # keep the repository free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cli                                              # noqa: E402
from glowpy.protos import message_class                 # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.normpath(os.path.join(HERE, '..', '..', 'Spec', 'corpus', 'wire'))


MODEL_MAPPING = 'WIRE-27'            # the rule of the mappings the schema leaves open: not compared
READINGS = {                         # compared; a difference is the model's reading, not a mismatch
    'WIRE-28': 'whose taps the model describes or compacts anew',
    'REMIND-13': 'whose reminder settings the model orders, fills in or leaves out',
}


def valid_decode_cases(folder):
    """The valid `wire.decode` cases of every corpus file in the folder, in file and case order,
    whatever their level (a Recommended flag changes nothing here); invalid cases are skipped."""
    for path in sorted(glob.glob(os.path.join(folder, '*.json'))):
        with open(path, encoding='utf-8') as f:
            corpus = json.load(f)
        if corpus.get('operation') != 'wire.decode':
            continue
        for case in corpus['cases']:
            if case['result'] == 'valid' and 'canonicalHex' in case.get('expected', {}):
                yield case


def reencode(message_name, data):
    """The stock runtime's own round trip: parse, then serialise deterministically."""
    message = message_class(message_name)()
    message.ParseFromString(data)
    return message.SerializeToString(deterministic=True)


def main(argv):
    folder = cli.arguments(argv, __doc__, f'{argv[0]} [CORPUS-FOLDER]  (default {CORPUS})', optional='folder') or CORPUS
    checked, mismatches, mapped, readings = 0, 0, [], {rule: [] for rule in READINGS}
    for case in valid_decode_cases(folder):
        if MODEL_MAPPING in case.get('rules', []):
            mapped.append(case['id'])
            continue
        checked += 1
        expected = case['expected']['canonicalHex']
        try:
            got = reencode(case['input']['message'], bytes.fromhex(case['input']['hex'])).hex()
        except Exception as error:                      # a parse the stock runtime refuses
            got = f'<{type(error).__name__}: {error}>'
        reading = next((rule for rule in READINGS if rule in case.get('rules', [])), None)
        if got != expected and reading is not None:
            readings[reading].append(case['id'])
        elif got != expected:
            mismatches += 1
            print(f'MISMATCH {case["id"]} ({case["input"]["message"]}): {case["comment"]}')
            print(f'  expected {expected}')
            print(f'  got      {got}')
    if mapped:
        print(f'not compared: {len(mapped)} case(s) of {MODEL_MAPPING}, a mapping on top of the runtime '
              f'({", ".join(mapped)})')
    for rule, ids in readings.items():
        if ids:
            print(f'the model\'s reading: {len(ids)} case(s) of {rule} {READINGS[rule]} ({", ".join(ids)})')
    read = sum(len(ids) for ids in readings.values())
    identical = checked - mismatches - read
    print(f'{checked} valid wire.decode cases re-encoded by the stock runtime: '
          f'{identical} identical, {read} the model\'s reading (taps, reminder settings), {mismatches} different')
    return 1 if mismatches else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
