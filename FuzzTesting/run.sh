#!/usr/bin/env bash
# Builds the fuzz targets with the fuzzer and address sanitizers and runs one of them.
#
#   FuzzTesting/run.sh TARGET [libFuzzer options...]      e.g. run.sh records -runs=10000000
#   FuzzTesting/run.sh all -max_total_time=20              every target for 20 seconds (CI)
#
# TARGET is one of: records raw bundle dataset-json color framing hostile-block auth feed database envelope service
# crypto sync. Seeds come from Spec/ (seeds.py); new inputs go to .corpus/TARGET, crashes to .artifacts/TARGET
# (copy each into Regressions/TARGET/ so swift test replays it forever).
set -euo pipefail
cd "$(dirname "$0")"
declare -A products=(
    [records]=FuzzRecords [raw]=FuzzRaw [bundle]=FuzzBundle [dataset-json]=FuzzDataSetJSON
    [color]=FuzzColor [framing]=FuzzFraming [hostile-block]=FuzzHostileBlock [auth]=FuzzAuth [feed]=FuzzFeed
    [database]=FuzzDatabase [envelope]=FuzzEnvelope [service]=FuzzService [crypto]=FuzzCrypto [sync]=FuzzSync
)
usage="usage: run.sh TARGET|all [libFuzzer options]   (TARGET: ${!products[*]})"
target=${1:?$usage}
if [[ $target == -h || $target == --help ]]; then
    sed -n '2,9p' "$(basename "$0")" | sed 's/^# \{0,1\}//'
    echo "$usage"
    exit 0
fi
if [[ $target != all && -z ${products[$target]:-} ]]; then
    echo "run.sh: unknown target '$target'; $usage" >&2
    exit 64
fi
shift
# The build's own output is long (the sanitizer linker's warnings); it is shown when the build fails.
build_log=$(mktemp)
if ! swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$build_log" 2>&1; then
    grep -v "Cannot export local symbol" "$build_log" >&2
    rm -f "$build_log"
    echo "run.sh: the fuzz targets did not build" >&2
    exit 1
fi
rm -f "$build_log"
python3 seeds.py
names=("$target")
[[ $target == all ]] && names=(records raw bundle dataset-json color framing hostile-block auth feed database envelope service crypto sync)
for name in "${names[@]}"; do
    product=${products[$name]:?unknown target $name}
    mkdir -p ".corpus/$name" ".artifacts/$name"
    echo "== $name"
    ".build/release/$product" ".corpus/$name" "Regressions/$name" -dict=varints.dict -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix=".artifacts/$name/" -print_final_stats=1 "$@"
done
