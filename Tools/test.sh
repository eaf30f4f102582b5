#!/usr/bin/env bash
# The README's test command: installs the Debian packages the tests need when they are missing
# (Tools/install-packages.sh), then runs `swift test` with the arguments given (.ci/run adds
# -Xswiftc -warnings-as-errors).
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/install-packages.sh
exec swift test "$@"
