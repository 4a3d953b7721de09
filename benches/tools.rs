//! Compiling the 30-tool fixture (`tests/fixtures/tools/thirty_tools.json`, 13.5 KB) into one
//! constraint, cold and warm, next to parsing the same bytes with `serde_json` as the reference
//! measured in the same run. Figures: `bench/README.md`, section "Tools".
//!
//! Cold: every iteration compiles a tool set no cache has seen (each schema carries a fresh
//! `$comment`), so the schema validators, the grammar derivation and the tool-set compilation
//! all start from nothing. Warm: the same file again, so the compilation comes from the
//! in-process cache by its content address (parsing, canonical form and hash still run).

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use slmcode::tools::{
    CompileOptions, ExtractOptions, ToolChoice, ToolSet, compile, describe, extract,
};

const THIRTY: &str = include_str!("../tests/fixtures/tools/thirty_tools.json");

fn compile_thirty(criterion: &mut Criterion) {
    let document: Value = serde_json::from_str(THIRTY).expect("the fixture is JSON");
    let options = CompileOptions::new(ToolChoice::Required);
    let unique = AtomicU64::new(0);
    let fresh = || {
        let mut variant = document.clone();
        let stamp = unique.fetch_add(1, Ordering::Relaxed);
        for tool in variant.as_array_mut().unwrap() {
            tool["function"]["parameters"]["$comment"] = json!(format!("variant {stamp}"));
        }
        variant
    };

    let mut group = criterion.benchmark_group(format!("thirty_tools_{}_bytes", THIRTY.len()));
    group.bench_function("reference: serde_json::from_str::<Value>", |bench| {
        bench.iter(|| serde_json::from_str::<Value>(black_box(THIRTY)).unwrap())
    });
    group.bench_function("cold: parse tools + compile (nothing cached)", |bench| {
        bench.iter_batched(
            fresh,
            |variant| {
                let tools = ToolSet::from_value(&variant).unwrap();
                compile(&tools, &options).unwrap()
            },
            BatchSize::SmallInput,
        )
    });
    let tools = ToolSet::from_value(&document).unwrap();
    compile(&tools, &options).unwrap();
    group.bench_function("warm: parse tools + compile (cache hit)", |bench| {
        bench.iter(|| {
            let tools = ToolSet::from_value(black_box(&document)).unwrap();
            compile(&tools, &options).unwrap()
        })
    });
    group.bench_function("warm: compile a parsed tool set (cache hit)", |bench| {
        bench.iter(|| compile(black_box(&tools), &options).unwrap())
    });
    let text = "<tool_call>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"fn main\", \"paths\": [\"src\"], \"ignore_case\": true}}\n</tool_call>";
    group.bench_function("extract one call from text", |bench| {
        bench.iter(|| extract(black_box(text), &tools, &ExtractOptions::default()).unwrap())
    });
    // What a tool turn adds to a request and to its answer in the call path: the tools
    // described for the prompt, and the call the constraint made read back and validated.
    group.bench_function("describe the tools for the prompt", |bench| {
        bench.iter(|| describe(black_box(&tools), &ToolChoice::Required, None))
    });
    let constrained = "{\"name\": \"grep\", \"arguments\": {\"pattern\": \"fn main\", \"paths\": [\"src\"], \"ignore_case\": true}}";
    group.bench_function("read a constrained call (extract + validate)", |bench| {
        bench.iter(|| extract(black_box(constrained), &tools, &ExtractOptions::default()).unwrap())
    });
    group.finish();
}

criterion_group!(benches, compile_thirty);
criterion_main!(benches);
