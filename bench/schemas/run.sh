#!/usr/bin/env bash
# The JSONSchemaBench benchmark (bench/README.md, "Real-world schemas"): coverage, compliance,
# grammar size and compile time of slmcode's derived grammars next to llama.cpp's own converter
# and the server's json_schema path, on the fixed sample of sample.txt.
#
#   SLMCODE_BIN=target/release/slmcode bench/schemas/run.sh
#
# SLMCODE_BIN (required): the slmcode binary measured, so that any build can be rerun.
# JSONSCHEMABENCH_GIT: a snapshot of github.com/guidance-ai/jsonschemabench as a bare git
#   directory (default: where the `fetch` tool leaves it); nothing of it is committed.
# PORT (default 18521): the tiny model's llama.cpp server, started by tests/real-engine/start.sh.
# CACHE (default ~/.cache/slmcode-bench; not passed on to start.sh, whose own CACHE is the
#   server's): the venv (jsonschema), the llama-cpp-python sdist
#   whose vendored llama.cpp holds examples/json_schema_to_grammar.py, the extracted sample and
#   results.json (every row).
# MAX_TOKENS (default 800), REQUEST_TIMEOUT (s, default 90), LIMIT (first N schemas; 0: all).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
slmcode=${SLMCODE_BIN:?set SLMCODE_BIN to the slmcode binary to measure}
slmcode=$(cd "$(dirname "$slmcode")" && pwd)/$(basename "$slmcode")
bench_git=${JSONSCHEMABENCH_GIT:-/work/.mirror/guidance-ai+jsonschemabench/repo}
port=${PORT:-18521}
cache=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-bench}
mkdir -p "$cache"
. "$here/tools.sh"
python=$(bench_venv "$cache")
converter=$(llama_cpp_source "$cache")/examples/json_schema_to_grammar.py
data=$cache/jsonschemabench
rm -rf "$data"
python3 "$here/sample.py" extract "$bench_git" "$data"
echo "slmcode: $slmcode ($("$slmcode" --version))" >&2
echo "converter: $converter" >&2
"$python" "$here/run.py" --data "$data" --slmcode "$slmcode" --converter "$converter" \
  --port "$port" --start "env -u CACHE MODEL=tiny PORT=$port $repo/tests/real-engine/start.sh" \
  --out "$cache/results.json" --max-tokens "${MAX_TOKENS:-800}" \
  --request-timeout "${REQUEST_TIMEOUT:-90}" --limit "${LIMIT:-0}"
