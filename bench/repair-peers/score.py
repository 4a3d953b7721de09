#!/usr/bin/env python3
"""Runs slmcode, json_repair and jsonrepair on every case of corpus.json and scores them with
one rule: right = the output parses to the expected value; for a "truncated" case, the tool
refused the input as cut off (slmcode: class truncated; jsonrepair: "Unexpected end of json
string"; json_repair has no such answer); for a "refuse" case, the tool gave no value.

Usage: score.py --slmcode BIN --python VENV_PYTHON --jsonrepair NODE_MODULES/jsonrepair
                corpus.json [--details results.json]
Prints a Markdown summary (per suite and expectation, per category, total).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

JSON_REPAIR = r"""
import json, sys
import json_repair
cases = json.load(sys.stdin)
out = []
for text in cases:
    try:
        value = json_repair.repair_json(text, return_objects=True)
        out.append({"refused": "empty result"} if value == "" and text.strip() != '""'
                   else {"value": value})
    except Exception as error:
        out.append({"refused": repr(error)[:200]})
from importlib.metadata import version
json.dump({"version": version("json_repair"), "results": out}, sys.stdout, default=str)
"""

JSONREPAIR = r"""
const { jsonrepair } = require(process.argv[1]);
const version = require(process.argv[1] + '/package.json').version;
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((text) => {
    try {
      return { value: JSON.parse(jsonrepair(text)) };
    } catch (error) {
      const message = String(error && error.message);
      return message.startsWith('Unexpected end of json string')
        ? { truncated: message } : { refused: message };
    }
  });
  process.stdout.write(JSON.stringify({ version, results: out }));
});
"""


def encode(text):
    # Inputs with lone surrogates are sent as what a file would hold: the bytes, replaced by
    # U+FFFD on reading (slmcode warns about it).
    return text.encode("utf-8", "surrogatepass")


def run_slmcode(binary, texts):
    results = []
    with tempfile.TemporaryDirectory() as config:
        env = dict(os.environ, SLMCODE_CONFIG_DIR=config)
        for text in texts:
            run = subprocess.run([binary, "repair", "--json", "--record-stats", "false"],
                                 input=encode(text), capture_output=True, env=env, timeout=30)
            try:
                report = json.loads(run.stdout)
            except json.JSONDecodeError:
                results.append({"refused": f"exit {run.returncode}: {run.stderr[:200]!r}"})
                continue
            if report["ok"]:
                results.append({"value": report["value"], "rung": report["rung"]})
            elif report["class"] == "truncated":
                results.append({"truncated": report["message"]})
            else:
                results.append({"refused": f'{report["class"]}: {report["message"]}'})
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    return {"version": version, "results": results}


def run_batch(command, texts):
    run = subprocess.run(command, input=json.dumps(texts).encode(), capture_output=True,
                         timeout=600)
    if run.returncode != 0:
        sys.exit(f"{command[0]} failed: {run.stderr.decode()[-2000:]}")
    return json.loads(run.stdout)


def same(a, b):
    """JSON equality: booleans are not numbers, 1 and 1.0 are the same number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def right(case, result, expectation=None):
    kind = expectation or case["expect"]
    if kind == "value":
        return "value" in result and same(result["value"], case["value"])
    if kind == "truncated":
        return "truncated" in result
    if kind == "refuse":
        return "value" not in result
    # Scored against the suite's own expectation.
    expected = case["suite_expects"]
    if expected == "refuse":
        return "value" not in result
    return "value" in result and same(result["value"], expected)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--slmcode", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--jsonrepair", required=True)
    parser.add_argument("--details")
    parser.add_argument("corpus")
    args = parser.parse_args()
    corpus = json.load(open(args.corpus))
    cases = corpus["cases"]
    texts = [case["input"] for case in cases]
    tools = {
        "slmcode": run_slmcode(args.slmcode, texts),
        "json_repair": run_batch([args.python, "-c", JSON_REPAIR], texts),
        "jsonrepair": run_batch(["node", "-e", JSONREPAIR, args.jsonrepair], texts),
    }
    names = list(tools)
    table = collections.defaultdict(lambda: collections.Counter())
    totals, suite_totals = collections.Counter(), collections.Counter()
    categories = collections.defaultdict(lambda: collections.Counter())
    details = []
    for index, case in enumerate(cases):
        row = (case["suite"], case["expect"])
        table[row]["cases"] += 1
        categories[(case["suite"], case["category"])]["cases"] += 1
        totals["cases"] += 1
        verdicts = {}
        for name in names:
            result = tools[name]["results"][index]
            ok = right(case, result)
            verdicts[name] = ok
            table[row][name] += ok
            categories[(case["suite"], case["category"])][name] += ok
            totals[name] += ok
            suite_totals[name] += right(case, result, expectation="suite")
        details.append({"case": index, "input": case["input"], "expect": case["expect"],
                        "value": case.get("value"), "from": case["from"],
                        "right": verdicts,
                        "results": {name: tools[name]["results"][index] for name in names}})
    print(f"Versions: " + ", ".join(f"{name} {tools[name]['version']}" for name in names))
    print()
    print("| suite | expectation | cases | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for (suite, kind), counts in sorted(table.items()):
        print(f"| {suite} | {kind} | {counts['cases']} | "
              + " | ".join(str(counts[name]) for name in names) + " |")
    print(f"| **total** | | **{totals['cases']}** | "
          + " | ".join(f"**{totals[name]}**" for name in names) + " |")
    print(f"| scored against each suite's own expectations (truncation not special) | | "
          f"{totals['cases']} | " + " | ".join(str(suite_totals[name]) for name in names) + " |")
    print()
    print("| suite | category | cases | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for (suite, category), counts in sorted(categories.items()):
        print(f"| {suite} | {category} | {counts['cases']} | "
              + " | ".join(str(counts[name]) for name in names) + " |")
    if args.details:
        with open(args.details, "w") as file:
            json.dump(details, file, indent=1)


if __name__ == "__main__":
    main()
