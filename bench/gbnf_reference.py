"""Times llama.cpp's Python JSON Schema -> GBNF converter on the contract schemas.

Arguments: the converter's path, the folder of schema files, the slmcode binary, the contract
names. Prints, per contract, the converter's time per schema in process (timeit, best of 5
repeats of an auto-ranged loop), then all of them together, then both tools as processes
(wall time, median of 20 runs, and CPU time per run from the children's rusage).
"""

import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import time
import timeit


def load(path):
    spec = importlib.util.spec_from_file_location("converter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def convert(module, text):
    if hasattr(module, "json_schema_to_gbnf"):
        return module.json_schema_to_gbnf(text)
    # llama.cpp's examples/json_schema_to_grammar.py
    import json

    converter = module.SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    schema = converter.resolve_refs(json.loads(text), "input")
    converter.visit(schema, "")
    return converter.format_grammar()


def per_call(function):
    timer = timeit.Timer(function)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def processes(command, runs=20):
    walls = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / runs
    return statistics.median(walls), cpu


def main():
    if sys.argv[1] == "--convert":
        # One conversion, as a process of its own.
        print(convert(load(sys.argv[2]), open(sys.argv[3]).read()))
        return
    converter_path, schemas, slmcode, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    module = load(converter_path)
    texts = {name: open(os.path.join(schemas, name + ".json")).read() for name in names}
    print("| contract | llama.cpp Python converter, in process |")
    print("|---|---|")
    for name in names:
        seconds = per_call(lambda: convert(module, texts[name]))
        print(f"| {name} | {seconds * 1e6:.0f} us |")
    total = per_call(lambda: [convert(module, texts[name]) for name in names])
    print(f"| all {len(names)} together | {total * 1e6:.0f} us |")
    print()
    plan = os.path.join(schemas, "plan.json")
    wall, cpu = processes([sys.executable, os.path.abspath(__file__), "--convert", converter_path, plan])
    print(f"process, plan: python converter {wall * 1e3:.1f} ms wall, {cpu * 1e3:.1f} ms CPU")
    wall, cpu = processes([slmcode, "schema", "gbnf", "plan"])
    print(f"process, plan: slmcode schema gbnf {wall * 1e3:.1f} ms wall, {cpu * 1e3:.1f} ms CPU")


if __name__ == "__main__":
    main()
