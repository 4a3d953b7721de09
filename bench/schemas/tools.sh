# What bench/schemas/run.sh and exactness.sh need from the package registries, in CACHE:
# sourced, not run.

# Prints the python of a venv with jsonschema (formats asserted: the format-nongpl extra).
bench_venv() {
  local cache=$1
  if ! "$cache/venv/bin/python" -c 'import jsonschema, rfc3339_validator' 2>/dev/null; then
    python3 -m venv "$cache/venv" >&2
    "$cache/venv/bin/pip" install -q 'jsonschema[format-nongpl]==4.26.0' >&2
  fi
  echo "$cache/venv/bin/python"
}

# Prints the folder of the llama.cpp sources vendored in the llama-cpp-python sdist from PyPI
# (0.3.8 still ships examples/json_schema_to_grammar.py and examples/gbnf-validator).
llama_cpp_source() {
  local cache=$1 version=${LLAMA_CPP_PYTHON_VERSION:-0.3.8}
  local top=$cache/llama_cpp_python-$version
  if [ ! -f "$top/vendor/llama.cpp/examples/json_schema_to_grammar.py" ]; then
    if [ ! -f "$cache/llama_cpp_python-$version.tar.gz" ]; then
      python3 -m pip download -q --no-deps --no-binary llama-cpp-python \
        "llama-cpp-python==$version" -d "$cache" >&2
    fi
    tar -xzf "$cache/llama_cpp_python-$version.tar.gz" -C "$cache" \
      "llama_cpp_python-$version/vendor/llama.cpp" >&2
  fi
  echo "$top/vendor/llama.cpp"
}
