//! A harness that keeps slmcode's files (the capabilities cache, the repair statistics) in a
//! directory of its own: the settings are resolved from an `Environment` the harness builds,
//! and the call path writes where those settings say, so the process's `SLMCODE_CONFIG_DIR`
//! (or `~/.config/slmcode`) is neither read nor written.
//!
//! `cargo run --example own_config_dir -- DIR ENDPOINT` asks the llama.cpp server at
//! ENDPOINT for a plan and keeps slmcode's files in DIR.

use slmcode::call::{CallContext, StructuredRequest, structured_call};
use slmcode::config::{Environment, Overrides, resolve};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(endpoint)) = (args.next(), args.next()) else {
        return Err("usage: own_config_dir DIR ENDPOINT".into());
    };
    let environment = Environment::from_pairs([
        ("SLMCODE_CONFIG_DIR", dir.as_str()),
        ("SLMCODE_PROVIDER", "llamacpp"),
        ("SLMCODE_ENDPOINT", endpoint.as_str()),
    ]);
    let resolved = resolve(&environment, &Overrides::new())?;
    let context = CallContext::from_settings(&resolved.settings)?;
    let request = StructuredRequest::contract("plan").user("Add a --timeout flag");
    let outcome = structured_call(&request, &context)?;
    println!("{}", outcome.meta.mechanism.as_str());
    Ok(())
}
