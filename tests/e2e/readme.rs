//! The README's llama.cpp blocks (the set-up and the quick start), run against the real server:
//! what a new user types first must work on a real engine, not only on the emulator.

use crate::readme_runner::run_real_engine_blocks;

#[test]
fn the_readme_llama_cpp_blocks_work_on_a_real_server() {
    let Some(endpoint) = crate::endpoint("the_readme_llama_cpp_blocks_work_on_a_real_server")
    else {
        return;
    };
    let (ran, failures) = run_real_engine_blocks(&endpoint);
    assert!(
        ran >= 6,
        "only {ran} README commands ran against the real server"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
