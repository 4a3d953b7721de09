#!/usr/bin/env python3
"""Side-by-side benchmark on a real small model: the same coding-agent requests through arms
that each isolate one lever:

  slmcode      `slmcode generate --schema C --prompt P --json` with every default; each
               --variant is one more slmcode arm with one setting or flag changed. The value is
               validated again here against the contract's schema;
  bare         what a user could send instead: response_format json_schema strict with the
               contract's schema, a one-line system prompt holding the schema, temperature 0,
               max_tokens 2048;
  bare_prompt  the same, but the system prompt is the contract's own prompt, as slmcode injects
               it (`slmcode schema show C --prompt --json`, trailing whitespace trimmed);
  expert       what an experienced user writes by hand: the bare request plus llama.cpp's
               anti-repetition sampling as slmcode sends it (repeat_penalty 1.1, dry_multiplier
               0.8, src/backends/presets.rs) and up to three tries (temperature 0; then 0.5 with
               seed 1; then 0.5 with seed 2), stopping at the first answer `jsonschema` accepts;
               its time is the total of its tries;
  json_repair  the bare request with response_format json_object, the answer through the
               `json_repair` package, then `jsonschema`. Only with --only json_repair.

The arms are interleaved: request 1 goes through every arm, then request 2, and so on, with the
arm order rotated by one per request, so that the machine's noise hits every arm alike.

Per arm: valid answers (the contract's schema holds), degenerate ones (valid, with an array that
holds one item five times or more in a row: the loops a schema's `maxItems` lets through), the
median, 95th percentile (nearest rank), worst and total time, and the calls over 60 s.

Every run is kept: its table is appended to bench/real-model/RUNS.md (date, commit, model,
request files, arms, variants) and every answer is written as JSON lines to
bench/real-model/runs/<UTC time>-<model>-<half>.jsonl.

  --half tuning|test   the request set (requests-tuning.json or requests-test.json; SPLIT.md);
  --requests FILE      a request file instead (repeatable; with --half, both are read);
  --limit N            only the first N requests;
  --only ARM           run only these arms (repeatable): slmcode, bare, bare_prompt, expert,
                       json_repair, or a variant's name;
  --variant NAME:KEY=VALUE,...:ARGS   an extra slmcode arm (see --help);
  --model-alias NAME   the model's name in the records (default: GET {endpoint}/models).

Run it through run.sh, which makes the venv, starts the server and builds slmcode.
"""
import argparse
import datetime
import json
import math
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
REPO = os.path.dirname(os.path.dirname(HERE))
RUNS_MD = os.path.join(HERE, "RUNS.md")
RUNS_DIR = os.path.join(HERE, "runs")
HALVES = {"tuning": os.path.join(HERE, "requests-tuning.json"),
          "test": os.path.join(HERE, "requests-test.json")}

# llama.cpp's anti-repetition sampling, the fields and values slmcode sends
# (LLAMA_ANTI_REPETITION in src/backends/presets.rs).
ANTI_REPETITION = {"repeat_penalty": 1.1, "dry_multiplier": 0.8}
# The expert arm's tries: (temperature, seed).
EXPERT_TRIES = [(0, None), (0.5, 1), (0.5, 2)]
BARE_MAX_TOKENS = 2048
TEXT_KEPT = 4000  # characters of a raw answer kept in the JSON lines
SLOW_S = 60


# ---- shared with truncation.py ----------------------------------------------------------------

def contract(binary, name):
    """The contract's schema and prompt; the prompt as slmcode injects it (trimmed at the end)."""
    shown = json.loads(subprocess.check_output([binary, "schema", "show", name, "--json"]))
    prompt = json.loads(subprocess.check_output([binary, "schema", "show", name, "--prompt", "--json"]))
    return {"schema": shown["schema"], "prompt": prompt["prompt"].rstrip()}


def post(endpoint, body, timeout=600):
    request = urllib.request.Request(
        endpoint + "/chat/completions",
        json.dumps(body).encode(),
        {"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def model_alias(endpoint):
    try:
        with urllib.request.urlopen(endpoint + "/models", timeout=30) as response:
            models = json.load(response)
        return models["data"][0]["id"]
    except Exception as error:  # noqa: BLE001 - a name for the records, not a result
        print(f"GET {endpoint}/models failed: {error}", file=sys.stderr)
        return "unknown"


def commit():
    def git(*args):
        return subprocess.run(["git", "--no-optional-locks", "-C", REPO, *args],
                              capture_output=True, text=True)
    head = git("rev-parse", "--short", "HEAD")
    if head.returncode != 0:
        return "unknown"
    dirty = git("diff", "--quiet", "HEAD").returncode != 0
    return head.stdout.strip() + ("-dirty" if dirty else "")


def add_request_args(parser):
    parser.add_argument("--endpoint", required=True, help="the server's OpenAI-style base URL")
    parser.add_argument("--binary", required=True, help="the slmcode binary")
    parser.add_argument("--half", choices=sorted(HALVES), action="append", default=[],
                        help="a request set: tuning (for choosing defaults) or test (for the headline)")
    parser.add_argument("--requests", action="append", default=[], metavar="FILE",
                        help="a request file (repeatable); default: --half tuning")
    parser.add_argument("--limit", type=int, help="only the first N requests")
    parser.add_argument("--model-alias", help="the model's name in the records (default: GET {endpoint}/models)")


def load_requests(args):
    """The requests, the files they came from (repository-relative) and the half's name."""
    files = [HALVES[half] for half in args.half] + list(args.requests)
    if not files:
        files = [HALVES["tuning"]]
    requests = []
    for path in files:
        requests.extend(json.load(open(path)))
    if args.limit is not None:
        requests = requests[:args.limit]
    names = [shown_path(path) for path in files]
    stems = [os.path.splitext(os.path.basename(path))[0] for path in args.requests]
    half = "+".join(args.half + stems) or "tuning"
    return requests, names, half


def shown_path(path):
    """A path as the records show it: repository-relative inside the repository, absolute outside."""
    path = os.path.abspath(path)
    inside = os.path.commonpath([path, REPO]) == REPO
    return os.path.relpath(path, REPO) if inside else path


def stamp():
    now = datetime.datetime.now(datetime.timezone.utc)
    return now, now.strftime("%Y%m%dT%H%M%SZ")


def record(heading, lines):
    """Appends a run's section to RUNS.md."""
    with open(RUNS_MD, "a") as runs:
        runs.write("\n## " + heading + "\n\n" + "\n".join(lines) + "\n")


def answers_file(timestamp, model, half, suffix=""):
    os.makedirs(RUNS_DIR, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in model)
    return os.path.join(RUNS_DIR, f"{timestamp}-{safe}-{half}{suffix}.jsonl")


def valid(value, schema):
    try:
        jsonschema.validate(value, schema)
        return True
    except jsonschema.ValidationError:
        return False


def parse(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def kept(text):
    return text if len(text) <= TEXT_KEPT else text[:TEXT_KEPT]


def median(values):
    return statistics.median(values) if values else 0.0


# ---- the arms ---------------------------------------------------------------------------------

def schema_system(schema):
    return "Answer with one JSON object that satisfies this JSON Schema: " + json.dumps(schema)


def chat_body(system, schema, prompt, json_object=False):
    body = {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
        "temperature": 0,
        "max_tokens": BARE_MAX_TOKENS,
    }
    if json_object:
        body["response_format"] = {"type": "json_object"}
    else:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        }
    return body


def one_call(endpoint, body, schema, json_object=False):
    """One request: the answer's text, value, validity, finish reason and time."""
    started = time.monotonic()
    try:
        answer = post(endpoint, body)
    except Exception as error:  # noqa: BLE001 - a failed request is a result here
        return {"seconds": time.monotonic() - started, "valid": False, "value": None,
                "finish_reason": None, "text": "", "error": str(error)}
    seconds = time.monotonic() - started
    choice = answer["choices"][0]
    text = choice["message"].get("content") or ""
    value = json_repair.loads(text) if json_object else parse(text)
    ok = value is not None and valid(value, schema)
    return {"seconds": seconds, "valid": ok, "value": value, "finish_reason": choice.get("finish_reason"),
            "text": text, "usage": answer.get("usage")}


def run_bare(endpoint, system, schema, prompt, json_object=False):
    call = one_call(endpoint, chat_body(system, schema, prompt, json_object), schema, json_object)
    note = f"request failed: {call['error']}" if "error" in call else f"finish_reason {call['finish_reason']}"
    return {"seconds": call["seconds"], "valid": call["valid"], "value": call["value"], "note": note,
            "finish_reason": call["finish_reason"], "text": kept(call["text"]), "usage": call.get("usage")}


def run_expert(endpoint, schema, prompt):
    tries = []
    for temperature, seed in EXPERT_TRIES:
        body = chat_body(schema_system(schema), schema, prompt)
        body.update(ANTI_REPETITION)
        body["temperature"] = temperature
        if seed is not None:
            body["seed"] = seed
        call = one_call(endpoint, body, schema)
        tries.append({"temperature": temperature, "seed": seed, "seconds": call["seconds"],
                      "valid": call["valid"], "finish_reason": call["finish_reason"],
                      "text": kept(call["text"]), "usage": call.get("usage"),
                      **({"error": call["error"]} if "error" in call else {}),
                      "_value": call["value"]})
        if call["valid"]:
            break
    last = tries[-1]
    value = last.pop("_value")
    for attempt in tries:
        attempt.pop("_value", None)
    note = f"tries {len(tries)}, finish_reasons {[attempt['finish_reason'] for attempt in tries]}"
    return {"seconds": sum(attempt["seconds"] for attempt in tries), "valid": last["valid"],
            "value": value, "note": note, "tries": tries}


def run_slmcode(binary, env, extra, name, prompt, schema):
    started = time.monotonic()
    run = subprocess.run([binary, "generate", "--schema", name, "--prompt", prompt, "--json", *extra],
                         capture_output=True, text=True, env=env)
    seconds = time.monotonic() - started
    try:
        out = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"seconds": seconds, "valid": False, "value": None, "exit": run.returncode,
                "note": f"exit {run.returncode}: " + run.stderr.strip()[-200:]}
    value = out.get("value")
    meta = out.get("meta") or {}
    reasks = [reask.get("class") for reask in meta.get("reasks") or []]
    note = (f"exit {run.returncode}, {meta.get('mechanism')}, attempts {meta.get('attempts')}, "
            f"end {meta.get('stream_end')}, reasks {reasks}, elapsed_ms {meta.get('elapsed_ms')}")
    if "error" in out:
        note += f", {out['error'].get('class')}"
    ok = run.returncode == 0 and value is not None and valid(value, schema)
    return {"seconds": seconds, "valid": ok, "value": value, "note": note, "exit": run.returncode,
            "meta": meta, "error": out.get("error"),
            "tokens": (meta.get("tokens") or {}).get("completion_tokens")}


# ---- the table --------------------------------------------------------------------------------

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


def nearest_rank(values, share):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(share * len(ordered))) - 1] if ordered else 0.0


def summary(label, results):
    times = [result["seconds"] for result in results]
    return {"label": label, "valid": sum(result["valid"] for result in results), "of": len(results),
            "degenerate": sum(1 for result in results if result["valid"] and result["degenerate"]),
            "median_s": median(times), "p95_s": nearest_rank(times, 0.95),
            "worst_s": max(times, default=0.0), "total_s": sum(times),
            "slow": sum(1 for seconds in times if seconds > SLOW_S)}


def table(rows):
    lines = ["| arm | valid answers | of them degenerate | median time | p95 time | worst time | total time "
             f"| calls over {SLOW_S} s |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['label']} | {row['valid']} / {row['of']} | {row['degenerate']} | "
                     f"{row['median_s']:.1f} s | {row['p95_s']:.1f} s | {row['worst_s']:.1f} s | "
                     f"{row['total_s']:.0f} s | {row['slow']} |")
    return lines


# ---- main -------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_request_args(parser)
    parser.add_argument("--only", action="append", default=[],
                        help="run only these arms: slmcode, bare, bare_prompt, expert, json_repair, "
                             "or a variant's name (json_repair runs only when named here)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME:KEY=VALUE,...:ARGS",
                        help="an extra slmcode arm: settings as SLMCODE_ variables and extra generate arguments, "
                             "e.g. 'greedy:TEMPERATURE=0,ANTI_REPETITION=off:' or 'gbnf::--mechanism gbnf_grammar'")
    args = parser.parse_args()
    requests, files, half = load_requests(args)
    model = args.model_alias or model_alias(args.endpoint)
    revision = commit()
    started_at, timestamp = stamp()

    config = tempfile.mkdtemp(prefix="slmcode-bench-")
    base_env = dict(os.environ, SLMCODE_CONFIG_DIR=config, SLMCODE_PROVIDER="llamacpp",
                    SLMCODE_ENDPOINT=args.endpoint, NO_COLOR="1")
    slmcode_arms = {"slmcode": (dict(base_env), [])}
    for spec in args.variant:
        name, settings, extra = (spec.split(":", 2) + ["", ""])[:3]
        env = dict(base_env)
        for pair in filter(None, settings.split(",")):
            key, value = pair.split("=", 1)
            env["SLMCODE_" + key.upper()] = value
        slmcode_arms[name] = (env, extra.split())
    known = ["slmcode", *list(slmcode_arms)[1:], "bare", "bare_prompt", "expert", "json_repair"]
    unknown = [arm for arm in args.only if arm not in known]
    if unknown:
        parser.error(f"unknown arm(s) {unknown}; arms: {known}")
    arms = [arm for arm in known if (arm in args.only if args.only else arm != "json_repair")]

    probe_seconds, mechanism = 0.0, "not run"
    if any(arm in slmcode_arms for arm in arms):
        started = time.monotonic()
        probe = subprocess.run([args.binary, "probe", "--json"], capture_output=True, text=True, env=base_env)
        probe_seconds = time.monotonic() - started
        mechanism = json.loads(probe.stdout).get("mechanism") if probe.returncode == 0 else f"probe failed: {probe.stderr.strip()}"
        print(f"probe: {mechanism} in {probe_seconds:.1f} s (cached for every slmcode run below)", file=sys.stderr)

    contracts = {request["contract"]: contract(args.binary, request["contract"]) for request in requests}
    path = answers_file(timestamp, model, half)
    results = {arm: [] for arm in arms}
    with open(path, "w") as out:
        for index, request in enumerate(requests):
            shown = contracts[request["contract"]]
            schema, prompt = shown["schema"], request["prompt"]
            turn = index % len(arms)
            for arm in arms[turn:] + arms[:turn]:
                if arm == "bare":
                    result = run_bare(args.endpoint, schema_system(schema), schema, prompt)
                elif arm == "bare_prompt":
                    result = run_bare(args.endpoint, shown["prompt"], schema, prompt)
                elif arm == "json_repair":
                    result = run_bare(args.endpoint, schema_system(schema), schema, prompt, json_object=True)
                elif arm == "expert":
                    result = run_expert(args.endpoint, schema, prompt)
                else:
                    env, extra = slmcode_arms[arm]
                    result = run_slmcode(args.binary, env, extra, request["contract"], prompt, schema)
                result["degenerate"] = result["valid"] and degenerate(result["value"])
                result = {"arm": arm, "id": request["id"], "contract": request["contract"], **result}
                results[arm].append(result)
                print(f"{arm:12} {request['id']:20} valid={result['valid']!s:5} {result['seconds']:6.1f} s  {result['note']}",
                      file=sys.stderr, flush=True)
                out.write(json.dumps(result) + "\n")
                out.flush()

    rows = [summary(arm, results[arm]) for arm in arms]
    lines = [
        f"- commit `{revision}`, model `{model}`, endpoint {args.endpoint}",
        f"- requests: {', '.join(f'`{name}`' for name in files)}"
        + (f" (first {args.limit})" if args.limit is not None else "")
        + f": {len(requests)} over {len(contracts)} contracts",
        f"- arms (interleaved per request, order rotated): {', '.join(arms)}",
        "- variants: " + ("; ".join(f"`{spec}`" for spec in args.variant) if args.variant else "none"),
        f"- slmcode probe: {mechanism} in {probe_seconds:.1f} s",
        f"- answers: `{shown_path(path)}`",
        "",
        *table(rows),
    ]
    heading = f"{started_at:%Y-%m-%d %H:%M} UTC, {model}, {half}"
    record(heading, lines)
    print("\n## " + heading + "\n\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
