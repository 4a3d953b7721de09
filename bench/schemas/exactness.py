"""The contracts' exactness check, on the JSONSchemaBench sample: is every valid instance in
the language of slmcode's derived grammar, and every invalid one out of it, as llama.cpp's own
grammar engine (its gbnf-validator) and slmcode's recognizer (`slmcode schema match`) read it?
Both judge the grammar `schema match` uses (pretty whitespace, whose language holds the compact
texts too).

    python3 exactness.py --data DIR --slmcode BIN --validator BIN [--out FILE]

The instances are the benchmark's own (maskbench/data: written by models, marked valid or
invalid, extracted by sample.py into DIR/tests), re-judged by Python `jsonschema` (formats
asserted) against the schema they come with. Each is written as the canonical text the grammar
describes (serde_json-style compact JSON, object properties in schema order: declared ones
first, in the order of `properties`, then of `allOf` branches; an `anyOf`/`oneOf` value ordered
by the first branch it validates against).

Per instance: a valid one accepted, or refused by a grammar whose notes say it narrows or
leaves out part of the schema (noted: objects closed where the schema leaves them open, say),
or refused with no note (a miss); an invalid one refused, or let through by a grammar whose
notes say it leaves a keyword to validation (noted), or let through with no note (a miss). The
two judges must agree; every disagreement is listed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def unescape(token):
    from urllib.parse import unquote

    return unquote(token).replace("~1", "/").replace("~0", "~")


def resolve(root, ref):
    if not ref.startswith("#"):
        return None
    node = root
    for token in filter(None, ref[1:].split("/")):
        token = unescape(token)
        if isinstance(node, list):
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            return None
    return node


class Canonical:
    def __init__(self, root, validator):
        self.root = root
        self.validator = validator

    def fits(self, schema, value):
        try:
            return self.validator.evolve(schema=schema).is_valid(value)
        except Exception:
            return False

    def expand(self, schema, depth=0):
        """The schema with local $refs and allOf folded in, for property order and subschemas."""
        if not isinstance(schema, dict) or depth > 20:
            return [schema] if isinstance(schema, dict) else []
        parts = [schema]
        if isinstance(schema.get("$ref"), str):
            target = resolve(self.root, schema["$ref"])
            if target is not None:
                parts += self.expand(target, depth + 1)
        for branch in schema.get("allOf") or []:
            parts += self.expand(branch, depth + 1)
        return parts

    def write(self, schema, value, depth=0):
        if depth > 60:
            return value
        parts = self.expand(schema)
        for part in list(parts):
            for keyword in ("anyOf", "oneOf"):
                for branch in part.get(keyword) or []:
                    if self.fits(branch, value):
                        parts += self.expand(branch)
                        break
        if isinstance(value, dict):
            order, subschemas = [], {}
            for part in parts:
                for name, sub in (part.get("properties") or {}).items():
                    if name not in subschemas:
                        order.append(name)
                        subschemas[name] = []
                    subschemas[name].append(sub)
            keys = [name for name in order if name in value]
            keys += [name for name in value if name not in subschemas]
            out = {}
            for key in keys:
                subs = subschemas.get(key)
                if subs is None:
                    extra = [part.get("additionalProperties") for part in parts]
                    subs = [sub for sub in extra if isinstance(sub, dict)]
                merged = {"allOf": subs} if subs else {}
                out[key] = self.write(merged, value[key], depth + 1)
            return out
        if isinstance(value, list):
            out = []
            for index, item in enumerate(value):
                subs = []
                for part in parts:
                    prefix = part.get("prefixItems")
                    items = part.get("items")
                    if isinstance(items, list):
                        prefix = items
                        items = part.get("additionalItems")
                    if isinstance(prefix, list) and index < len(prefix):
                        subs.append(prefix[index])
                    elif isinstance(items, dict):
                        subs.append(items)
                out.append(self.write({"allOf": subs} if subs else {}, item, depth + 1))
            return out
        return value


def text(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def engine_accepts(validator, grammar_path, text_value, workdir):
    path = os.path.join(workdir, "input.json")
    with open(path, "w") as file:
        file.write(text_value)
    try:
        done = subprocess.run(
            [validator, grammar_path, path], capture_output=True, timeout=60, text=True
        )
    except subprocess.TimeoutExpired:
        return None
    if "is valid according to the grammar" in done.stdout:
        return True
    if "is invalid according to the grammar" in done.stdout:
        return False
    return None


def recognizer_accepts(slmcode, schema_path, text_value):
    try:
        done = subprocess.run(
            [slmcode, "schema", "match", "--file", schema_path, "-"],
            input=text_value.encode(),
            capture_output=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        return None
    return {0: True, 5: False}.get(done.returncode)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--slmcode", required=True)
    parser.add_argument("--validator", required=True)
    parser.add_argument("--out", default="exactness.json")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "sample.txt")) as file:
        entries = [line.strip() for line in file if line.strip() and not line.startswith("#")]
    sys.setrecursionlimit(10000)
    rows = []
    totals = {}
    disagreements = []
    with tempfile.TemporaryDirectory() as workdir:
        for entry in entries:
            tests_path = os.path.join(args.data, "tests", entry)
            if not os.path.exists(tests_path):
                continue
            with open(tests_path) as file:
                bundle = json.load(file)
            schema = bundle["schema"]
            schema_path = os.path.join(workdir, "schema.json")
            with open(schema_path, "w") as file:
                json.dump(schema, file)
            try:
                done = subprocess.run(
                    [args.slmcode, "schema", "gbnf", "--file", schema_path, "--json"],
                    capture_output=True,
                    timeout=60,
                )
            except subprocess.TimeoutExpired:
                done = None
            row = {"entry": entry, "counts": {}, "exact": None}
            rows.append(row)
            if done is None or done.returncode != 0:
                row["counts"]["no grammar"] = 1
                totals["no grammar"] = totals.get("no grammar", 0) + 1
                continue
            report = json.loads(done.stdout)
            grammar_path = os.path.join(workdir, "grammar.gbnf")
            with open(grammar_path, "w") as file:
                file.write(report["grammar"])
            noted = bool(report["notes"])
            row["exact"] = not noted
            try:
                cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
                validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
                canonical = Canonical(schema, validator)
            except Exception as error:
                row["counts"]["unjudged"] = len(bundle["tests"])
                row["error"] = str(error)[:200]
                continue
            for case in bundle["tests"]:
                try:
                    valid = validator.is_valid(case["data"])
                    written = text(canonical.write(schema, case["data"]) if valid else case["data"])
                except Exception:
                    kind = "unjudged"
                else:
                    engine = engine_accepts(args.validator, grammar_path, written, workdir)
                    recognizer = recognizer_accepts(args.slmcode, schema_path, written)
                    if engine is None:
                        kind = "engine gave no verdict"
                    elif valid:
                        kind = "valid accepted" if engine else f"valid refused, {'noted' if noted else 'no note'}"
                    elif not engine:
                        kind = "invalid refused"
                    else:
                        kind = f"invalid let through, {'noted' if noted else 'no note'}"
                    if engine is not None and recognizer is not None and engine != recognizer:
                        disagreements.append({"entry": entry, "valid": valid, "engine": engine, "text": written[:300]})
                    if kind.endswith("no note"):
                        row.setdefault("misses", []).append({"kind": kind, "text": written[:300], "notes": report["notes"][:3]})
                row["counts"][kind] = row["counts"].get(kind, 0) + 1
                totals[kind] = totals.get(kind, 0) + 1
    with open(args.out, "w") as file:
        json.dump({"rows": rows, "totals": totals, "disagreements": disagreements}, file, indent=1)
    kinds = [
        "valid accepted",
        "valid refused, noted",
        "invalid refused",
        "invalid let through, noted",
        "valid refused, no note",
        "invalid let through, no note",
        "engine gave no verdict",
        "unjudged",
    ]
    print(f"{len(rows)} schemas of the sample have the benchmark's test instances.\n")
    print("| category | schemas | exact grammars (no notes) | " + " | ".join(kinds) + " |")
    print("|---" * (len(kinds) + 3) + "|")
    categories = sorted({row["entry"].split("/")[0] for row in rows})
    for category in categories + ["all"]:
        group = [row for row in rows if category in ("all", row["entry"].split("/")[0])]
        counts = [sum(row["counts"].get(kind, 0) for row in group) for kind in kinds]
        exact = sum(1 for row in group if row["exact"])
        print(f"| {category} | {len(group)} | {exact} | " + " | ".join(map(str, counts)) + " |")
    no_grammar = totals.get("no grammar", 0)
    print(f"\nNo grammar: {no_grammar} schema(s).")
    missed = sorted({row["entry"] for row in rows if row.get("misses")})
    print(f"Schemas with an instance misjudged and no note ({len(missed)}): {' '.join(missed) or '-'}")
    print(f"llama.cpp's engine and slmcode's recognizer disagree on {len(disagreements)} instances.")


if __name__ == "__main__":
    main()
