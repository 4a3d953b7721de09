#!/usr/bin/env python3
"""Builds corpus.json: the inputs of two other repairers' published test suites (json_repair's
tests/*.py, jsonrepair's src/index.test.ts), each with OUR expectation: a value, "truncated"
(a document that really ends inside a value, by slmcode's rule), or "refuse" (nothing a program
can use). By default the expectation is the suite's own expected output; a cut-off input is
"truncated" whatever the suite expects; OVERRIDES holds the cases decided differently, each
with its reason. Only data is written: inputs, expectations, and where each input came from.

Usage: build.py JSON_REPAIR_CHECKOUT JSONREPAIR_CHECKOUT > corpus.json
(checkouts of mangiucugna/json_repair and josdejong/jsonrepair; the commit of each is recorded).
"""

import ast
import json
import subprocess
import sys
from pathlib import Path


def commit(checkout):
    try:
        return subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def license(checkout):
    """The license name and copyright line, recorded with the cases taken from the suite."""
    for name in ("LICENSE", "LICENSE.md", "LICENSE.txt"):
        try:
            lines = [line.strip() for line in read(checkout, name).splitlines() if line.strip()]
        except (OSError, subprocess.CalledProcessError):
            continue
        copyright = next((line for line in lines if line.startswith("Copyright")), None)
        return {"license": lines[0], "copyright": copyright}
    return None


def read(checkout, path):
    """A file of the checkout: its work tree, or HEAD when it is a bare mirror."""
    file = Path(checkout) / path
    if file.exists():
        return file.read_text()
    return subprocess.run(["git", "-C", str(checkout), "show", f"HEAD:{path}"], capture_output=True,
                          text=True, check=True).stdout


def ls(checkout, prefix):
    out = subprocess.run(["git", "-C", str(checkout), "ls-tree", "-r", "--name-only", "HEAD", prefix],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


# ---- json_repair: `assert repair_json(INPUT[, return_objects=True]) == EXPECTED` ----------------

KEPT_KEYWORDS = {"return_objects", "ensure_ascii", "skip_json_loads"}


def python_cases(checkout):
    cases = []
    for path in ls(checkout, "tests"):
        if not path.endswith(".py") or "schema" in path or "strict" in path or "cli" in path \
                or "file" in path or "performance" in path:
            continue
        tree = ast.parse(read(checkout, path))
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef):
                cases.extend(python_asserts(function, path))
    return cases


def python_asserts(function, path):
    cases = []
    if True:
        for node in ast.walk(function):
            if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                    and isinstance(node.ops[0], ast.Eq)):
                continue
            call = node.left
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "repair_json"
                    and call.args and isinstance(call.args[0], ast.Constant)
                    and isinstance(call.args[0].value, str)):
                continue
            keywords = {keyword.arg: keyword.value for keyword in call.keywords}
            if set(keywords) - KEPT_KEYWORDS or len(call.args) > 1:
                continue
            objects = isinstance(keywords.get("return_objects"), ast.Constant) \
                and keywords["return_objects"].value is True
            try:
                expected = ast.literal_eval(node.comparators[0])
            except ValueError:
                continue
            if objects:
                value = expected
            elif isinstance(expected, str):
                if expected == "":
                    value = REFUSE
                else:
                    try:
                        value = json.loads(expected)
                    except json.JSONDecodeError:
                        continue
            else:
                continue
            cases.append({"input": call.args[0].value, "suite": "json_repair",
                          "from": f"{path}:{node.lineno}", "category": function.name,
                          "suite_expects": value})
    return cases


# ---- jsonrepair: expect(jsonrepair(INPUT)).toBe(OUTPUT), assertRepair(INPUT), toThrow -------------

def js_literals(source, at):
    """Reads `'a' + "b" + `c`` at `at`; returns (text, end) or None."""
    parts = []
    while True:
        while source[at] in " \n\t":
            at += 1
        quote = source[at]
        if quote not in "'\"`":
            return None
        at += 1
        out = []
        while source[at] != quote:
            char = source[at]
            if char == "\\":
                code = source[at + 1]
                simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
                if code in simple:
                    out.append(simple[code])
                    at += 2
                elif code == "u" and source[at + 2] == "{":
                    close = source.index("}", at)
                    out.append(chr(int(source[at + 3:close], 16)))
                    at = close + 1
                elif code == "u":
                    out.append(chr(int(source[at + 2:at + 6], 16)))
                    at += 6
                elif code == "x":
                    out.append(chr(int(source[at + 2:at + 4], 16)))
                    at += 4
                elif code == "\n":
                    at += 2
                else:
                    out.append(code)
                    at += 2
            elif quote == "`" and char == "$" and source[at + 1] == "{":
                return None
            else:
                out.append(char)
                at += 1
        parts.append("".join(out))
        at += 1
        rest = at
        while source[rest] in " \n\t":
            rest += 1
        if source[rest] == "+":
            at = rest + 1
            continue
        return "".join(parts), at


def js_constant(source, at):
    """Reads a name at `at` that a `const NAME = 'a' + 'b'` earlier in the same test defines (the
    test's own text or expectation); returns (text, end of the name) or None."""
    name = ""
    while source[at + len(name)].isalnum() or source[at + len(name)] == "_":
        name += source[at + len(name)]
    if not name or name[0].isdigit():
        return None
    definition = source.rfind(f"const {name} =", 0, at)
    if definition < 0 or "test(" in source[definition:at] or "function " in source[definition:at]:
        return None
    value = js_literals(source, definition + len(f"const {name} ="))
    if value is None:
        return None
    return value[0], at + len(name)


def typescript_cases(checkout, path="src/index.test.ts"):
    source = read(checkout, path)
    test_titles(source)
    cases = []

    def line(at):
        return source.count("\n", 0, at) + 1

    at = 0
    while True:
        found = [(source.find(word, at), word) for word in
                 ("expect(jsonrepair(", "assertRepair(", "jsonrepair(")]
        found = [(index, word) for index, word in found if index >= 0]
        if not found:
            break
        index, word = min(found)
        start = index + len(word)
        at = start
        if word == "jsonrepair(" and source[index - 1] in "(.r":
            continue  # part of `expect(jsonrepair(` or a definition
        read_input = js_literals(source, start) or js_constant(source, start)
        if read_input is None:
            continue
        text, end = read_input
        if word == "assertRepair(":
            if source[end] == ")":
                cases.append(case_js(text, json_or_skip(text), path, line(index)))
            continue
        if word == "jsonrepair(":
            # `expect(() => { jsonrepair(x) }).toThrow(...)`
            tail = source[end:end + 60].replace(" ", "").replace("\n", "")
            if tail.startswith(")") and ".toThrow" in tail[:20]:
                cases.append(case_js(text, REFUSE, path, line(index)))
            continue
        rest = source[end:end + 200]
        compact = rest.lstrip()
        if not compact.startswith(")"):
            continue
        after = end + (len(rest) - len(compact)) + 1
        tail = source[after:].lstrip()
        for method in (").toBe(", ").toEqual("):
            if tail.startswith(method):
                offset = len(source) - len(tail) + len(method)
                expected = js_literals(source, offset) or js_constant(source, offset)
                if expected is not None:
                    cases.append(case_js(text, json_or_skip(expected[0]), path, line(index)))
                break
    return [case for case in cases if case["suite_expects"] is not SKIP]


SKIP = object()
REFUSE = "refuse"


def json_or_skip(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return SKIP


def case_js(text, value, path, lineno, source=None):
    return {"input": text, "suite": "jsonrepair", "from": f"{path}:{lineno}",
            "category": TITLES.get(lineno, ""), "suite_expects": value}


TITLES = {}


def test_titles(source):
    """The title of the `test('...')` each line belongs to."""
    title = ""
    for number, text in enumerate(source.split("\n"), start=1):
        stripped = text.strip()
        if stripped.startswith("test('"):
            title = stripped[len("test('"):].split("'")[0]
        TITLES[number] = title


# ---- our expectation --------------------------------------------------------------------------

CLOSERS = {"{": "}", "[": "]", "(": ")"}


def cut_off(text):
    """Whether the text really ends inside a value, by slmcode's documented rule: inside a string
    (unless the text ends with exactly the closers the open containers need: a forgotten quote),
    inside a number or word at the very end, after `:` or `,`, or right after an opener, with
    containers still open. A complete final value followed by nothing only lacks its closers."""
    stack, in_string, string_start = [], False, 0
    i = 0
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                i += 2
                continue
            if char == '"':
                in_string = False
        elif char == '"':
            in_string, string_start = True, i + 1
        elif char in CLOSERS:
            stack.append(CLOSERS[char])
        elif char in "}])" and stack:
            stack.pop()
        i += 1
    stripped = text.rstrip()
    if not stripped or not stack:
        # Nothing open (a quote the simple scan took for an opener is content).
        return False
    last = stripped[-1]
    if in_string:
        if last not in "}])":
            return True
        # A forgotten quote: the text ends with exactly the closers, outermost last, and the
        # string's content before them opens no bracket it does not close.
        body = text[string_start:]
        for closer in stack:
            body = body.rstrip()
            if not body.endswith(closer):
                return True
            body = body[:-1]
        return sum(body.count(o) for o in "{[") > sum(body.count(c) for c in "}]")
    if last in ",:{[(":
        return True
    # A number or word at the very end may go on.
    return last.isalnum() or last in "-+._"


def scalar_only(text):
    """No object or array anywhere, and not valid JSON: slmcode accepts a top-level scalar only
    when the whole input is valid JSON, since a structured answer is an object or array."""
    if "{" in text or "[" in text:
        return False
    try:
        json.loads(text)
        return False
    except ValueError:
        return True


# Cases decided differently from the suite, by input: (our expectation, why). Each follows a
# rule slmcode documents in its README, decided for model output.
FIRST = "several top-level values, no schema: the first is kept (the report counts the others)"
DROPPED = "a key without a value is dropped: nothing is invented"
AS_TEXT = "a number-like token after a key is kept as its text: nothing is guessed"
OVERRIDES = {
    '[]{"key":"value"}': ([], FIRST),
    '{"key":"value"}[1,2,3,True]': ({"key": "value"}, FIRST),
    '{"key":"value"}, {"key":"value_after"}': ({"key": "value"}, FIRST),
    'lorem ```json {"key":"value"} ``` ipsum ```json [1,2,3,True] ``` 42': ({"key": "value"}, FIRST),
    '[{"key":"value"}][{"key":"value_after"}]': ([{"key": "value"}], FIRST),
    '{"key": "value"}, ["abc"]': ({"key": "value"}, FIRST),
    '{"a":2}{}': ({"a": 2}, FIRST),
    '/* 1 */\n{}\n\n/* 2 */\n{}\n\n/* 3 */\n{}\n': ({}, FIRST),
    '/* 1 */\n{},\n\n/* 2 */\n{},\n\n/* 3 */\n{}\n': ({}, FIRST),
    '/* 1 */\n{},\n\n/* 2 */\n{},\n\n/* 3 */\n{},\n': ({}, FIRST),
    '{"key": "value"}, "key2": }': ({"key": "value"}, DROPPED),
    '{"a":2}foo': ({"a": 2}, "text after the document is dropped (extract)"),
    'callback {}': ({}, "prose around the document is dropped (extract)"),
    '{"key": true, "key2": false, "key3": }': ({"key": True, "key2": False}, DROPPED),
    '{"key": , "key2": "value2"}': ({"key2": "value2"}, DROPPED),
    '{"a":}': ({}, DROPPED),
    '{"a":,"b":2}': ({"b": 2}, DROPPED),
    '{"key\nafter": "foo"}': ({"keyafter": "foo"},
                              "a raw line break in a key is the model breaking the line"),
    '{"value": 82_461_110}': ({"value": "82_461_110"}, AS_TEXT),
    '{"value": 1_234.5_6}': ({"value": "1_234.5_6"}, AS_TEXT),
}


def ours(case):
    if case["input"] in OVERRIDES:
        expectation, why = OVERRIDES[case["input"]]
        return expectation, why
    if scalar_only(case["input"]):
        return REFUSE, "no object or array, and not valid JSON: not a structured answer"
    if cut_off(case["input"]):
        return "truncated", "the input ends inside a value"
    return case["suite_expects"], None


def main():
    json_repair, jsonrepair = sys.argv[1], sys.argv[2]
    cases = python_cases(json_repair) + typescript_cases(jsonrepair)
    seen, corpus = set(), []
    for case in cases:
        if case["input"] in seen:
            continue
        seen.add(case["input"])
        expectation, why = ours(case)
        entry = {"input": case["input"], "suite": case["suite"], "from": case["from"],
                 "category": case["category"], "suite_expects": case["suite_expects"]}
        if expectation == "truncated" or expectation == REFUSE:
            entry["expect"] = expectation
        else:
            entry["expect"] = "value"
            entry["value"] = expectation
        if why:
            entry["why"] = why
        corpus.append(entry)
    document = {
        "sources": {"json_repair": {"repo": "mangiucugna/json_repair", "commit": commit(json_repair),
                                    **(license(json_repair) or {})},
                    "jsonrepair": {"repo": "josdejong/jsonrepair", "commit": commit(jsonrepair),
                                   **(license(jsonrepair) or {})}},
        "rule": "right = the output parses to `value`; for `truncated`, the tool refused the input "
                "as cut off; for `refuse`, the tool gave no value",
        "cases": corpus,
    }
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
