//! GBNF derivation of the contracts (each, and all 16 together; cold with the cache bypassed,
//! and warm from the cache), and recognition of a ~1 KB document, next to `serde_json`
//! parsing the same bytes as the reference measured in the same run. Figures and the
//! llama.cpp Python converter measured side by side: `bench/README.md`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use slmcode::schema::{contract, contracts, gbnf};

/// The shipped plan example: 4 steps, about 1.1 KB.
const PLAN: &str = include_str!("../examples/contracts/plan.json");

fn derivation(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("derive_cold");
    for contract in contracts() {
        let schema = contract.schema();
        group.bench_function(contract.name, |bench| {
            bench.iter(|| gbnf::derive_uncached(black_box(schema)).unwrap())
        });
    }
    group.bench_function("all 16", |bench| {
        bench.iter(|| {
            for contract in contracts() {
                black_box(gbnf::derive_uncached(black_box(contract.schema())).unwrap());
            }
        })
    });
    group.finish();

    let mut group = criterion.benchmark_group("derive_warm");
    group.bench_function("all 16", |bench| {
        bench.iter(|| {
            for contract in contracts() {
                black_box(gbnf::derive(black_box(contract.schema())).unwrap());
            }
        })
    });
    group.finish();
}

fn recognition(criterion: &mut Criterion) {
    let plan = contract("plan").expect("plan is a contract");
    let derived = gbnf::derive(plan.schema()).unwrap();
    let grammar = gbnf::parse(&derived.grammar).unwrap();
    grammar
        .recognize(PLAN)
        .expect("the example is in the language");

    let mut group = criterion.benchmark_group(format!("plan_{}_bytes", PLAN.len()));
    group.bench_function("reference: serde_json::from_str::<Value>", |bench| {
        bench.iter(|| serde_json::from_str::<Value>(black_box(PLAN)).unwrap())
    });
    group.bench_function("Grammar::recognize", |bench| {
        bench.iter(|| grammar.recognize(black_box(PLAN)).unwrap())
    });
    group.bench_function("gbnf::parse (the plan grammar)", |bench| {
        bench.iter(|| gbnf::parse(black_box(&derived.grammar)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, derivation, recognition);
criterion_main!(benches);
