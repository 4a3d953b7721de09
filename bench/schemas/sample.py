"""The fixed sample of JSONSchemaBench this benchmark runs on, and its extraction.

    python3 sample.py draw GIT_DIR > sample.txt    # once: 40 schemas per category, seed 25
    python3 sample.py extract GIT_DIR OUT          # each run: the sampled files into OUT

GIT_DIR is a snapshot of github.com/guidance-ai/jsonschemabench (a bare git directory, as the
`fetch` tool leaves it). The schemas are not committed (the benchmark states no licence, and
its files come from many repositories): sample.txt names them and records the commit, and
`extract` writes, for each, OUT/schemas/CATEGORY/NAME (the schema, from data/) and, where
maskbench/data has the same schema with test instances, OUT/tests/CATEGORY/NAME (a JSON list
of {"valid": bool, "data": ...}).
"""

import json
import os
import random
import subprocess
import sys

SEED = 25
PER_CATEGORY = 40


def git(git_dir, *args):
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True
    ).stdout


def listing(git_dir, tree):
    out = git(git_dir, "ls-tree", "--name-only", "HEAD", tree + "/")
    return sorted(line.rsplit("/", 1)[-1] for line in out.decode().splitlines())


def draw(git_dir):
    commit = git(git_dir, "rev-parse", "HEAD").decode().strip()
    rng = random.Random(SEED)
    print(f"# JSONSchemaBench snapshot {commit}: {PER_CATEGORY} schemas per category of data/,")
    print(f"# drawn by bench/schemas/sample.py draw (random.Random({SEED}).sample of the sorted names).")
    for category in listing(git_dir, "data"):
        names = listing(git_dir, "data/" + category)
        for name in sorted(rng.sample(names, min(PER_CATEGORY, len(names)))):
            print(f"{category}/{name}")


def read_sample(path):
    with open(path) as file:
        lines = [line.strip() for line in file]
    commit = lines[0].split("snapshot ", 1)[1].split(":", 1)[0]
    return commit, [line for line in lines if line and not line.startswith("#")]


def extract(git_dir, out, sample_path):
    commit, entries = read_sample(sample_path)
    head = git(git_dir, "rev-parse", "HEAD").decode().strip()
    if head != commit:
        print(f"note: the snapshot is at {head}, the sample was drawn at {commit}", file=sys.stderr)
    tests = set(listing(git_dir, "maskbench/data"))
    with_tests = 0
    for entry in entries:
        category, name = entry.split("/", 1)
        text = git(git_dir, "show", f"{commit}:data/{entry}")
        os.makedirs(os.path.join(out, "schemas", category), exist_ok=True)
        with open(os.path.join(out, "schemas", entry), "wb") as file:
            file.write(text)
        masked = f"{category}---{name}"
        if masked in tests:
            bundle = json.loads(git(git_dir, "show", f"HEAD:maskbench/data/{masked}"))
            cases = [{"valid": case["valid"], "data": case["data"]} for case in bundle.get("tests", [])]
            if cases:
                with_tests += 1
                os.makedirs(os.path.join(out, "tests", category), exist_ok=True)
                with open(os.path.join(out, "tests", entry), "w") as file:
                    json.dump({"schema": bundle["schema"], "tests": cases}, file)
    print(f"extracted {len(entries)} schemas ({with_tests} with test instances) into {out}", file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.argv[1] == "draw":
        draw(sys.argv[2])
    elif sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3], os.path.join(here, "sample.txt"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
