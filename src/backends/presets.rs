//! Provider presets: per [`Provider`], the default endpoint, the conventional key variable, the
//! auth header, which wire forms are worth probing (and why the others are not), the prior
//! guess used before any probe, the fields that carry anti-repetition sampling, and which
//! fingerprint routes the server has.
//!
//! The priors are hints: a probe replaces them. Every wire detail below was checked against the
//! engines' documentation (sources cited per preset); the measured llama.cpp behaviour is in
//! `tests/real-engine/README.md`. Uses `config` and `schema` only.

use serde_json::{Map, Value, json};

use crate::config::{Provider, Thinking};
use crate::schema::Mechanism;

use super::capabilities::{GuidedField, WireForm};

/// The body field llama.cpp, vLLM and SGLang pass to the chat template as variables.
pub const THINKING_TEMPLATE_FIELD: &str = "chat_template_kwargs";

/// How the key travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthHeader {
    /// `Authorization: Bearer <key>` (OpenAI and every OpenAI-compatible server).
    Bearer,
    /// Azure OpenAI's `api-key: <key>` header.
    AzureApiKey,
}

/// A server route that identifies the running server, for the fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FingerprintRoute {
    /// llama-server `GET /props`: `build_info`, `default_generation_settings.n_ctx`.
    LlamaProps,
    /// vLLM `GET /version`: `{"version": "0.10.2"}`.
    VllmVersion,
    /// Ollama `GET /api/version` and `POST /api/show {"model"}` (`capabilities`, e.g. `thinking`).
    OllamaVersion,
    /// `GET {endpoint}/models`: the served model ids.
    Models,
}

/// The guess used before a probe (or when probing is off), and what a probe starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prior {
    /// The mechanism guessed.
    pub mechanism: Mechanism,
    /// Whether json_schema is guessed to take `strict: true`.
    pub strict: bool,
}

/// Everything slmcode assumes about a provider before it has asked the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// The provider.
    pub provider: Provider,
    /// The endpoint used when none is configured (`None`: the user must set one).
    pub default_endpoint: Option<&'static str>,
    /// How the key is sent.
    pub auth: AuthHeader,
    /// Which wire forms are worth a probe request; the others are recorded as untested.
    pub probes: &'static [WireForm],
    /// The guess before probing.
    pub prior: Prior,
    /// Where vLLM-style guided decoding goes, before the probe says otherwise.
    pub guided_field: GuidedField,
    /// Routes that fingerprint the server.
    pub fingerprint: &'static [FingerprintRoute],
    /// Whether requests must name a model (local single-model servers do not need one).
    pub requires_model: bool,
    /// The sampling fields that make this engine's model less likely to repeat itself, as
    /// the engine names them (sent under `anti_repetition`, and on the re-ask after a loop).
    pub anti_repetition: &'static [(&'static str, f64)],
}

// llama.cpp's server: `repeat_penalty` over the last 64 tokens, and DRY (`dry_multiplier`),
// which penalises extending a token sequence that already occurred; measured on the real small
// model (bench/README.md, "Defaults"). LM Studio runs GGUF models on llama.cpp and takes
// `repeat_penalty` (its OpenAI-compatible API documents it beside the OpenAI penalties).
const LLAMA_ANTI_REPETITION: &[(&str, f64)] = &[("repeat_penalty", 1.1), ("dry_multiplier", 0.8)];
const LM_STUDIO_ANTI_REPETITION: &[(&str, f64)] =
    &[("repeat_penalty", 1.1), ("frequency_penalty", 0.3)];
// vLLM and SGLang: the multiplicative `repetition_penalty` of their sampling parameters.
// https://docs.vllm.ai/en/latest/api/vllm/sampling_params.html
const VLLM_ANTI_REPETITION: &[(&str, f64)] = &[("repetition_penalty", 1.1)];
// The OpenAI API's own penalties, which Ollama's `/v1`, oMLX and most proxies pass on.
// https://platform.openai.com/docs/api-reference/chat/create
const OPENAI_ANTI_REPETITION: &[(&str, f64)] =
    &[("frequency_penalty", 0.3), ("presence_penalty", 0.3)];

const OPENAI_FORMS: &[WireForm] = &[
    WireForm::JsonSchemaStrict,
    WireForm::JsonSchema,
    WireForm::JsonObject,
];

const PRIOR_JSON_SCHEMA_STRICT: Prior = Prior {
    mechanism: Mechanism::JsonSchema,
    strict: true,
};

const PRIOR_JSON_SCHEMA: Prior = Prior {
    mechanism: Mechanism::JsonSchema,
    strict: false,
};

// OpenAI: structured outputs (`json_schema`, `strict`) and JSON mode; unknown body fields are
// rejected with 400 "Unrecognized request argument supplied: <field>", so guided_json and
// grammar are never worth a request.
// https://platform.openai.com/docs/guides/structured-outputs
const OPENAI: Preset = Preset {
    provider: Provider::OpenAi,
    default_endpoint: Some("https://api.openai.com/v1"),
    auth: AuthHeader::Bearer,
    probes: OPENAI_FORMS,
    prior: PRIOR_JSON_SCHEMA_STRICT,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[],
    requires_model: true,
    anti_repetition: OPENAI_ANTI_REPETITION,
};

// Azure OpenAI: `api-key` header; the v1 API at `https://NAME.openai.azure.com/openai/v1/` takes
// the deployment name as `model`; the dated API is
// `/openai/deployments/NAME/chat/completions?api-version=...`, and json_schema needs
// api-version 2024-08-01-preview or later.
// https://learn.microsoft.com/azure/ai-foundry/openai/how-to/structured-outputs
// https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle
const AZURE: Preset = Preset {
    provider: Provider::Azure,
    default_endpoint: None,
    auth: AuthHeader::AzureApiKey,
    probes: OPENAI_FORMS,
    prior: PRIOR_JSON_SCHEMA_STRICT,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[],
    requires_model: false,
    anti_repetition: OPENAI_ANTI_REPETITION,
};

// vLLM: `response_format` json_schema, `structured_outputs: {"json": ...}` since 0.10.2, the
// legacy `guided_json` deprecated in 0.10.2 and removed in 0.12 (an unknown field is logged and
// ignored: 200, unconstrained). No GBNF `grammar` field.
// https://docs.vllm.ai/en/latest/features/structured_outputs/
const VLLM: Preset = Preset {
    provider: Provider::Vllm,
    default_endpoint: Some("http://127.0.0.1:8000/v1"),
    auth: AuthHeader::Bearer,
    probes: &[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::StructuredOutputs,
        WireForm::GuidedJson,
        WireForm::JsonObject,
    ],
    prior: PRIOR_JSON_SCHEMA,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[FingerprintRoute::VllmVersion, FingerprintRoute::Models],
    requires_model: false,
    anti_repetition: VLLM_ANTI_REPETITION,
};

// SGLang: `response_format` json_schema through the OpenAI API (its own `ebnf`/`regex` fields
// are not GBNF `grammar` and not used here). Default port 30000.
// https://docs.sglang.io/advanced_features/structured_outputs.html
const SGLANG: Preset = Preset {
    provider: Provider::Sglang,
    default_endpoint: Some("http://127.0.0.1:30000/v1"),
    auth: AuthHeader::Bearer,
    probes: OPENAI_FORMS,
    prior: PRIOR_JSON_SCHEMA,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[FingerprintRoute::Models],
    requires_model: false,
    anti_repetition: VLLM_ANTI_REPETITION,
};

// llama.cpp's llama-server: `grammar` (GBNF), a top-level `json_schema`, and `response_format`
// json_object / json_schema, all enforced by its sampler; unknown fields are ignored (200).
// `/props` carries `build_info` and `default_generation_settings.n_ctx`.  https://github.com/ggml-org/llama.cpp/tree/master/tools/server
// (README: `grammar`, `json_schema`), measured: tests/real-engine/README.md.
const LLAMA_CPP: Preset = Preset {
    provider: Provider::LlamaCpp,
    default_endpoint: Some("http://127.0.0.1:8080/v1"),
    auth: AuthHeader::Bearer,
    probes: &[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ],
    prior: PRIOR_JSON_SCHEMA,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[FingerprintRoute::LlamaProps, FingerprintRoute::Models],
    requires_model: false,
    anti_repetition: LLAMA_ANTI_REPETITION,
};

// LM Studio: `response_format` json_schema (structured output); `json_object` is answered with
// 400 "'response_format.type' must be 'json_schema' or 'text'" (lmstudio-bug-tracker #189), which
// the probe records as rejected. GGUF models run on llama.cpp, hence the grammar probe.
// https://lmstudio.ai/docs/developer/openai-compat/structured-output
const LM_STUDIO: Preset = Preset {
    provider: Provider::LmStudio,
    default_endpoint: Some("http://127.0.0.1:1234/v1"),
    auth: AuthHeader::Bearer,
    probes: &[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ],
    prior: PRIOR_JSON_SCHEMA,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[FingerprintRoute::Models],
    requires_model: false,
    anti_repetition: LM_STUDIO_ANTI_REPETITION,
};

// Ollama: the OpenAI-compatible `/v1` takes `response_format` (json_object and json_schema);
// `/api/version` and `/api/show` (`capabilities`, e.g. `thinking`) fingerprint it. Every request
// names a model. https://docs.ollama.com/api/openai-compatibility,
// https://docs.ollama.com/api-reference/show-model-details
const OLLAMA: Preset = Preset {
    provider: Provider::Ollama,
    default_endpoint: Some("http://127.0.0.1:11434/v1"),
    auth: AuthHeader::Bearer,
    probes: OPENAI_FORMS,
    prior: PRIOR_JSON_SCHEMA,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[FingerprintRoute::OllamaVersion, FingerprintRoute::Models],
    requires_model: true,
    anti_repetition: OPENAI_ANTI_REPETITION,
};

// oMLX (MLX on Apple silicon): OpenAI-compatible `/v1` on port 8000 with JSON-schema structured
// output. https://github.com/jundot/omlx (README: "Tool Calling & Structured Output").
const OMLX: Preset = Preset {
    provider: Provider::Omlx,
    default_endpoint: Some("http://127.0.0.1:8000/v1"),
    auth: AuthHeader::Bearer,
    probes: OPENAI_FORMS,
    prior: PRIOR_JSON_SCHEMA,
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[FingerprintRoute::Models],
    requires_model: false,
    anti_repetition: OPENAI_ANTI_REPETITION,
};

// Anything else: nothing is assumed, everything is probed, and the prior is the floor.
const OPENAI_COMPATIBLE: Preset = Preset {
    provider: Provider::OpenAiCompatible,
    default_endpoint: None,
    auth: AuthHeader::Bearer,
    probes: &WireForm::ALL,
    prior: Prior {
        mechanism: Mechanism::PromptOnly,
        strict: false,
    },
    guided_field: GuidedField::StructuredOutputs,
    fingerprint: &[
        FingerprintRoute::LlamaProps,
        FingerprintRoute::VllmVersion,
        FingerprintRoute::OllamaVersion,
        FingerprintRoute::Models,
    ],
    requires_model: false,
    anti_repetition: OPENAI_ANTI_REPETITION,
};

/// The preset for `provider`.
pub fn preset(provider: Provider) -> &'static Preset {
    match provider {
        Provider::OpenAi => &OPENAI,
        Provider::Azure => &AZURE,
        Provider::Vllm => &VLLM,
        Provider::Sglang => &SGLANG,
        Provider::LlamaCpp => &LLAMA_CPP,
        Provider::LmStudio => &LM_STUDIO,
        Provider::Ollama => &OLLAMA,
        Provider::Omlx => &OMLX,
        Provider::OpenAiCompatible => &OPENAI_COMPATIBLE,
    }
}

impl Preset {
    /// The environment variable that conventionally holds the key; the one list of them is
    /// [`Provider::key_env`], which settings resolution reads.
    pub fn key_env(&self) -> Option<&'static str> {
        self.provider.key_env()
    }

    /// Whether a probe request for `form` is worth sending to this provider.
    pub fn worth_probing(&self, form: WireForm) -> bool {
        self.probes.contains(&form)
    }

    /// The anti-repetition sampling fields, ready for a request body.
    pub fn anti_repetition_sampling(&self) -> Map<String, Value> {
        self.anti_repetition
            .iter()
            .map(|(field, value)| ((*field).to_owned(), json!(value)))
            .collect()
    }

    /// The body fields that carry `thinking` to this engine (none under `auto`, and none for
    /// an engine without a switch: OpenAI's and Azure's APIs refuse fields they do not know,
    /// LM Studio and oMLX document none). llama.cpp, vLLM and SGLang pass
    /// `chat_template_kwargs` to the chat template, where Qwen3-style templates read
    /// `enable_thinking`; an unknown OpenAI-compatible server gets the same, and drops it if
    /// it refuses it. Ollama's `/v1` maps `reasoning_effort` to its own switch (`none` turns
    /// thinking off); its `think` field is read only by `/api/chat`.
    pub fn thinking_fields(&self, thinking: Thinking) -> Map<String, Value> {
        let mut fields = Map::new();
        let on = match thinking {
            Thinking::Auto => return fields,
            Thinking::Off => false,
            Thinking::On => true,
        };
        match self.provider {
            Provider::LlamaCpp | Provider::Vllm | Provider::Sglang | Provider::OpenAiCompatible => {
                fields.insert(
                    THINKING_TEMPLATE_FIELD.to_owned(),
                    json!({"enable_thinking": on}),
                );
            }
            Provider::Ollama => {
                fields.insert(
                    "reasoning_effort".to_owned(),
                    json!(if on { "medium" } else { "none" }),
                );
            }
            Provider::OpenAi | Provider::Azure | Provider::LmStudio | Provider::Omlx => {}
        }
        fields
    }

    /// Whether this engine's `stop` sequences may end a reasoning block: on every engine that
    /// returns a model's reasoning (in the text or in a field of its own) they are matched
    /// against it too. OpenAI's and Azure's reasoning models never show their reasoning, and
    /// the stops apply to the visible answer only.
    pub fn stops_reach_reasoning(&self) -> bool {
        !matches!(self.provider, Provider::OpenAi | Provider::Azure)
    }

    /// Why `form` is not probed, for the capability matrix.
    pub fn not_probed_reason(&self, form: WireForm) -> String {
        format!(
            "not probed: {} has no {} (provider preset)",
            self.provider,
            form.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_has_a_preset_that_names_it() {
        for provider in Provider::ALL {
            let preset = preset(provider);
            assert_eq!(preset.provider, provider);
            if let Some(endpoint) = preset.default_endpoint {
                assert!(endpoint.ends_with("/v1"), "{provider}: {endpoint}");
            }
            // A prior mechanism must be one the provider is probed for (or the floor).
            assert!(
                preset.prior.mechanism == Mechanism::PromptOnly
                    || preset
                        .probes
                        .iter()
                        .any(|form| form.mechanism() == preset.prior.mechanism),
                "{provider}"
            );
        }
    }

    #[test]
    fn priors_decide_which_probes_are_sent() {
        assert!(!preset(Provider::OpenAi).worth_probing(WireForm::GuidedJson));
        assert!(!preset(Provider::OpenAi).worth_probing(WireForm::Grammar));
        assert!(!preset(Provider::Vllm).worth_probing(WireForm::Grammar));
        assert!(preset(Provider::Vllm).worth_probing(WireForm::GuidedJson));
        assert!(preset(Provider::LlamaCpp).worth_probing(WireForm::Grammar));
        for form in WireForm::ALL {
            assert!(preset(Provider::OpenAiCompatible).worth_probing(form));
        }
        assert_eq!(preset(Provider::Azure).auth, AuthHeader::AzureApiKey);
    }

    #[test]
    fn thinking_goes_to_each_engine_in_its_own_field_and_auto_sends_nothing() {
        for provider in Provider::ALL {
            assert!(preset(provider).thinking_fields(Thinking::Auto).is_empty());
        }
        for provider in [Provider::LlamaCpp, Provider::Vllm, Provider::Sglang] {
            assert_eq!(
                Value::Object(preset(provider).thinking_fields(Thinking::Off)),
                json!({"chat_template_kwargs": {"enable_thinking": false}}),
                "{provider}"
            );
        }
        assert_eq!(
            Value::Object(preset(Provider::LlamaCpp).thinking_fields(Thinking::On)),
            json!({"chat_template_kwargs": {"enable_thinking": true}})
        );
        assert_eq!(
            Value::Object(preset(Provider::Ollama).thinking_fields(Thinking::Off)),
            json!({"reasoning_effort": "none"})
        );
        assert!(
            preset(Provider::OpenAi)
                .thinking_fields(Thinking::Off)
                .is_empty()
        );
    }
}
