#!/usr/bin/env bash
# Instructions executed by the whole `slmcode repair` process on the repair benchmark's inputs,
# each next to serde_json's parse-and-print of the valid twin (read the file as UTF-8, parse it
# into a `Value`, print it compact: `benches/repair.rs`, `reference FILE`), counted in the same
# run by valgrind (cachegrind without its cache simulation: the total only, and fast).
#
# Unlike CPU time, which swings between runs of one build on a shared machine, the count is the
# same from run to run, so a change of a few percent shows in one run. Both processes run with an
# empty environment and a fresh config directory, so that nothing outside the build changes the
# count. Every output is compared with the reference's: a row whose output differs says so.
#
#     bench/instructions.sh                            # builds, then measures this tree's binary
#     SLMCODE=/path/to/slmcode bench/instructions.sh   # another build of slmcode, same inputs
#
# See bench/README.md, section "Repair", "Instructions".
set -euo pipefail
cd "$(dirname "$0")/.."

for argument in "$@"; do
  echo "usage: SLMCODE=<another slmcode build> bench/instructions.sh" >&2
  exit 2
done
command -v valgrind >/dev/null || { echo "error: valgrind is not installed" >&2; exit 1; }

# One build gives both: the benchmark binary (which holds the reference and writes the inputs)
# and, since benchmarks are built with the crate's binaries, `slmcode` in the same profile.
artifacts=$(cargo bench --bench repair --no-run --message-format=json --quiet)
executable() {
  grep "\"kind\":\[\"$1\"\]" <<<"$artifacts" | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p'
}
bench=$(executable bench)
[ -x "$bench" ] || { echo "error: no benchmark binary (cargo bench --bench repair --no-run)" >&2; exit 1; }
slmcode=${SLMCODE:-$(executable bin)}
"$bench" dump >/dev/null
corpus=target/repair-corpus

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Instructions of one process (its arguments follow), run with an empty environment; its output
# goes to $scratch/out.
count() {
  rm -rf "$scratch/config"
  env -i SLMCODE_CONFIG_DIR="$scratch/config" \
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" \
    2>"$scratch/err" >"$scratch/out" || { cat "$scratch/err" >&2; return 1; }
  sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$scratch/err" | tr -d ,
}

echo "| input | bytes | serde_json parse-and-print of the valid twin | \`slmcode repair\` | ratio | output |"
echo "|---|---|---|---|---|---|"
row() {
  local label=$1 input=$2 twin=$3
  local reference subject same
  reference=$(count "$bench" reference "$twin")
  mv "$scratch/out" "$scratch/expected"
  subject=$(count "$slmcode" repair "$input")
  if cmp -s "$scratch/out" "$scratch/expected"; then same="same"; else same="DIFFERENT"; fi
  printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "$(wc -c <"$input")" \
    "$reference" "$subject" "$(awk "BEGIN { printf \"%.3f\", $subject / $reference }")" "$same"
}
row "1 KB answer, broken every way at once (everything.txt)" "$corpus/everything.txt" "$corpus/twin.json"
row "valid 1 KB" "$corpus/valid-1222.json" "$corpus/valid-1222.json"
row "valid 10 MB" "$corpus/valid-11786754.json" "$corpus/valid-11786754.json"
row "10 MB, a trailing comma in every array and object" "$corpus/commas-11786754.txt" "$corpus/valid-11786754.json"
row "10 MB, broken every way at once" "$corpus/everything-11786754.txt" "$corpus/valid-11786754.json"
