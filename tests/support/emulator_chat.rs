//! What the emulated engine answers to one chat request: faults first, then the fields the
//! profile enforces, ignores or rejects, the shortest instance of an enforced schema or grammar
//! (or the scripted answer when nothing constrains it), a thinking model's reasoning, the stop
//! sequences and the token budget.

use serde_json::{Value, json};

use super::gbnf_sample;
use super::{Answer, Fault, Field, Profile, Recorded, Reply, Scripted, Shared};

pub(super) fn chat(request: &Recorded, profile: &Profile, shared: &Shared) -> Reply {
    let delay = *shared.always_delay.lock().unwrap();
    if let Some(delay) = delay {
        std::thread::sleep(delay);
    }
    // A stall belongs to the stream that answers, not to the request's start.
    let fault = {
        let mut faults = shared.faults.lock().unwrap();
        match faults.front() {
            Some(Fault::Stall(..)) => None,
            _ => faults.pop_front(),
        }
    };
    match fault {
        Some(Fault::Status(status, body, retry_after)) => {
            return Reply::Whole(
                status,
                body,
                retry_after.map(|value| format!("Retry-After: {value}")),
            );
        }
        Some(Fault::Delay(delay)) => std::thread::sleep(delay),
        Some(Fault::Oversized(bytes)) => {
            let filler = "x".repeat(bytes);
            return Reply::Whole(
                200,
                json!({"choices": [{"message": {"content": filler}, "finish_reason": "stop"}]})
                    .to_string(),
                None,
            );
        }
        Some(Fault::ContextOverflow) => {
            return Reply::Whole(profile.overflow.0, profile.overflow.1.clone(), None);
        }
        Some(Fault::Stall(..)) | None => {}
    }
    let Ok(Value::Object(body)) = serde_json::from_str::<Value>(&request.body) else {
        return Reply::Whole(
            400,
            json!({"error": {"message": "invalid JSON body"}}).to_string(),
            None,
        );
    };
    if let Some((status, text)) = &profile.bare_tool_choice
        && let Some(Value::String(choice)) = body.get("tool_choice")
        && !matches!(choice.as_str(), "none" | "auto" | "required")
    {
        return Reply::Whole(*status, text.clone(), None);
    }
    if let Some(reject) = profile.reject_unknown
        && let Some(field) = body
            .keys()
            .find(|key| !profile.known_fields.contains(&key.as_str()))
    {
        let (status, text) = reject(field);
        return Reply::Whole(status, text, None);
    }
    let response_format = body.get("response_format");
    let format_type = response_format
        .and_then(|format| format.get("type"))
        .and_then(Value::as_str);
    let schema_delay = *shared.schema_delay.lock().unwrap();
    if let (Some(delay), Some("json_schema")) = (schema_delay, format_type) {
        std::thread::sleep(delay);
    }
    let strict = response_format
        .and_then(|format| format.pointer("/json_schema/strict"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    // (field present, behaviour, what it constrains to)
    let mut present: Vec<(&Field, Option<Constraint>)> = Vec::new();
    if let Some(grammar) = body.get("grammar").and_then(Value::as_str) {
        present.push((
            &profile.grammar,
            Some(Constraint::Grammar(grammar.to_owned())),
        ));
    }
    if let Some(schema) = body.get("json_schema") {
        present.push((
            &profile.top_level_json_schema,
            Some(Constraint::Schema(schema.clone())),
        ));
    }
    if let Some(schema) = body
        .get("structured_outputs")
        .and_then(|outputs| outputs.get("json"))
    {
        present.push((
            &profile.structured_outputs,
            Some(Constraint::Schema(schema.clone())),
        ));
    }
    if let Some(schema) = body.get("guided_json") {
        present.push((
            &profile.guided_json,
            Some(Constraint::Schema(schema.clone())),
        ));
    }
    match format_type {
        Some("json_schema") => {
            let schema = response_format
                .and_then(|format| format.pointer("/json_schema/schema"))
                .cloned()
                .unwrap_or(json!({}));
            if strict {
                present.push((&profile.strict, None));
            }
            present.push((&profile.json_schema, Some(Constraint::Schema(schema))));
        }
        Some("json_object") => {
            let mentions_json = request.body.to_ascii_lowercase().contains("json");
            if profile.json_word_required && !mentions_json {
                return Reply::Whole(400, json!({"error": {"message": "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "type": "invalid_request_error"}}).to_string(), None);
            }
            present.push((&profile.json_object, Some(Constraint::AnyObject)));
        }
        _ => {}
    }
    for (field, _) in &present {
        if let Field::Reject(status, text) = field {
            return Reply::Whole(*status, text.clone(), None);
        }
    }
    let constraint = present
        .into_iter()
        .find(|(field, constraint)| **field == Field::Enforce && constraint.is_some())
        .and_then(|(_, constraint)| constraint);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| profile.models[0].clone());
    let scripted = {
        let mut script = shared.script.lock().unwrap();
        match (&constraint, script.front()) {
            (None | Some(Constraint::AnyObject), _) | (_, Some(Scripted::Member(_))) => {
                script.pop_front()
            }
            _ => None,
        }
    };
    if let Some(Scripted::ToolCalls(calls)) = scripted {
        return Reply::Answer(Answer {
            model,
            reasoning: None,
            content: None,
            tool_calls: Some(calls),
            finish: "tool_calls",
            completion_tokens: 10,
        });
    }
    let enforced = matches!(
        constraint,
        Some(Constraint::Grammar(_) | Constraint::Schema(_))
    );
    let content = match (constraint, scripted) {
        (_, Some(Scripted::Member(text))) => text,
        (Some(Constraint::Grammar(grammar)), _) => match gbnf_sample::shortest(&grammar) {
            Ok(text) => pad(&text, profile.pad),
            Err(_) => {
                return Reply::Whole(400, json!({"error": {"code": 400, "message": "Failed to initialize samplers: failed to parse grammar", "type": "invalid_request_error"}}).to_string(), None);
            }
        },
        (Some(Constraint::Schema(schema)), _) => pad(&instance(&schema).to_string(), profile.pad),
        (Some(Constraint::AnyObject), Some(Scripted::Content(text))) => text,
        (Some(Constraint::AnyObject), _) => pad(&json!({"answer": "hello"}).to_string(), profile.pad),
        (None, Some(Scripted::Content(text))) => text,
        (None, _) => "Sure! Here is a short greeting for you:\n```json\n{\"greeting\": \"Hello there!\", \"ok\": True,}\n```\nLet me know if you need anything else.".to_owned(),
    };
    let thinker = profile
        .thinker
        .as_ref()
        .filter(|thinker| !(thinker.obeys_switch && thinking_off(&body)));
    let content = match thinker {
        Some(thinker) if enforced && thinker.constrained_as_reasoning => {
            format!("<think>\n{content}")
        }
        Some(thinker) => format!("<think>\n{}\n</think>\n{content}", thinker.reasoning),
        None => content,
    };
    // A stop sequence ends the generation wherever it appears, reasoning included.
    let content = match body.get("stop").and_then(Value::as_array) {
        Some(stops) if profile.honours_stops => {
            let first = stops
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|stop| content.find(stop))
                .min();
            match first {
                Some(at) => content[..at].to_owned(),
                None => content,
            }
        }
        _ => content,
    };
    let budget = body
        .get("max_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX) as usize;
    let tokens = content.chars().count();
    let (content, finish) = if tokens > budget {
        (content.chars().take(budget).collect::<String>(), "length")
    } else {
        (content, "stop")
    };
    let used = content.chars().count();
    // An engine that parses the reasoning out returns it apart; an unclosed block is all
    // reasoning and no content.
    let (reasoning, content) = match thinker.and_then(|thinker| thinker.field) {
        Some(field) => {
            let inside = content.strip_prefix("<think>\n").unwrap_or(&content);
            match inside.split_once("\n</think>\n") {
                Some((thought, answer)) => (Some((field, thought.to_owned())), answer.to_owned()),
                None => (Some((field, inside.to_owned())), String::new()),
            }
        }
        None => (None, content),
    };
    Reply::Answer(Answer {
        model,
        reasoning,
        content: Some(content),
        tool_calls: None,
        finish,
        completion_tokens: used,
    })
}

/// Whether a request turns thinking off the way the engines take it.
fn thinking_off(body: &serde_json::Map<String, Value>) -> bool {
    body.get("chat_template_kwargs")
        .and_then(|kwargs| kwargs.get("enable_thinking"))
        == Some(&Value::Bool(false))
        || body.get("reasoning_effort").and_then(Value::as_str) == Some("none")
}

enum Constraint {
    Schema(Value),
    Grammar(String),
    AnyObject,
}

/// Spaces after the opening brace, as a padding model would write them.
fn pad(text: &str, spaces: usize) -> String {
    match text.strip_prefix('{') {
        Some(rest) if spaces > 0 => format!("{{{}{rest}", " ".repeat(spaces)),
        _ => text.to_owned(),
    }
}

/// The shortest instance of a (simple) JSON Schema: enums' first value, minimum-length strings,
/// minimum integers, `minItems` items, every property.
fn instance(schema: &Value) -> Value {
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|values| values.get(0)) {
        return first.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema.get(key).and_then(|branches| branches.get(0)) {
            return instance(first);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "object",
    };
    let number = |key: &str| schema.get(key).and_then(Value::as_i64).unwrap_or(0);
    match kind {
        "object" => {
            let mut object = serde_json::Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    object.insert(name.clone(), instance(property));
                }
            }
            Value::Object(object)
        }
        "array" => {
            let item = instance(schema.get("items").unwrap_or(&json!({"type": "string"})));
            Value::Array(vec![item; number("minItems").max(0) as usize])
        }
        "string" => Value::String("a".repeat(number("minLength").max(0) as usize)),
        "integer" | "number" => json!(number("minimum")),
        "boolean" => json!(true),
        _ => Value::Null,
    }
}
