#!/usr/bin/env python3
"""What to do after a real truncation (an answer cut at max_tokens that is not a loop), measured
on a real model.

For each request of the chosen set, the slmcode-like constrained request is sent with a small
budget: the contract's prompt as system message, response_format json_schema strict with the
contract's schema, temperature 0, llama.cpp's anti-repetition sampling as slmcode sends it
(repeat_penalty 1.1, dry_multiplier 0.8), max_tokens = --budget (default 192). An answer is
kept only when it ended with finish_reason `length` and is not a loop (`slmcode repair --json
--finish-reason length` finds no repetition in it). Each kept truncation is then re-asked two
ways, both with max_tokens = 2 x budget, interleaved with the order rotated per truncation:

  continue  the original messages plus a user message holding the partial answer (its first
            6000 characters) and the request to return the complete object, shorter if need be;
  fresh     the original request again with the raised budget, nothing else.

Per strategy: valid answers, still truncated (finish_reason length, not valid), other, the
median and total time, and the prompt tokens (usage.prompt_tokens). The table is appended to
RUNS.md, every request and answer written to runs/<UTC time>-<model>-<half>-truncation.jsonl.

  --half tuning|test, --requests FILE, --limit N, --model-alias NAME   as in run.py
  --budget N   the first answer's max_tokens (default 192)

Run it through run.sh with BENCH=truncation.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing run.py leaves no __pycache__ in the repository
from run import (ANTI_REPETITION, add_request_args, answers_file, commit, contract, kept, load_requests,
                 median, model_alias, parse, post, record, shown_path, stamp, valid)

PARTIAL_CHARS = 6000
CONTINUE = ("Your previous response was truncated:\n{partial}\nReturn the COMPLETE JSON object, from the "
            "opening brace to the closing one, and nothing else; keep it shorter if you must.")
STRATEGIES = ["continue", "fresh"]


def body(messages, schema, max_tokens):
    return {
        "messages": messages,
        "response_format": {"type": "json_schema",
                            "json_schema": {"name": "answer", "schema": schema, "strict": True}},
        "temperature": 0,
        "max_tokens": max_tokens,
        **ANTI_REPETITION,
    }


def call(endpoint, request_body, schema):
    started = time.monotonic()
    try:
        answer = post(endpoint, request_body)
    except Exception as error:  # noqa: BLE001 - a failed request is a result here
        return {"seconds": time.monotonic() - started, "error": str(error), "text": "", "finish_reason": None,
                "valid": False, "prompt_tokens": None, "completion_tokens": None}
    seconds = time.monotonic() - started
    choice = answer["choices"][0]
    text = choice["message"].get("content") or ""
    value = parse(text)
    usage = answer.get("usage") or {}
    return {"seconds": seconds, "text": text, "finish_reason": choice.get("finish_reason"),
            "valid": value is not None and valid(value, schema),
            "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens")}


def loop_check(binary, env, name, text):
    """slmcode's own reading of a cut answer: (is a loop, its class)."""
    run = subprocess.run([binary, "repair", "--json", "--finish-reason", "length", "--schema", name,
                          "--record-stats", "false"], input=text, capture_output=True, text=True, env=env)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        return False, f"repair gave no JSON (exit {run.returncode})"
    return report.get("repetition") is not None or report.get("class") == "repetition", report.get("class")


def outcome(answer):
    if answer["valid"]:
        return "valid"
    if answer["finish_reason"] == "length":
        return "still truncated"
    return "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_request_args(parser)
    parser.add_argument("--budget", type=int, default=192, help="the first answer's max_tokens (default 192)")
    args = parser.parse_args()
    requests, files, half = load_requests(args)
    model = args.model_alias or model_alias(args.endpoint)
    revision = commit()
    started_at, timestamp = stamp()
    env = dict(os.environ, SLMCODE_CONFIG_DIR=tempfile.mkdtemp(prefix="slmcode-bench-"), NO_COLOR="1")
    contracts = {request["contract"]: contract(args.binary, request["contract"]) for request in requests}
    path = answers_file(timestamp, model, half, "-truncation")
    counts = {"finished": 0, "loop": 0, "failed": 0, "truncated": 0}
    results = {strategy: [] for strategy in STRATEGIES}
    with open(path, "w") as out:
        for request in requests:
            shown = contracts[request["contract"]]
            schema = shown["schema"]
            messages = [{"role": "system", "content": shown["prompt"]},
                        {"role": "user", "content": request["prompt"]}]
            first = call(args.endpoint, body(messages, schema, args.budget), schema)
            line = {"id": request["id"], "contract": request["contract"], "step": "first",
                    "budget": args.budget, **{k: v for k, v in first.items() if k != "text"}, "text": kept(first["text"])}
            if "error" in first:
                kind = "failed"
            elif first["finish_reason"] != "length":
                kind = "finished"
            else:
                looped, repair_class = loop_check(args.binary, env, request["contract"], first["text"])
                line["repair_class"] = repair_class
                kind = "loop" if looped else "truncated"
            line["kind"] = kind
            counts[kind] += 1
            out.write(json.dumps(line) + "\n")
            out.flush()
            print(f"first        {request['id']:20} {kind:9} {first['seconds']:6.1f} s  "
                  f"finish_reason {first['finish_reason']}", file=sys.stderr, flush=True)
            if kind != "truncated":
                continue
            partial = first["text"][:PARTIAL_CHARS]
            bodies = {
                "continue": body(messages + [{"role": "user", "content": CONTINUE.format(partial=partial)}],
                                 schema, 2 * args.budget),
                "fresh": body(messages, schema, 2 * args.budget),
            }
            turn = counts["truncated"] % len(STRATEGIES)
            for strategy in STRATEGIES[turn:] + STRATEGIES[:turn]:
                answer = call(args.endpoint, bodies[strategy], schema)
                answer["outcome"] = outcome(answer)
                results[strategy].append(answer)
                out.write(json.dumps({"id": request["id"], "contract": request["contract"], "step": strategy,
                                      "budget": 2 * args.budget,
                                      **{k: v for k, v in answer.items() if k != "text"},
                                      "text": kept(answer["text"])}) + "\n")
                out.flush()
                print(f"{strategy:12} {request['id']:20} {answer['outcome']:15} {answer['seconds']:6.1f} s  "
                      f"prompt_tokens {answer['prompt_tokens']}", file=sys.stderr, flush=True)

    lines = [
        f"- commit `{revision}`, model `{model}`, endpoint {args.endpoint}",
        f"- requests: {', '.join(f'`{name}`' for name in files)}"
        + (f" (first {args.limit})" if args.limit is not None else "")
        + f": {len(requests)} over {len(contracts)} contracts",
        f"- first answers at max_tokens {args.budget} (contract prompt, json_schema strict, temperature 0, "
        f"{', '.join(f'{k} {v}' for k, v in ANTI_REPETITION.items())}): {counts['truncated']} truncated, "
        f"{counts['loop']} loops skipped, {counts['finished']} finished within the budget, {counts['failed']} failed",
        f"- re-asks at max_tokens {2 * args.budget}, interleaved per truncation, order rotated",
        f"- answers: `{shown_path(path)}`",
        "",
        "| strategy | valid | still truncated | other | median time | total time | median prompt tokens "
        "| total prompt tokens |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for strategy in STRATEGIES:
        answers = results[strategy]
        times = [answer["seconds"] for answer in answers]
        prompts = [answer["prompt_tokens"] for answer in answers if answer["prompt_tokens"] is not None]
        tally = {name: sum(1 for answer in answers if answer["outcome"] == name)
                 for name in ("valid", "still truncated", "other")}
        lines.append(f"| {strategy} | {tally['valid']} / {len(answers)} | {tally['still truncated']} | "
                     f"{tally['other']} | {median(times):.1f} s | {sum(times):.0f} s | "
                     f"{median(prompts):.0f} | {sum(prompts)} |")
    heading = f"{started_at:%Y-%m-%d %H:%M} UTC, {model}, {half}, truncation (budget {args.budget})"
    record(heading, lines)
    print("\n## " + heading + "\n\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
