#!/usr/bin/env bash
# The exactness check of the contracts on the JSONSchemaBench sample, judged by llama.cpp's own
# grammar engine (bench/README.md, "Real-world schemas"): see exactness.py.
#
#   SLMCODE_BIN=target/release/slmcode bench/schemas/exactness.sh
#
# llama.cpp's examples/gbnf-validator is built here, at bench time, from the llama.cpp sources
# the llama-cpp-python sdist on PyPI vendors (tools.sh): the validator, the grammar engine
# (src/llama-grammar.cpp) and its Unicode tables, with stubs for what a grammar without a
# vocabulary never reaches (the model file reader, the vocabulary); needs g++. Nothing of it is
# committed. JSONSCHEMABENCH_GIT and CACHE as for run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
slmcode=${SLMCODE_BIN:?set SLMCODE_BIN to the slmcode binary to measure}
slmcode=$(cd "$(dirname "$slmcode")" && pwd)/$(basename "$slmcode")
bench_git=${JSONSCHEMABENCH_GIT:-/work/.mirror/guidance-ai+jsonschemabench/repo}
cache=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-bench}
mkdir -p "$cache"
. "$here/tools.sh"
python=$(bench_venv "$cache")
llama=$(llama_cpp_source "$cache")
validator=$cache/gbnf-validator
if [ ! -x "$validator" ]; then
  build=$cache/gbnf-validator-build
  mkdir -p "$build"
  cat >"$build/stubs.cpp" <<'CPP'
// Only the grammar engine is linked: with no vocabulary, nothing below is reached.
#include <cstdio>
#include <cstdlib>
#include <string>
#include "ggml.h"
#include "gguf.h"
#include "llama-vocab.h"

[[noreturn]] static void unlinked(const char * what) {
    std::fprintf(stderr, "gbnf-validator: %s is not linked\n", what);
    std::abort();
}
extern "C" {
void ggml_abort(const char * file, int line, const char * fmt, ...) {
    std::fprintf(stderr, "%s:%d: %s\n", file, line, fmt);
    std::abort();
}
void ggml_log_set(ggml_log_callback, void *) {}
int64_t ggml_time_us(void) { return 0; }
enum gguf_type gguf_get_kv_type(const struct gguf_context *, int64_t) { unlinked("gguf"); }
enum gguf_type gguf_get_arr_type(const struct gguf_context *, int64_t) { unlinked("gguf"); }
const char * gguf_get_val_str(const struct gguf_context *, int64_t) { unlinked("gguf"); }
const void * gguf_get_val_data(const struct gguf_context *, int64_t) { unlinked("gguf"); }
size_t gguf_get_arr_n(const struct gguf_context *, int64_t) { unlinked("gguf"); }
const void * gguf_get_arr_data(const struct gguf_context *, int64_t) { unlinked("gguf"); }
const char * gguf_get_arr_str(const struct gguf_context *, int64_t, size_t) { unlinked("gguf"); }
}
bool llama_vocab::is_eog(llama_token) const { unlinked("the vocabulary"); }
const std::string & llama_vocab::token_to_piece(llama_token) const { unlinked("the vocabulary"); }
CPP
  objects=()
  for source in examples/gbnf-validator/gbnf-validator.cpp src/llama-grammar.cpp src/unicode.cpp \
    src/unicode-data.cpp src/llama-impl.cpp "$build/stubs.cpp"; do
    case $source in /*) path=$source ;; *) path=$llama/$source ;; esac
    object=$build/$(basename "$source" .cpp).o
    g++ -O2 -std=c++17 -I"$llama/include" -I"$llama/ggml/include" -I"$llama/src" -c "$path" -o "$object"
    objects+=("$object")
  done
  g++ "${objects[@]}" -o "$validator"
fi
data=$cache/jsonschemabench
rm -rf "$data"
python3 "$here/sample.py" extract "$bench_git" "$data"
"$python" "$here/exactness.py" --data "$data" --slmcode "$slmcode" --validator "$validator" \
  --out "$cache/exactness.json"
