#!/usr/bin/env python3
"""Growth of `schema gbnf`, `schema check` and `tools compile` with the size of the input.

Writes the inputs into target/scale/ (a schema with N string properties, all required or every
second one optional; an OpenAI tools file with N tools of two arguments each), runs the release
binary on each and prints the CPU time of the process (user + system, from the kernel's
accounting of the child, so other load on the machine inflates it far less than wall time),
the best of --runs runs, next to the wall time of that run.

    cargo build --release
    bench/scale.py                                   # the sizes in bench/README.md
    bench/scale.py --properties 1000 10000 --tools 1000 --runs 3
    bench/scale.py --patterns --skip check           # every string with a `pattern`, beside none

See bench/README.md, section "Scale".
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


# Patterns of the kinds real schemas hold (ids, codes, emails, versions, dates), cycled through
# the properties and tools of the `--patterns` inputs.
PATTERNS = [
    r"^[A-Z]{2,4}-\d{1,5}$",
    r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$",
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$",
    r"^\d{4}-\d{2}-\d{2}$",
    r"^(?:[a-f0-9]{2}:){5}[a-f0-9]{2}$",
    r"^https?://[^\s/$.?#].[^\s]*$",
]


def string(index, patterns):
    """A string schema; with `patterns`, the index-th pattern behind a prefix of its own, so no
    two properties share one (a schema that repeats a pattern derives it once)."""
    if patterns:
        pattern = PATTERNS[index % len(PATTERNS)]
        return {"type": "string", "pattern": f"^x{index}-" + pattern[1:]}
    return {"type": "string"}


def schema(count, optional, patterns=False):
    """An object with `count` string properties; with `optional`, every second one optional."""
    names = [f"field_{index}" for index in range(count)]
    return {
        "type": "object",
        "properties": {name: string(index, patterns) for index, name in enumerate(names)},
        "required": [name for index, name in enumerate(names) if not (optional and index % 2)],
        "additionalProperties": False,
    }


def tools(count, patterns=False):
    """`count` OpenAI-form tools, each with a required string and an optional integer."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"tool_{index}",
                "description": f"Tool number {index}.",
                "parameters": {
                    "type": "object",
                    "properties": {"path": string(index, patterns), "limit": {"type": "integer"}},
                    "required": ["path"],
                    "additionalProperties": False,
                },
            },
        }
        for index in range(count)
    ]


def write(path, value):
    if not os.path.exists(path):
        with open(path, "w") as out:
            json.dump(value, out)
    return path


def cpu_of(command, env):
    """Runs `command`; returns (user + system seconds, wall seconds, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--properties", type=int, nargs="*", default=[12500, 25000, 50000, 100000])
    parser.add_argument("--tools", type=int, nargs="*", default=[1000, 2000, 4000, 10000])
    parser.add_argument("--runs", type=int, default=3, help="runs per case; the best is shown")
    parser.add_argument("--binary", default=os.path.join(REPO, "target/release/slmcode"))
    parser.add_argument("--skip", nargs="*", default=[], help="commands to skip: gbnf check tools")
    parser.add_argument("--patterns", action="store_true",
                        help="also run every input with a `pattern` on each string, beside the plain one")
    arguments = parser.parse_args()

    inputs = os.path.join(REPO, "target/scale")
    os.makedirs(inputs, exist_ok=True)
    config = tempfile.mkdtemp(prefix="slmcode-scale-")
    env = {"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1", "SLMCODE_CONFIG_DIR": config}

    cases = []
    kinds = [False, True] if arguments.patterns else [False]
    for count in arguments.properties:
        for optional in (False, True):
            for patterns in kinds:
                shape = "half optional" if optional else "all required"
                shape += ", patterns" if patterns else ""
                suffix = ("half" if optional else "all") + ("-patterns" if patterns else "")
                path = write(os.path.join(inputs, f"schema-{count}-{suffix}.json"),
                             schema(count, optional, patterns))
                if "gbnf" not in arguments.skip:
                    cases.append(("schema gbnf", f"{count} properties, {shape}", count,
                                  [arguments.binary, "schema", "gbnf", "--file", path]))
                if "check" not in arguments.skip:
                    cases.append(("schema check", f"{count} properties, {shape}", count,
                                  [arguments.binary, "schema", "check", path]))
    for count in arguments.tools:
        for patterns in kinds:
            suffix = "-patterns" if patterns else ""
            path = write(os.path.join(inputs, f"tools-{count}{suffix}.json"), tools(count, patterns))
            if "tools" not in arguments.skip:
                label = f"{count} tools" + (", patterns" if patterns else "")
                cases.append(("tools compile", label, count,
                              [arguments.binary, "tools", "compile", path]))

    print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print("| command | input | CPU user + system (best of {}) | wall of that run | exit |".format(arguments.runs))
    print("|---|---|---|---|---|")
    for command, label, _, argv in cases:
        best = None
        for _ in range(arguments.runs):
            measured = cpu_of(argv, env)
            if best is None or measured[0] < best[0]:
                best = measured
        cpu, wall, code = best
        print(f"| `{command}` | {label} | {cpu:.3f} s | {wall:.3f} s | {code} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
