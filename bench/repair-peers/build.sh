#!/bin/sh
# Rebuilds corpus.json from the two suites: fetches each repository at the commit recorded in
# the current corpus.json into a cache directory (never into this repository) and runs build.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${SLMCODE_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slmcode-repair-peers}
mkdir -p "$cache"
fetch() { # repo commit dir
    if [ ! -d "$3/.git" ]; then git clone --quiet "https://github.com/$1" "$3"; fi
    git -C "$3" checkout --quiet "$2"
}
fetch mangiucugna/json_repair 600ede6be7d125d14812be3bbd7ef3e0b526a84e "$cache/json_repair"
fetch josdejong/jsonrepair 72ccb43aa612b9c38144ed66b23648a253713216 "$cache/jsonrepair"
python3 "$here/build.py" "$cache/json_repair" "$cache/jsonrepair" > "$here/corpus.json"
