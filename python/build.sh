#!/usr/bin/env bash
# Builds the wheel into python/dist/: the CLI's own binary (release, from the repository root)
# goes into the wheel's scripts, then maturin builds the module around it. MATURIN names the
# maturin to run (default: the one on PATH); CARGO_TARGET_DIR is honoured by both builds, so
# they share the dependencies they have in common.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${CARGO_TARGET_DIR:-$here/../target}
(cd "$here/.." && cargo build --release --locked --bin slmcode)
rm -rf "$here/wheel-data" "$here/dist"
mkdir -p "$here/wheel-data/scripts"
cp "$target/release/slmcode" "$here/wheel-data/scripts/slmcode"
# The release profile keeps line tables (for the crate's benchmarks): not for the wheel.
strip "$here/wheel-data/scripts/slmcode"
cd "$here"
"${MATURIN:-maturin}" build --release --locked --out dist "$@"
