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


def schema(count, optional):
    """An object with `count` string properties; with `optional`, every second one optional."""
    names = [f"field_{index}" for index in range(count)]
    return {
        "type": "object",
        "properties": {name: {"type": "string"} for name in names},
        "required": [name for index, name in enumerate(names) if not (optional and index % 2)],
        "additionalProperties": False,
    }


def tools(count):
    """`count` OpenAI-form tools, each with a required string and an optional integer."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"tool_{index}",
                "description": f"Tool number {index}.",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
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
    arguments = parser.parse_args()

    inputs = os.path.join(REPO, "target/scale")
    os.makedirs(inputs, exist_ok=True)
    config = tempfile.mkdtemp(prefix="slmcode-scale-")
    env = {"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1", "SLMCODE_CONFIG_DIR": config}

    cases = []
    for count in arguments.properties:
        for optional in (False, True):
            shape = "half optional" if optional else "all required"
            suffix = "half" if optional else "all"
            path = write(os.path.join(inputs, f"schema-{count}-{suffix}.json"), schema(count, optional))
            if "gbnf" not in arguments.skip:
                cases.append(("schema gbnf", f"{count} properties, {shape}", count,
                              [arguments.binary, "schema", "gbnf", "--file", path]))
            if "check" not in arguments.skip:
                cases.append(("schema check", f"{count} properties, {shape}", count,
                              [arguments.binary, "schema", "check", path]))
    for count in arguments.tools:
        path = write(os.path.join(inputs, f"tools-{count}.json"), tools(count))
        if "tools" not in arguments.skip:
            cases.append(("tools compile", f"{count} tools", count,
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
