//! The library behind the `slmcode` binary, used from Rust: repair a model's answer against a
//! contract, then (when an endpoint is configured) run the structured call path.
//!
//! `cargo run --example library` repairs the shipped small-model answer; with
//! `SLMCODE_ENDPOINT` set, it also asks that endpoint for a plan.

use slmcode::call::{CallContext, StructuredRequest, structured_call};
use slmcode::config::{Environment, Overrides, resolve};
use slmcode::repair::{RepairOptions, repair};
use slmcode::schema;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model_output = std::fs::read_to_string("examples/small-model-answer.txt")?;
    let plan = schema::contract("plan")?;
    let options = RepairOptions::new().schema(plan.schema())?;
    let repaired = repair(&model_output, &options)?; // Err(RepairFailure { class, errors, partial, .. })
    println!("{} (rung {})", repaired.value, repaired.rung.as_str());

    // The structured call path, as `slmcode generate` runs it.
    let resolved = resolve(&Environment::from_process(), &Overrides::new())?;
    if resolved.settings.endpoint.is_some() {
        let context = CallContext::from_settings(&resolved.settings)?;
        let request = StructuredRequest::contract("plan").user("Add a --timeout flag");
        let outcome = structured_call(&request, &context)?;
        println!("{:?}", outcome.meta.mechanism);
    }
    Ok(())
}
