//! What a re-ask says on a tool turn, by failure class. Never "answer with only JSON": a tool
//! turn wants a call, and that sentence pushes a model away from one.
//! - `unknown_tool`: the name called, and the tools that exist;
//! - `tool_not_chosen`: the tool that must be called, and its parameters;
//! - `invalid_arguments`: each validation error at its pointer, and that tool's parameters;
//! - no call where one was required (`empty`, `prose`, `malformed`): exactly one call, in the
//!   form `{"name": ..., "arguments": {...}}`, among the tools the choice allows;
//! - `truncated`: the cut-off call back, and "write the complete call";
//! - `repeated_call`: the call was made and its result is above: answer in text from it.

use crate::repair::{FailureClass, RepairFailure};
use crate::tools::ToolChoice;

use super::super::reask::push_problems;
use super::ToolTurn;

/// How much of a cut-off answer goes back.
const PARTIAL_LIMIT: usize = 6000;

/// The user message a reset re-ask sends after `failure` of a call to `called`.
pub(crate) fn reset_text(turn: &ToolTurn, failure: &RepairFailure, called: Option<&str>) -> String {
    let names = turn.tools.names().join(", ");
    match failure.class {
        FailureClass::UnknownTool => format!(
            "Your previous response called {}, which is not one of the tools. The tools are: {names}. {}",
            called.unwrap_or("a tool"),
            call_form(turn)
        ),
        FailureClass::ToolNotChosen => {
            let wanted = match &turn.choice {
                ToolChoice::Tool(name) => name.as_str(),
                _ => called.unwrap_or(""),
            };
            format!(
                "Your previous response called {}, but you must call {wanted}. {}{}",
                called.unwrap_or("another tool"),
                call_form(turn),
                parameters(turn, wanted)
            )
        }
        FailureClass::InvalidArguments | FailureClass::WrongShape if called.is_some() => {
            let tool = called.unwrap_or_default();
            let mut text = format!(
                "The arguments of your previous {tool} call do not satisfy its parameters."
            );
            push_problems(&mut text, failure);
            text.push_str(&format!("\nCall {tool} again with corrected arguments."));
            text.push_str(&parameters(turn, tool));
            text
        }
        FailureClass::RepeatedCall => format!(
            "You already called {} with these arguments, and its result is above. Do not call it \
             again: answer the user's request in plain text now, from the results you have.",
            called.unwrap_or("that tool")
        ),
        FailureClass::WrongShape => format!(
            "Your previous answer does not satisfy the schema: {}. Either call one of the tools ({names}) or answer as the schema asks.",
            failure.message
        ),
        _ => match turn.choice {
            ToolChoice::Auto => format!(
                "Your previous response was neither a tool call nor an answer. Either call one of the tools ({names}), or answer. {}",
                call_form(turn)
            ),
            _ => format!(
                "Your previous response did not call a tool. {}",
                call_form(turn)
            ),
        },
    }
}

/// The re-ask after a cut-off call: the call as far as it came, and "the complete call".
pub(crate) fn completion_text(text: &str) -> String {
    let partial: String = text.chars().take(PARTIAL_LIMIT).collect();
    format!(
        "Your previous tool call was cut off:\n{partial}\nWrite the complete call again, from \
         its start to its end; keep the arguments shorter if you must."
    )
}

/// "Call exactly one ...", in the form the turn expects.
fn call_form(turn: &ToolTurn) -> String {
    let which = match &turn.choice {
        ToolChoice::Tool(name) => format!("Call {name}"),
        _ => "Call exactly one tool".to_owned(),
    };
    format!(
        "{which}, exactly once, as {{\"name\": \"<tool name>\", \"arguments\": {{<its arguments>}}}}."
    )
}

/// "\nIts parameters (JSON Schema): ..." for `tool`, when it exists.
fn parameters(turn: &ToolTurn, tool: &str) -> String {
    turn.tools
        .get(tool)
        .map(|tool| {
            format!(
                "\nThe parameters of {} (JSON Schema): {}",
                tool.name, tool.parameters
            )
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::read::failure;
    use super::*;
    use crate::schema::gbnf::Whitespace;
    use crate::schema::validator;
    use crate::tools::ToolSet;

    fn turn(choice: ToolChoice) -> ToolTurn {
        let tools = ToolSet::from_value(&json!([
            {"name": "read_file", "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}}, "required": ["path"]}},
            {"name": "list_dir"}
        ]))
        .unwrap();
        ToolTurn::new(&tools, Some(choice), None, true, Whitespace::Compact)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn an_unknown_tool_names_the_tools_that_exist() {
        let text = reset_text(
            &turn(ToolChoice::Required),
            &failure(FailureClass::UnknownTool, String::new()),
            Some("open_file"),
        );
        assert_eq!(
            text,
            "Your previous response called open_file, which is not one of the tools. The tools are: read_file, list_dir. Call exactly one tool, exactly once, as {\"name\": \"<tool name>\", \"arguments\": {<its arguments>}}."
        );
    }

    #[test]
    fn bad_arguments_list_the_errors_at_their_pointers_and_the_parameters() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}},
            "required": ["path"]});
        let mut invalid = failure(FailureClass::InvalidArguments, String::new());
        invalid.errors = validator(&schema)
            .unwrap()
            .validate(&json!({"path": 3}))
            .unwrap_err()
            .0;
        let text = reset_text(&turn(ToolChoice::Required), &invalid, Some("read_file"));
        assert!(text.starts_with("The arguments of your previous read_file call do not satisfy its parameters.\nFix these errors:\n- /path: 3 is not of type \"string\""), "{text}");
        assert!(text.contains("\nCall read_file again with corrected arguments.\nThe parameters of read_file (JSON Schema): {"), "{text}");
        assert!(!text.contains("only JSON") && !text.contains("ONLY"));
    }

    #[test]
    fn another_tool_than_the_named_one_is_told_which_to_call() {
        let text = reset_text(
            &turn(ToolChoice::Tool("read_file".into())),
            &failure(FailureClass::ToolNotChosen, String::new()),
            Some("list_dir"),
        );
        assert!(text.starts_with("Your previous response called list_dir, but you must call read_file. Call read_file, exactly once, as {\"name\""), "{text}");
        assert!(
            text.contains("The parameters of read_file (JSON Schema)"),
            "{text}"
        );
    }

    #[test]
    fn prose_where_a_call_was_required_asks_for_exactly_one_call() {
        let text = reset_text(
            &turn(ToolChoice::Required),
            &failure(FailureClass::Prose, String::new()),
            None,
        );
        assert_eq!(
            text,
            "Your previous response did not call a tool. Call exactly one tool, exactly once, as {\"name\": \"<tool name>\", \"arguments\": {<its arguments>}}."
        );
        let cut = completion_text("{\"name\": \"read_file\", \"argu");
        assert!(
            cut.contains("\"argu\nWrite the complete call again"),
            "{cut}"
        );
    }
}
