//! Thinking models through the real binary: the reasoning in `generate --json` (`meta.reasoning`),
//! never taken for the answer; no stop sequences sent that would cut it; the `thinking` setting
//! (flag, file) on the wire; a value the setting does not take.

use serde_json::{Value, json};

use crate::emulator::{Emulator, Profile};
use crate::util::{Slm, slm_for};

/// A prompt-only world (the scripted answers are what the model writes) on `emulator`.
/// [`slm_for`] with structured decoding off: the answer is whatever the model writes.
fn unconstrained(emulator: &Emulator, provider: &str) -> Slm {
    let mut slm = slm_for(emulator, provider);
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    slm
}

const JUDGED: &str =
    "{\"reason\": \"Docs belong to it.\", \"in_scope\": true}\n## Why\nIt says so.";

fn generate(slm: &Slm, extra: &[&str]) -> Value {
    let mut args = vec![
        "generate",
        "--schema",
        "scope_judge",
        "--prompt",
        "Is a README in scope?",
        "--json",
    ];
    args.extend(extra);
    slm.run(args, "").code(0).json()
}

#[test]
fn json_output_reports_the_reasoning_apart_from_the_value() {
    for (profile, source) in [
        (Profile::thinking_llama_server(), "inline"),
        (Profile::reasoning_llama_server(), "field"),
    ] {
        let emulator = Emulator::start(profile);
        emulator.answers([JUDGED]);
        let slm = unconstrained(&emulator, "llamacpp");
        let json = generate(&slm, &[]);
        assert_eq!(
            json["value"],
            json!({"reason": "Docs belong to it.", "in_scope": true})
        );
        assert_eq!(
            json["meta"]["reasoning"],
            json!({"source": source, "text": Profile::REASONING, "text_cut": false,
                "unfinished": false})
        );
        assert_eq!(json["meta"]["retry_count"], 0);
        let body = emulator.chat_bodies().pop().unwrap();
        assert!(body.get("stop").is_none(), "{body}");
        assert!(body.get("chat_template_kwargs").is_none());
    }
}

#[test]
fn thinking_off_from_the_flag_or_the_file_reaches_the_engine() {
    let emulator = Emulator::start(Profile::thinking_llama_server());
    emulator.answers([JUDGED, JUDGED]);
    let slm = unconstrained(&emulator, "llamacpp");
    let json = generate(&slm, &["--thinking", "off"]);
    assert_eq!(json["meta"]["reasoning"], Value::Null);
    let body = emulator.chat_bodies().pop().unwrap();
    assert_eq!(
        body["chat_template_kwargs"],
        json!({"enable_thinking": false})
    );
    assert_eq!(body["stop"], json!(slmcode::agents::JSON_STOP));

    slm.run(["config", "set", "thinking", "on"], "").code(0);
    assert_eq!(
        slm.run(["config", "get", "thinking"], "").code(0).stdout,
        "on\n"
    );
    let json = generate(&slm, &[]);
    assert_eq!(json["meta"]["reasoning"]["text"], Profile::REASONING);
    let body = emulator.chat_bodies().pop().unwrap();
    assert_eq!(
        body["chat_template_kwargs"],
        json!({"enable_thinking": true})
    );
}

#[test]
fn a_value_the_setting_does_not_take_is_a_usage_error() {
    let slm = Slm::new();
    let run = slm.run(["config", "set", "thinking", "maybe"], "");
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: invalid value `maybe` for thinking: unknown mode; expected auto, off, on\n"
    );
}
