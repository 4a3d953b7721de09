//! `slmcode tools compile TOOLS.json`: one constraint for a call to any of the tools.
//!
//! `--format json-schema` (the default) prints the `oneOf` schema, `gbnf` its grammar, and
//! `request` the request-body fields for the configured provider and the mechanism the
//! capabilities cache (or the provider's prior, or `--mechanism`) selects: the constraint for a
//! local engine that enforces it, the native `tools` and `tool_choice` otherwise. Where the
//! selected mechanism is json_schema and the server also takes a grammar (llama-server), the
//! tools go in the derived grammar: it is exact, while llama-server's own schema converter
//! enforces neither `format` nor a bounded exponent (measured: about one call in six of a
//! browser agent's invalid). Nothing is sent to the endpoint. The content address (`key:
//! sha256:...`) and the notes (what the grammar could not express, per tool and JSON pointer) go to
//! stderr.
//!
//! `--tool-choice` defaults to the file's own `tool_choice` (a request body), else `required`:
//! compiling a constraint is what the command is for. Under `auto` the grammar is one call or
//! free text (no JSON Schema can say that, so the json_schema forms constrain nothing), unless
//! `--answer` (or `--answer-schema`) makes a plain answer object the alternative to a call.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::ValueEnum;
use serde::Serialize;
use serde_json::Value;
use slmcode::backends::{ChatRequest, FormOutcome, Negotiation, WireForm, build_body, preset};
use slmcode::config::Provider;
use slmcode::schema::{Constraint, Mechanism};
use slmcode::tools::{
    self, CompileError, CompileOptions, CompiledTools, Policy, ToolChoice, ToolNote, ToolRequest,
    ToolSet,
};

use crate::cli::exit::{CliError, CommandResult, Exit};
use crate::cli::input::load_schema_file;
use crate::cli::printer::Printer;
use crate::cli::probe::{negotiate, options, target_from};
use crate::cli::settings_args::{self, SettingsArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The tools: an OpenAI `tools` array, an object with a `tools` array (a request body), or
    /// Anthropic tools (`input_schema`).
    #[arg(value_name = "TOOLS.json")]
    tools: PathBuf,

    /// none, auto, required (or any), a tool's name, or a tool_choice JSON object
    /// [default: the file's tool_choice, else required]
    #[arg(long, value_name = "CHOICE")]
    tool_choice: Option<String>,

    /// Under auto, a plain answer `{"answer": "<text>"}` instead of a call, as one more branch
    /// of a JSON constraint (in place of free text, which only a grammar can leave open).
    #[arg(long, conflicts_with = "answer_schema")]
    answer: bool,

    /// Under auto, the JSON Schema of the plain answer (an object that requires a member
    /// other than `name` and `arguments`).
    #[arg(long, value_name = "FILE")]
    answer_schema: Option<PathBuf>,

    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::JsonSchema)]
    format: Format,

    /// With --format request: plan for this mechanism (json_schema, guided_json,
    /// gbnf_grammar, json_object, prompt_only) instead of the one selected for the endpoint.
    #[arg(long, value_name = "MECHANISM")]
    mechanism: Option<String>,

    #[command(flatten)]
    settings: SettingsArgs,
}

/// What `tools compile` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The JSON Schema of the output (json_schema, guided_json, Ollama `format`).
    JsonSchema,
    /// The GBNF grammar derived from that schema (llama.cpp `grammar`).
    Gbnf,
    /// The request-body fields for the configured provider and mechanism.
    Request,
}

impl Format {
    const fn as_str(self) -> &'static str {
        match self {
            Format::JsonSchema => "json-schema",
            Format::Gbnf => "gbnf",
            Format::Request => "request",
        }
    }
}

/// `--json` output of `slmcode tools compile`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// The content address of the canonical tool set, choice and answer shape
    /// (`sha256:<64 hex>`): equal keys mean equal constraints.
    key: &'a str,
    /// The tool_choice compiled for: `"none"`, `"auto"`, `"required"` or `{"name": N}`.
    choice: &'a ToolChoice,
    /// `constrained`, `call_or_text` (auto without an answer shape), `unconstrained` (auto whose
    /// calls have no grammar) or `no_tools` (none).
    policy: Policy,
    /// Why, in one sentence.
    reason: &'a str,
    /// The tools a constrained call may name, sorted by name.
    branches: &'a [String],
    /// The plain-answer shape beside the calls, or null.
    answer: Option<&'a Value>,
    /// The format asked for.
    format: &'static str,
    /// The JSON Schema of the output; null when nothing is constrained.
    schema: Option<&'a Value>,
    /// The GBNF derived from `schema`; null when nothing is constrained.
    grammar: Option<&'a str>,
    /// With `--format request`, what the request carries (see [`RequestReport`]); else null.
    request: Option<RequestReport>,
    /// What the grammar could not express, and what it does instead (see [`NoteReport`]).
    notes: Vec<NoteReport>,
}

/// `.request` in `tools compile --json`.
#[derive(Debug, Serialize)]
struct RequestReport {
    /// The configured provider.
    provider: &'static str,
    /// The mechanism planned for.
    mechanism: Mechanism,
    /// Where the mechanism came from: `flag`, `cache`, `prior` or `forced_off`.
    mechanism_source: &'static str,
    /// `constraint`, `native_tools` or `nothing`.
    carries: &'static str,
    /// The body fields to merge into a chat completions request.
    body: Value,
    /// What the projection for this mechanism left out of the schema on the wire (see
    /// [`NoteReport`]); validation still checks it.
    notes: Vec<NoteReport>,
}

/// One entry of `.notes` (and `.request.notes`) in `tools compile --json`.
#[derive(Debug, Serialize)]
struct NoteReport {
    /// The tool; null for the combined schema as a whole.
    tool: Option<String>,
    /// JSON pointer into the tool's argument schema.
    pointer: String,
    /// The same place as a JSON pointer into the tools file; null without a tool.
    file_pointer: Option<String>,
    /// The keyword concerned, or null.
    keyword: Option<String>,
    /// What could not be expressed and how it was projected.
    reason: String,
}

impl NoteReport {
    fn new(note: &ToolNote, tools: &ToolSet) -> NoteReport {
        NoteReport {
            tool: note.tool.clone(),
            pointer: note.pointer.clone(),
            file_pointer: note.tool.as_deref().and_then(|name| {
                tools
                    .get(name)
                    .map(|tool| format!("{}{}", tool.parameters_pointer, note.pointer))
            }),
            keyword: note.keyword.clone(),
            reason: note.reason.clone(),
        }
    }
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let file = super::load(&args.tools)?;
    let (choice, from_flag) = match &args.tool_choice {
        Some(text) => (
            ToolChoice::from_argument(text)
                .map_err(|error| CliError::usage(anyhow!("--tool-choice: {}", error.reason)))?,
            true,
        ),
        None => (
            file.tool_choice.clone().unwrap_or(ToolChoice::Required),
            false,
        ),
    };
    let mut compile_options = CompileOptions::new(choice);
    let answer = match (&args.answer_schema, args.answer) {
        (Some(path), _) => Some(load_schema_file(path)?),
        (None, true) => Some(tools::default_answer()),
        (None, false) => None,
    };
    if let Some(answer) = answer {
        if compile_options.choice != ToolChoice::Auto {
            printer.warn(&format!(
                "an answer shape only applies under tool_choice auto, not {}; ignored",
                compile_options.choice
            ));
        }
        compile_options = compile_options.with_answer(answer);
    }
    let compiled = tools::compile(&file.tools, &compile_options)
        .map_err(|error| compile_error(error, from_flag, &args))?;
    let request = match args.format {
        Format::Request => Some(request_report(&args, &compiled, &file.tools, printer)?),
        _ => None,
    };
    let notes: Vec<NoteReport> = compiled
        .notes
        .iter()
        .map(|note| NoteReport::new(note, &file.tools))
        .collect();
    if printer.json() {
        printer.json_value(&Report {
            key: &compiled.key,
            choice: &compiled.choice,
            policy: compiled.policy,
            reason: &compiled.reason,
            branches: &compiled.branches,
            answer: compiled.answer.as_ref(),
            format: args.format.as_str(),
            schema: compiled.schema.as_ref(),
            grammar: compiled.grammar.as_deref(),
            request,
            notes,
        })?;
        return Ok(Exit::Success);
    }
    printer.note(&format!("key: {}", compiled.key));
    for note in &compiled.notes {
        printer.note(&format!("note: {note}"));
    }
    match (args.format, &compiled.schema, &compiled.grammar) {
        (Format::Request, _, _) => {
            let request = request.expect("built for --format request");
            for note in &request.notes {
                let tool = note
                    .tool
                    .as_deref()
                    .map(|tool| format!("{tool}: "))
                    .unwrap_or_default();
                let pointer = if note.pointer.is_empty() {
                    "(root)"
                } else {
                    &note.pointer
                };
                let keyword = note
                    .keyword
                    .as_deref()
                    .map(|keyword| format!("`{keyword}`: "))
                    .unwrap_or_default();
                printer.note(&format!("wire: {tool}{pointer}: {keyword}{}", note.reason));
            }
            printer.note(&format!(
                "request: {} for provider {} with {} ({})",
                request.carries, request.provider, request.mechanism, request.mechanism_source
            ));
            printer.json_value(&request.body)?;
        }
        (Format::JsonSchema, Some(schema), _) => printer.json_value(schema)?,
        (Format::JsonSchema, None, Some(_)) => printer.note(&format!(
            "no JSON Schema: {} (`--format gbnf` prints the grammar; `--answer` makes the answer an object, which a JSON Schema can say)",
            compiled.reason
        )),
        (Format::Gbnf, _, Some(grammar)) => printer.raw(grammar)?,
        _ => printer.note(&format!("nothing to constrain: {}", compiled.reason)),
    }
    Ok(Exit::Success)
}

/// The error of a failed compilation, naming the file to fix where a file is at fault, as the
/// errors of reading it do.
fn compile_error(error: CompileError, choice_from_flag: bool, args: &Args) -> CliError {
    let in_file = |error: CompileError, path: &std::path::Path, what: &str| {
        anyhow::Error::new(error).context(format!("{what} {}", path.display()))
    };
    match &error {
        CompileError::UnknownTool { .. } if choice_from_flag => CliError::usage(error),
        CompileError::UnknownTool { .. } | CompileError::Grammar { tool: Some(_), .. } => {
            CliError::new(Exit::Failure, in_file(error, &args.tools, "tools file"))
        }
        CompileError::AnswerShape { .. } => {
            let error = match &args.answer_schema {
                Some(path) => in_file(error, path, "schema file"),
                None => error.into(),
            };
            CliError::new(Exit::Failure, error)
                .with_hint("an answer shape is an object schema that requires e.g. `answer`")
        }
        // Where the combined schema failed outside any one tool, no one file is at fault.
        _ => CliError::new(Exit::Failure, error),
    }
}

/// Whether the tools should go in the grammar although json_schema was selected: the server
/// enforces the grammar form (probed, or llama-server's prior: the engine the negotiation
/// follows) and no request demoted it.
fn grammar_is_better(negotiation: &Negotiation) -> bool {
    if negotiation.capabilities.mechanism != Mechanism::JsonSchema
        || negotiation
            .demotions
            .iter()
            .any(|demotion| demotion.form == WireForm::Grammar)
    {
        return false;
    }
    match negotiation.capabilities.outcomes.get(&WireForm::Grammar) {
        Some(FormOutcome::Supported) => true,
        _ => {
            !negotiation.capabilities.probed && negotiation.engine().provider == Provider::LlamaCpp
        }
    }
}

/// The request fields for the configured provider and the selected (or given) mechanism.
fn request_report(
    args: &Args,
    compiled: &CompiledTools,
    tools: &ToolSet,
    printer: &Printer,
) -> Result<RequestReport, CliError> {
    let resolved = settings_args::resolve(&args.settings, printer)?;
    let provider = resolved.settings.provider;
    let (mechanism, guided_field, source) = match &args.mechanism {
        Some(text) => {
            let mechanism: Mechanism = text.parse().map_err(|error| {
                CliError::usage(anyhow::Error::new(error).context("--mechanism"))
            })?;
            (mechanism, preset(provider).guided_field, "flag")
        }
        None => {
            let (target, _) = target_from(&resolved)?;
            // Cache or prior only: compiling never contacts the endpoint.
            let negotiation = negotiate(&target, &options(&resolved, false, false), printer);
            for warning in &negotiation.warnings {
                printer.warn(warning);
            }
            let capabilities = &negotiation.capabilities;
            let mechanism = if grammar_is_better(&negotiation) {
                printer.note(
                    "the tools go in the derived grammar: it is exact, and the server's own json_schema converter enforces neither `format` nor bounded exponents",
                );
                Mechanism::GbnfGrammar
            } else {
                capabilities.mechanism
            };
            (
                mechanism,
                capabilities.guided_field,
                negotiation.source.as_str(),
            )
        }
    };
    let planned = tools::plan_request(compiled, tools, mechanism, provider.is_hosted());
    let wire_notes = match &planned {
        ToolRequest::Constrained(_) => compiled
            .project(mechanism)
            .notes
            .iter()
            .map(|note| NoteReport::new(note, tools))
            .collect(),
        _ => Vec::new(),
    };
    let mut request = ChatRequest::default();
    let constraint = match &planned {
        ToolRequest::Nothing => Constraint::None,
        ToolRequest::Native { tools, tool_choice } => {
            request.tools = Some(tools.clone());
            request.tool_choice = Some(tool_choice.clone());
            Constraint::None
        }
        ToolRequest::Constrained(constraint) => constraint.clone(),
    };
    // The fragment is what this adds to a plain request: the fields of an empty body
    // (messages, stream) are the caller's.
    let plain = build_body(&ChatRequest::default(), &Constraint::None, guided_field);
    let mut body = build_body(&request, &constraint, guided_field);
    if let (Value::Object(fields), Value::Object(plain)) = (&mut body, &plain) {
        fields.retain(|key, _| !plain.contains_key(key));
        if matches!(planned, ToolRequest::Native { .. }) {
            // Serial tools: one call per turn, as tool-using roles take them.
            fields.insert("parallel_tool_calls".to_owned(), Value::Bool(false));
        }
    }
    Ok(RequestReport {
        provider: provider.as_str(),
        mechanism,
        mechanism_source: source,
        carries: planned.kind(),
        body,
        notes: wire_notes,
    })
}
