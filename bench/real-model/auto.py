#!/usr/bin/env python3
"""`tool_choice: auto` on a real small model: does it answer in text when no tool is needed, call
when one is, and answer after a tool result? Each request goes through every arm (interleaved,
arm order rotated by one per request):

  serve:NAME      through `slmcode serve` (started here with the environment of --serve NAME=ENV)
                  with the request's messages, the tools, and tool_choice auto;
  native          straight to the engine: the tools in OpenAI's native form, tool_choice auto
                  (an answer that opens with a call written as JSON in `content` counts as that
                  call: it is no answer);
  free            straight to the engine: the tools described in the system message as slmcode
                  describes them ("If no tool is needed, answer in plain text"), no constraint,
                  a call read from the text by `slmcode tools extract`;
  text_or_call    the same prompt, with a grammar whose root is either one call (the `required`
                  grammar of `slmcode tools compile`) or text that does not start with `{`;
  decide          two requests: first a constrained decision {"use_tool": true|false} after the
                  same prompt, then the `required` call grammar, or an unconstrained answer;
  union           the grammar of one call or an answer object {"answer": "<text>"} (`slmcode tools
                  compile --tool-choice auto --answer`, slmcode's `auto` before this benchmark),
                  with the prompt that says so;
  text_or_call_b  text_or_call with the tools described, then a closing instruction that names
                  when to call ("to read, list, search, write or run anything in the project")
                  and says to write nothing but the call then.

A request of kind `answer` (no tool needed) or `follow` (after a tool result) is right when the
answer is text; one of kind `call` is right when it is a valid call (name and arguments), and
"right tool" when the call names the tool the request was written for. Everything is kept:
the table goes to RUNS.md, the answers to runs/<UTC time>-<model>-<half>-auto.jsonl.

  python3 auto.py --endpoint URL --half tuning|test --binary target/release/slmcode \\
      [--arm A ...] [--serve NAME=KEY=VALUE,...]
"""
import argparse
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from tools import check, post  # the same request and the same judge of a call as tools.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MAX_TOKENS = 256


def describe(tools, answer_in_text=True):
    """The system-message text slmcode writes for `auto` (src/tools/prompt.rs)."""
    text = "You can call these tools:"
    for tool in tools:
        function = tool["function"]
        text += "\n- " + function["name"]
        if function.get("description"):
            text += ": " + function["description"].strip()
        text += "\n  arguments (JSON Schema): " + json.dumps(function["parameters"], separators=(",", ":"))
    text += '\n\nTo call a tool, write one JSON object {"name": "<tool name>", "arguments": {<its arguments>}}.'
    if answer_in_text:
        text += " If no tool is needed, answer in plain text."
    return text


def as_text(messages):
    """Messages for a template that renders only `content`: a call becomes the JSON the model
    would write, a tool result a user message that names it."""
    out = []
    for message in messages:
        if message["role"] == "assistant" and message.get("tool_calls"):
            calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
                     for c in message["tool_calls"]]
            out.append({"role": "assistant", "content": "\n".join(json.dumps(c) for c in calls)})
        elif message["role"] == "tool":
            out.append({"role": "user", "content": "Tool result:\n" + message["content"]})
        else:
            out.append(message)
    return out


def with_system(system, messages):
    return [{"role": "system", "content": system}] + as_text(messages)


def extract(binary, tools_path, text):
    done = subprocess.run([binary, "tools", "extract", tools_path, "--json"], input=text.encode(),
                          capture_output=True, timeout=60)
    answer = json.loads(done.stdout or b"{}")
    calls = answer.get("calls") or []
    return calls[0] if calls else None


def chat(endpoint, messages, **extra):
    body = {"messages": messages, "temperature": 0, "max_tokens": MAX_TOKENS}
    body.update(extra)
    answer = post(endpoint, body)
    return answer["choices"][0]["message"], answer.get("usage") or {}


def message_call(message):
    calls = message.get("tool_calls") or []
    if not calls:
        return None
    function = calls[0].get("function") or {}
    arguments = function.get("arguments")
    try:
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError:
        pass
    return {"name": function.get("name"), "arguments": arguments}


def text_or_call_grammar(call_grammar):
    rules = call_grammar.replace("root ::=", "call ::=", 1)
    return ('root ::= call | text\n'
            'text ::= [^{ \\t\\n\\r] [^\\x00]*\n' + rules)


class Arms:
    def __init__(self, args, tools):
        self.args = args
        self.tools = tools
        self.parameters = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
        handle, self.tools_path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(handle, "w") as out:
            json.dump(tools, out)
        self.call_grammar = subprocess.run(
            [args.binary, "tools", "compile", self.tools_path, "--tool-choice", "required", "--format", "gbnf"],
            capture_output=True, check=True).stdout.decode()
        self.union_grammar = subprocess.run(
            [args.binary, "tools", "compile", self.tools_path, "--tool-choice", "auto", "--answer", "--format", "gbnf"],
            capture_output=True, check=True).stdout.decode()
        self.servers = {}

    def start_serve(self, name, env_text):
        env = dict(os.environ)
        env["SLMCODE_CONFIG_DIR"] = tempfile.mkdtemp()
        for pair in filter(None, env_text.split(",")):
            key, value = pair.split("=", 1)
            env["SLMCODE_" + key.upper()] = value
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen(
            [self.args.binary, "serve", "--listen", f"127.0.0.1:{port}", "--endpoint", self.args.endpoint,
             "--model", self.args.model, "--provider", "llamacpp"], env=env,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tempfile.gettempdir(), f"serve-{name}.log"), "w"))
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        self.servers[name] = (process, f"http://127.0.0.1:{port}/v1")

    def stop(self):
        for process, _ in self.servers.values():
            process.terminate()

    def read_text(self, text, usage, requests=1):
        """A result whose call, if any, is read from the answer's text."""
        return {"call": extract(self.args.binary, self.tools_path, text), "text": text, "requests": requests,
                "usage": usage}

    def one_text_request(self, messages, **extra):
        """One request straight to the engine, its call read from the text."""
        message, usage = chat(self.args.endpoint, messages, **extra)
        return self.read_text(message.get("content") or "", usage)

    def run(self, arm, request):
        messages = request["messages"]
        if arm.startswith("serve:"):
            _, url = self.servers[arm.split(":", 1)[1]]
            message, usage = chat(url, messages, tools=self.tools, tool_choice="auto", model=self.args.model)
            call = message_call(message)
            return {"call": call, "text": message.get("content"), "requests": 1, "usage": usage}
        if arm == "native":
            message, usage = chat(self.args.endpoint, messages, tools=self.tools, tool_choice="auto")
            text = message.get("content") or ""
            # A call the server did not parse into `tool_calls` is still no answer: judged as
            # the call it is (a harness would show the JSON to its user as the answer).
            call = message_call(message) or (extract(self.args.binary, self.tools_path, text)
                                             if text.lstrip().startswith("{") else None)
            return {"call": call, "text": text, "requests": 1, "usage": usage}
        system = describe(self.tools)
        if arm == "free":
            return self.one_text_request(with_system(system, messages))
        if arm == "text_or_call":
            return self.one_text_request(with_system(system, messages),
                                         grammar=text_or_call_grammar(self.call_grammar))
        if arm == "union":
            union_system = describe(self.tools, False) + (
                ' If no tool is needed, answer instead with one JSON object that satisfies this JSON Schema: '
                '{"additionalProperties":false,"properties":{"answer":{"type":"string"}},"required":["answer"],"type":"object"}')
            message, usage = chat(self.args.endpoint, with_system(union_system, messages), grammar=self.union_grammar)
            text = message.get("content") or ""
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("answer"), str):
                return {"call": None, "text": value["answer"], "requests": 1, "usage": usage}
            return self.read_text(text, usage)
        if arm == "text_or_call_b":
            closing = describe(self.tools, False) + (
                " Call a tool when the request needs you to read, list, search, write or run anything in the "
                "project, and then write nothing but the call. Otherwise answer in plain text.")
            return self.one_text_request(with_system(closing, messages),
                                         grammar=text_or_call_grammar(self.call_grammar))
        if arm == "decide":
            ask = system + ('\n\nFirst decide whether the last message needs a tool. Answer {"use_tool": true} '
                            'to call one, {"use_tool": false} to answer in plain text.')
            decision_grammar = 'root ::= "{\\"use_tool\\": " ("true" | "false") "}"'
            message, _ = chat(self.args.endpoint, with_system(ask, messages), grammar=decision_grammar,
                              max_tokens=16)
            decided = (message.get("content") or "").strip()
            if "true" in decided:
                message, usage = chat(self.args.endpoint, with_system(describe(self.tools, False) +
                                                                      " Call exactly one of the tools.", messages),
                                      grammar=self.call_grammar)
                text = message.get("content") or ""
            else:
                message, usage = chat(self.args.endpoint, as_text(messages))
                text = message.get("content") or ""
                if not text.lstrip().startswith("{"):
                    return {"call": None, "text": text, "requests": 2, "decision": decided, "usage": usage}
            return {**self.read_text(text, usage, requests=2), "decision": decided}
        raise SystemExit(f"unknown arm {arm}")


def judge(request, result, parameters):
    call = result.get("call")
    if request["kind"] in ("answer", "follow"):
        right = call is None and bool((result.get("text") or "").strip())
        return {"right": right, "called": call is not None}
    valid = call is not None and check(call, parameters)
    return {"right": valid, "called": call is not None,
            "right_tool": valid and call.get("name") == request.get("expected_tool")}


def main():
    global MAX_TOKENS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--half", choices=["tuning", "test", "followup"], required=True)
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "slmcode"))
    parser.add_argument("--arm", action="append", default=[])
    parser.add_argument("--serve", action="append", default=[], help="NAME=KEY=VALUE,... (slmcode settings)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS,
                        help="the budget of every answer (default 256: whether an answer is text or a call "
                             "shows in its first tokens)")
    args = parser.parse_args()
    MAX_TOKENS = args.max_tokens
    document = json.load(open(os.path.join(HERE, f"auto-{args.half}.json")))
    requests = document["requests"][: args.limit]
    arms = Arms(args, document["tools"])
    names = list(args.arm)
    for spec in args.serve:
        name, env_text = spec.split("=", 1) if "=" in spec else (spec, "")
        arms.start_serve(name, env_text)
        names.append("serve:" + name)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out_path = os.path.join(HERE, "runs", f"{stamp}-{args.model}-{args.half}-auto.jsonl")
    results = []
    try:
        with open(out_path, "w") as out:
            for index, request in enumerate(requests):
                order = names[index % len(names):] + names[: index % len(names)]
                for arm in order:
                    started = time.monotonic()
                    try:
                        result = arms.run(arm, request)
                    except Exception as error:  # noqa: BLE001 - a failed request is a result
                        result = {"call": None, "text": None, "error": str(error), "requests": 0}
                    result["seconds"] = time.monotonic() - started
                    result.update(judge(request, result, arms.parameters))
                    record = {"arm": arm, "id": request["id"], "kind": request["kind"], **result}
                    out.write(json.dumps(record) + "\n")
                    out.flush()
                    results.append(record)
                    print(f"{request['id']:>16} {arm:>14} right={result['right']} called={result['called']} "
                          f"{result['seconds']:.1f}s {str(result.get('call') or (result.get('text') or '')[:60])!r}",
                          file=sys.stderr)
    finally:
        arms.stop()
    table = ["| arm | answers in text, no tool needed | answers after a tool result | valid calls when needed "
             "| of them the right tool | median time | total time |", "|---|---|---|---|---|---|---|"]
    for arm in names:
        rows = [r for r in results if r["arm"] == arm]
        def rate(kind, key="right"):
            part = [r for r in rows if r["kind"] == kind]
            return f"{sum(1 for r in part if r.get(key))} / {len(part)}"
        seconds = [r["seconds"] for r in rows]
        table.append(f"| {arm} | {rate('answer')} | {rate('follow')} | {rate('call')} | {rate('call', 'right_tool')} "
                     f"| {statistics.median(seconds):.1f} s | {sum(seconds):.0f} s |")
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True,
                            text=True).stdout.strip()
    heading = (f"\n## {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {args.model}, "
               f"{args.half}, tool_choice auto\n\n- commit `{commit}`, endpoint {args.endpoint}\n"
               f"- requests: `bench/real-model/auto-{args.half}.json`: {len(requests)} "
               f"({', '.join(k + ' ' + str(sum(1 for r in requests if r['kind'] == k)) for k in ('answer', 'call', 'follow'))})\n"
               f"- arms (interleaved per request, order rotated): {', '.join(names)}; max_tokens {MAX_TOKENS}\n"
               f"- serve settings: {'; '.join(args.serve) or 'none'}\n"
               f"- answers: `bench/real-model/runs/{os.path.basename(out_path)}`\n\n")
    with open(os.path.join(HERE, "RUNS.md"), "a") as runs:
        runs.write(heading + "\n".join(table) + "\n")
    print(heading + "\n".join(table))


if __name__ == "__main__":
    main()
