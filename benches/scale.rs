//! Growth with the size of the input: GBNF derivation and the two lints of a schema with 1 k,
//! 10 k and 100 k string properties, and compiling 1 k and 10 k tools, each next to
//! `serde_json::from_str::<Value>` of the same bytes, the reference measured in the same run.
//! Linear work keeps the ratio to the parse flat as the input grows ten times; quadratic work
//! multiplies it by ten. Figures: `bench/README.md`, section "Scale".

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{
    BatchSize, BenchmarkGroup, Criterion, SamplingMode, criterion_group, criterion_main,
};
use serde_json::{Map, Value, json};
use slmcode::schema::{Validator, gbnf, strict_problems, subset_problems};
use slmcode::tools::{CompileOptions, ToolChoice, ToolSet, compile};

/// A closed object with `count` string properties, every one required or every second one
/// optional.
fn schema(count: usize, every_second_optional: bool) -> String {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for index in 0..count {
        let name = format!("field_{index}");
        properties.insert(name.clone(), json!({"type": "string"}));
        if !(every_second_optional && index % 2 == 1) {
            required.push(Value::String(name));
        }
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
    .to_string()
}

/// `count` OpenAI-form tools, each with a required string and an optional integer argument.
fn tools(count: usize) -> String {
    let tools: Vec<Value> = (0..count)
        .map(|index| {
            json!({
                "type": "function",
                "function": {
                    "name": format!("tool_{index}"),
                    "description": format!("Tool number {index}."),
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                        "required": ["path"],
                        "additionalProperties": false
                    }
                }
            })
        })
        .collect();
    Value::Array(tools).to_string()
}

/// Few samples of equal size: an iteration at 100 k properties takes a good part of a second.
fn configure(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
}

fn properties(criterion: &mut Criterion) {
    for count in [1_000, 10_000, 100_000] {
        for every_second_optional in [false, true] {
            let text = schema(count, every_second_optional);
            let value: Value = serde_json::from_str(&text).unwrap();
            let shape = if every_second_optional {
                "half_optional"
            } else {
                "all_required"
            };
            let mut group = criterion.benchmark_group(format!("properties_{count}_{shape}"));
            configure(&mut group);
            group.bench_function("reference: serde_json::from_str::<Value>", |bench| {
                bench.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
            });
            group.bench_function("gbnf::derive_uncached", |bench| {
                bench.iter(|| gbnf::derive_uncached(black_box(&value)).unwrap())
            });
            group.bench_function("subset_problems", |bench| {
                bench.iter(|| subset_problems(black_box(&value)))
            });
            group.bench_function("strict_problems", |bench| {
                bench.iter(|| strict_problems(black_box(&value)))
            });
            // The `compile` section of `schema check` (the jsonschema crate, with the copy that
            // sidesteps its quadratic step for wide closed objects: src/schema/wide_objects.rs).
            group.bench_function("Validator::compile (jsonschema)", |bench| {
                bench.iter(|| Validator::compile(black_box(&value)).unwrap())
            });
            group.finish();
        }
    }
}

fn tool_sets(criterion: &mut Criterion) {
    let options = CompileOptions::new(ToolChoice::Required);
    let unique = AtomicU64::new(0);
    for count in [1_000, 10_000] {
        let text = tools(count);
        let document: Value = serde_json::from_str(&text).unwrap();
        // Every iteration compiles a tool set no cache has seen.
        let fresh = || {
            let mut variant = document.clone();
            let stamp = unique.fetch_add(1, Ordering::Relaxed);
            for tool in variant.as_array_mut().unwrap() {
                tool["function"]["parameters"]["$comment"] = json!(format!("variant {stamp}"));
            }
            variant
        };
        let mut group = criterion.benchmark_group(format!("tools_{count}"));
        configure(&mut group);
        group.bench_function("reference: serde_json::from_str::<Value>", |bench| {
            bench.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
        });
        group.bench_function("cold: read tools + compile", |bench| {
            bench.iter_batched(
                fresh,
                |variant| {
                    let tools = ToolSet::from_value(&variant).unwrap();
                    compile(&tools, &options).unwrap()
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, properties, tool_sets);
criterion_main!(benches);
