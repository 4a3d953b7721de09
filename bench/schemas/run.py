"""Coverage, compliance, grammar size and compile time on the JSONSchemaBench sample.

    python3 run.py --data DIR --slmcode BIN --converter PY --port PORT --start CMD [--out FILE]

For every schema of sample.txt (extracted into DIR/schemas by sample.py):

- coverage: `slmcode schema gbnf --file` derives a grammar (compact whitespace, as the call
  path sends it), and llama.cpp's Python converter (examples/json_schema_to_grammar.py) converts
  it; each one's grammar size (bytes, rules) and time (slmcode as a process, wall; the converter
  in process), with a deadline so neither can stall the run;
- compliance: one answer from the tiny random-weight model behind llama.cpp's real server
  (temperature 0, bounded max_tokens, a deadline per request) under slmcode's grammar sent as
  `grammar`, and one under the server's own conversion (`response_format` json_schema), each
  judged by Python `jsonschema` (draft from `$schema`, formats asserted): valid, invalid, cut
  (finish_reason length), not JSON, refused (an HTTP error: the server does not take the
  schema), timeout or server died (the connection closed and the process is gone). After a
  timeout or a death the server is started again (CMD, which prints start.sh's export line)
  and the run goes on.

Prints the per-category table (markdown) and writes every row to --out (JSON).
"""

import argparse
import copy
import importlib.util
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request

import jsonschema

RULE = re.compile(r"^[A-Za-z0-9_-]+\s*::=", re.M)


def load_converter(path):
    spec = importlib.util.spec_from_file_location("converter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Deadline(Exception):
    pass


def on_alarm(signum, frame):
    raise Deadline()


def convert(module, schema, seconds):
    """llama.cpp's Python converter, as its own main() drives it."""
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        start = time.perf_counter()
        converter = module.SchemaConverter(
            prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False
        )
        resolved = converter.resolve_refs(schema, "input")
        converter.visit(resolved, "")
        grammar = converter.format_grammar()
        return {"ok": True, "ms": (time.perf_counter() - start) * 1e3, "grammar": grammar}
    except Deadline:
        return {"ok": False, "error": f"no grammar within {seconds} s"}
    except BaseException as error:  # the converter raises anything, RecursionError included
        return {"ok": False, "error": f"{type(error).__name__}: {str(error)[:200]}"}
    finally:
        signal.alarm(0)


def derive(slmcode, path, seconds):
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [slmcode, "schema", "gbnf", "--file", path, "--whitespace", "compact", "--json"],
            capture_output=True,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"no grammar within {seconds} s"}
    ms = (time.perf_counter() - start) * 1e3
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        return {"ok": False, "error": message[-1] if message else f"exit {done.returncode}"}
    report = json.loads(done.stdout)
    keywords = sorted({note.get("keyword") or "?" for note in report["notes"]})
    return {"ok": True, "ms": ms, "grammar": report["grammar"], "notes": keywords}


def size(result):
    if result.get("ok"):
        grammar = result.pop("grammar")
        result["bytes"] = len(grammar.encode())
        result["rules"] = len(RULE.findall(grammar))
        return grammar
    return None


class Server:
    """The tiny model's llama.cpp server, started again when it dies or hangs."""

    def __init__(self, port, start_command):
        self.port = port
        self.start_command = start_command
        self.pid = None
        self.restarts = 0

    def start(self):
        out = subprocess.run(
            self.start_command, shell=True, check=True, capture_output=True, text=True
        ).stdout
        self.pid = int(re.search(r"SLMCODE_E2E_PID=(\d+)", out).group(1))

    def alive(self):
        if self.pid is None:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        try:
            # A dead server's pid may linger as a zombie: ask it too.
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=10):
                return True
        except OSError:
            return False

    def restart(self):
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.restarts += 1
        self.start()

    def stop(self):
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def judge_validator(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def ask(server, constraint, schema, max_tokens, seconds):
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "Answer with one JSON document."}],
        "max_tokens": max_tokens,
        "temperature": 0,
        "seed": 25,
        **constraint,
    }
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/v1/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=seconds) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as error:
        return {"class": "refused", "status": error.code, "detail": error.read()[:300].decode(errors="replace")}
    except (OSError, ValueError) as error:
        if server.alive():
            # A timeout: the slot is still busy with it, so start afresh.
            server.restart()
            return {"class": "timeout", "detail": repr(error)[:200]}
        server.restart()
        return {"class": "server died", "detail": repr(error)[:200]}
    seconds_taken = time.perf_counter() - start
    choice = answer["choices"][0]
    content = choice["message"].get("content") or ""
    outcome = {"seconds": round(seconds_taken, 2), "tokens": answer.get("usage", {}).get("completion_tokens")}
    if choice.get("finish_reason") == "length":
        return {"class": "cut", **outcome}
    try:
        value = json.loads(content)
    except ValueError:
        return {"class": "not JSON", "detail": content[:200], **outcome}
    try:
        errors = list(judge_validator(schema).iter_errors(value))
    except Exception as error:  # a remote $ref, a regex Python does not take
        return {"class": "unjudged", "detail": f"{type(error).__name__}: {str(error)[:200]}", **outcome}
    if errors:
        first = errors[0]
        return {
            "class": "invalid",
            "keyword": first.validator,
            "detail": first.message[:200],
            **outcome,
        }
    return {"class": "valid", **outcome}


CLASSES = ["valid", "invalid", "cut", "not JSON", "refused", "timeout", "server died", "unjudged"]


def tally(rows, arm):
    counts = {}
    for row in rows:
        answer = row.get(arm)
        if answer:
            counts[answer["class"]] = counts.get(answer["class"], 0) + 1
    return counts


def cell(counts):
    parts = [f"{counts[name]} {name}" for name in CLASSES if counts.get(name)]
    return ", ".join(parts) or "-"


def median(rows, tool, key):
    values = [row[tool][key] for row in rows if row[tool].get("ok")]
    return statistics.median(values) if values else None


def fmt(value, digits=0):
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def table(rows):
    categories = sorted({row["category"] for row in rows})
    lines = [
        "| category | n | slmcode compiles | llama.cpp converter compiles | server json_schema takes it | slmcode grammar: answers | server json_schema: answers | grammar bytes, median (slmcode / llama.cpp) | rules, median | compile ms, median (slmcode process / converter in process) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for category in categories + ["all"]:
        group = [row for row in rows if category in ("all", row["category"])]
        takes = sum(
            1
            for row in group
            if row.get("json_schema") and row["json_schema"]["class"] not in ("refused", "server died")
        )
        grammar = tally(group, "grammar")
        schema = tally(group, "json_schema")
        lines.append(
            f"| {category} | {len(group)} | {sum(row['slmcode']['ok'] for row in group)} "
            f"| {sum(row['llama']['ok'] for row in group)} | {takes} "
            f"| {cell(grammar)} | {cell(schema)} "
            f"| {fmt(median(group, 'slmcode', 'bytes'))} / {fmt(median(group, 'llama', 'bytes'))} "
            f"| {fmt(median(group, 'slmcode', 'rules'))} / {fmt(median(group, 'llama', 'rules'))} "
            f"| {fmt(median(group, 'slmcode', 'ms'), 1)} / {fmt(median(group, 'llama', 'ms'), 1)} |"
        )
    both = [row for row in rows if row["slmcode"]["ok"] and row["llama"]["ok"]]
    grammar, schema = tally(both, "grammar"), tally(both, "json_schema")
    every = tally(rows, "grammar")
    lines += [
        "",
        f"On the {len(both)} schemas both converters compile: slmcode's grammar {cell(grammar)}; "
        f"the server's json_schema {cell(schema)}.",
        f"Compliance of slmcode's grammar: {grammar.get('valid', 0)}/{len(both)} there, "
        f"{every.get('valid', 0)}/{sum(every.values())} on every schema it compiles.",
    ]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--slmcode", required=True)
    parser.add_argument("--converter", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--start", required=True, help="command that starts the server")
    parser.add_argument("--out", default="results.json")
    parser.add_argument("--max-tokens", type=int, default=800)
    parser.add_argument("--request-timeout", type=int, default=90)
    parser.add_argument("--compile-timeout", type=int, default=60)
    parser.add_argument("--limit", type=int, default=0, help="the first N schemas only")
    parser.add_argument("--sample", help="another list of CATEGORY/NAME than sample.txt")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(args.sample or os.path.join(here, "sample.txt")) as file:
        entries = [line.strip() for line in file if line.strip() and not line.startswith("#")]
    if args.limit:
        entries = entries[: args.limit]
    module = load_converter(args.converter)
    sys.setrecursionlimit(10000)
    server = Server(args.port, args.start)
    server.start()
    rows = []
    try:
        for index, entry in enumerate(entries):
            category, name = entry.split("/", 1)
            path = os.path.join(args.data, "schemas", entry)
            with open(path) as file:
                schema = json.load(file)
            row = {"category": category, "name": name}
            row["slmcode"] = derive(args.slmcode, path, args.compile_timeout)
            grammar = size(row["slmcode"])
            # The converter rewrites every `$ref` of the schema it is given in place.
            row["llama"] = convert(module, copy.deepcopy(schema), args.compile_timeout)
            size(row["llama"])
            if grammar is not None:
                row["grammar"] = ask(server, {"grammar": grammar}, schema, args.max_tokens, args.request_timeout)
            wire = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
            row["json_schema"] = ask(server, {"response_format": wire}, schema, args.max_tokens, args.request_timeout)
            rows.append(row)
            print(
                f"[{index + 1}/{len(entries)}] {entry}: slmcode {'ok' if row['slmcode']['ok'] else 'no'}, "
                f"llama.cpp {'ok' if row['llama']['ok'] else 'no'}, grammar "
                f"{row.get('grammar', {}).get('class', '-')}, json_schema {row['json_schema']['class']}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        server.stop()
        with open(args.out, "w") as file:
            json.dump({"rows": rows, "server_restarts": server.restarts}, file, indent=1)
    print(table(rows))
    print(f"\nServer restarts (after a death or a timeout): {server.restarts}.")


if __name__ == "__main__":
    main()
