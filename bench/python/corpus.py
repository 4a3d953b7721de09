"""The inputs of benches/repair.rs, made the same way in Python: a plan answer as a small model
writes it (pretty-printed, `steps` steps of about 330 bytes), and that answer broken one typical
way each. `cargo bench --bench repair -- dump` writes the Rust benchmark's own copies to
target/repair-corpus/; bench.py reads those when given the directory, and these otherwise (the
same bytes: `python bench/python/corpus.py DIR` writes them under the same names to compare).
"""

from __future__ import annotations

import json
import pathlib
import sys


def step(number: int) -> dict:
    return {
        "id": number,
        "title": f"Step {number}: wire the timeout through",
        "description": "Add a `timeout_s` key with a default of 60.\nParse it as a positive integer and reject 0.",
        "files": ["src/config/values.rs", "src/cli/mod.rs"],
        "depends_on": [number - 1] if number > 1 else [],
        "done": False,
        "reviewed": True,
        "owner": None,
    }


def plan(steps: int) -> str:
    value = {
        "goal": "Let users override the request timeout from the command line",
        "steps": [step(number) for number in range(1, steps + 1)],
    }
    return json.dumps(value, indent=2, ensure_ascii=False)


def trailing_commas(pretty: str) -> str:
    """A comma after the last element of every non-empty array and object."""
    lines = pretty.split("\n")
    out = []
    for index, line in enumerate(lines):
        following = lines[index + 1].lstrip() if index + 1 < len(lines) else None
        closes_next = following is not None and following[:1] in ("]", "}")
        opens_here = line.endswith("[") or line.endswith("{")
        if closes_next and not opens_here and not line.endswith(","):
            line += ","
        out.append(line + "\n")
    return "".join(out)


def single_quotes(text: str) -> str:
    return text.replace("\\n", "\x01").replace('"', "'").replace("\x01", "\\n")


def python_literals(text: str) -> str:
    return text.replace(": false", ": False").replace(": true", ": True").replace(": null", ": None")


def unquoted_keys(text: str) -> str:
    for key in ["goal", "steps", "id", "title", "description", "files", "depends_on", "done", "reviewed", "owner"]:
        text = text.replace(f'"{key}":', f"{key}:")
    return text


def comments(text: str) -> str:
    return text.replace('{\n      "id"', '{\n      // the next step\n      "id"').replace(
        '"owner": null', '"owner": null /* nobody yet */'
    )


def missing_closers(text: str) -> str:
    return text.rstrip(" \t\r\n}],") + "\n"


def raw_newlines(text: str) -> str:
    return text.replace("\\n", "\n")


def fenced(text: str) -> str:
    return f"```json\n{text}\n```"


def broken(valid: str) -> list:
    """(name, text) for each way of breaking `valid`, in the benchmark's order."""
    return [
        ("fence", fenced(valid)),
        ("prose", f"Sure! Here is the plan you asked for:\n\n{valid}\n\nLet me know if it works."),
        ("trailing_commas", trailing_commas(valid)),
        ("single_quotes", single_quotes(valid)),
        ("python_literals", python_literals(valid)),
        ("unquoted_keys", unquoted_keys(valid)),
        ("comments", comments(valid)),
        ("missing_closers", missing_closers(valid)),
        ("raw_newlines", raw_newlines(valid)),
        (
            "everything",
            fenced(missing_closers(raw_newlines(python_literals(single_quotes(trailing_commas(valid)))))),
        ),
    ]


def files() -> dict:
    """The files `cargo bench --bench repair -- dump` writes, by name."""
    small = plan(3)
    made = {"twin.json": small}
    for name, text in broken(small):
        made[f"{name}.txt"] = text
    for steps in (3, 300, 30_000):
        valid = plan(steps)
        made[f"valid-{len(valid)}.json"] = valid
        made[f"commas-{len(valid)}.txt"] = trailing_commas(valid)
    return made


if __name__ == "__main__":
    directory = pathlib.Path(sys.argv[1])
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        (directory / name).write_text(text)
    print(f"wrote {directory}")
