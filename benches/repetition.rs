//! The loop detector's cost per byte, next to `serde_json::from_str::<Value>` on the same bytes
//! in the same run. Figures and commands: `bench/README.md`, "Loop detection".
//!
//! - `whole`: a pretty plan of ~10 KB, ~100 KB and ~1 MB that never loops, read at once: the
//!   ratio to the parse must not grow with the size (constant work per byte).
//! - `streamed`: the same text fed as a stream is, one 4-byte token at a time (each feed gives
//!   the whole text so far; the detector reads only what is new).
//! - `caught`: the real model's looping answers (`tests/fixtures/loops/`), read until the loop
//!   is found.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use serde_json::{Value, json};
use slmcode::repair::{RepetitionDetector, find_repetition};

/// A plan with `steps` steps, each different (its own words, ids, dependencies and file), pretty.
fn plan(steps: u64) -> String {
    const WORDS: [&str; 24] = [
        "timeout", "layer", "parse", "reject", "default", "config", "retry", "socket", "buffer",
        "header", "cache", "schema", "token", "stream", "limit", "error", "client", "server",
        "queue", "worker", "table", "index", "flag", "test",
    ];
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut words = |count: usize| -> String {
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                WORDS[(state % WORDS.len() as u64) as usize]
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let steps: Vec<Value> = (1..=steps)
        .map(|id| {
            json!({
                "id": id,
                "title": format!("Wire the {} through layer {id}", words(3)),
                "description": format!("Add a `{}` key with a default of 60.\nParse it as {} and reject 0.", words(2), words(6)),
                "files": [format!("src/{}/mod.rs", words(2).replace(' ', "_"))],
                "depends_on": if id > 1 { vec![id - 1, id / 2] } else { vec![] },
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"goal": "Let users set the timeout", "steps": steps}))
        .expect("serialises")
}

fn whole(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("whole");
    for steps in [30, 300, 3000] {
        let text = plan(steps);
        assert!(find_repetition(&text).is_none(), "the input must not loop");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("parse", text.len()),
            &text,
            |bench, text| bench.iter(|| black_box(serde_json::from_str::<Value>(text).unwrap())),
        );
        group.bench_with_input(
            BenchmarkId::new("detect", text.len()),
            &text,
            |bench, text| bench.iter(|| black_box(find_repetition(text))),
        );
    }
    group.finish();
}

fn streamed(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("streamed");
    for steps in [30, 300] {
        let text = plan(steps);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("parse", text.len()),
            &text,
            |bench, text| bench.iter(|| black_box(serde_json::from_str::<Value>(text).unwrap())),
        );
        group.bench_with_input(
            BenchmarkId::new("detect_4_bytes_at_a_time", text.len()),
            &text,
            |bench, text| {
                bench.iter(|| {
                    let mut detector = RepetitionDetector::new();
                    let mut end = 0;
                    while end < text.len() {
                        end = (end + 4).min(text.len());
                        while !text.is_char_boundary(end) {
                            end += 1;
                        }
                        black_box(detector.feed(&text[..end]));
                    }
                })
            },
        );
    }
    group.finish();
}

fn caught(criterion: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/loops");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .expect("the loop fixtures")
        .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
        .collect();
    texts.sort();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut group = criterion.benchmark_group("caught");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("every_fixture", |bench| {
        bench.iter(|| {
            for text in &texts {
                black_box(find_repetition(text).expect("a loop"));
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = whole, streamed, caught
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
