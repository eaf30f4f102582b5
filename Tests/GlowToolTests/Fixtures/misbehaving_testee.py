#!/usr/bin/env python3
"""A testee that misbehaves on purpose, for the runner's tests: a wrong answer, a crash, a hang
and a malformed response, each on one case; it skips everything else."""
import json, struct, sys, time

read, write = sys.stdin.buffer, sys.stdout.buffer
while True:
    header = read.read(4)
    if len(header) < 4:
        sys.exit(0)
    request = json.loads(read.read(struct.unpack('<I', header)[0]))
    case = request['id']
    if case == 'model/day-parse-001':
        response = {'result': {'canonical': '1970-01-02'}}
    elif case == 'model/day-parse-002':
        sys.exit(3)
    elif case == 'model/day-parse-003':
        time.sleep(30)
        sys.exit(0)
    elif case == 'model/day-parse-004':
        write.write(b'\x05\x00\x00\x00{oops')
        write.flush()
        continue
    elif case == 'model/day-parse-005':
        response = {'answer': 42}
    else:
        response = {'skipped': 'not implemented'}
    body = json.dumps(response).encode()
    write.write(struct.pack('<I', len(body)) + body)
    write.flush()
