#!/usr/bin/env bash
# The real-model benchmark in one command: makes a venv with the baselines' packages (outside the
# repository), starts a real small model behind llama.cpp's server unless ENDPOINT is given,
# builds slmcode in release mode, and runs bench/real-model/run.py with every argument passed on.
#
# run.py's arms, interleaved per request with the order rotated: slmcode (every default; each
# --variant adds one slmcode arm), bare (json_schema strict, one-line schema system prompt,
# temperature 0, max_tokens 2048), bare_prompt (bare with the contract's own prompt as system
# message), expert (bare + repeat_penalty 1.1 / dry_multiplier 0.8, up to three tries: T 0, then
# T 0.5 seeds 1 and 2), json_repair (json_object + json_repair + jsonschema; only with --only).
# Every run appends its table to bench/real-model/RUNS.md and its answers to
# bench/real-model/runs/<UTC time>-<model>-<half>.jsonl.
#
#   MODEL=smollm2 bench/real-model/run.sh --half tuning       # choosing defaults (SPLIT.md)
#   MODEL=qwen bench/real-model/run.sh --half test --only slmcode --only expert   # the headline only:
#     two arms whose prompts share nothing, so neither takes the other's prompt from the server's cache
#   bench/real-model/run.sh --half tuning --variant 'greedy:ANTI_REPETITION=reask:'   # one more slmcode arm
#   bench/real-model/run.sh --half tuning --limit 2 --only slmcode --only expert
#   bench/real-model/run.sh --requests bench/real-model/requests.json --only json_repair
#   BENCH=truncation bench/real-model/run.sh --half tuning [--budget 192]   # truncation.py
#   BENCH=tools bench/real-model/run.sh                       # tool calls: tools.py instead of run.py
#   ENDPOINT=http://127.0.0.1:8080/v1 bench/real-model/run.sh --half tuning   # a running server
#
# MODEL: smollm2 (SmolLM2-135M-Instruct, the default) or qwen (Qwen2.5-Coder-0.5B-Instruct), both
# started by tests/real-engine/start.sh. With ENDPOINT, the model's name is read from
# GET {endpoint}/models (or give --model-alias).
#
# Nothing else may run on the machine meanwhile: the times are wall-clock times of a CPU-bound
# server on 2 cores. See bench/README.md, "Real small model", and bench/real-model/SPLIT.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-bench}
model=${MODEL:-smollm2}
case "$model" in
  smollm2|qwen) ;;
  *) echo "MODEL must be smollm2 or qwen" >&2; exit 2 ;;
esac
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c 'import jsonschema, json_repair' 2>/dev/null; then
  python3 -m venv "$cache/venv" >&2
  "$cache/venv/bin/pip" install -q 'jsonschema==4.26.0' 'json_repair==0.64.6' >&2
fi
(cd "$repo" && cargo build --release --locked -q)
alias_args=()
if [ -z "${ENDPOINT:-}" ]; then
  engine=$(MODEL=$model "$repo/tests/real-engine/start.sh")
  eval "$engine"
  trap 'kill "$SLMCODE_E2E_PID" 2>/dev/null || true' EXIT
  ENDPOINT=$SLMCODE_E2E_ENDPOINT
  alias_args=(--model-alias "$SLMCODE_E2E_MODEL")
fi
script=run.py
case "${BENCH:-}" in
  tools) script=tools.py; alias_args=() ;;
  truncation) script=truncation.py ;;
esac
"$cache/venv/bin/python" "$here/$script" --endpoint "$ENDPOINT" --binary "$repo/target/release/slmcode" ${alias_args[@]+"${alias_args[@]}"} "$@"
