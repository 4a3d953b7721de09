#!/usr/bin/env bash
# llama.cpp's own JSON Schema -> GBNF converter (Python) on the 16 contract schemas, to read next
# to `cargo bench --bench gbnf`: in process (timeit) and as a process, with slmcode's
# `schema gbnf` as a process beside it. See bench/README.md, section "GBNF derivation".
#
# The converter comes from the llama-cpp-python sdist on PyPI, fetched with pip into a cache
# outside the repository (CACHE, default ~/.cache/slmcode-bench); nothing is committed. In
# llama-cpp-python 0.3.36 the vendored llama.cpp no longer ships
# examples/json_schema_to_grammar.py; the package carries the same converter in
# llama_cpp/llama_grammar.py ("from vendor/llama.cpp/examples/json-schema-to-grammar.py"), and
# this script uses whichever of the two the sdist has.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-bench}
version=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
mkdir -p "$cache"
sdist=$cache/llama_cpp_python-$version.tar.gz
if [ ! -f "$sdist" ]; then
  python3 -m pip download --no-deps --no-binary llama-cpp-python "llama-cpp-python==$version" -d "$cache" >&2
fi
top=llama_cpp_python-$version
converter=
for candidate in vendor/llama.cpp/examples/json_schema_to_grammar.py llama_cpp/llama_grammar.py; do
  if tar -xzf "$sdist" -C "$cache" "$top/$candidate" 2>/dev/null; then
    converter=$cache/$top/$candidate
    break
  fi
done
[ -n "$converter" ] || { echo "no JSON Schema converter in $sdist" >&2; exit 1; }

(cd "$repo" && cargo build -q --release --bin slmcode)
slmcode=$repo/target/release/slmcode
schemas=$cache/schemas
mkdir -p "$schemas"
names=$("$slmcode" schema list --json | python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["contracts"]))')
for name in $names; do
  "$slmcode" schema show "$name" >"$schemas/$name.json"
done
echo "converter: $converter"
python3 "$here/gbnf_reference.py" "$converter" "$schemas" "$slmcode" $names
