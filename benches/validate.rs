//! Validating a ~1 KB plan against the `plan` contract, next to parsing the same bytes with
//! `serde_json` as the reference measured in the same run. Figures: `bench/README.md`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use slmcode::schema::contract;

/// The shipped plan example: 4 steps, about 1.1 KB.
const PLAN: &str = include_str!("../examples/contracts/plan.json");

fn validate_plan(criterion: &mut Criterion) {
    let plan_contract = contract("plan").expect("plan is a contract");
    let document: Value = serde_json::from_str(PLAN).expect("the example is JSON");
    plan_contract
        .validate(&document)
        .expect("the example is a valid plan");

    let mut group = criterion.benchmark_group(format!("plan_{}_bytes", PLAN.len()));
    group.bench_function("reference: serde_json::from_str::<Value>", |bench| {
        bench.iter(|| serde_json::from_str::<Value>(black_box(PLAN)).unwrap())
    });
    group.bench_function("Contract::validate (valid)", |bench| {
        bench.iter(|| plan_contract.validate(black_box(&document)).unwrap())
    });
    group.bench_function("parse + Contract::validate", |bench| {
        bench.iter(|| {
            let value: Value = serde_json::from_str(black_box(PLAN)).unwrap();
            plan_contract.validate(&value).unwrap();
        })
    });
    let mut invalid = document.clone();
    invalid["steps"][2]["id"] = Value::from("three");
    group.bench_function("Contract::validate (one violation)", |bench| {
        bench.iter(|| plan_contract.validate(black_box(&invalid)).unwrap_err())
    });
    group.finish();
}

criterion_group!(benches, validate_plan);
criterion_main!(benches);
