"""The command line every script of Tools/conformance shares: `-h`/`--help` prints the script's
description and usage and exits 0; an option it does not know, or too many arguments, is refused
on standard error with exit code 64, before the script does anything."""
import sys


def arguments(argv, doc, usage, optional=None):
    """Checks `argv` and returns the one optional argument (`optional` names it, None when the
    script takes none), or None when it was not given."""
    args = argv[1:]
    if args in (['-h'], ['--help']):
        print(doc.strip())
        print('\nUsage: ' + usage)
        sys.exit(0)
    allowed = 1 if optional else 0
    if len(args) > allowed or any(arg.startswith('-') for arg in args):
        sys.stderr.write('error: unexpected arguments %r; -h for help\n' % args)
        sys.exit(64)
    return args[0] if args else None
