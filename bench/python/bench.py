"""`slmcode.loads` against `json_repair.loads` and `json.loads`, in process, in one run.

Usage: python bench/python/bench.py [CORPUS_DIR] [--quick]

The inputs are the repair benchmark's (benches/repair.rs): the 1 KB plan answer's valid twin
(`twin.json`), the same answer broken one typical way each (`fence.txt`, ..., `everything.txt`),
and plans of 1 KB, 100 KB and 10 MB, valid (`valid-N.json`) and with a trailing comma in every
array and object (`commas-N.txt`). CORPUS_DIR is where `cargo bench --bench repair -- dump` wrote
them (target/repair-corpus/); without it, corpus.py makes the same files in memory.

For every case the three readers run in alternating batches (each batch about 5 ms of CPU time
of this thread, after a `gc.collect()`), and the table gives the median time per call of each
and the median of the per-round ratios: the machine may be shared, so only ratios measured in
the same run are compared. `json.loads` always reads the valid twin: it cannot read the broken
text. Every value is checked against the twin before timing.
"""

from __future__ import annotations

import gc
import importlib.metadata
import json
import pathlib
import platform
import statistics
import sys
import time

import json_repair

import corpus
import slmcode

BATCH_NS = 5_000_000


def per_call(function, text, calls):
    gc.collect()
    start = time.thread_time_ns()
    for _ in range(calls):
        function(text)
    return (time.thread_time_ns() - start) / calls


def calls_for(function, text):
    """How many calls fill a batch (one for the slow ones)."""
    once = max(per_call(function, text, 1), 1)
    return max(1, int(BATCH_NS / once))


def measure(readers, rounds):
    """`readers`: (name, function, text). The time per call of each reader, round by round."""
    sizes = [calls_for(function, text) for _, function, text in readers]
    measured = []
    for _ in range(rounds):
        measured.append(
            {name: per_call(function, text, calls) for (name, function, text), calls in zip(readers, sizes)}
        )
    return measured


def median(measured, name):
    return statistics.median(row[name] for row in measured)


def ratio(measured, over, under):
    """The median of the per-round ratios `over / under`."""
    return statistics.median(row[over] / row[under] for row in measured)


def shown(ns):
    if ns >= 1_000_000:
        return f"{ns / 1_000_000:.2f} ms"
    return f"{ns / 1_000:.2f} µs"


def inputs(arguments):
    """The corpus's files by name, from the directory given or made here."""
    given = [argument for argument in arguments if not argument.startswith("--")]
    if not given:
        return corpus.files()
    return {path.name: path.read_text() for path in pathlib.Path(given[0]).iterdir()}


def main():
    files = inputs(sys.argv[1:])
    quick = "--quick" in sys.argv
    twin = files["twin.json"]
    cases = []
    for name in corpus.broken(twin):
        cases.append((f"1 KB answer: {name[0]}", files[f"{name[0]}.txt"], twin))
    # The answer the issue measured json_repair on: fenced, with trailing commas.
    fenced_commas = corpus.fenced(files["trailing_commas.txt"].rstrip("\n"))
    cases.append(("1 KB answer: fence and trailing commas", fenced_commas, twin))
    sized = sorted(
        (int(name[len("valid-"):-len(".json")]) for name in files if name.startswith("valid-")),
    )
    for size in sized:
        label = {True: "10 MB", False: "100 KB"}[size > 1_000_000] if size > 10_000 else "1 KB"
        valid = files[f"valid-{size}.json"]
        commas = files[f"commas-{size}.txt"]
        cases.append((f"{label} valid", valid, valid))
        cases.append((f"{label} trailing commas", commas, valid))

    print(f"Python {platform.python_version()}, slmcode {slmcode.__version__}, "
          f"json_repair {importlib.metadata.version('json_repair')}")
    print()
    print("| case | bytes | json.loads (valid twin) | slmcode.loads | json_repair.loads "
          "| slmcode / json.loads | json_repair / slmcode | json_repair equal to the twin |")
    print("|---|---|---|---|---|---|---|---|")
    for name, text, valid in cases:
        expected = json.loads(valid)
        got = slmcode.loads(text)
        assert got == expected, f"{name}: slmcode's value differs from the twin"
        peer_equal = json_repair.loads(text) == expected
        big = len(text) > 1_000_000
        rounds = 3 if big else (5 if len(text) > 10_000 else 21)
        if quick:
            rounds = 1 if big else 3
        measured = measure(
            [
                ("json", json.loads, valid),
                ("slmcode", slmcode.loads, text),
                ("json_repair", json_repair.loads, text),
            ],
            rounds,
        )
        print(
            f"| {name} | {len(text.encode())} | {shown(median(measured, 'json'))} "
            f"| {shown(median(measured, 'slmcode'))} | {shown(median(measured, 'json_repair'))} "
            f"| {ratio(measured, 'slmcode', 'json'):.2f} | {ratio(measured, 'json_repair', 'slmcode'):.1f} "
            f"| {'yes' if peer_equal else 'no'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
