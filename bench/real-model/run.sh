#!/usr/bin/env bash
# The real-model benchmark in one command: makes a venv with the baselines' packages (outside the
# repository), starts SmolLM2-135M-Instruct behind llama.cpp's server unless ENDPOINT is given,
# builds slmcode in release mode, and runs bench/real-model/run.py with every argument passed on.
#
#   bench/real-model/run.sh                                   # slmcode, bare json_schema, json_object + json_repair
#   bench/real-model/run.sh --variant 'greedy:TEMPERATURE=0,ANTI_REPETITION=off:'   # one more slmcode arm
#   ENDPOINT=http://127.0.0.1:8080/v1 bench/real-model/run.sh --only slmcode
#   BENCH=tools bench/real-model/run.sh                       # tool calls: tools.py instead of run.py
#
# Nothing else may run on the machine meanwhile: the times are wall-clock times of a CPU-bound
# server on 2 cores. See bench/README.md, "Real small model".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-bench}
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c 'import jsonschema, json_repair' 2>/dev/null; then
  python3 -m venv "$cache/venv" >&2
  "$cache/venv/bin/pip" install -q 'jsonschema==4.26.0' 'json_repair==0.64.6' >&2
fi
(cd "$repo" && cargo build --release --locked -q)
if [ -z "${ENDPOINT:-}" ]; then
  engine=$(MODEL=smollm2 "$repo/tests/real-engine/start.sh")
  eval "$engine"
  trap 'kill "$SLMCODE_E2E_PID" 2>/dev/null || true' EXIT
  ENDPOINT=$SLMCODE_E2E_ENDPOINT
fi
script=run.py
[ "${BENCH:-}" = tools ] && script=tools.py
"$cache/venv/bin/python" "$here/$script" --endpoint "$ENDPOINT" --binary "$repo/target/release/slmcode" "$@"
