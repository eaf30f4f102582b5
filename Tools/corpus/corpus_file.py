"""How the corpus generators write a file of cases (Spec/conformance.md): ids numbered from the
file's prefix, the case members in one order, two-space JSON with the text as written, and a
final newline. Shared, so every generated file has the same shape."""
import json
import os
import sys

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'Spec', 'corpus')
MEMBERS = ('id', 'comment', 'rules', 'flags', 'input', 'result', 'expected', 'error', 'protoc')


def write_cases(area, name, operation, description, cases, prefix):
    """Numbers `cases` `prefix-001`, ... and writes them as Spec/corpus/AREA/NAME."""
    for index, case in enumerate(cases):
        case['id'] = '%s-%03d' % (prefix, index + 1)
    doc = {'area': area, 'operation': operation, 'description': description,
           'cases': [{key: case[key] for key in MEMBERS if key in case} for case in cases]}
    os.makedirs(os.path.join(CORPUS, area), exist_ok=True)
    with open(os.path.join(CORPUS, area, name), 'w') as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
        f.write('\n')


def command_line(doc, argv=None):
    """What every generator does first: `-h`/`--help` prints what it writes and exits 0; any other
    argument is refused on standard error with exit code 64, before anything is written."""
    args = sys.argv[1:] if argv is None else argv
    if args in (['-h'], ['--help']):
        print(doc.strip())
        print('\nUsage: python3 %s  (no arguments: it rewrites the files named above)' % os.path.relpath(sys.argv[0]))
        sys.exit(0)
    if args:
        sys.stderr.write('error: %s takes no arguments (got %s); -h for help\n'
                         % (os.path.basename(sys.argv[0]), ' '.join(repr(a) for a in args)))
        sys.exit(64)
