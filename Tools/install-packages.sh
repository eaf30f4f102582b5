#!/usr/bin/env bash
# Installs the Debian packages the tests need, when any is missing (the README's test command and
# .ci/run call it; a fresh machine of this project's kind lacks some). Root installs directly;
# anyone else through sudo.
#
# tzdata backs the day-boundary rules (MODEL-8 ... MODEL-12); protobuf-compiler proves that standard
# tools read our records (Spec/wire.md). zlib1g-dev backs the CZlib shim of the bundle format,
# libsqlite3-dev the CSQLite shim of GlowStorage: the only C libraries of the app side. The server
# side adds libssl-dev (libcrypto, for ID-token signatures, through the CCrypto shim),
# libmicrohttpd-dev (GlowServer's HTTP) and libpq-dev (GlowPostgres); pkg-config lets SwiftPM find
# them. libargon2-dev is the oracle the package's own Argon2id is checked against, beside libcrypto
# for the rest of its crypto (Tools/CryptoOracle). Debian's python3 with python3-protobuf runs the
# independent conformance testee (Tools/conformance/testee.py), and python3-cryptography gives it
# AES-256-GCM for encrypted bundles (BUNDLE-29 ...); it is called as /usr/bin/python3, since another
# python3 on PATH may lack those modules. chromium renders glow-tool report's page headless
# (Tests/GlowToolTests/ReportBrowserTests.swift), with fonts-dejavu-core for its text and
# fonts-noto-color-emoji for the goals' emoji. postgresql runs the throwaway clusters the tests start.
# valgrind's memcheck checks that no secret of the own AES-GCM, HMAC or BLAKE2b reaches a branch or an
# address (Tests/GlowCryptoTests/ConstantTimeTests.swift). openssl signs the ID tokens a glow-server test signs in with, with the corpus's committed test keys.
# sqlite3 is the outside client of the shared-file test (Tests/GlowRitualTests/SharedFileTests.swift),
# which opens and closes a database while the SDK's processes write it.
set -euo pipefail
packages=(
    tzdata protobuf-compiler zlib1g-dev libargon2-dev libssl-dev libsqlite3-dev pkg-config python3 python3-protobuf
    chromium fonts-dejavu-core fonts-noto-color-emoji libmicrohttpd-dev libpq-dev postgresql openssl python3-cryptography
    valgrind sqlite3
)
missing=()
for package in "${packages[@]}"; do
    # "install ok installed" only: a package removed with its configuration left behind still answers dpkg -s.
    [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == "install ok installed" ]] || missing+=("$package")
done
((${#missing[@]})) || exit 0
echo "installing the Debian packages the tests need: ${missing[*]}"
sudo=()
if ((EUID != 0)); then
    command -v sudo >/dev/null || {
        echo "install-packages.sh: run as root, or install sudo, to install ${missing[*]}" >&2
        exit 1
    }
    sudo=(sudo)
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
