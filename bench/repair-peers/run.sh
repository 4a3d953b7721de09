#!/bin/sh
# The side-by-side score of bench/README.md: slmcode (release build), json_repair (PyPI) and
# jsonrepair (npm) on corpus.json. The peers are installed into a cache directory, never into
# the repository, at the versions whose test suites the corpus was built from.
#   bench/repair-peers/run.sh [results.json]     (CARGO_TARGET_DIR is honoured)
# Then reasons.py groups the cases slmcode does not get right by the rule that decides each.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${SLMCODE_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-repair-peers}
json_repair_version=0.61.7
jsonrepair_version=3.14.1
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ]; then
    python3 -m venv "$cache/venv"
fi
"$cache/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "json_repair==$json_repair_version"
if [ ! -f "$cache/npm/node_modules/jsonrepair/package.json" ] ||
    ! grep -q "\"version\": \"$jsonrepair_version\"" "$cache/npm/node_modules/jsonrepair/package.json"; then
    npm install --silent --no-save --no-audit --no-fund --prefix "$cache/npm" "jsonrepair@$jsonrepair_version"
fi
(cd "$root" && cargo build --release --quiet)
target=${CARGO_TARGET_DIR:-$root/target}
details=${1:-$cache/results.json}
python3 "$here/score.py" --slmcode "$target/release/slmcode" \
    --python "$cache/venv/bin/python" --jsonrepair "$cache/npm/node_modules/jsonrepair" \
    --details "$details" "$here/corpus.json"
echo
echo "Where slmcode disagrees with our expectation, by reason:"
echo
python3 "$here/reasons.py" "$details"
