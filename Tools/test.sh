#!/usr/bin/env bash
# The README's test command: installs the Debian packages the tests need when they are missing
# (Tools/install-packages.sh), then runs `swift test` with the arguments given (.ci/run adds
# -Xswiftc -warnings-as-errors).
#
# The suites that hold a deadline of the product's own (a main-actor call that never waits on the
# file, sync within its budget, a woken device's sync, the first write after a database restart,
# every call within the database wait under an outside lock) run after the rest, in runs of their
# own: beside the whole
# suite, on 2 cores, every other suite shares their main actor and their CPU, and a deadline missed
# there says nothing about the product. Every test still runs, once.
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/install-packages.sh
deadlines="MainActorTests|BackgroundSyncTests|BackgroundPushTests"
processes="FaultTests|RelayWriteTests"
swift test --skip "$deadlines|$processes" "$@"
swift test --filter "$processes" "$@"
swift test --filter "$deadlines" "$@"
