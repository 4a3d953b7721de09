//! The engine emulator's profiles: what each engine documents (and, for llama-server, what
//! tests/real-engine/README.md measured) about each body field: enforced, ignored (200,
//! unconstrained) or rejected with which status and body; its fingerprint routes; how it
//! reports a context overflow.

use serde_json::{Value, json};

/// What a profile does with one body field.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// Accepted and enforced by the decoder.
    Enforce,
    /// Accepted (200) and ignored: the answer is unconstrained.
    Ignore,
    /// Refused with this status and body.
    Reject(u16, String),
}

/// What a server does with `stream: true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Streaming {
    /// Answers with server-sent events, one chunk per token (llama-server, vLLM, OpenAI).
    Events,
    /// Ignores the field and sends the whole answer as one JSON body.
    Whole,
    /// Refuses it: 400 "streaming is not supported".
    Refused,
}

/// A model that thinks before it answers: `<think>\n{reasoning}\n</think>\n` and then the
/// answer, as Qwen3 and the DeepSeek-R1 distills write it.
#[derive(Clone, Debug, PartialEq)]
pub struct Thinker {
    /// What it thinks (one token per character, like the answer).
    pub reasoning: String,
    /// The field the engine returns the reasoning in (`reasoning_content`, `reasoning`), apart
    /// from the content; `None`: inline in the content, tags and all.
    pub field: Option<&'static str>,
    /// Whether the engine's switch turns it off (`chat_template_kwargs.enable_thinking: false`,
    /// `reasoning_effort: "none"`); false: a template that ignores it.
    pub obeys_switch: bool,
    /// Whether an enforced constraint applies from the first token, inside the open block, so
    /// the constrained value is all the model writes and the engine files it as reasoning
    /// (llama.cpp with a template that opens `<think>` and a grammar); false: the block is
    /// written and closed first, and the constraint shapes what follows.
    pub constrained_as_reasoning: bool,
}

/// How a server refuses a field it does not know: the status and body for a field name.
pub type Refusal = fn(&str) -> (u16, String);

/// One engine's documented behaviour.
#[derive(Clone, Debug)]
pub struct Profile {
    pub name: &'static str,
    /// `response_format: {"type": "json_schema"}`.
    pub json_schema: Field,
    /// `strict: true` inside it (Enforce/Ignore: accepted; Reject: refused).
    pub strict: Field,
    /// `response_format: {"type": "json_object"}`.
    pub json_object: Field,
    /// OpenAI refuses json_object unless a message mentions JSON.
    pub json_word_required: bool,
    /// `grammar` (GBNF).
    pub grammar: Field,
    /// llama-server's top-level `json_schema`.
    pub top_level_json_schema: Field,
    /// vLLM >= 0.10.2 `structured_outputs`.
    pub structured_outputs: Field,
    /// vLLM < 0.12 `guided_json`.
    pub guided_json: Field,
    /// Refuse any field outside `known_fields` (OpenAI, strict proxies).
    pub reject_unknown: Option<Refusal>,
    /// The body fields `reject_unknown` lets through.
    pub known_fields: &'static [&'static str],
    /// `GET /props`, `GET /version`, `GET /api/version`, `POST /api/show` answers.
    pub props: Option<Value>,
    pub version: Option<Value>,
    pub ollama_version: Option<Value>,
    pub ollama_show: Option<Value>,
    /// Served model ids (`GET /v1/models`).
    pub models: Vec<String>,
    /// Spaces added inside enforced answers (a model that pads its JSON).
    pub pad: usize,
    /// What `stream: true` gets.
    pub streaming: Streaming,
    /// How this engine reports a context overflow.
    pub overflow: (u16, String),
    /// When set, the answer to every request, whatever its route: a server that is not an
    /// OpenAI-compatible one.
    pub fixed_answer: Option<FixedAnswer>,
    /// Refuses a `tool_choice` that is a bare tool name (a string other than none, auto and
    /// required) with this status and body, as llama-server does.
    pub bare_tool_choice: Option<(u16, String)>,
    /// The model thinks before it answers (see [`Thinker`]).
    pub thinker: Option<Thinker>,
    /// Whether `stop` is applied, to the whole generation (reasoning included), as every
    /// engine that returns reasoning does. Off by default: the other profiles predate it.
    pub honours_stops: bool,
}

/// The one answer of a server that gives the same to every request ([`Profile::fixed_answer`]).
#[derive(Clone, Debug)]
pub struct FixedAnswer {
    pub status: u16,
    /// The `Content-Type` header; none when empty.
    pub content_type: &'static str,
    pub body: String,
}

pub const OPENAI_FIELDS: [&str; 22] = [
    "model",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "n",
    "stop",
    "seed",
    "stream",
    "stream_options",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "user",
    "metadata",
];

/// The fields of a minimal chat-completions proxy: no `response_format`, no tools.
pub const BASIC_FIELDS: [&str; 8] = [
    "model",
    "messages",
    "max_tokens",
    "temperature",
    "top_p",
    "stop",
    "seed",
    "stream",
];

fn openai_unknown(field: &str) -> (u16, String) {
    // https://platform.openai.com/docs/api-reference/chat/create : unknown arguments are a 400
    // invalid_request_error "Unrecognized request argument supplied: <name>".
    (
        400,
        json!({"error": {"message": format!("Unrecognized request argument supplied: {field}"),
            "type": "invalid_request_error", "param": null, "code": null}})
        .to_string(),
    )
}

fn proxy_unknown(field: &str) -> (u16, String) {
    (
        400,
        json!({"error": {"message": format!("unsupported parameter: {field}"), "type": "invalid_request_error"}})
            .to_string(),
    )
}

impl Profile {
    fn base(name: &'static str) -> Profile {
        Profile {
            name,
            json_schema: Field::Ignore,
            strict: Field::Ignore,
            json_object: Field::Ignore,
            json_word_required: false,
            grammar: Field::Ignore,
            top_level_json_schema: Field::Ignore,
            structured_outputs: Field::Ignore,
            guided_json: Field::Ignore,
            reject_unknown: None,
            known_fields: &OPENAI_FIELDS,
            props: None,
            version: None,
            ollama_version: None,
            ollama_show: None,
            models: vec!["emulated".to_owned()],
            pad: 0,
            streaming: Streaming::Events,
            overflow: (
                400,
                json!({"error": {"message": "This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens. Please reduce the length of the messages.",
                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
                .to_string(),
            ),
            fixed_answer: None,
            bare_tool_choice: None,
            thinker: None,
            honours_stops: false,
        }
    }

    /// OpenAI: structured outputs with strict, JSON mode (needs the word JSON in a message),
    /// 400 on any unknown field. https://platform.openai.com/docs/guides/structured-outputs
    pub fn openai() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            strict: Field::Enforce,
            json_object: Field::Enforce,
            json_word_required: true,
            reject_unknown: Some(openai_unknown),
            models: vec!["gpt-4o-mini".to_owned()],
            ..Profile::base("openai")
        }
    }

    /// A proxy that validates parameters (400 on unknown fields) in front of a server that
    /// ignores `response_format` json_schema but honours json_object.
    pub fn strict_proxy() -> Profile {
        Profile {
            json_object: Field::Enforce,
            reject_unknown: Some(proxy_unknown),
            ..Profile::base("strict-proxy")
        }
    }

    /// A proxy that validates parameters against a minimal list ([`BASIC_FIELDS`]: not even
    /// `response_format`) and answers 400 to anything else, in front of a server the cache
    /// still says enforces json_schema (strict and not) and json_object: the proxy was put in
    /// front after the probe. Every constrained request is refused; only the plain one passes.
    pub fn field_rejecting_proxy() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            strict: Field::Enforce,
            json_object: Field::Enforce,
            reject_unknown: Some(proxy_unknown),
            known_fields: &BASIC_FIELDS,
            ..Profile::base("field-rejecting-proxy")
        }
    }

    /// A server with json_schema that refuses `strict: true`.
    pub fn no_strict() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            strict: Field::Reject(
                400,
                json!({"error": {"message": "response_format.json_schema.strict: strict mode is not supported", "type": "invalid_request_error"}})
                    .to_string(),
            ),
            json_object: Field::Enforce,
            ..Profile::base("no-strict")
        }
    }

    /// vLLM 0.12: response_format json_schema and `structured_outputs`; `guided_json` was removed
    /// in 0.12, so like every unknown field it is logged and ignored (200, unconstrained).
    /// https://docs.vllm.ai/en/latest/features/structured_outputs/
    pub fn vllm() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            json_object: Field::Enforce,
            structured_outputs: Field::Enforce,
            version: Some(json!({"version": "0.12.0"})),
            overflow: (
                400,
                json!({"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
                    "type": "BadRequestError", "param": null, "code": 400})
                .to_string(),
            ),
            models: vec!["Qwen/Qwen2.5-7B-Instruct".to_owned()],
            ..Profile::base("vllm")
        }
    }

    /// vLLM 0.9: `guided_json` enforced, `structured_outputs` unknown (ignored).
    /// https://docs.vllm.ai/en/v0.9.1/features/structured_outputs.html
    pub fn vllm_legacy() -> Profile {
        Profile {
            structured_outputs: Field::Ignore,
            guided_json: Field::Enforce,
            version: Some(json!({"version": "0.9.2"})),
            ..Profile::vllm()
        }
    }

    /// llama.cpp's llama-server: grammar, top-level json_schema, response_format json_schema and
    /// json_object enforced; unknown fields ignored; invalid GBNF is a 400; `/props` has
    /// build_info and n_ctx. Measured: tests/real-engine/README.md.
    pub fn llama_server() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            json_object: Field::Enforce,
            grammar: Field::Enforce,
            top_level_json_schema: Field::Enforce,
            props: Some(json!({"build_info": "b6500-emulated", "model_alias": "tiny",
                "default_generation_settings": {"n_ctx": 4096}, "total_slots": 1})),
            overflow: (
                400,
                json!({"error": {"code": 400, "message": "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it",
                    "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}})
                .to_string(),
            ),
            models: vec!["tiny".to_owned()],
            // A named choice is only understood in its object form (and then not honoured).
            bare_tool_choice: Some((
                400,
                json!({"error": {"code": 400, "message": "Invalid tool_choice: read_file", "type": "invalid_request_error"}})
                    .to_string(),
            )),
            ..Profile::base("llama-server")
        }
    }

    /// Ollama's `/v1`: response_format json_object and json_schema; `/api/version`, `/api/show`
    /// with capabilities. https://docs.ollama.com/api/openai-compatibility
    pub fn ollama() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            json_object: Field::Enforce,
            ollama_version: Some(json!({"version": "0.12.6"})),
            ollama_show: Some(json!({"capabilities": ["completion", "tools"]})),
            models: vec!["qwen3:4b".to_owned()],
            ..Profile::base("ollama")
        }
    }

    /// LM Studio's local server: `response_format` json_schema (strict accepted); json_object
    /// answered with 400 "'response_format.type' must be 'json_schema' or 'text'"
    /// (lmstudio-bug-tracker #189); other fields ignored.
    /// https://lmstudio.ai/docs/developer/openai-compat/structured-output
    pub fn lm_studio() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            json_object: Field::Reject(
                400,
                json!({"error": "'response_format.type' must be 'json_schema' or 'text'"})
                    .to_string(),
            ),
            models: vec!["qwen2.5-coder-7b-instruct".to_owned()],
            ..Profile::base("lm-studio")
        }
    }

    /// Azure OpenAI's v1 API: OpenAI's structured outputs (json_schema with strict, json_object
    /// with the word JSON), 400 on unknown fields; the model is the deployment name.
    /// https://learn.microsoft.com/azure/ai-foundry/openai/how-to/structured-outputs
    pub fn azure() -> Profile {
        Profile {
            models: vec!["my-gpt-4o-mini".to_owned()],
            ..Profile::openai()
        }
    }

    /// SGLang: `response_format` json_schema and json_object through its OpenAI API (its own
    /// `ebnf` and `regex` fields are not used); unknown fields ignored.
    /// https://docs.sglang.io/advanced_features/structured_outputs.html
    pub fn sglang() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            json_object: Field::Enforce,
            models: vec!["Qwen/Qwen2.5-7B-Instruct".to_owned()],
            ..Profile::base("sglang")
        }
    }

    /// oMLX (MLX on Apple silicon): an OpenAI-compatible `/v1` with JSON-schema structured
    /// output and JSON mode. https://github.com/jundot/omlx
    pub fn omlx() -> Profile {
        Profile {
            json_schema: Field::Enforce,
            json_object: Field::Enforce,
            models: vec!["mlx-community/Qwen2.5-7B-Instruct-4bit".to_owned()],
            ..Profile::base("omlx")
        }
    }

    /// The profile of the engine a provider preset names (`llamacpp`, `ollama`, ...); `None`
    /// for `openai-compatible`, which is any of them.
    pub fn for_provider(provider: &str) -> Option<Profile> {
        Some(match provider {
            "llamacpp" => Profile::llama_server(),
            "ollama" => Profile::ollama(),
            "vllm" => Profile::vllm(),
            "lmstudio" => Profile::lm_studio(),
            "openai" => Profile::openai(),
            "azure" => Profile::azure(),
            "sglang" => Profile::sglang(),
            "omlx" => Profile::omlx(),
            _ => return None,
        })
    }

    /// Not a chat server at all (another web application on the port, a wrong path behind a
    /// proxy): HTTP 200 and `{"hello":"world"}` to every request.
    pub fn not_a_chat_server() -> Profile {
        Profile {
            ..Profile::answering(
                200,
                "application/json",
                &json!({"hello": "world"}).to_string(),
            )
        }
    }

    /// A server that answers every request, whatever its route, with this status, type (none
    /// when empty) and body: a web page, an empty body, an event stream without events.
    pub fn answering(status: u16, content_type: &'static str, body: &str) -> Profile {
        Profile {
            fixed_answer: Some(FixedAnswer {
                status,
                content_type,
                body: body.to_owned(),
            }),
            ..Profile::base("not-a-chat-server")
        }
    }

    /// llama-server while it loads its model: it binds the port first and answers every
    /// request with `503 Loading model` until the model is in memory (`set_profile` with
    /// [`Profile::llama_server`] is the server that finished loading).
    pub fn loading_llama_server() -> Profile {
        Profile {
            fixed_answer: Some(FixedAnswer {
                status: 503,
                content_type: "application/json",
                body: json!({"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
                    .to_string(),
            }),
            ..Profile::llama_server()
        }
    }

    /// What the emulated thinking models think: a heading and a note, which the JSON-only
    /// stop sequences (`\n## `, `\nNote:`) would end.
    pub const REASONING: &'static str = "The user asks whether a README is in scope.\n## Plan\nNote: answer with the JSON object only.";

    /// llama-server with a thinking model (a Qwen3-style template that honours
    /// `enable_thinking`): the reasoning inline in the content (`--reasoning-format none`, or
    /// a template the server does not parse), `stop` applied to it all.
    pub fn thinking_llama_server() -> Profile {
        Profile {
            thinker: Some(Thinker {
                reasoning: Profile::REASONING.to_owned(),
                field: None,
                obeys_switch: true,
                constrained_as_reasoning: false,
            }),
            honours_stops: true,
            ..Profile::llama_server()
        }
    }

    /// llama-server with a thinking model and `--reasoning-format deepseek`: the reasoning comes
    /// back in `reasoning_content`, the answer in `content`.
    pub fn reasoning_llama_server() -> Profile {
        Profile {
            thinker: Some(Thinker {
                reasoning: Profile::REASONING.to_owned(),
                field: Some("reasoning_content"),
                obeys_switch: true,
                constrained_as_reasoning: false,
            }),
            honours_stops: true,
            ..Profile::llama_server()
        }
    }

    /// Ollama's `/v1` with a thinking model: the reasoning in `reasoning`; `reasoning_effort:
    /// "none"` turns it off.
    pub fn thinking_ollama() -> Profile {
        Profile {
            thinker: Some(Thinker {
                reasoning: Profile::REASONING.to_owned(),
                field: Some("reasoning"),
                obeys_switch: true,
                constrained_as_reasoning: false,
            }),
            honours_stops: true,
            ..Profile::ollama()
        }
    }

    /// A server that accepts everything and enforces nothing.
    pub fn liar() -> Profile {
        Profile::base("liar")
    }

    /// llama-cpp-python's server: HTTP 500 to response_format json_schema (pydantic accepts only
    /// text/json_object), json_object and grammar honoured, top-level json_schema ignored, no
    /// `/props`. Measured: tests/real-engine/README.md.
    pub fn llama_cpp_python() -> Profile {
        Profile {
            json_schema: Field::Reject(
                500,
                json!({"error": {"message": "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be 'text' or 'json_object'", "type": "internal_server_error"}})
                    .to_string(),
            ),
            json_object: Field::Enforce,
            grammar: Field::Enforce,
            overflow: (500, json!({"error": {"message": "Requested tokens (5000) exceed context window of 4096"}}).to_string()),
            models: vec!["tiny".to_owned()],
            ..Profile::base("llama-cpp-python")
        }
    }
}
