#!/usr/bin/env python3
"""Side-by-side benchmark on a real small model: the same coding-agent requests through

  slmcode    `slmcode generate --schema C --prompt P --json` (every default, or a variant's
             settings), validated again here against the contract's schema;
  bare       one request a user could send instead: response_format json_schema strict with the
             contract's schema, a one-line system prompt holding the schema, temperature 0,
             max_tokens 2048;
  json_repair  the same request with response_format json_object, the answer through the
             `json_repair` package, then `jsonschema`;

and for each: valid answers, median and total time. A valid answer satisfies the contract's
schema; a degenerate one (a valid value with an array that holds the same item five times or
more in a row: the loops a schema's `maxItems` lets through) is counted apart.

Run it through run.sh, which makes the venv, starts the server and builds slmcode.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import jsonschema
import json_repair

HERE = os.path.dirname(os.path.abspath(__file__))


def contract(binary, name):
    shown = json.loads(subprocess.check_output([binary, "schema", "show", name, "--json"]))
    return shown["schema"]


def post(endpoint, body, timeout=600):
    request = urllib.request.Request(
        endpoint + "/chat/completions",
        json.dumps(body).encode(),
        {"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def bare_body(schema, prompt, json_object=False):
    system = "Answer with one JSON object that satisfies this JSON Schema: " + json.dumps(schema)
    body = {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
        "temperature": 0,
        "max_tokens": 2048,
    }
    if json_object:
        body["response_format"] = {"type": "json_object"}
    else:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        }
    return body


def valid(value, schema):
    try:
        jsonschema.validate(value, schema)
        return True
    except jsonschema.ValidationError:
        return False


def degenerate(value):
    """Whether a valid value holds a loop the schema let through: an array with the same item
    five times or more in a row (50 copies of one file name, the same finding again)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            run = 1
            for before, item in zip(node, node[1:]):
                run = run + 1 if item == before else 1
                if run >= 5:
                    return True
            stack.extend(node)
    return False


def run_bare(endpoint, schema, prompt, json_object):
    started = time.monotonic()
    try:
        answer = post(endpoint, bare_body(schema, prompt, json_object))
        text = answer["choices"][0]["message"].get("content") or ""
        finish = answer["choices"][0].get("finish_reason")
    except Exception as error:  # noqa: BLE001 - a failed request is a result here
        return {"seconds": time.monotonic() - started, "valid": False, "value": None,
                "note": f"request failed: {error}"}
    if json_object:
        value = json_repair.loads(text)
    else:
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
    ok = value is not None and valid(value, schema)
    return {"seconds": time.monotonic() - started, "valid": ok, "value": value,
            "note": f"finish_reason {finish}"}


def run_slmcode(binary, env, extra, name, prompt, schema):
    started = time.monotonic()
    run = subprocess.run([binary, "generate", "--schema", name, "--prompt", prompt, "--json", *extra],
                         capture_output=True, text=True, env=env)
    seconds = time.monotonic() - started
    try:
        out = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"seconds": seconds, "valid": False, "value": None, "note": run.stderr.strip()[-200:]}
    value = out.get("value")
    meta = out.get("meta") or {}
    note = f"exit {run.returncode}, {meta.get('mechanism')}, attempts {meta.get('attempts')}, end {meta.get('stream_end')}"
    if "error" in out:
        note += f", {out['error'].get('class')}"
    ok = run.returncode == 0 and value is not None and valid(value, schema)
    return {"seconds": seconds, "valid": ok, "value": value, "note": note,
            "tokens": (meta.get("tokens") or {}).get("completion_tokens")}


def summary(label, results):
    times = [result["seconds"] for result in results]
    count = sum(result["valid"] for result in results)
    loops = sum(1 for result in results if result["valid"] and degenerate(result["value"]))
    return {"label": label, "valid": count, "of": len(results), "degenerate": loops,
            "median_s": statistics.median(times), "total_s": sum(times)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", required=True, help="the server's OpenAI-style base URL")
    parser.add_argument("--binary", required=True, help="the slmcode binary")
    parser.add_argument("--requests", default=os.path.join(HERE, "requests.json"))
    parser.add_argument("--only", action="append", default=[],
                        help="run only these arms: slmcode, bare, json_repair, or a variant's name")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:KEY=VALUE,...:ARGS",
                        help="an extra slmcode arm: settings as SLMCODE_ variables and extra generate arguments, "
                             "e.g. 'greedy:TEMPERATURE=0,ANTI_REPETITION=off:' or 'gbnf::--mechanism gbnf_grammar'")
    parser.add_argument("--out", help="write every answer as JSON lines here")
    args = parser.parse_args()
    requests = json.load(open(args.requests))
    config = tempfile.mkdtemp(prefix="slmcode-bench-")
    base_env = dict(os.environ, SLMCODE_CONFIG_DIR=config, SLMCODE_PROVIDER="llamacpp",
                    SLMCODE_ENDPOINT=args.endpoint, NO_COLOR="1")
    started = time.monotonic()
    probe = subprocess.run([args.binary, "probe", "--json"], capture_output=True, text=True, env=base_env)
    probe_seconds = time.monotonic() - started
    mechanism = json.loads(probe.stdout).get("mechanism") if probe.returncode == 0 else f"probe failed: {probe.stderr}"
    print(f"probe: {mechanism} in {probe_seconds:.1f} s (cached for every slmcode run below)", file=sys.stderr)

    arms = [("slmcode", dict(base_env), [])]
    for spec in args.variant:
        name, settings, extra = (spec.split(":", 2) + ["", ""])[:3]
        env = dict(base_env)
        for pair in filter(None, settings.split(",")):
            key, value = pair.split("=", 1)
            env["SLMCODE_" + key.upper()] = value
        arms.append((name, env, extra.split()))
    arms_wanted = set(args.only)
    out = open(args.out, "w") if args.out else None
    table = []
    schemas = {request["contract"]: contract(args.binary, request["contract"]) for request in requests}
    for label in ["bare", "json_repair"] + [arm[0] for arm in arms]:
        if arms_wanted and label not in arms_wanted:
            continue
        results = []
        for request in requests:
            schema = schemas[request["contract"]]
            if label in ("bare", "json_repair"):
                result = run_bare(args.endpoint, schema, request["prompt"], label == "json_repair")
            else:
                _, env, extra = next(arm for arm in arms if arm[0] == label)
                result = run_slmcode(args.binary, env, extra, request["contract"], request["prompt"], schema)
            result.update({"arm": label, "id": request["id"]})
            results.append(result)
            print(f"{label:12} {request['id']:16} valid={result['valid']!s:5} {result['seconds']:6.1f} s  {result['note']}",
                  file=sys.stderr, flush=True)
            if out:
                out.write(json.dumps(result) + "\n")
                out.flush()
        table.append(summary(label, results))
    print(f"\n{len(requests)} requests over {len(schemas)} contracts; endpoint {args.endpoint}\n")
    print("| arm | valid answers | of them degenerate | median time | total time |")
    print("|---|---|---|---|---|")
    for row in table:
        print(f"| {row['label']} | {row['valid']} / {row['of']} | {row['degenerate']} | {row['median_s']:.1f} s | {row['total_s']:.0f} s |")


if __name__ == "__main__":
    main()
