"""How the corpus generators write a file of cases (Spec/conformance.md): ids numbered from the
file's prefix, the case members in one order, two-space JSON with the text as written, and a
final newline. Shared, so every generated file has the same shape."""
import json
import os

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
