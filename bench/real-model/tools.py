#!/usr/bin/env python3
"""Tool calls on a real small model: the same coding-agent requests over a 30-tool set through

  slmcode          `slmcode generate --tools tools30.json --tool-choice required --prompt P --json`
                   (the constraint compiled from the tools, extraction and validation downstream,
                   re-asks on a bad call), each call validated again here;
  slmcode_off      the same with `structured_decoding = off` and max_tokens 512: no constraint,
                   native tools and the tools described in the prompt, the call extracted from
                   what the model wrote (and re-asked once when it is not a valid call);
  native_auto      a bare request with the tools in OpenAI's native form, `tool_choice: auto`;
  native_required  the same with `tool_choice: required`;

both bare arms with temperature 0, `parallel_tool_calls: false` and max_tokens 512. A valid call
names a tool of the set and has arguments that satisfy that tool's parameters (jsonschema, with
formats); "right tool" also names the tool the request was written for. Run it through
tools.sh, which makes the venv, starts the server and builds slmcode.
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

HERE = os.path.dirname(os.path.abspath(__file__))


def post(endpoint, body, timeout=600):
    request = urllib.request.Request(
        endpoint + "/chat/completions",
        json.dumps(body).encode(),
        {"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def check(call, parameters):
    """(valid, name) for one call {"name", "arguments"} (arguments a value or a JSON string)."""
    name = call.get("name")
    arguments = call.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return False, name
    if name not in parameters:
        return False, name
    try:
        jsonschema.validate(arguments, parameters[name], format_checker=jsonschema.FormatChecker())
        return True, name
    except jsonschema.ValidationError:
        return False, name


def run_native(endpoint, tools, prompt, choice):
    body = {
        "messages": [{"role": "user", "content": prompt}],
        "tools": tools,
        "tool_choice": choice,
        "parallel_tool_calls": False,
        "temperature": 0,
        "max_tokens": 512,
    }
    started = time.monotonic()
    try:
        answer = post(endpoint, body)
    except Exception as error:  # noqa: BLE001 - a failed request is a result here
        return {"seconds": time.monotonic() - started, "call": None, "note": f"request failed: {error}"}
    seconds = time.monotonic() - started
    choice0 = answer["choices"][0]
    calls = choice0["message"].get("tool_calls") or []
    call = None
    if calls:
        function = calls[0].get("function") or {}
        call = {"name": function.get("name"), "arguments": function.get("arguments")}
    text = (choice0["message"].get("content") or "").strip().replace("\n", " ")
    return {"seconds": seconds, "call": call,
            "note": f"finish_reason {choice0.get('finish_reason')}, {len(calls)} calls, text {text[:60]!r}"}


def run_slmcode(binary, env, tools_path, prompt, extra=()):
    started = time.monotonic()
    run = subprocess.run([binary, "generate", "--tools", tools_path, "--tool-choice", "required",
                          "--prompt", prompt, "--json", *extra], capture_output=True, text=True, env=env)
    seconds = time.monotonic() - started
    try:
        out = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"seconds": seconds, "call": None, "note": run.stderr.strip()[-200:]}
    value = out.get("value") or {}
    calls = value.get("tool_calls") or []
    meta = out.get("meta") or {}
    note = f"exit {run.returncode}, {meta.get('mechanism')}, attempts {meta.get('attempts')}"
    if "error" in out:
        note += f", {out['error'].get('class')}"
    call = calls[0] if run.returncode == 0 and calls else None
    return {"seconds": seconds, "call": call, "note": note}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", required=True, help="the server's OpenAI-style base URL")
    parser.add_argument("--binary", required=True, help="the slmcode binary")
    parser.add_argument("--tools", default=os.path.join(HERE, "tools30.json"))
    parser.add_argument("--requests", default=os.path.join(HERE, "tool-requests.json"))
    parser.add_argument("--only", action="append", default=[],
                        help="run only these arms: slmcode, slmcode_off, native_auto, native_required")
    parser.add_argument("--out", help="write every result as JSON lines here")
    args = parser.parse_args()
    tools = json.load(open(args.tools))
    parameters = {tool["function"]["name"]: tool["function"]["parameters"] for tool in tools}
    requests = json.load(open(args.requests))
    config = tempfile.mkdtemp(prefix="slmcode-bench-")
    env = dict(os.environ, SLMCODE_CONFIG_DIR=config, SLMCODE_PROVIDER="llamacpp",
               SLMCODE_ENDPOINT=args.endpoint, NO_COLOR="1")
    probe = subprocess.run([args.binary, "probe", "--json"], capture_output=True, text=True, env=env)
    if probe.returncode != 0:
        sys.exit(f"probe failed: {probe.stderr}")
    out = open(args.out, "w") if args.out else None
    table = []
    for label in ["slmcode", "slmcode_off", "native_auto", "native_required"]:
        if args.only and label not in args.only:
            continue
        results = []
        for request in requests:
            if label == "slmcode":
                result = run_slmcode(args.binary, env, args.tools, request["prompt"])
            elif label == "slmcode_off":
                off = dict(env, SLMCODE_STRUCTURED_DECODING="off")
                result = run_slmcode(args.binary, off, args.tools, request["prompt"], ["--max-tokens", "512"])
            else:
                result = run_native(args.endpoint, tools, request["prompt"], label.split("_")[1])
            valid, name = check(result["call"], parameters) if result["call"] else (False, None)
            result.update({"arm": label, "prompt": request["prompt"], "valid": valid,
                           "right_tool": valid and name == request["expected_tool"]})
            results.append(result)
            print(f"{label:16} valid={valid!s:5} right={result['right_tool']!s:5} {result['seconds']:6.1f} s  "
                  f"{name}  {result['note']}", file=sys.stderr, flush=True)
            if out:
                out.write(json.dumps(result) + "\n")
                out.flush()
        times = [result["seconds"] for result in results]
        table.append((label, sum(r["valid"] for r in results), sum(r["right_tool"] for r in results),
                      len(results), statistics.median(times), sum(times)))
    print(f"\n{len(requests)} requests, {len(tools)} tools; endpoint {args.endpoint}\n")
    print("| arm | valid calls | of them the intended tool | median time | total time |")
    print("|---|---|---|---|---|")
    for label, valid, right, count, median, total in table:
        print(f"| {label} | {valid} / {count} | {right} | {median:.1f} s | {total:.0f} s |")


if __name__ == "__main__":
    main()
