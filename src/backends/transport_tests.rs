//! Unit tests of the transport and the chat wire format: wire fields per constraint, answers,
//! `Retry-After`, and the key kept out of everything but the auth header.

use serde_json::{Map, json};

use super::*;
use crate::backends::ErrorClass;
use crate::backends::chat::*;

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::user("hi")],
        model: Some("m".to_owned()),
        max_tokens: Some(64),
        temperature: Some(0.0),
        stop: vec!["\n## ".to_owned()],
        seed: Some(7),
        tools: None,
        tool_choice: None,
        parallel_tool_calls: None,
        sampling: Map::new(),
        thinking: Map::new(),
    }
}

#[test]
fn each_constraint_goes_in_its_field() {
    let schema = json!({"type": "object"});
    let strict = build_body(
        &request(),
        &Constraint::JsonSchema {
            name: "plan".to_owned(),
            schema: schema.clone(),
            strict: true,
        },
        GuidedField::StructuredOutputs,
    );
    assert_eq!(
        strict["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "plan", "schema": schema, "strict": true}})
    );
    let loose = build_body(
        &request(),
        &Constraint::JsonSchema {
            name: "plan".to_owned(),
            schema: schema.clone(),
            strict: false,
        },
        GuidedField::StructuredOutputs,
    );
    assert!(
        loose["response_format"]["json_schema"]
            .get("strict")
            .is_none()
    );
    let guided = Constraint::GuidedJson {
        schema: schema.clone(),
    };
    assert_eq!(
        build_body(&request(), &guided, GuidedField::StructuredOutputs)["structured_outputs"],
        json!({"json": schema})
    );
    let legacy = build_body(&request(), &guided, GuidedField::GuidedJson);
    assert_eq!(legacy["guided_json"], schema);
    assert!(legacy.get("structured_outputs").is_none());
    let grammar = build_body(
        &request(),
        &Constraint::Grammar {
            gbnf: "root ::= \"x\"".to_owned(),
        },
        GuidedField::StructuredOutputs,
    );
    assert_eq!(grammar["grammar"], json!("root ::= \"x\""));
    assert_eq!(
        build_body(
            &request(),
            &Constraint::JsonObject,
            GuidedField::StructuredOutputs
        )["response_format"],
        json!({"type": "json_object"})
    );
    let plain = build_body(
        &request(),
        &Constraint::None,
        GuidedField::StructuredOutputs,
    );
    for field in [
        "response_format",
        "structured_outputs",
        "guided_json",
        "grammar",
    ] {
        assert!(plain.get(field).is_none(), "{field}");
    }
    assert_eq!(plain["model"], json!("m"));
    assert_eq!(plain["max_tokens"], json!(64));
    assert_eq!(plain["stop"], json!(["\n## "]));
    assert_eq!(plain["seed"], json!(7));
    assert_eq!(
        plain["messages"],
        json!([{"role": "user", "content": "hi"}])
    );
}

#[test]
fn tools_pass_through_and_a_missing_model_is_omitted() {
    let mut with_tools = request();
    with_tools.model = None;
    with_tools.tools = Some(json!([{"type": "function", "function": {"name": "read"}}]));
    with_tools.tool_choice = Some(json!("required"));
    with_tools.parallel_tool_calls = Some(false);
    let body = build_body(
        &with_tools,
        &Constraint::None,
        GuidedField::StructuredOutputs,
    );
    assert!(body.get("model").is_none());
    assert_eq!(body["tools"][0]["function"]["name"], json!("read"));
    assert_eq!(body["tool_choice"], json!("required"));
    assert_eq!(body["parallel_tool_calls"], json!(false));
}

#[test]
fn answers_parse_content_finish_reason_usage_and_tool_calls() {
    let body = json!({
        "model": "tiny",
        "choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    });
    let parsed = parse_chat_response(&body).unwrap();
    assert_eq!(parsed.content, None);
    assert_eq!(parsed.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(parsed.usage.total_tokens, Some(8));
    assert_eq!(parsed.tool_calls[0].name, "read");
    assert_eq!(parsed.tool_calls[0].arguments, "{\"path\":\"a\"}");
    assert_eq!(parsed.model.as_deref(), Some("tiny"));
    assert_eq!(
        parsed.usage.cached_prompt_tokens, None,
        "not said: not counted"
    );
    let cached = json!({"choices": [{"message": {"content": "{}"}}], "usage": {
        "prompt_tokens": 458, "completion_tokens": 9, "total_tokens": 467,
        "prompt_tokens_details": {"cached_tokens": 457}}});
    assert_eq!(
        parse_chat_response(&cached)
            .unwrap()
            .usage
            .cached_prompt_tokens,
        Some(457)
    );
    let cut = json!({"choices": [{"finish_reason": "length", "message": {"content": "{\"a\":"}}]});
    assert!(parse_chat_response(&cut).unwrap().is_truncated());
    assert_eq!(
        parse_chat_response(&json!({"hello": "world"})).unwrap_err(),
        r#"the answer is not a chat completion (it has no choices): {"hello":"world"}"#
    );
}

#[test]
fn retry_after_in_seconds_or_as_a_date() {
    assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
        Some(Duration::ZERO)
    );
    assert_eq!(parse_retry_after("soon"), None);
}

/// A one-shot server on 127.0.0.1 that answers every request with `answer(key)`, where
/// `key` is the Authorization header it received.
fn echoing_server(answer: fn(&str) -> String) -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut auth, mut length) = (String::new(), 0);
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(": ") {
                    match name.to_ascii_lowercase().as_str() {
                        "authorization" => auth = value.to_owned(),
                        "content-length" => length = value.parse().unwrap(),
                        _ => {}
                    }
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let reply = answer(&auth);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    base
}

#[test]
fn a_key_the_server_echoes_is_masked_in_answers_too() {
    let base = echoing_server(|auth| {
        json!({"data": [{"id": format!("model-for-{auth}")}],
            "choices": [{"message": {"content": format!("your key is {auth}")}, "finish_reason": "stop"}]})
        .to_string()
    });
    let endpoint =
        crate::config::endpoint::normalize_endpoint(crate::config::Provider::OpenAi, &base)
            .unwrap()
            .endpoint;
    let client = Client::new(
        endpoint,
        AuthHeader::Bearer,
        Some(Secret::new("sk-test-ECHOEDKEY")),
    );
    let models = client
        .get_json(&client.endpoint().url("/models"), Duration::from_secs(10))
        .unwrap();
    assert_eq!(
        models["data"][0]["id"],
        json!("model-for-Bearer <redacted>")
    );
    let answer = client
        .chat(
            &request(),
            &Constraint::None,
            GuidedField::StructuredOutputs,
            Duration::from_secs(10),
        )
        .unwrap();
    assert_eq!(
        answer.content.as_deref(),
        Some("your key is Bearer <redacted>")
    );
}

#[test]
fn debug_output_never_shows_the_key() {
    let endpoint = crate::config::endpoint::normalize_endpoint(
        crate::config::Provider::OpenAi,
        "http://127.0.0.1:9/v1",
    )
    .unwrap()
    .endpoint;
    let client = Client::new(
        endpoint,
        AuthHeader::Bearer,
        Some(Secret::new("sk-test-DEBUGKEY")),
    );
    let debug = format!("{client:?}");
    assert!(!debug.contains("DEBUGKEY"), "{debug}");
    assert_eq!(client.mask("echo sk-test-DEBUGKEY"), "echo <redacted>");
}

/// `error` as rustls hands it to ureq: an `io::Error` of kind InvalidData around it.
fn from_rustls(error: rustls::Error) -> ureq::Error {
    ureq::Error::Io(std::io::Error::new(ErrorKind::InvalidData, error))
}

#[test]
fn tls_failures_are_told_apart_wherever_ureq_puts_them() {
    use rustls::{AlertDescription, CertificateError, InvalidMessage, OtherError};
    let plain_http = || rustls::Error::InvalidMessage(InvalidMessage::InvalidContentType);
    let self_signed = || {
        // What webpki's "CA used as end entity" reaches slmcode as: a name rustls does not have.
        let webpki = std::io::Error::other("CaUsedAsEndEntity");
        rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(webpki))))
    };
    for (error, expected) in [
        (from_rustls(plain_http()), TlsFailure::NotTls),
        (from_rustls(self_signed()), TlsFailure::UntrustedCertificate),
        (
            from_rustls(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            )),
            TlsFailure::UntrustedCertificate,
        ),
        (
            // Anything else wrong with a certificate, in rustls' words.
            ureq::Error::Rustls(rustls::Error::InvalidCertificate(CertificateError::Revoked)),
            TlsFailure::InvalidCertificate("Revoked".to_owned()),
        ),
        (
            from_rustls(rustls::Error::AlertReceived(
                AlertDescription::HandshakeFailure,
            )),
            TlsFailure::Handshake("received fatal alert: HandshakeFailure".to_owned()),
        ),
    ] {
        assert_eq!(tls_failure(&error), Some(expected), "{error:?}");
    }
    // The body reader wraps ureq's error in an io::Error of its own.
    let in_body = std::io::Error::other(from_rustls(plain_http()));
    assert_eq!(tls_failure(&in_body), Some(TlsFailure::NotTls));
    // Other failures to connect or read are not TLS failures.
    for error in [
        ureq::Error::ConnectionFailed,
        ureq::Error::Io(std::io::Error::from(ErrorKind::ConnectionRefused)),
        ureq::Error::Io(std::io::Error::new(
            ErrorKind::InvalidData,
            "a line of the event stream is too long",
        )),
    ] {
        assert_eq!(tls_failure(&error), None, "{error:?}");
    }
}

#[test]
fn a_tls_failure_is_permanent_and_says_what_it_was() {
    let endpoint = crate::config::endpoint::normalize_endpoint(
        crate::config::Provider::OpenAi,
        "https://127.0.0.1:9/v1",
    )
    .unwrap()
    .endpoint;
    let client = Client::new(endpoint, AuthHeader::Bearer, None);
    let error = client.transport_error(
        from_rustls(rustls::Error::InvalidMessage(
            rustls::InvalidMessage::InvalidContentType,
        )),
        Duration::from_secs(1),
    );
    assert_eq!(error.class, ErrorClass::Permanent);
    assert_eq!(error.status, None);
    assert_eq!(error.tls, Some(TlsFailure::NotTls));
    assert_eq!(
        error.to_string(),
        "permanent error: TLS failed: the server on that port does not speak TLS (a plain-HTTP \
         server?)"
    );
}

#[test]
fn thinking_fields_ride_along_and_a_refused_one_is_dropped_alone() {
    let mut chat = request();
    chat.sampling
        .insert("repeat_penalty".to_owned(), json!(1.1));
    chat.thinking.insert(
        "chat_template_kwargs".to_owned(),
        json!({"enable_thinking": false}),
    );
    let body = build_body(&chat, &Constraint::None, GuidedField::default());
    assert_eq!(
        body["chat_template_kwargs"],
        json!({"enable_thinking": false})
    );
    assert_eq!(body["repeat_penalty"], json!(1.1));

    let endpoint = crate::backends::normalize_endpoint(
        crate::config::Provider::LlamaCpp,
        "http://127.0.0.1:9/v1",
    )
    .unwrap()
    .endpoint;
    let client = Client::new(endpoint, AuthHeader::Bearer, None);
    let refusal = CallError::from_failure(TransportFailure::Status {
        status: 400,
        body: r#"{"error": {"message": "unsupported parameter: chat_template_kwargs"}}"#.to_owned(),
        retry_after: None,
    });
    assert!(client.refuse_sampling(&chat, &refusal));
    let accepted = client.accepted_sampling(&chat).expect("one field dropped");
    assert!(accepted.thinking.is_empty());
    assert_eq!(accepted.sampling, chat.sampling, "the penalties stay");
    assert_eq!(client.refusals().0, ["chat_template_kwargs"]);
}

#[test]
fn reasoning_comes_from_whichever_field_the_engine_uses() {
    for field in ["reasoning_content", "reasoning", "thinking"] {
        let body = json!({"choices": [{"message": {"content": "{}", field: "hmm"},
            "finish_reason": "stop"}]});
        let response = parse_chat_response(&body).unwrap();
        assert_eq!(response.reasoning.as_deref(), Some("hmm"), "{field}");
        assert_eq!(response.content.as_deref(), Some("{}"));
    }
}

#[test]
fn only_a_blank_answer_with_one_json_value_as_reasoning_is_a_misfiled_answer() {
    let answer = |content: Option<&str>, reasoning: &str, tool_calls: bool| ChatResponse {
        content: content.map(str::to_owned),
        reasoning: Some(reasoning.to_owned()),
        tool_calls: if tool_calls {
            vec![ToolCall {
                id: None,
                name: "read".to_owned(),
                arguments: "{}".to_owned(),
            }]
        } else {
            Vec::new()
        },
        ..ChatResponse::default()
    };
    assert_eq!(
        answer(None, " {\"a\": 1}\n", false).misfiled_answer(),
        Some("{\"a\": 1}")
    );
    assert_eq!(
        answer(Some("  "), "[1]", false).misfiled_answer(),
        Some("[1]")
    );
    assert_eq!(answer(Some("{}"), "[1]", false).misfiled_answer(), None);
    assert_eq!(answer(None, "[1]", true).misfiled_answer(), None);
    assert_eq!(
        answer(None, "The user wants {\"a\": 1}.", false).misfiled_answer(),
        None,
        "a model that thinks about JSON is not taken at its word"
    );
}
