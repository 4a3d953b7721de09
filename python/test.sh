#!/usr/bin/env bash
# Builds the wheel (build.sh: release, once) and tests it as a user gets it: installed with pip
# into a fresh venv, then pytest over tests/ (the API, the errors, the command from the wheel,
# the documentation's examples, and `generate` against the real llama.cpp server when
# SLMCODE_E2E_ENDPOINT names one; under SLMCODE_REQUIRE_E2E=1 its absence fails).
#
# maturin and pytest come from PyPI, pinned, into a venv cached under ~/.cache/slmcode-python in
# a directory named for the pins (a changed pin makes a new one): the first run installs for a
# minute, later runs reuse it. Extra arguments go to pytest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pins=("maturin==1.16.0" "pytest==9.2.0")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-python/$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-12)
if [ ! -f "$cache/pins.txt" ]; then
  rm -rf "$cache"
  python3 -m venv "$cache/venv" >&2
  "$cache/venv/bin/pip" install -q "${pins[@]}" >&2
  # The test dependencies as wheels, for the fresh venv to install without the network.
  "$cache/venv/bin/pip" download -q -d "$cache/wheels" "${pins[1]}" >&2
  printf '%s\n' "${pins[@]}" > "$cache/pins.txt"
fi
MATURIN="$cache/venv/bin/maturin" "$here/build.sh" >&2
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
python3 -m venv "$fresh/venv"
"$fresh/venv/bin/pip" install -q --no-index --find-links "$cache/wheels" "$here"/dist/slmcode-*.whl "${pins[1]}"
# From tests/, so that `import slmcode` is the installed wheel, not the source folder.
cd "$here/tests"
"$fresh/venv/bin/pytest" -q -p no:cacheprovider "$@"
